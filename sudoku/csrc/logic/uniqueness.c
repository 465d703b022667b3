/*
 * uniqueness.c: unique, hidden and avoidable rectangles and BUG+1 (sound
 * only for a puzzle with one solution).
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/*
 * A unique rectangle is four blank cells in two rows, two columns and
 * exactly two boxes that could all take the same two digits x and y: were
 * they x, y, x, y round it, swapping x and y would give a second solution,
 * so in a puzzle with one solution they are not. Its cells need not all
 * still hold both digits: the argument is about the solution, not the
 * candidates, so a corner that lost one of them still counts (a candidate
 * gone is not the solution's).
 *
 * Rectangles that have two corners in one line holding the same two
 * candidates only (types 1 to 4 have such a side), each other corner
 * holding one of them at least: the first such side in reading order of
 * its first cell then second, then the opposite side's line in order.
 * Calls `try` with the corners (c[0], c[1] the first row's) and the pair. */
typedef int (*rect_fn)(const logic_board *b, const int c[4], unsigned pair, logic_step *s);

static int each_rectangle(const logic_board *b, rect_fn try_rect, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    int f1;
    FOR_CELLS(f1, bi) {
        int f2;
        /* the later bivalue cells of f1's row and column, in order */
        FOR_CELLS(f2, bi & ~((BIT(f1) << 1) - 1) & (UNIT[row_of(f1)] | UNIT[9 + col_of(f1)])) {
            unsigned pair = b->cand[f1];
            if (b->cand[f2] != pair)
                continue;
            int same_row = row_of(f1) == row_of(f2);
            for (int other = 0; other < 9; other++) {
                int o1, o2;
                if (same_row) {
                    if (other == row_of(f1) || (other / 3 == row_of(f1) / 3) == (col_of(f1) / 3 == col_of(f2) / 3))
                        continue;
                    o1 = other * 9 + col_of(f1);
                    o2 = other * 9 + col_of(f2);
                } else {
                    if (other == col_of(f1) || (other / 3 == col_of(f1) / 3) == (row_of(f1) / 3 == row_of(f2) / 3))
                        continue;
                    o1 = row_of(f1) * 9 + other;
                    o2 = row_of(f2) * 9 + other;
                }
                if (!(b->cand[o1] & pair) || !(b->cand[o2] & pair))
                    continue;
                int c[4];
                /* corners in reading order: first row then second */
                int cs[4] = {f1, f2, o1, o2};
                for (int i = 0; i < 4; i++)
                    for (int j = i + 1; j < 4; j++)
                        if (cs[j] < cs[i]) {
                            int t = cs[i];
                            cs[i] = cs[j];
                            cs[j] = t;
                        }
                memcpy(c, cs, sizeof c);
                if (try_rect(b, c, pair, s))
                    return 1;
            }
        }
    }
    return 0;
}

static void rect_pattern(const logic_board *b, const int c[4], unsigned pair, int variant, logic_step *s)
{
    step_start(s, LOGIC_UNIQUE_RECTANGLE);
    s->variant = variant;
    for (int i = 0; i < 4; i++) {
        s->pattern[0][c[i]] = (uint16_t)(b->cand[c[i]] & pair);
        s->pattern[1][c[i]] = (uint16_t)(b->cand[c[i]] & ~pair);
    }
    s->digits = (uint16_t)pair;
}

/* Type 1: three corners hold only the pair; the fourth loses it. */
static int rect_type1(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int extra = -1, n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            extra = c[i], n++;
    if (n != 1 || !(b->cand[extra] & ~pair))
        return 0;
    rect_pattern(b, c, pair, 1, s);
    step_eliminate_mask(s, b, extra, pair);
    return 1;
}

/* Type 2: two corners hold only the pair, the other two (the roof) the
 * pair and one same extra digit; one of those two holds it, so cells
 * seeing both lose it. */
static int rect_type2(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int roof[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            roof[n++] = c[i];
    unsigned extra = n == 2 ? b->cand[roof[0]] & ~pair : 0;
    if (n != 2 || bits9(extra) != 1 || (b->cand[roof[1]] & ~pair) != extra)
        return 0;
    int z = low_digit(b->cand[roof[0]] & ~pair);
    cells_t out = PEERS[roof[0]] & PEERS[roof[1]] & b->where[z - 1];
    if (!out)
        return 0;
    rect_pattern(b, c, pair, 2, s);
    step_eliminate(s, b, out, z);
    return 1;
}

/* Type 4: two corners in one line hold only the pair; in a unit of the other
 * two, one digit of the pair has no other place, so they lose the other. */
static int rect_type4(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int roof[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            roof[n++] = c[i];
    if (n != 2 || (row_of(roof[0]) != row_of(roof[1]) && col_of(roof[0]) != col_of(roof[1])))
        return 0;
    for (int k = 0; k < 3; k++) {
        int u = unit_of(roof[0], k);
        if (u != unit_of(roof[1], k))
            continue;
        int x;
        FOR_DIGITS(x, pair) {
            cells_t here = b->where[x - 1] & UNIT[u];
            if (here != (BIT(roof[0]) | BIT(roof[1])))
                continue;
            int y = low_digit(pair & ~(1u << (x - 1)));
            if (!(b->where[y - 1] & here))
                continue; /* a roof corner without y: nothing to remove */
            rect_pattern(b, c, pair, 4, s);
            step_eliminate(s, b, BIT(roof[0]) | BIT(roof[1]), y);
            step_unit(s, u);
            return 1;
        }
    }
    return 0;
}

/* Type 3: the roof's extra digits E (two or more) and k other cells of a
 * unit of both roof cells hold k + 1 digits D between them: one roof cell
 * holds a digit of E, and with the k cells that makes k + 1 cells of the
 * unit holding D, a naked subset, so the unit's other cells lose D. Units
 * the roof's line then its box; k from 1 to 3; cells in reading order. */
static int rect_type3(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int roof[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            roof[n++] = c[i];
    if (n != 2)
        return 0;
    unsigned extra = (b->cand[roof[0]] | b->cand[roof[1]]) & ~pair;
    if (bits9(extra) < 2)
        return 0;
    cells_t both = BIT(roof[0]) | BIT(roof[1]);
    for (int k = 0; k < 3; k++) {
        int u = unit_of(roof[0], k);
        if (u != unit_of(roof[1], k))
            continue;
        int list[9], m = 0, x;
        FOR_CELLS(x, UNIT[u] & ~both)
            if (b->cand[x] && bits9(b->cand[x] | extra) <= 4)
                list[m++] = x;
        for (int size = 1; size <= 3 && size <= m; size++) {
            int idx[3];
            first_combination(idx, size);
            do {
                unsigned digits = extra;
                cells_t set = 0;
                for (int j = 0; j < size; j++) {
                    digits |= b->cand[list[idx[j]]];
                    set |= BIT(list[idx[j]]);
                }
                if (bits9(digits) != size + 1)
                    continue;
                cells_t rest = UNIT[u] & ~set & ~both;
                int any = 0, d;
                FOR_DIGITS(d, digits)
                    any |= (b->where[d - 1] & rest) != 0;
                if (!any)
                    continue;
                rect_pattern(b, c, pair, 3, s);
                FOR_DIGITS(d, digits)
                    step_eliminate(s, b, rest, d);
                FOR_CELLS(x, set)
                    s->pattern[2][x] = b->cand[x];
                step_unit(s, u);
                return 1;
            } while (next_combination(idx, size, m));
        }
    }
    return 0;
}

/* Rectangles with a corner holding the pair only, in reading order, then
 * the opposite corner's row and column in order; each other corner holds
 * one digit of the pair at least. Calls `try` with the corners (c[0] the
 * pair-only corner, c[3] its opposite, c[1] in c[0]'s row, c[2] in its
 * column). */
static int each_diagonal(const logic_board *b, rect_fn try_rect, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    int p;
    FOR_CELLS(p, bi) {
        unsigned pair = b->cand[p];
        int r1 = row_of(p), c1 = col_of(p);
        /* the opposite corners, in reading order (rows, then columns): cells
         * with a digit of the pair off p's row and column, in p's band or
         * its stack but not both (the rectangle spans two boxes) */
        cells_t band = 0, stack = 0;
        for (int k = 0; k < 3; k++) {
            band |= UNIT[18 + r1 / 3 * 3 + k];
            stack |= UNIT[18 + k * 3 + c1 / 3];
        }
        cells_t far = (b->where[low_digit(pair) - 1] | b->where[low_digit(pair & (pair - 1)) - 1]) &
                      (band ^ stack) & ~UNIT[r1] & ~UNIT[9 + c1];
        int q;
        FOR_CELLS(q, far) {
            int c[4] = {p, r1 * 9 + col_of(q), row_of(q) * 9 + c1, q};
            if (!(b->cand[c[1]] & pair) || !(b->cand[c[2]] & pair))
                continue;
            if (try_rect(b, c, pair, s))
                return 1;
        }
    }
    return 0;
}

/* The corners of a diagonal rectangle in reading order, for its pattern. */
static void diagonal_pattern(const logic_board *b, const int c[4], unsigned pair, logic_technique t,
                             int variant, logic_step *s)
{
    int sorted[4];
    memcpy(sorted, c, sizeof sorted);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (sorted[j] < sorted[i]) {
                int x = sorted[i];
                sorted[i] = sorted[j];
                sorted[j] = x;
            }
    rect_pattern(b, sorted, pair, variant, s);
    s->technique = t;
}

/* Type 6: two opposite corners hold the pair only, and in both rows (or
 * both columns) one digit x of the pair has no place but the corners: were
 * either other corner x, the four would be x, y, x, y. So both lose x. */
static int rect_type6(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    if (b->cand[c[3]] != pair || b->cand[c[1]] == pair || b->cand[c[2]] == pair)
        return 0;
    cells_t corners = BIT(c[0]) | BIT(c[1]) | BIT(c[2]) | BIT(c[3]);
    int x;
    FOR_DIGITS(x, pair) {
        if (!has_cand(b, c[1], x) || !has_cand(b, c[2], x))
            continue;
        for (int cols = 0; cols < 2; cols++) {
            int u1 = cols ? 9 + col_of(c[0]) : row_of(c[0]), u2 = cols ? 9 + col_of(c[3]) : row_of(c[3]);
            if ((b->where[x - 1] & (UNIT[u1] | UNIT[u2]) & ~corners))
                continue;
            diagonal_pattern(b, c, pair, LOGIC_UNIQUE_RECTANGLE, 6, s);
            step_eliminate(s, b, BIT(c[1]) | BIT(c[2]), x);
            step_unit(s, u1);
            step_unit(s, u2);
            return 1;
        }
    }
    return 0;
}

static int find_unique_rectangle(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    return each_rectangle(b, rect_type1, s) || each_rectangle(b, rect_type2, s) ||
           each_rectangle(b, rect_type3, s) || each_rectangle(b, rect_type4, s) ||
           each_diagonal(b, rect_type6, s);
}

/*
 * Hidden rectangle: a corner P holds the pair x, y only, and the opposite
 * corner Q's row and column hold x nowhere but the rectangle. Were Q y, the
 * two corners beside it would be x (their line's x), P could not be x and
 * would be y: x, y, x, y round it. So Q is not y. Rectangles as
 * each_diagonal; x up.
 */
static int hidden_rectangle(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int q = c[3];
    cells_t corners = BIT(c[0]) | BIT(c[1]) | BIT(c[2]) | BIT(q);
    int x;
    FOR_DIGITS(x, pair) {
        int y = low_digit(pair & ~(1u << (x - 1)));
        if (!has_cand(b, q, y) || b->cand[q] == pair || !has_cand(b, q, x) || !has_cand(b, c[1], x) ||
            !has_cand(b, c[2], x))
            continue; /* x's strong links need x in the three corners */
        cells_t lines = UNIT[row_of(q)] | UNIT[9 + col_of(q)];
        if (b->where[x - 1] & lines & ~corners)
            continue;
        diagonal_pattern(b, c, pair, LOGIC_HIDDEN_RECTANGLE, 0, s);
        step_eliminate(s, b, BIT(q), y);
        step_unit(s, row_of(q));
        step_unit(s, 9 + col_of(q));
        return 1;
    }
    return 0;
}

static int find_hidden_rectangle(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    return each_diagonal(b, hidden_rectangle, s);
}

/*
 * Avoidable rectangle: four cells in two rows, two columns and exactly two
 * boxes, none of them a given, where A and B (in one line) were placed as
 * a and b. Were the two across from them, C (across from A) and D, b and a,
 * the four would be a, b, a, b round it, and since no given pins any of
 * them, swapping a and b would give the givens a second solution. The
 * placed cells are the solution's (every step is sound, and a player's
 * entries are checked against the solution first), so in a puzzle with
 * one solution C is not b or D is not a.
 * Type 1: C was placed as b too; D loses a (or D was placed as a, C loses b).
 * Type 2: C holds only b and x, D only a and x: one of them is x, so the
 * cells seeing both lose x.
 * A placed cells in order, B after it in its row then its column, the
 * other line in order.
 */
typedef int (*avoidable_fn)(const logic_board *b, cells_t placed, const int c[4], logic_step *s);

static int each_avoidable(const logic_board *b, cells_t placed, avoidable_fn try_rect, logic_step *s)
{
    int a;
    FOR_CELLS(a, placed) {
        for (int cols = 0; cols < 2; cols++) {
            cells_t line = cols ? COL_SET(col_of(a)) : ROW_SET(row_of(a));
            int p;
            FOR_CELLS(p, placed & line & ~((BIT(a) << 1) - 1)) {
                /* along the line: a and p's positions, across: the line they share */
                int at = cols ? row_of(a) : col_of(a), pt = cols ? row_of(p) : col_of(p);
                int here = cols ? col_of(a) : row_of(a);
                int same_box = at / 3 == pt / 3;
                for (int other = 0; other < 9; other++) {
                    if (other == here || (other / 3 == here / 3) == same_box)
                        continue;
                    int c[4] = {a, p, cols ? at * 9 + other : other * 9 + at,
                                cols ? pt * 9 + other : other * 9 + pt};
                    if (try_rect(b, placed, c, s))
                        return 1;
                }
            }
        }
    }
    return 0;
}

/* The corners (A, B, C, D as each_avoidable gives them), each with the
 * digit the rectangle would have there: A a, B b, C b, D a. */
static void avoidable_pattern(const logic_board *b, const int c[4], int variant, logic_step *s)
{
    step_start(s, LOGIC_AVOIDABLE_RECTANGLE);
    s->variant = variant;
    unsigned va = 1u << (b->cells[c[0]] - 1), vb = 1u << (b->cells[c[1]] - 1);
    unsigned want[4] = {va, vb, vb, va};
    for (int i = 0; i < 4; i++)
        s->pattern[0][c[i]] = (uint16_t)(b->cells[c[i]] ? want[i] : b->cand[c[i]] & want[i]);
    s->digits = (uint16_t)(va | vb);
}

static int avoidable_type1(const logic_board *b, cells_t placed, const int c[4], logic_step *s)
{
    int va = b->cells[c[0]], vb = b->cells[c[1]];
    for (int i = 2; i < 4; i++) {
        int solved = c[i], open = c[5 - i];
        int solved_digit = i == 2 ? vb : va, open_digit = i == 2 ? va : vb;
        if (!((placed >> solved) & 1) || b->cells[solved] != solved_digit || !has_cand(b, open, open_digit))
            continue;
        avoidable_pattern(b, c, 1, s);
        step_eliminate(s, b, BIT(open), open_digit);
        return 1;
    }
    return 0;
}

static int avoidable_type2(const logic_board *b, cells_t placed, const int c[4], logic_step *s)
{
    (void)placed;
    unsigned va = 1u << (b->cells[c[0]] - 1), vb = 1u << (b->cells[c[1]] - 1);
    unsigned cc = b->cand[c[2]], cd = b->cand[c[3]];
    if (bits9(cc) != 2 || !(cc & vb) || (cc & va))
        return 0;
    unsigned x = cc & ~vb;
    if (cd != (va | x))
        return 0;
    int z = low_digit(x);
    cells_t out = PEERS[c[2]] & PEERS[c[3]] & b->where[z - 1];
    if (!out)
        return 0;
    avoidable_pattern(b, c, 2, s);
    s->pattern[1][c[2]] = (uint16_t)x;
    s->pattern[1][c[3]] = (uint16_t)x;
    step_eliminate(s, b, out, z);
    return 1;
}

static int find_avoidable_rectangle(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    cells_t placed = 0;
    for (int c = 0; c < 81; c++)
        if (b->cells[c])
            placed |= BIT(c);
    placed &= ~b->givens;
    if (popcount(placed) < 2)
        return 0;
    return each_avoidable(b, placed, avoidable_type1, s) || each_avoidable(b, placed, avoidable_type2, s);
}

/*
 * BUG+1: every blank cell has two candidates but one, which has three, and
 * every digit has two places in each unit but one digit in that cell's
 * units; without that digit there the board would have two solutions (a
 * "bivalue universal grave"), so the cell takes it.
 */
static int find_bug_plus_one(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    int odd = -1;
    for (int c = 0; c < 81; c++) {
        int k = bits9(b->cand[c]);
        if (k == 0 || k == 2)
            continue;
        if (k != 3 || odd >= 0)
            return 0;
        odd = c;
    }
    if (odd < 0)
        return 0;
    int digit = 0;
    int d;
    FOR_DIGITS(d, b->cand[odd]) {
        if (popcount(b->where[d - 1] & UNIT[row_of(odd)]) == 3) {
            digit = d;
            break;
        }
    }
    if (!digit)
        return 0;
    /* with `digit` taken out of the odd cell, every unit holds each digit
     * in exactly 0 or 2 cells */
    for (int u = 0; u < 27; u++)
        for (d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (d == digit)
                x &= ~BIT(odd);
            int k = popcount(x);
            if (k != 0 && k != 2)
                return 0;
        }
    step_start(s, LOGIC_BUG_PLUS_ONE);
    step_place(s, odd, digit);
    s->pattern[0][odd] = b->cand[odd];
    s->digits = (uint16_t)(1u << (digit - 1));
    return 1;
}

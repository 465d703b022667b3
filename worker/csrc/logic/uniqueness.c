/*
 * uniqueness.c: unique rectangles and BUG+1 (sound only for a puzzle with one solution).
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* Rectangles of blank cells in two rows, two columns and exactly two boxes
 * that have two corners in one line holding the same two candidates only
 * (every type below has such a side): the first such side in reading order
 * of its first cell then second, then the opposite side's line in order.
 * Calls `try` with the corners (c[0], c[1] the first row's) and the pair. */
typedef int (*rect_fn)(const logic_board *b, const int c[4], unsigned pair, logic_step *s);

static int each_rectangle(const logic_board *b, rect_fn try_rect, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    int f1;
    FOR_CELLS(f1, bi) {
        int f2;
        FOR_CELLS(f2, bi & ~((BIT(f1) << 1) - 1)) {
            unsigned pair = b->cand[f1];
            if (b->cand[f2] != pair)
                continue;
            int same_row = row_of(f1) == row_of(f2);
            if (!same_row && col_of(f1) != col_of(f2))
                continue;
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
                if ((b->cand[o1] & pair) != pair || (b->cand[o2] & pair) != pair)
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
        s->pattern[0][c[i]] = (uint16_t)pair;
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
    if (n != 1)
        return 0;
    rect_pattern(b, c, pair, 1, s);
    step_eliminate_mask(s, b, extra, pair);
    return 1;
}

/* Type 2: two corners hold only the pair, the other two the pair and one
 * same extra digit; one of those two holds it, so cells seeing both lose it. */
static int rect_type2(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int roof[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            roof[n++] = c[i];
    if (n != 2 || b->cand[roof[0]] != b->cand[roof[1]] || bits9(b->cand[roof[0]]) != 3)
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
            rect_pattern(b, c, pair, 4, s);
            step_eliminate(s, b, BIT(roof[0]) | BIT(roof[1]), y);
            step_unit(s, u);
            return 1;
        }
    }
    return 0;
}

static int find_unique_rectangle(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    return each_rectangle(b, rect_type1, s) || each_rectangle(b, rect_type2, s) ||
           each_rectangle(b, rect_type4, s);
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

/*
 * locked.c: what a box meets a line gives: locked candidates (pointing,
 * claiming), locked pairs and triples, and Sue de Coq.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* Pointing: a box's digit all in one line goes from the rest of the line.
 * Boxes 1-9, digits up, row before column. The step for a digit depends on
 * its cells alone, so only the digits in args->look are tried (a solve's
 * memory leaves out those unchanged since they had none). */
static int find_pointing(const logic_board *b, const rung_args *args, logic_step *s)
{
    for (int box = 0; box < 9; box++) {
        int d;
        FOR_DIGITS(d, args->look) {
            cells_t x = b->where[d - 1] & UNIT[18 + box];
            if (popcount(x) < 2)
                continue;
            int c = first_cell(x);
            for (int k = 0; k < 2; k++) {
                int line = unit_of(c, k);
                if (x & ~UNIT[line])
                    continue;
                cells_t out = b->where[d - 1] & UNIT[line] & ~UNIT[18 + box];
                if (!out)
                    continue;
                step_start(s, LOGIC_POINTING);
                step_eliminate(s, b, out, d);
                step_mark_digit(s, b, 0, x, d);
                step_unit(s, 18 + box);
                step_unit(s, line);
                s->digits = (uint16_t)(1u << (d - 1));
                return 1;
            }
        }
    }
    return 0;
}

/* Claiming (box-line reduction): a line's digit all in one box goes from
 * the rest of the box. Rows 1-9 then columns 1-9, digits up; like
 * pointing, only the digits in args->look. */
static int find_claiming(const logic_board *b, const rung_args *args, logic_step *s)
{
    for (int line = 0; line < 18; line++) {
        int d;
        FOR_DIGITS(d, args->look) {
            cells_t x = b->where[d - 1] & UNIT[line];
            if (popcount(x) < 2)
                continue;
            int box = 18 + box_of(first_cell(x));
            if (x & ~UNIT[box])
                continue;
            cells_t out = b->where[d - 1] & UNIT[box] & ~UNIT[line];
            if (!out)
                continue;
            step_start(s, LOGIC_CLAIMING);
            step_eliminate(s, b, out, d);
            step_mark_digit(s, b, 0, x, d);
            step_unit(s, line);
            step_unit(s, box);
            s->digits = (uint16_t)(1u << (d - 1));
            return 1;
        }
    }
    return 0;
}

/* The cells where box `box` meets line `line` (a row or column through it). */
static cells_t intersection(int box, int line)
{
    return UNIT[18 + box] & UNIT[line];
}

/* The line of a box's i-th row (i 0-2) or, for i 3-5, column. */
static int box_line(int box, int i)
{
    return i < 3 ? (box / 3) * 3 + i : 9 + (box % 3) * 3 + i - 3;
}

/*
 * Locked pair and triple: n cells (2 or 3) where a box meets a line hold n
 * digits between them, so those digits go from the rest of the box and of
 * the line (a naked subset in two units at once; as HoDoKu counts them,
 * only when both units lose some). Boxes 1-9, rows then
 * columns of the box, cells in reading order. Local by unit: its step
 * where a box meets a line depends on the candidates of the box and the
 * line alone, so it looks only where one of them is among `look`.
 */
static int find_locked_subset(const logic_board *b, const rung_args *args, logic_step *s)
{
    int n = args->size;
    for (int box = 0; box < 9; box++)
        for (int i = 0; i < 6; i++) {
            int line = box_line(box, i);
            if (!((args->look >> (18 + box)) & 1) && !((args->look >> line) & 1))
                continue; /* local by unit: its box and line are as when it last found nothing */
            /* the three cells where they meet, in reading order */
            int first = i < 3 ? line * 9 + (box % 3) * 3 : ((box / 3) * 3) * 9 + (line - 9);
            int step = i < 3 ? 1 : 9;
            int cell[3] = {first, first + step, first + 2 * step};
            unsigned m0 = b->cand[cell[0]], m1 = b->cand[cell[1]], m2 = b->cand[cell[2]];
            /* the cells of the subset: bit j for cell[j] */
            unsigned pick = 0;
            if (n == 3) {
                if (bits9(m0) >= 2 && bits9(m1) >= 2 && bits9(m2) >= 2 && bits9(m0 | m1 | m2) == 3)
                    pick = 7;
            } else {
                static const uint8_t PAIRS[3][2] = {{0, 1}, {0, 2}, {1, 2}}; /* in lexicographic order */
                for (int j = 0; j < 3 && !pick; j++) {
                    unsigned ma = b->cand[cell[PAIRS[j][0]]];
                    if (bits9(ma) == 2 && b->cand[cell[PAIRS[j][1]]] == ma)
                        pick = (1u << PAIRS[j][0]) | (1u << PAIRS[j][1]);
                }
            }
            if (!pick)
                continue;
            unsigned digits = 0;
            cells_t set = 0;
            for (int j = 0; j < 3; j++)
                if (pick >> j & 1) {
                    digits |= b->cand[cell[j]];
                    set |= BIT(cell[j]);
                }
            cells_t rest = (UNIT[18 + box] | UNIT[line]) & ~set;
            int in_box = 0, in_line = 0, d, c;
            FOR_DIGITS(d, digits) {
                in_box |= (b->where[d - 1] & UNIT[18 + box] & ~UNIT[line]) != 0;
                in_line |= (b->where[d - 1] & UNIT[line] & ~UNIT[18 + box]) != 0;
            }
            if (!in_box || !in_line)
                continue; /* one unit alone: a naked subset, or locked candidates */
            step_start(s, args->technique);
            FOR_DIGITS(d, digits)
                step_eliminate(s, b, rest, d);
            FOR_CELLS(c, set)
                s->pattern[0][c] = b->cand[c];
            step_unit(s, 18 + box);
            step_unit(s, line);
            s->digits = (uint16_t)digits;
            return 1;
        }
    return 0;
}

/* Sue de Coq: the most cells looked for on each side of the intersection. */
#define SDC_SIDE 3

/* The subsets of up to SDC_SIDE blank cells of an area (at most 6 cells)
 * whose digits share one with the intersection's and add at most two
 * others: each a pick of the area's blank cells (bit i for list[i]) and its
 * digits. At most 41 (the subsets of 1-3 of 6 cells). */
typedef struct {
    int list[6];
    int n;
    uint8_t pick[64];
    unsigned mask[64];
} sdc_side;

static void sdc_sides(const logic_board *b, cells_t area, unsigned digits, sdc_side *side)
{
    int m = 0, c;
    FOR_CELLS(c, area)
        if (b->cand[c] && m < 6)
            side->list[m++] = c;
    unsigned of[64]; /* the digits of each pick, from the pick without its lowest cell */
    of[0] = 0;
    side->n = 0;
    for (unsigned pick = 1; pick < (1u << m); pick++) {
        unsigned mask = of[pick] = of[pick & (pick - 1)] | b->cand[side->list[__builtin_ctz(pick)]];
        if (bits9(pick) > SDC_SIDE || !(mask & digits) || bits9(mask & ~digits) > 2)
            continue;
        side->pick[side->n] = (uint8_t)pick;
        side->mask[side->n++] = mask;
    }
}

/* The cells of side x. */
static cells_t sdc_cells(const sdc_side *side, int x)
{
    cells_t set = 0;
    int i;
    FOR_DIGITS(i, side->pick[x])
        set |= BIT(side->list[i - 1]);
    return set;
}

/* Sue de Coq's count, the n + k + m cells holding n + k + m digits, split
 * between a line side and a box side that share no digit: with V the
 * intersection's digits, |V u L| - n - k = m - |B - V|. */
static int sdc_line_key(unsigned v, int n, const sdc_side *line, int x)
{
    return bits9(v | line->mask[x]) - n - bits9(line->pick[x]);
}

static int sdc_box_key(unsigned v, const sdc_side *box, int y)
{
    return bits9(box->pick[y]) - bits9(box->mask[y] & ~v);
}

/*
 * Sue de Coq: n cells (2 or 3) where a box meets a line hold at least n + 2
 * digits V; k other cells of the line hold digits L, m other cells of the
 * box digits B, L and B disjoint, and the n + k + m cells hold n + k + m
 * digits in all. Those cells then hold all those digits, each once (two
 * cells of the line or of the box differ, and a line cell and a box cell
 * share no digit): L and the digits of V not in B go from the rest of the
 * line, B and the digits of V not in L from the rest of the box. Boxes
 * 1-9, rows then columns of the box, intersection cells in reading order,
 * then the line's cells, then the box's.
 */
static int find_sue_de_coq(const logic_board *b, const rung_args *args, logic_step *s)
{
    sdc_side line_side, box_side;
    for (int box = 0; box < 9; box++)
        for (int i = 0; i < 6; i++) {
            int line = box_line(box, i), list[3], m = 0, c;
            if (!((args->look >> (18 + box)) & 1) && !((args->look >> line) & 1))
                continue; /* local by unit, as the locked subsets */
            cells_t here = intersection(box, line);
            FOR_CELLS(c, here)
                if (b->cand[c])
                    list[m++] = c;
            for (unsigned pick = 3; pick < (1u << m); pick++) {
                if (bits9(pick) < 2)
                    continue;
                unsigned v = 0;
                cells_t core = 0;
                int j, n = bits9(pick);
                FOR_DIGITS(j, pick) {
                    v |= b->cand[list[j - 1]];
                    core |= BIT(list[j - 1]);
                }
                if (bits9(v) < n + 2)
                    continue;
                sdc_sides(b, UNIT[line] & ~here, v, &line_side);
                if (!line_side.n)
                    continue;
                sdc_sides(b, UNIT[18 + box] & ~here, v, &box_side);
                /* the box sides by their key (-1..3), each in order, so a line
                 * side meets only those that make the count */
                uint8_t by_key[5][64];
                int keyed[5] = {0};
                for (int y = 0; y < box_side.n; y++) {
                    int key = sdc_box_key(v, &box_side, y) + 1;
                    by_key[key][keyed[key]++] = (uint8_t)y;
                }
                for (int x = 0; x < line_side.n; x++) {
                    int key = sdc_line_key(v, n, &line_side, x) + 1;
                    if (key < 0 || key > 4)
                        continue;
                    for (int i = 0; i < keyed[key]; i++) {
                        int y = by_key[key][i];
                        unsigned lm = line_side.mask[x], bm = box_side.mask[y];
                        if (lm & bm)
                            continue;
                        cells_t line_set = sdc_cells(&line_side, x), box_set = sdc_cells(&box_side, y);
                        cells_t used = core | line_set | box_set;
                        cells_t line_rest = UNIT[line] & ~used, box_rest = UNIT[18 + box] & ~used;
                        unsigned from_line = lm | (v & ~bm), from_box = bm | (v & ~lm);
                        int any = 0, d;
                        FOR_DIGITS(d, from_line)
                            any |= (b->where[d - 1] & line_rest) != 0;
                        FOR_DIGITS(d, from_box)
                            any |= (b->where[d - 1] & box_rest) != 0;
                        if (!any)
                            continue;
                        step_start(s, LOGIC_SUE_DE_COQ);
                        FOR_DIGITS(d, from_line)
                            step_eliminate(s, b, line_rest, d);
                        FOR_DIGITS(d, from_box)
                            step_eliminate(s, b, box_rest, d);
                        FOR_CELLS(c, core)
                            s->pattern[0][c] = b->cand[c];
                        FOR_CELLS(c, line_set)
                            s->pattern[1][c] = b->cand[c];
                        FOR_CELLS(c, box_set)
                            s->pattern[2][c] = b->cand[c];
                        step_unit(s, 18 + box);
                        step_unit(s, line);
                        s->digits = (uint16_t)(v | lm | bm);
                        return 1;
                    }
                }
            }
        }
    return 0;
}

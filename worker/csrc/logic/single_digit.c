/*
 * single_digit.c: single-digit patterns: skyscraper, two-string kite.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* The other cell of a conjugate pair: unit u holds digit d in exactly c and
 * one other cell; -1 otherwise. */
static int conjugate(const logic_board *b, int u, int d, int c)
{
    cells_t x = b->where[d - 1] & UNIT[u];
    if (popcount(x) != 2 || !((x >> c) & 1))
        return -1;
    return first_cell(x & ~BIT(c));
}

/* A chain of two strong links joined by a weak one: e1 = s1 - s2 = e2. */
static void four_chain(logic_step *s, int d, int e1, int s1, int s2, int e2)
{
    step_node(s, e1, d, 1, 1);
    step_node(s, s1, d, 0, 0);
    step_node(s, s2, d, 1, 1);
    step_node(s, e2, d, 0, 0);
    /* read from e1 false: e1 = s1 (true) - s2 (false) = e2 (true) */
    s->chain[0].on = 0;
    s->chain[1].on = 1;
    s->chain[2].on = 0;
    s->chain[3].on = 1;
    s->digits = (uint16_t)(1u << (d - 1));
}

/*
 * Skyscraper: two parallel lines each hold the digit in exactly two cells,
 * one end of each in a common cross line; one of the two other ends is
 * true, so cells seeing both lose the digit. Digits up, rows before
 * columns, line pairs in order.
 */
static int find_skyscraper(const logic_board *b, const rung_args *args, logic_step *s)
{
    unsigned digits = args->look;
    int d;
    FOR_DIGITS(d, digits) {
        for (int cols = 0; cols < 2; cols++) {
            for (int l1 = 0; l1 < 9; l1++) {
                cells_t x1 = b->where[d - 1] & UNIT[cols * 9 + l1];
                if (popcount(x1) != 2)
                    continue;
                for (int l2 = l1 + 1; l2 < 9; l2++) {
                    cells_t x2 = b->where[d - 1] & UNIT[cols * 9 + l2];
                    if (popcount(x2) != 2)
                        continue;
                    int a1 = first_cell(x1), b1 = first_cell(x1 & (x1 - 1));
                    int a2 = first_cell(x2), b2 = first_cell(x2 & (x2 - 1));
                    int pa1 = cols ? row_of(a1) : col_of(a1), pb1 = cols ? row_of(b1) : col_of(b1);
                    int pa2 = cols ? row_of(a2) : col_of(a2), pb2 = cols ? row_of(b2) : col_of(b2);
                    int s1, s2, e1, e2;
                    if (pa1 == pa2 && pb1 != pb2) {
                        s1 = a1, s2 = a2, e1 = b1, e2 = b2;
                    } else if (pb1 == pb2 && pa1 != pa2) {
                        s1 = b1, s2 = b2, e1 = a1, e2 = a2;
                    } else if (pa1 == pb2 && pb1 != pa2) {
                        s1 = a1, s2 = b2, e1 = b1, e2 = a2;
                    } else if (pb1 == pa2 && pa1 != pb2) {
                        s1 = b1, s2 = a2, e1 = a1, e2 = b2;
                    } else {
                        continue;
                    }
                    cells_t out = PEERS[e1] & PEERS[e2] & b->where[d - 1];
                    if (!out)
                        continue;
                    step_start(s, LOGIC_SKYSCRAPER);
                    step_eliminate(s, b, out, d);
                    step_mark_digit(s, b, 0, BIT(s1) | BIT(s2) | BIT(e1) | BIT(e2), d);
                    step_unit(s, cols * 9 + l1);
                    step_unit(s, cols * 9 + l2);
                    step_unit(s, (cols ? 0 : 9) + (cols ? row_of(s1) : col_of(s1)));
                    four_chain(s, d, e1, s1, s2, e2);
                    return 1;
                }
            }
        }
    }
    return 0;
}

/*
 * Two-string kite: a row and a column each hold the digit in exactly two
 * cells, one end of each in the same box (not the same cell); one of the two
 * other ends is true, so cells seeing both lose the digit. Digits up, rows,
 * then columns, then the pairing of ends.
 */
static int find_two_string_kite(const logic_board *b, const rung_args *args, logic_step *s)
{
    unsigned digits = args->look;
    int d;
    FOR_DIGITS(d, digits) {
        for (int r = 0; r < 9; r++) {
            cells_t xr = b->where[d - 1] & UNIT[r];
            if (popcount(xr) != 2)
                continue;
            for (int col = 0; col < 9; col++) {
                cells_t xc = b->where[d - 1] & UNIT[9 + col];
                if (popcount(xc) != 2 || (xr & xc))
                    continue;
                int rc[2] = {first_cell(xr), first_cell(xr & (xr - 1))};
                int cc[2] = {first_cell(xc), first_cell(xc & (xc - 1))};
                for (int i = 0; i < 2; i++) {
                    for (int j = 0; j < 2; j++) {
                        if (box_of(rc[i]) != box_of(cc[j]))
                            continue;
                        int er = rc[1 - i], ec = cc[1 - j];
                        if (box_of(er) == box_of(ec))
                            continue;
                        cells_t out = PEERS[er] & PEERS[ec] & b->where[d - 1];
                        if (!out)
                            continue;
                        step_start(s, LOGIC_TWO_STRING_KITE);
                        step_eliminate(s, b, out, d);
                        step_mark_digit(s, b, 0, xr | xc, d);
                        step_unit(s, r);
                        step_unit(s, 9 + col);
                        step_unit(s, 18 + box_of(rc[i]));
                        four_chain(s, d, er, rc[i], cc[j], ec);
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

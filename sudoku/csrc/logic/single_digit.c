/*
 * single_digit.c: single-digit patterns: skyscraper, two-string kite, turbot
 * fish, empty rectangle.
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

/* The strong links of digit d: units with exactly two places for it, in
 * unit order (rows, columns, boxes), as their two cells; returns how many.
 * A box whose two places share a line is left out (the line lists them). */
static int strong_links(const logic_board *b, int d, int ends[27][2], int units[27])
{
    int k = 0;
    for (int u = 0; u < 27; u++) {
        cells_t x = b->where[d - 1] & UNIT[u];
        if (popcount(x) != 2)
            continue;
        int a = first_cell(x), z = first_cell(x & (x - 1));
        if (u >= 18 && (row_of(a) == row_of(z) || col_of(a) == col_of(z)))
            continue;
        ends[k][0] = a;
        ends[k][1] = z;
        units[k++] = u;
    }
    return k;
}

/*
 * Turbot fish: two strong links on a digit, an end of one seeing an end of
 * the other (a weak link); one of the two other ends is true, so cells
 * seeing both lose the digit. The skyscraper and the two-string kite are
 * the turbot fish of two lines; this rung finds the others (a box's strong
 * link, or lines joined in a box). Digits up, link pairs in unit order,
 * then the pairing of their ends.
 */
static int find_turbot_fish(const logic_board *b, const rung_args *args, logic_step *s)
{
    int d;
    FOR_DIGITS(d, args->look) {
        int ends[27][2], units[27];
        int k = strong_links(b, d, ends, units);
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++)
                for (int p = 0; p < 4; p++) {
                    int s1 = ends[i][p >> 1], e1 = ends[i][1 - (p >> 1)];
                    int s2 = ends[j][p & 1], e2 = ends[j][1 - (p & 1)];
                    if (s1 == s2 || e1 == e2 || s1 == e2 || s2 == e1 || !sees(s1, s2))
                        continue;
                    cells_t out = PEERS[e1] & PEERS[e2] & b->where[d - 1] & ~(BIT(s1) | BIT(s2));
                    if (!out)
                        continue;
                    step_start(s, LOGIC_TURBOT_FISH);
                    step_eliminate(s, b, out, d);
                    step_mark_digit(s, b, 0, BIT(s1) | BIT(s2) | BIT(e1) | BIT(e2), d);
                    step_unit(s, units[i]);
                    step_unit(s, units[j]);
                    four_chain(s, d, e1, s1, s2, e2);
                    return 1;
                }
    }
    return 0;
}

/*
 * Empty rectangle: a box whose digit lies in its row r or its column c
 * (in both, not in one alone), and a strong link on the digit in a column
 * outside the box's columns with one end in row r (or in a row outside its
 * rows with one end in column c). The cell where the link's other end's row
 * meets column c (its column meets row r) is not the digit: were it, the
 * link's other end would not be, its first end would, and the box would
 * have no place left. Digits up, boxes up, the box's rows then columns for
 * r and c, then the links in unit order.
 */
static int find_empty_rectangle(const logic_board *b, const rung_args *args, logic_step *s)
{
    int d;
    FOR_DIGITS(d, args->look) {
        for (int box = 0; box < 9; box++) {
            cells_t inside = b->where[d - 1] & UNIT[18 + box];
            if (popcount(inside) < 2)
                continue;
            for (int i = 0; i < 9; i++) {
                int r = (box / 3) * 3 + i / 3, c = (box % 3) * 3 + i % 3;
                cells_t cross = (UNIT[r] | UNIT[9 + c]) & UNIT[18 + box];
                if ((inside & ~cross) || !(inside & ~UNIT[r]) || !(inside & ~UNIT[9 + c]))
                    continue;
                for (int k = 0; k < 2; k++) {
                    /* k 0: links in columns, one end in row r; 1: in rows, one end in column c */
                    for (int l = 0; l < 9; l++) {
                        int u = k == 0 ? 9 + l : l;
                        if ((k == 0 ? l / 3 == box % 3 : l / 3 == box / 3))
                            continue;
                        cells_t link = b->where[d - 1] & UNIT[u];
                        if (popcount(link) != 2)
                            continue;
                        cells_t near = link & UNIT[k == 0 ? r : 9 + c];
                        if (!near)
                            continue;
                        int far = first_cell(link & ~near);
                        int t = k == 0 ? row_of(far) * 9 + c : r * 9 + col_of(far);
                        if (!has_cand(b, t, d) || box_of(t) == box)
                            continue;
                        step_start(s, LOGIC_EMPTY_RECTANGLE);
                        step_eliminate(s, b, BIT(t), d);
                        step_mark_digit(s, b, 0, inside, d);
                        step_mark_digit(s, b, 1, link, d);
                        step_unit(s, 18 + box);
                        step_unit(s, r);
                        step_unit(s, 9 + c);
                        step_unit(s, u);
                        s->digits = (uint16_t)(1u << (d - 1));
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

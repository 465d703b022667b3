/*
 * wings.c: XY-wing, XYZ-wing, W-wing.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/*
 * XY-wing: a pivot {x,y} sees two pincers {x,z} and {y,z}; whichever the
 * pivot is, one pincer is z, so cells seeing both pincers lose z. Pivots in
 * reading order, then pincer pairs in reading order.
 */
static int find_xy_wing(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    cells_t bi = bivalue_cells(b);
    int p;
    FOR_CELLS(p, bi) {
        unsigned pm = b->cand[p];
        cells_t wings = bi & PEERS[p];
        int a;
        FOR_CELLS(a, wings) {
            unsigned am = b->cand[a];
            if (bits9(am & pm) != 1)
                continue;
            unsigned z = am & ~pm;
            int c;
            FOR_CELLS(c, wings & ~((BIT(a) << 1) - 1)) {
                unsigned cm = b->cand[c];
                if (cm != (z | (pm & ~am)))
                    continue;
                int zd = low_digit(z);
                cells_t out = PEERS[a] & PEERS[c] & b->where[zd - 1];
                if (!out)
                    continue;
                step_start(s, LOGIC_XY_WING);
                step_eliminate(s, b, out, zd);
                s->pattern[0][a] = (uint16_t)am;
                s->pattern[0][c] = (uint16_t)cm;
                s->pattern[1][p] = (uint16_t)pm;
                s->digits = (uint16_t)(pm | z);
                return 1;
            }
        }
    }
    return 0;
}

/*
 * XYZ-wing: a pivot {x,y,z} sees pincers {x,z} and {y,z}; one of the three
 * is z, so cells seeing all three lose z. Pivots in reading order, then
 * pincer pairs in reading order.
 */
static int find_xyz_wing(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    cells_t bi = bivalue_cells(b);
    for (int p = 0; p < 81; p++) {
        unsigned pm = b->cand[p];
        if (bits9(pm) != 3)
            continue;
        cells_t wings = bi & PEERS[p];
        int a;
        FOR_CELLS(a, wings) {
            unsigned am = b->cand[a];
            if ((am & pm) != am)
                continue;
            int c;
            FOR_CELLS(c, wings & ~((BIT(a) << 1) - 1)) {
                unsigned cm = b->cand[c];
                if ((cm & pm) != cm || cm == am)
                    continue;
                unsigned z = am & cm;
                int zd = low_digit(z);
                cells_t out = PEERS[a] & PEERS[c] & PEERS[p] & b->where[zd - 1];
                if (!out)
                    continue;
                step_start(s, LOGIC_XYZ_WING);
                step_eliminate(s, b, out, zd);
                s->pattern[0][a] = (uint16_t)am;
                s->pattern[0][c] = (uint16_t)cm;
                s->pattern[1][p] = (uint16_t)pm;
                s->digits = (uint16_t)pm;
                return 1;
            }
        }
    }
    return 0;
}

/*
 * W-wing: two cells {x,y} that do not see each other, and a strong link on
 * x (a unit with exactly two x's) with one end seeing each cell: one of the
 * two cells is y, so cells seeing both lose y. Cell pairs in reading order,
 * the linking digit up, units in order (rows, columns, boxes).
 */
static int find_w_wing(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    cells_t bi = bivalue_cells(b);
    int p;
    FOR_CELLS(p, bi) {
        int q;
        FOR_CELLS(q, bi & ~((BIT(p) << 1) - 1)) {
            if (b->cand[q] != b->cand[p] || sees(p, q))
                continue;
            unsigned pair = b->cand[p];
            int x;
            FOR_DIGITS(x, pair) {
                int y = low_digit(pair & ~(1u << (x - 1)));
                cells_t out = PEERS[p] & PEERS[q] & b->where[y - 1];
                if (!out)
                    continue;
                for (int u = 0; u < 27; u++) {
                    cells_t link = b->where[x - 1] & UNIT[u];
                    if (popcount(link) != 2 || (link & (BIT(p) | BIT(q))))
                        continue;
                    int e1 = first_cell(link), e2 = first_cell(link & (link - 1));
                    if (!(sees(e1, p) && sees(e2, q))) {
                        int t = e1;
                        e1 = e2;
                        e2 = t;
                    }
                    if (!(sees(e1, p) && sees(e2, q)))
                        continue;
                    step_start(s, LOGIC_W_WING);
                    step_eliminate(s, b, out, y);
                    s->pattern[0][p] = (uint16_t)pair;
                    s->pattern[0][q] = (uint16_t)pair;
                    s->pattern[1][e1] = (uint16_t)(1u << (x - 1));
                    s->pattern[1][e2] = (uint16_t)(1u << (x - 1));
                    step_unit(s, u);
                    s->digits = (uint16_t)pair;
                    step_node(s, p, y, 1, 0);
                    step_node(s, p, x, 0, 1);
                    step_node(s, e1, x, 1, 0);
                    step_node(s, e2, x, 0, 1);
                    step_node(s, q, x, 1, 0);
                    step_node(s, q, y, 0, 1);
                    return 1;
                }
            }
        }
    }
    return 0;
}

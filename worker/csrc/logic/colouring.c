/*
 * colouring.c: simple colouring.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/*
 * Simple colouring: the cells of a digit joined by strong links (units with
 * exactly two places) take two colours, alternating along the links; one
 * colour is the digit's. Wrap: two cells of one colour see each other, so
 * that colour is false everywhere. Trap: a cell seeing both colours loses
 * the digit. Digits up, clusters by their lowest cell, wrap before trap.
 */
static int find_simple_coloring(const logic_board *b, const rung_args *args, logic_step *s)
{
    unsigned digits = args->look;
    int d;
    FOR_DIGITS(d, digits) {
        cells_t linked = 0;
        for (int u = 0; u < 27; u++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (popcount(x) == 2)
                linked |= x;
        }
        cells_t done = 0;
        int start;
        FOR_CELLS(start, linked) {
            if ((done >> start) & 1)
                continue;
            cells_t colour[2] = {BIT(start), 0};
            int queue[81], head = 0, tail = 0;
            queue[tail++] = start;
            while (head < tail) {
                int c = queue[head++];
                int side = (colour[1] >> c) & 1;
                for (int k = 0; k < 3; k++) {
                    int o = conjugate(b, unit_of(c, k), d, c);
                    if (o < 0 || (((colour[0] | colour[1]) >> o) & 1))
                        continue;
                    colour[1 - side] |= BIT(o);
                    queue[tail++] = o;
                }
            }
            cells_t cluster = colour[0] | colour[1];
            done |= cluster;
            for (int side = 0; side < 2; side++) {
                int c, wrapped = 0;
                FOR_CELLS(c, colour[side])
                    wrapped |= (PEERS[c] & colour[side]) != 0;
                if (!wrapped)
                    continue;
                step_start(s, LOGIC_SIMPLE_COLORING);
                s->variant = LOGIC_COLOR_WRAP;
                step_eliminate(s, b, colour[side], d);
                step_mark(s, 0, colour[side], 1u << (d - 1));
                step_mark(s, 1, colour[1 - side], 1u << (d - 1));
                s->digits = (uint16_t)(1u << (d - 1));
                return 1;
            }
            cells_t see0 = 0, see1 = 0;
            int c;
            FOR_CELLS(c, colour[0])
                see0 |= PEERS[c];
            FOR_CELLS(c, colour[1])
                see1 |= PEERS[c];
            cells_t out = see0 & see1 & b->where[d - 1] & ~cluster;
            if (!out)
                continue;
            step_start(s, LOGIC_SIMPLE_COLORING);
            s->variant = LOGIC_COLOR_TRAP;
            step_eliminate(s, b, out, d);
            step_mark(s, 0, colour[0], 1u << (d - 1));
            step_mark(s, 1, colour[1], 1u << (d - 1));
            s->digits = (uint16_t)(1u << (d - 1));
            return 1;
        }
    }
    return 0;
}

/*
 * colouring.c: simple colouring and multi-colouring.
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

/* The clusters of digit d: cells joined by strong links, each in two
 * colours (colour[k][0] holds its lowest cell), by their lowest cell; only
 * clusters of two cells or more. Returns how many. */
static int colour_clusters(const logic_board *b, int d, cells_t colour[][2])
{
    cells_t linked = 0, done = 0;
    for (int u = 0; u < 27; u++) {
        cells_t x = b->where[d - 1] & UNIT[u];
        if (popcount(x) == 2)
            linked |= x;
    }
    int n = 0, start;
    FOR_CELLS(start, linked) {
        if ((done >> start) & 1)
            continue;
        cells_t *side = colour[n++];
        side[0] = BIT(start);
        side[1] = 0;
        int queue[81], head = 0, tail = 0;
        queue[tail++] = start;
        while (head < tail) {
            int c = queue[head++];
            int k1 = (side[1] >> c) & 1;
            for (int k = 0; k < 3; k++) {
                int o = conjugate(b, unit_of(c, k), d, c);
                if (o < 0 || (((side[0] | side[1]) >> o) & 1))
                    continue;
                side[1 - k1] |= BIT(o);
                queue[tail++] = o;
            }
        }
        done |= side[0] | side[1];
    }
    return n;
}

static cells_t seen_by(cells_t set)
{
    cells_t seen = 0;
    int c;
    FOR_CELLS(c, set)
        seen |= PEERS[c];
    return seen;
}

static void multi_step(const logic_board *b, logic_step *s, int variant, int d, cells_t out,
                       const cells_t a[2], const cells_t z[2])
{
    step_start(s, LOGIC_MULTI_COLORING);
    s->variant = variant;
    step_eliminate(s, b, out, d);
    step_mark(s, 0, a[0] | z[0], 1u << (d - 1));
    step_mark(s, 1, a[1] | z[1], 1u << (d - 1));
    s->digits = (uint16_t)(1u << (d - 1));
}

/*
 * Multi-colouring: two clusters of a digit's strong links, A (colours A0,
 * A1) and B. Type 2: a colour of A that sees both colours of B is false
 * (one of B's is true): all of it goes. Type 1: a cell of A0 sees a cell of
 * B0, so A0 and B0 are not both true, and A1 or B1 is: a cell seeing both
 * A1 and B1 loses the digit. The pattern marks A0 and B0 in group 0, A1
 * and B1 in group 1 (the colours named so that the step reads that way).
 * Digits up, cluster pairs by their lowest cells, type 2 before type 1.
 */
static int find_multi_coloring(const logic_board *b, const rung_args *args, logic_step *s)
{
    int d;
    FOR_DIGITS(d, args->look) {
        cells_t colour[41][2], seen[41][2];
        int n = colour_clusters(b, d, colour);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 2; k++)
                seen[i][k] = seen_by(colour[i][k]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (i == j)
                    continue;
                for (int k = 0; k < 2; k++) {
                    if (!(seen[j][0] & colour[i][k]) || !(seen[j][1] & colour[i][k]))
                        continue;
                    cells_t a[2] = {colour[i][k], colour[i][1 - k]}, z[2] = {colour[j][0], colour[j][1]};
                    multi_step(b, s, 2, d, colour[i][k], a, z);
                    return 1;
                }
            }
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                for (int k = 0; k < 4; k++) {
                    int ka = k >> 1, kz = k & 1;
                    if (!(seen[i][ka] & colour[j][kz]))
                        continue;
                    cells_t clusters = colour[i][0] | colour[i][1] | colour[j][0] | colour[j][1];
                    cells_t out = seen[i][1 - ka] & seen[j][1 - kz] & b->where[d - 1] & ~clusters;
                    if (!out)
                        continue;
                    cells_t a[2] = {colour[i][ka], colour[i][1 - ka]}, z[2] = {colour[j][kz], colour[j][1 - kz]};
                    multi_step(b, s, 1, d, out, a, z);
                    return 1;
                }
    }
    return 0;
}

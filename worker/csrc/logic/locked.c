/*
 * locked.c: locked candidates: pointing and claiming.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* Pointing: a box's digit all in one line goes from the rest of the line.
 * Boxes 1-9, digits up, row before column. */
static int find_pointing(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    for (int box = 0; box < 9; box++) {
        for (int d = 1; d <= 9; d++) {
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
 * the rest of the box. Rows 1-9 then columns 1-9, digits up. */
static int find_claiming(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    for (int line = 0; line < 18; line++) {
        for (int d = 1; d <= 9; d++) {
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

/*
 * singles.c: full house, naked single, hidden single.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* The last blank of a unit; units box, row, column. */
static int find_full_house(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    cells_t blank = blank_cells(b);
    for (int i = 0; i < 27; i++) {
        int u = BOX_ROW_COL[i];
        cells_t x = blank & UNIT[u];
        if (x && !(x & (x - 1))) {
            int c = first_cell(x);
            if (bits9(b->cand[c]) != 1)
                continue;
            step_start(s, LOGIC_FULL_HOUSE);
            int d = low_digit(b->cand[c]);
            step_place(s, c, d);
            step_unit(s, u);
            s->pattern[0][c] = b->cand[c];
            s->digits = b->cand[c];
            return 1;
        }
    }
    return 0;
}

/* A cell with one candidate; the lowest cell. */
static int find_naked_single(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    for (int c = 0; c < 81; c++) {
        if (b->cand[c] && bits9(b->cand[c]) == 1) {
            step_start(s, LOGIC_NAKED_SINGLE);
            step_place(s, c, low_digit(b->cand[c]));
            s->pattern[0][c] = b->cand[c];
            s->digits = b->cand[c];
            return 1;
        }
    }
    return 0;
}

/* A digit with one place in a unit; units box, row, column, digits up. */
static int find_hidden_single(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    for (int i = 0; i < 27; i++) {
        int u = BOX_ROW_COL[i];
        for (int d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (x && !(x & (x - 1))) {
                int c = first_cell(x);
                step_start(s, LOGIC_HIDDEN_SINGLE);
                step_place(s, c, d);
                step_unit(s, u);
                s->pattern[0][c] = (uint16_t)(1u << (d - 1));
                s->digits = (uint16_t)(1u << (d - 1));
                return 1;
            }
        }
    }
    return 0;
}

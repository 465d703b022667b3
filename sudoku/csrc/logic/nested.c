/*
 * nested.c: nested forcing and trial, the last rungs.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

/* A unit where some digit is neither placed nor possible, or -1. */
static int unit_without_place(const logic_board *b)
{
    uint16_t seen[27] = {0};
    for (int c = 0; c < 81; c++) {
        unsigned m = b->cells[c] ? 1u << (b->cells[c] - 1) : b->cand[c];
        seen[row_of(c)] |= (uint16_t)m;
        seen[9 + col_of(c)] |= (uint16_t)m;
        seen[18 + box_of(c)] |= (uint16_t)m;
    }
    for (int u = 0; u < 27; u++)
        if (seen[u] != 0x1FF)
            return u;
    return -1;
}

/* The techniques a nested forcing chain follows inside a premise. */
#define NESTED_LEVEL 3
/* Steps a premise's consequences are followed for at most. */
#define NESTED_MAX_STEPS 200

/* Follows premise (c, d) with the techniques up to NESTED_LEVEL for at most
 * `limit` steps; returns the steps taken to a contradiction, 0 when none
 * came within them, -1 when the techniques ran out first. With `s`, the
 * placements made are appended to its chain. */
static int nested_contradiction(const logic_board *b, int unique, int c, int d, int limit, logic_step *s)
{
    logic_board t = *b;
    place(&t, c, d);
    logic_step inner;
    ladder_memo memo; /* the premise's steps are a solve: the same steps, found faster */
    memset(memo.known, 0, sizeof memo.known);
    for (int n = 1; n <= limit; n++) {
        if (t.broken || unit_without_place(&t) >= 0)
            return n;
        if (!ladder_find(&t, unique, NESTED_LEVEL, &memo, &inner))
            return -1;
        if (s && inner.cell >= 0)
            step_node(s, inner.cell, inner.digit, 0, 1);
        logic_apply(&t, &inner);
    }
    return 0;
}

/*
 * Nested forcing: assume a candidate and follow it with the techniques up to
 * the hard level (not only singles, as a forcing chain does); if that breaks
 * a rule, the candidate is false. The premise needing the fewest steps wins;
 * cells in order, digits up on a tie. Searched with growing step limits, so
 * a short contradiction is found without following every premise far.
 */
static int find_nested_forcing(const logic_board *b, const rung_args *args, logic_step *s)
{
    int unique = args->unique;
    uint8_t stalled[729] = {0}; /* premises whose techniques ran out */
    int best = 0, best_cell = -1, best_digit = 0;
    for (int limit = 8; limit <= NESTED_MAX_STEPS && best_cell < 0; limit *= 2) {
        if (limit * 2 > NESTED_MAX_STEPS)
            limit = NESTED_MAX_STEPS;
        best = limit + 1;
        for (int c = 0; c < 81; c++) {
            int d;
            FOR_DIGITS(d, b->cand[c]) {
                if (stalled[NODE_OF(c, d)])
                    continue;
                int n = nested_contradiction(b, unique, c, d, limit, NULL);
                if (n < 0)
                    stalled[NODE_OF(c, d)] = 1;
                else if (n && n < best) {
                    best = n;
                    best_cell = c;
                    best_digit = d;
                }
            }
        }
    }
    if (best_cell < 0)
        return 0;
    step_start(s, LOGIC_NESTED_FORCING);
    s->variant = LOGIC_FORCING_CONTRADICTION;
    step_eliminate_mask(s, b, best_cell, 1u << (best_digit - 1));
    step_node(s, best_cell, best_digit, 0, 1);
    nested_contradiction(b, unique, best_cell, best_digit, best, s);
    s->pattern[0][best_cell] = (uint16_t)(1u << (best_digit - 1));
    s->digits = (uint16_t)(1u << (best_digit - 1));
    return 1;
}

/* Guesses a trial may take to show a candidate has no solution. */
#define TRIAL_MAX_GUESSES 100000

/*
 * Trial: a candidate with which the board has no solution at all, shown by
 * search (the fast path counting to one). The candidate whose refutation
 * takes the fewest guesses wins; cells in order, digits up on a tie. The
 * last resort: it always finds one on a board with a solution and more than
 * one candidate left somewhere.
 */
static int find_trial(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    uint8_t cells[81];
    memcpy(cells, b->cells, sizeof cells);
    uint64_t best = UINT64_MAX;
    int best_cell = -1, best_digit = 0;
    for (int c = 0; c < 81; c++) {
        int d;
        FOR_DIGITS(d, b->cand[c]) {
            cells[c] = (uint8_t)d;
            fp_count_result r = fp_count(cells, 1, TRIAL_MAX_GUESSES, NULL);
            cells[c] = 0;
            if (r.complete && r.solutions == 0 && r.guesses < best) {
                best = r.guesses;
                best_cell = c;
                best_digit = d;
            }
        }
    }
    if (best_cell < 0)
        return 0;
    step_start(s, LOGIC_TRIAL);
    step_eliminate_mask(s, b, best_cell, 1u << (best_digit - 1));
    s->variant = (int)(best > 0x7FFFFFFF ? 0x7FFFFFFF : best);
    s->pattern[0][best_cell] = (uint16_t)(1u << (best_digit - 1));
    s->digits = (uint16_t)(1u << (best_digit - 1));
    return 1;
}

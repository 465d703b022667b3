/*
 * fastpath.c: the unwatched solver and counter (contract in fastpath.h).
 *
 * Algorithm (first, simple version): depth-first search over 9-bit candidate
 * masks. Each row, column and box keeps a mask of the values it already
 * holds; a blank cell's candidates are the values none of its three units
 * hold. At each node the blank cell with the fewest candidates is chosen
 * (a cell with one candidate is a naked single and is filled without
 * counting as a guess; a cell with none ends the branch). Values are tried
 * ascending; each value tried at a cell with two or more candidates counts as
 * a guess, except the last one, which is forced once the others failed.
 *
 * No allocation and no global mutable state: the whole search lives in a
 * struct on the caller's stack, and recursion depth is at most 81.
 */
#include "fastpath.h"

#include <stddef.h>
#include <string.h>

#define ALL_VALUES 0x1FFu /* bit v-1 set means value v */

typedef struct {
    uint8_t board[81];
    uint16_t row_used[9], col_used[9], box_used[9];
    uint64_t limit, max_guesses;
    uint64_t solutions, guesses;
    int capped;                 /* the guess cap stopped the search */
    uint8_t *first_solution;    /* may be NULL */
} search_t;

static int box_of(int cell) { return (cell / 27) * 3 + (cell % 9) / 3; }

static int popcount9(unsigned mask) { return __builtin_popcount(mask); }

static void place(search_t *s, int cell, int value)
{
    uint16_t bit = (uint16_t)(1u << (value - 1));
    s->board[cell] = (uint8_t)value;
    s->row_used[cell / 9] |= bit;
    s->col_used[cell % 9] |= bit;
    s->box_used[box_of(cell)] |= bit;
}

static void unplace(search_t *s, int cell, int value)
{
    uint16_t bit = (uint16_t)~(1u << (value - 1));
    s->board[cell] = 0;
    s->row_used[cell / 9] &= bit;
    s->col_used[cell % 9] &= bit;
    s->box_used[box_of(cell)] &= bit;
}

static unsigned candidates(const search_t *s, int cell)
{
    unsigned used = s->row_used[cell / 9] | s->col_used[cell % 9] |
                    s->box_used[box_of(cell)];
    return ALL_VALUES & ~used;
}

/* Loads the givens. Returns 0 on a byte > 9 or two givens in conflict. */
static int load(search_t *s, const uint8_t cells[81])
{
    memset(s->board, 0, sizeof s->board);
    memset(s->row_used, 0, sizeof s->row_used);
    memset(s->col_used, 0, sizeof s->col_used);
    memset(s->box_used, 0, sizeof s->box_used);
    for (int cell = 0; cell < 81; cell++) {
        int value = cells[cell];
        if (value == 0)
            continue;
        if (value > 9 || !(candidates(s, cell) & (1u << (value - 1))))
            return 0;
        place(s, cell, value);
    }
    return 1;
}

/* The blank cell with the fewest candidates, or -1 when the board is full. */
static int most_constrained(const search_t *s, unsigned *cands_out)
{
    int best = -1, best_count = 10;
    for (int cell = 0; cell < 81; cell++) {
        if (s->board[cell])
            continue;
        unsigned cands = candidates(s, cell);
        int n = popcount9(cands);
        if (n < best_count) {
            best = cell;
            best_count = n;
            *cands_out = cands;
            if (n <= 1)
                break; /* cannot do better than a dead end or a single */
        }
    }
    return best;
}

/* Returns 1 when the search must stop (limit reached or cap hit). */
static int search(search_t *s)
{
    unsigned cands = 0;
    int cell = most_constrained(s, &cands);
    if (cell < 0) {
        if (s->solutions == 0 && s->first_solution)
            memcpy(s->first_solution, s->board, 81);
        return ++s->solutions >= s->limit;
    }
    int branching = popcount9(cands) >= 2;
    while (cands) {
        int value = __builtin_ctz(cands) + 1;
        cands &= cands - 1;
        if (branching && cands) { /* a real choice, not the last one left */
            if (s->max_guesses && s->guesses >= s->max_guesses) {
                s->capped = 1;
                return 1;
            }
            s->guesses++;
        }
        place(s, cell, value);
        int stop = search(s);
        unplace(s, cell, value);
        if (stop)
            return 1;
    }
    return 0;
}

fp_count_result fp_count(const uint8_t cells[81], uint64_t limit,
                         uint64_t max_guesses, uint8_t first_solution[81])
{
    fp_count_result result = {0, 0, 1};
    search_t s;
    if (limit < 1)
        limit = 1; /* the header requires limit >= 1; be safe anyway */
    if (!load(&s, cells))
        return result;
    s.limit = limit;
    s.max_guesses = max_guesses;
    s.solutions = 0;
    s.guesses = 0;
    s.capped = 0;
    s.first_solution = first_solution;
    search(&s);
    result.solutions = s.solutions;
    result.guesses = s.guesses;
    result.complete = !s.capped;
    return result;
}

int fp_solve(const uint8_t cells[81], uint8_t solution[81])
{
    return fp_count(cells, 1, 0, solution).solutions > 0;
}

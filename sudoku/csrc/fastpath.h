/*
 * fastpath.h: the unwatched Sudoku solver and solution counter.
 *
 * Pure C (no Python.h). No events, no observable step sequence: it only has
 * to be correct and fast. The stepper (stepper.h) is the observable search;
 * this is what serves `solve` and `count` when nobody watches.
 *
 * Input contract: `cells` is 81 bytes in reading order, 0 for a blank and
 * 1..9 for a value. Any other byte value is a caller error; the binding
 * validates before calling, and the functions below treat a byte > 9 as a
 * contradiction (0 solutions), never as an out-of-bounds index. The input is
 * never written to. No allocation, no global mutable state: any number of
 * threads may call these at once.
 */
#ifndef SUDOKU_FASTPATH_H
#define SUDOKU_FASTPATH_H

#include <stdint.h>

typedef struct {
    uint64_t solutions; /* found, at most `limit` */
    uint64_t guesses;   /* branching decisions made (the unit of the cap) */
    int complete;       /* 1 when the search finished or reached `limit`;
                           0 when the cap stopped it first */
} fp_count_result;

/*
 * Finds the first solution. Returns 1 and writes 81 values (1..9) to
 * `solution` when there is one, 0 when there is none (including givens
 * that conflict). `solution` may be NULL.
 */
int fp_solve(const uint8_t cells[81], uint8_t solution[81]);

/*
 * Counts solutions up to `limit` (limit >= 1). `max_guesses` caps the
 * branching decisions; 0 means no cap. When `first_solution` is not NULL and
 * a solution is found, the first one is written there.
 */
fp_count_result fp_count(const uint8_t cells[81], uint64_t limit,
                         uint64_t max_guesses, uint8_t first_solution[81]);

/*
 * fp_count that another thread can stop: it looks at *stop every
 * FP_STOP_EVERY guesses and, once it is non-zero, returns as the cap would
 * (complete = 0, the solutions found so far). `stop` may be NULL (then it is
 * fp_count). The byte is only read, with relaxed atomic loads.
 */
#define FP_STOP_EVERY 256
fp_count_result fp_count_stoppable(const uint8_t cells[81], uint64_t limit,
                                   uint64_t max_guesses, uint8_t first_solution[81],
                                   const uint8_t *stop);

/*
 * Whether the givens have a solution in which `cell` (0..80) does not hold
 * `digit` (1..9): 1 yes, 0 no (also for a bad cell or digit), -1 when
 * `max_guesses` (0: no cap) stopped the search first. Cheaper than counting
 * to 2 when one solution is known: a generator that empties a cell of a
 * puzzle with one solution asks it of the cell and its old value, since any
 * other solution differs there.
 */
int fp_solvable_without(const uint8_t cells[81], int cell, int digit, uint64_t max_guesses);

#endif

/*
 * generate.h: new puzzles of a level, each with one solution.
 *
 * Pure C (no Python.h), built on fastpath.h (counting) and logic.h (the
 * human solver that grades). The binding validates its input.
 *
 * HOW
 * From a seed, a random full grid that keeps the given values (`keep`), then
 * givens are taken away one symmetry orbit at a time: a removal stays when
 * the puzzle still has one solution (fastpath.h finds none in which an
 * emptied cell lacks its old value; a removal that would leave one of the
 * grid's simplest unavoidable sets, cells whose values can be rearranged
 * into another solution, without a given is refused without that search)
 * and, for the levels up to
 * hard, the logical solver still solves it with techniques up to the level
 * asked for. Easy puzzles take the orbits in random order; the other levels
 * take the most crowded first (the most givens in its row, column and box
 * and of its digit; ties in random order), which leaves harder puzzles. The
 * result is graded by a solve with techniques up to the level (up to
 * expert for hard, whose rungs the ladder interleaves with expert ones: the
 * same steps as the full grade, see logic.h); an extreme candidate is first
 * asked whether the cheap expert rungs and the chains finish it
 * (logic_solvable_within) and graded only when they do not. When its level is not the one asked for, the next grid
 * is tried. Orbits that hold a kept value are never
 * emptied, so under symmetry the mirror cells of kept values stay givens too.
 *
 * Deterministic: the same seed and arguments give the same puzzle on every
 * platform (splitmix64, as stepper.h defines it). No allocation, no global
 * mutable state; any number of threads may generate at once.
 *
 * BAD INPUT
 * gen_generate returns GEN_EINVAL for a level outside 1..5, an unknown
 * symmetry or a `keep` byte > 9, and GEN_NO_SOLUTION when the kept values
 * have no solution (or none found within the search's cap); it then writes
 * nothing else.
 */
#ifndef SUDOKU_GENERATE_H
#define SUDOKU_GENERATE_H

#include <stdint.h>

#include "logic.h"

#define GEN_OK 1
#define GEN_GAVE_UP 0        /* max_attempts grids gave no puzzle of the level */
#define GEN_EINVAL (-1)
#define GEN_NO_SOLUTION (-2)

typedef enum {
    GEN_SYMMETRY_NONE = 0,
    GEN_SYMMETRY_ROTATIONAL, /* r,c and 10-r,10-c (a half turn) */
    GEN_SYMMETRY_MIRROR      /* r,c and r,10-c (left-right) */
} gen_symmetry;

typedef struct {
    uint8_t puzzle[81];   /* 0 blank, 1..9 given */
    uint8_t solution[81];
    logic_grade grade;    /* its logical solution, as logic_solve gives it */
    uint32_t attempts;    /* grids tried, this one included */
} gen_result;

/* A puzzle whose grade is `level` (1 easy .. 5 extreme). `keep`: 81 values
 * every puzzle keeps (0 = none), or NULL. Tries at most `max_attempts`
 * grids. Returns GEN_OK, GEN_GAVE_UP, GEN_EINVAL or GEN_NO_SOLUTION. */
int gen_generate(uint64_t seed, int level, gen_symmetry symmetry, const uint8_t *keep,
                 uint32_t max_attempts, gen_result *out);

#endif

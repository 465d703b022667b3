/*
 * generate.c: new puzzles of a level; the contract is in generate.h.
 */
#include "generate.h"

#include <string.h>

#include "fastpath.h"

/* ---- Random numbers: splitmix64, as stepper.h defines it ---- */

typedef struct {
    uint64_t state;
} rng_t;

static uint64_t next64(rng_t *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n >= 1), by rejection. */
static uint32_t draw(rng_t *r, uint32_t n)
{
    uint64_t t = (0 - (uint64_t)n) % n;
    uint64_t x;
    do
        x = next64(r);
    while (x < t);
    return (uint32_t)(x % n);
}

/* ---- A random full grid ---- */

/* Placements the fill may try before giving up: a grid takes about a
 * hundred; kept values with no solution could take forever. */
#define FILL_MAX_NODES 200000

typedef struct {
    uint8_t g[81];
    uint16_t row[9], col[9], box[9];
    uint32_t nodes;
    rng_t *rng;
} fill_t;

static int box_of(int c) { return (c / 27) * 3 + (c % 9) / 3; }

static void put(fill_t *f, int c, int d)
{
    uint16_t bit = (uint16_t)(1u << (d - 1));
    f->g[c] = (uint8_t)d;
    f->row[c / 9] |= bit;
    f->col[c % 9] |= bit;
    f->box[box_of(c)] |= bit;
}

static void take(fill_t *f, int c)
{
    uint16_t bit = (uint16_t)(1u << (f->g[c] - 1));
    f->g[c] = 0;
    f->row[c / 9] &= (uint16_t)~bit;
    f->col[c % 9] &= (uint16_t)~bit;
    f->box[box_of(c)] &= (uint16_t)~bit;
}

/* Depth-first, fewest candidates first, values in random order. Recursion
 * is at most 81 deep. Returns 1 when the grid is full. */
static int fill(fill_t *f)
{
    int best = -1, fewest = 10;
    unsigned best_mask = 0;
    for (int c = 0; c < 81; c++) {
        if (f->g[c])
            continue;
        unsigned m = 0x1FF & ~(f->row[c / 9] | f->col[c % 9] | f->box[box_of(c)]);
        int k = __builtin_popcount(m);
        if (k < fewest) {
            fewest = k;
            best = c;
            best_mask = m;
            if (k == 0)
                return 0;
        }
    }
    if (best < 0)
        return 1;
    while (best_mask) {
        if (++f->nodes > FILL_MAX_NODES)
            return 0;
        uint32_t pick = draw(f->rng, (uint32_t)__builtin_popcount(best_mask));
        unsigned m = best_mask;
        for (uint32_t i = 0; i < pick; i++)
            m &= m - 1;
        int d = __builtin_ctz(m) + 1;
        best_mask &= ~(1u << (d - 1));
        put(f, best, d);
        if (fill(f))
            return 1;
        take(f, best);
        if (f->nodes > FILL_MAX_NODES)
            return 0;
    }
    return 0;
}

/* A random full grid keeping `keep`'s values; 0 when none was found. */
static int random_grid(rng_t *r, const uint8_t keep[81], uint8_t grid[81])
{
    fill_t f;
    memset(&f, 0, sizeof f);
    f.rng = r;
    for (int c = 0; c < 81; c++) {
        if (!keep[c])
            continue;
        uint16_t bit = (uint16_t)(1u << (keep[c] - 1));
        if ((f.row[c / 9] | f.col[c % 9] | f.box[box_of(c)]) & bit)
            return 0;
        put(&f, c, keep[c]);
    }
    if (!fill(&f))
        return 0;
    memcpy(grid, f.g, 81);
    return 1;
}

/* ---- Taking givens away ---- */

/* The orbits of the symmetry: lists of one or two cells. Returns how many. */
static int orbits(gen_symmetry symmetry, uint8_t cells[81][2], uint8_t sizes[81])
{
    int n = 0;
    for (int c = 0; c < 81; c++) {
        int other = c;
        if (symmetry == GEN_SYMMETRY_ROTATIONAL)
            other = 80 - c;
        else if (symmetry == GEN_SYMMETRY_MIRROR)
            other = (c / 9) * 9 + 8 - c % 9;
        if (other < c)
            continue;
        cells[n][0] = (uint8_t)c;
        cells[n][1] = (uint8_t)other;
        sizes[n++] = (uint8_t)(other == c ? 1 : 2);
    }
    return n;
}

/* Guesses a uniqueness check may take; a puzzle needs far fewer. */
#define COUNT_MAX_GUESSES 100000

static int unique(const uint8_t puzzle[81])
{
    fp_count_result r = fp_count(puzzle, 2, COUNT_MAX_GUESSES, NULL);
    return r.complete && r.solutions == 1;
}

/* Each cell of the orbit just emptied can only hold its old value, seen
 * from the other givens: the puzzle keeps its solutions, so it keeps one.
 * True for most of the first removals, and far cheaper than a count. */
static int forced(const uint8_t puzzle[81], const uint8_t grid[81], const uint8_t *orbit, int size)
{
    for (int k = 0; k < size; k++) {
        int c = orbit[k], r = c / 9, col = c % 9, b = box_of(c);
        unsigned seen = 0;
        for (int i = 0; i < 9; i++) {
            int in_box = ((b / 3) * 3 + i / 3) * 9 + (b % 3) * 3 + i % 3;
            seen |= 1u << puzzle[r * 9 + i] | 1u << puzzle[i * 9 + col] | 1u << puzzle[in_box];
        }
        if ((seen >> 1) != (0x1FF & ~(1u << (grid[c] - 1))))
            return 0;
    }
    return 1;
}

/* Levels from which digging checks only the count: among minimal puzzles
 * about one in four is expert, so checking the level of every removal (a
 * search for chains each time) costs more than grading the results. */
#define COUNT_ONLY_FROM 4

/* The puzzle has one solution and the solver finishes it with techniques up
 * to `level`. Singles to pairs cannot finish a puzzle with two solutions,
 * so below the hard level the solve alone tells. */
static int acceptable(const uint8_t puzzle[81], int level)
{
    if (level >= 3 && !unique(puzzle))
        return 0;
    if (level >= COUNT_ONLY_FROM)
        return 1;
    logic_board b;
    if (logic_init(&b, puzzle, NULL) != LOGIC_OK)
        return 0;
    return logic_solvable(&b, 1, level);
}

/* Easier than `level`: then it is no puzzle of the level (a quick check
 * before the grade, which decides). */
static int too_easy(const uint8_t puzzle[81], int level)
{
    logic_board b;
    return level > 1 && logic_init(&b, puzzle, NULL) == LOGIC_OK && logic_solvable(&b, 1, level - 1);
}

int gen_generate(uint64_t seed, int level, gen_symmetry symmetry, const uint8_t *keep,
                 uint32_t max_attempts, gen_result *out)
{
    static const uint8_t none[81];
    if (level < 1 || level > LOGIC_LEVELS || symmetry > GEN_SYMMETRY_MIRROR)
        return GEN_EINVAL;
    if (keep == NULL)
        keep = none;
    for (int c = 0; c < 81; c++)
        if (keep[c] > 9)
            return GEN_EINVAL;
    uint8_t cells[81][2], sizes[81];
    int n = orbits(symmetry, cells, sizes);
    rng_t rng = {seed};
    uint8_t grid[81], puzzle[81];
    for (uint32_t attempt = 1; attempt <= max_attempts; attempt++) {
        if (!random_grid(&rng, keep, grid))
            return GEN_NO_SOLUTION;
        memcpy(puzzle, grid, 81);
        int order[81];
        for (int i = 0; i < n; i++)
            order[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)draw(&rng, (uint32_t)i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < n; i++) {
            const uint8_t *orbit = cells[order[i]];
            int size = sizes[order[i]];
            if (keep[orbit[0]] || keep[orbit[size - 1]])
                continue;
            for (int k = 0; k < size; k++)
                puzzle[orbit[k]] = 0;
            if (!forced(puzzle, grid, orbit, size) && !acceptable(puzzle, level))
                for (int k = 0; k < size; k++)
                    puzzle[orbit[k]] = grid[orbit[k]];
        }
        logic_board b;
        if (too_easy(puzzle, level) || logic_init(&b, puzzle, NULL) != LOGIC_OK || !unique(puzzle))
            continue;
        logic_solve(&b, 1, LOGIC_LEVELS, &out->grade);
        if (!out->grade.solved || logic_level(out->grade.hardest) != level)
            continue;
        memcpy(out->puzzle, puzzle, 81);
        memcpy(out->solution, grid, 81);
        out->attempts = attempt;
        return GEN_OK;
    }
    return GEN_GAVE_UP;
}

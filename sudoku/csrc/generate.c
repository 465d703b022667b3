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
    for (int r = 0, c = 0; r < 9; r++) {
        unsigned in_row = f->row[r];
        const uint16_t *boxes = &f->box[(r / 3) * 3];
        for (int col = 0; col < 9; col++, c++) {
            if (f->g[c])
                continue;
            unsigned m = 0x1FF & ~(in_row | f->col[col] | boxes[col / 3]);
            int k = __builtin_popcount(m);
            if (k < fewest) {
                fewest = k;
                best = c;
                best_mask = m;
                if (k == 0)
                    return 0;
            }
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

/* The puzzle, whose one solution was `grid` before the cells of `orbit`
 * were emptied, still has one: another solution would differ from the grid
 * in a cell of the orbit, so it is looked for cell by cell, the cells
 * before holding their old values. The same answer as counting to 2 (a
 * search cut short counts as two solutions), for about half the work. */
static int still_unique(uint8_t puzzle[81], const uint8_t grid[81], const uint8_t *orbit, int size)
{
    int one = 1;
    for (int k = 0; k < size && one; k++) {
        one = fp_solvable_without(puzzle, orbit[k], grid[orbit[k]], COUNT_MAX_GUESSES) == 0;
        puzzle[orbit[k]] = grid[orbit[k]];
    }
    for (int k = 0; k < size; k++)
        puzzle[orbit[k]] = 0;
    return one;
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

/* ---- Unavoidable sets ----
 *
 * An unavoidable set is cells of the grid whose values can be rearranged
 * among them into another solution, the other cells unchanged: a puzzle
 * with one solution keeps a given in each. Two kinds are found for the
 * price of a few lookups. Two digits a and b: link each cell of a to the
 * cells of b in its row, its column and its box; swapping a and b
 * throughout one part so linked leaves each unit one a and one b. Two rows
 * of one band: where some columns hold the same values in both, swapping
 * the rows' values there changes no column, nor any box (the values stay
 * in their boxes); the smallest such sets are the cycles of the permutation
 * taking each column to the column where the first row holds the second
 * row's value there. The same for two columns of one stack. A removal that
 * would leave such a set without a given is refused without a search,
 * which would only find the other solution. */

/* The most sets: 36 pairs of digits, each of 18 cells in parts of 4 or
 * more, and 18 pairs of lines, each of 9 cells in cycles of 2 or more; and
 * the most holding one cell: one part for each of the 8 other digits, one
 * cycle for each of the 2 other lines of its band and of its stack. */
#define UNAVOIDABLE_MAX (36 * 4 + 18 * 4)
#define UNAVOIDABLE_PER_CELL 12

typedef struct {
    int n;
    logic_cells set[UNAVOIDABLE_MAX];
    uint8_t holding[81];                  /* how many sets hold each cell */
    uint8_t of[81][UNAVOIDABLE_PER_CELL]; /* which */
} unavoidable_t;

static logic_cells cell_bit(int c)
{
    return (logic_cells)1 << c;
}

static int lowest_cell(logic_cells set)
{
    uint64_t low = (uint64_t)set;
    return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(set >> 64));
}

static void unavoidable_add(unavoidable_t *u, logic_cells set, logic_cells kept)
{
    if (set & kept)
        return; /* never emptied */
    for (logic_cells x = set; x; x &= x - 1) {
        int c = lowest_cell(x);
        u->of[c][u->holding[c]++] = (uint8_t)u->n;
    }
    u->set[u->n++] = set;
}

/* The parts of each pair of digits. */
static void unavoidable_digits(unavoidable_t *u, const uint8_t grid[81], logic_cells kept)
{
    uint8_t at[10][3][9]; /* [value][row, column, box][which]: its cell */
    logic_cells cells_of[10] = {0};
    for (int c = 0; c < 81; c++) {
        at[grid[c]][0][c / 9] = (uint8_t)c;
        at[grid[c]][1][c % 9] = (uint8_t)c;
        at[grid[c]][2][box_of(c)] = (uint8_t)c;
        cells_of[grid[c]] |= cell_bit(c);
    }
    for (int a = 1; a <= 9; a++)
        for (int b = a + 1; b <= 9; b++)
            for (logic_cells left = cells_of[a] | cells_of[b]; left;) {
                uint8_t todo[18];
                int n = 0;
                todo[n++] = (uint8_t)lowest_cell(left);
                logic_cells part = cell_bit(todo[0]);
                while (n) {
                    int c = todo[--n], other = grid[c] == a ? b : a;
                    int units[3] = {c / 9, c % 9, box_of(c)};
                    for (int kind = 0; kind < 3; kind++) {
                        int o = at[other][kind][units[kind]];
                        if (!(part & cell_bit(o))) {
                            part |= cell_bit(o);
                            todo[n++] = (uint8_t)o;
                        }
                    }
                }
                unavoidable_add(u, part, kept);
                left &= ~part;
            }
}

/* The cell of line `i` (a row, or a column when `cols`) at position `j`. */
static int line_cell(int cols, int i, int j)
{
    return cols ? j * 9 + i : i * 9 + j;
}

/* The cycles of each pair of lines of a band (rows) or a stack (columns). */
static void unavoidable_lines(unavoidable_t *u, const uint8_t grid[81], logic_cells kept)
{
    for (int cols = 0; cols < 2; cols++)
        for (int first = 0; first < 9; first++)
            for (int second = first + 1; second < (first / 3) * 3 + 3; second++) {
                uint8_t where[10], next[9], done[9] = {0};
                for (int j = 0; j < 9; j++)
                    where[grid[line_cell(cols, first, j)]] = (uint8_t)j;
                for (int j = 0; j < 9; j++)
                    next[j] = where[grid[line_cell(cols, second, j)]];
                for (int j = 0; j < 9; j++) {
                    logic_cells set = 0;
                    for (int at = j; !done[at]; at = next[at]) {
                        done[at] = 1;
                        set |= cell_bit(line_cell(cols, first, at)) | cell_bit(line_cell(cols, second, at));
                    }
                    if (set)
                        unavoidable_add(u, set, kept);
                }
            }
}

/* The unavoidable sets of `grid` that hold no kept value. */
static void unavoidable_init(unavoidable_t *u, const uint8_t grid[81], const uint8_t keep[81])
{
    logic_cells kept = 0;
    for (int c = 0; c < 81; c++)
        if (keep[c])
            kept |= cell_bit(c);
    u->n = 0;
    memset(u->holding, 0, sizeof u->holding);
    unavoidable_digits(u, grid, kept);
    unavoidable_lines(u, grid, kept);
}

/* A set holding a cell of `orbit` has no cell in `givens` (the givens
 * without the orbit's). */
static int unavoidable_emptied(const unavoidable_t *u, logic_cells givens, const uint8_t *orbit, int size)
{
    for (int k = 0; k < size; k++)
        for (int i = 0; i < u->holding[orbit[k]]; i++)
            if (!(u->set[u->of[orbit[k]][i]] & givens))
                return 1;
    return 0;
}

/* Levels from which digging checks only the count: among minimal puzzles
 * about one in four is expert, so checking the level of every removal (a
 * search for chains each time) costs more than grading the results. */
#define COUNT_ONLY_FROM 4

/* The puzzle has one solution and the solver finishes it with techniques up
 * to `level`. Singles to pairs cannot finish a puzzle with two solutions,
 * so below the hard level the solve alone tells. */
static int acceptable(uint8_t puzzle[81], const uint8_t grid[81], const uint8_t *orbit, int size, int level)
{
    if (level >= 3 && !still_unique(puzzle, grid, orbit, size))
        return 0;
    if (level >= COUNT_ONLY_FROM)
        return 1;
    logic_board b;
    if (logic_init(&b, puzzle, NULL) != LOGIC_OK)
        return 0;
    return logic_solvable(&b, 1, level);
}

/* The highest level whose rungs a solve of a puzzle of `level` must try:
 * the ladder is HoDoKu's order, and some expert rungs (finned swordfish and
 * jellyfish, Sue de Coq) come before hard ones (the colourings), so a full
 * grade may take an expert step where a solve up to hard takes a hard one.
 * Easy and medium rungs all come before the others, and the extreme ones
 * last. */
static int solved_up_to(int level)
{
    return level == 3 ? 4 : level;
}

/* The passes of logic_solvable's order an extreme candidate is asked
 * about: the cheap rungs and the chains. Those they leave stuck (about one
 * minimal puzzle in twenty, a third of them extreme) are graded; the grade
 * of one that an ALS, a finned fish or Sue de Coq would have finished costs
 * less, in all, than asking every candidate about those rungs too, which
 * the ones that are extreme fail only after trying them all. */
#define EXTREME_ASKED_PASSES 2

/* The grade of a puzzle whose level is `level`, into `g`; 0 when its level
 * is another. A solve with techniques up to solved_up_to(level) takes the
 * same steps as the full one, so it is the grade, and it stops where a
 * harder technique would be needed. An extreme candidate is one the expert
 * rungs leave stuck: what some of them finish is not, and that question
 * (logic_solvable_within, in the quicker order) settles most candidates
 * before a grade is paid for (about one minimal puzzle in sixty is
 * extreme). */
static int graded_at(const uint8_t puzzle[81], int level, logic_grade *g)
{
    logic_board b;
    if (logic_init(&b, puzzle, NULL) != LOGIC_OK)
        return 0;
    if (level == LOGIC_LEVELS && logic_solvable_within(&b, 1, LOGIC_LEVELS - 1, EXTREME_ASKED_PASSES))
        return 0;
    logic_init(&b, puzzle, NULL);
    logic_solve(&b, 1, solved_up_to(level), g);
    return g->solved && logic_level(g->hardest) == level;
}

/* Levels dug most crowded first: a given is tried for removal before
 * others when its row, column and box, and its digit, hold more givens, so
 * the givens left end up spread evenly over the units and the digits.
 * Minimal puzzles dug so need harder techniques more often (the expert and
 * extreme levels about half as many grids); an easy puzzle is the first
 * grid's, so random order serves it. */
#define CROWDED_FROM 2

/* How crowded each orbit is: for each of its cells, the givens in its row,
 * column and box, and of its value (the grid's); kept up to date as givens
 * go. */
typedef struct {
    int orbit[81];         /* the score of each orbit */
    uint8_t of[81];        /* the orbit of each cell */
    uint8_t digit[10][9];  /* the cells of each value in the grid */
} crowd_t;

static void crowd_init(crowd_t *k, const uint8_t puzzle[81], const uint8_t grid[81], uint8_t cells[81][2],
                       const uint8_t sizes[81], int n)
{
    int unit[27] = {0}, digit[10] = {0}, seen[10] = {0};
    for (int c = 0; c < 81; c++) {
        if (puzzle[c]) {
            unit[c / 9]++;
            unit[9 + c % 9]++;
            unit[18 + box_of(c)]++;
            digit[puzzle[c]]++;
        }
        k->digit[grid[c]][seen[grid[c]]++] = (uint8_t)c;
    }
    for (int o = 0; o < n; o++) {
        k->orbit[o] = 0;
        for (int i = 0; i < sizes[o]; i++) {
            int c = cells[o][i];
            k->of[c] = (uint8_t)o;
            k->orbit[o] += unit[c / 9] + unit[9 + c % 9] + unit[18 + box_of(c)] + digit[grid[c]];
        }
    }
}

/* The given at cell g (value v) is gone: one fewer in its units and of v
 * for every cell there. */
static void crowd_remove(crowd_t *k, int g, int v)
{
    int r = g / 9, col = g % 9, b = box_of(g);
    for (int i = 0; i < 9; i++) {
        k->orbit[k->of[r * 9 + i]]--;
        k->orbit[k->of[i * 9 + col]]--;
        k->orbit[k->of[((b / 3) * 3 + i / 3) * 9 + (b % 3) * 3 + i % 3]]--;
        k->orbit[k->of[k->digit[v][i]]]--;
    }
}

/* Moves the most crowded of order[i..n-1] to order[i], the others keeping
 * their (random) order, so ties go to the earlier one. */
static void most_crowded_first(const crowd_t *k, int *order, int i, int n)
{
    int pick = i, best = -1;
    for (int j = i; j < n; j++)
        if (k->orbit[order[j]] > best) {
            best = k->orbit[order[j]];
            pick = j;
        }
    int o = order[pick];
    memmove(order + i + 1, order + i, (size_t)(pick - i) * sizeof *order);
    order[i] = o;
}

/* Takes givens away from the full grid in `puzzle`, one orbit at a time in
 * `order` (a random permutation), or from CROWDED_FROM on most crowded
 * first; a removal stays when the puzzle stays `acceptable`. */
static void dig(uint8_t puzzle[81], const uint8_t grid[81], const uint8_t keep[81], int level,
                uint8_t cells[81][2], const uint8_t sizes[81], int *order, int n)
{
    crowd_t k;
    if (level >= CROWDED_FROM)
        crowd_init(&k, puzzle, grid, cells, sizes, n);
    unavoidable_t u;
    unavoidable_init(&u, grid, keep);
    logic_cells givens = 0;
    for (int c = 0; c < 81; c++)
        if (puzzle[c])
            givens |= cell_bit(c);
    for (int i = 0; i < n; i++) {
        if (level >= CROWDED_FROM)
            most_crowded_first(&k, order, i, n);
        const uint8_t *orbit = cells[order[i]];
        int size = sizes[order[i]];
        if (keep[orbit[0]] || keep[orbit[size - 1]])
            continue;
        logic_cells without = givens;
        for (int j = 0; j < size; j++) {
            puzzle[orbit[j]] = 0;
            without &= ~cell_bit(orbit[j]);
        }
        if (forced(puzzle, grid, orbit, size) ||
            (!unavoidable_emptied(&u, without, orbit, size) && acceptable(puzzle, grid, orbit, size, level))) {
            givens = without;
            if (level >= CROWDED_FROM)
                for (int j = 0; j < size; j++)
                    crowd_remove(&k, orbit[j], grid[orbit[j]]);
            continue;
        }
        for (int j = 0; j < size; j++)
            puzzle[orbit[j]] = grid[orbit[j]];
    }
}

static void shuffle(rng_t *rng, int *order, int n)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)draw(rng, (uint32_t)i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
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
        shuffle(&rng, order, n);
        dig(puzzle, grid, keep, level, cells, sizes, order, n);
        if (!graded_at(puzzle, level, &out->grade))
            continue;
        memcpy(out->puzzle, puzzle, 81);
        memcpy(out->solution, grid, 81);
        out->attempts = attempt;
        return GEN_OK;
    }
    return GEN_GAVE_UP;
}

/*
 * fastpath.c: the unwatched solver and counter (contract in fastpath.h).
 *
 * Algorithm. The grid is split into three bands of three rows. For each
 * digit and band a 27-bit mask holds the cells of that band where the digit
 * may still go (bit 9*row + column, row within the band); a placed digit
 * keeps its own bit. All candidates fit in 27 such words, so a search state
 * is 128 bytes and is copied by value when the search guesses: no undo
 * log, no allocation, a fixed stack of at most 82 states.
 *
 * Propagation, cheapest deductions first, until nothing changes:
 *  - Band update (one digit, one band). In a band a digit fills one cell in
 *    each of the 3 rows and each of the 3 boxes, so the (row, box) pairs it
 *    uses form a permutation. A table keeps only the row/box segments that
 *    belong to some permutation allowed by the non-empty segments: this is
 *    locked candidates (pointing and claiming) within the band, and an empty
 *    result is a contradiction. A row left with one cell is a hidden single
 *    (a box left with one cell shows up as one too, by the same rule).
 *  - Stack update (one digit, all bands): the same permutation rule between
 *    the bands and the three columns of each stack (locked candidates along
 *    columns), then hidden singles in columns.
 *  - Naked singles: bit-parallel counting over the 9 digits finds the cells
 *    with no candidate (contradiction) or one (placed).
 *  Placing a digit clears, without branches, its row, box and column in its
 *  band, its column in the other two bands, and the cell from the other
 *  digits; every word that changed is queued for the updates above.
 * When propagation stalls the search guesses on a cell with two candidates
 * (the one with the most such peers) or else the fewest: a copy of the state
 * takes the lowest digit, the state itself has that digit removed and
 * resumes after the copy's subtree is done. Each such copy is one guess, the
 * unit of max_guesses; the other branch is not counted (it is forced once
 * the copy failed).
 *
 * Counting: with k digits absent from the givens, any solution gives k! by
 * permuting those digits, so when k! >= limit one solution settles the count.
 */
#include "fastpath.h"

#include <stddef.h>
#include <string.h>

/* ---- Constant tables, written as formulas so no generator is needed ---- */

/* Which of the three box segments of a 9-bit band row are non-empty. */
#define SEGS(x) ((((x) & 7) ? 1 : 0) | (((x) & 070) ? 2 : 0) | (((x) & 0700) ? 4 : 0))
#define T2(f, n) f(n), f((n) + 1)
#define T4(f, n) T2(f, n), T2(f, (n) + 2)
#define T8(f, n) T4(f, n), T4(f, (n) + 4)
#define T16(f, n) T8(f, n), T8(f, (n) + 8)
#define T32(f, n) T16(f, n), T16(f, (n) + 16)
#define T64(f, n) T32(f, n), T32(f, (n) + 32)
#define T128(f, n) T64(f, n), T64(f, (n) + 64)
#define T256(f, n) T128(f, n), T128(f, (n) + 128)
#define T512(f, n) T256(f, n), T256(f, (n) + 256)

static const uint8_t ROW_SEGMENTS[512] = {T512(SEGS, 0)};

/*
 * A band's "shape" is 9 bits, bit 3*row + box set when the digit still has a
 * cell in that row and box. The six permutations of rows onto boxes, as
 * shapes; a segment survives when some permutation inside the shape uses it.
 */
#define KEEP(s, p) ((((s) & (p)) == (p)) ? (p) : 0)
#define MATCHED(s) (KEEP(s, 0x111) | KEEP(s, 0x0A1) | KEEP(s, 0x10A) | \
                    KEEP(s, 0x062) | KEEP(s, 0x08C) | KEEP(s, 0x054))
/* Spread a shape to the 27-bit band mask: shape bit i covers bits 3i..3i+2. */
#define SPREAD_BIT(m, i) ((((m) >> (i)) & 1u) ? (07u << (3 * (i))) : 0u)
#define SPREAD(m) (SPREAD_BIT(m, 0) | SPREAD_BIT(m, 1) | SPREAD_BIT(m, 2) | \
                   SPREAD_BIT(m, 3) | SPREAD_BIT(m, 4) | SPREAD_BIT(m, 5) | \
                   SPREAD_BIT(m, 6) | SPREAD_BIT(m, 7) | SPREAD_BIT(m, 8))
#define LOCKED(s) SPREAD(MATCHED(s))

static const uint32_t LOCKED_MASK[512] = {T512(LOCKED, 0)};

/*
 * The same permutation rule across a stack: per digit, a word holds for
 * each band (as a 9-bit "row") the columns open to the digit there. In the
 * 3x3 block of a stack, bit 3*band + column, bands pair with the stack's
 * columns one to one. STACK_KEEP maps such a block to the pairs that belong
 * to some permutation, placed back at bits 9*band + column of stack 0.
 */
#define STACK_BIT(m, i) ((((m) >> (i)) & 1u) << (9 * ((i) / 3) + (i) % 3))
#define TO_STACK(m) (STACK_BIT(m, 0) | STACK_BIT(m, 1) | STACK_BIT(m, 2) | \
                     STACK_BIT(m, 3) | STACK_BIT(m, 4) | STACK_BIT(m, 5) | \
                     STACK_BIT(m, 6) | STACK_BIT(m, 7) | STACK_BIT(m, 8))
#define STACK_MATCHED(s) TO_STACK(MATCHED(s))

static const uint32_t STACK_KEEP[512] = {T512(STACK_MATCHED, 0)};

#define BAND_ROW 0x1FFu       /* row 0 of a band */
#define BAND_COL 0x40201u     /* column 0 of a band, all three rows */
#define BAND_BOX 0x1C0E07u    /* box 0 of a band */
#define MAX_DEPTH 82          /* each guess places a cell: at most 81 */

/* ---- The search state ---- */

typedef struct {
    uint32_t cand[27];    /* [3*digit + band]: cells open to that digit;
                             a placed digit keeps its own cell */
    uint32_t unsolved[3]; /* per band: cells not yet placed */
    uint32_t band_dirty;  /* bit 3*digit + band: word changed, band update due */
    uint32_t stack_dirty; /* same bits: the digit's stack update is due */
} grid_t;

static uint32_t shape_of(uint32_t band)
{
    return ROW_SEGMENTS[band & BAND_ROW] |
           (uint32_t)ROW_SEGMENTS[(band >> 9) & BAND_ROW] << 3 |
           (uint32_t)ROW_SEGMENTS[band >> 18] << 6;
}

/* The columns (9 bits) where a band word has any cell. */
static uint32_t columns_of(uint32_t band)
{
    return (band | band >> 9 | band >> 18) & BAND_ROW;
}

/* Columns where a band word has two or more cells. */
static uint32_t crowded_columns(uint32_t band)
{
    uint32_t r0 = band & BAND_ROW, r1 = (band >> 9) & BAND_ROW, r2 = band >> 18;
    return (r0 & r1) | (r0 & r2) | (r1 & r2);
}

/* Row `row` of a band word if it holds exactly one cell, else 0. */
static uint32_t lone_cell(uint32_t band, int row)
{
    uint32_t r = (band >> (9 * row)) & BAND_ROW;
    return (r & (0u - (uint32_t)((r & (r - 1)) == 0))) << (9 * row);
}

/* The whole rows of a band that hold any of `cells`. */
static uint32_t rows_of(uint32_t cells)
{
    return ((0u - (uint32_t)((cells & BAND_ROW) != 0)) & BAND_ROW) |
           ((0u - (uint32_t)((cells & (BAND_ROW << 9)) != 0)) & (BAND_ROW << 9)) |
           ((0u - (uint32_t)((cells & (BAND_ROW << 18)) != 0)) & (BAND_ROW << 18));
}

/* The whole boxes of a band that hold any of `cells`. */
static uint32_t boxes_of(uint32_t cells)
{
    uint32_t cols = columns_of(cells);
    return (((cols | cols >> 1 | cols >> 2) & 0x49u) * 7u) * BAND_COL;
}

static inline void mark_dirty(grid_t *g, uint32_t words)
{
    g->band_dirty |= words;
    g->stack_dirty |= words;
}

/* Clears `mask` from word i; returns word i's dirty bit if that changed it. */
static inline uint32_t clear_bits(grid_t *g, int i, uint32_t mask)
{
    uint32_t old = g->cand[i];
    g->cand[i] = old & ~mask;
    return (uint32_t)((old & mask) != 0) << i;
}

/*
 * Places digit d (0-8) at `cells` of band b: cells still open to d, not
 * placed yet, and no two of them in one row, column or box. Branch-free:
 * clears the cells from every digit and the columns from every band of d,
 * then rewrites d's own word.
 */
static void place_cells(grid_t *g, int d, int b, uint32_t cells)
{
    int own = 3 * d + b;
    uint32_t cols = columns_of(cells) * BAND_COL;
    uint32_t old = g->cand[own];
    uint32_t mine = (old & ~(rows_of(cells) | cols | boxes_of(cells))) | cells;
    uint32_t changed = 0;
    for (int i = b; i < 27; i += 3)
        changed |= clear_bits(g, i, cells);
    for (int i = 3 * d; i < 3 * d + 3; i++)
        changed |= clear_bits(g, i, cols);
    changed = (changed & ~(1u << own)) | (uint32_t)(mine != old) << own;
    g->cand[own] = mine;
    g->unsolved[b] &= ~cells;
    mark_dirty(g, changed);
}

/* Places digit d at one cell, checking it is still open. 0 on a clash. */
static int place_one(grid_t *g, int d, int b, uint32_t bit)
{
    if (!(g->cand[3 * d + b] & bit & g->unsolved[b]))
        return 0;
    place_cells(g, d, b, bit);
    return 1;
}

/*
 * Band update of word i: keep the segments that fit a permutation (locked
 * candidates in the band), then place hidden singles of its rows (and so of
 * its boxes). Returns 0 on a contradiction.
 */
static int update_band(grid_t *g, int i)
{
    int d = i / 3, b = i % 3;
    uint32_t old = g->cand[i];
    uint32_t w = old & LOCKED_MASK[shape_of(old)];
    if (!w)
        return 0; /* some row or box has no place for the digit */
    if (w != old) {
        g->cand[i] = w;
        g->stack_dirty |= 1u << i;
    }
    /* A placed digit is alone in its row too, but no longer unsolved. */
    uint32_t singles = (lone_cell(w, 0) | lone_cell(w, 1) | lone_cell(w, 2)) &
                       g->unsolved[b];
    /* The permutation rule put these in distinct boxes, so columns too. */
    if (singles)
        place_cells(g, d, b, singles);
    return 1;
}

/* The 9-bit block of stack s in a word of band-by-column bits. */
static uint32_t stack_block(uint32_t cols, int s)
{
    uint32_t x = (cols >> (3 * s)) & BAND_BOX;
    return (x | x >> 6 | x >> 12) & 0x1FFu;
}

/*
 * Stack update of digit d: the permutation rule between bands and columns
 * in each stack (locked candidates along columns), then hidden singles in
 * columns. Returns 0 on a contradiction.
 */
static int update_stacks(grid_t *g, int d)
{
    uint32_t *w = &g->cand[3 * d];
    uint32_t cols = columns_of(w[0]) | columns_of(w[1]) << 9 |
                    columns_of(w[2]) << 18;
    uint32_t k0 = STACK_KEEP[stack_block(cols, 0)];
    uint32_t k1 = STACK_KEEP[stack_block(cols, 1)];
    uint32_t k2 = STACK_KEEP[stack_block(cols, 2)];
    if (!k0 || !k1 || !k2)
        return 0; /* some column or box has no place for the digit */
    uint32_t keep = k0 | k1 << 3 | k2 << 6;
    if (keep != cols) {
        uint32_t changed = 0;
        for (int b = 0; b < 3; b++)
            changed |= clear_bits(g, 3 * d + b,
                                  ~(((keep >> (9 * b)) & BAND_ROW) * BAND_COL));
        g->band_dirty |= changed; /* its stack update is this one */
    }
    /* A column open in one band only, in one row there, not yet placed. */
    uint32_t c0 = keep & BAND_ROW, c1 = (keep >> 9) & BAND_ROW, c2 = keep >> 18;
    uint32_t once = (c0 ^ c1 ^ c2) & ~(c0 & c1 & c2);
    once &= ~(crowded_columns(w[0]) | crowded_columns(w[1]) | crowded_columns(w[2]));
    once &= ~(columns_of(w[0] & ~g->unsolved[0]) | columns_of(w[1] & ~g->unsolved[1]) |
              columns_of(w[2] & ~g->unsolved[2]));
    while (once) {
        uint32_t col_mask = BAND_COL << __builtin_ctz(once);
        once &= once - 1;
        int b = (w[0] & col_mask) ? 0 : (w[1] & col_mask) ? 1 : 2;
        if (!place_one(g, d, b, w[b] & col_mask))
            return 0; /* an earlier single of this loop took its row or box */
    }
    return 1;
}

/*
 * Naked singles in band b. Returns -1 on a contradiction, else 1 when any
 * cell was placed.
 */
static int naked_singles(grid_t *g, int b)
{
    uint32_t open = g->unsolved[b];
    if (!open)
        return 0;
    uint32_t seen1 = 0, seen2 = 0; /* cells with >= 1 and >= 2 candidates */
    for (int i = b; i < 27; i += 3) {
        seen2 |= seen1 & g->cand[i];
        seen1 |= g->cand[i];
    }
    if (open & ~seen1)
        return -1;
    uint32_t singles = open & ~seen2;
    if (!singles)
        return 0;
    /* One at a time: two singles may want one digit in one row. */
    for (int d = 0; d < 9; d++)
        for (uint32_t m = g->cand[3 * d + b] & singles; m; m &= m - 1)
            if (!place_one(g, d, b, m & -m))
                return -1;
    return 1;
}

/*
 * Runs all deductions to a fixed point, cheapest first: band updates, then
 * stack updates, then naked singles. Returns 0 on a contradiction.
 */
static int propagate(grid_t *g)
{
    for (;;) {
        if (g->band_dirty) {
            int i = __builtin_ctz(g->band_dirty);
            g->band_dirty &= g->band_dirty - 1;
            if (!update_band(g, i))
                return 0;
            continue;
        }
        if (g->stack_dirty) {
            int d = __builtin_ctz(g->stack_dirty) / 3;
            g->stack_dirty &= ~(7u << (3 * d));
            if (!update_stacks(g, d))
                return 0;
            continue;
        }
        int placed = 0;
        for (int b = 0; b < 3; b++) {
            int n = naked_singles(g, b);
            if (n < 0)
                return 0;
            placed += n;
        }
        if (!placed)
            return 1;
    }
}

/* ---- Guessing ---- */

typedef struct {
    int digit, band;
    uint32_t bit;
} guess_t;

/* Cells of band b with at most two candidates (unsolved ones have two once
   propagation is done: none has one or zero). */
static uint32_t pairs_in_band(const grid_t *g, int b)
{
    uint32_t s1 = 0, s2 = 0, s3 = 0; /* >= 1, >= 2, >= 3 candidates */
    for (int i = b; i < 27; i += 3) {
        uint32_t c = g->cand[i];
        s3 |= s2 & c;
        s2 |= s1 & c;
        s1 |= c;
    }
    return g->unsolved[b] & ~s3;
}

/*
 * The bivalue cell with the most bivalue peers (row, column, box): guessing
 * there resolves the most neighbours, which cut the guesses per puzzle by a
 * quarter over taking the first bivalue cell (forum_hardest_1905_11plus,
 * counting to 2: 142 -> 104). -1 in `band` when there is none.
 */
static guess_t best_pair_cell(const grid_t *g)
{
    guess_t best = {-1, -1, 0};
    uint32_t pairs[3] = {pairs_in_band(g, 0), pairs_in_band(g, 1),
                         pairs_in_band(g, 2)};
    int best_score = -1;
    for (int b = 0; b < 3; b++) {
        uint32_t other_bands = pairs[(b + 1) % 3] | pairs[(b + 2) % 3];
        for (uint32_t m = pairs[b]; m; m &= m - 1) {
            int pos = __builtin_ctz(m), col = pos % 9;
            uint32_t col_mask = BAND_COL << col;
            uint32_t peers = (BAND_ROW << (9 * (pos / 9))) | col_mask |
                             (BAND_BOX << (3 * (col / 3)));
            int score = __builtin_popcount(pairs[b] & peers) +
                        __builtin_popcount(other_bands & col_mask);
            if (score > best_score) {
                best_score = score;
                best.band = b;
                best.bit = 1u << pos;
            }
        }
    }
    return best;
}

/* The unsolved cell with the fewest candidates (first of equals). */
static guess_t fewest_candidates(const grid_t *g)
{
    guess_t best = {-1, 0, 0};
    int best_count = 10;
    for (int b = 0; b < 3; b++)
        for (uint32_t m = g->unsolved[b]; m; m &= m - 1) {
            uint32_t bit = m & -m;
            int n = 0;
            for (int i = b; i < 27; i += 3)
                n += (g->cand[i] & bit) != 0;
            if (n < best_count) {
                best_count = n;
                best.band = b;
                best.bit = bit;
            }
        }
    return best;
}

/* Where to guess, and the digit to try first (the lowest). Only called on a
   propagated, unsolved state. */
static guess_t choose_guess(const grid_t *g)
{
    guess_t best = best_pair_cell(g);
    if (best.band < 0)
        best = fewest_candidates(g);
    for (int i = best.band; i < 27; i += 3)
        if (g->cand[i] & best.bit) {
            best.digit = i / 3;
            break;
        }
    return best;
}

/* ---- Search ---- */

typedef struct {
    uint64_t limit, max_guesses;
    uint64_t solutions, guesses;
    int capped;
    uint8_t *first_solution;
    const uint8_t *stop; /* NULL, or a byte another thread may set */
} search_t;

static int stop_requested(const search_t *s)
{
    return s->stop && s->guesses % FP_STOP_EVERY == 0 &&
           __atomic_load_n(s->stop, __ATOMIC_RELAXED) != 0;
}

static void write_solution(const grid_t *g, uint8_t out[81])
{
    for (int i = 0; i < 27; i++) {
        int d = i / 3, b = i % 3;
        for (uint32_t m = g->cand[i]; m; m &= m - 1)
            out[27 * b + __builtin_ctz(m)] = (uint8_t)(d + 1);
    }
}

static int solved(const grid_t *g)
{
    return (g->unsolved[0] | g->unsolved[1] | g->unsolved[2]) == 0;
}

/*
 * Depth-first search with an explicit stack of states. stack[sp] is the node
 * being worked on; a guess pushes a copy that takes the digit while the
 * parent drops it, so popping back resumes the parent's other branch.
 */
static void run_search(search_t *s, const grid_t *start)
{
    grid_t stack[MAX_DEPTH];
    int sp = 0;
    stack[0] = *start;
    while (sp >= 0) {
        grid_t *g = &stack[sp];
        if (!propagate(g)) {
            sp--;
            continue;
        }
        if (solved(g)) {
            if (s->solutions == 0 && s->first_solution)
                write_solution(g, s->first_solution);
            if (++s->solutions >= s->limit)
                return;
            sp--;
            continue;
        }
        if ((s->max_guesses && s->guesses >= s->max_guesses) || stop_requested(s)) {
            s->capped = 1;
            return;
        }
        s->guesses++;
        guess_t guess = choose_guess(g);
        stack[sp + 1] = *g;
        mark_dirty(g, clear_bits(g, 3 * guess.digit + guess.band, guess.bit));
        sp++;
        /* Cannot fail: propagation left the digit open at the cell. */
        place_cells(&stack[sp], guess.digit, guess.band, guess.bit);
    }
}

/* ---- Entry points ---- */

/* Sets up the state from the givens. Returns 0 on a byte > 9 or a clash. */
static int load(grid_t *g, const uint8_t cells[81], int *distinct_digits)
{
    unsigned digits_seen = 0;
    for (int i = 0; i < 27; i++)
        g->cand[i] = 0x7FFFFFFu;
    for (int b = 0; b < 3; b++)
        g->unsolved[b] = 0x7FFFFFFu;
    g->band_dirty = g->stack_dirty = 0x7FFFFFFu;
    for (int cell = 0; cell < 81; cell++) {
        int value = cells[cell];
        if (value == 0)
            continue;
        if (value > 9 ||
            !place_one(g, value - 1, cell / 27, 1u << (cell % 27)))
            return 0;
        digits_seen |= 1u << value;
    }
    *distinct_digits = __builtin_popcount(digits_seen);
    return 1;
}

/* k! for the k digits the givens never use (at most 9!, no overflow). */
static uint64_t missing_digit_permutations(int distinct_digits)
{
    uint64_t n = 1;
    for (int k = 2; k <= 9 - distinct_digits; k++)
        n *= (uint64_t)k;
    return n;
}

fp_count_result fp_count(const uint8_t cells[81], uint64_t limit,
                         uint64_t max_guesses, uint8_t first_solution[81])
{
    return fp_count_stoppable(cells, limit, max_guesses, first_solution, NULL);
}

fp_count_result fp_count_stoppable(const uint8_t cells[81], uint64_t limit,
                                   uint64_t max_guesses, uint8_t first_solution[81],
                                   const uint8_t *stop)
{
    fp_count_result result = {0, 0, 1};
    grid_t start;
    int distinct = 0;
    if (limit < 1)
        limit = 1; /* the header requires limit >= 1; be safe anyway */
    if (!load(&start, cells, &distinct))
        return result;
    /*
     * Any solution stays a solution when the digits the givens never use are
     * permuted among themselves, so with k unused digits one solution means
     * at least k! of them: when that reaches the limit, one is enough.
     */
    uint64_t implied = missing_digit_permutations(distinct);
    search_t s = {implied >= limit ? 1 : limit, max_guesses, 0, 0, 0,
                  first_solution, stop};
    run_search(&s, &start);
    result.solutions = (s.solutions && implied >= limit) ? limit : s.solutions;
    result.guesses = s.guesses;
    result.complete = !s.capped;
    return result;
}

int fp_solve(const uint8_t cells[81], uint8_t solution[81])
{
    return fp_count(cells, 1, 0, solution).solutions > 0;
}

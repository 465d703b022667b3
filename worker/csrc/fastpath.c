/*
 * fastpath.c: the unwatched solver and counter (contract in fastpath.h).
 *
 * Algorithm. The grid is split into three bands of three rows. For each
 * band and digit a 27-bit mask holds the cells of that band where the digit
 * may still go (bit 9*row + column, row within the band); a placed digit
 * keeps its own bit. All candidates fit in 27 such words, so a search state
 * is 128 bytes and is copied by value when the search guesses: no undo
 * log, no allocation, a fixed stack of at most 82 states.
 *
 * A segment is the three cells where a row (or a column) crosses a box. In
 * a band a digit fills one cell in each of the 3 rows and each of the 3
 * boxes, so the segments it uses pair rows with boxes one to one: one of 6
 * permutations. Propagation, cheapest deductions first, until nothing
 * changes:
 *  - Band update (one band, one digit): keep the segments that belong to
 *    some permutation still open (locked candidates, pointing and claiming,
 *    within the band); none left is a contradiction. A row left with one
 *    cell is a hidden single (a box left with one cell shows up as one too).
 *  - Stack update (one digit, all bands): the same rule between the bands
 *    and the three columns of each stack, then hidden singles in columns.
 *  - Naked singles: bit-parallel counting over the 9 digits finds the cells
 *    with no candidate (contradiction) or one (placed).
 *  - Triads: a segment holds exactly three values. Where only three values
 *    may still go, each must go there; where three values must (every
 *    permutation left to them uses the segment), no other may.
 *  Placing a digit clears its row, box and column in its band, its column
 *  in the other two bands, and the cell from the other digits; every word
 *  that changed is queued for the updates above.
 * When propagation stalls the search guesses. It takes the band or stack
 * whose digits have the fewest permutations left in total, and in it the
 * digit with the fewest (at least two): a copy of the state puts the digit
 * in one segment of its first permutation, the state itself keeps it out of
 * that segment and resumes after the copy's subtree is done. Each such copy
 * is one guess, the unit of max_guesses; the other branch is not counted.
 * (Choosing among whole bands and segments rather than cells took the
 * guesses per puzzle of forum_hardest_1905_11plus, first solution, from 53
 * to 44, and the triads to 37.)
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
 * The same 3x3 pattern serves a stack, with bands for rows and columns for
 * boxes.
 */
#define FITS(s, p) (((s) & (p)) == (p))
#define KEEP(s, p) (FITS(s, p) ? (p) : 0)
#define MATCHED(s) (KEEP(s, 0x111) | KEEP(s, 0x0A1) | KEEP(s, 0x10A) | \
                    KEEP(s, 0x062) | KEEP(s, 0x08C) | KEEP(s, 0x054))
/* Spread a shape to the 27-bit band mask: shape bit i covers bits 3i..3i+2. */
#define SPREAD_BIT(m, i) ((((m) >> (i)) & 1u) ? (07u << (3 * (i))) : 0u)
#define SPREAD(m) (SPREAD_BIT(m, 0) | SPREAD_BIT(m, 1) | SPREAD_BIT(m, 2) | \
                   SPREAD_BIT(m, 3) | SPREAD_BIT(m, 4) | SPREAD_BIT(m, 5) | \
                   SPREAD_BIT(m, 6) | SPREAD_BIT(m, 7) | SPREAD_BIT(m, 8))
#define LOCKED(s) SPREAD(MATCHED(s))

static const uint32_t LOCKED_MASK[512] = {T512(LOCKED, 0)};

/* The cells of a shape's segments. */
static const uint32_t SEGMENT_CELLS[512] = {T512(SPREAD, 0)};

/* How many permutations fit in a shape. */
#define NPERMS(s) (FITS(s, 0x111) + FITS(s, 0x0A1) + FITS(s, 0x10A) + \
                   FITS(s, 0x062) + FITS(s, 0x08C) + FITS(s, 0x054))
static const uint8_t PERMUTATIONS[512] = {T512(NPERMS, 0)};

/* The segments every permutation inside a shape uses (0 when none fits). */
#define AND_IF(s, p) (FITS(s, p) ? (p) : 0x1FF)
#define FORCED(s) (NPERMS(s) ? (AND_IF(s, 0x111) & AND_IF(s, 0x0A1) & AND_IF(s, 0x10A) & \
                               AND_IF(s, 0x062) & AND_IF(s, 0x08C) & AND_IF(s, 0x054)) : 0)
static const uint16_t FORCED_SEGMENTS[512] = {T512(FORCED, 0)};

/* The segments of the first permutation inside a shape that not every
   permutation uses: where a guess splits the permutations. */
#define FIRST(s) (FITS(s, 0x111) ? 0x111 : FITS(s, 0x0A1) ? 0x0A1 : \
                  FITS(s, 0x10A) ? 0x10A : FITS(s, 0x062) ? 0x062 : \
                  FITS(s, 0x08C) ? 0x08C : FITS(s, 0x054) ? 0x054 : 0)
#define SPLIT(s) (FIRST(s) & ~FORCED(s))
static const uint16_t SPLIT_SEGMENTS[512] = {T512(SPLIT, 0)};

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
#define STACK_FORCED(s) TO_STACK(FORCED(s))

static const uint32_t STACK_KEEP[512] = {T512(STACK_MATCHED, 0)};
static const uint32_t STACK_FORCED_MASK[512] = {T512(STACK_FORCED, 0)};

#define BAND_ROW 0x1FFu       /* row 0 of a band */
#define BAND_COL 0x40201u     /* column 0 of a band, all three rows */
#define BAND_BOX 0x1C0E07u    /* box 0 of a band */
#define ALL_CELLS 0x7FFFFFFu  /* a whole band */
#define MAX_DEPTH 82          /* each guess decides something: at most 81 */

/* ---- The search state ---- */

typedef struct {
    uint32_t cand[27];    /* [9*band + digit]: cells open to that digit;
                             a placed digit keeps its own cell */
    uint32_t unsolved[3]; /* per band: cells not yet placed */
    uint32_t band_dirty;  /* bit 9*band + digit: word changed, band update due */
    uint32_t stack_dirty; /* bit digit: the digit's stack update is due */
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

/* The 9-bit block of stack s in a word of band-by-column bits. */
static uint32_t stack_block(uint32_t cols, int s)
{
    uint32_t x = (cols >> (3 * s)) & BAND_BOX;
    return (x | x >> 6 | x >> 12) & 0x1FFu;
}

/* Per digit, the columns open to it in each band: bit 9*band + column. */
static uint32_t band_columns(const grid_t *g, int d)
{
    return columns_of(g->cand[d]) | columns_of(g->cand[9 + d]) << 9 |
           columns_of(g->cand[18 + d]) << 18;
}

/* Clears `mask` from word i; returns word i's dirty bit if that changed it. */
static inline uint32_t clear_bits(grid_t *g, int i, uint32_t mask)
{
    uint32_t old = g->cand[i];
    g->cand[i] = old & ~mask;
    return (uint32_t)((old & mask) != 0) << i;
}

static inline void mark_dirty(grid_t *g, uint32_t words)
{
    g->band_dirty |= words;
    g->stack_dirty |= (words | words >> 9 | words >> 18) & 0x1FFu;
}

/*
 * Places digit d (0-8) at `cells` of band b: cells still open to d, not
 * placed yet, and no two of them in one row, column or box. Branch-free:
 * clears the cells from every digit and the columns from every band of d,
 * then rewrites d's own word.
 */
static void place_cells(grid_t *g, int d, int b, uint32_t cells)
{
    uint32_t *band = &g->cand[9 * b];
    uint32_t cols = columns_of(cells) * BAND_COL;
    uint32_t old = band[d];
    uint32_t mine = (old & ~(rows_of(cells) | cols | boxes_of(cells))) | cells;
    uint32_t changed = 0;
    for (int k = 0; k < 9; k++) {
        uint32_t w = band[k];
        band[k] = w & ~cells;
        changed |= (uint32_t)((w & cells) != 0) << k;
    }
    changed = (changed & ~(1u << d)) | (uint32_t)(mine != old) << d;
    band[d] = mine;
    changed <<= 9 * b;
    for (int o = d; o < 27; o += 9)
        if (o != 9 * b + d)
            changed |= clear_bits(g, o, cols);
    g->unsolved[b] &= ~cells;
    mark_dirty(g, changed);
}

/* Places digit d at one cell, checking it is still open. 0 on a clash. */
static int place_one(grid_t *g, int d, int b, uint32_t bit)
{
    if (!(g->cand[9 * b + d] & bit & g->unsolved[b]))
        return 0;
    place_cells(g, d, b, bit);
    return 1;
}

/*
 * Band update of word 9*b + d: keep the segments that fit a permutation
 * (locked candidates in the band), then place hidden singles of its rows
 * (and so of its boxes). Returns 0 on a contradiction.
 */
static int update_band(grid_t *g, int b, int d)
{
    uint32_t old = g->cand[9 * b + d];
    uint32_t w = old & LOCKED_MASK[shape_of(old)];
    if (!w)
        return 0; /* some row or box has no place for the digit */
    if (w != old) {
        g->cand[9 * b + d] = w;
        g->stack_dirty |= 1u << d;
    }
    /* A placed digit is alone in its row too, but no longer unsolved. */
    uint32_t singles = (lone_cell(w, 0) | lone_cell(w, 1) | lone_cell(w, 2)) &
                       g->unsolved[b];
    /* The permutation rule put these in distinct boxes, so columns too. */
    if (singles)
        place_cells(g, d, b, singles);
    return 1;
}

/*
 * Stack update of digit d: the permutation rule between bands and columns
 * in each stack (locked candidates along columns), then hidden singles in
 * columns. Returns 0 on a contradiction.
 */
static int update_stacks(grid_t *g, int d)
{
    uint32_t cols = band_columns(g, d);
    uint32_t k0 = STACK_KEEP[stack_block(cols, 0)];
    uint32_t k1 = STACK_KEEP[stack_block(cols, 1)];
    uint32_t k2 = STACK_KEEP[stack_block(cols, 2)];
    if (!k0 || !k1 || !k2)
        return 0; /* some column or box has no place for the digit */
    uint32_t keep = k0 | k1 << 3 | k2 << 6;
    if (keep != cols) {
        uint32_t changed = 0;
        for (int b = 0; b < 3; b++)
            changed |= clear_bits(g, 9 * b + d,
                                  ~(((keep >> (9 * b)) & BAND_ROW) * BAND_COL));
        g->band_dirty |= changed; /* its stack update is this one */
    }
    /* A column open in one band only, in one row there, not yet placed. */
    uint32_t w0 = g->cand[d], w1 = g->cand[9 + d], w2 = g->cand[18 + d];
    uint32_t c0 = keep & BAND_ROW, c1 = (keep >> 9) & BAND_ROW, c2 = keep >> 18;
    uint32_t once = (c0 ^ c1 ^ c2) & ~(c0 & c1 & c2);
    once &= ~(crowded_columns(w0) | crowded_columns(w1) | crowded_columns(w2));
    once &= ~(columns_of(w0 & ~g->unsolved[0]) | columns_of(w1 & ~g->unsolved[1]) |
              columns_of(w2 & ~g->unsolved[2]));
    while (once) {
        uint32_t col_mask = BAND_COL << __builtin_ctz(once);
        once &= once - 1;
        int b = (g->cand[d] & col_mask) ? 0 : (g->cand[9 + d] & col_mask) ? 1 : 2;
        if (!place_one(g, d, b, g->cand[9 * b + d] & col_mask))
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
    const uint32_t *band = &g->cand[9 * b];
    uint32_t seen1 = 0, seen2 = 0; /* cells with >= 1 and >= 2 candidates */
    for (int d = 0; d < 9; d++) {
        seen2 |= seen1 & band[d];
        seen1 |= band[d];
    }
    if (open & ~seen1)
        return -1;
    uint32_t singles = open & ~seen2;
    if (!singles)
        return 0;
    /* One at a time: two singles may want one digit in one row. */
    for (int d = 0; d < 9; d++)
        for (uint32_t m = band[d] & singles; m; m &= m - 1)
            if (!place_one(g, d, b, m & -m))
                return -1;
    return 1;
}

/* Where each digit may go, by segment, at a fixed point of propagation. */
typedef struct {
    uint32_t rows[9]; /* per digit, bit 9*band + 3*row + box: row segments */
    uint32_t cols[9]; /* per digit, bit 9*band + column: column segments */
} segments_t;

/* The segments `must` (bits as in segments_t.rows) hold digit d: the rest of
   their rows and boxes may not. */
static uint32_t keep_in_row_segments(grid_t *g, int d, uint32_t must)
{
    uint32_t changed = 0;
    for (int b = 0; b < 3; b++) {
        uint32_t cells = SEGMENT_CELLS[(must >> (9 * b)) & 0x1FFu];
        if (cells)
            changed |= clear_bits(g, 9 * b + d,
                                  (rows_of(cells) | boxes_of(cells)) & ~cells);
    }
    return changed;
}

/* The same for column segments: the rest of their columns and boxes. */
static uint32_t keep_in_column_segments(grid_t *g, int d, uint32_t must)
{
    uint32_t changed = 0;
    for (int b = 0; b < 3; b++) {
        uint32_t cells = ((must >> (9 * b)) & 0x1FFu) * BAND_COL;
        if (!cells)
            continue;
        changed |= clear_bits(g, 9 * b + d, boxes_of(cells) & ~cells);
        for (int o = 0; o < 3; o++)
            if (o != b)
                changed |= clear_bits(g, 9 * o + d, cells);
    }
    return changed;
}

/* Segments (row or column) of digit d where it may not go. */
static uint32_t keep_out_of_segments(grid_t *g, int d, uint32_t rows, uint32_t cols)
{
    uint32_t changed = 0;
    for (int b = 0; b < 3; b++)
        changed |= clear_bits(g, 9 * b + d,
                              SEGMENT_CELLS[(rows >> (9 * b)) & 0x1FFu] |
                              ((cols >> (9 * b)) & 0x1FFu) * BAND_COL);
    return changed;
}

/*
 * Triads, over row and column segments alike. Fills `seg` as it finds
 * them. Returns -1 on a contradiction, 1 when a candidate was removed.
 */
static int triads(grid_t *g, segments_t *seg)
{
    uint32_t forced_rows[9], forced_cols[9];
    /* Segments where >= 1, 2, 3, 4 digits may (r, c) or must (fr, fc) go. */
    uint32_t r1 = 0, r2 = 0, r3 = 0, r4 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    uint32_t fr1 = 0, fr2 = 0, fr3 = 0, fr4 = 0, fc1 = 0, fc2 = 0, fc3 = 0, fc4 = 0;
    for (int d = 0; d < 9; d++) {
        uint32_t s0 = shape_of(g->cand[d]), s1 = shape_of(g->cand[9 + d]),
                 s2 = shape_of(g->cand[18 + d]);
        uint32_t x = s0 | s1 << 9 | s2 << 18;
        uint32_t y = band_columns(g, d);
        uint32_t fx = FORCED_SEGMENTS[s0] | (uint32_t)FORCED_SEGMENTS[s1] << 9 |
                      (uint32_t)FORCED_SEGMENTS[s2] << 18;
        uint32_t fy = STACK_FORCED_MASK[stack_block(y, 0)] |
                      STACK_FORCED_MASK[stack_block(y, 1)] << 3 |
                      STACK_FORCED_MASK[stack_block(y, 2)] << 6;
        seg->rows[d] = x;
        seg->cols[d] = y;
        forced_rows[d] = fx;
        forced_cols[d] = fy;
        r4 |= r3 & x; r3 |= r2 & x; r2 |= r1 & x; r1 |= x;
        c4 |= c3 & y; c3 |= c2 & y; c2 |= c1 & y; c1 |= y;
        fr4 |= fr3 & fx; fr3 |= fr2 & fx; fr2 |= fr1 & fx; fr1 |= fx;
        fc4 |= fc3 & fy; fc3 |= fc2 & fy; fc2 |= fc1 & fy; fc1 |= fy;
    }
    if ((r3 & c3) != ALL_CELLS || fr4 || fc4)
        return -1; /* a segment short of three values, or with four forced */
    uint32_t only_rows = r3 & ~r4, only_cols = c3 & ~c4; /* exactly three may */
    if (!(only_rows | only_cols | fr3 | fc3))
        return 0;
    uint32_t changed = 0;
    for (int d = 0; d < 9; d++) {
        uint32_t x = seg->rows[d], y = seg->cols[d];
        uint32_t must_rows = x & only_rows & ~forced_rows[d];
        uint32_t must_cols = y & only_cols & ~forced_cols[d];
        uint32_t out_rows = x & fr3 & ~forced_rows[d];
        uint32_t out_cols = y & fc3 & ~forced_cols[d];
        if (must_rows)
            changed |= keep_in_row_segments(g, d, must_rows);
        if (must_cols)
            changed |= keep_in_column_segments(g, d, must_cols);
        if (out_rows | out_cols)
            changed |= keep_out_of_segments(g, d, out_rows, out_cols);
    }
    mark_dirty(g, changed);
    return changed != 0;
}

/*
 * Runs all deductions to a fixed point, cheapest first: band updates, then
 * stack updates, then naked singles, then triads. Returns 0 on a
 * contradiction; on success `seg` holds the segments at the fixed point.
 */
static int propagate(grid_t *g, segments_t *seg)
{
    for (;;) {
        if (g->band_dirty) {
            int i = __builtin_ctz(g->band_dirty);
            int b = (i >= 9) + (i >= 18);
            g->band_dirty &= g->band_dirty - 1;
            if (!update_band(g, b, i - 9 * b))
                return 0;
            continue;
        }
        if (g->stack_dirty) {
            int d = __builtin_ctz(g->stack_dirty);
            g->stack_dirty &= g->stack_dirty - 1;
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
        if (placed)
            continue;
        int t = triads(g, seg);
        if (t <= 0)
            return t == 0;
    }
}

/* ---- Guessing ---- */

typedef struct {
    int digit;
    uint32_t take[3]; /* by band: what the copy clears from the digit */
    uint32_t drop[3]; /* and what the state itself clears */
} guess_t;

/* Permutations left to all digits in band b, or in stack s. */
static int band_permutations(const segments_t *seg, int b)
{
    int total = 0;
    for (int d = 0; d < 9; d++)
        total += PERMUTATIONS[(seg->rows[d] >> (9 * b)) & 0x1FFu];
    return total;
}

static int stack_permutations(const segments_t *seg, int s)
{
    int total = 0;
    for (int d = 0; d < 9; d++)
        total += PERMUTATIONS[stack_block(seg->cols[d], s)];
    return total;
}

/*
 * The guess of a propagated, unsolved state (see the top of the file).
 * Every digit has at least one permutation left in every band and stack,
 * so the totals are at least 9; 9 everywhere would have placed every digit,
 * so some band or stack is above 9 and in it some digit has two or more.
 * Returns 0 if none is (it cannot be: then the state counts as a dead end).
 */
static int choose_guess(const segments_t *seg, guess_t *guess)
{
    int best = 0, best_total = 1000;
    for (int k = 0; k < 6; k++) {
        int total = k < 3 ? band_permutations(seg, k) : stack_permutations(seg, k - 3);
        if (total > 9 && total < best_total) {
            best_total = total;
            best = k;
        }
    }
    *guess = (guess_t){0, {0, 0, 0}, {0, 0, 0}};
    int fewest = 7;
    uint32_t shape = 0;
    for (int d = 0; d < 9; d++) {
        uint32_t s = best < 3 ? (seg->rows[d] >> (9 * best)) & 0x1FFu
                              : stack_block(seg->cols[d], best - 3);
        int n = PERMUTATIONS[s];
        if (n >= 2 && n < fewest) {
            fewest = n;
            guess->digit = d;
            shape = s;
        }
    }
    if (!SPLIT_SEGMENTS[shape])
        return 0;
    int k = __builtin_ctz(SPLIT_SEGMENTS[shape]);
    if (best < 3) {
        uint32_t cells = 7u << (9 * (k / 3) + 3 * (k % 3));
        guess->take[best] = (rows_of(cells) | boxes_of(cells)) & ~cells;
        guess->drop[best] = cells;
    } else {
        int b = k / 3;
        uint32_t cells = BAND_COL << (3 * (best - 3) + k % 3);
        for (int o = 0; o < 3; o++)
            guess->take[o] = cells;
        guess->take[b] = boxes_of(cells) & ~cells;
        guess->drop[b] = cells;
    }
    return 1;
}

/* ---- Search ---- */

typedef struct {
    uint64_t limit, max_guesses;
    uint64_t solutions, guesses;
    int capped;
    uint8_t *first_solution;
} search_t;

static void write_solution(const grid_t *g, uint8_t out[81])
{
    for (int i = 0; i < 27; i++) {
        int b = i / 9, d = i % 9;
        for (uint32_t m = g->cand[i]; m; m &= m - 1)
            out[27 * b + __builtin_ctz(m)] = (uint8_t)(d + 1);
    }
}

static int solved(const grid_t *g)
{
    return (g->unsolved[0] | g->unsolved[1] | g->unsolved[2]) == 0;
}

/* Clears the guess's masks from one side; returns the words it changed. */
static uint32_t apply(grid_t *g, int d, const uint32_t masks[3])
{
    return clear_bits(g, d, masks[0]) | clear_bits(g, 9 + d, masks[1]) |
           clear_bits(g, 18 + d, masks[2]);
}

/*
 * Depth-first search with an explicit stack of states. stack[sp] is the node
 * being worked on; a guess pushes a copy that takes one branch while the
 * parent takes the other, so popping back resumes the parent's branch.
 */
static void run_search(search_t *s, const grid_t *start)
{
    grid_t stack[MAX_DEPTH];
    segments_t seg;
    int sp = 0;
    stack[0] = *start;
    while (sp >= 0) {
        grid_t *g = &stack[sp];
        if (!propagate(g, &seg)) {
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
        if (s->max_guesses && s->guesses >= s->max_guesses) {
            s->capped = 1;
            return;
        }
        guess_t guess;
        if (!choose_guess(&seg, &guess)) {
            sp--;
            continue;
        }
        s->guesses++;
        grid_t *child = &stack[sp + 1];
        *child = *g;
        mark_dirty(g, apply(g, guess.digit, guess.drop));
        mark_dirty(child, apply(child, guess.digit, guess.take));
        sp++;
    }
}

/* ---- Entry points ---- */

/* Sets up the state from the givens. Returns 0 on a byte > 9 or a clash. */
static int load(grid_t *g, const uint8_t cells[81], int *distinct_digits)
{
    unsigned digits_seen = 0;
    for (int i = 0; i < 27; i++)
        g->cand[i] = ALL_CELLS;
    for (int b = 0; b < 3; b++)
        g->unsolved[b] = ALL_CELLS;
    g->band_dirty = ALL_CELLS;
    g->stack_dirty = 0x1FFu;
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
                  first_solution};
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

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
 *  - Triads: a segment holds exactly three values, so where three must go
 *    (every permutation left to them uses the segment), no other may.
 *  Placing a digit clears its row, box and column in its band, its column
 *  in the other two bands, and the cell from the other digits; every word
 *  that changed is queued for the updates above.
 * When propagation stalls the search guesses. It takes the band or stack
 * whose digits have the fewest segments left in total (the fewer segments,
 * the fewer permutations), and in it the digit with the fewest (more than
 * one permutation's three): a copy of the state puts the digit in one
 * segment of its first permutation, the state itself keeps it out of that
 * segment and resumes after the copy's subtree is done. Each such copy is
 * one guess, the unit of max_guesses; the other branch is not counted.
 * (Guessing on bands and segments rather than on cells took the guesses a
 * puzzle of forum_hardest_1905_11plus, first solution, from 53 to 44, and
 * the triads to 35.)
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

/* The segments every permutation inside a shape uses (0x1FF when none fits;
   a shape with a guess to make has two or more). */
#define AND_IF(s, p) (FITS(s, p) ? (p) : 0x1FF)
#define FORCED(s) (AND_IF(s, 0x111) & AND_IF(s, 0x0A1) & AND_IF(s, 0x10A) & \
                   AND_IF(s, 0x062) & AND_IF(s, 0x08C) & AND_IF(s, 0x054))

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

static const uint32_t STACK_KEEP[512] = {T512(STACK_MATCHED, 0)};

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

/* Clears `cells` from the nine words of a band; returns a bit per word
   that changed. */
static inline uint32_t clear_in_band(uint32_t band[9], uint32_t cells)
{
    uint32_t changed = 0;
    for (int k = 0; k < 9; k++) {
        uint32_t w = band[k];
        band[k] = w & ~cells;
        changed |= (uint32_t)((w & cells) != 0) << k;
    }
    return changed;
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
    /* The digit's own word is rewritten last, so clearing it here is free. */
    uint32_t changed = clear_bits(g, d, cols) | clear_bits(g, 9 + d, cols) |
                       clear_bits(g, 18 + d, cols);
    uint32_t in_band = clear_in_band(band, cells);
    in_band = (in_band & ~(1u << d)) | (uint32_t)(mine != old) << d;
    band[d] = mine;
    changed = (changed & ~(0x1FFu << 9 * b)) | in_band << 9 * b;
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
    g->cand[9 * b + d] = w;
    g->stack_dirty |= (uint32_t)(w != old) << d;
    /* Every row kept a cell, so taking one from each borrows within the row;
       the rows that had one cell are those left empty. A placed digit is
       alone in its row too, but no longer unsolved. */
    uint32_t singles = w & ~rows_of(w & (w - 0x40201u)) & g->unsolved[b];
    /* The permutation rule put these in distinct boxes, so columns too. */
    if (singles)
        place_cells(g, d, b, singles);
    return 1;
}

/*
 * Stack update of digit d: the permutation rule between bands and columns
 * in each stack (locked candidates along columns). Returns 0 on a
 * contradiction. A column left with one cell needs no test of its own: the
 * rule leaves the digit that cell in its box, and the band update finds it.
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

/*
 * Triads. At a fixed point of the updates above, every segment left to a
 * digit in a band (or stack) belongs to some permutation, so the digit must
 * go to a segment exactly when the segment is the only one left in its row
 * or its box (column or box, for a column segment): were there another in
 * each, the permutation through the other in its row would avoid it. Where
 * three digits must go to one segment, no other may. Segments are bits of one word per digit:
 * row segments at 9*row + 3*box + band, column segments at 9*band + column.
 */
#define ROTATE_9(x) (((x) >> 9) | (((x) << 18) & ALL_CELLS))   /* next row */
#define ROTATE_18(x) (((x) >> 18) | (((x) << 9) & ALL_CELLS))
#define NEXT_BOX(x) ((((x) >> 3) & 0xFC7E3Fu) | (((x) << 6) & 0x70381C0u))
#define BOX_AFTER(x) ((((x) >> 6) & 0x1C0E07u) | (((x) << 3) & 0x7E3F1F8u))
#define NEXT_COLUMN(x) ((((x) >> 1) & 0x36DB6DBu) | (((x) << 2) & 0x4924924u))
#define COLUMN_AFTER(x) ((((x) >> 2) & 0x1249249u) | (((x) << 1) & 0x6DB6DB6u))

/* A bit at the first cell of every segment of a band word that holds a cell. */
static uint32_t row_segments(uint32_t band)
{
    return (band | band >> 1 | band >> 2) & 0x1249249u;
}

/* The row segments the digit must take: alone in their row or their box. */
static uint32_t forced_rows(uint32_t rows)
{
    return rows & ~((NEXT_BOX(rows) | BOX_AFTER(rows)) &
                    (ROTATE_9(rows) | ROTATE_18(rows)));
}

/* The same for column segments: alone in their column or their box. */
static uint32_t forced_columns(uint32_t cols)
{
    return cols & ~((NEXT_COLUMN(cols) | COLUMN_AFTER(cols)) &
                    (ROTATE_9(cols) | ROTATE_18(cols)));
}

/* Where each digit may go, by segment (bits as above). */
typedef struct {
    uint32_t rows[9], cols[9];
} segments_t;

/* Returns -1 on a contradiction, 1 when a candidate was removed, else 0,
   and then `seg` holds the segments. */
static int triads(grid_t *g, segments_t *seg)
{
    uint32_t *rows = seg->rows, *cols = seg->cols, must_rows[9], must_cols[9];
    /* Segments where >= 1, 2, 3, 4 digits must go. */
    uint32_t r1 = 0, r2 = 0, r3 = 0, r4 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    for (int d = 0; d < 9; d++) {
        uint32_t w0 = g->cand[d], w1 = g->cand[9 + d], w2 = g->cand[18 + d];
        uint32_t x = row_segments(w0) | row_segments(w1) << 1 | row_segments(w2) << 2;
        uint32_t y = columns_of(w0) | columns_of(w1) << 9 | columns_of(w2) << 18;
        uint32_t fx = forced_rows(x), fy = forced_columns(y);
        rows[d] = x;
        cols[d] = y;
        must_rows[d] = fx;
        must_cols[d] = fy;
        r4 |= r3 & fx; r3 |= r2 & fx; r2 |= r1 & fx; r1 |= fx;
        c4 |= c3 & fy; c3 |= c2 & fy; c2 |= c1 & fy; c1 |= fy;
    }
    if (r4 | c4)
        return -1; /* four digits must go to one segment */
    if (!(r3 | c3))
        return 0;
    uint32_t changed = 0;
    for (int d = 0; d < 9; d++) {
        uint32_t out_rows = rows[d] & r3 & ~must_rows[d];
        uint32_t out_cols = cols[d] & c3 & ~must_cols[d];
        if (out_rows | out_cols)
            for (int b = 0; b < 3; b++)
                changed |= clear_bits(g, 9 * b + d,
                                      ((out_rows >> b) & 0x1249249u) * 7u |
                                      ((out_cols >> (9 * b)) & BAND_ROW) * BAND_COL);
    }
    mark_dirty(g, changed);
    return changed != 0;
}

/*
 * Runs all deductions to a fixed point, cheapest first: band updates, then
 * stack updates, then naked singles, then triads. Returns 0 on a
 * contradiction.
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

/* The segments of bands 0-2 and stacks 3-5 in segments_t's words. */
static const uint32_t SEGMENTS_OF[6] = {0x1249249u, 0x2492492u, 0x4924924u,
                                        0x1C0E07u, 0xE07038u, 0x70381C0u};

/*
 * The guess of a propagated, unsolved state (see the top of the file).
 * Every digit has at least one permutation left in every band and stack,
 * so the totals are at least 9; 9 everywhere would have placed every digit,
 * so some band or stack is above 9 and in it some digit has two or more.
 * Returns 0 if none is (it cannot be: then the state counts as a dead end).
 */
static int choose_guess(const grid_t *g, const segments_t *seg, guess_t *guess)
{
    /* A digit's segments in a band are those of its permutations: 3 for
       one, 5 or more for more; fewer segments, fewer permutations. */
    int best = 0, best_total = 1000;
    for (int k = 0; k < 6; k++) {
        const uint32_t *words = k < 3 ? seg->rows : seg->cols;
        int total = 0;
        for (int d = 0; d < 9; d++)
            total += __builtin_popcount(words[d] & SEGMENTS_OF[k]);
        if (total > 27 && total < best_total) {
            best_total = total;
            best = k;
        }
    }
    *guess = (guess_t){0, {0, 0, 0}, {0, 0, 0}};
    int fewest = 10;
    for (int d = 0; d < 9; d++) {
        const uint32_t *words = best < 3 ? seg->rows : seg->cols;
        int n = __builtin_popcount(words[d] & SEGMENTS_OF[best]);
        if (n > 3 && n < fewest) {
            fewest = n;
            guess->digit = d;
        }
    }
    uint32_t shape = best < 3 ? shape_of(g->cand[9 * best + guess->digit])
                              : stack_block(seg->cols[guess->digit], best - 3);
    uint32_t split = SPLIT_SEGMENTS[shape];
    if (!split)
        return 0;
    int k = __builtin_ctz(split);
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
        if ((s->max_guesses && s->guesses >= s->max_guesses) || stop_requested(s)) {
            s->capped = 1;
            return;
        }
        guess_t guess;
        if (!choose_guess(g, &seg, &guess)) {
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

/*
 * Sets up the state from the givens. Returns 0 on a byte > 9 or a clash.
 * The state is the one place_cells leaves after placing every given (it
 * only clears candidates, so the order does not matter): a digit's word in
 * a band keeps its own givens and loses the band's other givens, the rows
 * and boxes of its givens there and the columns of its givens anywhere. A
 * clash is two of a digit in one row, box or column.
 */
static int load(grid_t *g, const uint8_t cells[81], int *distinct_digits)
{
    uint32_t at_value[10][3] = {{0}}, given[3];
    unsigned bad = 0;
    /* Branch-free: blanks (and bytes > 9, then refused) go to value 0. */
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 27; i++) {
            unsigned value = cells[27 * b + i];
            bad |= value > 9;
            at_value[value > 9 ? 0 : value][b] |= 1u << i;
        }
    if (bad)
        return 0;
    uint32_t (*at)[3] = at_value + 1; /* at[d][b]: digit d + 1's givens in band b */
    int distinct = 0;
    for (int b = 0; b < 3; b++)
        given[b] = ALL_CELLS & ~at_value[0][b];
    for (int d = 0; d < 9; d++) {
        distinct += (at[d][0] | at[d][1] | at[d][2]) != 0;
        uint32_t cols = 0;
        int n = 0;
        for (int b = 0; b < 3; b++) {
            uint32_t set = at[d][b];
            int k = __builtin_popcount(set);
            if (__builtin_popcount(rows_of(set)) != 9 * k || __builtin_popcount(boxes_of(set)) != 9 * k)
                return 0;
            cols |= columns_of(set);
            n += k;
        }
        if (__builtin_popcount(cols) != n)
            return 0;
        for (int b = 0; b < 3; b++) {
            uint32_t set = at[d][b];
            g->cand[9 * b + d] = (ALL_CELLS & ~given[b] & ~rows_of(set) & ~boxes_of(set) & ~(cols * BAND_COL)) | set;
        }
    }
    for (int b = 0; b < 3; b++)
        g->unsolved[b] = ALL_CELLS & ~given[b];
    g->band_dirty = ALL_CELLS;
    g->stack_dirty = 0x1FFu;
    *distinct_digits = distinct;
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

int fp_solvable_without(const uint8_t cells[81], int cell, int digit, uint64_t max_guesses)
{
    grid_t start;
    int distinct = 0;
    if (cell < 0 || cell > 80 || digit < 1 || digit > 9 || cells[cell] == digit || !load(&start, cells, &distinct))
        return 0;
    mark_dirty(&start, clear_bits(&start, 9 * (cell / 27) + digit - 1, 1u << (cell % 27)));
    search_t s = {1, max_guesses, 0, 0, 0, NULL, NULL};
    run_search(&s, &start);
    return s.solutions ? 1 : s.capped ? -1 : 0;
}

int fp_solve(const uint8_t cells[81], uint8_t solution[81])
{
    return fp_count(cells, 1, 0, solution).solutions > 0;
}

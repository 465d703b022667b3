/*
 * fastpath.c: the unwatched solver and counter (contract in fastpath.h).
 *
 * Algorithm. The grid is split into three bands of three rows. For each
 * digit and band a 27-bit mask holds the cells of that band where the digit
 * may still go (bit 9*row + column, row within the band); a placed digit
 * keeps its own bit. All candidates fit in 27 such words, so a search state
 * is about 140 bytes and is copied by value when the search guesses: no undo
 * log, no allocation, a fixed stack of at most 82 states.
 *
 * Propagation, repeated until nothing changes:
 *  - Band update (one digit, one band). In a band a digit fills one cell in
 *    each of the 3 rows and each of the 3 boxes, so the (row, box) pairs it
 *    uses form a permutation. A table keeps only the row/box segments that
 *    belong to some permutation allowed by the non-empty segments: this is
 *    locked candidates (pointing and claiming) within the band, and an empty
 *    result is a contradiction. A row left with one cell is a hidden single.
 *  - Placing a digit clears its row, box and column in its band, its column
 *    in the other two bands, and the other digits from the cell; every word
 *    that changes is marked for a band update.
 *  - Naked singles: bit-parallel counting over the 9 digits finds the cells
 *    with no candidate (contradiction) or one (placed).
 * When propagation stalls the search guesses on a cell with the fewest
 * candidates (two, when there is one): a copy of the state takes the lowest
 * digit, the state itself has that digit removed and resumes after the copy's
 * subtree is done.
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

#define BAND_ROW 0x1FFu       /* row 0 of a band */
#define BAND_COL 0x40201u     /* column 0 of a band, all three rows */
#define BAND_BOX 0x1C0E07u    /* box 0 of a band */
#define MAX_DEPTH 82          /* each guess places a cell: at most 81 */

/* ---- The search state ---- */

typedef struct {
    uint32_t cand[27];     /* [3*digit + band]: cells open to that digit */
    uint32_t unsolved[3];  /* per band: cells not yet placed */
    uint32_t rows_left[3]; /* per band: bit 3*digit + row, digit not placed
                              in that row yet */
    uint32_t dirty;        /* bit 3*digit + band: word changed, update due */
} grid_t;

static uint32_t shape_of(uint32_t band)
{
    return ROW_SEGMENTS[band & BAND_ROW] |
           (uint32_t)ROW_SEGMENTS[(band >> 9) & BAND_ROW] << 3 |
           (uint32_t)ROW_SEGMENTS[band >> 18] << 6;
}

/* Clears `mask` from word i, marking it for an update when that changed. */
static inline void clear_bits(grid_t *g, int i, uint32_t mask)
{
    uint32_t old = g->cand[i];
    g->cand[i] = old & ~mask;
    g->dirty |= (uint32_t)((old & mask) != 0) << i;
}

/*
 * Places digit d (0-8) at the cell `bit` of band b. Returns 0 when the digit
 * is no longer open there (the cell or a peer already took it).
 */
static int place(grid_t *g, int d, int b, uint32_t bit)
{
    int i = 3 * d + b;
    if (!(g->cand[i] & bit))
        return 0;
    int pos = __builtin_ctz(bit), row = pos / 9, col = pos % 9;
    uint32_t col_mask = BAND_COL << col;
    uint32_t peers = (BAND_ROW << (9 * row)) | col_mask |
                     (BAND_BOX << (3 * (col / 3)));
    clear_bits(g, i, peers & ~bit);
    clear_bits(g, 3 * d + (b + 1) % 3, col_mask);
    clear_bits(g, 3 * d + (b + 2) % 3, col_mask);
    for (int other = b; other < 27; other += 3)
        if (other != i)
            clear_bits(g, other, bit);
    g->unsolved[b] &= ~bit;
    g->rows_left[b] &= ~(1u << (3 * d + row));
    return 1;
}

/*
 * Band update for word i: locked candidates inside the band, then hidden
 * singles in its rows. Returns 0 on a contradiction.
 */
static int update_band(grid_t *g, int i)
{
    int d = i / 3, b = i % 3;
    uint32_t band = g->cand[i] & LOCKED_MASK[shape_of(g->cand[i])];
    if (!band)
        return 0; /* some row or box has no place for the digit */
    g->cand[i] = band;
    uint32_t left = (g->rows_left[b] >> (3 * d)) & 7;
    while (left) {
        int row = __builtin_ctz(left);
        left &= left - 1;
        uint32_t cells = (g->cand[i] >> (9 * row)) & BAND_ROW;
        if ((cells & (cells - 1)) == 0 && !place(g, d, b, cells << (9 * row)))
            return 0;
    }
    return 1;
}

/*
 * Naked singles in band b. Returns -1 on a contradiction, else the number of
 * cells placed.
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
    int placed = 0;
    while (singles) {
        uint32_t bit = singles & -singles;
        singles &= singles - 1;
        int i = b;
        while (i < 27 && !(g->cand[i] & bit))
            i += 3;
        if (i >= 27 || !place(g, i / 3, b, bit))
            return -1; /* an earlier single took this cell's last digit */
        placed++;
    }
    return placed;
}

/* Runs all deductions to a fixed point. Returns 0 on a contradiction. */
static int propagate(grid_t *g)
{
    for (;;) {
        while (g->dirty) {
            int i = __builtin_ctz(g->dirty);
            g->dirty &= g->dirty - 1;
            if (!update_band(g, i))
                return 0;
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

/* Picks a cell with the fewest candidates (2 when any has 2) and its lowest
   digit. Only called on a propagated, unsolved state. */
static guess_t choose_guess(const grid_t *g)
{
    guess_t best = {-1, 0, 0};
    int best_count = 10;
    for (int b = 0; b < 3 && best_count > 2; b++) {
        uint32_t open = g->unsolved[b];
        uint32_t s1 = 0, s2 = 0, s3 = 0;
        for (int i = b; i < 27; i += 3) {
            uint32_t c = g->cand[i];
            s3 |= s2 & c;
            s2 |= s1 & c;
            s1 |= c;
        }
        uint32_t pairs = open & ~s3;
        if (pairs) { /* no cell here has 1 candidate after propagation */
            best.band = b;
            best.bit = pairs & -pairs;
            best_count = 2;
            break;
        }
        for (uint32_t m = open; m; m &= m - 1) {
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
    }
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
} search_t;

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
        if (s->max_guesses && s->guesses >= s->max_guesses) {
            s->capped = 1;
            return;
        }
        s->guesses++;
        guess_t guess = choose_guess(g);
        stack[sp + 1] = *g;
        clear_bits(g, 3 * guess.digit + guess.band, guess.bit);
        sp++;
        /* Cannot fail: propagation left the digit open at the cell. */
        place(&stack[sp], guess.digit, guess.band, guess.bit);
    }
}

/* ---- Entry points ---- */

/* Sets up the state from the givens. Returns 0 on a byte > 9 or a clash. */
static int load(grid_t *g, const uint8_t cells[81], int *distinct_digits)
{
    unsigned digits_seen = 0;
    for (int i = 0; i < 27; i++)
        g->cand[i] = 0x7FFFFFFu;
    for (int b = 0; b < 3; b++) {
        g->unsolved[b] = 0x7FFFFFFu;
        g->rows_left[b] = 0x7FFFFFFu;
    }
    g->dirty = 0x7FFFFFFu;
    for (int cell = 0; cell < 81; cell++) {
        int value = cells[cell];
        if (value == 0)
            continue;
        if (value > 9 ||
            !place(g, value - 1, cell / 27, 1u << (cell % 27)))
            return 0;
        digits_seen |= 1u << value;
    }
    *distinct_digits = __builtin_popcount(digits_seen);
    return 1;
}

/* k! for the k digits the givens never use, capped to avoid overflow. */
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

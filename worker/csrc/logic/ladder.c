/*
 * logic.c: the human solver; the contract is in logic.h.
 *
 * The techniques are written from their public definitions (the common
 * vocabulary of Sudoku solving guides); each finder's comment says what it
 * looks for and the order it scans in, which makes its step the same every
 * time. Sets of cells are 128-bit masks (logic_cells), one per digit, so
 * most tests are a few AND/OR operations.
 */
#include "logic.h"
#include "fastpath.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

/* ---- Sets of cells ---- */

typedef logic_cells cells_t;

#define BIT(c) ((cells_t)1 << (c))
#define ROW_SET(r) (((cells_t)0x1FF) << (9 * (r)))
#define COL0 ((((cells_t)1) << 72) | (cells_t)0x8040201008040201ULL)
#define COL_SET(c) (COL0 << (c))
#define BOX_SET(b) (((cells_t)0x1C0E07) << (27 * ((b) / 3) + 3 * ((b) % 3)))
#define BOX_OF(c) (((c) / 27) * 3 + ((c) % 9) / 3)
#define PEER_SET(c) ((ROW_SET((c) / 9) | COL_SET((c) % 9) | BOX_SET(BOX_OF(c))) & ~BIT(c))

static const cells_t UNIT[27] = {
    ROW_SET(0), ROW_SET(1), ROW_SET(2), ROW_SET(3), ROW_SET(4),
    ROW_SET(5), ROW_SET(6), ROW_SET(7), ROW_SET(8),
    COL_SET(0), COL_SET(1), COL_SET(2), COL_SET(3), COL_SET(4),
    COL_SET(5), COL_SET(6), COL_SET(7), COL_SET(8),
    BOX_SET(0), BOX_SET(1), BOX_SET(2), BOX_SET(3), BOX_SET(4),
    BOX_SET(5), BOX_SET(6), BOX_SET(7), BOX_SET(8),
};

#define P3(c) PEER_SET(c), PEER_SET((c) + 1), PEER_SET((c) + 2)
#define P9(c) P3(c), P3((c) + 3), P3((c) + 6)
static const cells_t PEERS[81] = {
    P9(0), P9(9), P9(18), P9(27), P9(36), P9(45), P9(54), P9(63), P9(72),
};
#undef P3
#undef P9

static const cells_t ALL_CELLS = (((cells_t)1) << 81) - 1;

static inline int popcount(cells_t x)
{
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
}

static inline int first_cell(cells_t x)
{
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

#define FOR_CELLS(c, set) \
    for (cells_t _s = (set); _s && ((c) = first_cell(_s), 1); _s &= _s - 1)

#define ALL_DIGITS 0x1FFu
#define ALL_UNITS 0x7FFFFFFu

static inline int bits9(unsigned m) { return __builtin_popcount(m); }
static inline int low_digit(unsigned m) { return __builtin_ctz(m) + 1; }
#define FOR_DIGITS(d, mask) \
    for (unsigned _m = (mask); _m && ((d) = low_digit(_m), 1); _m &= _m - 1)

static inline int row_of(int c) { return c / 9; }
static inline int col_of(int c) { return c % 9; }
static inline int box_of(int c) { return BOX_OF(c); }
static inline int unit_of(int c, int kind) /* kind 0 row, 1 column, 2 box */
{
    return kind == 0 ? row_of(c) : kind == 1 ? 9 + col_of(c) : 18 + box_of(c);
}

/* The i-th cell (0..8) of unit u, in reading order. */
static inline int unit_cell(int u, int i)
{
    if (u < 9)
        return u * 9 + i;
    if (u < 18)
        return i * 9 + (u - 9);
    int b = u - 18;
    return ((b / 3) * 3 + i / 3) * 9 + (b % 3) * 3 + i % 3;
}

/* The cells a set of cells all see (cells outside the set). */
static cells_t common_peers(cells_t set)
{
    cells_t seen = ALL_CELLS;
    int c;
    FOR_CELLS(c, set)
        seen &= PEERS[c];
    return seen & ~set;
}

static inline int sees(int a, int b) { return (PEERS[a] >> b) & 1; }

/* ---- The board ---- */

int logic_init(logic_board *b, const uint8_t cells[81], const uint16_t *pencil)
{
    memset(b, 0, sizeof *b);
    for (int c = 0; c < 81; c++)
        if (cells[c] > 9)
            return LOGIC_EINVAL;
    uint16_t held[27] = {0};
    for (int c = 0; c < 81; c++) {
        if (!cells[c])
            continue;
        uint16_t bit = (uint16_t)(1u << (cells[c] - 1));
        for (int k = 0; k < 3; k++) {
            int u = unit_of(c, k);
            if (held[u] & bit)
                b->broken = 1;
            held[u] |= bit;
        }
        b->cells[c] = cells[c];
    }
    for (int c = 0; c < 81; c++) {
        if (cells[c])
            continue;
        b->blanks++;
        uint16_t m = 0x1FF & ~(held[row_of(c)] | held[9 + col_of(c)] | held[18 + box_of(c)]);
        if (pencil)
            m &= pencil[c] & 0x1FF;
        if (!m)
            b->broken = 1;
        b->cand[c] = m;
        int d;
        FOR_DIGITS(d, m)
            b->where[d - 1] |= BIT(c);
    }
    return b->broken ? LOGIC_CONTRADICTION : LOGIC_OK;
}

static void place(logic_board *b, int c, int d)
{
    int e;
    FOR_DIGITS(e, b->cand[c])
        b->where[e - 1] &= ~BIT(c);
    b->cand[c] = 0;
    b->cells[c] = (uint8_t)d;
    b->blanks--;
    cells_t hit = b->where[d - 1] & PEERS[c];
    int p;
    FOR_CELLS(p, hit) {
        b->cand[p] &= (uint16_t)~(1u << (d - 1));
        if (!b->cand[p])
            b->broken = 1;
    }
    b->where[d - 1] &= ~hit;
}

void logic_apply(logic_board *b, const logic_step *s)
{
    if (s->cell >= 0 && s->cell < 81 && s->digit >= 1 && s->digit <= 9) {
        if (b->cells[s->cell] || !(b->cand[s->cell] & (1u << (s->digit - 1))))
            b->broken = 1;
        else
            place(b, s->cell, s->digit);
        return;
    }
    for (int c = 0; c < 81; c++) {
        uint16_t m = s->eliminations[c] & b->cand[c];
        if (!m)
            continue;
        b->cand[c] &= (uint16_t)~m;
        if (!b->cand[c])
            b->broken = 1;
        int d;
        FOR_DIGITS(d, m)
            b->where[d - 1] &= ~BIT(c);
    }
}

/* ---- Building a step ---- */

static void step_start(logic_step *s, logic_technique t)
{
    memset(s, 0, sizeof *s);
    s->technique = t;
    s->cell = -1;
}

static void step_place(logic_step *s, int c, int d)
{
    s->cell = c;
    s->digit = d;
}

/* Eliminates digit d from `set`; returns how many candidates that was. */
static int step_eliminate(logic_step *s, const logic_board *b, cells_t set, int d)
{
    set &= b->where[d - 1];
    int c, n = 0;
    FOR_CELLS(c, set) {
        if (!(s->eliminations[c] & (1u << (d - 1)))) {
            s->eliminations[c] |= (uint16_t)(1u << (d - 1));
            n++;
        }
    }
    s->n_eliminations += n;
    return n;
}

static void step_eliminate_mask(logic_step *s, const logic_board *b, int c, unsigned mask)
{
    mask &= b->cand[c] & ~s->eliminations[c];
    s->eliminations[c] |= (uint16_t)mask;
    s->n_eliminations += bits9(mask);
}

static void step_mark(logic_step *s, int group, cells_t set, unsigned mask)
{
    int c;
    FOR_CELLS(c, set)
        s->pattern[group][c] |= (uint16_t)mask;
}

/* Marks the candidates of digit d that the board has in `set`. */
static void step_mark_digit(logic_step *s, const logic_board *b, int group, cells_t set, int d)
{
    step_mark(s, group, set & b->where[d - 1], 1u << (d - 1));
}

static void step_unit(logic_step *s, int u)
{
    if (s->n_units < LOGIC_MAX_UNITS)
        s->units[s->n_units++] = (uint8_t)u;
}

static void step_node(logic_step *s, int c, int d, int strong, int on)
{
    if (s->n_chain >= LOGIC_MAX_CHAIN)
        return;
    logic_node *n = &s->chain[s->n_chain++];
    n->cell = (uint8_t)c;
    n->digit = (uint8_t)d;
    n->strong = (uint8_t)strong;
    n->on = (uint8_t)on;
    n->branch = 0;
}

static cells_t blank_cells(const logic_board *b)
{
    cells_t all = 0;
    for (int d = 0; d < 9; d++)
        all |= b->where[d];
    return all;
}

/* Cells with exactly two candidates. */
static cells_t bivalue_cells(const logic_board *b)
{
    cells_t one = 0, two = 0, more = 0;
    for (int d = 0; d < 9; d++) {
        more |= two & b->where[d];
        two |= one & b->where[d];
        one |= b->where[d];
    }
    return two & ~more;
}

/* The order units are scanned in where a person scans boxes first. */
static const uint8_t BOX_ROW_COL[27] = {
    18, 19, 20, 21, 22, 23, 24, 25, 26, 0, 1, 2, 3, 4, 5, 6, 7, 8,
    9, 10, 11, 12, 13, 14, 15, 16, 17,
};

/* ---- Singles ---- */

/* The last blank of a unit; units box, row, column. */
static int find_full_house(const logic_board *b, logic_step *s)
{
    cells_t blank = blank_cells(b);
    for (int i = 0; i < 27; i++) {
        int u = BOX_ROW_COL[i];
        cells_t x = blank & UNIT[u];
        if (x && !(x & (x - 1))) {
            int c = first_cell(x);
            if (bits9(b->cand[c]) != 1)
                continue;
            step_start(s, LOGIC_FULL_HOUSE);
            int d = low_digit(b->cand[c]);
            step_place(s, c, d);
            step_unit(s, u);
            s->pattern[0][c] = b->cand[c];
            s->digits = b->cand[c];
            return 1;
        }
    }
    return 0;
}

/* A cell with one candidate; the lowest cell. */
static int find_naked_single(const logic_board *b, logic_step *s)
{
    for (int c = 0; c < 81; c++) {
        if (b->cand[c] && bits9(b->cand[c]) == 1) {
            step_start(s, LOGIC_NAKED_SINGLE);
            step_place(s, c, low_digit(b->cand[c]));
            s->pattern[0][c] = b->cand[c];
            s->digits = b->cand[c];
            return 1;
        }
    }
    return 0;
}

/* A digit with one place in a unit; units box, row, column, digits up. */
static int find_hidden_single(const logic_board *b, logic_step *s)
{
    for (int i = 0; i < 27; i++) {
        int u = BOX_ROW_COL[i];
        for (int d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (x && !(x & (x - 1))) {
                int c = first_cell(x);
                step_start(s, LOGIC_HIDDEN_SINGLE);
                step_place(s, c, d);
                step_unit(s, u);
                s->pattern[0][c] = (uint16_t)(1u << (d - 1));
                s->digits = (uint16_t)(1u << (d - 1));
                return 1;
            }
        }
    }
    return 0;
}

/* ---- Locked candidates ---- */

/* Pointing: a box's digit all in one line goes from the rest of the line.
 * Boxes 1-9, digits up, row before column. */
static int find_pointing(const logic_board *b, logic_step *s)
{
    for (int box = 0; box < 9; box++) {
        for (int d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[18 + box];
            if (popcount(x) < 2)
                continue;
            int c = first_cell(x);
            for (int k = 0; k < 2; k++) {
                int line = unit_of(c, k);
                if (x & ~UNIT[line])
                    continue;
                cells_t out = b->where[d - 1] & UNIT[line] & ~UNIT[18 + box];
                if (!out)
                    continue;
                step_start(s, LOGIC_POINTING);
                step_eliminate(s, b, out, d);
                step_mark_digit(s, b, 0, x, d);
                step_unit(s, 18 + box);
                step_unit(s, line);
                s->digits = (uint16_t)(1u << (d - 1));
                return 1;
            }
        }
    }
    return 0;
}

/* Claiming (box-line reduction): a line's digit all in one box goes from
 * the rest of the box. Rows 1-9 then columns 1-9, digits up. */
static int find_claiming(const logic_board *b, logic_step *s)
{
    for (int line = 0; line < 18; line++) {
        for (int d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[line];
            if (popcount(x) < 2)
                continue;
            int box = 18 + box_of(first_cell(x));
            if (x & ~UNIT[box])
                continue;
            cells_t out = b->where[d - 1] & UNIT[box] & ~UNIT[line];
            if (!out)
                continue;
            step_start(s, LOGIC_CLAIMING);
            step_eliminate(s, b, out, d);
            step_mark_digit(s, b, 0, x, d);
            step_unit(s, line);
            step_unit(s, box);
            s->digits = (uint16_t)(1u << (d - 1));
            return 1;
        }
    }
    return 0;
}

/* ---- Subsets ---- */

/* Next k-combination of 0..n-1 in lexicographic order; 0 when done. */
static int next_combination(int *idx, int k, int n)
{
    int i = k - 1;
    while (i >= 0 && idx[i] == n - k + i)
        i--;
    if (i < 0)
        return 0;
    idx[i]++;
    for (int j = i + 1; j < k; j++)
        idx[j] = idx[j - 1] + 1;
    return 1;
}

static void first_combination(int *idx, int k)
{
    for (int i = 0; i < k; i++)
        idx[i] = i;
}

/* Depth-first over combinations in lexicographic order, pruned as soon as
 * the union of masks grows past n: calls `found` on each n-combination whose
 * masks' union has exactly n bits, until it returns 1. */
typedef struct {
    const unsigned *mask; /* one per item */
    int m, n;
    int chosen[4];
    int (*found)(const void *ctx, const int *chosen, unsigned both, logic_step *s);
    const void *ctx;
    logic_step *s;
} subset_search;

static int subset_dfs(subset_search *q, int start, int depth, unsigned both)
{
    if (depth == q->n)
        return q->found(q->ctx, q->chosen, both, q->s);
    for (int i = start; i <= q->m - (q->n - depth); i++) {
        unsigned next = both | q->mask[i];
        if (bits9(next) > q->n)
            continue;
        q->chosen[depth] = i;
        if (subset_dfs(q, i + 1, depth + 1, next))
            return 1;
    }
    return 0;
}

typedef struct {
    const logic_board *b;
    int u;
    int cells[9];   /* items: cells (naked) or digits (hidden) */
    logic_technique t;
} subset_ctx;

static int naked_found(const void *p, const int *chosen, unsigned digits, logic_step *s)
{
    const subset_ctx *x = p;
    const logic_board *b = x->b;
    int n = bits9(digits);
    cells_t set = 0;
    for (int j = 0; j < n; j++)
        set |= BIT(x->cells[chosen[j]]);
    cells_t rest = UNIT[x->u] & ~set;
    int any = 0, d, c;
    FOR_DIGITS(d, digits)
        any |= (b->where[d - 1] & rest) != 0;
    if (!any)
        return 0;
    step_start(s, x->t);
    FOR_DIGITS(d, digits)
        step_eliminate(s, b, rest, d);
    FOR_CELLS(c, set)
        s->pattern[0][c] = b->cand[c];
    step_unit(s, x->u);
    s->digits = (uint16_t)digits;
    return 1;
}

/* Naked subset of size n: n cells of a unit whose candidates together are n
 * digits; those digits go from the unit's other cells. Units box, row,
 * column; cells in reading order, combinations in lexicographic order. */
static int find_naked_subset(const logic_board *b, int n, logic_technique t, unsigned units, logic_step *s)
{
    subset_ctx x = {b, 0, {0}, t};
    unsigned mask[9];
    subset_search q = {mask, 0, n, {0}, naked_found, &x, s};
    for (int i = 0; i < 27; i++) {
        x.u = BOX_ROW_COL[i];
        if (!(units >> x.u & 1))
            continue;
        q.m = 0;
        for (int j = 0; j < 9; j++) {
            int c = unit_cell(x.u, j);
            int k = bits9(b->cand[c]);
            if (k >= 2 && k <= n) {
                x.cells[q.m] = c;
                mask[q.m++] = b->cand[c];
            }
        }
        if (q.m >= n && subset_dfs(&q, 0, 0, 0))
            return 1;
    }
    return 0;
}

static int hidden_found(const void *p, const int *chosen, unsigned places, logic_step *s)
{
    const subset_ctx *x = p;
    const logic_board *b = x->b;
    int n = bits9(places);
    unsigned digits = 0;
    for (int j = 0; j < n; j++)
        digits |= 1u << (x->cells[chosen[j]] - 1);
    cells_t set = 0;
    int i, c, any = 0;
    FOR_DIGITS(i, places)
        set |= BIT(unit_cell(x->u, i - 1));
    FOR_CELLS(c, set)
        any |= (b->cand[c] & ~digits) != 0;
    if (!any)
        return 0;
    step_start(s, x->t);
    FOR_CELLS(c, set) {
        step_eliminate_mask(s, b, c, b->cand[c] & ~digits);
        s->pattern[0][c] = (uint16_t)(b->cand[c] & digits);
    }
    step_unit(s, x->u);
    s->digits = (uint16_t)digits;
    return 1;
}

/* Hidden subset of size n: n digits of a unit confined to n cells; the other
 * candidates of those cells go. Units box, row, column; digits up,
 * combinations in lexicographic order. */
static int find_hidden_subset(const logic_board *b, int n, logic_technique t, unsigned units, logic_step *s)
{
    subset_ctx x = {b, 0, {0}, t};
    unsigned mask[9];
    subset_search q = {mask, 0, n, {0}, hidden_found, &x, s};
    for (int i = 0; i < 27; i++) {
        x.u = BOX_ROW_COL[i];
        if (!(units >> x.u & 1))
            continue;
        unsigned places[10] = {0};
        for (int j = 0; j < 9; j++) {
            int d;
            FOR_DIGITS(d, b->cand[unit_cell(x.u, j)])
                places[d] |= 1u << j;
        }
        q.m = 0;
        for (int d = 1; d <= 9; d++) {
            int k = bits9(places[d]);
            if (k >= 2 && k <= n) {
                x.cells[q.m] = d;
                mask[q.m++] = places[d];
            }
        }
        if (q.m >= n && subset_dfs(&q, 0, 0, 0))
            return 1;
    }
    return 0;
}

/* ---- Fish ---- */

/* The digit's positions along each line of one orientation: rows (columns
 * as positions) when `cols` is 0, else columns (rows as positions). */
static void line_masks(const logic_board *b, int d, int cols, unsigned mask[9])
{
    for (int l = 0; l < 9; l++)
        mask[l] = 0;
    for (int r = 0; r < 9; r++) {
        unsigned row = (unsigned)(b->where[d - 1] >> (9 * r)) & 0x1FF;
        if (!cols) {
            mask[r] = row;
            continue;
        }
        int c;
        FOR_DIGITS(c, row)
            mask[c - 1] |= 1u << r;
    }
}

static cells_t lines_set(unsigned lines, int first_unit)
{
    cells_t set = 0;
    int l;
    FOR_DIGITS(l, lines)
        set |= UNIT[first_unit + l - 1];
    return set;
}

static void fish_step(const logic_board *b, logic_step *s, logic_technique t, int d, int cols,
                      unsigned base, unsigned cover, cells_t fins, cells_t out)
{
    int base_unit = cols ? 9 : 0, cover_unit = cols ? 0 : 9;
    cells_t base_set = lines_set(base, base_unit);
    step_start(s, t);
    step_eliminate(s, b, out, d);
    step_mark_digit(s, b, 0, base_set & ~fins, d);
    step_mark_digit(s, b, 1, fins, d);
    int l;
    FOR_DIGITS(l, base)
        step_unit(s, base_unit + l - 1);
    FOR_DIGITS(l, cover)
        step_unit(s, cover_unit + l - 1);
    s->digits = (uint16_t)(1u << (d - 1));
}

/*
 * Basic fish of size n (X-wing 2, swordfish 3, jellyfish 4): n base lines
 * whose digit lies in n cover lines; the digit goes from the rest of the
 * cover lines. Digits up, rows as base lines before columns, base lines in
 * lexicographic combinations.
 */
static int find_basic_fish(const logic_board *b, int n, logic_technique t, unsigned digits, logic_step *s)
{
    int d;
    FOR_DIGITS(d, digits) {
        for (int cols = 0; cols < 2; cols++) {
            unsigned mask[9];
            line_masks(b, d, cols, mask);
            int list[9], m = 0;
            for (int l = 0; l < 9; l++)
                if (bits9(mask[l]) >= 2 && bits9(mask[l]) <= n)
                    list[m++] = l;
            if (m < n)
                continue;
            int idx[4];
            first_combination(idx, n);
            do {
                unsigned base = 0, cover = 0;
                for (int j = 0; j < n; j++) {
                    base |= 1u << list[idx[j]];
                    cover |= mask[list[idx[j]]];
                }
                if (bits9(cover) != n)
                    continue;
                cells_t out = lines_set(cover, cols ? 0 : 9) & ~lines_set(base, cols ? 9 : 0);
                if (!(out & b->where[d - 1]))
                    continue;
                fish_step(b, s, t, d, cols, base, cover, 0, out);
                return 1;
            } while (next_combination(idx, n, m));
        }
    }
    return 0;
}

/*
 * Finned fish of size n: n base lines whose digit lies in n cover lines
 * except for fins, all in one box. Either a fin is true or the fish is: the
 * digit goes from the cells of the cover lines in the fins' box outside the
 * base lines (they see every fin). Sashimi when a base line has a single
 * candidate besides its fins. Digits up, rows before columns, base lines in
 * lexicographic combinations, fin boxes up, cover choices in lexicographic
 * order.
 */
typedef struct {
    const logic_board *b;
    int d, cols, n;
    const unsigned *mask;   /* positions of the digit along each line */
    int list[9], m;         /* the lines with two candidates or more */
    int idx[4];
    logic_technique finned, sashimi;
    logic_step *s;
} finned_search;

/* The base lines chosen in q->idx: any fin box and cover that work. All in
 * 9-bit masks of positions along the lines until a fish is found. Fin
 * groups (the three positions a box spans along the lines) in order, then
 * cover choices in lexicographic order. */
static int finned_try(finned_search *q, unsigned all)
{
    int n = q->n, lines[4];
    unsigned mk[4], base = 0;
    for (int j = 0; j < n; j++) {
        lines[j] = q->list[q->idx[j]];
        mk[j] = q->mask[lines[j]];
        base |= 1u << lines[j];
    }
    for (int group = 0; group < 3; group++) {
        unsigned in_group = 7u << (3 * group), outside = 0;
        for (int j = 0; j < n; j++)
            outside |= mk[j] & ~in_group;
        int need = n - bits9(outside);
        if (need < 0)
            continue;
        int pool[3], pm = 0, p;
        FOR_DIGITS(p, all & in_group & ~outside)
            pool[pm++] = p - 1;
        if (need > pm)
            continue;
        int pidx[3] = {0, 1, 2};
        do {
            unsigned cover = outside;
            for (int j = 0; j < need; j++)
                cover |= 1u << pool[pidx[j]];
            /* fins: base candidates off the cover, all in one band of lines */
            int band = -1, ok = 1, lone = 0;
            for (int j = 0; j < n && ok; j++) {
                int k = bits9(mk[j] & cover);
                ok = k >= 1;
                lone |= k == 1;
                if (mk[j] & ~cover) {
                    ok = ok && (band < 0 || band == lines[j] / 3);
                    band = lines[j] / 3;
                }
            }
            if (!ok || band < 0)
                continue;
            /* eliminations: cover lines in the fins' box, off the base lines */
            unsigned out_positions = cover & in_group;
            int any = 0;
            for (int l = band * 3; l < band * 3 + 3 && !any; l++)
                any = !(base >> l & 1) && (q->mask[l] & out_positions);
            if (!any)
                continue;
            int box = q->cols ? group * 3 + band : band * 3 + group;
            cells_t base_set = lines_set(base, q->cols ? 9 : 0);
            cells_t cover_set = lines_set(cover, q->cols ? 0 : 9);
            cells_t fins = base_set & q->b->where[q->d - 1] & ~cover_set;
            cells_t out = cover_set & UNIT[18 + box] & ~base_set;
            fish_step(q->b, q->s, lone ? q->sashimi : q->finned, q->d, q->cols, base, cover, fins, out);
            return 1;
        } while (need > 0 && next_combination(pidx, need, pm));
    }
    return 0;
}

/* Base line combinations in lexicographic order, pruned once their
 * positions spread past n cover lines and one box's three (adding a line
 * never narrows them). */
static int finned_dfs(finned_search *q, int start, int depth, unsigned all)
{
    if (depth == q->n)
        return bits9(all) > q->n && finned_try(q, all);
    for (int i = start; i <= q->m - (q->n - depth); i++) {
        unsigned next = all | q->mask[q->list[i]];
        /* outside the group of the fins' box, n cover lines at most */
        if (bits9(next & ~0x7u) > q->n && bits9(next & ~0x38u) > q->n && bits9(next & ~0x1C0u) > q->n)
            continue;
        q->idx[depth] = i;
        if (finned_dfs(q, i + 1, depth + 1, next))
            return 1;
    }
    return 0;
}

/* `finned`: LOGIC_FINNED_*; its sashimi form is the technique after it. */
static int find_finned_fish(const logic_board *b, int n, logic_technique finned, unsigned digits, logic_step *s)
{
    unsigned mask[9];
    finned_search q = {b, 0, 0, n, mask, {0}, 0, {0}, finned, finned + 1, s};
    FOR_DIGITS(q.d, digits) {
        for (q.cols = 0; q.cols < 2; q.cols++) {
            line_masks(b, q.d, q.cols, mask);
            q.m = 0;
            for (int l = 0; l < 9; l++)
                if (bits9(mask[l]) >= 2)
                    q.list[q.m++] = l;
            if (q.m >= n && finned_dfs(&q, 0, 0, 0))
                return 1;
        }
    }
    return 0;
}

/* ---- Single-digit patterns ---- */

/* The other cell of a conjugate pair: unit u holds digit d in exactly c and
 * one other cell; -1 otherwise. */
static int conjugate(const logic_board *b, int u, int d, int c)
{
    cells_t x = b->where[d - 1] & UNIT[u];
    if (popcount(x) != 2 || !((x >> c) & 1))
        return -1;
    return first_cell(x & ~BIT(c));
}

/* A chain of two strong links joined by a weak one: e1 = s1 - s2 = e2. */
static void four_chain(logic_step *s, int d, int e1, int s1, int s2, int e2)
{
    step_node(s, e1, d, 1, 1);
    step_node(s, s1, d, 0, 0);
    step_node(s, s2, d, 1, 1);
    step_node(s, e2, d, 0, 0);
    /* read from e1 false: e1 = s1 (true) - s2 (false) = e2 (true) */
    s->chain[0].on = 0;
    s->chain[1].on = 1;
    s->chain[2].on = 0;
    s->chain[3].on = 1;
    s->digits = (uint16_t)(1u << (d - 1));
}

/*
 * Skyscraper: two parallel lines each hold the digit in exactly two cells,
 * one end of each in a common cross line; one of the two other ends is
 * true, so cells seeing both lose the digit. Digits up, rows before
 * columns, line pairs in order.
 */
static int find_skyscraper(const logic_board *b, unsigned digits, logic_step *s)
{
    int d;
    FOR_DIGITS(d, digits) {
        for (int cols = 0; cols < 2; cols++) {
            for (int l1 = 0; l1 < 9; l1++) {
                cells_t x1 = b->where[d - 1] & UNIT[cols * 9 + l1];
                if (popcount(x1) != 2)
                    continue;
                for (int l2 = l1 + 1; l2 < 9; l2++) {
                    cells_t x2 = b->where[d - 1] & UNIT[cols * 9 + l2];
                    if (popcount(x2) != 2)
                        continue;
                    int a1 = first_cell(x1), b1 = first_cell(x1 & (x1 - 1));
                    int a2 = first_cell(x2), b2 = first_cell(x2 & (x2 - 1));
                    int pa1 = cols ? row_of(a1) : col_of(a1), pb1 = cols ? row_of(b1) : col_of(b1);
                    int pa2 = cols ? row_of(a2) : col_of(a2), pb2 = cols ? row_of(b2) : col_of(b2);
                    int s1, s2, e1, e2;
                    if (pa1 == pa2 && pb1 != pb2) {
                        s1 = a1, s2 = a2, e1 = b1, e2 = b2;
                    } else if (pb1 == pb2 && pa1 != pa2) {
                        s1 = b1, s2 = b2, e1 = a1, e2 = a2;
                    } else if (pa1 == pb2 && pb1 != pa2) {
                        s1 = a1, s2 = b2, e1 = b1, e2 = a2;
                    } else if (pb1 == pa2 && pa1 != pb2) {
                        s1 = b1, s2 = a2, e1 = a1, e2 = b2;
                    } else {
                        continue;
                    }
                    cells_t out = PEERS[e1] & PEERS[e2] & b->where[d - 1];
                    if (!out)
                        continue;
                    step_start(s, LOGIC_SKYSCRAPER);
                    step_eliminate(s, b, out, d);
                    step_mark_digit(s, b, 0, BIT(s1) | BIT(s2) | BIT(e1) | BIT(e2), d);
                    step_unit(s, cols * 9 + l1);
                    step_unit(s, cols * 9 + l2);
                    step_unit(s, (cols ? 0 : 9) + (cols ? row_of(s1) : col_of(s1)));
                    four_chain(s, d, e1, s1, s2, e2);
                    return 1;
                }
            }
        }
    }
    return 0;
}

/*
 * Two-string kite: a row and a column each hold the digit in exactly two
 * cells, one end of each in the same box (not the same cell); one of the two
 * other ends is true, so cells seeing both lose the digit. Digits up, rows,
 * then columns, then the pairing of ends.
 */
static int find_two_string_kite(const logic_board *b, unsigned digits, logic_step *s)
{
    int d;
    FOR_DIGITS(d, digits) {
        for (int r = 0; r < 9; r++) {
            cells_t xr = b->where[d - 1] & UNIT[r];
            if (popcount(xr) != 2)
                continue;
            for (int col = 0; col < 9; col++) {
                cells_t xc = b->where[d - 1] & UNIT[9 + col];
                if (popcount(xc) != 2 || (xr & xc))
                    continue;
                int rc[2] = {first_cell(xr), first_cell(xr & (xr - 1))};
                int cc[2] = {first_cell(xc), first_cell(xc & (xc - 1))};
                for (int i = 0; i < 2; i++) {
                    for (int j = 0; j < 2; j++) {
                        if (box_of(rc[i]) != box_of(cc[j]))
                            continue;
                        int er = rc[1 - i], ec = cc[1 - j];
                        if (box_of(er) == box_of(ec))
                            continue;
                        cells_t out = PEERS[er] & PEERS[ec] & b->where[d - 1];
                        if (!out)
                            continue;
                        step_start(s, LOGIC_TWO_STRING_KITE);
                        step_eliminate(s, b, out, d);
                        step_mark_digit(s, b, 0, xr | xc, d);
                        step_unit(s, r);
                        step_unit(s, 9 + col);
                        step_unit(s, 18 + box_of(rc[i]));
                        four_chain(s, d, er, rc[i], cc[j], ec);
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

/* ---- Wings ---- */

/*
 * XY-wing: a pivot {x,y} sees two pincers {x,z} and {y,z}; whichever the
 * pivot is, one pincer is z, so cells seeing both pincers lose z. Pivots in
 * reading order, then pincer pairs in reading order.
 */
static int find_xy_wing(const logic_board *b, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    int p;
    FOR_CELLS(p, bi) {
        unsigned pm = b->cand[p];
        cells_t wings = bi & PEERS[p];
        int a;
        FOR_CELLS(a, wings) {
            unsigned am = b->cand[a];
            if (bits9(am & pm) != 1)
                continue;
            unsigned z = am & ~pm;
            int c;
            FOR_CELLS(c, wings & ~((BIT(a) << 1) - 1)) {
                unsigned cm = b->cand[c];
                if (cm != (z | (pm & ~am)))
                    continue;
                int zd = low_digit(z);
                cells_t out = PEERS[a] & PEERS[c] & b->where[zd - 1];
                if (!out)
                    continue;
                step_start(s, LOGIC_XY_WING);
                step_eliminate(s, b, out, zd);
                s->pattern[0][a] = (uint16_t)am;
                s->pattern[0][c] = (uint16_t)cm;
                s->pattern[1][p] = (uint16_t)pm;
                s->digits = (uint16_t)(pm | z);
                return 1;
            }
        }
    }
    return 0;
}

/*
 * XYZ-wing: a pivot {x,y,z} sees pincers {x,z} and {y,z}; one of the three
 * is z, so cells seeing all three lose z. Pivots in reading order, then
 * pincer pairs in reading order.
 */
static int find_xyz_wing(const logic_board *b, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    for (int p = 0; p < 81; p++) {
        unsigned pm = b->cand[p];
        if (bits9(pm) != 3)
            continue;
        cells_t wings = bi & PEERS[p];
        int a;
        FOR_CELLS(a, wings) {
            unsigned am = b->cand[a];
            if ((am & pm) != am)
                continue;
            int c;
            FOR_CELLS(c, wings & ~((BIT(a) << 1) - 1)) {
                unsigned cm = b->cand[c];
                if ((cm & pm) != cm || cm == am)
                    continue;
                unsigned z = am & cm;
                int zd = low_digit(z);
                cells_t out = PEERS[a] & PEERS[c] & PEERS[p] & b->where[zd - 1];
                if (!out)
                    continue;
                step_start(s, LOGIC_XYZ_WING);
                step_eliminate(s, b, out, zd);
                s->pattern[0][a] = (uint16_t)am;
                s->pattern[0][c] = (uint16_t)cm;
                s->pattern[1][p] = (uint16_t)pm;
                s->digits = (uint16_t)pm;
                return 1;
            }
        }
    }
    return 0;
}

/*
 * W-wing: two cells {x,y} that do not see each other, and a strong link on
 * x (a unit with exactly two x's) with one end seeing each cell: one of the
 * two cells is y, so cells seeing both lose y. Cell pairs in reading order,
 * the linking digit up, units in order (rows, columns, boxes).
 */
static int find_w_wing(const logic_board *b, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    int p;
    FOR_CELLS(p, bi) {
        int q;
        FOR_CELLS(q, bi & ~((BIT(p) << 1) - 1)) {
            if (b->cand[q] != b->cand[p] || sees(p, q))
                continue;
            unsigned pair = b->cand[p];
            int x;
            FOR_DIGITS(x, pair) {
                int y = low_digit(pair & ~(1u << (x - 1)));
                cells_t out = PEERS[p] & PEERS[q] & b->where[y - 1];
                if (!out)
                    continue;
                for (int u = 0; u < 27; u++) {
                    cells_t link = b->where[x - 1] & UNIT[u];
                    if (popcount(link) != 2 || (link & (BIT(p) | BIT(q))))
                        continue;
                    int e1 = first_cell(link), e2 = first_cell(link & (link - 1));
                    if (!(sees(e1, p) && sees(e2, q))) {
                        int t = e1;
                        e1 = e2;
                        e2 = t;
                    }
                    if (!(sees(e1, p) && sees(e2, q)))
                        continue;
                    step_start(s, LOGIC_W_WING);
                    step_eliminate(s, b, out, y);
                    s->pattern[0][p] = (uint16_t)pair;
                    s->pattern[0][q] = (uint16_t)pair;
                    s->pattern[1][e1] = (uint16_t)(1u << (x - 1));
                    s->pattern[1][e2] = (uint16_t)(1u << (x - 1));
                    step_unit(s, u);
                    s->digits = (uint16_t)pair;
                    step_node(s, p, y, 1, 0);
                    step_node(s, p, x, 0, 1);
                    step_node(s, e1, x, 1, 0);
                    step_node(s, e2, x, 0, 1);
                    step_node(s, q, x, 1, 0);
                    step_node(s, q, y, 0, 1);
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* ---- Simple colouring ---- */

/*
 * Simple colouring: the cells of a digit joined by strong links (units with
 * exactly two places) take two colours, alternating along the links; one
 * colour is the digit's. Wrap: two cells of one colour see each other, so
 * that colour is false everywhere. Trap: a cell seeing both colours loses
 * the digit. Digits up, clusters by their lowest cell, wrap before trap.
 */
static int find_simple_coloring(const logic_board *b, unsigned digits, logic_step *s)
{
    int d;
    FOR_DIGITS(d, digits) {
        cells_t linked = 0;
        for (int u = 0; u < 27; u++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (popcount(x) == 2)
                linked |= x;
        }
        cells_t done = 0;
        int start;
        FOR_CELLS(start, linked) {
            if ((done >> start) & 1)
                continue;
            cells_t colour[2] = {BIT(start), 0};
            int queue[81], head = 0, tail = 0;
            queue[tail++] = start;
            while (head < tail) {
                int c = queue[head++];
                int side = (colour[1] >> c) & 1;
                for (int k = 0; k < 3; k++) {
                    int o = conjugate(b, unit_of(c, k), d, c);
                    if (o < 0 || (((colour[0] | colour[1]) >> o) & 1))
                        continue;
                    colour[1 - side] |= BIT(o);
                    queue[tail++] = o;
                }
            }
            cells_t cluster = colour[0] | colour[1];
            done |= cluster;
            for (int side = 0; side < 2; side++) {
                int c, wrapped = 0;
                FOR_CELLS(c, colour[side])
                    wrapped |= (PEERS[c] & colour[side]) != 0;
                if (!wrapped)
                    continue;
                step_start(s, LOGIC_SIMPLE_COLORING);
                s->variant = LOGIC_COLOR_WRAP;
                step_eliminate(s, b, colour[side], d);
                step_mark(s, 0, colour[side], 1u << (d - 1));
                step_mark(s, 1, colour[1 - side], 1u << (d - 1));
                s->digits = (uint16_t)(1u << (d - 1));
                return 1;
            }
            cells_t see0 = 0, see1 = 0;
            int c;
            FOR_CELLS(c, colour[0])
                see0 |= PEERS[c];
            FOR_CELLS(c, colour[1])
                see1 |= PEERS[c];
            cells_t out = see0 & see1 & b->where[d - 1] & ~cluster;
            if (!out)
                continue;
            step_start(s, LOGIC_SIMPLE_COLORING);
            s->variant = LOGIC_COLOR_TRAP;
            step_eliminate(s, b, out, d);
            step_mark(s, 0, colour[0], 1u << (d - 1));
            step_mark(s, 1, colour[1], 1u << (d - 1));
            s->digits = (uint16_t)(1u << (d - 1));
            return 1;
        }
    }
    return 0;
}

/* ---- Uniqueness ---- */

/* Rectangles of blank cells in two rows, two columns and exactly two boxes
 * that have two corners in one line holding the same two candidates only
 * (every type below has such a side): the first such side in reading order
 * of its first cell then second, then the opposite side's line in order.
 * Calls `try` with the corners (c[0], c[1] the first row's) and the pair. */
typedef int (*rect_fn)(const logic_board *b, const int c[4], unsigned pair, logic_step *s);

static int each_rectangle(const logic_board *b, rect_fn try_rect, logic_step *s)
{
    cells_t bi = bivalue_cells(b);
    int f1;
    FOR_CELLS(f1, bi) {
        int f2;
        FOR_CELLS(f2, bi & ~((BIT(f1) << 1) - 1)) {
            unsigned pair = b->cand[f1];
            if (b->cand[f2] != pair)
                continue;
            int same_row = row_of(f1) == row_of(f2);
            if (!same_row && col_of(f1) != col_of(f2))
                continue;
            for (int other = 0; other < 9; other++) {
                int o1, o2;
                if (same_row) {
                    if (other == row_of(f1) || (other / 3 == row_of(f1) / 3) == (col_of(f1) / 3 == col_of(f2) / 3))
                        continue;
                    o1 = other * 9 + col_of(f1);
                    o2 = other * 9 + col_of(f2);
                } else {
                    if (other == col_of(f1) || (other / 3 == col_of(f1) / 3) == (row_of(f1) / 3 == row_of(f2) / 3))
                        continue;
                    o1 = row_of(f1) * 9 + other;
                    o2 = row_of(f2) * 9 + other;
                }
                if ((b->cand[o1] & pair) != pair || (b->cand[o2] & pair) != pair)
                    continue;
                int c[4];
                /* corners in reading order: first row then second */
                int cs[4] = {f1, f2, o1, o2};
                for (int i = 0; i < 4; i++)
                    for (int j = i + 1; j < 4; j++)
                        if (cs[j] < cs[i]) {
                            int t = cs[i];
                            cs[i] = cs[j];
                            cs[j] = t;
                        }
                memcpy(c, cs, sizeof c);
                if (try_rect(b, c, pair, s))
                    return 1;
            }
        }
    }
    return 0;
}

static void rect_pattern(const logic_board *b, const int c[4], unsigned pair, int variant, logic_step *s)
{
    step_start(s, LOGIC_UNIQUE_RECTANGLE);
    s->variant = variant;
    for (int i = 0; i < 4; i++) {
        s->pattern[0][c[i]] = (uint16_t)pair;
        s->pattern[1][c[i]] = (uint16_t)(b->cand[c[i]] & ~pair);
    }
    s->digits = (uint16_t)pair;
}

/* Type 1: three corners hold only the pair; the fourth loses it. */
static int rect_type1(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int extra = -1, n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            extra = c[i], n++;
    if (n != 1)
        return 0;
    rect_pattern(b, c, pair, 1, s);
    step_eliminate_mask(s, b, extra, pair);
    return 1;
}

/* Type 2: two corners hold only the pair, the other two the pair and one
 * same extra digit; one of those two holds it, so cells seeing both lose it. */
static int rect_type2(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int roof[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            roof[n++] = c[i];
    if (n != 2 || b->cand[roof[0]] != b->cand[roof[1]] || bits9(b->cand[roof[0]]) != 3)
        return 0;
    int z = low_digit(b->cand[roof[0]] & ~pair);
    cells_t out = PEERS[roof[0]] & PEERS[roof[1]] & b->where[z - 1];
    if (!out)
        return 0;
    rect_pattern(b, c, pair, 2, s);
    step_eliminate(s, b, out, z);
    return 1;
}

/* Type 4: two corners in one line hold only the pair; in a unit of the other
 * two, one digit of the pair has no other place, so they lose the other. */
static int rect_type4(const logic_board *b, const int c[4], unsigned pair, logic_step *s)
{
    int roof[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (b->cand[c[i]] != pair)
            roof[n++] = c[i];
    if (n != 2 || (row_of(roof[0]) != row_of(roof[1]) && col_of(roof[0]) != col_of(roof[1])))
        return 0;
    for (int k = 0; k < 3; k++) {
        int u = unit_of(roof[0], k);
        if (u != unit_of(roof[1], k))
            continue;
        int x;
        FOR_DIGITS(x, pair) {
            cells_t here = b->where[x - 1] & UNIT[u];
            if (here != (BIT(roof[0]) | BIT(roof[1])))
                continue;
            int y = low_digit(pair & ~(1u << (x - 1)));
            rect_pattern(b, c, pair, 4, s);
            step_eliminate(s, b, BIT(roof[0]) | BIT(roof[1]), y);
            step_unit(s, u);
            return 1;
        }
    }
    return 0;
}

static int find_unique_rectangle(const logic_board *b, logic_step *s)
{
    return each_rectangle(b, rect_type1, s) || each_rectangle(b, rect_type2, s) ||
           each_rectangle(b, rect_type4, s);
}

/*
 * BUG+1: every blank cell has two candidates but one, which has three, and
 * every digit has two places in each unit but one digit in that cell's
 * units; without that digit there the board would have two solutions (a
 * "bivalue universal grave"), so the cell takes it.
 */
static int find_bug_plus_one(const logic_board *b, logic_step *s)
{
    int odd = -1;
    for (int c = 0; c < 81; c++) {
        int k = bits9(b->cand[c]);
        if (k == 0 || k == 2)
            continue;
        if (k != 3 || odd >= 0)
            return 0;
        odd = c;
    }
    if (odd < 0)
        return 0;
    int digit = 0;
    int d;
    FOR_DIGITS(d, b->cand[odd]) {
        if (popcount(b->where[d - 1] & UNIT[row_of(odd)]) == 3) {
            digit = d;
            break;
        }
    }
    if (!digit)
        return 0;
    /* with `digit` taken out of the odd cell, every unit holds each digit
     * in exactly 0 or 2 cells */
    for (int u = 0; u < 27; u++)
        for (d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (d == digit)
                x &= ~BIT(odd);
            int k = popcount(x);
            if (k != 0 && k != 2)
                return 0;
        }
    step_start(s, LOGIC_BUG_PLUS_ONE);
    step_place(s, odd, digit);
    s->pattern[0][odd] = b->cand[odd];
    s->digits = (uint16_t)(1u << (digit - 1));
    return 1;
}

/* ---- Chains ---- */

/*
 * A chain alternates strong links (if this node is false, the next is true:
 * a cell with two candidates, or a unit with two places for a digit) and
 * weak links (if this node is true, the next is false: two candidates of one
 * cell, or one digit in two cells that see each other). Read from its first
 * node assumed false, it ends on a node that must then be true, so one of
 * the two ends is true: a candidate weakly linked to both ends (it sees
 * both, or shares a cell with one and the digit with the other) is false.
 * A chain that comes back to its first node, true, places it (a
 * discontinuous nice loop). When the two ends are themselves weakly linked,
 * the chain is a loop in which every weak link has exactly one true end,
 * which eliminates more (a continuous nice loop).
 *
 * The search is breadth first from each start node in turn (cells up,
 * digits up), so the step is the shortest chain, the earliest start on a tie.
 */

#define NODE_OF(c, d) ((c) * 9 + (d) - 1)
#define STATES (2 * 729) /* node * 2 + on */
/* Longest chain looked for, in nodes: longer ones are no help to a reader
 * and forcing chains are tried next. */
#define CHAIN_SEARCH_MAX 32

enum { VIA_CELL = 1, VIA_UNIT = 2 };

typedef struct {
    int strong;     /* VIA_CELL | VIA_UNIT: which strong links to follow */
    int weak;       /* the same, for weak links */
    int same_digit; /* only chains whose two ends hold the same digit */
    int placements; /* also look for loops that place their start */
} chain_rules;

typedef struct {
    int length;                      /* nodes; 0 when none was found */
    int16_t path[CHAIN_SEARCH_MAX];  /* states, first to last */
} chain_found;

/* Candidates weakly linked to both ends (nodes sn, en); eliminated in `st`
 * when it is not NULL. Returns how many. */
static int end_eliminations(const logic_board *b, int sn, int en, logic_step *st)
{
    int sc = sn / 9, sd = sn % 9 + 1, ec = en / 9, ed = en % 9 + 1;
    if (sc == ec) {
        if (sd == ed)
            return 0;
        unsigned m = b->cand[sc] & ~((1u << (sd - 1)) | (1u << (ed - 1)));
        if (st)
            step_eliminate_mask(st, b, sc, m);
        return bits9(m);
    }
    if (sd == ed) {
        cells_t out = PEERS[sc] & PEERS[ec] & b->where[sd - 1];
        if (st)
            step_eliminate(st, b, out, sd);
        return popcount(out);
    }
    if (!sees(sc, ec))
        return 0;
    int n = 0;
    if (b->cand[sc] & (1u << (ed - 1))) {
        if (st)
            step_eliminate_mask(st, b, sc, 1u << (ed - 1));
        n++;
    }
    if (b->cand[ec] & (1u << (sd - 1))) {
        if (st)
            step_eliminate_mask(st, b, ec, 1u << (sd - 1));
        n++;
    }
    return n;
}

static int weakly_linked(int n1, int n2)
{
    int c1 = n1 / 9, d1 = n1 % 9, c2 = n2 / 9, d2 = n2 % 9;
    return c1 == c2 ? d1 != d2 : d1 == d2 && sees(c1, c2);
}

/* Eliminations of a weak link (n1 true, n2 false) of a continuous loop,
 * where it has exactly one true end. */
static void loop_link_eliminations(const logic_board *b, int n1, int n2, logic_step *st)
{
    int c1 = n1 / 9, d1 = n1 % 9 + 1, c2 = n2 / 9, d2 = n2 % 9 + 1;
    if (c1 == c2)
        step_eliminate_mask(st, b, c1, b->cand[c1] & ~((1u << (d1 - 1)) | (1u << (d2 - 1))));
    else
        step_eliminate(st, b, PEERS[c1] & PEERS[c2], d1);
}

typedef struct {
    int16_t parent[STATES];
    uint8_t depth[STATES];
    int16_t queue[STATES];
    int8_t partner[729][3]; /* a node's conjugate in its row, column, box, or -1 */
    cells_t seen[2][9];     /* [on][d - 1]: the states a search has reached */
    cells_t live[9];        /* [d - 1]: the false nodes with a strong link */
    int head, tail;
} chain_work;

/* The conjugates of every candidate, looked up once per search rather than
 * once per link followed, and the nodes a false one of which has a strong
 * link to follow under the rules (the others end a chain that is no use). */
static void find_partners(const logic_board *b, const chain_rules *r, chain_work *w)
{
    memset(w->partner, -1, sizeof w->partner);
    cells_t bivalue = (r->strong & VIA_CELL) ? bivalue_cells(b) : 0;
    for (int d = 1; d <= 9; d++) {
        w->live[d - 1] = bivalue & b->where[d - 1];
        for (int u = 0; u < 27; u++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (popcount(x) != 2)
                continue;
            int a = first_cell(x), z = first_cell(x & (x - 1)), kind = u / 9;
            w->partner[NODE_OF(a, d)][kind] = (int8_t)z;
            w->partner[NODE_OF(z, d)][kind] = (int8_t)a;
            if (r->strong & VIA_UNIT)
                w->live[d - 1] |= x;
        }
    }
}

/* Whether cell c is in set x (tested in its 64-bit half: a 128-bit shift
 * by a variable count costs more). */
static inline int has_cell(cells_t x, int c)
{
    uint64_t word = c < 64 ? (uint64_t)x : (uint64_t)(x >> 64);
    return (word >> (c & 63)) & 1;
}

static int productive(const logic_board *b, const chain_rules *r, int start, int state, int nodes)
{
    int node = state >> 1;
    if (node == start)
        return r->placements;
    if (nodes < 4)
        return 0;
    if (r->same_digit && node % 9 != start % 9)
        return 0;
    return end_eliminations(b, start, node, NULL) > 0;
}

/* Reaches state (c, d, on) from state `from` at `nodes` nodes, unless it
 * was reached before; returns 1 when it is new. */
static int chain_reach(chain_work *w, int c, int d, int on, int from, int nodes)
{
    cells_t *seen = &w->seen[on][d - 1];
    if (has_cell(*seen, c))
        return 0;
    *seen |= BIT(c);
    int ns = NODE_OF(c, d) * 2 + on;
    w->depth[ns] = (uint8_t)nodes;
    w->parent[ns] = (int16_t)from;
    w->queue[w->tail++] = (int16_t)ns;
    return 1;
}

/*
 * Breadth first from `start` for a productive chain of at most `limit`
 * nodes; returns its last state (the path is in w->parent), or -1. A
 * state's links are followed in a fixed order: from a false node the strong
 * links, its cell's other candidate then its conjugates in its row, column
 * and box; from a true node the weak links, its cell's other candidates
 * (digits up) then its digit's cells that see it (cells up). A weak link to
 * a false node with no strong link is not followed: nothing comes after it
 * and only true nodes end a chain, so the other states, their order and
 * their paths are the same (and no state of more nodes than one of these
 * is taken from the queue before it).
 */
static int chain_bfs(const logic_board *b, const chain_rules *r, chain_work *w, int start, int limit)
{
    memset(w->seen, 0, sizeof w->seen);
    int s0 = start * 2;
    w->seen[0][start % 9] = BIT(start / 9);
    w->depth[s0] = 1;
    w->parent[s0] = -1;
    w->head = 0;
    w->tail = 0;
    w->queue[w->tail++] = (int16_t)s0;
    while (w->head < w->tail) {
        int st = w->queue[w->head++];
        int nodes = w->depth[st] + 1;
        if (nodes > limit)
            return -1;
        int node = st >> 1, c = node / 9, d = node % 9 + 1;
        if (!(st & 1)) {
            if ((r->strong & VIA_CELL) && bits9(b->cand[c]) == 2) {
                int e = low_digit(b->cand[c] & ~(1u << (d - 1)));
                if (chain_reach(w, c, e, 1, st, nodes) && productive(b, r, start, NODE_OF(c, e) * 2 + 1, nodes))
                    return NODE_OF(c, e) * 2 + 1;
            }
            if (r->strong & VIA_UNIT)
                for (int k = 0; k < 3; k++) {
                    int o = w->partner[node][k];
                    if (o >= 0 && chain_reach(w, o, d, 1, st, nodes) &&
                        productive(b, r, start, NODE_OF(o, d) * 2 + 1, nodes))
                        return NODE_OF(o, d) * 2 + 1;
                }
            continue;
        }
        if (r->weak & VIA_CELL) {
            int e;
            FOR_DIGITS(e, b->cand[c] & ~(1u << (d - 1)))
                if (has_cell(w->live[e - 1], c))
                    chain_reach(w, c, e, 0, st, nodes);
        }
        if (r->weak & VIA_UNIT) {
            cells_t x = b->where[d - 1] & PEERS[c] & w->live[d - 1] & ~w->seen[0][d - 1];
            int o;
            FOR_CELLS(o, x)
                chain_reach(w, o, d, 0, st, nodes);
        }
    }
    return -1;
}

static void chain_search(const logic_board *b, const chain_rules *r, unsigned digits, chain_work *w,
                         chain_found *best)
{
    best->length = 0;
    int limit = CHAIN_SEARCH_MAX; /* look for chains of at most this many nodes */
    find_partners(b, r, w);
    for (int c = 0; c < 81; c++) {
        int d;
        FOR_DIGITS(d, b->cand[c] & digits) {
            if (!has_cell(w->live[d - 1], c))
                continue; /* no strong link to follow from it: no chain */
            int hit = chain_bfs(b, r, w, NODE_OF(c, d), limit);
            if (hit < 0)
                continue;
            int n = w->depth[hit];
            best->length = n;
            for (int st = hit, i = n - 1; st >= 0; st = w->parent[st], i--)
                best->path[i] = (int16_t)st;
            limit = n - 1; /* only a shorter chain replaces it */
        }
    }
}

/* Chains from start nodes of `digits` only. */
static int find_chain(const logic_board *b, const chain_rules *r, logic_technique t, unsigned digits,
                      logic_step *s)
{
    chain_work w;
    chain_found best;
    chain_search(b, r, digits, &w, &best);
    if (!best.length)
        return 0;
    int n = best.length;
    int first = best.path[0] >> 1, last = best.path[n - 1] >> 1;
    step_start(s, t);
    for (int i = 0; i < n; i++) {
        int node = best.path[i] >> 1, on = best.path[i] & 1;
        step_node(s, node / 9, node % 9 + 1, !on, on);
        s->pattern[0][node / 9] |= (uint16_t)(1u << (node % 9));
        s->digits |= (uint16_t)(1u << (node % 9));
    }
    if (first == last) {
        s->technique = LOGIC_NICE_LOOP;
        s->variant = LOGIC_LOOP_DISCONTINUOUS;
        step_place(s, first / 9, first % 9 + 1);
        return 1;
    }
    end_eliminations(b, first, last, s);
    if (t == LOGIC_AIC && weakly_linked(first, last)) {
        int distinct = 1;
        for (int i = 0; i < n && distinct; i++)
            for (int j = i + 1; j < n; j++)
                distinct &= (best.path[i] >> 1) != (best.path[j] >> 1);
        if (distinct) {
            for (int i = 1; i + 1 < n; i += 2)
                loop_link_eliminations(b, best.path[i] >> 1, best.path[i + 1] >> 1, s);
            s->technique = LOGIC_NICE_LOOP;
            s->variant = LOGIC_LOOP_CONTINUOUS;
        }
    }
    return 1;
}

/* An X-chain keeps to one digit, so it is a local finder (see the
 * ladder): the shortest chain of the digits asked for. */
static int find_x_chain(const logic_board *b, unsigned digits, logic_step *s)
{
    static const chain_rules rules = {VIA_UNIT, VIA_UNIT, 1, 0};
    return find_chain(b, &rules, LOGIC_X_CHAIN, digits, s);
}

static int find_xy_chain(const logic_board *b, logic_step *s)
{
    static const chain_rules rules = {VIA_CELL, VIA_UNIT, 1, 0};
    return find_chain(b, &rules, LOGIC_XY_CHAIN, ALL_DIGITS, s);
}

static int find_aic(const logic_board *b, logic_step *s)
{
    static const chain_rules rules = {VIA_CELL | VIA_UNIT, VIA_CELL | VIA_UNIT, 0, 1};
    return find_chain(b, &rules, LOGIC_AIC, ALL_DIGITS, s);
}

/* ---- Almost locked sets ---- */

/*
 * An almost locked set (ALS) is n cells of one unit holding n + 1 digits
 * between them: take one digit away and the rest is locked. Two ALSs A and B
 * share a restricted common digit x when every x of A sees every x of B:
 * then x is in one of them at most.
 */
typedef struct {
    cells_t cells;
    uint16_t digits;
    uint8_t unit;
    uint8_t size;
    uint16_t seen;  /* index in als_list.seen of the first of its digits' sets */
} als_t;

/* ALSs bigger than this are not looked for (a reader cannot hold them). */
#define ALS_MAX_SIZE 4
#define ALS_MAX 1024
#define ALS_SEEN_MAX (ALS_MAX * 4)

/* The ALSs of a board and, per ALS and digit, the cells that see every cell
 * of the ALS holding that digit (for the restricted common test). */
typedef struct {
    int n;
    als_t als[ALS_MAX];
    int n_seen;
    cells_t seen[ALS_SEEN_MAX];
} als_list;

/* What sees every x of an ALS (x one of its digits). */
static cells_t als_seen(const als_list *l, const als_t *a, int x)
{
    return l->seen[a->seen + bits9(a->digits & ((1u << (x - 1)) - 1))];
}

/* Every ALS, smallest first, then by unit (rows, columns, boxes) and cells.
 * A set found in a row or column is not listed again for its box, nor a
 * single cell for its column and box. */
static void collect_als(const logic_board *b, als_list *l)
{
    l->n = 0;
    l->n_seen = 0;
    for (int size = 1; size <= ALS_MAX_SIZE; size++) {
        for (int u = 0; u < 27; u++) {
            if (size == 1 && u >= 9)
                break;
            int list[9], m = 0;
            for (int j = 0; j < 9; j++) {
                int c = unit_cell(u, j);
                if (b->cand[c])
                    list[m++] = c;
            }
            if (m <= size)
                continue;
            int idx[ALS_MAX_SIZE];
            first_combination(idx, size);
            do {
                unsigned digits = 0;
                cells_t set = 0;
                for (int j = 0; j < size; j++) {
                    digits |= b->cand[list[idx[j]]];
                    set |= BIT(list[idx[j]]);
                }
                if (bits9(digits) != size + 1)
                    continue;
                if (u >= 18 && size > 1) {
                    int c = first_cell(set);
                    if (!(set & ~UNIT[row_of(c)]) || !(set & ~UNIT[9 + col_of(c)]))
                        continue;
                }
                if (l->n == ALS_MAX || l->n_seen + size + 1 > ALS_SEEN_MAX)
                    return;
                als_t *a = &l->als[l->n++];
                a->cells = set;
                a->digits = (uint16_t)digits;
                a->unit = (uint8_t)u;
                a->size = (uint8_t)size;
                a->seen = (uint16_t)l->n_seen;
                int x;
                FOR_DIGITS(x, digits)
                    l->seen[l->n_seen++] = common_peers(b->where[x - 1] & set);
            } while (next_combination(idx, size, m));
        }
    }
}

/* The restricted common digits of two disjoint ALSs: x when every x of one
 * sees every x of the other. */
static unsigned restricted_commons(const logic_board *b, const als_list *l, const als_t *a, const als_t *c)
{
    unsigned result = 0;
    int x;
    FOR_DIGITS(x, a->digits & c->digits) {
        if (!(b->where[x - 1] & c->cells & ~als_seen(l, a, x)))
            result |= 1u << (x - 1);
    }
    return result;
}

static void als_mark(const logic_board *b, logic_step *s, int group, const als_t *a)
{
    int c;
    FOR_CELLS(c, a->cells)
        s->pattern[group][c] = b->cand[c];
    step_unit(s, a->unit);
}

/* Eliminations of z seen by every z of A and B; returns how many. */
static int als_z_out(const logic_board *b, const als_list *l, const als_t *a, const als_t *c, int z,
                     logic_step *s)
{
    cells_t out = als_seen(l, a, z) & als_seen(l, c, z) & b->where[z - 1] & ~(a->cells | c->cells);
    if (s)
        step_eliminate(s, b, out, z);
    return popcount(out);
}

/* Pairs of ALSs with a restricted common that als_work keeps; a board
 * with more has its ALS-XY-wing partners found ALS by ALS instead. */
#define ALS_PAIRS_MAX 4096

/*
 * The board's ALSs and the pairs of them that share restricted commons,
 * both techniques' work: they are large, so they live in the caller's frame
 * once. ALS-XZ looks at every pair in list order and keeps, for each ALS i,
 * the later ALSs j that are disjoint from it with restricted commons
 * (up[up_first[i]..up_first[i + 1] - 1]); ALS-XY-wing takes a pivot's
 * partners from there and from the earlier ALSs that kept it (down).
 */
typedef struct {
    als_list list;
    int pairs;      /* kept in up, or -1 when there were more than ALS_PAIRS_MAX */
    uint16_t up_first[ALS_MAX + 1], down_first[ALS_MAX + 1];
    uint16_t up[ALS_PAIRS_MAX], up_common[ALS_PAIRS_MAX];
    uint16_t down[ALS_PAIRS_MAX], down_common[ALS_PAIRS_MAX];
    int partner[ALS_MAX];
    unsigned common[ALS_MAX];
} als_work;

/*
 * ALS-XZ: ALSs A and B with a restricted common x; if A lacks x it is locked
 * without it, and so is B otherwise: a digit z of both is then in A or B, so
 * cells seeing every z of both lose z. Pairs in list order, x up, z up.
 */
static int find_als_xz(const logic_board *b, als_work *w, logic_step *s)
{
    const als_list *l = &w->list;
    w->pairs = 0;
    for (int i = 0; i < l->n; i++) {
        if (w->pairs >= 0)
            w->up_first[i] = (uint16_t)w->pairs;
        const als_t *a = &l->als[i];
        cells_t seen_a[9]; /* als_seen of A's digits, looked up once for all its pairs */
        int x;
        FOR_DIGITS(x, a->digits)
            seen_a[x - 1] = als_seen(l, a, x);
        for (int j = i + 1; j < l->n; j++) {
            const als_t *c = &l->als[j];
            unsigned common = a->digits & c->digits, rcc = 0;
            if ((a->cells & c->cells) || !common)
                continue;
            FOR_DIGITS(x, common) { /* restricted_commons(b, l, a, c) */
                if (!(b->where[x - 1] & c->cells & ~seen_a[x - 1]))
                    rcc |= 1u << (x - 1);
            }
            if (rcc && w->pairs >= 0) {
                if (w->pairs == ALS_PAIRS_MAX) {
                    w->pairs = -1;
                } else {
                    w->up[w->pairs] = (uint16_t)j;
                    w->up_common[w->pairs++] = (uint16_t)rcc;
                }
            }
            if (bits9(common) < 2)
                continue;
            FOR_DIGITS(x, rcc) {
                int z;
                FOR_DIGITS(z, common & ~(1u << (x - 1))) {
                    if (!als_z_out(b, l, a, c, z, NULL))
                        continue;
                    step_start(s, LOGIC_ALS_XZ);
                    als_z_out(b, l, a, c, z, s);
                    als_mark(b, s, 0, a);
                    als_mark(b, s, 1, c);
                    s->digits = (uint16_t)((1u << (x - 1)) | (1u << (z - 1)));
                    return 1;
                }
            }
        }
    }
    if (w->pairs >= 0)
        w->up_first[l->n] = (uint16_t)w->pairs;
    return 0;
}

/* The kept pairs the other way round: for each ALS, the earlier ones that
 * kept it, in list order (they are visited in it). */
static void als_down(als_work *w, int n)
{
    memset(w->down_first, 0, (size_t)(n + 1) * sizeof w->down_first[0]);
    for (int e = 0; e < w->pairs; e++)
        w->down_first[w->up[e] + 1]++;
    for (int k = 0; k < n; k++)
        w->down_first[k + 1] = (uint16_t)(w->down_first[k + 1] + w->down_first[k]);
    uint16_t next[ALS_MAX];
    memcpy(next, w->down_first, (size_t)n * sizeof next[0]);
    for (int i = 0; i < n; i++)
        for (int e = w->up_first[i]; e < w->up_first[i + 1]; e++) {
            int k = w->up[e];
            w->down[next[k]] = (uint16_t)i;
            w->down_common[next[k]++] = w->up_common[e];
        }
}

/* The ALSs sharing restricted commons with ALS k, in list order, into
 * w->partner and w->common; returns how many. */
static int als_partners(const logic_board *b, als_work *w, int k)
{
    const als_list *l = &w->list;
    const als_t *c = &l->als[k];
    int m = 0;
    if (w->pairs >= 0) {
        for (int e = w->down_first[k]; e < w->down_first[k + 1]; e++) {
            w->partner[m] = w->down[e];
            w->common[m++] = w->down_common[e];
        }
        for (int e = w->up_first[k]; e < w->up_first[k + 1]; e++) {
            w->partner[m] = w->up[e];
            w->common[m++] = w->up_common[e];
        }
        return m;
    }
    for (int i = 0; i < l->n; i++) {
        if (i == k || (l->als[i].cells & c->cells) || !(l->als[i].digits & c->digits))
            continue;
        unsigned rcc = restricted_commons(b, l, &l->als[i], c);
        if (rcc) {
            w->partner[m] = i;
            w->common[m++] = rcc;
        }
    }
    return m;
}

/*
 * ALS-XY-wing: a pivot ALS C with a restricted common x with ALS A and y with
 * ALS B (x != y): C holds x or y, so A or B is locked and holds z, a digit of
 * both other than x and y: cells seeing every z of A and B lose z. Pivots in
 * list order, then A, B in list order. Needs the pairs find_als_xz kept.
 */
static int find_als_xy_wing(const logic_board *b, als_work *w, logic_step *s)
{
    const als_list *l = &w->list;
    if (w->pairs >= 0)
        als_down(w, l->n);
    for (int k = 0; k < l->n; k++) {
        const als_t *c = &l->als[k];
        int m = als_partners(b, w, k);
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++) {
                const als_t *a = &l->als[w->partner[i]], *bb = &l->als[w->partner[j]];
                if ((a->cells & bb->cells) || (w->common[i] == w->common[j] && bits9(w->common[i]) == 1) ||
                    bits9(a->digits & bb->digits) < 1)
                    continue;
                int x, y;
                FOR_DIGITS(x, w->common[i]) {
                    FOR_DIGITS(y, w->common[j] & ~(1u << (x - 1))) {
                        unsigned zs = a->digits & bb->digits & ~((1u << (x - 1)) | (1u << (y - 1)));
                        int z;
                        FOR_DIGITS(z, zs) {
                            if (!als_z_out(b, l, a, bb, z, NULL))
                                continue;
                            step_start(s, LOGIC_ALS_XY_WING);
                            als_z_out(b, l, a, bb, z, s);
                            als_mark(b, s, 0, a);
                            als_mark(b, s, 1, bb);
                            als_mark(b, s, 2, c);
                            s->digits = (uint16_t)((1u << (x - 1)) | (1u << (y - 1)) | (1u << (z - 1)));
                            return 1;
                        }
                    }
                }
            }
    }
    return 0;
}

/* ALS-XZ, then ALS-XY-wing, on one list of the board's ALSs. */
static int find_als(const logic_board *b, logic_step *s)
{
    static_assert(sizeof(als_work) < 160 * 1024, "ALS work fits a thread's stack");
    als_work w;
    collect_als(b, &w.list);
    return find_als_xz(b, &w, s) || find_als_xy_wing(b, &w, s);
}

/* ---- Forcing chains ---- */

/*
 * A forcing chain assumes a candidate (the premise) and follows what singles
 * then force: placements, and the candidates they remove. If that breaks a
 * rule (a cell with no candidate, a digit with no place in a unit), the
 * premise is false. If every candidate of a cell, or every place of a digit
 * in a unit, forces the same placement or elimination, it holds whichever
 * is true. A forcing net is the same where some placement needed more than
 * one earlier one (a naked single after several eliminations); a chain
 * follows one line of placements.
 */

#define NET_MAX 81 /* placements one premise can force at most */

typedef struct {
    cells_t where[9];
    uint8_t cells[81];
    uint16_t cand[81];
    uint16_t held[27];          /* digits placed in each unit */
    int n;
    int broken;                 /* 0, or 1 + the contradiction's kind below */
    int broken_cell, broken_unit, broken_digit;
    /* From here on, what a premise writes before it is read: a copy of a
     * net leaves it out (NET_COPIED). */
    int16_t cause[729];         /* the placement that removed a candidate:
                                   its index, or -1 for the premise; read
                                   only for candidates the net removed */
    uint8_t cell[NET_MAX], digit[NET_MAX], unit[NET_MAX]; /* placements in
                                   order; unit 27 for a naked single */
} net_t;

#define NET_COPIED offsetof(net_t, cause)

enum { BROKE_CELL = 1, BROKE_UNIT = 2 };

static void net_init(net_t *n, const logic_board *b)
{
    memcpy(n->cells, b->cells, sizeof n->cells);
    memcpy(n->cand, b->cand, sizeof n->cand);
    memcpy(n->where, b->where, sizeof n->where);
    memset(n->held, 0, sizeof n->held);
    for (int c = 0; c < 81; c++)
        if (b->cells[c])
            for (int k = 0; k < 3; k++)
                n->held[unit_of(c, k)] |= (uint16_t)(1u << (b->cells[c] - 1));
    n->n = 0;
    n->broken = 0;
}

static void net_remove(net_t *n, int c, int d, int why)
{
    if (!(n->cand[c] & (1u << (d - 1))))
        return;
    n->cand[c] &= (uint16_t)~(1u << (d - 1));
    n->where[d - 1] &= ~BIT(c);
    n->cause[NODE_OF(c, d)] = (int16_t)why;
    if (!n->cand[c] && !n->broken) {
        n->broken = BROKE_CELL;
        n->broken_cell = c;
    }
}

static void net_place(net_t *n, int c, int d, int unit)
{
    if (n->broken || n->n == NET_MAX || !(n->cand[c] & (1u << (d - 1))))
        return;
    int i = n->n++;
    n->cell[i] = (uint8_t)c;
    n->digit[i] = (uint8_t)d;
    n->unit[i] = (uint8_t)unit;
    int e;
    FOR_DIGITS(e, n->cand[c] & ~(1u << (d - 1)))
        net_remove(n, c, e, i);
    n->cand[c] = 0;
    n->where[d - 1] &= ~BIT(c);
    n->cells[c] = (uint8_t)d;
    for (int k = 0; k < 3; k++)
        n->held[unit_of(c, k)] |= (uint16_t)(1u << (d - 1));
    int p;
    FOR_CELLS(p, n->where[d - 1] & PEERS[c])
        net_remove(n, p, d, i);
}

#define ROW_CELLS(r) {9 * (r), 9 * (r) + 1, 9 * (r) + 2, 9 * (r) + 3, 9 * (r) + 4, 9 * (r) + 5, \
                      9 * (r) + 6, 9 * (r) + 7, 9 * (r) + 8}
#define COL_CELLS(c) {(c), (c) + 9, (c) + 18, (c) + 27, (c) + 36, (c) + 45, (c) + 54, (c) + 63, (c) + 72}
#define BOX_FIRST(b) (((b) / 3) * 27 + ((b) % 3) * 3)
#define BOX_CELLS(b) {BOX_FIRST(b), BOX_FIRST(b) + 1, BOX_FIRST(b) + 2, BOX_FIRST(b) + 9, BOX_FIRST(b) + 10, \
                      BOX_FIRST(b) + 11, BOX_FIRST(b) + 18, BOX_FIRST(b) + 19, BOX_FIRST(b) + 20}
/* unit_cell(u, i) as a table. */
static const uint8_t UNIT_CELLS[27][9] = {
    ROW_CELLS(0), ROW_CELLS(1), ROW_CELLS(2), ROW_CELLS(3), ROW_CELLS(4), ROW_CELLS(5), ROW_CELLS(6),
    ROW_CELLS(7), ROW_CELLS(8), COL_CELLS(0), COL_CELLS(1), COL_CELLS(2), COL_CELLS(3), COL_CELLS(4),
    COL_CELLS(5), COL_CELLS(6), COL_CELLS(7), COL_CELLS(8), BOX_CELLS(0), BOX_CELLS(1), BOX_CELLS(2),
    BOX_CELLS(3), BOX_CELLS(4), BOX_CELLS(5), BOX_CELLS(6), BOX_CELLS(7), BOX_CELLS(8),
};

/* The digits of unit u, from `from` up, not placed there that have one
 * place left or none: a hidden single or a broken rule. */
static unsigned net_unit_singles(const net_t *n, int u, int from)
{
    unsigned once = 0, twice = 0;
    for (int i = 0; i < 9; i++) {
        unsigned m = n->cand[UNIT_CELLS[u][i]];
        twice |= once & m;
        once |= m;
    }
    return ~twice & ~n->held[u] & (ALL_DIGITS << (from - 1)) & ALL_DIGITS;
}

/* Places singles until none is left or a rule breaks: rounds of naked
 * singles in cell order, then hidden singles by unit and digit, each looked
 * at in the state of its turn. */
static void net_run(net_t *n)
{
    while (!n->broken && n->n < NET_MAX) {
        int before = n->n;
        for (int c = 0; c < 81 && !n->broken; c++)
            if (n->cand[c] && bits9(n->cand[c]) == 1)
                net_place(n, c, low_digit(n->cand[c]), 27);
        for (int u = 0; u < 27 && !n->broken; u++) {
            for (unsigned todo = net_unit_singles(n, u, 1); todo && !n->broken;) {
                int d = low_digit(todo);
                cells_t x = n->where[d - 1] & UNIT[u];
                if (!x) {
                    n->broken = BROKE_UNIT;
                    n->broken_unit = u;
                    n->broken_digit = d;
                } else {
                    net_place(n, first_cell(x), d, u);
                }
                todo = d < 9 ? net_unit_singles(n, u, d + 1) : 0;
            }
        }
        if (n->n == before)
            break;
    }
}

/* Which placements of a net a conclusion needs: it, and recursively what
 * made each needed placement a single. */
typedef struct {
    const net_t *n;
    const logic_board *b;   /* the board before the premise */
    uint8_t need[NET_MAX];
    int branching;          /* some placement needed two earlier ones */
} need_t;

#define PREMISE_UNIT 28

static void need_placement(need_t *x, int i);

static int need_removal(need_t *x, int c, int d)
{
    int why = x->n->cause[NODE_OF(c, d)];
    if (why >= 0)
        need_placement(x, why);
    return why;
}

/* Recursion depth is bounded by NET_MAX: each call marks a new placement. */
static void need_placement(need_t *x, int i)
{
    if (x->need[i])
        return;
    x->need[i] = 1;
    const net_t *n = x->n;
    int c = n->cell[i], d = n->digit[i], u = n->unit[i];
    if (u == PREMISE_UNIT)
        return;
    int first = -3, o, e;
    if (u == 27) {
        FOR_DIGITS(e, x->b->cand[c] & ~(1u << (d - 1))) {
            int why = need_removal(x, c, e);
            if (first == -3)
                first = why;
            x->branching |= why != first;
        }
        return;
    }
    FOR_CELLS(o, x->b->where[d - 1] & UNIT[u] & ~BIT(c)) {
        int why = need_removal(x, o, d);
        if (first == -3)
            first = why;
        x->branching |= why != first;
    }
}

static void need_start(need_t *x, const net_t *n, const logic_board *b)
{
    x->n = n;
    x->b = b;
    memset(x->need, 0, sizeof x->need);
    x->branching = 0;
}

/* What the contradiction of a broken net needs. */
static void need_contradiction(need_t *x)
{
    const net_t *n = x->n;
    int first = -3, e, o;
    if (n->broken == BROKE_CELL) {
        FOR_DIGITS(e, x->b->cand[n->broken_cell]) {
            int why = need_removal(x, n->broken_cell, e);
            if (first == -3)
                first = why;
            x->branching |= why != first;
        }
    } else {
        FOR_CELLS(o, x->b->where[n->broken_digit - 1] & UNIT[n->broken_unit]) {
            int why = need_removal(x, o, n->broken_digit);
            if (first == -3)
                first = why;
            x->branching |= why != first;
        }
    }
}

static int need_count(const need_t *x)
{
    int k = 0;
    for (int i = 0; i < x->n->n; i++)
        k += x->need[i];
    return k;
}

/* Appends a branch's needed placements to the step's chain. */
static void need_to_chain(const need_t *x, logic_step *s, int branch, int premise_cell, int premise_digit,
                          int premise_on)
{
    int at = s->n_chain;
    if (!premise_on) {
        step_node(s, premise_cell, premise_digit, 0, 0);
    }
    for (int i = 0; i < x->n->n; i++)
        if (x->need[i])
            step_node(s, x->n->cell[i], x->n->digit[i], 0, 1);
    for (int i = at; i < s->n_chain; i++)
        s->chain[i].branch = (uint8_t)branch;
}

/* The net of one premise, from `base`: net_init of the board, done once
 * for all the premises of a search. */
static void net_assume(net_t *n, const net_t *base, int c, int d, int on)
{
    memcpy(n, base, NET_COPIED);
    if (on) {
        net_place(n, c, d, PREMISE_UNIT);
    } else {
        net_remove(n, c, d, -1);
    }
    net_run(n);
}

/*
 * Contradiction: the premise (cell c holds d, or with `on` 0 does not) breaks
 * a rule. Premises in cell order, digits up; the one whose contradiction
 * needs the fewest placements wins.
 */
static int find_forcing_contradiction(const logic_board *b, int on, logic_step *s)
{
    net_t base, n;
    need_t x;
    int best = NET_MAX + 1, best_cell = -1, best_digit = 0;
    net_init(&base, b);
    for (int c = 0; c < 81; c++) {
        int d;
        if (!on && bits9(b->cand[c]) < 3)
            continue; /* a cell of two: the other candidate's contradiction */
        FOR_DIGITS(d, b->cand[c]) {
            net_assume(&n, &base, c, d, on);
            if (!n.broken)
                continue;
            need_start(&x, &n, b);
            need_contradiction(&x);
            int k = need_count(&x);
            if (k < best) {
                best = k;
                best_cell = c;
                best_digit = d;
            }
        }
    }
    if (best_cell < 0)
        return 0;
    net_assume(&n, &base, best_cell, best_digit, on);
    need_start(&x, &n, b);
    need_contradiction(&x);
    step_start(s, x.branching ? LOGIC_FORCING_NET : LOGIC_FORCING_CHAIN);
    s->variant = on ? LOGIC_FORCING_CONTRADICTION : LOGIC_FORCING_VERITY;
    if (on)
        step_eliminate_mask(s, b, best_cell, 1u << (best_digit - 1));
    else
        step_place(s, best_cell, best_digit);
    need_to_chain(&x, s, 0, best_cell, best_digit, on);
    s->pattern[0][best_cell] = (uint16_t)(1u << (best_digit - 1));
    s->digits = (uint16_t)(1u << (best_digit - 1));
    if (n.broken == BROKE_CELL) {
        s->pattern[1][n.broken_cell] = b->cand[n.broken_cell];
    } else {
        step_unit(s, n.broken_unit);
        step_mark_digit(s, b, 1, UNIT[n.broken_unit], n.broken_digit);
    }
    return 1;
}

/* The premises of a cell (its candidates) or of a digit in a unit (its
 * places), as (cell, digit) pairs; returns how many. */
static int premises_of(const logic_board *b, int kind, int where, int d, int *cells, int *digits)
{
    int k = 0;
    if (kind == LOGIC_FORCING_CELL) {
        int e;
        FOR_DIGITS(e, b->cand[where]) {
            cells[k] = where;
            digits[k++] = e;
        }
    } else {
        int c;
        FOR_CELLS(c, b->where[d - 1] & UNIT[where]) {
            cells[k] = c;
            digits[k++] = d;
        }
    }
    return k;
}

/* The removed candidates of a net, less the digit it placed in a cell. */
static uint16_t net_gone(const net_t *n, const logic_board *b, int c)
{
    unsigned placed = n->cells[c] && !b->cells[c] ? 1u << (n->cells[c] - 1) : 0;
    return (uint16_t)(b->cand[c] & ~n->cand[c] & ~placed);
}

/*
 * One of k premises holds (on[i] 1: cell i holds digit i; 0: it does not):
 * what every branch forces holds. A branch that breaks a rule is left to the
 * contradiction finder (returns 0). The first common placement in cell order
 * is the step; else every common elimination.
 */
static int try_forcing_premises(const logic_board *b, int variant, int k, const int *cells, const int *digits,
                                const int *on, logic_step *s)
{
    net_t base, n[9];
    uint8_t agree[81];   /* digit every branch placed there, 0 if none */
    uint16_t gone[81];   /* candidates every branch removed */
    net_init(&base, b);
    for (int i = 0; i < k; i++) {
        net_assume(&n[i], &base, cells[i], digits[i], on[i]);
        if (n[i].broken)
            return 0;
    }
    int place_at = -1, any_gone = 0;
    for (int c = 0; c < 81; c++) {
        agree[c] = b->cells[c] ? 0 : n[0].cells[c];
        gone[c] = net_gone(&n[0], b, c);
        for (int i = 1; i < k; i++) {
            if (n[i].cells[c] != agree[c])
                agree[c] = 0;
            gone[c] &= net_gone(&n[i], b, c);
        }
        if (agree[c] && place_at < 0)
            place_at = c;
        any_gone |= gone[c] != 0;
    }
    if (place_at < 0 && !any_gone)
        return 0;
    step_start(s, LOGIC_FORCING_CHAIN);
    s->variant = variant;
    int branching = 0;
    for (int i = 0; i < k; i++) {
        need_t x;
        need_start(&x, &n[i], b);
        if (place_at >= 0) {
            for (int j = 0; j < n[i].n; j++)
                if (n[i].cell[j] == place_at)
                    need_placement(&x, j);
        } else {
            for (int c = 0; c < 81; c++) {
                int e;
                FOR_DIGITS(e, gone[c])
                    need_removal(&x, c, e);
            }
        }
        if (on[i])
            need_placement(&x, 0);
        branching |= x.branching;
        need_to_chain(&x, s, i, cells[i], digits[i], on[i]);
        s->pattern[0][cells[i]] |= (uint16_t)(1u << (digits[i] - 1));
        s->digits |= (uint16_t)(1u << (digits[i] - 1));
    }
    if (branching)
        s->technique = LOGIC_FORCING_NET;
    if (place_at >= 0) {
        step_place(s, place_at, agree[place_at]);
    } else {
        for (int c = 0; c < 81; c++)
            step_eliminate_mask(s, b, c, gone[c]);
    }
    return 1;
}

static int try_forcing_set(const logic_board *b, int kind, int where, int d, logic_step *s)
{
    int cells[9] = {0}, digits[9] = {0}, on[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    int k = premises_of(b, kind, where, d, cells, digits);
    if (!try_forcing_premises(b, kind, k, cells, digits, on, s))
        return 0;
    if (kind == LOGIC_FORCING_UNIT)
        step_unit(s, where);
    return 1;
}

/*
 * Cell and unit forcing: every premise of a cell (or of a digit in a unit)
 * forces the same placement, or removes the same candidate. Premise sets of
 * two first, then three, ...; cells before units at each size (cells in
 * order, then units in order and digits up).
 */
static int find_forcing_sets(const logic_board *b, logic_step *s)
{
    for (int size = 2; size <= 9; size++) {
        for (int c = 0; c < 81; c++)
            if (bits9(b->cand[c]) == size && try_forcing_set(b, LOGIC_FORCING_CELL, c, 0, s))
                return 1;
        for (int u = 0; u < 27; u++)
            for (int d = 1; d <= 9; d++)
                if (popcount(b->where[d - 1] & UNIT[u]) == size &&
                    try_forcing_set(b, LOGIC_FORCING_UNIT, u, d, s))
                    return 1;
    }
    return 0;
}

/* Either: a candidate true and the same candidate false force the same
 * thing. Cells of three or more candidates (a cell of two is a cell
 * forcing), in order, digits up. */
static int find_forcing_either(const logic_board *b, logic_step *s)
{
    for (int c = 0; c < 81; c++) {
        if (bits9(b->cand[c]) < 3)
            continue;
        int d;
        FOR_DIGITS(d, b->cand[c]) {
            int cells[2] = {c, c}, digits[2] = {d, d}, on[2] = {1, 0};
            if (try_forcing_premises(b, LOGIC_FORCING_EITHER, 2, cells, digits, on, s))
                return 1;
        }
    }
    return 0;
}

static int find_forcing(const logic_board *b, logic_step *s)
{
    return find_forcing_contradiction(b, 1, s) || find_forcing_contradiction(b, 0, s) ||
           find_forcing_sets(b, s) || find_forcing_either(b, s);
}

/* ---- Nested forcing and trial ---- */

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
    for (int n = 1; n <= limit; n++) {
        if (t.broken || unit_without_place(&t) >= 0)
            return n;
        if (!logic_find(&t, unique, NESTED_LEVEL, &inner))
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
static int find_nested_forcing(const logic_board *b, int unique, logic_step *s)
{
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
static int find_trial(const logic_board *b, logic_step *s)
{
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

/* ---- The ladder ---- */

typedef int (*finder)(const logic_board *b, logic_step *s);
typedef int (*finder_u)(const logic_board *b, int unique, logic_step *s);
typedef int (*finder_d)(const logic_board *b, unsigned digits, logic_step *s);
typedef int (*finder_n)(const logic_board *b, int n, logic_technique t, unsigned look, logic_step *s);

/* A rung has one finder: `find`; `find_u`, told whether the puzzle is
 * unique; or `find_d`, local: told which digits (bit d - 1) to look at, it
 * tries them up and its step for a digit d depends on where[d - 1] alone
 * (single digit patterns); or, `by_unit`, told which units (bit u) to look
 * at, it tries them box, row, column (BOX_ROW_COL) and its step in a unit
 * depends on the candidates of the unit's cells alone (subsets). `find_n`
 * is a local finder of patterns of `size` (subsets, fish), told the size
 * and technique too. None: trial. */
typedef struct {
    finder find;
    logic_technique technique; /* the technique it finds (the easiest, when several) */
    int uniqueness;            /* needs a puzzle known to be unique */
    finder_u find_u;
    finder_d find_d;
    int by_unit;
    finder_n find_n;
    int size;
} rung;

static const rung LADDER[] = {
    {find_full_house, LOGIC_FULL_HOUSE, 0, NULL, NULL, 0, NULL, 0},
    {find_naked_single, LOGIC_NAKED_SINGLE, 0, NULL, NULL, 0, NULL, 0},
    {find_hidden_single, LOGIC_HIDDEN_SINGLE, 0, NULL, NULL, 0, NULL, 0},
    {find_pointing, LOGIC_POINTING, 0, NULL, NULL, 0, NULL, 0},
    {find_claiming, LOGIC_CLAIMING, 0, NULL, NULL, 0, NULL, 0},
    {NULL, LOGIC_NAKED_PAIR, 0, NULL, NULL, 1, find_naked_subset, 2},
    {NULL, LOGIC_HIDDEN_PAIR, 0, NULL, NULL, 1, find_hidden_subset, 2},
    {NULL, LOGIC_NAKED_TRIPLE, 0, NULL, NULL, 1, find_naked_subset, 3},
    {NULL, LOGIC_HIDDEN_TRIPLE, 0, NULL, NULL, 1, find_hidden_subset, 3},
    {NULL, LOGIC_X_WING, 0, NULL, NULL, 0, find_basic_fish, 2},
    {NULL, LOGIC_NAKED_QUAD, 0, NULL, NULL, 1, find_naked_subset, 4},
    {NULL, LOGIC_HIDDEN_QUAD, 0, NULL, NULL, 1, find_hidden_subset, 4},
    {NULL, LOGIC_SKYSCRAPER, 0, NULL, find_skyscraper, 0, NULL, 0},
    {NULL, LOGIC_TWO_STRING_KITE, 0, NULL, find_two_string_kite, 0, NULL, 0},
    {NULL, LOGIC_SWORDFISH, 0, NULL, NULL, 0, find_basic_fish, 3},
    {find_xy_wing, LOGIC_XY_WING, 0, NULL, NULL, 0, NULL, 0},
    {find_w_wing, LOGIC_W_WING, 0, NULL, NULL, 0, NULL, 0},
    {NULL, LOGIC_FINNED_X_WING, 0, NULL, NULL, 0, find_finned_fish, 2},
    {find_xyz_wing, LOGIC_XYZ_WING, 0, NULL, NULL, 0, NULL, 0},
    {NULL, LOGIC_SIMPLE_COLORING, 0, NULL, find_simple_coloring, 0, NULL, 0},
    {find_unique_rectangle, LOGIC_UNIQUE_RECTANGLE, 1, NULL, NULL, 0, NULL, 0},
    {find_bug_plus_one, LOGIC_BUG_PLUS_ONE, 1, NULL, NULL, 0, NULL, 0},
    {NULL, LOGIC_JELLYFISH, 0, NULL, NULL, 0, find_basic_fish, 4},
    {NULL, LOGIC_FINNED_SWORDFISH, 0, NULL, NULL, 0, find_finned_fish, 3},
    {NULL, LOGIC_FINNED_JELLYFISH, 0, NULL, NULL, 0, find_finned_fish, 4},
    {NULL, LOGIC_X_CHAIN, 0, NULL, find_x_chain, 0, NULL, 0},
    {find_xy_chain, LOGIC_XY_CHAIN, 0, NULL, NULL, 0, NULL, 0},
    {find_aic, LOGIC_AIC, 0, NULL, NULL, 0, NULL, 0},
    {find_als, LOGIC_ALS_XZ, 0, NULL, NULL, 0, NULL, 0}, /* and ALS-XY-wing, on the same ALSs */
    {find_forcing, LOGIC_FORCING_CHAIN, 0, NULL, NULL, 0, NULL, 0},
    {NULL, LOGIC_NESTED_FORCING, 0, find_nested_forcing, NULL, 0, NULL, 0},
    {NULL, LOGIC_TRIAL, 0, NULL, NULL, 0, NULL, 0},
};

#define RUNGS (sizeof LADDER / sizeof LADDER[0])

/* What a solve remembers between its steps: for each local rung, the cells
 * of every digit when it last found nothing. Its step for a digit (a unit)
 * depends on that digit's cells (the unit's candidates) alone, so it looks
 * again only at the digits (units) that changed since: the others still
 * have none, and it tries them in its fixed order, so the step it finds is
 * the one it finds on all. */
typedef struct {
    cells_t where[RUNGS][9];
    uint8_t known[RUNGS];
} ladder_memo;

static int find_local(const logic_board *b, size_t i, ladder_memo *memo, logic_step *out)
{
    int by_unit = LADDER[i].by_unit;
    unsigned look = by_unit ? ALL_UNITS : ALL_DIGITS;
    if (memo && memo->known[i]) {
        look = 0;
        cells_t changed = 0;
        for (int d = 0; d < 9; d++) {
            cells_t x = memo->where[i][d] ^ b->where[d];
            changed |= x;
            if (x)
                look |= 1u << d;
        }
        if (by_unit) {
            look = 0;
            for (int u = 0; u < 27; u++)
                if (changed & UNIT[u])
                    look |= 1u << u;
        }
    }
    const rung *r = &LADDER[i];
    if (look && (r->find_d ? r->find_d(b, look, out) : r->find_n(b, r->size, r->technique, look, out))) {
        if (memo)
            memo->known[i] = 0;
        return 1;
    }
    if (memo) {
        memcpy(memo->where[i], b->where, sizeof b->where);
        memo->known[i] = 1;
    }
    return 0;
}

/* The ladder from rung `first` on; `memo` is NULL or the solve's memory. */
static int find_from(const logic_board *b, int unique, int max_level, size_t first, ladder_memo *memo,
                     logic_step *out)
{
    if (b->broken || !b->blanks)
        return 0;
    for (size_t i = first; i < RUNGS; i++) {
        const rung *r = &LADDER[i];
        if (logic_level(r->technique) > max_level || (r->uniqueness && !unique))
            continue;
        if (r->find_d || r->find_n ? find_local(b, i, memo, out)
            : r->find ? r->find(b, out) : r->find_u ? r->find_u(b, unique, out) : find_trial(b, out))
            return 1;
    }
    return 0;
}

int logic_find(const logic_board *b, int unique, int max_level, logic_step *out)
{
    return find_from(b, unique, max_level, 0, NULL, out);
}

/* The rungs before this one are the singles. */
#define AFTER_SINGLES 3

/* Places every naked and hidden single there is now; returns how many. */
static int place_singles(logic_board *b)
{
    int placed = 0;
    for (int c = 0; c < 81; c++)
        if (b->cand[c] && bits9(b->cand[c]) == 1) {
            place(b, c, low_digit(b->cand[c]));
            placed++;
        }
    for (int u = 0; u < 27; u++)
        for (int d = 1; d <= 9; d++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (x && !(x & (x - 1))) {
                place(b, first_cell(x), d);
                placed++;
            }
        }
    return placed;
}

int logic_solvable(logic_board *b, int unique, int max_level)
{
    logic_step s;
    ladder_memo memo;
    memset(memo.known, 0, sizeof memo.known);
    while (!b->broken && b->blanks) {
        if (place_singles(b))
            continue;
        if (!find_from(b, unique, max_level, AFTER_SINGLES, &memo, &s))
            break;
        logic_apply(b, &s);
    }
    return !b->broken && !b->blanks;
}

/* ---- Grading ---- */

static const struct {
    uint16_t weight;
    uint8_t level;
} GRADES[LOGIC_TECHNIQUES] = {
    [LOGIC_NONE] = {0, 0},
    [LOGIC_FULL_HOUSE] = {4, 1},
    [LOGIC_NAKED_SINGLE] = {4, 1},
    [LOGIC_HIDDEN_SINGLE] = {14, 1},
    [LOGIC_POINTING] = {50, 2},
    [LOGIC_CLAIMING] = {50, 2},
    [LOGIC_NAKED_PAIR] = {60, 2},
    [LOGIC_HIDDEN_PAIR] = {70, 2},
    [LOGIC_NAKED_TRIPLE] = {80, 3},
    [LOGIC_HIDDEN_TRIPLE] = {100, 3},
    [LOGIC_X_WING] = {140, 3},
    [LOGIC_NAKED_QUAD] = {120, 3},
    [LOGIC_HIDDEN_QUAD] = {150, 3},
    [LOGIC_SKYSCRAPER] = {130, 3},
    [LOGIC_TWO_STRING_KITE] = {150, 3},
    [LOGIC_SWORDFISH] = {150, 3},
    [LOGIC_XY_WING] = {160, 3},
    [LOGIC_W_WING] = {150, 3},
    [LOGIC_FINNED_X_WING] = {130, 3},
    [LOGIC_SASHIMI_X_WING] = {150, 3},
    [LOGIC_XYZ_WING] = {180, 3},
    [LOGIC_SIMPLE_COLORING] = {150, 3},
    [LOGIC_UNIQUE_RECTANGLE] = {100, 3},
    [LOGIC_BUG_PLUS_ONE] = {100, 3},
    [LOGIC_JELLYFISH] = {160, 4},
    [LOGIC_FINNED_SWORDFISH] = {200, 4},
    [LOGIC_SASHIMI_SWORDFISH] = {240, 4},
    [LOGIC_FINNED_JELLYFISH] = {250, 4},
    [LOGIC_SASHIMI_JELLYFISH] = {260, 4},
    [LOGIC_X_CHAIN] = {260, 4},
    [LOGIC_XY_CHAIN] = {260, 4},
    [LOGIC_AIC] = {280, 4},
    [LOGIC_NICE_LOOP] = {280, 4},
    [LOGIC_ALS_XZ] = {300, 4},
    [LOGIC_ALS_XY_WING] = {320, 4},
    [LOGIC_FORCING_CHAIN] = {500, 5},
    [LOGIC_FORCING_NET] = {700, 5},
    [LOGIC_NESTED_FORCING] = {1000, 5},
    [LOGIC_TRIAL] = {2000, 5},
};

static const char *const NAMES[LOGIC_TECHNIQUES] = {
    "NONE", "FULL_HOUSE", "NAKED_SINGLE", "HIDDEN_SINGLE", "POINTING", "CLAIMING",
    "NAKED_PAIR", "HIDDEN_PAIR", "NAKED_TRIPLE", "HIDDEN_TRIPLE", "X_WING",
    "NAKED_QUAD", "HIDDEN_QUAD", "SKYSCRAPER", "TWO_STRING_KITE", "SWORDFISH",
    "XY_WING", "W_WING", "FINNED_X_WING", "SASHIMI_X_WING", "XYZ_WING",
    "SIMPLE_COLORING", "UNIQUE_RECTANGLE", "BUG_PLUS_ONE", "JELLYFISH",
    "FINNED_SWORDFISH", "SASHIMI_SWORDFISH", "FINNED_JELLYFISH", "SASHIMI_JELLYFISH",
    "X_CHAIN", "XY_CHAIN", "AIC", "NICE_LOOP", "ALS_XZ", "ALS_XY_WING",
    "FORCING_CHAIN", "FORCING_NET", "NESTED_FORCING", "TRIAL",
};

const char *logic_name(logic_technique t)
{
    return t > LOGIC_NONE && t < LOGIC_TECHNIQUES ? NAMES[t] : NAMES[LOGIC_NONE];
}

uint32_t logic_weight(logic_technique t)
{
    return t > LOGIC_NONE && t < LOGIC_TECHNIQUES ? GRADES[t].weight : 0;
}

int logic_level(logic_technique t)
{
    return t > LOGIC_NONE && t < LOGIC_TECHNIQUES ? GRADES[t].level : 0;
}

void logic_solve(logic_board *b, int unique, int max_level, logic_grade *g)
{
    memset(g, 0, sizeof *g);
    logic_step s;
    ladder_memo memo;
    memset(memo.known, 0, sizeof memo.known);
    while (find_from(b, unique, max_level, 0, &memo, &s)) {
        logic_apply(b, &s);
        g->steps++;
        g->counts[s.technique]++;
        g->score += logic_weight(s.technique);
        if (logic_level(s.technique) > logic_level(g->hardest) ||
            (logic_level(s.technique) == logic_level(g->hardest) &&
             logic_weight(s.technique) > logic_weight(g->hardest)))
            g->hardest = s.technique;
    }
    g->solved = !b->blanks && !b->broken;
}

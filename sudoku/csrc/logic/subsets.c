/*
 * subsets.c: naked and hidden pairs, triples and quads.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

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
static int find_naked_subset(const logic_board *b, const rung_args *args, logic_step *s)
{
    int n = args->size;
    logic_technique t = args->technique;
    unsigned units = args->look;
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
static int find_hidden_subset(const logic_board *b, const rung_args *args, logic_step *s)
{
    int n = args->size;
    logic_technique t = args->technique;
    unsigned units = args->look;
    subset_ctx x = {b, 0, {0}, t};
    unsigned mask[9];
    subset_search q = {mask, 0, n, {0}, hidden_found, &x, s};
    for (int i = 0; i < 27; i++) {
        x.u = BOX_ROW_COL[i];
        if (!(units >> x.u & 1))
            continue;
        /* most units have fewer than n digits of 2..n places: count first */
        int few = 0;
        for (int d = 1; d <= 9; d++) {
            int k = popcount(b->where[d - 1] & UNIT[x.u]);
            few += k >= 2 && k <= n;
        }
        if (few < n)
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

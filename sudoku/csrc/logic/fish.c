/*
 * fish.c: basic fish (X-wing, swordfish, jellyfish), finned and sashimi fish.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

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
static int find_basic_fish(const logic_board *b, const rung_args *args, logic_step *s)
{
    int n = args->size;
    logic_technique t = args->technique;
    unsigned digits = args->look;
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
static int find_finned_fish(const logic_board *b, const rung_args *args, logic_step *s)
{
    int n = args->size;
    logic_technique finned = args->technique;
    unsigned digits = args->look;
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

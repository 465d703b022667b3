/*
 * fish.c: basic fish (X-wing, swordfish, jellyfish), finned and sashimi fish,
 * Franken fish and finned Franken fish.
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
    unsigned mk[4], base = 0, others = 0;
    for (int j = 0; j < n; j++) {
        lines[j] = q->list[q->idx[j]];
        mk[j] = q->mask[lines[j]];
        base |= 1u << lines[j];
    }
    for (int l = 0; l < 9; l++)
        if (!(base >> l & 1))
            others |= q->mask[l];
    for (int group = 0; group < 3; group++) {
        unsigned in_group = 7u << (3 * group), outside = all & ~in_group;
        int need = n - bits9(outside);
        if (need <= 0)
            continue; /* no cover line in the group: nothing to eliminate in the fins' box */
        if (!(all & in_group & others))
            continue; /* no line off the base holds the digit where a cover line meets the group */
        int pool[3], pm = 0, p;
        FOR_DIGITS(p, all & in_group)
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
 * positions spread past n - 1 cover lines and one box's three (adding a
 * line never narrows them): the fish needs a cover line through the fins'
 * box to remove anything. */
static int finned_dfs(finned_search *q, int start, int depth, unsigned all)
{
    if (depth == q->n)
        return bits9(all) > q->n && finned_try(q, all);
    for (int i = start; i <= q->m - (q->n - depth); i++) {
        unsigned next = all | q->mask[q->list[i]];
        /* outside the group of the fins' box, n - 1 cover lines at most */
        if (bits9(next & ~0x7u) >= q->n && bits9(next & ~0x38u) >= q->n && bits9(next & ~0x1C0u) >= q->n)
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

/*
 * Franken fish of size n (X-wing 2, swordfish 3): n base units and n cover
 * units on one digit, the base rows and boxes and the cover columns and
 * boxes, or the base columns and boxes and the cover rows and boxes, with
 * a box among them (without one it is a basic fish). No two base units
 * share a cell holding the digit, so the solution has n of it there, in n
 * cells. With every base candidate in a cover unit, those n are in the
 * covers, and as each cover unit holds the digit once, they are all the
 * covers hold: the digit goes from the cover units' other cells. Finned:
 * the base candidates that no cover unit holds are fins (up to
 * FRANKEN_MAX_FINS; more are rare and slow to look for); either a fin is true or the fish is, so the digit
 * goes from those cells that also see every fin. Digits up, base rows and
 * boxes before base columns and boxes, base units (in unit order) in
 * lexicographic combinations, then covers: the first uncovered base cell's
 * line, then its box, then (finned) the cell as a fin.
 */
#define FRANKEN_MAX_FINS 2

typedef struct {
    const logic_board *b;
    int d, cols, n, finned;
    cells_t where;           /* the digit's cells */
    cells_t base_cells;      /* the base units' candidates of the digit */
    uint32_t base, cover;    /* units, bit u */
    logic_technique t;
    logic_step *s;
    /* per unit, the base cells it holds, summed from held[] as base units
     * are chosen (they share no cell): franken_may_cover's counts without
     * a popcount per unit at every base */
    uint8_t hold[32];
    const uint8_t (*held)[32]; /* per base unit of the list, each unit's cells of it */
} franken_search;

static int franken_done(franken_search *q, cells_t covered, cells_t fins)
{
    if (!(q->base & (0x1FFu << 18)) && !(q->cover & (0x1FFu << 18)))
        return 0; /* no box: a basic or finned basic fish, an earlier rung's */
    if (!q->finned != !fins || popcount(fins) > FRANKEN_MAX_FINS)
        return 0;
    cells_t out = covered & ~q->base_cells;
    if (fins)
        out &= common_peers(fins);
    if (!out)
        return 0;
    step_start(q->s, q->t);
    step_eliminate(q->s, q->b, out, q->d);
    step_mark_digit(q->s, q->b, 0, q->base_cells & ~fins, q->d);
    step_mark_digit(q->s, q->b, 1, fins, q->d);
    int u;
    for (u = 0; u < 27; u++)
        if (q->base >> u & 1)
            step_unit(q->s, u);
    for (u = 0; u < 27; u++)
        if (q->cover >> u & 1)
            step_unit(q->s, u);
    q->s->digits = (uint16_t)(1u << (q->d - 1));
    return 1;
}

/* Whether `left` more cover units and `fins` more fins could take the
 * base cells `rest` (the base's but the fins `out`, no cover yet): the
 * `left` units holding most of them, and the fins, hold as many. The
 * units: the cover kind's lines and the boxes not used. */
static int franken_may_cover(const franken_search *q, cells_t rest, cells_t out, int left, int fins)
{
    int need = popcount(rest) - fins;
    if (need <= 0)
        return 1;
    uint8_t hold[32];
    memcpy(hold, q->hold, sizeof hold);
    int c;
    FOR_CELLS(c, out) {
        hold[q->cols ? row_of(c) : 9 + col_of(c)]--;
        hold[18 + box_of(c)]--;
    }
    /* the cover kind's lines and the boxes, by how many of `rest` each holds */
    uint32_t units = (q->cols ? 0x7FC01FFu : 0x7FFFE00u) & ~(q->base | q->cover);
    int holding[10] = {0};
    for (; units; units &= units - 1)
        holding[hold[__builtin_ctz(units)]]++;
    for (int k = 9; k > 0 && left > 0 && need > 0; k--)
        for (; holding[k] && left > 0; holding[k]--, left--)
            need -= k;
    return need <= 0;
}

/* Covers for the base in q: `covered` the digit's cells in the cover units
 * so far, `fins` the base cells left uncovered, `seen` the cells that see
 * every fin, `k` the cover units. */
static int franken_cover(franken_search *q, cells_t covered, cells_t fins, cells_t seen, int k)
{
    cells_t rest = q->base_cells & ~covered & ~fins;
    if (k == q->n) {
        if (rest && (popcount(fins | rest) > FRANKEN_MAX_FINS || !(common_peers(rest) & seen)))
            return 0;
        return franken_done(q, covered, fins | rest);
    }
    if (!rest)
        return 0; /* fewer covers than base units: not a fish of this size */
    /* a bound worth its cost once a base, not at every cover */
    if (!k && !franken_may_cover(q, rest, fins, q->n, q->finned ? FRANKEN_MAX_FINS : 0))
        return 0;
    int c = first_cell(rest);
    int units[2] = {q->cols ? row_of(c) : 9 + col_of(c), 18 + box_of(c)};
    for (int i = 0; i < 2; i++) {
        int u = units[i];
        if ((q->base | q->cover) >> u & 1)
            continue;
        q->cover |= 1u << u;
        int found = franken_cover(q, covered | (UNIT[u] & q->where), fins, seen, k + 1);
        q->cover &= ~(1u << u);
        if (found)
            return 1;
    }
    if (!q->finned || popcount(fins) >= FRANKEN_MAX_FINS)
        return 0;
    /* the fins must leave a cell seeing them all that could lose the digit */
    cells_t with = seen & PEERS[c];
    if (!(with & q->where & ~q->base_cells))
        return 0;
    return franken_cover(q, covered, fins | BIT(c), with, k);
}

/* Base units from list[start..] (units, in order), `depth` chosen so far. */
static int franken_base(franken_search *q, const int *list, int m, int start, int depth)
{
    if (depth == q->n)
        return franken_cover(q, 0, 0, ALL_CELLS, 0);
    for (int i = start; i <= m - (q->n - depth); i++) {
        cells_t cells = UNIT[list[i]] & q->where;
        if (cells & q->base_cells)
            continue; /* base units share no candidate */
        q->base |= 1u << list[i];
        q->base_cells |= cells;
        for (int u = 0; u < 32; u++)
            q->hold[u] = (uint8_t)(q->hold[u] + q->held[i][u]);
        int found = franken_base(q, list, m, i + 1, depth + 1);
        for (int u = 0; u < 32; u++)
            q->hold[u] = (uint8_t)(q->hold[u] - q->held[i][u]);
        q->base &= ~(1u << list[i]);
        q->base_cells &= ~cells;
        if (found)
            return 1;
    }
    return 0;
}

/* `technique`: LOGIC_FINNED_FRANKEN_SWORDFISH (finned; any other technique
 * looks for the fish without fins); args->size n. The ladder has the
 * finned swordfish alone: a Franken X-wing is a grouped X-chain of its two
 * base units (each meets both covers once pointing and claiming are done),
 * and no board was found where a Franken swordfish or a finned Franken
 * X-wing comes before the rungs below it, while each costs a search. */
static int find_franken_fish(const logic_board *b, const rung_args *args, logic_step *s)
{
    franken_search q = {b, 0, 0, args->size, 0, 0, 0, 0, 0, args->technique, s, {0}, NULL};
    uint8_t held[18][32];
    q.held = held;
    q.finned = args->technique == LOGIC_FINNED_FRANKEN_SWORDFISH;
    FOR_DIGITS(q.d, args->look) {
        q.where = b->where[q.d - 1];
        for (q.cols = 0; q.cols < 2; q.cols++) {
            int list[18], m = 0;
            for (int u = 0; u < 27; u++) {
                int kind = u < 9 ? 0 : u < 18 ? 1 : 2;
                if ((kind == 2 || kind == q.cols) && popcount(UNIT[u] & q.where) >= 2)
                    list[m++] = u;
            }
            if (m < q.n)
                continue;
            /* the cover kind's lines and the boxes: the units may_cover counts */
            uint32_t covers = q.cols ? 0x7FC01FFu : 0x7FFFE00u;
            for (int i = 0; i < m; i++) {
                memset(held[i], 0, sizeof held[i]);
                cells_t cells = UNIT[list[i]] & q.where;
                for (uint32_t us = covers; us; us &= us - 1) {
                    int u = __builtin_ctz(us);
                    held[i][u] = (uint8_t)popcount(UNIT[u] & cells);
                }
            }
            if (m >= q.n && franken_base(&q, list, m, 0, 0))
                return 1;
        }
    }
    return 0;
}

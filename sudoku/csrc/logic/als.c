/*
 * als.c: almost locked sets: ALS-XZ, ALS-XY-wing and ALS-XY-chain.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

#include <stdlib.h>

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
    uint16_t outs;  /* its digits z with a candidate outside it that sees every z of it:
                       an ALS step can remove z only where such a candidate is */
} als_t;

/* ALSs bigger than this are not looked for (a reader cannot hold them). */
#define ALS_MAX_SIZE 8
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

/* The ALSs of `size` cells among unit u's cells list[start..m - 1], `depth`
 * of them chosen (`set`, holding `digits`), in lexicographic order; 0 once
 * the list is full. A choice whose digits are already more than size + 1
 * has no ALS among its extensions: they hold those digits too. */
static int collect_als_in(const logic_board *b, als_list *l, int u, int size, const int *list, int m, int start,
                          int depth, unsigned digits, cells_t set)
{
    if (depth == size) {
        if (bits9(digits) != size + 1)
            return 1;
        if (u >= 18 && size > 1) {
            int c = first_cell(set);
            if (!(set & ~UNIT[row_of(c)]) || !(set & ~UNIT[9 + col_of(c)]))
                return 1;
        }
        if (l->n == ALS_MAX || l->n_seen + size + 1 > ALS_SEEN_MAX)
            return 0;
        als_t *a = &l->als[l->n++];
        a->cells = set;
        a->digits = (uint16_t)digits;
        a->unit = (uint8_t)u;
        a->size = (uint8_t)size;
        a->seen = (uint16_t)l->n_seen;
        a->outs = 0;
        int x;
        FOR_DIGITS(x, digits) {
            cells_t seen = common_peers(b->where[x - 1] & set);
            l->seen[l->n_seen++] = seen;
            if (seen & b->where[x - 1])
                a->outs |= (uint16_t)(1u << (x - 1));
        }
        return 1;
    }
    for (int i = start; i <= m - (size - depth); i++) {
        unsigned with = digits | b->cand[list[i]];
        if (bits9(with) > size + 1)
            continue;
        if (!collect_als_in(b, l, u, size, list, m, i + 1, depth + 1, with, set | BIT(list[i])))
            return 0;
    }
    return 1;
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
            if (!collect_als_in(b, l, u, size, list, m, 0, 0, 0, 0))
                return;
        }
    }
}

/* The restricted common digits of two disjoint ALSs: x when every x of one
 * sees every x of the other. */
static unsigned restricted_commons(const logic_board *b, const als_list *l, const als_t *a, const als_t *c)
{
    unsigned result = 0;
    int x;
    FOR_DIGITS(x, a->outs & c->outs) { /* see find_als_xz */
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

/* The first z of `zs` that cells seeing every z of A and B hold, its
 * eliminations put in a new step of `t`; 0 when no z removes anything. */
static int als_z_step(const logic_board *b, const als_list *l, const als_t *a, const als_t *c, unsigned zs,
                      logic_technique t, logic_step *s)
{
    int z;
    FOR_DIGITS(z, zs) {
        if (als_z_out(b, l, a, c, z, NULL)) {
            step_start(s, t);
            als_z_out(b, l, a, c, z, s);
            return z;
        }
    }
    return 0;
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
    uint64_t in_cell[81][ALS_MAX / 64]; /* per cell, the ALSs holding it (bit i for ALS i) */
} als_work;

/* ALS i's kept partners of one list, down (list 0: earlier ALSs) or up. */
typedef struct {
    const uint16_t *to, *common;
    int from, end;
} als_kept;

static inline als_kept als_kept_of(const als_work *w, int i, int list)
{
    if (list)
        return (als_kept){w->up, w->up_common, w->up_first[i], w->up_first[i + 1]};
    return (als_kept){w->down, w->down_common, w->down_first[i], w->down_first[i + 1]};
}

/*
 * ALS-XZ: ALSs A and B with a restricted common x; if A lacks x it is locked
 * without it, and so is B otherwise: a digit z of both is then in A or B, so
 * cells seeing every z of both lose z. Pairs in list order, x up, z up.
 */
static int find_als_xz(const logic_board *b, als_work *w, logic_step *s)
{
    const als_list *l = &w->list;
    int words = (l->n + 63) / 64;
    for (int c = 0; c < 81; c++)
        memset(w->in_cell[c], 0, (size_t)words * sizeof w->in_cell[c][0]);
    for (int i = 0; i < l->n; i++) {
        int c;
        FOR_CELLS(c, l->als[i].cells)
            w->in_cell[c][i / 64] |= 1ull << (i % 64);
    }
    w->pairs = 0;
    for (int i = 0; i < l->n; i++) {
        if (w->pairs >= 0)
            w->up_first[i] = (uint16_t)w->pairs;
        const als_t *a = &l->als[i];
        cells_t seen_a[9]; /* als_seen of A's digits, looked up once for all its pairs */
        /* A restricted common x of A and C has C's x cells seeing every x
         * of A: x is in A's outs (and in C's the same way, as z is), and C
         * has a cell in `reach`. Most ALSs have none, and are passed over
         * at the cost of one test. */
        cells_t reach = 0, own = a->cells;
        int x;
        FOR_DIGITS(x, a->digits) {
            seen_a[x - 1] = als_seen(l, a, x);
            if (a->outs >> (x - 1) & 1)
                reach |= seen_a[x - 1] & b->where[x - 1];
        }
        /* the later ALSs with a cell in `reach` and none in A, in order */
        uint64_t later[ALS_MAX / 64];
        int from = (i + 1) / 64, cell;
        for (int k = from; k < words; k++)
            later[k] = 0;
        FOR_CELLS(cell, reach)
            for (int k = from; k < words; k++)
                later[k] |= w->in_cell[cell][k];
        FOR_CELLS(cell, own)
            for (int k = from; k < words; k++)
                later[k] &= ~w->in_cell[cell][k];
        if ((i + 1) % 64)
            later[from] &= ~0ull << ((i + 1) % 64);
        for (int k = from; k < words; k++)
            for (uint64_t bits = later[k]; bits; bits &= bits - 1) {
                int j = k * 64 + __builtin_ctzll(bits);
                const als_t *c = &l->als[j];
                unsigned common = a->outs & c->outs, rcc = 0;
                if (!common)
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
                    int z = als_z_step(b, l, a, c, common & ~(1u << (x - 1)), LOGIC_ALS_XZ, s);
                    if (!z)
                        continue;
                    als_mark(b, s, 0, a);
                    als_mark(b, s, 1, c);
                    s->digits = (uint16_t)((1u << (x - 1)) | (1u << (z - 1)));
                    return 1;
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
                        unsigned zs = a->outs & bb->outs & ~((1u << (x - 1)) | (1u << (y - 1)));
                        int z = als_z_step(b, l, a, bb, zs, LOGIC_ALS_XY_WING, s);
                        if (!z)
                            continue;
                        als_mark(b, s, 0, a);
                        als_mark(b, s, 1, bb);
                        als_mark(b, s, 2, c);
                        s->digits = (uint16_t)((1u << (x - 1)) | (1u << (y - 1)) | (1u << (z - 1)));
                        return 1;
                    }
                }
            }
    }
    return 0;
}

/* ALSs in an ALS-XY-chain at most, and the states its search keeps. */
#define ALS_CHAIN_MAX 5
#define ALS_CHAIN_STATES 4096

/* A state of the chain search: an ALS entered by a restricted common
 * (which it then lacks), the queue index it came from, the first common. */
typedef struct {
    int16_t als, from;
    uint8_t rcc, first, depth;
} als_state;

typedef struct {
    uint16_t seen[ALS_MAX];       /* per ALS, the commons it was entered by */
    als_state q[ALS_CHAIN_STATES];
} als_chain_work;

/* The chain search from first ALS a (see find_als_xy_chain). */
static int als_chain_from(const logic_board *b, als_work *w, als_chain_work *cw, int a, logic_step *s)
{
    const als_list *l = &w->list;
    const als_t *first = &l->als[a];
    if (!first->outs)
        return 0; /* no chain from it removes anything */
    memset(cw->seen, 0, (size_t)l->n * sizeof cw->seen[0]);
    cw->seen[a] = 0xFFFF; /* a chain does not come back to A1 */
    int head = 0, tail = 0;
    int m = als_partners(b, w, a);
    for (int i = 0; i < m && tail < ALS_CHAIN_STATES; i++) {
        int x;
        FOR_DIGITS(x, w->common[i]) {
            if (tail == ALS_CHAIN_STATES || (cw->seen[w->partner[i]] >> x & 1))
                continue;
            cw->seen[w->partner[i]] |= (uint16_t)(1u << x);
            cw->q[tail++] = (als_state){(int16_t)w->partner[i], -1, (uint8_t)x, (uint8_t)x, 2};
        }
    }
    while (head < tail) {
        int at = head++;
        als_state st = cw->q[at];
        const als_t *last = &l->als[st.als];
        if (st.depth >= 3) {
            unsigned zs = first->outs & last->outs & ~(1u << (st.first - 1)) & ~(1u << (st.rcc - 1));
            int z = als_z_step(b, l, first, last, zs, LOGIC_ALS_XY_CHAIN, s);
            if (z) {
                int chain[ALS_CHAIN_MAX], n = 0;
                for (int k = at; k >= 0; k = cw->q[k].from) {
                    chain[n++] = cw->q[k].als;
                    s->digits |= (uint16_t)(1u << (cw->q[k].rcc - 1));
                }
                chain[n++] = a;
                for (int k = n - 1; k >= 0; k--)
                    als_mark(b, s, k == n - 1 ? 0 : k == 0 ? 1 : 2, &l->als[chain[k]]);
                s->digits |= (uint16_t)(1u << (z - 1));
                s->variant = n;
                return 1;
            }
        }
        if (st.depth == ALS_CHAIN_MAX)
            continue;
        if (tail == ALS_CHAIN_STATES)
            continue; /* nothing more is kept */
        /* the commons by which each partner is entered and was not yet:
         * seen[j] bit x is common x - 1's bit; A1's seen is full */
        unsigned other = ~(1u << (st.rcc - 1));
        if (w->pairs >= 0) {
            /* the kept pairs read in place, down then up, list order */
            for (int list = 0; list < 2 && tail < ALS_CHAIN_STATES; list++) {
                als_kept p = als_kept_of(w, st.als, list);
                const uint16_t *to = p.to, *common = p.common;
                int from = p.from, end = p.end;
                for (int e = from; e < end; e++) {
                    int j = to[e];
                    unsigned fresh = common[e] & other & ~((unsigned)cw->seen[j] >> 1);
                    if (!fresh)
                        continue;
                    cw->seen[j] |= (uint16_t)(fresh << 1);
                    int x;
                    FOR_DIGITS(x, fresh) {
                        cw->q[tail++] = (als_state){(int16_t)j, (int16_t)at, (uint8_t)x, st.first,
                                                    (uint8_t)(st.depth + 1)};
                        if (tail == ALS_CHAIN_STATES)
                            break;
                    }
                    if (tail == ALS_CHAIN_STATES)
                        break;
                }
            }
            continue;
        }
        m = als_partners(b, w, st.als);
        for (int e = 0; e < m; e++) {
            int j = w->partner[e];
            if (j == a)
                continue;
            int x;
            FOR_DIGITS(x, w->common[e] & other) {
                if (tail == ALS_CHAIN_STATES || (cw->seen[j] >> x & 1))
                    continue;
                cw->seen[j] |= (uint16_t)(1u << x);
                cw->q[tail++] = (als_state){(int16_t)j, (int16_t)at, (uint8_t)x, st.first, (uint8_t)(st.depth + 1)};
            }
        }
    }
    return 0;
}

/* The lanes' work, sized for a board's ALS states (n_seen of them). A
 * level touches few states, so only they are cleared (mark is zero between
 * levels), and nothing needs zeroing when it is allocated but mark. */
typedef struct {
    uint64_t *seen;     /* per state, the lanes that reached it */
    uint64_t *next;     /* per state k and first common f, 9 * k + f - 1: the lanes reaching it next */
    uint64_t *cur;      /* per state of the level being expanded (at), its 9 such lanes */
    uint16_t *touched;  /* the states with some next, once each */
    uint8_t *mark;      /* per state, whether it is in touched */
    uint16_t *at;       /* the states of the level being expanded */
    uint16_t *als_of;   /* per state, its ALS */
    uint8_t *digit_of;  /* and the common it is entered by */
    /* per state (j, x), the states a chain goes on to from it: its kept
     * pairs' (j', y), y not x, in succ[succ_first[k]..succ_first[k + 1] - 1];
     * a batch expands most states at several depths */
    uint32_t *succ_first;
    uint16_t *succ;
} als_lanes;

#define ALS_LANES_BYTES (8 + 9 * 8 + 9 * 8 + 2 + 1 + 2 + 2 + 1)

/* The index of state (j, x) in als_lanes' arrays (x is a digit of j). */
static inline int als_state_index(const als_list *l, int j, int x)
{
    return l->als[j].seen + bits9(l->als[j].digits & ((1u << (x - 1)) - 1));
}

/* Lanes `bits` reach state k with first common f next. */
static inline void als_lanes_add(als_lanes *ln, int *nt, int k, int f, uint64_t bits)
{
    if (!ln->mark[k]) {
        ln->mark[k] = 1;
        ln->touched[(*nt)++] = (uint16_t)k;
        memset(&ln->next[9 * k], 0, 9 * sizeof ln->next[0]);
    }
    ln->next[9 * k + f - 1] |= bits;
}

/*
 * Of the first ALSs starts[0..n-1] (n <= 64, each with outs), the bits of
 * those from which als_chain_from may find a chain: 64 searches at once,
 * one bit each, level by level (as chains.c's shortest chains). Most first
 * ALSs start no chain, and each search visited its states again. A search
 * keeps state (j, x) once, at the first depth it reaches it, and what it
 * leads to does not depend on the first common it carries, so a bit of
 * (j, x) at a level is exactly a search reaching it first at that depth;
 * of its first common the lanes keep every one that arrives at that depth
 * (the search keeps the first of them), and they do not stop at the cap
 * on states (the search keeps a prefix of the same states). So a bit is
 * set where the search may find nothing (it is then asked, and finds
 * nothing), never the other way round: which chain is found is still the
 * search's.
 */
static uint64_t als_chain_lanes(const logic_board *b, als_work *w, als_lanes *ln, const int *starts, int n)
{
    const als_list *l = &w->list;
    memset(ln->seen, 0, (size_t)l->n_seen * sizeof ln->seen[0]);
    int nt = 0;
    for (int i = 0; i < n; i++) {
        int a = starts[i];
        uint64_t bit = 1ull << i;
        const als_t *first = &l->als[a];
        for (int k = 0; k < bits9(first->digits); k++)
            ln->seen[first->seen + k] |= bit; /* a chain does not come back to A1 */
        for (int list = 0; list < 2; list++) {
            als_kept p = als_kept_of(w, a, list);
            const uint16_t *to = p.to, *common = p.common;
            int from = p.from, end = p.end;
            for (int e = from; e < end; e++) {
                int x;
                FOR_DIGITS(x, common[e])
                    als_lanes_add(ln, &nt, als_state_index(l, to[e], x), x, bit);
            }
        }
    }
    uint64_t found = 0;
    for (int depth = 2; nt; depth++) {
        /* the states first reached at this depth, less the lanes already found */
        int m = 0;
        for (int t = 0; t < nt; t++) {
            int k = ln->touched[t];
            ln->mark[k] = 0;
            uint64_t old = ln->seen[k] | found, any = 0;
            for (int f = 0; f < 9; f++) {
                uint64_t fresh = ln->next[9 * k + f] & ~old;
                ln->cur[9 * m + f] = fresh;
                any |= fresh;
            }
            if (!any)
                continue;
            ln->seen[k] |= any;
            ln->at[m++] = (uint16_t)k;
        }
        nt = 0;
        for (int i0 = 0; i0 < m; i0++) {
            int k = ln->at[i0], j = ln->als_of[k], x = ln->digit_of[k];
            const als_t *last = &l->als[j];
            int fs[9], nf = 0;
            uint64_t fm[9];
            for (int f = 1; f <= 9; f++) {
                uint64_t bits = ln->cur[9 * i0 + f - 1] & ~found;
                if (!bits)
                    continue;
                if (depth >= 3) {
                    for (uint64_t t = bits; t; t &= t - 1) {
                        int i = __builtin_ctzll(t);
                        const als_t *first = &l->als[starts[i]];
                        unsigned zs = first->outs & last->outs & ~(1u << (x - 1)) & ~(1u << (f - 1));
                        int z;
                        FOR_DIGITS(z, zs) {
                            if (als_z_out(b, l, first, last, z, NULL)) {
                                found |= 1ull << i;
                                break;
                            }
                        }
                    }
                    bits &= ~found;
                }
                if (bits) {
                    fs[nf] = f;
                    fm[nf++] = bits;
                }
            }
            if (depth == ALS_CHAIN_MAX || !nf)
                continue;
            for (uint32_t e = ln->succ_first[k]; e < ln->succ_first[k + 1]; e++) {
                int kk = ln->succ[e];
                for (int g = 0; g < nf; g++)
                    als_lanes_add(ln, &nt, kk, fs[g], fm[g]);
            }
        }
        if (depth == ALS_CHAIN_MAX) {
            for (int t = 0; t < nt; t++)
                ln->mark[ln->touched[t]] = 0;
            break;
        }
    }
    return found;
}

/* Every first ALS searched alone, in list order: where the lanes' memory
 * could not be had. */
static int als_chain_each(const logic_board *b, als_work *w, als_chain_work *cw, logic_step *s)
{
    for (int a = 0; a < w->list.n; a++)
        if (als_chain_from(b, w, cw, a, s))
            return 1;
    return 0;
}

/*
 * ALS-XY-chain: ALSs A1, A2, ..., An (n >= 3), each sharing a restricted
 * common with the next, two in a row never the same. If A1 lacked z it
 * would be locked: it holds the common x1 it shares with A2, so A2 lacks
 * x1 and holds x2, and so on to An, which then holds every digit but the
 * common it lacks, z among them. So z is in A1 or An: cells seeing every z
 * of both lose it (z is neither A1's first common nor An's last). Breadth
 * first from each A1 in list order, so the shortest chain from the first
 * A1; commons up; at most ALS_CHAIN_MAX ALSs. Needs the pairs find_als_xz
 * kept (als_down done by find_als_xy_wing).
 */
static int find_als_xy_chain(const logic_board *b, als_work *w, als_chain_work *cw, logic_step *s)
{
    const als_list *l = &w->list;
    int ns = l->n_seen;
    void *mem = w->pairs >= 0 && ns ? malloc((size_t)ns * ALS_LANES_BYTES) : NULL;
    if (!mem) {
        return als_chain_each(b, w, cw, s);
    }
    als_lanes lanes, *ln = &lanes;
    ln->seen = mem;
    ln->next = ln->seen + ns;
    ln->cur = ln->next + 9 * ns;
    ln->touched = (uint16_t *)(ln->cur + 9 * ns);
    ln->at = ln->touched + ns;
    ln->als_of = ln->at + ns;
    ln->mark = (uint8_t *)(ln->als_of + ns);
    ln->digit_of = ln->mark + ns;
    memset(ln->mark, 0, (size_t)ns);
    for (int j = 0; j < l->n; j++) {
        int x, k = l->als[j].seen;
        FOR_DIGITS(x, l->als[j].digits) {
            ln->als_of[k] = (uint16_t)j;
            ln->digit_of[k++] = (uint8_t)x;
        }
    }
    /* the successor lists: counted, then filled */
    uint32_t *first_of = malloc(((size_t)ns + 2) * sizeof *first_of);
    if (!first_of) {
        free(mem);
        return als_chain_each(b, w, cw, s);
    }
    memset(first_of, 0, ((size_t)ns + 2) * sizeof *first_of);
    ln->succ = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < l->n; j++) {
            /* j's states are seen.., one per digit up */
            int k0 = l->als[j].seen, nd = bits9(l->als[j].digits);
            unsigned digits = l->als[j].digits;
            for (int list = 0; list < 2; list++) {
                als_kept p = als_kept_of(w, j, list);
                const uint16_t *to = p.to, *common = p.common;
                int from = p.from, end = p.end;
                for (int e = from; e < end; e++) {
                    int y;
                    FOR_DIGITS(y, common[e]) {
                        int ky = k0 + bits9(digits & ((1u << (y - 1)) - 1));
                        if (!pass) { /* every state of j but (j, y) gains one */
                            first_of[k0 + 1]++;
                            first_of[k0 + nd + 1]--;
                            first_of[ky + 1]--;
                            first_of[ky + 2]++;
                            continue;
                        }
                        int kk = als_state_index(l, to[e], y);
                        for (int k = k0; k < k0 + nd; k++)
                            if (k != ky)
                                ln->succ[first_of[k + 1]++] = (uint16_t)kk;
                    }
                }
            }
        }
        if (pass)
            break;
        for (int k = 0; k < ns; k++) /* the counts from their differences */
            first_of[k + 1] += first_of[k];
        for (int k = 0; k < ns; k++) /* and the lists' ends from the counts */
            first_of[k + 1] += first_of[k];
        ln->succ = malloc((size_t)first_of[ns] * sizeof *ln->succ + 1);
        if (!ln->succ) {
            free(first_of);
            free(mem);
            return als_chain_each(b, w, cw, s);
        }
        /* filled at first_of[k + 1], which ends as the next list's start */
        memmove(first_of + 1, first_of, (size_t)ns * sizeof *first_of);
        first_of[0] = 0;
    }
    ln->succ_first = first_of;
    int result = 0;
    for (int a = 0; a < l->n && !result;) {
        int starts[64], n = 0;
        for (; a < l->n && n < 64; a++)
            if (l->als[a].outs)
                starts[n++] = a;
        for (uint64_t t = als_chain_lanes(b, w, ln, starts, n); t && !result; t &= t - 1)
            result = als_chain_from(b, w, cw, starts[__builtin_ctzll(t)], s);
    }
    free(ln->succ);
    free(first_of);
    free(mem);
    return result;
}

/* ALS-XZ, then ALS-XY-wing, then ALS-XY-chain, on one list of the board's
 * ALSs. */
static int find_als(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    static_assert(sizeof(als_work) < 160 * 1024, "ALS work fits a thread's stack");
    static_assert(sizeof(als_chain_work) < 48 * 1024, "ALS chain work fits a thread's stack too");
    als_work w;
    collect_als(b, &w.list);
    if (find_als_xz(b, &w, s) || find_als_xy_wing(b, &w, s))
        return 1;
    als_chain_work cw;
    return find_als_xy_chain(b, &w, &cw, s);
}

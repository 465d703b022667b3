/*
 * chains.c: X-chains, XY-chains, alternating inference chains and nice loops.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

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
static int find_x_chain(const logic_board *b, const rung_args *args, logic_step *s)
{
    unsigned digits = args->look;
    static const chain_rules rules = {VIA_UNIT, VIA_UNIT, 1, 0};
    return find_chain(b, &rules, LOGIC_X_CHAIN, digits, s);
}

static int find_xy_chain(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    static const chain_rules rules = {VIA_CELL, VIA_UNIT, 1, 0};
    return find_chain(b, &rules, LOGIC_XY_CHAIN, ALL_DIGITS, s);
}

static int find_aic(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    static const chain_rules rules = {VIA_CELL | VIA_UNIT, VIA_CELL | VIA_UNIT, 0, 1};
    return find_chain(b, &rules, LOGIC_AIC, ALL_DIGITS, s);
}

/*
 * chains.c: X-chains, XY-chains, remote pairs, alternating inference chains
 * and nice loops, grouped or not.
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

/* The conjugates of every candidate of `digits`, looked up once per search
 * rather than once per link followed, and the nodes a false one of which
 * has a strong link to follow under the rules (the others end a chain that
 * is no use). Every node a chain reaches is one of those: a node reached
 * by a strong link has one back. A chain of one digit (same_digit, strong
 * links in units) needs its digit's alone. */
static void find_partners(const logic_board *b, const chain_rules *r, unsigned digits, chain_work *w)
{
    cells_t bivalue = (r->strong & VIA_CELL) ? bivalue_cells(b) : 0;
    for (int d = 1; d <= 9; d++) {
        w->live[d - 1] = bivalue & b->where[d - 1];
        if (!(r->strong & VIA_UNIT) || !(digits >> (d - 1) & 1))
            continue;
        int c;
        FOR_CELLS(c, b->where[d - 1])
            memset(w->partner[NODE_OF(c, d)], -1, sizeof w->partner[0]);
        for (int u = 0; u < 27; u++) {
            cells_t x = b->where[d - 1] & UNIT[u];
            if (popcount(x) != 2)
                continue;
            int a = first_cell(x), z = first_cell(x & (x - 1)), kind = u / 9;
            w->partner[NODE_OF(a, d)][kind] = (int8_t)z;
            w->partner[NODE_OF(z, d)][kind] = (int8_t)a;
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

/* ---- The shortest chain of many starts at once ----
 *
 * A step is the shortest chain of all starts, the earliest start's on a
 * tie. Searched start by start, each breadth first with a limit one node
 * below the best so far, most states are visited again for every start.
 * So LANES starts at a time are searched together, level by level, one bit
 * (lane) each: a state's lanes at a level are the starts whose own search
 * reaches it first at that many nodes, following the links that search
 * follows. The first level at which a lane ends a productive chain gives
 * the length, its lowest lane the start; the start's own search then
 * finds the chain it always found.
 */
#define LANES 64
#define LANES_NODES (729 + 9 * 54) /* candidates (NODE_OF), then grouped chains' groups */

typedef struct lanes_work lanes_work;

/* What a kind of chain tells the lanes' search: how the lanes of a state
 * follow its links (lanes_reach for each state they reach), and which of
 * the lanes reaching a true node at `nodes` nodes end a productive chain.
 * Passed as arguments, not in a struct, so that the compiler makes a copy
 * of the search for each kind with its calls inlined. */
typedef void (*lanes_follow_fn)(const void *kind, lanes_work *q, int node, int on, uint64_t lanes);
typedef uint64_t (*lanes_productive_fn)(const void *kind, const lanes_work *q, int node, uint64_t lanes,
                                        int nodes);

/* The search's states are the nodes in use, numbered (id) in order, times
 * 2, plus `on`, so that it clears only as many as the board has. */
struct lanes_work {
    int16_t id[LANES_NODES];              /* each node's number */
    int16_t node[LANES_NODES];            /* the node of each number */
    int nodes;                            /* how many */
    uint64_t reached[2 * LANES_NODES];    /* the lanes that have reached each state */
    uint64_t next[2 * LANES_NODES];       /* and reach it at the next level */
    int16_t level[2][2 * LANES_NODES];    /* the states of this level and the next */
    uint64_t lanes[2 * LANES_NODES];      /* this level's lanes, by its states' order */
    int n[2];
    int16_t start[LANES];                 /* each lane's start node */
};

/* Numbers node v; nodes are numbered in the order this is called. */
static void lanes_number(lanes_work *q, int v)
{
    q->id[v] = (int16_t)q->nodes;
    q->node[q->nodes++] = (int16_t)v;
}

static void lanes_reach(lanes_work *q, int v, int on, uint64_t lanes)
{
    int st = q->id[v] * 2 + on;
    lanes &= ~q->reached[st];
    if (!lanes)
        return;
    if (!q->next[st])
        q->level[1][q->n[1]++] = (int16_t)st;
    q->next[st] |= lanes;
}

/* The next level: its states' lanes join `reached`; returns the lanes
 * that end a productive chain there, at `nodes` nodes. */
static uint64_t lanes_advance(lanes_productive_fn productive, const void *kind, lanes_work *q, int nodes)
{
    uint64_t hits = 0;
    for (int i = 0; i < q->n[1]; i++) {
        int st = q->level[1][i];
        uint64_t lanes = q->next[st];
        q->reached[st] |= lanes;
        if (st & 1)
            hits |= productive(kind, q, q->node[st >> 1], lanes, nodes);
        q->next[st] = 0;
        q->level[0][i] = (int16_t)st;
        q->lanes[i] = lanes;
    }
    q->n[0] = q->n[1];
    q->n[1] = 0;
    return hits;
}

/* Searches from the starts of lanes 0..n-1 for productive chains of at
 * most `limit` nodes; returns the shortest's length, 0 when there is
 * none, and its lowest lane in *lane. */
static int lanes_search(lanes_follow_fn follow, lanes_productive_fn productive, const void *kind, lanes_work *q,
                        int n, int limit, int *lane)
{
    memset(q->reached, 0, (size_t)q->nodes * 2 * sizeof q->reached[0]);
    q->n[0] = 0;
    q->n[1] = 0;
    for (int l = 0; l < n; l++) {
        int st = q->id[q->start[l]] * 2;
        q->reached[st] = 1ull << l;
        q->level[0][q->n[0]] = (int16_t)st;
        q->lanes[q->n[0]++] = 1ull << l;
    }
    for (int nodes = 2; nodes <= limit && q->n[0]; nodes++) {
        for (int i = 0; i < q->n[0]; i++) {
            int st = q->level[0][i];
            follow(kind, q, q->node[st >> 1], st & 1, q->lanes[i]);
        }
        uint64_t hits = lanes_advance(productive, kind, q, nodes);
        if (hits) {
            *lane = __builtin_ctzll(hits);
            return nodes;
        }
    }
    return 0;
}

/* The start (a node of `starts`, in order) whose shortest productive chain
 * of at most `limit` nodes is shortest, the earliest on a tie, and that
 * length in *length; -1 when there is none. */
static int lanes_shortest(lanes_follow_fn follow, lanes_productive_fn productive, const void *kind, lanes_work *q,
                          const int16_t *starts, int n, int limit, int *length)
{
    memset(q->next, 0, (size_t)q->nodes * 2 * sizeof q->next[0]);
    int best = -1;
    *length = 0;
    for (int first = 0; first < n; first += LANES) {
        int lanes = n - first < LANES ? n - first : LANES, lane;
        memcpy(q->start, starts + first, (size_t)lanes * sizeof starts[0]);
        int found = lanes_search(follow, productive, kind, q, lanes, limit, &lane);
        if (found) {
            best = q->start[lane];
            *length = found;
            limit = found - 1; /* only a shorter chain replaces it */
        }
    }
    return best;
}

/* The lanes of state (v, on) follow the links chain_bfs follows. */
typedef struct {
    const logic_board *b;
    const chain_rules *r;
    const chain_work *w;
} chain_kind;

static void chain_follow(const void *kind, lanes_work *q, int node, int on, uint64_t lanes)
{
    const chain_kind *k = kind;
    const logic_board *b = k->b;
    int c = node / 9, d = node % 9 + 1;
    if (!on) {
        if ((k->r->strong & VIA_CELL) && bits9(b->cand[c]) == 2)
            lanes_reach(q, NODE_OF(c, low_digit(b->cand[c] & ~(1u << (d - 1)))), 1, lanes);
        if (k->r->strong & VIA_UNIT)
            for (int i = 0; i < 3; i++)
                if (k->w->partner[node][i] >= 0)
                    lanes_reach(q, NODE_OF(k->w->partner[node][i], d), 1, lanes);
        return;
    }
    if (k->r->weak & VIA_CELL) {
        int e;
        FOR_DIGITS(e, b->cand[c] & ~(1u << (d - 1)))
            if (has_cell(k->w->live[e - 1], c))
                lanes_reach(q, NODE_OF(c, e), 0, lanes);
    }
    if (k->r->weak & VIA_UNIT) {
        int o;
        FOR_CELLS(o, b->where[d - 1] & PEERS[c] & k->w->live[d - 1])
            lanes_reach(q, NODE_OF(o, d), 0, lanes);
    }
}

static uint64_t chain_productive(const void *kind, const lanes_work *q, int node, uint64_t lanes, int nodes)
{
    const chain_kind *k = kind;
    uint64_t hits = 0;
    for (; lanes; lanes &= lanes - 1) {
        int lane = __builtin_ctzll(lanes);
        if (productive(k->b, k->r, q->start[lane], node * 2 + 1, nodes))
            hits |= 1ull << lane;
    }
    return hits;
}

static void chain_search(const logic_board *b, const chain_rules *r, unsigned digits, chain_work *w,
                         chain_found *best)
{
    static_assert(sizeof(lanes_work) < 96 * 1024, "the lanes' work fits a thread's stack");
    lanes_work q;
    int16_t starts[729];
    int n = 0;
    q.nodes = 0;
    find_partners(b, r, digits, w);
    for (int c = 0; c < 81; c++) {
        int d;
        FOR_DIGITS(d, b->cand[c]) {
            if (!has_cell(w->live[d - 1], c))
                continue; /* no strong link to follow from it: no chain reaches or leaves it */
            lanes_number(&q, NODE_OF(c, d));
            if (digits >> (d - 1) & 1)
                starts[n++] = (int16_t)NODE_OF(c, d);
        }
    }
    chain_kind kind = {b, r, w};
    int length;
    int start = lanes_shortest(chain_follow, chain_productive, &kind, &q, starts, n, CHAIN_SEARCH_MAX, &length);
    best->length = 0;
    if (start < 0)
        return;
    int hit = chain_bfs(b, r, w, start, length);
    if (hit < 0)
        return; /* not met: the start's own search finds what its lane found */
    best->length = length;
    for (int st = hit, i = length - 1; st >= 0; st = w->parent[st], i--)
        best->path[i] = (int16_t)st;
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

/*
 * Remote pair: cells holding the same two candidates x, y only, each seeing
 * the next: along the chain they alternate, so two of them an odd number of
 * links apart (three or more) hold x and y between them, and a cell seeing
 * both loses x and y. Pairs of digits up, then the chain's first cell in
 * order, its last by distance (breadth first, cells up), eliminations
 * needed. The chain is written as an XY-chain from the first cell.
 */
static int find_remote_pair(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    cells_t bi = bivalue_cells(b);
    uint8_t count[0x200] = {0};
    int c;
    FOR_CELLS(c, bi)
        count[b->cand[c]]++;
    for (unsigned pair = 3; pair < 0x200; pair++) {
        if (count[pair] < 4)
            continue; /* a remote pair has four cells at least */
        cells_t same = 0;
        FOR_CELLS(c, bi)
            if (b->cand[c] == pair)
                same |= BIT(c);
        int x = low_digit(pair), y = low_digit(pair & (pair - 1));
        int start;
        FOR_CELLS(start, same) {
            int8_t dist[81], parent[81];
            memset(dist, -1, sizeof dist);
            int queue[81], head = 0, tail = 0;
            queue[tail++] = start;
            dist[start] = 0;
            parent[start] = -1;
            while (head < tail) {
                int at = queue[head++], next;
                FOR_CELLS(next, same & PEERS[at]) {
                    if (dist[next] >= 0)
                        continue;
                    dist[next] = (int8_t)(dist[at] + 1);
                    parent[next] = (int8_t)at;
                    queue[tail++] = next;
                }
            }
            for (int i = 0; i < tail; i++) {
                int end = queue[i];
                if (dist[end] < 3 || !(dist[end] & 1))
                    continue;
                cells_t out = PEERS[start] & PEERS[end] & (b->where[x - 1] | b->where[y - 1]) & ~same;
                if (!out)
                    continue;
                step_start(s, LOGIC_REMOTE_PAIR);
                step_eliminate(s, b, out, x);
                step_eliminate(s, b, out, y);
                int path[81], n = 0;
                for (int at = end; at >= 0; at = parent[at])
                    path[n++] = at;
                int off = x;
                for (int k = n - 1; k >= 0; k--) {
                    int on = off == x ? y : x;
                    step_node(s, path[k], off, 1, 0);
                    step_node(s, path[k], on, 0, 1);
                    s->pattern[0][path[k]] = (uint16_t)pair;
                    off = on;
                }
                s->digits = (uint16_t)pair;
                return 1;
            }
        }
    }
    return 0;
}

/* ---- Grouped chains ---- */

/*
 * A group is the cells of a digit where a box meets a line, two or three of
 * them: it is true when one of its cells is. A strong link joins a node
 * (a candidate or a group) and the rest of a unit's places for its digit
 * when that rest is one cell or one group; a weak link joins two nodes of a
 * digit whose cells all see each other, or two candidates of one cell. A
 * grouped chain is a chain with such nodes, read as the chains above; in a
 * step, a group's cells are consecutive chain nodes with the same digit and
 * the same `on`.
 */

#define GROUPS_MAX (9 * 54)
#define GNODES (729 + GROUPS_MAX) /* candidates (NODE_OF), then groups */

typedef struct {
    int groups;
    cells_t cells[GROUPS_MAX];    /* a group's cells */
    uint8_t digit[GROUPS_MAX];
    int16_t id[9][9][6];          /* [d - 1][box][line of the box, as box_line]: group, or -1 */
    int16_t first[10];            /* [d - 1]: the first group of digit d (groups go digit by digit) */
    int8_t strong_n[GNODES];      /* a node's strong links (to its true partners) */
    int16_t strong[GNODES][4];
    int16_t parent[2 * GNODES];
    uint8_t depth[2 * GNODES];
    uint8_t seen[2 * GNODES];
    int16_t queue[2 * GNODES];
    int head, tail;
} group_work;

static cells_t gnode_cells(const group_work *w, int v)
{
    return v < 729 ? BIT(v / 9) : w->cells[v - 729];
}

static int gnode_digit(const group_work *w, int v)
{
    return v < 729 ? v % 9 + 1 : w->digit[v - 729];
}

/* The node whose cells are `set` for digit d: a candidate, a group, or -1. */
static int gnode_of(const group_work *w, cells_t set, int d)
{
    if (!set)
        return -1;
    int c = first_cell(set);
    if (!(set & (set - 1)))
        return NODE_OF(c, d);
    int box = box_of(c);
    for (int i = 0; i < 6; i++) {
        int line = i < 3 ? (box / 3) * 3 + i : 9 + (box % 3) * 3 + i - 3;
        int g = w->id[d - 1][box][i];
        if (g >= 0 && (set & ~UNIT[line]) == 0)
            return w->cells[g] == set ? 729 + g : -1;
    }
    return -1;
}

static void gnode_link(group_work *w, int from, int to)
{
    if (to >= 0 && w->strong_n[from] < 4)
        w->strong[from][w->strong_n[from]++] = (int16_t)to;
}

/* The groups of the board and every node's strong links. */
static void groups_build(const logic_board *b, group_work *w)
{
    w->groups = 0;
    memset(w->id, -1, sizeof w->id);
    for (int d = 1; d <= 9; d++) {
        w->first[d - 1] = (int16_t)w->groups;
        for (int box = 0; box < 9; box++)
            for (int i = 0; i < 6; i++) {
                int line = i < 3 ? (box / 3) * 3 + i : 9 + (box % 3) * 3 + i - 3;
                cells_t x = b->where[d - 1] & UNIT[18 + box] & UNIT[line];
                if (popcount(x) < 2)
                    continue;
                w->id[d - 1][box][i] = (int16_t)w->groups;
                w->cells[w->groups] = x;
                w->digit[w->groups++] = (uint8_t)d;
            }
    }
    w->first[9] = (int16_t)w->groups;
    memset(w->strong_n, 0, sizeof w->strong_n);
    for (int v = 0; v < 729 + w->groups; v++) {
        int d = gnode_digit(w, v);
        cells_t x = gnode_cells(w, v);
        if (v < 729) {
            int c = v / 9;
            if (!has_cand(b, c, d))
                continue;
            if (bits9(b->cand[c]) == 2)
                gnode_link(w, v, NODE_OF(c, low_digit(b->cand[c] & ~(1u << (d - 1)))));
            for (int k = 0; k < 3; k++)
                gnode_link(w, v, gnode_of(w, b->where[d - 1] & UNIT[unit_of(c, k)] & ~x, d));
            continue;
        }
        int c = first_cell(x);
        int line = (x & ~UNIT[row_of(c)]) ? 9 + col_of(c) : row_of(c);
        gnode_link(w, v, gnode_of(w, b->where[d - 1] & UNIT[line] & ~x, d));
        gnode_link(w, v, gnode_of(w, b->where[d - 1] & UNIT[18 + box_of(c)] & ~x, d));
    }
}

/* Candidates weakly linked to both ends of a grouped chain (the start a
 * candidate, false; the end true); eliminated in `st` unless NULL. */
static int grouped_eliminations(const logic_board *b, const group_work *w, int start, int end, logic_step *st)
{
    if (end < 729)
        return end_eliminations(b, start, end, st);
    int d = gnode_digit(w, end);
    if (d != start % 9 + 1)
        return 0;
    cells_t ends = BIT(start / 9) | gnode_cells(w, end);
    cells_t out = common_peers(ends) & b->where[d - 1];
    if (st)
        step_eliminate(st, b, out, d);
    return popcount(out);
}

static void grouped_reach(group_work *w, int v, int on, int from, int nodes)
{
    int st = v * 2 + on;
    if (w->seen[st])
        return;
    w->seen[st] = 1;
    w->depth[st] = (uint8_t)nodes;
    w->parent[st] = (int16_t)from;
    w->queue[w->tail++] = (int16_t)st;
}

/* Whether a true state ends a chain from `start` that does something. */
static int grouped_productive(const logic_board *b, const group_work *w, int start, int v, int nodes)
{
    if (v == start)
        return 1;
    return nodes >= 4 && grouped_eliminations(b, w, start, v, NULL) > 0;
}

/*
 * Breadth first from candidate `start`, false, for a productive grouped
 * chain of at most `limit` nodes (cells of a group count once): returns its
 * last state, or -1. From a false node its strong links in the order
 * groups_build made them; from a true node the other candidates of its
 * cell (digits up), then its digit's candidates that see all its cells
 * (cells up), then the groups of its digit whose cells all do (in order).
 * Only nodes with a strong link are taken false.
 */
static int grouped_bfs(const logic_board *b, group_work *w, int start, int limit)
{
    memset(w->seen, 0, (size_t)(729 + w->groups) * 2);
    w->head = w->tail = 0;
    grouped_reach(w, start, 0, -1, 1);
    while (w->head < w->tail) {
        int st = w->queue[w->head++];
        int nodes = w->depth[st] + 1;
        if (nodes > limit)
            return -1;
        int v = st >> 1, d = gnode_digit(w, v);
        if (!(st & 1)) {
            for (int i = 0; i < w->strong_n[v]; i++) {
                int to = w->strong[v][i];
                if (w->seen[to * 2 + 1])
                    continue;
                grouped_reach(w, to, 1, st, nodes);
                if (grouped_productive(b, w, start, to, nodes))
                    return to * 2 + 1;
            }
            continue;
        }
        cells_t x = gnode_cells(w, v);
        if (v < 729) {
            int c = v / 9, e;
            FOR_DIGITS(e, b->cand[c] & ~(1u << (d - 1)))
                if (w->strong_n[NODE_OF(c, e)])
                    grouped_reach(w, NODE_OF(c, e), 0, st, nodes);
        }
        cells_t around = common_peers(x) & b->where[d - 1];
        int o;
        FOR_CELLS(o, around)
            if (w->strong_n[NODE_OF(o, d)])
                grouped_reach(w, NODE_OF(o, d), 0, st, nodes);
        for (int g = w->first[d - 1]; g < w->first[d]; g++)
            if (!(w->cells[g] & ~around) && w->strong_n[729 + g])
                grouped_reach(w, 729 + g, 0, st, nodes);
    }
    return -1;
}

/* The lanes of state (v, on) follow the links grouped_bfs follows. */
typedef struct {
    const logic_board *b;
    const group_work *w;
} grouped_kind;

static void grouped_follow(const void *kind, lanes_work *q, int v, int on, uint64_t lanes)
{
    const grouped_kind *k = kind;
    const group_work *w = k->w;
    int d = gnode_digit(w, v);
    if (!on) {
        for (int i = 0; i < w->strong_n[v]; i++)
            lanes_reach(q, w->strong[v][i], 1, lanes);
        return;
    }
    cells_t x = gnode_cells(w, v);
    if (v < 729) {
        int c = v / 9, e;
        FOR_DIGITS(e, k->b->cand[c] & ~(1u << (d - 1)))
            if (w->strong_n[NODE_OF(c, e)])
                lanes_reach(q, NODE_OF(c, e), 0, lanes);
    }
    cells_t around = common_peers(x) & k->b->where[d - 1];
    int o;
    FOR_CELLS(o, around)
        if (w->strong_n[NODE_OF(o, d)])
            lanes_reach(q, NODE_OF(o, d), 0, lanes);
    for (int g = w->first[d - 1]; g < w->first[d]; g++)
        if (!(w->cells[g] & ~around) && w->strong_n[729 + g])
            lanes_reach(q, 729 + g, 0, lanes);
}

static uint64_t grouped_lanes_productive(const void *kind, const lanes_work *q, int v, uint64_t lanes, int nodes)
{
    const grouped_kind *k = kind;
    uint64_t hits = 0;
    for (; lanes; lanes &= lanes - 1) {
        int lane = __builtin_ctzll(lanes);
        if (grouped_productive(k->b, k->w, q->start[lane], v, nodes))
            hits |= 1ull << lane;
    }
    return hits;
}

/*
 * Grouped AIC and grouped nice loop: the chains above with groups among
 * their nodes, for what the chains without groups did not find. The
 * shortest from each start candidate in turn (cells up, digits up), the
 * earliest start's on a tie (searched as the chains above are); a chain
 * back to its start places it (a discontinuous nice loop). A chain that
 * needed no group is reported as the ungrouped technique it is.
 */
static int find_grouped_chain(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    static_assert(sizeof(group_work) < 160 * 1024, "grouped chain work fits a thread's stack");
    group_work w;
    groups_build(b, &w);
    lanes_work q;
    int16_t starts[729];
    int m = 0;
    q.nodes = 0;
    /* the nodes with a strong link, the only ones a chain reaches (a strong
     * link has one back) */
    for (int c = 0; c < 81; c++) {
        int d;
        FOR_DIGITS(d, b->cand[c]) {
            if (!w.strong_n[NODE_OF(c, d)])
                continue;
            lanes_number(&q, NODE_OF(c, d));
            starts[m++] = (int16_t)NODE_OF(c, d);
        }
    }
    for (int g = 0; g < w.groups; g++)
        if (w.strong_n[729 + g])
            lanes_number(&q, 729 + g);
    grouped_kind kind = {b, &w};
    int n;
    int start = lanes_shortest(grouped_follow, grouped_lanes_productive, &kind, &q, starts, m, CHAIN_SEARCH_MAX, &n);
    if (start < 0)
        return 0;
    int hit = grouped_bfs(b, &w, start, n);
    if (hit < 0)
        return 0; /* not met: the start's own search finds what its lane found */
    int16_t best[CHAIN_SEARCH_MAX];
    for (int st = hit, i = n - 1; st >= 0; st = w.parent[st], i--)
        best[i] = (int16_t)st;
    int first = best[0] >> 1, last = best[n - 1] >> 1, grouped = 0;
    step_start(s, LOGIC_GROUPED_AIC);
    for (int i = 0; i < n; i++) {
        int v = best[i] >> 1, on = best[i] & 1, d = gnode_digit(&w, v), c;
        grouped |= v >= 729;
        FOR_CELLS(c, gnode_cells(&w, v)) {
            step_node(s, c, d, !on, on);
            s->pattern[0][c] |= (uint16_t)(1u << (d - 1));
        }
        s->digits |= (uint16_t)(1u << (d - 1));
    }
    if (first == last) {
        s->technique = grouped ? LOGIC_GROUPED_NICE_LOOP : LOGIC_NICE_LOOP;
        s->variant = LOGIC_LOOP_DISCONTINUOUS;
        step_place(s, first / 9, first % 9 + 1);
        return 1;
    }
    if (!grouped)
        s->technique = LOGIC_AIC;
    grouped_eliminations(b, &w, first, last, s);
    return 1;
}

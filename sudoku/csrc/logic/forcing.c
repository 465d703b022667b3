/*
 * forcing.c: forcing chains and nets.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

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
 * a rule. Premises in cell order, digits up; a chain wins over a net, then
 * the one whose contradiction needs the fewest placements.
 */
static int find_forcing_contradiction(const logic_board *b, int on, logic_step *s)
{
    net_t base, n;
    need_t x;
    int best = 2 * NET_MAX + 2, best_cell = -1, best_digit = 0;
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
            /* a chain (no placement needing two earlier ones) before any
             * net: it is easier to follow; then the fewest placements */
            int k = need_count(&x) + (x.branching ? NET_MAX + 1 : 0);
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

static int find_forcing(const logic_board *b, const rung_args *args, logic_step *s)
{
    (void)args;
    return find_forcing_contradiction(b, 1, s) || find_forcing_contradiction(b, 0, s) ||
           find_forcing_sets(b, s) || find_forcing_either(b, s);
}

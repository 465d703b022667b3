/*
 * board.c: the board (logic_init, logic_apply) and the helpers that build a step.
 *
 * Part of the human solver's one translation unit (logic.c includes it);
 * internal.h holds what the families share.
 */
#include "logic/internal.h"

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
    for (int c = 0; c < 81; c++)
        if (cells[c])
            b->givens |= BIT(c);
    return b->broken ? LOGIC_CONTRADICTION : LOGIC_OK;
}

void logic_set_givens(logic_board *b, const uint8_t givens[81])
{
    b->givens = 0;
    for (int c = 0; c < 81; c++)
        if (givens[c] && givens[c] == b->cells[c])
            b->givens |= BIT(c);
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

/* ---- Combinations ---- */

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

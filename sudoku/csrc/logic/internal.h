/*
 * internal.h: what the families of the human solver share (logic.h is the
 * contract; logic.c includes every family file into one translation unit).
 *
 * Sets of cells are 128-bit masks (logic_cells), one per digit, so most
 * tests are a few AND/OR operations. The board and the step-building
 * helpers are defined in board.c. A family file holds its finders; each
 * finder is a rung: it has the signature `rung_fn` below, and the ladder
 * (ladder.c) lists the rungs in order. Adding a technique touches its
 * family's file and the ladder, nothing else.
 */
#ifndef SUDOKU_LOGIC_INTERNAL_H
#define SUDOKU_LOGIC_INTERNAL_H

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
static inline int has_cand(const logic_board *b, int c, int d) { return (b->cand[c] >> (d - 1)) & 1; }

/* A candidate as one number, cell * 9 + digit - 1 (0..728). */
#define NODE_OF(c, d) ((c) * 9 + (d) - 1)

/* The order units are scanned in where a person scans boxes first. */
static const uint8_t BOX_ROW_COL[27] = {
    18, 19, 20, 21, 22, 23, 24, 25, 26, 0, 1, 2, 3, 4, 5, 6, 7, 8,
    9, 10, 11, 12, 13, 14, 15, 16, 17,
};

/* ---- A rung: the one signature of every finder ---- */

/* What the ladder tells a finder. A local finder (see ladder.c) is told
 * which digits (bit d - 1) or units (bit u) to look at in `look`; it tries
 * them in its fixed order, and its step for a digit depends on where[d - 1]
 * alone (for a unit, on the candidates of the unit's cells alone). The
 * others are told every digit, and may ignore `look`. */
typedef struct {
    unsigned look;             /* digits or units to look at */
    int size;                  /* the rung's pattern size (subsets, fish), else 0 */
    logic_technique technique; /* the rung's technique (its easiest, when several) */
    int unique;                /* the puzzle is known to have one solution */
} rung_args;

/* Writes the rung's step to `s` and returns 1, or returns 0 when there is none. */
typedef int (*rung_fn)(const logic_board *b, const rung_args *args, logic_step *s);

/* What a solve by steps remembers between them (ladder.c says how it is
 * used): for each local rung, the cells of every digit when it last found
 * nothing. Zero `known` to start. */
#define LADDER_MAX_RUNGS 64
typedef struct {
    cells_t where[LADDER_MAX_RUNGS][9];
    uint8_t known[LADDER_MAX_RUNGS];
} ladder_memo;

/* logic_find on a board that changes only by the steps it returns, with
 * the memory of the solve so far (ladder.c). */
static int ladder_find(const logic_board *b, int unique, int max_level, ladder_memo *memo, logic_step *out);

/* ---- The board and building a step (board.c) ---- */

static void place(logic_board *b, int c, int d);
static void step_start(logic_step *s, logic_technique t);
static void step_place(logic_step *s, int c, int d);
static int step_eliminate(logic_step *s, const logic_board *b, cells_t set, int d);
static void step_eliminate_mask(logic_step *s, const logic_board *b, int c, unsigned mask);
static void step_mark(logic_step *s, int group, cells_t set, unsigned mask);
static void step_mark_digit(logic_step *s, const logic_board *b, int group, cells_t set, int d);
static void step_unit(logic_step *s, int u);
static void step_node(logic_step *s, int c, int d, int strong, int on);
static cells_t blank_cells(const logic_board *b);
static cells_t bivalue_cells(const logic_board *b);
static int next_combination(int *idx, int k, int n);
static void first_combination(int *idx, int k);

#endif

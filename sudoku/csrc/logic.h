/*
 * logic.h: the human solver. Finds the easiest logical step on a board, the
 * way a person would make it, and solves (grades) a puzzle by such steps.
 *
 * Pure C (no Python.h). enginemodule.c is the thin binding and the one place
 * that validates user input; the functions below still never read or write
 * out of bounds on bad input (see BAD INPUT).
 *
 * Glossary (as stepper.h): cell 0..80 in reading order, row r = cell / 9,
 * column c = cell % 9, box b = (r / 3) * 3 + c / 3; digit (value) 1..9;
 * unit 0..26: rows 0-8, columns 9-17, boxes 18-26. A candidate mask has bit
 * d-1 for digit d. A *candidate* is one (cell, digit) pair.
 *
 * THE BOARD
 * logic_board holds the values (0 = blank) and the candidates of every blank
 * cell. Without pencil marks, a blank's candidates are the digits none of its
 * peers holds. With pencil marks (the player's 81 masks) each blank keeps the
 * marked digits that its peers do not hold: a mark the board already rules
 * out is dropped, and a digit the player removed stays removed. Masks of
 * filled cells are ignored.
 *
 * A STEP
 * Either a placement (one digit on one cell) or eliminations (candidates
 * removed), never both, with the technique that finds it and its pattern: the
 * candidates, units, digits and chain a reader needs to see it. Every step is
 * sound: if the board's candidates still hold the solution (givens, entries
 * and pencil marks all agree with it), a placement is the solution's value
 * and an elimination never removes the solution's value. The uniqueness
 * techniques (unique, hidden and avoidable rectangles, BUG+1) are sound
 * only for a puzzle with one solution, and are used only when the caller
 * says it has one. "The puzzle" is the board's givens (logic_board.givens),
 * not every filled cell: avoidable rectangles rest on the cells placed
 * since, which another solution of the givens could hold otherwise.
 *
 * THE LADDER
 * logic_find tries the techniques in the ladder's order (logic/ladder.c:
 * HoDoKu's order, the easiest first, where we have the technique; not the
 * order of the numbers of logic_technique) and returns the first step found,
 * scanning in a fixed order (documented per technique in logic/), so the
 * same board always gives the same step. Steps with no effect (nothing to place or remove) are never
 * returned. The last two rungs always end a unique puzzle: nested forcing
 * (a premise followed with the techniques up to the hard level until it
 * breaks a rule) and trial (a premise that the search proves has no
 * solution), so a game by steps never needs the solution itself.
 *
 * MEMORY AND THREADS
 * Nothing is allocated; no global mutable state. The caller owns the structs.
 * Any number of threads may use distinct boards at once.
 *
 * BAD INPUT
 * logic_init returns LOGIC_EINVAL when a cell byte is > 9 (the board is then
 * left empty), LOGIC_CONTRADICTION when two equal values share a unit or a
 * blank cell has no candidate left; the board can then still be read, and
 * logic_find returns 0 on it.
 */
#ifndef SUDOKU_LOGIC_H
#define SUDOKU_LOGIC_H

#include <stdint.h>

#define LOGIC_OK 0
#define LOGIC_EINVAL (-1)
#define LOGIC_CONTRADICTION (-2)

/* Techniques. The numbers are the API's (sudoku.v1.Step.Technique) and never
 * change; new techniques get new numbers, so the numbers are not the order
 * logic_find tries them in (the ladder's, logic/ladder.c). */
typedef enum {
    LOGIC_NONE = 0,
    LOGIC_FULL_HOUSE = 1,      /* the last blank cell of a unit */
    LOGIC_NAKED_SINGLE,        /* a cell with one candidate */
    LOGIC_HIDDEN_SINGLE,       /* a digit with one place in a unit */
    LOGIC_POINTING,            /* a box's digit confined to one line */
    LOGIC_CLAIMING,            /* a line's digit confined to one box */
    LOGIC_NAKED_PAIR,
    LOGIC_HIDDEN_PAIR,
    LOGIC_NAKED_TRIPLE,
    LOGIC_HIDDEN_TRIPLE,
    LOGIC_X_WING,
    LOGIC_NAKED_QUAD,
    LOGIC_HIDDEN_QUAD,
    LOGIC_SKYSCRAPER,
    LOGIC_TWO_STRING_KITE,
    LOGIC_SWORDFISH,
    LOGIC_XY_WING,
    LOGIC_W_WING,
    LOGIC_FINNED_X_WING,
    LOGIC_SASHIMI_X_WING,
    LOGIC_XYZ_WING,
    LOGIC_SIMPLE_COLORING,
    LOGIC_UNIQUE_RECTANGLE,
    LOGIC_BUG_PLUS_ONE,
    LOGIC_JELLYFISH,
    LOGIC_FINNED_SWORDFISH,
    LOGIC_SASHIMI_SWORDFISH,
    LOGIC_FINNED_JELLYFISH,
    LOGIC_SASHIMI_JELLYFISH,
    LOGIC_X_CHAIN,
    LOGIC_XY_CHAIN,
    LOGIC_AIC,
    LOGIC_NICE_LOOP,
    LOGIC_ALS_XZ,
    LOGIC_ALS_XY_WING,
    LOGIC_FORCING_CHAIN,
    LOGIC_FORCING_NET,
    LOGIC_NESTED_FORCING,      /* a forcing chain whose steps use techniques too */
    LOGIC_TRIAL,               /* a candidate whose every continuation fails */
    /* Added later, so numbered after the others; the ladder (logic/ladder.c)
     * places each by its difficulty. */
    LOGIC_LOCKED_PAIR,         /* a naked pair in a box and a line at once */
    LOGIC_LOCKED_TRIPLE,       /* a naked triple in a box and a line at once */
    LOGIC_REMOTE_PAIR,         /* a chain of cells with the same two candidates */
    LOGIC_TURBOT_FISH,         /* two strong links on a digit joined by a weak one */
    LOGIC_EMPTY_RECTANGLE,     /* a box's digit in one row or one column, and a strong link */
    LOGIC_HIDDEN_RECTANGLE,    /* a rectangle whose strong links would give two solutions */
    LOGIC_SUE_DE_COQ,          /* a box-line intersection's locked sets in both units */
    LOGIC_MULTI_COLORING,      /* two colourings of a digit joined by a weak link */
    LOGIC_GROUPED_AIC,         /* an AIC through a digit's cells in one box and line */
    LOGIC_GROUPED_NICE_LOOP,   /* a nice loop through such groups */
    LOGIC_ALS_XY_CHAIN,        /* almost locked sets in a chain of restricted commons */
    LOGIC_AVOIDABLE_RECTANGLE, /* a rectangle of placed cells that would give two solutions */
    LOGIC_FINNED_FRANKEN_SWORDFISH, /* a finned swordfish whose base or cover units include boxes */
    LOGIC_TECHNIQUES /* count, not a technique */
} logic_technique;

/* Variants (logic_step.variant), per technique; 0 where there is one form. */
enum {
    /* LOGIC_SIMPLE_COLORING */
    LOGIC_COLOR_TRAP = 1,  /* a candidate sees both colours */
    LOGIC_COLOR_WRAP = 2,  /* one colour sees itself: all of it goes */
    /* LOGIC_UNIQUE_RECTANGLE: the type, 1, 2, 3, 4 or 6 */
    /* LOGIC_AVOIDABLE_RECTANGLE: the type, 1 or 2 */
    /* LOGIC_MULTI_COLORING: 1 a cell sees a colour of each cluster, 2 a
     * colour sees both colours of the other cluster (it goes) */
    /* LOGIC_NICE_LOOP and LOGIC_GROUPED_NICE_LOOP */
    LOGIC_LOOP_CONTINUOUS = 1,     /* a closed loop: eliminations on its weak links */
    LOGIC_LOOP_DISCONTINUOUS = 2,  /* a loop that forces its start node */
    /* LOGIC_FORCING_CHAIN and LOGIC_FORCING_NET */
    LOGIC_FORCING_CONTRADICTION = 1, /* assuming the premise breaks a rule */
    LOGIC_FORCING_VERITY = 2,        /* assuming it false breaks a rule */
    LOGIC_FORCING_CELL = 3,          /* every candidate of a cell agrees */
    LOGIC_FORCING_UNIT = 4,          /* every place of a digit in a unit agrees */
    LOGIC_FORCING_EITHER = 5         /* the premise true and false agree */
    /* LOGIC_NESTED_FORCING: LOGIC_FORCING_CONTRADICTION.
     * LOGIC_TRIAL: the guesses the search took to find no solution. */
};

/* Most nodes a step's chain holds; longer chains are not looked for. */
#define LOGIC_MAX_CHAIN 96
/* Most units a pattern names (a jellyfish: 4 base and 4 cover lines). */
#define LOGIC_MAX_UNITS 12
/* Groups of a pattern's candidates (see logic_step.pattern). */
#define LOGIC_GROUPS 3

/* One node of a chain: the candidate, and how it links to the next node. */
typedef struct {
    uint8_t cell;
    uint8_t digit;
    uint8_t strong;  /* 1: the link to the next node is strong (this node
                        false => the next true); 0: weak (this node true =>
                        the next false). Meaningless on the last node. */
    uint8_t on;      /* 1: the chain makes this node true; 0: false */
    uint8_t branch;  /* forcing chains: which premise's branch (0, 1, ...);
                        the first node of a branch is its premise */
} logic_node;

typedef struct {
    logic_technique technique;
    int variant;                 /* see the variant enum; 0 if none */
    int cell;                    /* the placement's cell, or -1 */
    int digit;                   /* the placement's digit, or 0 */
    uint16_t eliminations[81];   /* candidates removed, per cell */
    int n_eliminations;          /* how many candidates in all */
    /* The pattern, per cell, in up to three groups of candidates:
     * group 0: the pattern (subset cells, fish base candidates, colour A,
     *          wing cells, rectangle corners, first ALS, chain nodes; an
 *          avoidable rectangle's placed corners too, each with its value,
 *          the one pattern that holds filled cells);
     * group 1: its second part (fins, a wing's pivot, colour B, second
     *          ALS, a rectangle's extra candidates);
     * group 2: the third ALS of an ALS-XY-wing (an ALS-XY-chain's ALSs
     *          between its two ends, which are groups 0 and 1), a unique
     *          rectangle's naked subset cells (type 3), Sue de Coq's box
     *          cells (group 1 its line cells).
     * A grouped chain's group is its cells as consecutive chain nodes with
     * the same digit and `on`. */
    uint16_t pattern[LOGIC_GROUPS][81];
    uint8_t units[LOGIC_MAX_UNITS]; /* units of the pattern, in order (fish:
                                       base units then cover units) */
    int n_units;
    uint16_t digits;             /* the pattern's digits (mask) */
    int n_chain;
    logic_node chain[LOGIC_MAX_CHAIN]; /* chains and forcing chains, in order */
} logic_step;

/* 128-bit sets of cells: bit i is cell i. */
__extension__ typedef unsigned __int128 logic_cells;

typedef struct {
    uint8_t cells[81];     /* 0 blank, 1..9 */
    uint16_t cand[81];     /* candidates of each blank; 0 for filled */
    logic_cells where[9];  /* [d-1]: blank cells with candidate d */
    logic_cells givens;    /* the filled cells that are givens; the others were
                              placed (by the player or by steps) */
    int blanks;            /* blank cells left */
    int broken;            /* a contradiction was seen: logic_find finds nothing */
} logic_board;

/* Sets up `b` from 81 values (0 = blank, 1..9) and, unless `pencil` is NULL,
 * the player's 81 candidate masks (only bits 0-8 are read). Returns LOGIC_OK,
 * LOGIC_EINVAL or LOGIC_CONTRADICTION (see BAD INPUT). */
int logic_init(logic_board *b, const uint8_t cells[81], const uint16_t *pencil);

/* Which filled cells of `b` are givens. logic_init makes every filled cell a
 * given (a puzzle, as Grade and Generate solve it: the cells a solve places
 * are not); a player's board says which are the puzzle's: a cell is a given
 * when `givens` holds its value there (0 elsewhere). Call it after logic_init. */
void logic_set_givens(logic_board *b, const uint8_t givens[81]);

/* The easiest step on `b`, written to `out`: returns 1, or 0 when no
 * technique applies (or the board is solved or contradictory). `unique`:
 * the puzzle is known to have one solution (allows the uniqueness
 * techniques). `max_level`: try no technique of a higher level (see
 * logic_level; LOGIC_LEVELS for all). */
int logic_find(const logic_board *b, int unique, int max_level, logic_step *out);

/* Applies a step found on `b` to it. */
void logic_apply(logic_board *b, const logic_step *s);

/* A whole solve by steps: what it took. */
typedef struct {
    int solved;                          /* 1: no blank left */
    int steps;                           /* steps taken */
    uint32_t counts[LOGIC_TECHNIQUES];   /* steps per technique */
    logic_technique hardest;             /* the highest technique used */
    uint32_t score;                      /* sum of logic_weight over the steps */
} logic_grade;

/* Solves `b` (modified) by logic_find/logic_apply until no blank is left or
 * no step is found; `max_level` as in logic_find. */
void logic_solve(logic_board *b, int unique, int max_level, logic_grade *g);

/* Whether techniques up to `max_level` finish `b` (modified), as
 * logic_solve's `solved` says, but faster: the singles are placed in
 * batches, not one step at a time, and the other rungs are tried cheapest
 * first, not in the ladder's order (the same techniques reach the same end;
 * see ladder.c). For a quick check (a generator's): the steps it takes are
 * not the grade's, and `b` may end in another state when it is stuck. */
int logic_solvable(logic_board *b, int unique, int max_level);

/* logic_solvable with the first `passes` of its order only (1: subsets,
 * X-wing and swordfish, the two-link patterns and wings; 2: and the chains;
 * 3: and the finned fish, Sue de Coq and ALSs; 4: all, as logic_solvable).
 * A board it finishes, logic_solvable finishes; one it leaves stuck,
 * logic_solvable may still finish. */
int logic_solvable_within(logic_board *b, int unique, int max_level, int passes);

/* The technique's name in the API (sudoku.v1.Step.Technique), e.g.
 * "X_WING"; "NONE" for anything out of range. */
const char *logic_name(logic_technique t);

/* The difficulty weight of one step of a technique (0 for LOGIC_NONE). */
uint32_t logic_weight(logic_technique t);

/* The level a technique belongs to: 1 easy, 2 medium, 3 hard, 4 expert,
 * 5 extreme (0 for LOGIC_NONE). */
#define LOGIC_LEVELS 5
int logic_level(logic_technique t);

#endif

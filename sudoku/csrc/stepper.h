/*
 * stepper.h: the observable Sudoku search, one step at a time.
 *
 * Pure C (no Python.h). enginemodule.c is the thin CPython binding and the
 * one place that validates user input; worker/reference.py is a pure-Python
 * implementation of exactly this contract, used as the oracle in tests.
 *
 * Glossary: cell 0..80 in reading order (row r = cell / 9, column
 * c = cell % 9, box b = (r / 3) * 3 + c / 3); value 1..9; unit = row, column
 * or box; candidates of a blank cell = the values none of its units holds.
 *
 * THE SEARCH
 * A depth-first search over an explicit stack of frames (cell, candidates,
 * values not tried yet, value placed), so it can stop after any step and
 * resume later. A *step* is one placement (a value goes onto a blank cell) or
 * one retraction (it comes back off). Values are tried ascending. Moving a
 * cell from value v to its next candidate w is 2 steps: retract v, place w.
 *
 * After each placement the search chooses the next cell to decide:
 * - no blank cell left: a solution. `solutions` grows; the first is copied to
 *   `solution`. If `solutions` reached `limit` the search is SOLVED; otherwise
 *   the next step retracts the last placement and the search goes on.
 * - a chosen cell with no candidate is a dead end: it is not pushed and takes
 *   no step; the next step retracts the last placement.
 * - otherwise it becomes the top frame; the next step places its lowest
 *   candidate.
 * After a retraction, the top frame's next untried candidate is placed next;
 * when none is left the frame is popped (no step) and the next step retracts
 * the parent's value. Popping the last frame ends the search: SOLVED when at
 * least one solution was found, else EXHAUSTED.
 *
 * All of these step-free transitions happen eagerly, right after the step
 * that caused them, so between steps `status` and `cursor` are final: after
 * the 701st step of naive search on the empty board, the status is already
 * SOLVED. Then, if the search still runs and `steps` == `max_steps`, it ends
 * GAVE_UP (so reaching a solution on the very last allowed step is SOLVED).
 *
 * At stepper_init, before any step: givens that conflict (two equal values in
 * one unit) end the search EXHAUSTED with 0 steps (stepper_conflicts lists the
 * cells); a full valid board is SOLVED with 0 steps and 1 solution; otherwise
 * the first cell is chosen as above (a blank cell with no candidate at all
 * gives EXHAUSTED at 0 steps under mrv), then the max_steps check applies
 * (max_steps 0 gives GAVE_UP at once).
 *
 * CHOOSING THE CELL
 * - STEPPER_NAIVE: the lowest-index blank cell.
 * - STEPPER_MRV: a blank cell with the fewest candidates, a true minimum.
 *   When the minimum is 0 the lowest-index such cell is taken with no
 *   tie-break (it is a dead end taking no step, so which one is invisible,
 *   and no random number is drawn). When exactly one cell has the minimum
 *   it is taken (no random number drawn). Otherwise, among the tied cells:
 *   - STEPPER_TIE_FIRST: the lowest index.
 *   - STEPPER_TIE_ROTATE: let d = the number of frames on the stack (cells
 *     decided on the current path; 0 for the first choice). Take the unit
 *     kinds in the order (d, d+1, d+2) mod 3 over (row=0, column=1, box=2).
 *     Prefer the cell whose unit of the first kind has the fewest blank
 *     cells (counting the cell itself), then the second kind, then the
 *     third, then the lowest index.
 *   - STEPPER_TIE_RANDOM: list the tied cells in ascending index order, n of
 *     them (n >= 2), and take the k-th (from 0) where k = draw(n):
 *         next():  state += 0x9E3779B97F4A7C15;           (splitmix64)
 *                  z = state;
 *                  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 *                  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
 *                  return z ^ (z >> 31);
 *         draw(n): t = (2^64 - n) mod n;   (= 2^64 mod n, unsigned 64-bit)
 *                  do x = next(); while (x < t);
 *                  return x mod n;          (unbiased: rejection sampling)
 *     All arithmetic is unsigned 64-bit, wrapping; `state` starts at `seed`.
 *     Same seed, same search, on every platform.
 *
 * EVENTS
 * stepper_run writes 2 bytes per step: the cell (0..80), then the value
 * placed (1..9) or 0 for a retraction. stepper_skip takes the same steps
 * without writing them. Any interleaving of run and skip calls with any
 * budgets takes the same search as one call: slicing never changes it.
 *
 * SNAPSHOTS
 * A running search of limit 1 can be written out as a snapshot, a few
 * hundred bytes that hold its whole state, and resumed from one later, in
 * another process or on another machine: the resumed search takes exactly
 * the steps the original would have taken. Only the search's identity and
 * its path are stored; everything else (candidate sets, keys, blank counts,
 * what each placement cleared) is rebuilt by placing the path's values
 * again, at most 81 placements. Format version 1, integers little-endian:
 *     offset  size  field
 *     0       1     version: 1
 *     1       1     strategy (stepper_strategy)
 *     2       1     tie_break (stepper_tie_break)
 *     3       8     rng: the tie-break generator's state
 *     11      8     steps taken
 *     19      41    the fixed cells (givens and entries): cell 2i in the low
 *                   nibble of byte i, cell 2i+1 in the high one; 0 blank,
 *                   1-9; the high nibble of the last byte is 0
 *     60      1     depth d, 1-81: frames on the stack
 *     61      1     1 when the top frame's value is on the board, 0 when
 *                   it is not (it was just pushed, or just retracted)
 *     62      2d    each frame from the bottom: its cell, then its value
 *                   (for a top frame off the board: the last value tried
 *                   there, 0 when none was)
 * placements and retractions follow from steps and the path (their
 * difference is the number of values on the board). The seed is not kept:
 * rng is where the generator is.
 *
 * A snapshot is input to be distrusted: stepper_resume accepts it only if
 * it is exactly a state the search could rest in between two steps, and
 * returns STEPPER_OK or an error code (stepper_snapshot_error names it;
 * *frame gets the frame at fault, or -1). It checks: the size (exactly 62 +
 * 2d), the version, the options, every nibble and byte, givens that break
 * no rule; for each frame, from the bottom, that its cell is the one the
 * strategy decides next in the state the frames below it leave (under
 * STEPPER_TIE_RANDOM: one of the cells tied for the fewest candidates, as
 * the draw is not replayed), that its value is a candidate there (or, off
 * the board on top, that a larger candidate is left to try); that the
 * values on the board leave a blank cell (a full board is a solved search,
 * not a running one); that steps has the parity of the values on the board
 * and is at least the steps the path itself takes. A search at
 * or past `max_steps` resumes as STEPPER_GAVE_UP. On error the stepper is
 * left EXHAUSTED with no frames. Every snapshot stepper_resume accepts is
 * the one stepper_export writes again (no two encodings of one state).
 * What it cannot check is the step count beyond that bound and, under
 * STEPPER_TIE_RANDOM, the generator's state: a caller that must trust those
 * authenticates the bytes itself (the service signs them).
 *
 * MEMORY AND THREADS
 * `stepper` is one fixed-size struct (about 2.5 KB) the caller owns; nothing
 * is allocated, ever. The functions keep no global mutable state: distinct
 * steppers may run in parallel threads; one stepper must not be used by two
 * threads at once (the binding enforces this).
 *
 * BAD INPUT
 * stepper_init returns STEPPER_EINVAL, leaving the stepper with status
 * STEPPER_EXHAUSTED and no frames (run/skip then take 0 steps) when: a cell
 * byte is > 9, the strategy or tie-break is not one of the enum values, or
 * limit is 0. It never reads past cells[80] nor writes past the struct.
 * stepper_run writes at most 2 * budget bytes; `events` must have room.
 */
#ifndef SUDOKU_STEPPER_H
#define SUDOKU_STEPPER_H

#include <stddef.h>
#include <stdint.h>

#define STEPPER_OK 0
#define STEPPER_EINVAL (-1)

/* max_steps value meaning "no cap". */
#define STEPPER_NO_CAP UINT64_MAX

typedef enum {
    STEPPER_RUNNING = 0,
    STEPPER_SOLVED,
    STEPPER_EXHAUSTED,
    STEPPER_GAVE_UP
} stepper_status;

typedef enum { STEPPER_NAIVE = 0, STEPPER_MRV } stepper_strategy;

typedef enum {
    STEPPER_TIE_FIRST = 0,
    STEPPER_TIE_ROTATE,
    STEPPER_TIE_RANDOM
} stepper_tie_break;

typedef struct {
    stepper_strategy strategy;
    stepper_tie_break tie_break; /* used by STEPPER_MRV only */
    uint64_t seed;               /* used by STEPPER_TIE_RANDOM only */
    uint64_t max_steps;          /* STEPPER_NO_CAP for none; 0 is allowed */
    uint64_t limit;              /* solutions to find before SOLVED; >= 1 */
} stepper_options;

/* A set of cells: bit i of `lo` is cell i (0..63), bit i of `hi` is cell
 * 64 + i (64..80). */
typedef struct {
    uint64_t lo, hi;
} stepper_cells;

/* One decided cell on the current path. */
typedef struct {
    uint8_t cell;
    uint8_t value;        /* placed now, or 0 while none is */
    uint16_t untried;     /* candidates not placed yet (bit v-1 = value v) */
    uint16_t candidates;  /* all candidates when the frame was pushed */
    stepper_cells cleared;/* peers that lost `value` as a candidate */
} stepper_frame;

/* Sort key of a blank cell under MRV: candidates << 7 | cell, so the
 * smallest key is the fewest candidates at the lowest index. A filled cell
 * holds STEPPER_FILLED, above every blank's key. */
#define STEPPER_FILLED 0x7FFF
#define STEPPER_KEYS 88 /* 81 rounded up to a multiple of 8, for SIMD */

typedef struct {
    /* Outputs the caller may read between calls. */
    stepper_status status;
    uint64_t steps, placements, retractions, solutions;
    uint8_t board[81];      /* current values, 0 = blank */
    uint8_t solution[81];   /* valid when solutions > 0 */

    /* Private: the search state. */
    stepper_options opt;
    uint64_t rng;
    int depth;                       /* frames on the stack */
    stepper_frame stack[81];
    stepper_cells open[9];           /* [v-1]: blank cells where v is legal */
    int16_t key[STEPPER_KEYS];       /* see STEPPER_FILLED */
    uint8_t blanks[3][9];            /* blank cells per row, column, box */
} stepper;

/* Sets up a search of `cells` (81 bytes, 0 = blank, 1..9 = given), which is
 * only read. Returns STEPPER_OK or STEPPER_EINVAL (see BAD INPUT). */
int stepper_init(stepper *s, const uint8_t cells[81],
                 const stepper_options *opt);

/* Takes up to `budget` steps, writing 2 bytes per step to `events`. Returns
 * the steps taken: fewer than `budget` only when the search ended. */
uint64_t stepper_run(stepper *s, uint8_t *events, uint64_t budget);

/* stepper_run without events: the same steps, nothing written. */
uint64_t stepper_skip(stepper *s, uint64_t budget);

/* The cell being decided (the one the next step changes), or -1 when the
 * search is over (any status but STEPPER_RUNNING). */
int stepper_cursor(const stepper *s);

/* Writes to `out` in ascending order the cells of `cells` whose given value
 * also appears in another cell of one of its units; returns how many (0 when
 * the givens are consistent). Bytes > 9 are ignored. */
int stepper_conflicts(const uint8_t cells[81], uint8_t out[81]);

/* Snapshots (see SNAPSHOTS above). */
#define STEPPER_SNAPSHOT_VERSION 1
#define STEPPER_SNAPSHOT_HEADER 62
#define STEPPER_SNAPSHOT_MAX (STEPPER_SNAPSHOT_HEADER + 2 * 81)

/* Error codes of stepper_resume, all negative. */
enum {
    STEPPER_SNAP_SIZE = -100,  /* not 62 + 2 * depth bytes */
    STEPPER_SNAP_VERSION,      /* not version 1 */
    STEPPER_SNAP_OPTIONS,      /* strategy or tie-break unknown */
    STEPPER_SNAP_CELLS,        /* a nibble above 9, or the padding nibble set */
    STEPPER_SNAP_CONFLICT,     /* the fixed cells break a rule */
    STEPPER_SNAP_DEPTH,        /* depth not 1-81 */
    STEPPER_SNAP_TOP,          /* the top flag not 0 or 1 */
    STEPPER_SNAP_CELL,         /* a frame's cell is not the one decided there */
    STEPPER_SNAP_VALUE,        /* a frame's value is not a candidate */
    STEPPER_SNAP_UNTRIED,      /* a top frame off the board with nothing left to try */
    STEPPER_SNAP_SOLVED,       /* the path fills the board: not a running search */
    STEPPER_SNAP_STEPS         /* steps below the path's own, or of the wrong parity */
};

/* Writes the snapshot of a running search of limit 1 to `out` (room for
 * STEPPER_SNAPSHOT_MAX bytes); returns its size, or 0 (nothing written)
 * when the search is not running or its limit is not 1. */
size_t stepper_export(const stepper *s, uint8_t out[STEPPER_SNAPSHOT_MAX]);

/* Sets `s` to the search `data` holds, capped at `max_steps`; returns
 * STEPPER_OK or a STEPPER_SNAP_* code (*frame: the frame at fault, or -1).
 * Reads at most `size` bytes of `data`. */
int stepper_resume(stepper *s, const uint8_t *data, size_t size, uint64_t max_steps, int *frame);

/* A sentence saying what a STEPPER_SNAP_* code means ("" for others). */
const char *stepper_snapshot_error(int code);

#endif

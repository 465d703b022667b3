/*
 * stepper.c: the observable search (contract in stepper.h).
 *
 * Why it is fast: for each value, the set of blank cells where it is still
 * legal is kept as an 81-bit set, and each blank cell keeps an MRV sort key
 * (candidates << 7 | cell). Placing v is a few word operations on those
 * sets: the peers that lose v are (cells open to v) & (the cell's units),
 * remembered in the frame so the retraction gives v back to exactly them;
 * only their keys are touched. Choosing the MRV cell is a minimum over 88
 * 16-bit keys, which the compiler turns into a handful of SIMD
 * instructions, and the minimum key already carries the lowest-index
 * tie-break. Nothing is allocated; nothing is recomputed from scratch.
 */
#include "stepper.h"

#include <string.h>

/* SSE2 is part of x86-64; STEPPER_NO_SIMD forces the plain loop, so that it
 * can be tested on x86 too. */
#if defined(__SSE2__) && !defined(STEPPER_NO_SIMD)
#include <emmintrin.h>
#define STEPPER_SSE2 1
#endif

#define ALL_VALUES 0x1FFu /* bit v-1 set means value v */
#define KEY_SHIFT 7
#define KEY_ONE (1 << KEY_SHIFT) /* one candidate's worth of key */
#define NO_CELL (-1)

/* The cells of each unit: rows 0-8, columns 9-17, boxes 18-26. Generated
 * from the definitions in stepper.h; the C-vs-reference tests would catch a
 * wrong bit. */
static const stepper_cells UNIT_CELLS[27] = {
    /* rows */
    {0x00000000000001ffu, 0x00000u},
    {0x000000000003fe00u, 0x00000u},
    {0x0000000007fc0000u, 0x00000u},
    {0x0000000ff8000000u, 0x00000u},
    {0x00001ff000000000u, 0x00000u},
    {0x003fe00000000000u, 0x00000u},
    {0x7fc0000000000000u, 0x00000u},
    {0x8000000000000000u, 0x000ffu},
    {0x0000000000000000u, 0x1ff00u},
    /* columns */
    {0x8040201008040201u, 0x00100u},
    {0x0080402010080402u, 0x00201u},
    {0x0100804020100804u, 0x00402u},
    {0x0201008040201008u, 0x00804u},
    {0x0402010080402010u, 0x01008u},
    {0x0804020100804020u, 0x02010u},
    {0x1008040201008040u, 0x04020u},
    {0x2010080402010080u, 0x08040u},
    {0x4020100804020100u, 0x10080u},
    /* boxes */
    {0x00000000001c0e07u, 0x00000u},
    {0x0000000000e07038u, 0x00000u},
    {0x00000000070381c0u, 0x00000u},
    {0x0000e07038000000u, 0x00000u},
    {0x00070381c0000000u, 0x00000u},
    {0x00381c0e00000000u, 0x00000u},
    {0x81c0000000000000u, 0x00703u},
    {0x0e00000000000000u, 0x0381cu},
    {0x7000000000000000u, 0x1c0e0u},
};

static inline int row_of(int cell) { return cell / 9; }
static inline int col_of(int cell) { return cell % 9; }
static inline int box_of(int cell) { return (cell / 27) * 3 + (cell % 9) / 3; }

static inline stepper_cells cell_set(int cell)
{
    stepper_cells set = {0, 0};
    if (cell < 64)
        set.lo = (uint64_t)1 << cell;
    else
        set.hi = (uint64_t)1 << (cell - 64);
    return set;
}

static inline int has_cell(stepper_cells set, int cell)
{
    return cell < 64 ? (int)((set.lo >> cell) & 1) : (int)((set.hi >> (cell - 64)) & 1);
}

/* The cell and its 20 peers. */
static inline stepper_cells neighbourhood(int cell)
{
    stepper_cells row = UNIT_CELLS[row_of(cell)];
    stepper_cells col = UNIT_CELLS[9 + col_of(cell)];
    stepper_cells box = UNIT_CELLS[18 + box_of(cell)];
    stepper_cells all = {row.lo | col.lo | box.lo, row.hi | col.hi | box.hi};
    return all;
}

static inline int16_t key_of(uint16_t candidates, int cell)
{
    return (int16_t)((__builtin_popcount(candidates) << KEY_SHIFT) | cell);
}

static inline int lowest_value(uint16_t mask) { return __builtin_ctz(mask) + 1; }

static inline void count_blank(stepper *s, int cell, int delta)
{
    s->blanks[0][row_of(cell)] = (uint8_t)(s->blanks[0][row_of(cell)] + delta);
    s->blanks[1][col_of(cell)] = (uint8_t)(s->blanks[1][col_of(cell)] + delta);
    s->blanks[2][box_of(cell)] = (uint8_t)(s->blanks[2][box_of(cell)] + delta);
}

/* Adds `delta` to the key of every cell in `set`. */
static inline void shift_keys(stepper *s, stepper_cells set, int delta)
{
    for (uint64_t m = set.lo; m; m &= m - 1)
        s->key[__builtin_ctzll(m)] = (int16_t)(s->key[__builtin_ctzll(m)] + delta);
    for (uint64_t m = set.hi; m; m &= m - 1)
        s->key[64 + __builtin_ctzll(m)] = (int16_t)(s->key[64 + __builtin_ctzll(m)] + delta);
}

/* The candidates of a blank cell, read off the per-value sets. */
static inline uint16_t candidates_of(const stepper *s, int cell)
{
    uint16_t mask = 0;
    for (int v = 0; v < 9; v++)
        mask |= (uint16_t)(has_cell(s->open[v], cell) << v);
    return mask;
}

/* Puts f->cell = value: the cell leaves every value's open set, and the
 * peers still open to `value` lose it (remembered in f->cleared). */
static inline void place(stepper *s, stepper_frame *f, int value)
{
    int cell = f->cell;
    stepper_cells self = cell_set(cell), around = neighbourhood(cell);
    stepper_cells *open = &s->open[value - 1];
    stepper_cells cleared = {open->lo & around.lo & ~self.lo,
                             open->hi & around.hi & ~self.hi};
    open->lo &= ~around.lo;
    open->hi &= ~around.hi;
    for (uint16_t m = f->candidates; m; m &= (uint16_t)(m - 1)) {
        s->open[__builtin_ctz(m)].lo &= ~self.lo;
        s->open[__builtin_ctz(m)].hi &= ~self.hi;
    }
    shift_keys(s, cleared, -KEY_ONE);
    f->value = (uint8_t)value;
    f->cleared = cleared;
    s->board[cell] = (uint8_t)value;
    s->key[cell] = STEPPER_FILLED;
    count_blank(s, cell, -1);
}

/* Undoes place(): only the peers it cleared get the value back. */
static inline void retract(stepper *s, stepper_frame *f)
{
    int cell = f->cell;
    stepper_cells self = cell_set(cell);
    stepper_cells *open = &s->open[f->value - 1];
    open->lo |= f->cleared.lo;
    open->hi |= f->cleared.hi;
    for (uint16_t m = f->candidates; m; m &= (uint16_t)(m - 1)) {
        s->open[__builtin_ctz(m)].lo |= self.lo;
        s->open[__builtin_ctz(m)].hi |= self.hi;
    }
    shift_keys(s, f->cleared, +KEY_ONE);
    f->value = 0;
    s->board[cell] = 0;
    s->key[cell] = key_of(f->candidates, cell);
    count_blank(s, cell, +1);
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) for n >= 1: reject the low 2^64 mod n values so the
 * accepted range is a whole number of copies of [0, n). */
static uint64_t draw(uint64_t *state, uint64_t n)
{
    uint64_t threshold = (0 - n) % n;
    uint64_t x;
    do {
        x = splitmix64(state);
    } while (x < threshold);
    return x % n;
}

static int choose_naive(const stepper *s)
{
    /* Naive decides cells in reading order, so every cell before the top
     * frame's is filled: start after it. */
    int start = s->depth ? s->stack[s->depth - 1].cell + 1 : 0;
    for (int i = start; i < 81; i++)
        if (s->key[i] != STEPPER_FILLED)
            return i;
    return NO_CELL;
}

static int16_t min_key(const stepper *s)
{
    int16_t m = STEPPER_FILLED;
    for (int i = 0; i < STEPPER_KEYS; i++)
        m = s->key[i] < m ? s->key[i] : m;
    return m;
}

/* Cell `cell`'s order under the rotate tie-break: its units' blank counts in
 * the kind order for depth d, then the index. Smaller wins. */
static int rotate_rank(const stepper *s, int cell)
{
    int unit[3] = {row_of(cell), col_of(cell), box_of(cell)};
    int d = s->depth % 3;
    int rank = 0;
    for (int k = 0; k < 3; k++) {
        int kind = (d + k) % 3;
        rank = (rank << 4) | s->blanks[kind][unit[kind]];
    }
    return (rank << KEY_SHIFT) | cell;
}

/* Writes the cells whose key has `count` candidates to `tied`, ascending;
 * returns how many. Which cells tie is data no branch predictor guesses, so
 * neither loop branches on it per cell. */
static int tied_cells(const stepper *s, int count, uint8_t tied[STEPPER_KEYS])
{
    int n = 0;
#ifdef STEPPER_SSE2
    const __m128i want = _mm_set1_epi16((short)count);
    for (int base = 0; base < STEPPER_KEYS; base += 8) {
        __m128i keys = _mm_loadu_si128((const __m128i *)&s->key[base]);
        __m128i same = _mm_cmpeq_epi16(_mm_srai_epi16(keys, KEY_SHIFT), want);
        /* movemask gives 2 bits per 16-bit lane: keep one. */
        for (unsigned m = (unsigned)_mm_movemask_epi8(same) & 0x5555u; m; m &= m - 1)
            tied[n++] = (uint8_t)(base + __builtin_ctz(m) / 2);
    }
#else
    for (int i = 0; i < 81; i++) {
        tied[n] = (uint8_t)i;
        n += (s->key[i] >> KEY_SHIFT) == count;
    }
#endif
    return n;
}

/* Breaks a tie among the cells with `count` (>= 1) candidates. */
static int break_tie(stepper *s, int count)
{
    uint8_t tied[STEPPER_KEYS];
    int n = tied_cells(s, count, tied);
    if (n == 1)
        return tied[0];
    if (s->opt.tie_break == STEPPER_TIE_RANDOM)
        return tied[draw(&s->rng, (uint64_t)n)];
    int best = rotate_rank(s, tied[0]);
    for (int j = 1; j < n; j++) {
        int rank = rotate_rank(s, tied[j]);
        best = rank < best ? rank : best;
    }
    return best & (KEY_ONE - 1); /* a rank ends with its cell */
}

static int choose_mrv(stepper *s)
{
    int16_t m = min_key(s);
    if (m == STEPPER_FILLED)
        return NO_CELL;
    int cell = m & (KEY_ONE - 1), count = m >> KEY_SHIFT;
    /* A dead end takes no step, so which one is taken is invisible: no
     * tie-break, and above all no random draw. */
    if (count == 0 || s->opt.tie_break == STEPPER_TIE_FIRST)
        return cell;
    return break_tie(s, count);
}

/* The search is over: the last frame was popped. */
static void finish(stepper *s)
{
    s->status = s->solutions ? STEPPER_SOLVED : STEPPER_EXHAUSTED;
}

static void found_solution(stepper *s)
{
    if (s->solutions++ == 0)
        memcpy(s->solution, s->board, 81);
    if (s->solutions >= s->opt.limit)
        s->status = STEPPER_SOLVED;
    else if (s->depth == 0)
        finish(s); /* a full board given: nothing to retract */
}

/* After a placement (or at the start): pick the next cell to decide. */
static inline void descend(stepper *s)
{
    int cell = s->opt.strategy == STEPPER_MRV ? choose_mrv(s) : choose_naive(s);
    if (cell == NO_CELL) {
        found_solution(s);
        return;
    }
    uint16_t candidates = candidates_of(s, cell);
    if (candidates == 0) {
        /* Dead end: not pushed; the next step retracts the top frame. */
        if (s->depth == 0)
            finish(s);
        return;
    }
    stepper_frame *f = &s->stack[s->depth++];
    f->cell = (uint8_t)cell;
    f->value = 0;
    f->untried = candidates;
    f->candidates = candidates;
    f->cleared.lo = f->cleared.hi = 0;
}

/* One step on the top frame, then the step-free transitions it causes. */
static inline void step(stepper *s, uint8_t *event, const int record)
{
    stepper_frame *f = &s->stack[s->depth - 1];
    uint8_t cell = f->cell;
    int value = 0;
    s->steps++;
    if (f->value) {
        retract(s, f);
        s->retractions++;
        if (!f->untried && --s->depth == 0)
            finish(s);
    } else {
        value = lowest_value(f->untried);
        f->untried &= (uint16_t)(f->untried - 1);
        place(s, f, value);
        s->placements++;
        descend(s);
    }
    if (record) {
        event[0] = cell;
        event[1] = (uint8_t)value;
    }
}

static inline __attribute__((always_inline)) uint64_t
run_loop(stepper *s, uint8_t *events, uint64_t budget, const int record)
{
    if (s->opt.max_steps - s->steps < budget)
        budget = s->opt.max_steps - s->steps;
    uint64_t n = 0;
    while (n < budget && s->status == STEPPER_RUNNING) {
        step(s, record ? events + 2 * n : NULL, record);
        n++;
    }
    if (s->status == STEPPER_RUNNING && s->steps >= s->opt.max_steps)
        s->status = STEPPER_GAVE_UP;
    return n;
}

uint64_t stepper_run(stepper *s, uint8_t *events, uint64_t budget)
{
    return run_loop(s, events, budget, 1);
}

uint64_t stepper_skip(stepper *s, uint64_t budget)
{
    return run_loop(s, NULL, budget, 0);
}

int stepper_cursor(const stepper *s)
{
    if (s->status != STEPPER_RUNNING || s->depth == 0)
        return -1;
    return s->stack[s->depth - 1].cell;
}

int stepper_conflicts(const uint8_t cells[81], uint8_t out[81])
{
    stepper_cells holding[10] = {{0, 0}}; /* [v]: cells given v; [0] unused */
    int n = 0;
    for (int i = 0; i < 81; i++) {
        if (cells[i] >= 1 && cells[i] <= 9) {
            stepper_cells self = cell_set(i);
            holding[cells[i]].lo |= self.lo;
            holding[cells[i]].hi |= self.hi;
        }
    }
    for (int i = 0; i < 81; i++) {
        if (cells[i] < 1 || cells[i] > 9)
            continue;
        stepper_cells self = cell_set(i), around = neighbourhood(i);
        stepper_cells same = holding[cells[i]];
        if ((same.lo & around.lo & ~self.lo) | (same.hi & around.hi & ~self.hi))
            out[n++] = (uint8_t)i;
    }
    return n;
}

static int options_valid(const stepper_options *opt)
{
    return (opt->strategy == STEPPER_NAIVE || opt->strategy == STEPPER_MRV) &&
           (opt->tie_break == STEPPER_TIE_FIRST ||
            opt->tie_break == STEPPER_TIE_ROTATE ||
            opt->tie_break == STEPPER_TIE_RANDOM) &&
           opt->limit >= 1;
}

/* Fills the open sets, keys and blank counts from the (consistent) board. */
static void index_board(stepper *s)
{
    uint16_t used[3][9] = {{0}};
    for (int i = 0; i < 81; i++) {
        if (s->board[i]) {
            uint16_t bit = (uint16_t)(1u << (s->board[i] - 1));
            used[0][row_of(i)] |= bit;
            used[1][col_of(i)] |= bit;
            used[2][box_of(i)] |= bit;
        }
    }
    for (int i = 0; i < STEPPER_KEYS; i++)
        s->key[i] = STEPPER_FILLED;
    for (int i = 0; i < 81; i++) {
        if (s->board[i])
            continue;
        uint16_t taken = used[0][row_of(i)] | used[1][col_of(i)] | used[2][box_of(i)];
        uint16_t candidates = (uint16_t)(~taken & ALL_VALUES);
        stepper_cells self = cell_set(i);
        for (uint16_t m = candidates; m; m &= (uint16_t)(m - 1)) {
            s->open[__builtin_ctz(m)].lo |= self.lo;
            s->open[__builtin_ctz(m)].hi |= self.hi;
        }
        s->key[i] = key_of(candidates, i);
        count_blank(s, i, +1);
    }
}

int stepper_init(stepper *s, const uint8_t cells[81], const stepper_options *opt)
{
    uint8_t conflicts[81];
    memset(s, 0, sizeof *s);
    s->status = STEPPER_EXHAUSTED;
    if (!options_valid(opt))
        return STEPPER_EINVAL;
    for (int i = 0; i < 81; i++)
        if (cells[i] > 9)
            return STEPPER_EINVAL;
    s->opt = *opt;
    s->rng = opt->seed;
    memcpy(s->board, cells, 81);
    if (stepper_conflicts(cells, conflicts) > 0)
        return STEPPER_OK; /* EXHAUSTED at step 0 */
    s->status = STEPPER_RUNNING;
    index_board(s);
    descend(s);
    if (s->status == STEPPER_RUNNING && opt->max_steps == 0)
        s->status = STEPPER_GAVE_UP;
    return STEPPER_OK;
}

/* ---- Snapshots (contract in stepper.h, SNAPSHOTS) ---- */

static void put_u64(uint8_t *out, uint64_t value)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_u64(const uint8_t *in)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value |= (uint64_t)in[i] << (8 * i);
    return value;
}

/* Bits of the values 1..v (bit v-1 for v): the values tried up to v. */
static inline uint16_t up_to(int v) { return (uint16_t)((1u << v) - 1u); }

/* The largest value of a mask, 0 for none. */
static inline int highest_value(uint16_t mask) { return mask ? 32 - __builtin_clz(mask) : 0; }

size_t stepper_export(const stepper *s, uint8_t out[STEPPER_SNAPSHOT_MAX])
{
    if (s->status != STEPPER_RUNNING || s->opt.limit != 1 || s->depth < 1)
        return 0;
    uint8_t fixed[81];
    memcpy(fixed, s->board, 81);
    for (int i = 0; i < s->depth; i++)
        if (s->stack[i].value)
            fixed[s->stack[i].cell] = 0;
    const stepper_frame *top = &s->stack[s->depth - 1];
    out[0] = STEPPER_SNAPSHOT_VERSION;
    out[1] = (uint8_t)s->opt.strategy;
    out[2] = (uint8_t)s->opt.tie_break;
    put_u64(out + 3, s->rng);
    put_u64(out + 11, s->steps);
    for (int i = 0; i < 41; i++)
        out[19 + i] = (uint8_t)(fixed[2 * i] | (2 * i + 1 < 81 ? fixed[2 * i + 1] << 4 : 0));
    out[60] = (uint8_t)s->depth;
    out[61] = top->value != 0;
    for (int i = 0; i < s->depth; i++) {
        const stepper_frame *f = &s->stack[i];
        /* Off the board: the last value tried, the largest candidate not
         * left to try (values go in ascending order). */
        int value = f->value ? f->value : highest_value((uint16_t)(f->candidates & ~f->untried));
        out[62 + 2 * i] = f->cell;
        out[63 + 2 * i] = (uint8_t)value;
    }
    return STEPPER_SNAPSHOT_HEADER + 2 * (size_t)s->depth;
}

static const char *const SNAPSHOT_ERRORS[] = {
    "its size is not 62 bytes plus 2 a frame (truncated, or bytes after its end)",
    "it is not a version 1 snapshot",
    "its strategy or tie-break is not one the engine knows",
    "a cell holds a value above 9, or the last byte's high nibble is not 0",
    "its fixed cells break a rule (such a search ends at step 0)",
    "its depth is not 1-81",
    "its top flag is not 0 or 1",
    "the cell is not one the search decides there",
    "the value is not a candidate of the cell",
    "no value is left to try in the top frame (the search pops such a frame)",
    "its values fill the board: a solved search, not a running one",
    "its step count is below the steps of its own path, or of the wrong parity",
};

const char *stepper_snapshot_error(int code)
{
    int i = code - STEPPER_SNAP_SIZE;
    int n = (int)(sizeof SNAPSHOT_ERRORS / sizeof SNAPSHOT_ERRORS[0]);
    return i >= 0 && i < n ? SNAPSHOT_ERRORS[i] : "";
}

/* Whether the search, in its state now, could push a frame on `cell`.
 * Under STEPPER_TIE_RANDOM the draw that chose among the tied cells is not
 * replayed (it depended on the generator then): any tied cell could have
 * been drawn. No random number is drawn here. */
static int could_decide(stepper *s, int cell)
{
    if (s->opt.strategy == STEPPER_NAIVE)
        return choose_naive(s) == cell && candidates_of(s, cell) != 0;
    int16_t m = min_key(s);
    if (m == STEPPER_FILLED || (m >> KEY_SHIFT) == 0)
        return 0; /* a full board, or a dead end: no frame is pushed */
    if (s->opt.tie_break != STEPPER_TIE_RANDOM)
        return choose_mrv(s) == cell;
    return s->key[cell] != STEPPER_FILLED && (s->key[cell] >> KEY_SHIFT) == (m >> KEY_SHIFT);
}

/* Pushes the path's frames and places their values, checking each against
 * the search (see stepper.h); adds the steps the path takes to *path_steps. */
static int resume_path(stepper *s, const uint8_t *path, int depth, int top_on,
                       uint64_t *path_steps, int *frame)
{
    for (int i = 0; i < depth; i++) {
        int cell = path[2 * i], value = path[2 * i + 1];
        int on = i < depth - 1 || top_on;
        *frame = i;
        if (cell > 80 || !could_decide(s, cell))
            return STEPPER_SNAP_CELL;
        uint16_t candidates = candidates_of(s, cell);
        if (value > 9 || (on && value == 0) || (value && !(candidates & (1u << (value - 1)))))
            return STEPPER_SNAP_VALUE;
        uint16_t untried = (uint16_t)(candidates & ~up_to(value));
        if (!on && untried == 0)
            return STEPPER_SNAP_UNTRIED;
        stepper_frame *f = &s->stack[s->depth++];
        f->cell = (uint8_t)cell;
        f->value = 0;
        f->candidates = candidates;
        f->untried = untried;
        f->cleared.lo = f->cleared.hi = 0;
        /* Each value tried before this one was placed and retracted. */
        uint64_t tried = (uint64_t)__builtin_popcount(candidates & up_to(value));
        if (on) {
            place(s, f, value);
            *path_steps += 2 * tried - 1;
        } else {
            *path_steps += 2 * tried;
        }
    }
    *frame = -1;
    if (min_key(s) == STEPPER_FILLED)
        return STEPPER_SNAP_SOLVED;
    return STEPPER_OK;
}

static int resume(stepper *s, const uint8_t *data, size_t size, uint64_t max_steps, int *frame)
{
    if (size < STEPPER_SNAPSHOT_HEADER)
        return STEPPER_SNAP_SIZE;
    if (data[0] != STEPPER_SNAPSHOT_VERSION)
        return STEPPER_SNAP_VERSION;
    int depth = data[60];
    if (depth < 1 || depth > 81)
        return STEPPER_SNAP_DEPTH;
    if (size != STEPPER_SNAPSHOT_HEADER + 2 * (size_t)depth)
        return STEPPER_SNAP_SIZE;
    if (data[1] > STEPPER_MRV || data[2] > STEPPER_TIE_RANDOM)
        return STEPPER_SNAP_OPTIONS;
    stepper_options opt = {(stepper_strategy)data[1], (stepper_tie_break)data[2], 0, max_steps, 1};
    uint8_t cells[82], conflicts[81];
    for (int i = 0; i < 41; i++) {
        cells[2 * i] = data[19 + i] & 15;
        cells[2 * i + 1] = data[19 + i] >> 4;
    }
    for (int i = 0; i < 82; i++)
        if (cells[i] > 9 || (i == 81 && cells[i]))
            return STEPPER_SNAP_CELLS;
    if (stepper_conflicts(cells, conflicts) > 0)
        return STEPPER_SNAP_CONFLICT;
    if (data[61] > 1)
        return STEPPER_SNAP_TOP;
    s->opt = opt;
    s->rng = get_u64(data + 3);
    memcpy(s->board, cells, 81);
    s->status = STEPPER_RUNNING;
    index_board(s);
    uint64_t path_steps = 0;
    int code = resume_path(s, data + STEPPER_SNAPSHOT_HEADER, depth, data[61], &path_steps, frame);
    if (code != STEPPER_OK)
        return code;
    uint64_t steps = get_u64(data + 11), on = (uint64_t)(depth - 1 + data[61]);
    if (steps < path_steps || (steps - on) % 2)
        return STEPPER_SNAP_STEPS;
    s->steps = steps;
    s->retractions = (steps - on) / 2;
    s->placements = on + s->retractions;
    if (s->steps >= s->opt.max_steps)
        s->status = STEPPER_GAVE_UP;
    return STEPPER_OK;
}

int stepper_resume(stepper *s, const uint8_t *data, size_t size, uint64_t max_steps, int *frame)
{
    int where = -1;
    memset(s, 0, sizeof *s);
    int code = resume(s, data, size, max_steps, &where);
    if (code != STEPPER_OK) {
        memset(s, 0, sizeof *s);
        s->status = STEPPER_EXHAUSTED;
    }
    if (frame)
        *frame = where;
    return code;
}

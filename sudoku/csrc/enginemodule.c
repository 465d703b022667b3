/*
 * enginemodule.c: the CPython binding of the engine, `sudoku._engine`.
 *
 * Thin by design: the searches live in stepper.c, fastpath.c, logic.c and
 * generate.c (pure C);
 * this file converts arguments, validates them (it is the one place that
 * does: parse_board's messages are the ones users see), releases the GIL
 * around long C calls and guards a Stepper against use by two threads.
 *
 * Multi-phase init with per-module state (PEP 489, PEP 573): no static
 * mutable state, so the module can be loaded in several interpreters.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "fastpath.h"
#include "generate.h"
#include "logic.h"
#include "stepper.h"

/* Slices shorter than this run with the GIL held: releasing and taking it
 * back costs about as much as a thousand steps. */
#define GIL_RELEASE_STEPS 1024
/* run() grows its event buffer in slices of at least this many steps, so a
 * huge budget does not allocate 2 bytes per step up front. */
#define RUN_CHUNK_STEPS (1u << 20)

#define CELL_RULE "is not 1-9, '.' or '0'"

typedef struct {
    PyTypeObject *stepper_type;
} engine_state;

typedef struct {
    PyObject_HEAD
    int busy; /* a call is running on this stepper (checked under the GIL) */
    stepper core;
} StepperObject;

/* ---- Arguments ---- */

/* A cell's value: 1-9 for '1'-'9', 0 for '.' or '0', -1 for anything else.
 * The one definition of a cell, for every reader below. */
static int cell_value(Py_UCS4 ch)
{
    if (ch >= '1' && ch <= '9')
        return (int)(ch - '0');
    return ch == '.' || ch == '0' ? 0 : -1;
}

static int is_ascii_space(Py_UCS4 ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
           ch == '\v' || ch == '\f';
}

/* `board` numbers the board within count_many's input; -1 for a lone board. */
static int bad_cell(Py_ssize_t board, Py_ssize_t index, Py_UCS4 ch)
{
    PyObject *shown = PyUnicode_FromOrdinal((int)ch);
    if (shown == NULL)
        return -1;
    if (board >= 0)
        PyErr_Format(PyExc_ValueError, "board %zd: cell r%dc%d: %R " CELL_RULE,
                     board, (int)(index / 9) + 1, (int)(index % 9) + 1, shown);
    else if (index < 81)
        PyErr_Format(PyExc_ValueError, "cell r%dc%d: %R " CELL_RULE,
                     (int)(index / 9) + 1, (int)(index % 9) + 1, shown);
    else
        PyErr_Format(PyExc_ValueError, "cell %zd: %R " CELL_RULE,
                     index + 1, shown);
    Py_DECREF(shown);
    return -1;
}

/*
 * Reads a board: 81 cells '1'-'9', '.' or '0', ASCII whitespace ignored.
 * One pass over the string, whatever its length, and the message is built
 * from one character: a 10 MB string costs a scan, nothing more. The first
 * bad character is reported before a wrong length.
 */
static int parse_cells(PyObject *board, uint8_t cells[81])
{
    if (!PyUnicode_Check(board)) {
        PyErr_Format(PyExc_TypeError,
                     "board must be a str of 81 cells ('1'-'9', '.' or '0'), "
                     "not %.100s", Py_TYPE(board)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    /* Only strings made by the deprecated wchar_t APIs need this. */
    if (PyUnicode_READY(board) < 0)
        return -1;
#endif
    Py_ssize_t length = PyUnicode_GET_LENGTH(board), n = 0;
    int kind = PyUnicode_KIND(board);
    const void *data = PyUnicode_DATA(board);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        int value = cell_value(ch);
        if (value < 0 && is_ascii_space(ch))
            continue;
        if (value < 0)
            return bad_cell(-1, n, ch);
        if (n < 81)
            cells[n] = (uint8_t)value;
        n++;
    }
    if (n != 81) {
        PyErr_Format(PyExc_ValueError, "expected 81 cells, got %zd", n);
        return -1;
    }
    return 0;
}

/*
 * Converts an int argument >= `min` to uint64_t. Ints too big for 63 bits
 * saturate to UINT64_MAX, which means "no limit" for every count here.
 */
static int as_count(PyObject *obj, const char *name, uint64_t min, uint64_t *out)
{
    if (!PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s",
                     name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    int overflow;
    long long value = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (value == -1 && PyErr_Occurred())
        return -1;
    if (overflow > 0) {
        *out = UINT64_MAX;
        return 0;
    }
    if (overflow < 0 || value < 0 || (uint64_t)value < min) {
        if (overflow < 0)
            PyErr_Format(PyExc_ValueError, "%s must be >= %llu, got a huge "
                         "negative int", name, (unsigned long long)min);
        else
            PyErr_Format(PyExc_ValueError, "%s must be >= %llu, got %lld",
                         name, (unsigned long long)min, value);
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

/* None means "no cap". */
static int as_cap(PyObject *obj, const char *name, uint64_t min, uint64_t *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = STEPPER_NO_CAP;
        return 0;
    }
    return as_count(obj, name, min, out);
}

static int as_seed(PyObject *obj, uint64_t *out)
{
    if (!PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "seed must be an int, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    unsigned long long value = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "seed must be in 0..2**64-1");
        }
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

/* Names a bad option value without echoing a huge string back. */
static int unknown_option(const char *name, PyObject *value, const char *expected)
{
    if (PyUnicode_GET_LENGTH(value) <= 40)
        PyErr_Format(PyExc_ValueError, "unknown %s %R: expected %s",
                     name, value, expected);
    else
        PyErr_Format(PyExc_ValueError, "unknown %s (a str of %zd "
                     "characters): expected %s", name,
                     PyUnicode_GET_LENGTH(value), expected);
    return -1;
}

static int as_strategy(PyObject *obj, stepper_strategy *out)
{
    if (PyUnicode_CompareWithASCIIString(obj, "mrv") == 0)
        *out = STEPPER_MRV;
    else if (PyUnicode_CompareWithASCIIString(obj, "naive") == 0)
        *out = STEPPER_NAIVE;
    else
        return unknown_option("strategy", obj, "'mrv' or 'naive'");
    return 0;
}

static int as_tie_break(PyObject *obj, stepper_tie_break *out)
{
    if (PyUnicode_CompareWithASCIIString(obj, "rotate") == 0)
        *out = STEPPER_TIE_ROTATE;
    else if (PyUnicode_CompareWithASCIIString(obj, "first") == 0)
        *out = STEPPER_TIE_FIRST;
    else if (PyUnicode_CompareWithASCIIString(obj, "random") == 0)
        *out = STEPPER_TIE_RANDOM;
    else
        return unknown_option("tie_break", obj, "'rotate', 'first' or 'random'");
    return 0;
}

static PyObject *board_str(const uint8_t cells[81])
{
    char text[81];
    for (int i = 0; i < 81; i++)
        text[i] = cells[i] ? (char)('0' + cells[i]) : '.';
    return PyUnicode_FromStringAndSize(text, 81);
}

/* ---- Stepper ---- */

/* Claims the stepper for this call. The flag is read and set with the GIL
 * held, so two threads cannot both claim it; the second gets an error
 * instead of racing the first through the C state. */
static int claim(StepperObject *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this Stepper is in use by another thread");
        return -1;
    }
    self->busy = 1;
    return 0;
}

static PyObject *Stepper_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"board", "strategy", "tie_break", "seed",
                             "max_steps", "limit", NULL};
    PyObject *board, *strategy = NULL, *tie_break = NULL, *seed = NULL;
    PyObject *max_steps = NULL, *limit = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$UUOOO:Stepper", kwlist,
                                     &board, &strategy, &tie_break, &seed,
                                     &max_steps, &limit))
        return NULL;
    uint8_t cells[81];
    stepper_options opt = {STEPPER_MRV, STEPPER_TIE_ROTATE, 0, STEPPER_NO_CAP, 1};
    if (parse_cells(board, cells) < 0 ||
        (strategy && as_strategy(strategy, &opt.strategy) < 0) ||
        (tie_break && as_tie_break(tie_break, &opt.tie_break) < 0) ||
        (seed && as_seed(seed, &opt.seed) < 0) ||
        as_cap(max_steps, "max_steps", 0, &opt.max_steps) < 0 ||
        (limit && as_count(limit, "limit", 1, &opt.limit) < 0))
        return NULL;
    StepperObject *self = (StepperObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    if (stepper_init(&self->core, cells, &opt) != STEPPER_OK) {
        /* Unreachable: everything was validated above. */
        Py_DECREF(self);
        PyErr_SetString(PyExc_SystemError, "stepper_init rejected its input");
        return NULL;
    }
    return (PyObject *)self;
}

static void Stepper_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type); /* instances of heap types own a reference to it */
}

static uint64_t run_slice(StepperObject *self, uint8_t *events, uint64_t budget)
{
    uint64_t n;
    if (budget < GIL_RELEASE_STEPS)
        return events ? stepper_run(&self->core, events, budget)
                      : stepper_skip(&self->core, budget);
    Py_BEGIN_ALLOW_THREADS
    n = events ? stepper_run(&self->core, events, budget)
               : stepper_skip(&self->core, budget);
    Py_END_ALLOW_THREADS
    return n;
}

/* Replaces *out by a copy with room for `steps` events. On failure *out is
 * untouched and the error is set. */
static int grow_events(PyObject **out, uint64_t used, uint64_t steps)
{
    if (steps > (uint64_t)(PY_SSIZE_T_MAX / 2)) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *bigger = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(2 * steps));
    if (bigger == NULL)
        return -1;
    memcpy(PyBytes_AS_STRING(bigger), PyBytes_AS_STRING(*out), (size_t)(2 * used));
    Py_SETREF(*out, bigger);
    return 0;
}

/*
 * Runs up to `budget` steps into a bytes object. The buffer starts at one
 * chunk and doubles, so its size follows the steps taken, not the budget.
 * If growing fails after some steps were taken, their events are returned
 * (fewer than budget while still running) rather than lost with an error.
 */
static PyObject *run_events(StepperObject *self, uint64_t budget)
{
    uint64_t room = self->core.opt.max_steps - self->core.steps;
    if (self->core.status != STEPPER_RUNNING)
        budget = 0;
    if (budget > room)
        budget = room;
    uint64_t size = budget < RUN_CHUNK_STEPS ? budget : RUN_CHUNK_STEPS;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(2 * size));
    if (out == NULL)
        return NULL;
    uint64_t done = 0;
    for (;;) {
        uint8_t *events = (uint8_t *)PyBytes_AS_STRING(out) + 2 * done;
        uint64_t wanted = size - done;
        uint64_t taken = run_slice(self, events, wanted);
        done += taken;
        if (taken < wanted || done == budget)
            break;
        uint64_t bigger = size * 2 < budget ? size * 2 : budget;
        if (grow_events(&out, done, bigger) < 0) {
            if (done == 0) {
                Py_DECREF(out);
                return NULL;
            }
            PyErr_Clear();
            break;
        }
        size = bigger;
    }
    if (done < size && _PyBytes_Resize(&out, (Py_ssize_t)(2 * done)) < 0)
        return NULL;
    return out;
}

static PyObject *Stepper_run(PyObject *op, PyObject *arg)
{
    StepperObject *self = (StepperObject *)op;
    uint64_t budget;
    if (as_count(arg, "budget", 0, &budget) < 0 || claim(self) < 0)
        return NULL;
    PyObject *events = run_events(self, budget);
    self->busy = 0;
    return events;
}

static PyObject *Stepper_skip(PyObject *op, PyObject *arg)
{
    StepperObject *self = (StepperObject *)op;
    uint64_t budget;
    if (as_count(arg, "budget", 0, &budget) < 0 || claim(self) < 0)
        return NULL;
    uint64_t taken = run_slice(self, NULL, budget);
    self->busy = 0;
    return PyLong_FromUnsignedLongLong(taken);
}

/* The search's state as a snapshot (stepper.h, SNAPSHOTS). */
static PyObject *Stepper_export(PyObject *op, PyObject *unused)
{
    (void)unused;
    StepperObject *self = (StepperObject *)op;
    uint8_t out[STEPPER_SNAPSHOT_MAX];
    if (claim(self) < 0)
        return NULL;
    size_t size = stepper_export(&self->core, out);
    self->busy = 0;
    if (size == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "only a running search of limit 1 has a snapshot");
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)size);
}

/* Stepper.resume(snapshot, /, *, max_steps=None): the one place a snapshot
 * from outside is read; stepper_resume checks all of it. */
static PyObject *Stepper_resume(PyObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"", "max_steps", NULL};
    Py_buffer snapshot;
    PyObject *max_steps = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|$O:resume", kwlist, &snapshot, &max_steps))
        return NULL;
    uint64_t cap;
    if (as_cap(max_steps, "max_steps", 0, &cap) < 0) {
        PyBuffer_Release(&snapshot);
        return NULL;
    }
    StepperObject *self = (StepperObject *)((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, 0);
    if (self == NULL) {
        PyBuffer_Release(&snapshot);
        return NULL;
    }
    int frame;
    int code = stepper_resume(&self->core, (const uint8_t *)snapshot.buf, (size_t)snapshot.len, cap, &frame);
    Py_ssize_t size = snapshot.len;
    PyBuffer_Release(&snapshot);
    if (code != STEPPER_OK) {
        Py_DECREF(self);
        if (frame >= 0)
            PyErr_Format(PyExc_ValueError, "snapshot of %zd bytes, frame %d: %s", size, frame,
                         stepper_snapshot_error(code));
        else
            PyErr_Format(PyExc_ValueError, "snapshot of %zd bytes: %s", size, stepper_snapshot_error(code));
        return NULL;
    }
    return (PyObject *)self;
}

/* Getters refuse while another thread runs the stepper: they would read
 * state that is being written without the GIL. */
static int readable(StepperObject *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this Stepper is in use by another thread");
        return 0;
    }
    return 1;
}

#define COUNTER_GETTER(field)                                           \
    static PyObject *Stepper_get_##field(PyObject *op, void *closure)  \
    {                                                                   \
        (void)closure;                                                  \
        StepperObject *self = (StepperObject *)op;                      \
        if (!readable(self))                                            \
            return NULL;                                                \
        return PyLong_FromUnsignedLongLong(self->core.field);          \
    }
COUNTER_GETTER(steps)
COUNTER_GETTER(placements)
COUNTER_GETTER(retractions)
COUNTER_GETTER(solutions)

static const char *status_name(stepper_status status)
{
    switch (status) {
    case STEPPER_RUNNING: return "running";
    case STEPPER_SOLVED: return "solved";
    case STEPPER_EXHAUSTED: return "exhausted";
    case STEPPER_GAVE_UP: return "gave_up";
    }
    return "unknown";
}

static PyObject *Stepper_get_status(PyObject *op, void *closure)
{
    (void)closure;
    StepperObject *self = (StepperObject *)op;
    if (!readable(self))
        return NULL;
    return PyUnicode_FromString(status_name(self->core.status));
}

static PyObject *Stepper_get_cursor(PyObject *op, void *closure)
{
    (void)closure;
    StepperObject *self = (StepperObject *)op;
    if (!readable(self))
        return NULL;
    return PyLong_FromLong(stepper_cursor(&self->core));
}

static PyObject *Stepper_get_board(PyObject *op, void *closure)
{
    (void)closure;
    StepperObject *self = (StepperObject *)op;
    if (!readable(self))
        return NULL;
    return board_str(self->core.board);
}

static PyObject *Stepper_get_solution(PyObject *op, void *closure)
{
    (void)closure;
    StepperObject *self = (StepperObject *)op;
    if (!readable(self))
        return NULL;
    if (self->core.solutions == 0)
        Py_RETURN_NONE;
    return board_str(self->core.solution);
}

/* The search never places a value that conflicts, so the current board's
 * conflicts are the givens' conflicts. */
static PyObject *Stepper_get_conflicts(PyObject *op, void *closure)
{
    (void)closure;
    StepperObject *self = (StepperObject *)op;
    if (!readable(self))
        return NULL;
    uint8_t cells[81];
    int n = stepper_conflicts(self->core.board, cells);
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *cell = PyLong_FromLong(cells[i]);
        if (cell == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, cell);
    }
    return list;
}

static PyObject *Stepper_repr(PyObject *op)
{
    StepperObject *self = (StepperObject *)op;
    if (self->busy)
        return PyUnicode_FromString("<Stepper in use>");
    return PyUnicode_FromFormat(
        "<Stepper status=%s steps=%llu solutions=%llu cursor=%d>",
        status_name(self->core.status), (unsigned long long)self->core.steps,
        (unsigned long long)self->core.solutions, stepper_cursor(&self->core));
}

PyDoc_STRVAR(Stepper_run_doc,
"run(budget, /) -> bytes\n--\n\n"
"Take up to `budget` steps and return their events, 2 bytes per step:\n"
"the cell (0-80), then the value placed (1-9) or 0 for a retraction.\n"
"Fewer steps than `budget` only when the search ended; b'' once it is over.\n"
"Slicing never changes the search. The GIL is released for slices of\n"
"1024 steps or more.");

PyDoc_STRVAR(Stepper_skip_doc,
"skip(budget, /) -> int\n--\n\n"
"Take up to `budget` steps like run(), without recording events; return\n"
"the number taken. skip(a) then run(b) gives the tail of run(a + b).");

PyDoc_STRVAR(Stepper_export_doc,
"export() -> bytes\n--\n\n"
"The whole state of a running search of limit 1 as a snapshot (at most\n"
"224 bytes; the format is in stepper.h). Stepper.resume(snapshot) goes on\n"
"from it exactly. ValueError for any other search.");

PyDoc_STRVAR(Stepper_resume_doc,
"resume(snapshot, /, *, max_steps=None) -> Stepper\n--\n\n"
"The search a snapshot from export() holds, capped at max_steps (status\n"
"'gave_up' at or past it). The snapshot is checked completely: a state the\n"
"search could not be in between two steps raises ValueError saying what\n"
"is wrong, never a crash.");

static PyMethodDef Stepper_methods[] = {
    {"run", Stepper_run, METH_O, Stepper_run_doc},
    {"skip", Stepper_skip, METH_O, Stepper_skip_doc},
    {"export", Stepper_export, METH_NOARGS, Stepper_export_doc},
    {"resume", (PyCFunction)(void (*)(void))Stepper_resume, METH_CLASS | METH_VARARGS | METH_KEYWORDS,
     Stepper_resume_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Stepper_getset[] = {
    {"status", Stepper_get_status, NULL,
     "'running', 'solved', 'exhausted' or 'gave_up'.", NULL},
    {"steps", Stepper_get_steps, NULL,
     "Steps taken: placements + retractions.", NULL},
    {"placements", Stepper_get_placements, NULL, "Values put on the board.", NULL},
    {"retractions", Stepper_get_retractions, NULL,
     "Values taken back off the board (backtracks).", NULL},
    {"solutions", Stepper_get_solutions, NULL, "Solutions found so far.", NULL},
    {"cursor", Stepper_get_cursor, NULL,
     "The cell the next step changes, or -1 when the search is over.", NULL},
    {"board", Stepper_get_board, NULL,
     "The current board: 81 characters, '.' for a blank.", NULL},
    {"solution", Stepper_get_solution, NULL,
     "The first solution found (81 characters), or None.", NULL},
    {"conflicts", Stepper_get_conflicts, NULL,
     "Sorted cells whose given value repeats in one of its units; [] when "
     "the givens are consistent.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(Stepper_doc,
"Stepper(board, *, strategy='mrv', tie_break='rotate', seed=0,\n"
"        max_steps=None, limit=1)\n\n"
"An observable, resumable depth-first search of one Sudoku board. A step\n"
"is one placement or one retraction; see sudoku.engine for the contract.\n"
"A Stepper is used by one thread at a time: a call while another thread\n"
"runs it raises RuntimeError.");

static PyType_Slot Stepper_slots[] = {
    {Py_tp_new, Stepper_new},
    {Py_tp_dealloc, Stepper_dealloc},
    {Py_tp_repr, Stepper_repr},
    {Py_tp_methods, Stepper_methods},
    {Py_tp_getset, Stepper_getset},
    {Py_tp_doc, (void *)Stepper_doc},
    {0, NULL},
};

static PyType_Spec Stepper_spec = {
    .name = "sudoku._engine.Stepper",
    .basicsize = sizeof(StepperObject),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = Stepper_slots,
};

/* ---- Module functions ---- */

PyDoc_STRVAR(parse_board_doc,
"parse_board(board, /) -> bytes\n--\n\n"
"Validate a board and return its 81 cells as bytes (0 blank, 1-9 value).\n"
"Cells are '1'-'9', '.' or '0'; ASCII whitespace is ignored. ValueError\n"
"names the first bad character's cell (e.g. \"cell r3c7: 'x' is not 1-9,\n"
"'.' or '0'\"), else a wrong count (\"expected 81 cells, got 80\").\n"
"TypeError when board is not a str.");

static PyObject *engine_parse_board(PyObject *module, PyObject *board)
{
    (void)module;
    uint8_t cells[81];
    if (parse_cells(board, cells) < 0)
        return NULL;
    return PyBytes_FromStringAndSize((const char *)cells, 81);
}

PyDoc_STRVAR(solve_doc,
"solve(board) -> str | None\n--\n\n"
"The first solution of board (81 characters), or None when it has none\n"
"(conflicting givens included). The unwatched fast path: no events.");

static PyObject *engine_solve(PyObject *module, PyObject *board)
{
    (void)module;
    uint8_t cells[81], solution[81];
    int found;
    if (parse_cells(board, cells) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    found = fp_solve(cells, solution);
    Py_END_ALLOW_THREADS
    if (!found)
        Py_RETURN_NONE;
    return board_str(solution);
}

PyDoc_STRVAR(count_doc,
"count(board, limit=2, max_steps=None, stop=None) -> tuple[int, bool]\n--\n\n"
"Count board's solutions up to `limit` (>= 1) with the unwatched fast path.\n"
"Returns (found, complete): complete is False only when the cap stopped\n"
"the count before it reached `limit` or finished the search.\n"
"Here max_steps caps GUESSES (branching decisions of the fast path), not\n"
"stepper steps; None means no cap, and it must be >= 1 otherwise.\n"
"`stop`: a writable buffer (a bytearray) whose first byte another thread\n"
"may set to non-zero, which ends the count soon after, as the cap would.");

static PyObject *engine_count(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"board", "limit", "max_steps", "stop", NULL};
    PyObject *board, *limit_obj = NULL, *cap_obj = NULL, *stop_obj = Py_None;
    uint8_t cells[81];
    uint64_t limit = 2, cap;
    Py_buffer stop = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO:count", kwlist,
                                     &board, &limit_obj, &cap_obj, &stop_obj))
        return NULL;
    /* fp_count reads a cap of 0 as "none", so 0 cannot be passed through. */
    if (parse_cells(board, cells) < 0 ||
        (limit_obj && as_count(limit_obj, "limit", 1, &limit) < 0) ||
        as_cap(cap_obj, "max_steps", 1, &cap) < 0)
        return NULL;
    if (stop_obj != Py_None) {
        /* Held until the count ends: the bytearray cannot be resized meanwhile. */
        if (PyObject_GetBuffer(stop_obj, &stop, PyBUF_WRITABLE) < 0)
            return NULL;
        if (stop.len < 1) {
            PyBuffer_Release(&stop);
            PyErr_SetString(PyExc_ValueError, "stop: the buffer must hold at least one byte");
            return NULL;
        }
    }
    fp_count_result result;
    Py_BEGIN_ALLOW_THREADS
    result = fp_count_stoppable(cells, limit, cap == STEPPER_NO_CAP ? 0 : cap, NULL,
                                stop_obj != Py_None ? (const uint8_t *)stop.buf : NULL);
    Py_END_ALLOW_THREADS
    if (stop_obj != Py_None)
        PyBuffer_Release(&stop);
    return Py_BuildValue("(KN)", (unsigned long long)result.solutions,
                         PyBool_FromLong(result.complete));
}

/*
 * The characters of many boards given as one str or ASCII bytes of 81-cell
 * boards, concatenated (count_many's and grade_many's input), read in place:
 * their kind, data and length. -1 with TypeError for another type, or
 * ValueError for a length that is not whole boards.
 */
typedef struct {
    Py_ssize_t length;
    int kind;
    const void *data;
} board_text;

static int read_board_text(PyObject *boards, board_text *text)
{
    if (PyBytes_Check(boards)) {
        text->length = PyBytes_GET_SIZE(boards);
        text->kind = PyUnicode_1BYTE_KIND;
        text->data = PyBytes_AS_STRING(boards);
    } else if (PyUnicode_Check(boards)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(boards) < 0)
            return -1;
#endif
        text->length = PyUnicode_GET_LENGTH(boards);
        text->kind = PyUnicode_KIND(boards);
        text->data = PyUnicode_DATA(boards);
    } else {
        PyErr_Format(PyExc_TypeError, "boards must be a str or bytes, not %.100s",
                     Py_TYPE(boards)->tp_name);
        return -1;
    }
    if (text->length % 81 != 0) {
        PyErr_Format(PyExc_ValueError, "boards: %zd characters is not a "
                     "whole number of 81-cell boards", text->length);
        return -1;
    }
    return 0;
}

/*
 * read_board_text's boards as a new buffer of cell values (PyMem_Free it).
 * ValueError names the board (from 0) and cell of the first bad character.
 */
static uint8_t *read_packed(PyObject *boards, Py_ssize_t *count)
{
    board_text text;
    if (read_board_text(boards, &text) < 0)
        return NULL;
    Py_ssize_t length = text.length;
    int kind = text.kind;
    const void *data = text.data;
    uint8_t *cells = PyMem_Malloc(length ? (size_t)length : 1);
    if (cells == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        int value = cell_value(ch);
        if (value < 0) {
            bad_cell(i / 81, i % 81, ch);
            PyMem_Free(cells);
            return NULL;
        }
        cells[i] = (uint8_t)value;
    }
    *count = length / 81;
    return cells;
}

/* Whether any of 81 one-byte cells is not '1'-'9', '.' or '0'. Branch-free,
   so the compiler can use vector compares: generators send many boards. */
static int any_bad_byte(const unsigned char *cells)
{
    unsigned char wrong = 0;
    for (int i = 0; i < 81; i++) {
        unsigned char ch = cells[i];
        wrong |= (unsigned char)((unsigned char)(ch - '0') > 9) & (unsigned char)(ch != '.');
    }
    return wrong != 0;
}

PyDoc_STRVAR(count_many_doc,
"count_many(boards, limit=2, max_steps=None, solutions=False)\n"
"    -> tuple[list[int], bytes, str | None]\n--\n\n"
"count() for many boards in one call: `boards` is a str (or ASCII bytes)\n"
"of n boards of exactly 81 cells each ('1'-'9', '.' or '0'), concatenated,\n"
"no whitespace.\n"
"Returns (found, complete, first): n counts; n bytes, 1 where the count is\n"
"complete, 0 where the cap stopped it; and with `solutions` the first\n"
"solution of each board (81 '.' where there is none) as one str, else\n"
"None. `limit` and `max_steps` apply to each board, as in count().\n"
"ValueError names the board (from 0) and cell of the first bad character.\n"
"For generators: one call costs what count() does per board only once.");

static PyObject *engine_count_many(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"boards", "limit", "max_steps", "solutions", NULL};
    PyObject *boards, *limit_obj = NULL, *cap_obj = NULL;
    int want_solutions = 0;
    uint64_t limit = 2, cap;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOp:count_many", kwlist,
                                     &boards, &limit_obj, &cap_obj, &want_solutions))
        return NULL;
    if ((limit_obj && as_count(limit_obj, "limit", 1, &limit) < 0) ||
        as_cap(cap_obj, "max_steps", 1, &cap) < 0)
        return NULL;
    board_text input; /* bytes as they come from Redis, or a str: read in place */
    if (read_board_text(boards, &input) < 0)
        return NULL;
    Py_ssize_t length = input.length;
    int kind = input.kind;
    const void *data = input.data;
    Py_ssize_t n = length / 81;
    uint64_t *found = PyMem_Malloc(n ? (size_t)n * sizeof *found : 1);
    PyObject *complete = PyBytes_FromStringAndSize(NULL, n);
    PyObject *first = want_solutions ? PyUnicode_New(length, 127) : NULL;
    PyObject *counts = NULL, *result = NULL;
    if (found == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (complete == NULL || (want_solutions && first == NULL))
        goto done;
    /* Checked first, with the GIL, for the error; each board is read again
       into 81 bytes as it is counted, so no copy of them all is made. */
    for (Py_ssize_t i = 0; i < length; i++) {
        if (kind == PyUnicode_1BYTE_KIND && i % 81 == 0 &&
            !any_bad_byte((const unsigned char *)data + i)) {
            i += 80; /* a clean board */
            continue;
        }
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (cell_value(ch) < 0) {
            bad_cell(i / 81, i % 81, ch);
            goto done;
        }
    }
    char *done_flags = PyBytes_AS_STRING(complete);
    Py_UCS1 *text = want_solutions ? PyUnicode_1BYTE_DATA(first) : NULL;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t b = 0; b < n; b++) {
        uint8_t cells[81];
        for (int c = 0; c < 81; c++)
            cells[c] = (uint8_t)cell_value(PyUnicode_READ(kind, data, b * 81 + c));
        uint8_t *solution = text ? (uint8_t *)text + b * 81 : NULL;
        fp_count_result r = fp_count(cells, limit, cap == STEPPER_NO_CAP ? 0 : cap, solution);
        found[b] = r.solutions;
        done_flags[b] = (char)(r.complete != 0);
        if (solution != NULL)
            for (int c = 0; c < 81; c++)
                solution[c] = r.solutions ? (uint8_t)('0' + solution[c]) : '.';
    }
    Py_END_ALLOW_THREADS
    counts = PyList_New(n);
    if (counts == NULL)
        goto done;
    for (Py_ssize_t b = 0; b < n; b++) {
        PyObject *value = PyLong_FromUnsignedLongLong(found[b]);
        if (value == NULL)
            goto done;
        PyList_SET_ITEM(counts, b, value);
    }
    result = PyTuple_Pack(3, counts, complete, first ? first : Py_None);
done:
    PyMem_Free(found);
    Py_XDECREF(counts);
    Py_XDECREF(complete);
    Py_XDECREF(first);
    return result;
}

PyDoc_STRVAR(pack_boards_doc,
"pack_boards(boards, /) -> bytes | None\n--\n\n"
"The boards of a list as one bytes, 81 a board, for count_many, when every\n"
"one is a str of exactly 81 of '1'-'9', '.' and '0'; else None, and the\n"
"caller checks them one by one (parse_board) for the messages. One pass in\n"
"C: the service's check of a generator's 10,000 boards a request.");

static PyObject *engine_pack_boards(PyObject *module, PyObject *boards)
{
    (void)module;
    if (!PyList_Check(boards)) {
        PyErr_Format(PyExc_TypeError, "boards must be a list of str, not %.100s",
                     Py_TYPE(boards)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(boards);
    PyObject *packed = PyBytes_FromStringAndSize(NULL, n * 81);
    if (packed == NULL)
        return NULL;
    char *out = PyBytes_AS_STRING(packed);
    for (Py_ssize_t b = 0; b < n; b++) {
        PyObject *board = PyList_GET_ITEM(boards, b);
        if (!PyUnicode_Check(board))
            goto clean;
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(board) < 0) {
            Py_DECREF(packed);
            return NULL;
        }
#endif
        if (PyUnicode_GET_LENGTH(board) != 81 || PyUnicode_KIND(board) != PyUnicode_1BYTE_KIND)
            goto clean;
        const Py_UCS1 *cells = PyUnicode_1BYTE_DATA(board);
        for (int i = 0; i < 81; i++) {
            if (cell_value(cells[i]) < 0)
                goto clean;
            out[b * 81 + i] = (char)cells[i];
        }
    }
    return packed;
clean:
    Py_DECREF(packed);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(bad_boards_doc,
"bad_boards(packed, /) -> list[int]\n--\n\n"
"The positions of the boards of `packed` (bytes, 81 a board) that hold a\n"
"byte other than '1'-'9', '.' and '0'; [] when all are clean. ValueError\n"
"when the length is not a whole number of boards.");

static PyObject *engine_bad_boards(PyObject *module, PyObject *packed)
{
    (void)module;
    if (!PyBytes_Check(packed)) {
        PyErr_Format(PyExc_TypeError, "packed must be bytes, not %.100s",
                     Py_TYPE(packed)->tp_name);
        return NULL;
    }
    Py_ssize_t length = PyBytes_GET_SIZE(packed);
    if (length % 81 != 0) {
        PyErr_Format(PyExc_ValueError, "%zd bytes is not a whole number of "
                     "81-cell boards", length);
        return NULL;
    }
    const unsigned char *cells = (const unsigned char *)PyBytes_AS_STRING(packed);
    PyObject *bad = PyList_New(0);
    if (bad == NULL)
        return NULL;
    for (Py_ssize_t b = 0; b < length / 81; b++) {
        if (!any_bad_byte(cells + b * 81))
            continue;
        PyObject *position = PyLong_FromSsize_t(b);
        if (position == NULL || PyList_Append(bad, position) < 0) {
            Py_XDECREF(position);
            Py_DECREF(bad);
            return NULL;
        }
        Py_DECREF(position);
    }
    return bad;
}


/* ---- The human solver (logic.h) ---- */

/* Reads 81 pencil-mark masks (a sequence of ints 0..511, bit v-1 for v);
 * None leaves `*have` 0. */
static int parse_pencil(PyObject *obj, uint16_t pencil[81], int *have)
{
    *have = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(obj, "pencil_marks must be a sequence of 81 ints");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != 81) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "pencil_marks: expected 81 masks, got %zd", n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < 81; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        long value = PyLong_Check(item) ? PyLong_AsLong(item) : -1;
        if (value == -1 && PyErr_Occurred())
            PyErr_Clear();
        if (!PyLong_Check(item) || value < 0 || value > 0x1FF) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "pencil_marks: cell r%dc%d: not a mask of "
                         "values 1-9 (an int 0-511)", (int)(i / 9) + 1, (int)(i % 9) + 1);
            return -1;
        }
        pencil[i] = (uint16_t)value;
    }
    Py_DECREF(seq);
    *have = 1;
    return 0;
}

static int as_level(PyObject *obj, int *out)
{
    uint64_t level = LOGIC_LEVELS;
    if (obj && as_count(obj, "max_level", 1, &level) < 0)
        return -1;
    if (level > LOGIC_LEVELS) {
        PyErr_Format(PyExc_ValueError, "max_level must be 1-%d", LOGIC_LEVELS);
        return -1;
    }
    *out = (int)level;
    return 0;
}

/* A step as the tuple documented in _engine.pyi. */
static PyObject *step_tuple(const logic_step *s)
{
    PyObject *elims = PyList_New(0), *pattern = PyList_New(0), *units = NULL;
    PyObject *digits = NULL, *chain = NULL, *result = NULL;
    if (elims == NULL || pattern == NULL)
        goto done;
    for (int c = 0; c < 81; c++)
        for (int d = 1; d <= 9; d++) {
            if (s->eliminations[c] & (1u << (d - 1))) {
                PyObject *pair = Py_BuildValue("(ii)", c, d);
                if (pair == NULL || PyList_Append(elims, pair) < 0) {
                    Py_XDECREF(pair);
                    goto done;
                }
                Py_DECREF(pair);
            }
            for (int g = 0; g < LOGIC_GROUPS; g++) {
                if (!(s->pattern[g][c] & (1u << (d - 1))))
                    continue;
                PyObject *mark = Py_BuildValue("(iii)", g, c, d);
                if (mark == NULL || PyList_Append(pattern, mark) < 0) {
                    Py_XDECREF(mark);
                    goto done;
                }
                Py_DECREF(mark);
            }
        }
    units = PyTuple_New(s->n_units);
    chain = PyTuple_New(s->n_chain);
    digits = PyList_New(0);
    if (units == NULL || chain == NULL || digits == NULL)
        goto done;
    for (int i = 0; i < s->n_units; i++)
        PyTuple_SET_ITEM(units, i, PyLong_FromLong(s->units[i]));
    for (int i = 0; i < s->n_chain; i++) {
        const logic_node *n = &s->chain[i];
        PyObject *node = Py_BuildValue("(iiiii)", n->cell, n->digit, n->strong, n->on, n->branch);
        if (node == NULL)
            goto done;
        PyTuple_SET_ITEM(chain, i, node);
    }
    for (int d = 1; d <= 9; d++) {
        if (!(s->digits & (1u << (d - 1))))
            continue;
        PyObject *digit = PyLong_FromLong(d);
        if (digit == NULL || PyList_Append(digits, digit) < 0) {
            Py_XDECREF(digit);
            goto done;
        }
        Py_DECREF(digit);
    }
    result = Py_BuildValue("(iiiiNNONN)", (int)s->technique, s->variant, s->cell, s->digit,
                           PyList_AsTuple(elims), PyList_AsTuple(pattern), units,
                           PyList_AsTuple(digits), chain);
    units = chain = NULL; /* stolen by N, or freed below on failure */
    if (result == NULL)
        goto done;
done:
    Py_XDECREF(elims);
    Py_XDECREF(pattern);
    Py_XDECREF(units);
    Py_XDECREF(digits);
    Py_XDECREF(chain);
    return result;
}

/* The board, pencil marks and options shared by logic_step and logic_path. */
static int logic_args(PyObject *args, PyObject *kwargs, const char *fname, logic_board *b, int *unique,
                      int *level, int *until_placement)
{
    static char *kwlist[] = {"board", "pencil_marks", "unique", "max_level", "givens", "until_placement", NULL};
    PyObject *board, *pencil_obj = NULL, *level_obj = NULL, *givens_obj = Py_None;
    char format[40];
    snprintf(format, sizeof format, "O|O$pOOp:%s", fname);
    *unique = 0;
    *until_placement = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, kwlist, &board, &pencil_obj, unique, &level_obj,
                                     &givens_obj, until_placement))
        return -1;
    if (*until_placement && strcmp(fname, "logic_path") != 0) {
        PyErr_SetString(PyExc_TypeError, "until_placement is an argument of logic_path only");
        return -1;
    }
    uint8_t cells[81], givens[81];
    uint16_t pencil[81];
    int have;
    if (parse_cells(board, cells) < 0 || parse_pencil(pencil_obj, pencil, &have) < 0 ||
        as_level(level_obj, level) < 0)
        return -1;
    if (givens_obj != Py_None) {
        if (parse_cells(givens_obj, givens) < 0)
            return -1;
        for (int c = 0; c < 81; c++)
            if (givens[c] && givens[c] != cells[c]) {
                PyErr_Format(PyExc_ValueError, "givens: cell r%dc%d: the board holds %d there, not the given %d",
                             c / 9 + 1, c % 9 + 1, cells[c], givens[c]);
                return -1;
            }
    }
    logic_init(b, cells, have ? pencil : NULL);
    if (givens_obj != Py_None)
        logic_set_givens(b, givens);
    return 0;
}

PyDoc_STRVAR(logic_step_doc,
"logic_step(board, pencil_marks=None, *, unique=False, max_level=5, givens=None) -> tuple | None\n--\n\n"
"The easiest logical step on a board (logic.h): a placement or eliminations,\n"
"with its technique and pattern, as the tuple _engine.pyi documents; None\n"
"when the board is full, breaks a rule, or no technique up to `max_level`\n"
"applies. `pencil_marks`: 81 masks (bit v-1 for v), the candidates each blank\n"
"keeps. `unique`: the puzzle is known to have one solution (allows unique\n"
"rectangles and BUG+1). `givens`: the puzzle's givens, a board whose values\n"
"the board holds too (None: every filled cell is a given); the others were\n"
"placed, which avoidable rectangles need to know. ValueError names a bad\n"
"cell or mask.");

static PyObject *engine_logic_step(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    logic_board b;
    int unique, level, found, until_placement;
    if (logic_args(args, kwargs, "logic_step", &b, &unique, &level, &until_placement) < 0)
        return NULL;
    logic_step *s = PyMem_Malloc(sizeof *s);
    if (s == NULL)
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    found = logic_find(&b, unique, level, s);
    Py_END_ALLOW_THREADS
    PyObject *result = found ? step_tuple(s) : Py_NewRef(Py_None);
    PyMem_Free(s);
    return result;
}

PyDoc_STRVAR(logic_path_doc,
"logic_path(board, pencil_marks=None, *, unique=False, max_level=5,\n"
"           givens=None, until_placement=False) -> list[tuple]\n--\n\n"
"logic_step repeated, each step applied, until none is found: the whole\n"
"logical solution path (the board is solved when its placements fill every\n"
"blank); with `until_placement`, until the first placement (included).\n"
"Other arguments as logic_step.");

static PyObject *engine_logic_path(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    logic_board b;
    int unique, level, until_placement;
    if (logic_args(args, kwargs, "logic_path", &b, &unique, &level, &until_placement) < 0)
        return NULL;
    /* every step removes a candidate or places a value: at most 729 */
    logic_step *steps = PyMem_Malloc(729 * sizeof *steps);
    if (steps == NULL)
        return PyErr_NoMemory();
    int n = 0;
    Py_BEGIN_ALLOW_THREADS
    while (n < 729 && logic_find(&b, unique, level, &steps[n])) {
        logic_apply(&b, &steps[n]);
        if (steps[n++].cell >= 0 && until_placement)
            break;
    }
    Py_END_ALLOW_THREADS
    PyObject *path = PyList_New(n);
    for (int i = 0; path != NULL && i < n; i++) {
        PyObject *step = step_tuple(&steps[i]);
        if (step == NULL)
            Py_CLEAR(path);
        else
            PyList_SET_ITEM(path, i, step);
    }
    PyMem_Free(steps);
    return path;
}

/* Guesses the uniqueness check of a grade may take (a puzzle, not a
 * pathological board, needs far fewer). */
#define GRADE_MAX_GUESSES 1000000

typedef struct {
    int solutions; /* 0, 1, 2 (two or more), -1 unknown */
    logic_grade g;
} grade_result;

static void grade_cells(const uint8_t cells[81], grade_result *r)
{
    fp_count_result count = fp_count(cells, 2, GRADE_MAX_GUESSES, NULL);
    r->solutions = count.complete || count.solutions >= 2 ? (int)count.solutions : -1;
    memset(&r->g, 0, sizeof r->g);
    if (r->solutions == 0)
        return;
    logic_board b;
    if (logic_init(&b, cells, NULL) != LOGIC_OK)
        return;
    logic_solve(&b, r->solutions == 1, LOGIC_LEVELS, &r->g);
}

static PyObject *grade_tuple(const grade_result *r)
{
    PyObject *counts = PyTuple_New(LOGIC_TECHNIQUES);
    if (counts == NULL)
        return NULL;
    for (int t = 0; t < LOGIC_TECHNIQUES; t++)
        PyTuple_SET_ITEM(counts, t, PyLong_FromUnsignedLong(r->g.counts[t]));
    return Py_BuildValue("(iNiiIN)", r->solutions, PyBool_FromLong(r->g.solved), (int)r->g.hardest,
                         r->g.steps, (unsigned int)r->g.score, counts);
}

PyDoc_STRVAR(grade_doc,
"grade(board, /) -> tuple[int, bool, int, int, int, tuple[int, ...]]\n--\n\n"
"Counts the board's solutions (to 2), then solves it by logical steps:\n"
"(solutions: 0, 1, 2 for two or more, -1 when the count was cut short;\n"
"solved; the hardest technique; steps; score, the sum of the steps'\n"
"weights; the steps of each technique, indexed by technique number).\n"
"Uniqueness techniques are used only when solutions is 1.");

static PyObject *engine_grade(PyObject *module, PyObject *board)
{
    (void)module;
    uint8_t cells[81];
    grade_result r;
    if (parse_cells(board, cells) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    grade_cells(cells, &r);
    Py_END_ALLOW_THREADS
    return grade_tuple(&r);
}

PyDoc_STRVAR(grade_many_doc,
"grade_many(boards, /) -> list[tuple]\n--\n\n"
"grade() of each 81-cell board of `boards` (a str or ASCII bytes of boards\n"
"concatenated, as count_many takes), in one call. ValueError names the\n"
"board (from 0) and cell of the first bad character.");

static PyObject *engine_grade_many(PyObject *module, PyObject *boards)
{
    (void)module;
    Py_ssize_t n;
    uint8_t *cells = read_packed(boards, &n);
    if (cells == NULL)
        return NULL;
    grade_result *results = PyMem_Malloc(n ? (size_t)n * sizeof *results : 1);
    PyObject *list = NULL;
    if (results == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        grade_cells(cells + i * 81, &results[i]);
    Py_END_ALLOW_THREADS
    list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = grade_tuple(&results[i]);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, item);
    }
done:
    PyMem_Free(cells);
    PyMem_Free(results);
    return list;
}


PyDoc_STRVAR(generate_doc,
"generate(seed, level, symmetry='none', keep=None, max_attempts=1000)\n"
"    -> tuple[str, str, tuple, int] | None\n--\n\n"
"A new puzzle whose grade is `level` (1 easy .. 5 extreme), one solution\n"
"(counted), from a seed (0..2**64-1; the same arguments give the same\n"
"puzzle): (puzzle, solution, grade as grade() gives it, grids tried), or\n"
"None when `max_attempts` grids gave none of the level. `symmetry`:\n"
"'none', 'rotational' or 'mirror'. `keep`: a board whose values every\n"
"puzzle keeps; ValueError when they have no solution.");

static PyObject *engine_generate(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"seed", "level", "symmetry", "keep", "max_attempts", NULL};
    PyObject *seed_obj, *level_obj, *symmetry = NULL, *keep_obj = NULL, *attempts_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|UOO:generate", kwlist, &seed_obj, &level_obj,
                                     &symmetry, &keep_obj, &attempts_obj))
        return NULL;
    uint64_t seed, level, attempts = 1000;
    if (as_seed(seed_obj, &seed) < 0 || as_count(level_obj, "level", 1, &level) < 0 ||
        (attempts_obj && as_count(attempts_obj, "max_attempts", 1, &attempts) < 0))
        return NULL;
    if (level > LOGIC_LEVELS) {
        PyErr_Format(PyExc_ValueError, "level must be 1-%d", LOGIC_LEVELS);
        return NULL;
    }
    gen_symmetry sym = GEN_SYMMETRY_NONE;
    if (symmetry == NULL || PyUnicode_CompareWithASCIIString(symmetry, "none") == 0)
        sym = GEN_SYMMETRY_NONE;
    else if (PyUnicode_CompareWithASCIIString(symmetry, "rotational") == 0)
        sym = GEN_SYMMETRY_ROTATIONAL;
    else if (PyUnicode_CompareWithASCIIString(symmetry, "mirror") == 0)
        sym = GEN_SYMMETRY_MIRROR;
    else {
        unknown_option("symmetry", symmetry, "'none', 'rotational' or 'mirror'");
        return NULL;
    }
    uint8_t keep[81];
    if (keep_obj != NULL && keep_obj != Py_None && parse_cells(keep_obj, keep) < 0)
        return NULL;
    gen_result r;
    int rc;
    uint32_t cap = attempts > UINT32_MAX ? UINT32_MAX : (uint32_t)attempts;
    Py_BEGIN_ALLOW_THREADS
    rc = gen_generate(seed, (int)level, sym, keep_obj != NULL && keep_obj != Py_None ? keep : NULL, cap, &r);
    Py_END_ALLOW_THREADS
    if (rc == GEN_NO_SOLUTION) {
        PyErr_SetString(PyExc_ValueError, "keep: the values to keep have no solution");
        return NULL;
    }
    if (rc != GEN_OK)
        Py_RETURN_NONE;
    grade_result g = {1, r.grade};
    return Py_BuildValue("(NNNI)", board_str(r.puzzle), board_str(r.solution), grade_tuple(&g),
                         (unsigned int)r.attempts);
}

/* TECHNIQUES, LEVELS and WEIGHTS: tuples indexed by technique number. */
static int add_technique_tables(PyObject *module)
{
    PyObject *names = PyTuple_New(LOGIC_TECHNIQUES);
    PyObject *levels = PyTuple_New(LOGIC_TECHNIQUES);
    PyObject *weights = PyTuple_New(LOGIC_TECHNIQUES);
    if (names == NULL || levels == NULL || weights == NULL)
        goto fail;
    for (int t = 0; t < LOGIC_TECHNIQUES; t++) {
        PyObject *name = PyUnicode_FromString(logic_name((logic_technique)t));
        PyObject *level = PyLong_FromLong(logic_level((logic_technique)t));
        PyObject *weight = PyLong_FromUnsignedLong(logic_weight((logic_technique)t));
        if (name == NULL || level == NULL || weight == NULL) {
            Py_XDECREF(name);
            Py_XDECREF(level);
            Py_XDECREF(weight);
            goto fail;
        }
        PyTuple_SET_ITEM(names, t, name);
        PyTuple_SET_ITEM(levels, t, level);
        PyTuple_SET_ITEM(weights, t, weight);
    }
    if (PyModule_AddObjectRef(module, "TECHNIQUES", names) < 0 ||
        PyModule_AddObjectRef(module, "LEVELS", levels) < 0 ||
        PyModule_AddObjectRef(module, "WEIGHTS", weights) < 0)
        goto fail;
    Py_DECREF(names);
    Py_DECREF(levels);
    Py_DECREF(weights);
    return 0;
fail:
    Py_XDECREF(names);
    Py_XDECREF(levels);
    Py_XDECREF(weights);
    return -1;
}

static PyMethodDef engine_methods[] = {
    {"parse_board", engine_parse_board, METH_O, parse_board_doc},
    {"solve", engine_solve, METH_O, solve_doc},
    {"count", (PyCFunction)(void (*)(void))engine_count,
     METH_VARARGS | METH_KEYWORDS, count_doc},
    {"count_many", (PyCFunction)(void (*)(void))engine_count_many,
     METH_VARARGS | METH_KEYWORDS, count_many_doc},
    {"pack_boards", engine_pack_boards, METH_O, pack_boards_doc},
    {"bad_boards", engine_bad_boards, METH_O, bad_boards_doc},
    {"logic_step", (PyCFunction)(void (*)(void))engine_logic_step,
     METH_VARARGS | METH_KEYWORDS, logic_step_doc},
    {"logic_path", (PyCFunction)(void (*)(void))engine_logic_path,
     METH_VARARGS | METH_KEYWORDS, logic_path_doc},
    {"grade", engine_grade, METH_O, grade_doc},
    {"grade_many", engine_grade_many, METH_O, grade_many_doc},
    {"generate", (PyCFunction)(void (*)(void))engine_generate,
     METH_VARARGS | METH_KEYWORDS, generate_doc},
    {NULL, NULL, 0, NULL},
};

/* ---- Module ---- */

static int engine_exec(PyObject *module)
{
    engine_state *state = PyModule_GetState(module);
    state->stepper_type =
        (PyTypeObject *)PyType_FromModuleAndSpec(module, &Stepper_spec, NULL);
    if (state->stepper_type == NULL)
        return -1;
    if (add_technique_tables(module) < 0)
        return -1;
    return PyModule_AddType(module, state->stepper_type);
}

static int engine_traverse(PyObject *module, visitproc visit, void *arg)
{
    engine_state *state = PyModule_GetState(module);
    Py_VISIT(state->stepper_type);
    return 0;
}

static int engine_clear(PyObject *module)
{
    engine_state *state = PyModule_GetState(module);
    Py_CLEAR(state->stepper_type);
    return 0;
}

static void engine_free(void *module)
{
    engine_clear((PyObject *)module);
}

static PyModuleDef_Slot engine_slots[] = {
    {Py_mod_exec, engine_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

PyDoc_STRVAR(engine_doc,
"The Sudoku engine in C: the observable Stepper and the unwatched fast\n"
"path (solve, count). Import it through sudoku.engine.");

static struct PyModuleDef engine_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sudoku._engine",
    .m_doc = engine_doc,
    .m_size = sizeof(engine_state),
    .m_methods = engine_methods,
    .m_slots = engine_slots,
    .m_traverse = engine_traverse,
    .m_clear = engine_clear,
    .m_free = engine_free,
};

PyMODINIT_FUNC PyInit__engine(void)
{
    return PyModuleDef_Init(&engine_module);
}

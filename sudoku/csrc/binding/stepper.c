/*
 * binding/stepper.c: the Stepper type: a watched search (stepper.h).
 * Included by enginemodule.c (one translation unit, as logic.c is).
 */

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

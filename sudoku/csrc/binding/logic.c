/*
 * binding/logic.c: the human solver's functions (logic.h): logic_step, logic_path,
 * grade, grade_many, and the tables of techniques, levels and weights.
 * Included by enginemodule.c (one translation unit, as logic.c is).
 */

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

/* The grade of `cells`: a count to 2 within `max_guesses`, then a solve
 * with techniques up to `max_level` (the ladder's order keeps every
 * technique of a level after all those of the levels below it, but for
 * expert rungs before the hard colourings: a bound below expert may take
 * other steps than the full solve). */
static void grade_cells(const uint8_t cells[81], int max_level, uint64_t max_guesses, grade_result *r)
{
    fp_count_result count = fp_count(cells, 2, max_guesses, NULL);
    r->solutions = count.complete || count.solutions >= 2 ? (int)count.solutions : -1;
    memset(&r->g, 0, sizeof r->g);
    if (r->solutions == 0)
        return;
    logic_board b;
    if (logic_init(&b, cells, NULL) != LOGIC_OK)
        return;
    logic_solve(&b, r->solutions == 1, max_level, &r->g);
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
"grade(board, /, *, max_level=5, max_guesses=1000000) -> tuple[int, bool, int, int, int, tuple[int, ...]]\n--\n\n"
"Counts the board's solutions (to 2, within max_guesses), then solves it\n"
"by logical steps with techniques up to max_level: (solutions: 0, 1, 2 for\n"
"two or more, -1 when the count was cut short; solved; the hardest\n"
"technique; steps; score, the sum of the steps' weights; the steps of each\n"
"technique, indexed by technique number). Uniqueness techniques are used\n"
"only when solutions is 1. From max_level 4 (expert) up, a solve that\n"
"finishes took the steps of the unbounded one.");

static PyObject *engine_grade(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"", "max_level", "max_guesses", NULL};
    PyObject *board, *level_obj = NULL, *guesses_obj = NULL;
    int max_level;
    uint64_t max_guesses = GRADE_MAX_GUESSES;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:grade", kwlist, &board, &level_obj, &guesses_obj) ||
        as_level(level_obj, &max_level) < 0 ||
        (guesses_obj && as_count(guesses_obj, "max_guesses", 1, &max_guesses) < 0)) /* fp_count reads 0 as no cap */
        return NULL;
    uint8_t cells[81];
    grade_result r;
    if (parse_cells(board, cells) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    grade_cells(cells, max_level, max_guesses, &r);
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
        grade_cells(cells + i * 81, LOGIC_LEVELS, GRADE_MAX_GUESSES, &results[i]);
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

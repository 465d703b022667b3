/*
 * binding/fastpath.c: the module's functions on the fast path (fastpath.h): parse_board,
 * solve, count, count_many, pack_boards, bad_boards.
 * Included by enginemodule.c (one translation unit, as logic.c is).
 */

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

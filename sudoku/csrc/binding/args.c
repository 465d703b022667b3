/*
 * binding/args.c: reading Python arguments into the engine's (boards, counts, caps,
 * seeds, the strategy and tie-break names) and boards back into str.
 * Included by enginemodule.c (one translation unit, as logic.c is).
 */

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

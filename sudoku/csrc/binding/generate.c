/*
 * binding/generate.c: generate (generate.h): a puzzle of a level from a seed.
 * Included by enginemodule.c (one translation unit, as logic.c is).
 */

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

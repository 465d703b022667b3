/*
 * enginemodule.c: the CPython binding of the engine, `sudoku._engine`.
 *
 * Thin by design: the searches live in stepper.c, fastpath.c, logic.c and
 * generate.c (pure C); the binding converts arguments, validates them (it is
 * the one place that does: parse_board's messages are the ones users see),
 * releases the GIL around long C calls and guards a Stepper against use by
 * two threads. A file of binding/ per object it binds (the Stepper type, the
 * fast path's functions, the human solver's, generate), and the arguments
 * they share, included here as one translation unit; this file holds the
 * module: its state, its method table and its initialisation.
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

#include "binding/args.c"
#include "binding/stepper.c"
#include "binding/fastpath.c"
#include "binding/logic.c"
#include "binding/generate.c"

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
    {"grade", (PyCFunction)(void (*)(void))engine_grade, METH_VARARGS | METH_KEYWORDS, grade_doc},
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

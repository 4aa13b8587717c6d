/* The storage of connect_worker.api.Struct in C: two slots (schema, values) and the hot-path constructor
 * `of(schema, values)`, which a change event calls four times (key, row, source block, envelope).
 *
 * connect_worker/api/struct.py defines Struct on top of this base (methods, immutability) and keeps a
 * pure-Python base with the same two slots and the same `of` for installs without a C compiler;
 * tests/unit/api/test_struct_accel.py holds both to the same behaviour.
 *
 * `of` checks what the Python one checks: as many values as the schema has fields, else the DataError given
 * to `init()` with the Python message. A list (or any sequence) of values is stored as a tuple.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *schema;
    PyObject *values;
} StructBase;

static PyObject *fields_name;       /* "fields", interned */
static PyObject *data_error = NULL; /* connect_worker.api.errors.DataError, set by init() */

static int base_traverse(StructBase *s, visitproc visit, void *arg) {
    Py_VISIT(s->schema);
    Py_VISIT(s->values);
    return 0;
}

static int base_clear(StructBase *s) {
    Py_CLEAR(s->schema);
    Py_CLEAR(s->values);
    return 0;
}

static void base_dealloc(StructBase *s) {
    PyObject_GC_UnTrack(s);
    base_clear(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *mismatch(PyObject *schema, Py_ssize_t expected, Py_ssize_t got) {
    PyObject *cls = data_error != NULL ? data_error : PyExc_ValueError;
    PyErr_Format(cls, "Expected %zd values for %R, got %zd", expected, schema, got);
    return NULL;
}

/* Struct.of(schema, values): a new struct of class `cls` holding `values` (as a tuple) in field order. */
static PyObject *base_of(PyObject *cls, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "of() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *schema = args[0];
    PyObject *values = PyTuple_CheckExact(args[1]) ? Py_NewRef(args[1]) : PySequence_Tuple(args[1]);
    if (values == NULL) return NULL;
    PyObject *fields = PyObject_GetAttr(schema, fields_name);
    if (fields == NULL) goto fail;
    Py_ssize_t expected = PyObject_Length(fields);
    Py_DECREF(fields);
    if (expected < 0) goto fail;
    if (expected != PyTuple_GET_SIZE(values)) {
        mismatch(schema, expected, PyTuple_GET_SIZE(values));
        goto fail;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    StructBase *s = (StructBase *)type->tp_alloc(type, 0);
    if (s == NULL) goto fail;
    s->schema = Py_NewRef(schema);
    s->values = values;
    return (PyObject *)s;
fail:
    Py_DECREF(values);
    return NULL;
}

static PyMethodDef base_methods[] = {
    {"of", (PyCFunction)(void (*)(void))base_of, METH_FASTCALL | METH_CLASS,
     "of(schema, values): a struct holding `values` (in the schema's field order)."},
    {NULL, NULL, 0, NULL},
};

/* Writable, so the Python class can set them in __init__ with object.__setattr__ (its own __setattr__
 * refuses every assignment: structs are immutable). */
static PyMemberDef base_members[] = {
    {"schema", T_OBJECT_EX, offsetof(StructBase, schema), 0, "the struct schema"},
    {"values", T_OBJECT_EX, offsetof(StructBase, values), 0, "the values, in field order (a tuple)"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject StructBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "connect_worker.api._struct.StructBase",
    .tp_basicsize = sizeof(StructBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The two slots of a Struct and its fast constructor.",
    .tp_traverse = (traverseproc)base_traverse,
    .tp_clear = (inquiry)base_clear,
    .tp_dealloc = (destructor)base_dealloc,
    .tp_methods = base_methods,
    .tp_members = base_members,
    .tp_new = PyType_GenericNew,
};

static PyObject *module_init(PyObject *module, PyObject *cls) {
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)PyExc_Exception)) {
        PyErr_SetString(PyExc_TypeError, "init() needs an exception class");
        return NULL;
    }
    Py_XSETREF(data_error, Py_NewRef(cls));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"init", module_init, METH_O, "init(DataError): the error class `of` raises on a field-count mismatch."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_struct", "Struct's storage and constructor in C.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__struct(void) {
    fields_name = PyUnicode_InternFromString("fields");
    if (fields_name == NULL) return NULL;
    if (PyType_Ready(&StructBaseType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "StructBase", (PyObject *)&StructBaseType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

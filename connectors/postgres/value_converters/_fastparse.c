/*
 * connectors.postgres.value_converters._fastparse: the common forms of two PostgreSQL text values, parsed in
 * C, everything else handed to the Python parser (which stays the reference and the only place with rules).
 *
 * FastParser(kind, n, fallback, decimal=None) is a callable taking one str:
 *   - ZONED (timestamptz -> io.debezium.time.ZonedTimestamp, n = the column's fraction digits, 1..6): what a
 *     UTC session prints, `YYYY-MM-DD HH:MM:SS[.f…]+00` with a 4-digit year, becomes
 *     `YYYY-MM-DDTHH:MM:SS.<n digits>Z` (fraction padded with zeros, or cut to n digits);
 *   - DECIMAL (numeric(p, s) -> Decimal, n = s, 1..1000): `[-]digits.<exactly s digits>` becomes decimal(text);
 * any other text (another offset, BC, infinity, NaN, an exponent, another scale) is fallback(text). The fast
 * forms are exactly those for which the Python parsers take their own fast paths, so the result is the same
 * object the fallback would give (tests/unit/postgres/test_fastparse_accel.py compares them on random input).
 * Pure: no I/O, no state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

enum { ZONED = 1, DECIMAL = 2 };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int kind;
    Py_ssize_t n;
    PyObject *fallback;
    PyObject *decimal;
} FastParser;

static inline int is_digit(Py_UCS1 c) { return c >= '0' && c <= '9'; }

/* `YYYY-MM-DD HH:MM:SS[.ffffff]+00` -> `YYYY-MM-DDTHH:MM:SS.<n>Z`; NULL (no error set) when not this form. */
static PyObject *zoned(const Py_UCS1 *s, Py_ssize_t len, Py_ssize_t n) {
    if (len < 22 || s[4] != '-' || s[10] != ' ' || s[len - 3] != '+' || s[len - 2] != '0' || s[len - 1] != '0')
        return NULL;
    Py_ssize_t frac_len = len - 3 - 19; /* the part between the seconds and the offset */
    const Py_UCS1 *frac = s + 19;
    if (frac_len > 0 && frac[0] != '.') return NULL;
    Py_ssize_t digits = frac_len > 0 ? frac_len - 1 : 0;
    PyObject *out = PyUnicode_New(19 + 1 + n + 1, 127);
    if (out == NULL) return NULL;
    Py_UCS1 *o = PyUnicode_1BYTE_DATA(out);
    memcpy(o, s, 10);
    o[10] = 'T';
    memcpy(o + 11, s + 11, 8);
    o[19] = '.';
    for (Py_ssize_t i = 0; i < n; i++) o[20 + i] = i < digits ? frac[1 + i] : '0';
    o[20 + n] = 'Z';
    return out;
}

/* `[-]d…d.<exactly n digits>`: the text of a numeric(p, n) value as PostgreSQL prints it. */
static int plain_decimal(const Py_UCS1 *s, Py_ssize_t len, Py_ssize_t n) {
    Py_ssize_t i = s[0] == '-' ? 1 : 0;
    Py_ssize_t point = len - n - 1;
    if (point <= i || s[point] != '.') return 0;
    for (Py_ssize_t k = i; k < len; k++)
        if (k != point && !is_digit(s[k])) return 0;
    return 1;
}

static PyObject *parser_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    FastParser *p = (FastParser *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "a FastParser takes one str");
        return NULL;
    }
    PyObject *text = args[0];
    if (PyUnicode_CheckExact(text) && PyUnicode_IS_COMPACT_ASCII(text)) {
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(text);
        Py_ssize_t len = PyUnicode_GET_LENGTH(text);
        if (p->kind == ZONED) {
            PyObject *r = zoned(s, len, p->n);
            if (r != NULL || PyErr_Occurred()) return r;
        } else if (plain_decimal(s, len, p->n)) {
            return PyObject_CallOneArg(p->decimal, text);
        }
    }
    return PyObject_CallOneArg(p->fallback, text);
}

static PyObject *parser_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    int kind;
    Py_ssize_t n;
    PyObject *fallback, *decimal = Py_None;
    static char *kwlist[] = {"kind", "n", "fallback", "decimal", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "inO|O:FastParser", kwlist, &kind, &n, &fallback, &decimal))
        return NULL;
    if (kind != ZONED && kind != DECIMAL) return PyErr_Format(PyExc_ValueError, "unknown kind %d", kind);
    if (kind == ZONED && (n < 1 || n > 6)) return PyErr_Format(PyExc_ValueError, "fraction digits %zd not in 1..6", n);
    if (kind == DECIMAL && (n < 1 || n > 1000)) return PyErr_Format(PyExc_ValueError, "scale %zd not in 1..1000", n);
    if (!PyCallable_Check(fallback) || (kind == DECIMAL && !PyCallable_Check(decimal))) {
        PyErr_SetString(PyExc_TypeError, "fallback (and decimal for DECIMAL) must be callable");
        return NULL;
    }
    FastParser *p = (FastParser *)type->tp_alloc(type, 0);
    if (p == NULL) return NULL;
    p->vectorcall = parser_vectorcall;
    p->kind = kind;
    p->n = n;
    p->fallback = Py_NewRef(fallback);
    p->decimal = kind == DECIMAL ? Py_NewRef(decimal) : NULL;
    return (PyObject *)p;
}

static int parser_traverse(FastParser *p, visitproc visit, void *arg) {
    Py_VISIT(p->fallback);
    Py_VISIT(p->decimal);
    return 0;
}

static int parser_clear(FastParser *p) {
    Py_CLEAR(p->fallback);
    Py_CLEAR(p->decimal);
    return 0;
}

static void parser_dealloc(FastParser *p) {
    PyObject_GC_UnTrack(p);
    parser_clear(p);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyTypeObject FastParserType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "connectors.postgres.value_converters._fastparse.FastParser",
    .tp_basicsize = sizeof(FastParser),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "FastParser(kind, n, fallback, decimal=None): a text parser with a C path for the common form.",
    .tp_vectorcall_offset = offsetof(FastParser, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = parser_new,
    .tp_traverse = (traverseproc)parser_traverse,
    .tp_clear = (inquiry)parser_clear,
    .tp_dealloc = (destructor)parser_dealloc,
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_fastparse", "C paths for common PostgreSQL text values.", -1, NULL,
};

PyMODINIT_FUNC PyInit__fastparse(void) {
    if (PyType_Ready(&FastParserType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "FastParser", (PyObject *)&FastParserType) < 0 ||
        PyModule_AddIntConstant(m, "ZONED", ZONED) < 0 || PyModule_AddIntConstant(m, "DECIMAL", DECIMAL) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

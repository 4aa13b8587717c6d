/*
 * connectors.postgres.protocol._tupledata: pgoutput's TupleData parser in C (every row change has one).
 *
 * tuple_data(unchanged, error, buf, pos, size) -> (values, next_pos) reads the TupleData at `pos` of the
 * bytes `buf` (PostgreSQL's "Logical Replication Message Formats": Int16 column count, then per column a
 * kind byte: 'n' NULL, 'u' unchanged TOAST, 't' Int32 length + text, 'b' Int32 length + binary). Values are
 * str (UTF-8, strict), bytes, None, or `unchanged` for 'u'. Exactly the pure-Python `_tuple_data` of
 * pgoutput.py, which stays the reference, with its errors:
 *   - `error` (DataError) for a negative column count, a value running past `size`, an unknown kind;
 *   - IndexError when the buffer ends inside the column count, a kind byte or a length (the decoder reports
 *     these as a truncated message);
 *   - UnicodeDecodeError for text that is not UTF-8.
 * Pure: no I/O, no state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static inline unsigned long be32(const unsigned char *p) {
    return ((unsigned long)p[0] << 24) | ((unsigned long)p[1] << 16) | ((unsigned long)p[2] << 8) | p[3];
}

static PyObject *truncated(void) {
    PyErr_SetString(PyExc_IndexError, "TupleData runs past the end of the buffer");
    return NULL;
}

static PyObject *tuple_data(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "tuple_data(unchanged, error, buf, pos, size)");
        return NULL;
    }
    PyObject *unchanged = args[0], *error = args[1], *buf = args[2];
    if (!PyBytes_Check(buf)) {
        PyErr_SetString(PyExc_TypeError, "tuple_data() needs bytes");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[3]);
    if (pos == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t size = PyLong_AsSsize_t(args[4]);
    if (size == -1 && PyErr_Occurred()) return NULL;
    const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(buf);
    Py_ssize_t len = PyBytes_GET_SIZE(buf);
    if (size > len) size = len; /* never read past the buffer (the decoder passes size == len) */
    if (pos < 0 || pos + 2 > len) return truncated();
    int ncols = (short)((d[pos] << 8) | d[pos + 1]);
    if (ncols < 0) return PyErr_Format(error, "negative column count %d in TupleData", ncols);
    pos += 2;
    PyObject *values = PyTuple_New(ncols);
    if (values == NULL) return NULL;
    for (int i = 0; i < ncols; i++) {
        if (pos >= len) {
            Py_DECREF(values);
            return truncated();
        }
        unsigned char kind = d[pos];
        PyObject *v;
        if (kind == 't' || kind == 'b') {
            if (pos + 5 > len) {
                Py_DECREF(values);
                return truncated();
            }
            unsigned long length = be32(d + pos + 1);
            pos += 5;
            if ((unsigned long long)pos + length > (unsigned long long)size) {
                Py_DECREF(values);
                return PyErr_Format(error, "%s value of %lu bytes runs past the end of the message",
                                    kind == 't' ? "text" : "binary", length);
            }
            const char *p = (const char *)d + pos;
            v = kind == 't' ? PyUnicode_DecodeUTF8(p, (Py_ssize_t)length, "strict")
                            : PyBytes_FromStringAndSize(p, (Py_ssize_t)length);
            if (v == NULL) {
                Py_DECREF(values);
                return NULL;
            }
            pos += (Py_ssize_t)length;
        } else if (kind == 'n') {
            v = Py_NewRef(Py_None);
            pos += 1;
        } else if (kind == 'u') {
            v = Py_NewRef(unchanged);
            pos += 1;
        } else {
            Py_DECREF(values);
            return PyErr_Format(error, "unknown TupleData kind 0x%02x", kind);
        }
        PyTuple_SET_ITEM(values, i, v);
    }
    PyObject *next = PyLong_FromSsize_t(pos);
    if (next == NULL) {
        Py_DECREF(values);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, values, next);
    Py_DECREF(values);
    Py_DECREF(next);
    return r;
}

static PyMethodDef module_methods[] = {
    {"tuple_data", (PyCFunction)(void (*)(void))tuple_data, METH_FASTCALL,
     "tuple_data(unchanged, error, buf, pos, size) -> (values, next_pos): one pgoutput TupleData."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "connectors.postgres.protocol._tupledata", "pgoutput's TupleData parser in C.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__tupledata(void) { return PyModule_Create(&module_def); }

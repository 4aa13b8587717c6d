/*
 * converters._avrostruct: AvroConverter's encoder in C (the hot path of every record written as Avro).
 *
 * encode(plan, value, header) returns header + the Avro binary encoding of value by the plan that
 * converters/avro_encoder.py compiled from a Connect schema: nested tuples (kind, ...), the kinds numbered as
 * there. Ints are zig-zag varints, floats IEEE little-endian, strings length-prefixed UTF-8, unions a varint
 * branch index, arrays and maps one block then 0. CALL nodes run their Python conversion (Decimal bytes,
 * Date/Time/Timestamp ints) and encode the result; DEFAULT nodes write their value for a null.
 *
 * A value the plan does not expect (a wrong type, an int out of range, a null for a required field, a struct of
 * another schema) raises TypeError: the converter then runs the Python encoder, the reference, which writes it
 * or raises the DataError naming the field. Errors raised by a CALL propagate. No I/O, no global state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

enum {
    K_INT = 0, K_LONG = 1, K_FLOAT = 2, K_DOUBLE = 3, K_BOOL = 4, K_STRING = 5, K_BYTES = 6, K_FIXED = 7,
    K_STRUCT = 8, K_OPTIONAL = 9, K_DEFAULT = 10, K_CALL = 11, K_ARRAY = 12, K_MAP = 13, K_MAP_ARRAY = 14,
    K_ENUM = 15
};

typedef struct {
    char *p;
    Py_ssize_t len, cap;
    char stack[4096];
} Out;

static int out_grow(Out *o, Py_ssize_t extra) {
    Py_ssize_t cap = o->cap * 2;
    while (cap < o->len + extra) cap *= 2;
    char *n;
    if (o->p == o->stack) {
        n = PyMem_Malloc((size_t)cap);
        if (n != NULL) memcpy(n, o->p, (size_t)o->len);
    } else {
        n = PyMem_Realloc(o->p, (size_t)cap);
    }
    if (n == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->p = n;
    o->cap = cap;
    return 0;
}

static inline int out_write(Out *o, const char *s, Py_ssize_t n) {
    if (o->len + n > o->cap && out_grow(o, n) < 0) return -1;
    memcpy(o->p + o->len, s, (size_t)n);
    o->len += n;
    return 0;
}

static inline int out_varint(Out *o, long long v) {
    unsigned long long z = ((unsigned long long)v << 1) ^ (unsigned long long)(v >> 63);
    char buf[10];
    int n = 0;
    while (z > 0x7F) {
        buf[n++] = (char)((z & 0x7F) | 0x80);
        z >>= 7;
    }
    buf[n++] = (char)z;
    return out_write(o, buf, n);
}

static int refuse(const char *what) {
    PyErr_SetString(PyExc_TypeError, what);
    return -1;
}

/* the Struct class's slot offsets, looked up once per class */
static PyObject *struct_cls_seen = NULL;
static Py_ssize_t schema_off = -1, values_off = -1;

static Py_ssize_t slot_offset(PyObject *cls, const char *name) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL) return -1;
    Py_ssize_t off = -1;
    if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == T_OBJECT_EX || m->type == T_OBJECT) off = m->offset;
    }
    Py_DECREF(d);
    if (off < 0) PyErr_Format(PyExc_TypeError, "%s is not a __slots__ field of the struct class", name);
    return off;
}

static int learn_struct_class(PyObject *cls) {
    if (cls == struct_cls_seen) return 0;
    Py_ssize_t s = slot_offset(cls, "schema");
    if (s < 0) return -1;
    Py_ssize_t v = slot_offset(cls, "values");
    if (v < 0) return -1;
    Py_XDECREF(struct_cls_seen);
    struct_cls_seen = Py_NewRef(cls);
    schema_off = s;
    values_off = v;
    return 0;
}

static int write_node(PyObject *node, PyObject *x, Out *o, int depth);

static int write_struct(PyObject *node, PyObject *x, Out *o, int depth) {
    /* (STRUCT, schema, struct class, field nodes) */
    if (PyTuple_GET_SIZE(node) != 4) return refuse("bad STRUCT node");
    PyObject *schema = PyTuple_GET_ITEM(node, 1), *cls = PyTuple_GET_ITEM(node, 2), *fields = PyTuple_GET_ITEM(node, 3);
    if (!PyType_Check(cls) || !PyTuple_Check(fields)) return refuse("bad STRUCT node");
    if (!PyObject_TypeCheck(x, (PyTypeObject *)cls)) return refuse("not a Struct");
    if (learn_struct_class(cls) < 0) return -1;
    PyObject *s_schema = *(PyObject **)((char *)x + schema_off);
    PyObject *values = *(PyObject **)((char *)x + values_off);
    if (s_schema == NULL || values == NULL || !PyTuple_CheckExact(values)) return refuse("incomplete Struct");
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    if (PyTuple_GET_SIZE(values) != n) return refuse("struct values");
    if (s_schema != schema) return refuse("another struct schema"); /* the reference compares by equality */
    Py_INCREF(values);
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = write_node(PyTuple_GET_ITEM(fields, i), PyTuple_GET_ITEM(values, i), o, depth + 1);
    Py_DECREF(values);
    return rc;
}

static int write_str(PyObject *x, Out *o) {
    if (!PyUnicode_Check(x)) return refuse("not a str");
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(x, &n);
    if (s == NULL) {
        PyErr_Clear();
        return refuse("a str with surrogates");
    }
    if (out_varint(o, n) < 0) return -1;
    return out_write(o, s, n);
}

static int write_node(PyObject *node, PyObject *x, Out *o, int depth) {
    if (depth > 200) return refuse("nesting too deep");
    if (!PyTuple_Check(node) || PyTuple_GET_SIZE(node) < 1) return refuse("bad plan node");
    long kind = PyLong_AsLong(PyTuple_GET_ITEM(node, 0));
    if (kind == -1 && PyErr_Occurred()) return -1;
    if (kind == K_DEFAULT) {
        if (x == Py_None) x = PyTuple_GET_ITEM(node, 1);
        return write_node(PyTuple_GET_ITEM(node, 2), x, o, depth + 1);
    }
    if (kind == K_OPTIONAL) {
        long null_index = PyLong_AsLong(PyTuple_GET_ITEM(node, 1));
        if (x == Py_None) return out_varint(o, null_index);
        if (out_varint(o, 1 - null_index) < 0) return -1;
        return write_node(PyTuple_GET_ITEM(node, 2), x, o, depth + 1);
    }
    if (x == Py_None) return refuse("null for a required field");
    switch (kind) {
    case K_INT:
    case K_LONG: {
        if (!PyLong_Check(x) || PyBool_Check(x)) return refuse("not an int");
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow) return refuse("int out of range");
        if (v == -1 && PyErr_Occurred()) return -1;
        if (kind == K_INT && (v < INT32_MIN || v > INT32_MAX)) return refuse("int out of range");
        return out_varint(o, v);
    }
    case K_FLOAT: {
        if (!PyFloat_Check(x)) return refuse("not a float");
        double d = PyFloat_AS_DOUBLE(x);
        float f = (float)d;
        char b[4];
        memcpy(b, &f, 4); /* little-endian hosts: the Avro byte order */
        return out_write(o, b, 4);
    }
    case K_DOUBLE: {
        if (!PyFloat_Check(x)) return refuse("not a float");
        double d = PyFloat_AS_DOUBLE(x);
        char b[8];
        memcpy(b, &d, 8);
        return out_write(o, b, 8);
    }
    case K_BOOL:
        if (x == Py_True) return out_write(o, "\x01", 1);
        if (x == Py_False) return out_write(o, "\x00", 1);
        return refuse("not a bool");
    case K_STRING:
        return write_str(x, o);
    case K_BYTES:
    case K_FIXED: {
        if (!PyBytes_Check(x)) return refuse("not bytes");
        Py_ssize_t n = PyBytes_GET_SIZE(x);
        if (kind == K_FIXED) {
            if (n != PyLong_AsSsize_t(PyTuple_GET_ITEM(node, 1))) return refuse("fixed size");
        } else if (out_varint(o, n) < 0) {
            return -1;
        }
        return out_write(o, PyBytes_AS_STRING(x), n);
    }
    case K_ENUM: {
        PyObject *index = PyDict_GetItemWithError(PyTuple_GET_ITEM(node, 1), x);
        if (index == NULL) return PyErr_Occurred() ? -1 : refuse("not an enum symbol");
        return out_varint(o, PyLong_AsLongLong(index));
    }
    case K_CALL: {
        PyObject *r = PyObject_CallOneArg(PyTuple_GET_ITEM(node, 1), x);
        if (r == NULL) return -1;
        int rc = write_node(PyTuple_GET_ITEM(node, 2), r, o, depth + 1);
        Py_DECREF(r);
        return rc;
    }
    case K_STRUCT:
        return write_struct(node, x, o, depth);
    case K_ARRAY: {
        if (!PyList_CheckExact(x) && !PyTuple_CheckExact(x)) return refuse("not a list");
        PyObject *seq = Py_NewRef(x);
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        int rc = 0;
        if (n > 0) {
            rc = out_varint(o, n);
            PyObject *item = PyTuple_GET_ITEM(node, 1);
            for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
                if (PySequence_Fast_GET_SIZE(seq) != n) {
                    rc = refuse("list changed");
                    break;
                }
                rc = write_node(item, PySequence_Fast_GET_ITEM(seq, i), o, depth + 1);
            }
        }
        Py_DECREF(seq);
        return rc < 0 ? -1 : out_write(o, "\x00", 1);
    }
    case K_MAP:
    case K_MAP_ARRAY: {
        if (!PyDict_CheckExact(x)) return refuse("not a dict");
        Py_ssize_t n = PyDict_GET_SIZE(x);
        if (n > 0) {
            if (out_varint(o, n) < 0) return -1;
            PyObject *key_node = kind == K_MAP_ARRAY ? PyTuple_GET_ITEM(node, 1) : NULL;
            PyObject *value_node = PyTuple_GET_ITEM(node, kind == K_MAP_ARRAY ? 2 : 1);
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            Py_INCREF(x);
            int rc = 0;
            while (rc == 0 && PyDict_Next(x, &pos, &k, &v)) {
                Py_INCREF(k);
                Py_INCREF(v);
                rc = key_node == NULL ? write_str(k, o) : write_node(key_node, k, o, depth + 1);
                if (rc == 0) rc = write_node(value_node, v, o, depth + 1);
                Py_DECREF(k);
                Py_DECREF(v);
                if (rc == 0 && PyDict_GET_SIZE(x) != n) rc = refuse("dict changed");
            }
            Py_DECREF(x);
            if (rc < 0) return -1;
        }
        return out_write(o, "\x00", 1);
    }
    default:
        return refuse("unknown plan node");
    }
}

/* encode(plan, value, header): header + the Avro encoding of value */
static PyObject *encode(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyBytes_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "encode(plan, value, header: bytes)");
        return NULL;
    }
    Out o;
    o.p = o.stack;
    o.len = 0;
    o.cap = (Py_ssize_t)sizeof(o.stack);
    PyObject *r = NULL;
    if (out_write(&o, PyBytes_AS_STRING(args[2]), PyBytes_GET_SIZE(args[2])) == 0 &&
        write_node(args[0], args[1], &o, 0) == 0)
        r = PyBytes_FromStringAndSize(o.p, o.len);
    if (o.p != o.stack) PyMem_Free(o.p);
    return r;
}

static PyMethodDef module_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL,
     "encode(plan, value, header): header + the Avro binary encoding of value by the compiled plan."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "converters._avrostruct", "AvroConverter's encoder in C.", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__avrostruct(void) {
#if PY_BIG_ENDIAN
    PyErr_SetString(PyExc_ImportError, "converters._avrostruct writes floats in host order: little-endian only");
    return NULL;
#else
    return PyModule_Create(&module_def);
#endif
}

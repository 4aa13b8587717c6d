/*
 * connectors.postgres.protocol._tupledata: pgoutput's row changes in C (every captured change is one).
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
 *
 * row_change(buf, in_stream) -> Insert | Update | Delete | None decodes a whole 'I', 'U' or 'D' message into
 * the message classes given to init(); None for any other message and for any malformed one, which the
 * Python decoder then decodes (or refuses with its own error): only well-formed row changes take this path.
 * The messages are made without their dataclass __init__ (frozen dataclasses set each field through
 * object.__setattr__): their slots are filled directly.
 * copy_text_row(data, fallback) -> tuple: one row of COPY … TO STDOUT in text format (the snapshot's rows) that
 * holds no backslash (no NULL, nothing escaped: the common row) and is UTF-8, split at its tabs, its newline
 * dropped; any other row is fallback(data), the Python parser (copy_out.parse_text_row), which stays the
 * reference.
 * Pure: no I/O, no state but the classes given to init().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static inline unsigned long be32(const unsigned char *p) {
    return ((unsigned long)p[0] << 24) | ((unsigned long)p[1] << 16) | ((unsigned long)p[2] << 8) | p[3];
}

/* What went wrong in a TupleData, for the caller to report in its own way. */
typedef enum { TD_OK, TD_TRUNCATED, TD_NEGATIVE, TD_PAST_END, TD_KIND, TD_RAISED } td_status;

typedef struct {
    td_status status;
    int ncols;
    unsigned char kind;
    unsigned long length;
} td_info;

/* The TupleData at *pos (advanced past it): a new tuple, or NULL with info->status set (TD_RAISED: a Python
 * exception is set, a UnicodeDecodeError or a MemoryError). */
static PyObject *parse_tuple(const unsigned char *d, Py_ssize_t len, Py_ssize_t size, Py_ssize_t *at,
                             PyObject *unchanged, td_info *info) {
    Py_ssize_t pos = *at;
    if (pos < 0 || pos + 2 > len) {
        info->status = TD_TRUNCATED;
        return NULL;
    }
    int ncols = (short)((d[pos] << 8) | d[pos + 1]);
    if (ncols < 0) {
        info->status = TD_NEGATIVE;
        info->ncols = ncols;
        return NULL;
    }
    pos += 2;
    PyObject *values = PyTuple_New(ncols);
    if (values == NULL) {
        info->status = TD_RAISED;
        return NULL;
    }
    for (int i = 0; i < ncols; i++) {
        if (pos >= len) {
            info->status = TD_TRUNCATED;
            goto fail;
        }
        unsigned char kind = d[pos];
        PyObject *v;
        if (kind == 't' || kind == 'b') {
            if (pos + 5 > len) {
                info->status = TD_TRUNCATED;
                goto fail;
            }
            unsigned long length = be32(d + pos + 1);
            pos += 5;
            if ((unsigned long long)pos + length > (unsigned long long)size) {
                info->status = TD_PAST_END;
                info->kind = kind;
                info->length = length;
                goto fail;
            }
            const char *p = (const char *)d + pos;
            v = kind == 't' ? PyUnicode_DecodeUTF8(p, (Py_ssize_t)length, "strict")
                            : PyBytes_FromStringAndSize(p, (Py_ssize_t)length);
            if (v == NULL) {
                info->status = TD_RAISED;
                goto fail;
            }
            pos += (Py_ssize_t)length;
        } else if (kind == 'n') {
            v = Py_NewRef(Py_None);
            pos += 1;
        } else if (kind == 'u') {
            v = Py_NewRef(unchanged);
            pos += 1;
        } else {
            info->status = TD_KIND;
            info->kind = kind;
            goto fail;
        }
        PyTuple_SET_ITEM(values, i, v);
    }
    info->status = TD_OK;
    *at = pos;
    return values;
fail:
    Py_DECREF(values);
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
    td_info info;
    PyObject *values = parse_tuple(d, len, size, &pos, unchanged, &info);
    if (values == NULL) {
        switch (info.status) {
        case TD_TRUNCATED:
            PyErr_SetString(PyExc_IndexError, "TupleData runs past the end of the buffer");
            break;
        case TD_NEGATIVE:
            PyErr_Format(error, "negative column count %d in TupleData", info.ncols);
            break;
        case TD_PAST_END:
            PyErr_Format(error, "%s value of %lu bytes runs past the end of the message",
                         info.kind == 't' ? "text" : "binary", info.length);
            break;
        case TD_KIND:
            PyErr_Format(error, "unknown TupleData kind 0x%02x", info.kind);
            break;
        default:
            break; /* TD_RAISED: already set */
        }
        return NULL;
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

/* -- whole row changes ---------------------------------------------------------------------------------- */

enum { F_XID, F_RELID, F_KEY, F_OLD, F_NEW, NFIELDS };

typedef struct {
    PyTypeObject *cls;
    Py_ssize_t off[NFIELDS]; /* slot offsets; -1 for a field the class does not have */
} MessageClass;

static PyObject *unchanged_marker = NULL;
static MessageClass insert_cls, update_cls, delete_cls;

static Py_ssize_t slot_offset(PyObject *cls, const char *name) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL) return -1;
    Py_ssize_t off = -1;
    if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == T_OBJECT_EX || m->type == T_OBJECT) off = m->offset;
    }
    Py_DECREF(d);
    if (off < 0) PyErr_Format(PyExc_TypeError, "%s is not a __slots__ field of %R", name, cls);
    return off;
}

static int set_class(MessageClass *mc, PyObject *cls, const char *const names[NFIELDS]) {
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "init() needs the message classes");
        return -1;
    }
    for (int i = 0; i < NFIELDS; i++) {
        mc->off[i] = -1;
        if (names[i] != NULL && (mc->off[i] = slot_offset(cls, names[i])) < 0) return -1;
    }
    Py_XSETREF(mc->cls, (PyTypeObject *)Py_NewRef(cls));
    return 0;
}

static PyObject *module_init(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "init(unchanged, Insert, Update, Delete)");
        return NULL;
    }
    static const char *const ins[NFIELDS] = {"xid", "relation_id", NULL, NULL, "new"};
    static const char *const upd[NFIELDS] = {"xid", "relation_id", "key", "old", "new"};
    static const char *const del[NFIELDS] = {"xid", "relation_id", "key", "old", NULL};
    if (set_class(&insert_cls, args[1], ins) < 0 || set_class(&update_cls, args[2], upd) < 0 ||
        set_class(&delete_cls, args[3], del) < 0)
        return NULL;
    Py_XSETREF(unchanged_marker, Py_NewRef(args[0]));
    Py_RETURN_NONE;
}

/* A message of class mc holding the given fields (references stolen; NULL entries are None). */
static PyObject *make_message(MessageClass *mc, PyObject *fields[NFIELDS]) {
    PyObject *obj = mc->cls->tp_alloc(mc->cls, 0);
    if (obj == NULL) return NULL;
    for (int i = 0; i < NFIELDS; i++) {
        if (mc->off[i] < 0) continue;
        *(PyObject **)((char *)obj + mc->off[i]) = fields[i] != NULL ? fields[i] : Py_NewRef(Py_None);
        fields[i] = NULL;
    }
    return obj;
}

/* A TupleData for a row change: NULL with no exception when malformed (or not UTF-8). */
static PyObject *row_tuple(const unsigned char *d, Py_ssize_t len, Py_ssize_t *pos) {
    td_info info;
    PyObject *t = parse_tuple(d, len, len, pos, unchanged_marker, &info);
    if (t == NULL && info.status == TD_RAISED && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) PyErr_Clear();
    return t;
}

static PyObject *row_change(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "row_change(buf: bytes, in_stream)");
        return NULL;
    }
    if (insert_cls.cls == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "row_change() before init()");
        return NULL;
    }
    const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t len = PyBytes_GET_SIZE(args[0]);
    if (len < 1) Py_RETURN_NONE;
    unsigned char kind = d[0];
    if (kind != 'I' && kind != 'U' && kind != 'D') Py_RETURN_NONE;
    int in_stream = PyObject_IsTrue(args[1]);
    if (in_stream < 0) return NULL;
    Py_ssize_t pos = in_stream ? 9 : 5;
    if (len < pos + 1) Py_RETURN_NONE;
    PyObject *fields[NFIELDS] = {NULL, NULL, NULL, NULL, NULL};
    PyObject *result = NULL;
    if (in_stream && (fields[F_XID] = PyLong_FromUnsignedLong(be32(d + 1))) == NULL) return NULL;
    if ((fields[F_RELID] = PyLong_FromUnsignedLong(be32(d + pos - 4))) == NULL) goto done;
    unsigned char marker = d[pos];
    MessageClass *mc;
    if (kind == 'I') {
        mc = &insert_cls;
        if (marker != 'N') goto none;
        pos += 1;
        if ((fields[F_NEW] = row_tuple(d, len, &pos)) == NULL) goto failed;
    } else if (kind == 'U') {
        mc = &update_cls;
        if (marker == 'K' || marker == 'O') {
            pos += 1;
            int slot = marker == 'K' ? F_KEY : F_OLD;
            if ((fields[slot] = row_tuple(d, len, &pos)) == NULL) goto failed;
            if (pos >= len) goto none;
            marker = d[pos];
        }
        if (marker != 'N') goto none;
        pos += 1;
        if ((fields[F_NEW] = row_tuple(d, len, &pos)) == NULL) goto failed;
    } else {
        mc = &delete_cls;
        if (marker != 'K' && marker != 'O') goto none;
        pos += 1;
        if ((fields[marker == 'K' ? F_KEY : F_OLD] = row_tuple(d, len, &pos)) == NULL) goto failed;
    }
    if (pos != len) goto none; /* trailing bytes: the Python decoder says so */
    result = make_message(mc, fields);
    goto done;
failed:
    if (PyErr_Occurred()) goto done; /* a MemoryError */
none:
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < NFIELDS; i++) Py_XDECREF(fields[i]);
    return result;
}

/* -- COPY text rows ------------------------------------------------------------------------------------- */

static PyObject *copy_text_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "copy_text_row(data, fallback)");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *d = (const char *)view.buf;
    Py_ssize_t len = view.len;
    if (len > 0 && d[len - 1] == '\n') len--;
    PyObject *row = NULL;
    if (memchr(d, '\\', (size_t)len) != NULL) goto fallback; /* NULLs and escapes: the Python parser */
    Py_ssize_t n = 1;
    for (const char *p = d; (p = memchr(p, '\t', (size_t)(d + len - p))) != NULL; p++) n++;
    row = PyTuple_New(n);
    if (row == NULL) goto done;
    const char *start = d;
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *tab = i + 1 < n ? memchr(start, '\t', (size_t)(d + len - start)) : d + len;
        PyObject *field = PyUnicode_DecodeUTF8(start, tab - start, "strict");
        if (field == NULL) {
            Py_CLEAR(row);
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) goto done;
            PyErr_Clear(); /* not UTF-8: the Python parser gives the error */
            goto fallback;
        }
        PyTuple_SET_ITEM(row, i, field);
        start = tab + 1;
    }
    goto done;
fallback:
    row = PyObject_CallOneArg(args[1], args[0]);
done:
    PyBuffer_Release(&view);
    return row;
}

static PyMethodDef module_methods[] = {
    {"tuple_data", (PyCFunction)(void (*)(void))tuple_data, METH_FASTCALL,
     "tuple_data(unchanged, error, buf, pos, size) -> (values, next_pos): one pgoutput TupleData."},
    {"init", (PyCFunction)(void (*)(void))module_init, METH_FASTCALL,
     "init(unchanged, Insert, Update, Delete): the marker and classes row_change() makes messages of."},
    {"row_change", (PyCFunction)(void (*)(void))row_change, METH_FASTCALL,
     "row_change(buf, in_stream) -> Insert | Update | Delete | None: a well-formed row change, else None."},
    {"copy_text_row", (PyCFunction)(void (*)(void))copy_text_row, METH_FASTCALL,
     "copy_text_row(data, fallback) -> tuple: a COPY text row without backslashes in C, else fallback(data)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "connectors.postgres.protocol._tupledata", "pgoutput's row changes in C.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__tupledata(void) { return PyModule_Create(&module_def); }

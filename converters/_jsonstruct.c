/*
 * converters._jsonstruct: the JsonConverter's struct encoder in C (the hot path of every record).
 *
 * A StructEncoder is built once per struct schema by converters/json.py (JsonCodec) from a plan: for each
 * field, its JSON prefix (`{"name":` or `,"name":`), how its value is written, and what a null writes.
 * Calling it with a Struct returns the struct's JSON text exactly as the generated Python encoder would, and
 * as Jackson writes it:
 *   - INT fields: the int's decimal digits (bool and non-int values are refused);
 *   - STRING fields: Jackson's escapes: `"` and `\` with a backslash; \b \t \n \f \r short; the other
 *     control characters as \u00XX; characters outside the BMP and lone surrogates as \uXXXX escapes
 *     (uppercase hex); everything else raw (UTF-8);
 *   - BOOLEAN fields: true / false (only the bool singletons);
 *   - STRUCT fields: the nested StructEncoder, written into the same buffer;
 *   - CALL fields: a Python encoder (floats, bytes, arrays, maps, logical types) returning text;
 *   - DECIMAL fields (Connect's Decimal, decimal.format=BASE64): the unscaled value as big-endian two's
 *     complement (BigInteger.toByteArray) in padded base64, when str(value) is a plain decimal with exactly
 *     the schema's scale in fraction digits and at most 18 digits; any other value (exponent notation, another
 *     scale, NaN, more digits, not a Decimal) goes to the field's Python encoder, which has Kafka's errors.
 * A value the plan does not expect raises TypeError: the converter then runs its checking encoder, which
 * gives Kafka's error message (or encodes leniently where Kafka does). Errors raised by a CALL propagate.
 *
 * Pure function of its inputs: no I/O, no global state. The pure-Python encoders stay the reference; the
 * unit tests compare both on the same values.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h> /* T_OBJECT_EX (the member type of __slots__) */
#include <string.h>

enum { K_INT = 0, K_STR = 1, K_BOOL = 2, K_STRUCT = 3, K_CALL = 4, K_DECIMAL = 5 };

/* -- the output buffer ------------------------------------------------------------------------------- */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
    int ascii; /* every byte written so far is < 0x80 */
    char stack[8192]; /* a row event with its schema envelope fits without a heap buffer */
} Out;

static void out_init(Out *o) {
    o->p = o->stack;
    o->len = 0;
    o->cap = (Py_ssize_t)sizeof(o->stack);
    o->ascii = 1;
}

static void out_free(Out *o) {
    if (o->p != o->stack) PyMem_Free(o->p);
}

static int out_reserve(Out *o, Py_ssize_t extra) {
    if (o->len + extra <= o->cap) return 0;
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
    if (out_reserve(o, n) < 0) return -1;
    memcpy(o->p + o->len, s, (size_t)n);
    o->len += n;
    return 0;
}

/* A str's UTF-8 as is (encoder output and prefixes: never a lone surrogate). */
static int out_write_text(Out *o, PyObject *s) {
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) return -1;
    if (!PyUnicode_IS_ASCII(s)) o->ascii = 0;
    return out_write(o, u, n);
}

static PyObject *out_result(Out *o) {
    if (o->ascii) {
        PyObject *r = PyUnicode_New(o->len, 127);
        if (r != NULL) memcpy(PyUnicode_1BYTE_DATA(r), o->p, (size_t)o->len);
        return r;
    }
    return PyUnicode_DecodeUTF8(o->p, o->len, "strict");
}

/* -- values ------------------------------------------------------------------------------------------ */
static int write_int(Out *o, PyObject *v) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
        PyObject *r = PyLong_Type.tp_repr(v);
        if (r == NULL) return -1;
        int rc = out_write_text(o, r);
        Py_DECREF(r);
        return rc;
    }
    char tmp[24];
    char *end = tmp + sizeof(tmp), *q = end;
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    do {
        *--q = (char)('0' + (u % 10));
        u /= 10;
    } while (u);
    if (x < 0) *--q = '-';
    return out_write(o, q, end - q);
}

static const char HEX[] = "0123456789ABCDEF";

static inline char *put_u_escape(char *q, Py_UCS4 c) {
    q[0] = '\\';
    q[1] = 'u';
    q[2] = HEX[(c >> 12) & 0xF];
    q[3] = HEX[(c >> 8) & 0xF];
    q[4] = HEX[(c >> 4) & 0xF];
    q[5] = HEX[c & 0xF];
    return q + 6;
}

/* The escape of a character below 0x20, `"` or `\`; returns the end. */
static inline char *put_ascii_escape(char *q, unsigned char c) {
    switch (c) {
    case '"': *q++ = '\\'; *q++ = '"'; return q;
    case '\\': *q++ = '\\'; *q++ = '\\'; return q;
    case '\b': *q++ = '\\'; *q++ = 'b'; return q;
    case '\t': *q++ = '\\'; *q++ = 't'; return q;
    case '\n': *q++ = '\\'; *q++ = 'n'; return q;
    case '\f': *q++ = '\\'; *q++ = 'f'; return q;
    case '\r': *q++ = '\\'; *q++ = 'r'; return q;
    default: return put_u_escape(q, c);
    }
}

static inline int needs_escape_ascii(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

static int write_str(Out *o, PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) {
        const unsigned char *d = PyUnicode_1BYTE_DATA(s);
        Py_ssize_t i = 0;
        while (i < n && !needs_escape_ascii(d[i])) i++;
        /* worst case: every character a 6-byte escape, plus the quotes */
        if (out_reserve(o, i == n ? n + 2 : 6 * n + 2) < 0) return -1;
        char *q = o->p + o->len;
        *q++ = '"';
        memcpy(q, d, (size_t)i);
        q += i;
        for (; i < n; i++) {
            unsigned char c = d[i];
            if (needs_escape_ascii(c)) q = put_ascii_escape(q, c);
            else *q++ = (char)c;
        }
        *q++ = '"';
        o->len = q - o->p;
        return 0;
    }
    /* non-ASCII: at most 12 bytes per character (an astral character as two escapes) */
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    if (out_reserve(o, 12 * n + 2) < 0) return -1;
    char *q = o->p + o->len;
    *q++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80) {
            if (needs_escape_ascii((unsigned char)c)) q = put_ascii_escape(q, (unsigned char)c);
            else *q++ = (char)c;
        } else if (c < 0x800) {
            *q++ = (char)(0xC0 | (c >> 6));
            *q++ = (char)(0x80 | (c & 0x3F));
            o->ascii = 0;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            q = put_u_escape(q, c); /* a lone surrogate */
        } else if (c < 0x10000) {
            *q++ = (char)(0xE0 | (c >> 12));
            *q++ = (char)(0x80 | ((c >> 6) & 0x3F));
            *q++ = (char)(0x80 | (c & 0x3F));
            o->ascii = 0;
        } else {
            Py_UCS4 v = c - 0x10000;
            q = put_u_escape(q, 0xD800 + (v >> 10));
            q = put_u_escape(q, 0xDC00 + (v & 0x3FF));
        }
    }
    *q++ = '"';
    o->len = q - o->p;
    return 0;
}

/* -- decimals -------------------------------------------------------------------------------------------- */
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The unscaled value of a Decimal's text when it has exactly `scale` fraction digits and fits 18 digits:
 * 1 and *out set; 0 when the text needs the Python encoder. */
static int plain_unscaled(const char *t, Py_ssize_t n, long scale, long long *out) {
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < n && t[i] == '-') {
        neg = 1;
        i++;
    }
    long long v = 0;
    int digits = 0, frac = -1; /* frac: fraction digits seen, -1 before the point */
    if (i == n) return 0;
    for (; i < n; i++) {
        char c = t[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 18) return 0;
            v = v * 10 + (c - '0');
            if (frac >= 0) frac++;
        } else if (c == '.' && frac < 0 && digits > 0) {
            frac = 0;
        } else {
            return 0; /* exponent, NaN, Infinity */
        }
    }
    if (frac < 0) frac = 0;
    if (digits == 0 || frac != scale) return 0;
    *out = neg ? -v : v;
    return 1;
}

static int write_unscaled_b64(Out *o, long long n) {
    /* BigInteger.toByteArray: the fewest bytes holding n with its sign bit */
    unsigned long long m = n < 0 ? (unsigned long long)(-(n + 1)) : (unsigned long long)n;
    int bits = 0;
    while (m) {
        bits++;
        m >>= 1;
    }
    int nbytes = bits / 8 + 1;
    unsigned char b[9];
    unsigned long long u = (unsigned long long)n;
    for (int i = nbytes - 1; i >= 0; i--) {
        b[i] = (unsigned char)(u & 0xFF);
        u >>= 8;
    }
    char enc[2 + 12];
    int k = 0;
    enc[k++] = '"';
    for (int i = 0; i < nbytes; i += 3) {
        unsigned int x = (unsigned int)b[i] << 16;
        if (i + 1 < nbytes) x |= (unsigned int)b[i + 1] << 8;
        if (i + 2 < nbytes) x |= b[i + 2];
        enc[k++] = B64[(x >> 18) & 63];
        enc[k++] = B64[(x >> 12) & 63];
        enc[k++] = i + 1 < nbytes ? B64[(x >> 6) & 63] : '=';
        enc[k++] = i + 2 < nbytes ? B64[x & 63] : '=';
    }
    enc[k++] = '"';
    return out_write(o, enc, k);
}

/* -- StructEncoder ----------------------------------------------------------------------------------- */
typedef struct {
    PyObject *prefix;    /* str: `{"name":` or `,"name":` */
    int kind;
    PyObject *arg;       /* K_STRUCT: a StructEncoder; K_CALL, K_DECIMAL: a callable; else NULL */
    PyObject *null_text; /* str written for None, or NULL: None is refused (a required field) */
    PyObject *decimal;   /* K_DECIMAL: the Decimal class */
    long scale;          /* K_DECIMAL: the schema's scale */
} Field;

typedef struct {
    PyObject_HEAD
    PyObject *schema;
    PyObject *struct_cls;
    Py_ssize_t schema_off, values_off; /* the Struct's slot offsets */
    Py_ssize_t nfields;
    Field *fields;
    PyObject *self_null; /* str answered for None (an optional or defaulted struct), or NULL */
    vectorcallfunc vectorcall;
} StructEncoder;

static PyTypeObject StructEncoderType;

static int refuse(const char *what) {
    PyErr_SetString(PyExc_TypeError, what);
    return -1;
}

static int write_fields(StructEncoder *e, PyObject *values, Out *o);

static int write_struct(StructEncoder *e, PyObject *s, Out *o) {
    if ((PyObject *)Py_TYPE(s) != e->struct_cls) return refuse("not a Struct");
    PyObject *schema = *(PyObject **)((char *)s + e->schema_off);
    PyObject *values = *(PyObject **)((char *)s + e->values_off);
    if (schema == NULL || values == NULL) return refuse("incomplete Struct");
    if (!PyTuple_CheckExact(values) || PyTuple_GET_SIZE(values) != e->nfields) return refuse("struct values");
    /* own references while Python code runs (Schema.__eq__, CALL encoders), whatever it does to the Struct */
    Py_INCREF(schema);
    Py_INCREF(values);
    int rc = 0;
    if (schema != e->schema) {
        int eq = PyObject_RichCompareBool(schema, e->schema, Py_EQ);
        rc = eq < 0 ? -1 : eq ? 0 : refuse("struct schema mismatch");
    }
    if (rc == 0) rc = e->nfields == 0 ? out_write(o, "{}", 2) : write_fields(e, values, o);
    Py_DECREF(values);
    Py_DECREF(schema);
    return rc;
}

static int write_fields(StructEncoder *e, PyObject *values, Out *o) {
    for (Py_ssize_t i = 0; i < e->nfields; i++) {
        Field *f = &e->fields[i];
        PyObject *x = PyTuple_GET_ITEM(values, i);
        if (out_write_text(o, f->prefix) < 0) return -1;
        if (x == Py_None) {
            if (f->null_text == NULL) return refuse("null for a required field");
            if (out_write_text(o, f->null_text) < 0) return -1;
            continue;
        }
        switch (f->kind) {
        case K_INT:
            if (!PyLong_Check(x) || PyBool_Check(x)) return refuse("not an int");
            if (write_int(o, x) < 0) return -1;
            break;
        case K_STR:
            if (!PyUnicode_Check(x)) return refuse("not a str");
            if (write_str(o, x) < 0) return -1;
            break;
        case K_BOOL:
            if (x == Py_True) {
                if (out_write(o, "true", 4) < 0) return -1;
            } else if (x == Py_False) {
                if (out_write(o, "false", 5) < 0) return -1;
            } else {
                return refuse("not a bool");
            }
            break;
        case K_STRUCT:
            if (write_struct((StructEncoder *)f->arg, x, o) < 0) return -1;
            break;
        case K_DECIMAL:
            if (Py_IS_TYPE(x, (PyTypeObject *)f->decimal)) {
                PyObject *t = PyObject_Str(x);
                if (t == NULL) return -1;
                long long n;
                int plain = PyUnicode_IS_ASCII(t) &&
                            plain_unscaled((const char *)PyUnicode_1BYTE_DATA(t), PyUnicode_GET_LENGTH(t), f->scale, &n);
                Py_DECREF(t);
                if (plain) {
                    if (write_unscaled_b64(o, n) < 0) return -1;
                    break;
                }
            }
            /* fall through: the Python encoder */
        default: {
            PyObject *r = PyObject_CallOneArg(f->arg, x);
            if (r == NULL) return -1;
            int rc = PyUnicode_Check(r) ? out_write_text(o, r) : refuse("encoder returned a non-str");
            Py_DECREF(r);
            if (rc < 0) return -1;
        }
        }
    }
    return out_write(o, "}", 1);
}

/* The encoding of `value`: a Struct, or None when the encoder has an answer for it. */
static int encode_into(StructEncoder *e, PyObject *value, Out *o) {
    if (value == Py_None && e->self_null != NULL) return out_write_text(o, e->self_null);
    return write_struct(e, value, o);
}

static PyObject *encoder_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "StructEncoder takes one Struct");
        return NULL;
    }
    StructEncoder *e = (StructEncoder *)self;
    if (args[0] == Py_None && e->self_null != NULL) return Py_NewRef(e->self_null);
    Out o;
    out_init(&o);
    PyObject *r = encode_into(e, args[0], &o) == 0 ? out_result(&o) : NULL;
    out_free(&o);
    return r;
}

/* utf8(value, prefix=None): the encoding as UTF-8 bytes, written once; with `prefix` (bytes, the schema
 * envelope's `{"schema":…,"payload":`) it is closed by `}`. What the converter sends to Kafka. */
static PyObject *encoder_utf8(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "utf8(value, prefix=None)");
        return NULL;
    }
    PyObject *prefix = nargs == 2 ? args[1] : Py_None;
    if (prefix != Py_None && !PyBytes_Check(prefix)) {
        PyErr_SetString(PyExc_TypeError, "prefix must be bytes or None");
        return NULL;
    }
    Out o;
    out_init(&o);
    int rc = prefix == Py_None ? 0 : out_write(&o, PyBytes_AS_STRING(prefix), PyBytes_GET_SIZE(prefix));
    if (rc == 0) rc = encode_into((StructEncoder *)self, args[0], &o);
    if (rc == 0 && prefix != Py_None) rc = out_write(&o, "}", 1);
    PyObject *r = rc == 0 ? PyBytes_FromStringAndSize(o.p, o.len) : NULL;
    out_free(&o);
    return r;
}

static PyMethodDef encoder_methods[] = {
    {"utf8", (PyCFunction)(void (*)(void))encoder_utf8, METH_FASTCALL,
     "utf8(value, prefix=None): the encoding as UTF-8 bytes, inside the envelope prefix + '}' when given."},
    {NULL, NULL, 0, NULL},
};

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

static void encoder_clear_fields(StructEncoder *e) {
    if (e->fields == NULL) return;
    for (Py_ssize_t i = 0; i < e->nfields; i++) {
        Py_CLEAR(e->fields[i].prefix);
        Py_CLEAR(e->fields[i].arg);
        Py_CLEAR(e->fields[i].null_text);
        Py_CLEAR(e->fields[i].decimal);
    }
    PyMem_Free(e->fields);
    e->fields = NULL;
    e->nfields = 0;
}

/* StructEncoder(schema, struct_cls, fields, self_null=None): fields is a sequence of
 * (prefix, kind, arg, null_text), arg being (encoder, scale, Decimal class) for DECIMAL fields. */
static PyObject *encoder_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *schema, *cls, *plan, *self_null = Py_None;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "StructEncoder takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO!O|O:StructEncoder", &schema, &PyType_Type, &cls, &plan, &self_null)) return NULL;
    if (self_null != Py_None && !PyUnicode_Check(self_null)) {
        PyErr_SetString(PyExc_TypeError, "self_null must be a str or None");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(plan, "fields must be a sequence");
    if (seq == NULL) return NULL;
    StructEncoder *e = (StructEncoder *)type->tp_alloc(type, 0);
    if (e == NULL) goto fail_seq;
    e->vectorcall = encoder_vectorcall;
    e->schema = Py_NewRef(schema);
    e->struct_cls = Py_NewRef(cls);
    e->self_null = self_null == Py_None ? NULL : Py_NewRef(self_null);
    if ((e->schema_off = slot_offset(cls, "schema")) < 0 || (e->values_off = slot_offset(cls, "values")) < 0)
        goto fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    e->fields = PyMem_Calloc(n ? (size_t)n : 1, sizeof(Field));
    if (e->fields == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    e->nfields = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *prefix, *arg, *null_text;
        int kind;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "UiOO:field", &prefix, &kind, &arg, &null_text))
            goto fail;
        PyObject *decimal = NULL;
        long scale = 0;
        if (kind == K_DECIMAL) {
            if (!PyArg_ParseTuple(arg, "OlO!:decimal field", &arg, &scale, &PyType_Type, &decimal)) goto fail;
            if (scale < 0 || scale > 18) {
                kind = K_CALL; /* no plain text of 18 digits or fewer has this scale: the Python encoder */
                decimal = NULL;
            }
        }
        if (kind < K_INT || kind > K_DECIMAL) {
            PyErr_Format(PyExc_ValueError, "unknown field kind %d", kind);
            goto fail;
        }
        if (kind == K_STRUCT && !Py_IS_TYPE(arg, &StructEncoderType)) {
            PyErr_SetString(PyExc_TypeError, "a STRUCT field needs a StructEncoder");
            goto fail;
        }
        if ((kind == K_CALL || kind == K_DECIMAL) && !PyCallable_Check(arg)) {
            PyErr_SetString(PyExc_TypeError, "a CALL field needs a callable");
            goto fail;
        }
        if (null_text != Py_None && !PyUnicode_Check(null_text)) {
            PyErr_SetString(PyExc_TypeError, "null_text must be a str or None");
            goto fail;
        }
        Field *f = &e->fields[i];
        f->prefix = Py_NewRef(prefix);
        f->kind = kind;
        f->arg = (kind == K_STRUCT || kind == K_CALL || kind == K_DECIMAL) ? Py_NewRef(arg) : NULL;
        f->null_text = null_text == Py_None ? NULL : Py_NewRef(null_text);
        f->decimal = decimal == NULL ? NULL : Py_NewRef(decimal);
        f->scale = scale;
    }
    Py_DECREF(seq);
    return (PyObject *)e;
fail:
    Py_DECREF(e);
fail_seq:
    Py_DECREF(seq);
    return NULL;
}

static int encoder_traverse(StructEncoder *e, visitproc visit, void *arg) {
    Py_VISIT(e->schema);
    Py_VISIT(e->struct_cls);
    for (Py_ssize_t i = 0; i < e->nfields; i++) {
        Py_VISIT(e->fields[i].arg);
        Py_VISIT(e->fields[i].decimal);
    }
    return 0;
}

static int encoder_clear(StructEncoder *e) {
    Py_CLEAR(e->schema);
    Py_CLEAR(e->struct_cls);
    Py_CLEAR(e->self_null);
    encoder_clear_fields(e);
    return 0;
}

static void encoder_dealloc(StructEncoder *e) {
    PyObject_GC_UnTrack(e);
    encoder_clear(e);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static PyObject *encoder_get_schema(StructEncoder *e, void *closure) { return Py_NewRef(e->schema); }

static PyGetSetDef encoder_getset[] = {
    {"schema", (getter)encoder_get_schema, NULL, "The struct schema this encoder writes.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StructEncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "converters._jsonstruct.StructEncoder",
    .tp_basicsize = sizeof(StructEncoder),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "StructEncoder(schema, struct_cls, fields, self_null=None): one struct schema's JSON encoder.",
    .tp_new = encoder_new,
    .tp_dealloc = (destructor)encoder_dealloc,
    .tp_traverse = (traverseproc)encoder_traverse,
    .tp_clear = (inquiry)encoder_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(StructEncoder, vectorcall),
    .tp_getset = encoder_getset,
    .tp_methods = encoder_methods,
};

/* quote(s): one str as a JSON string literal, Jackson's way (the same rules as STRING fields). */
static PyObject *quote(PyObject *module, PyObject *s) {
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "quote() takes a str");
        return NULL;
    }
    Out o;
    out_init(&o);
    PyObject *r = write_str(&o, s) == 0 ? out_result(&o) : NULL;
    out_free(&o);
    return r;
}

static PyMethodDef module_methods[] = {
    {"quote", quote, METH_O, "A str as a JSON string literal with Jackson's escapes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "converters._jsonstruct", "The JsonConverter's struct encoder in C.", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__jsonstruct(void) {
    if (PyType_Ready(&StructEncoderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "StructEncoder", (PyObject *)&StructEncoderType) < 0 ||
        PyModule_AddIntConstant(m, "INT", K_INT) < 0 || PyModule_AddIntConstant(m, "STR", K_STR) < 0 ||
        PyModule_AddIntConstant(m, "BOOL", K_BOOL) < 0 || PyModule_AddIntConstant(m, "STRUCT", K_STRUCT) < 0 ||
        PyModule_AddIntConstant(m, "CALL", K_CALL) < 0 || PyModule_AddIntConstant(m, "DECIMAL", K_DECIMAL) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

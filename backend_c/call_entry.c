/* The warm call entry of a compiled kernel: a Python callable, in C, that checks one
 * call's arguments as polyopt's Python wrapper does (backend_c/fastcall.py) and calls
 * the kernel through its trampoline (backend_c/trampoline.py), without cffi.
 *
 * Every check is precomputed into an Entry when a signature is first called, and a
 * warm call allocates nothing (temporaries aside).  A call whose types are not the
 * signature's returns the MISS object; a call that fails any check (layout,
 * writability, overlap, sizes, bounds, conversions) is handed whole to the slow path,
 * which raises the detailed error before any C runs.  Built once per cache directory
 * by backend_c/call_entry_build.py; the Python wrapper stays the fallback.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAXN 64  /* arguments, arrays, sizes, C arguments: a larger kernel keeps the
                    Python wrapper */

typedef void (*entry_fn)(void *const *, void *);
typedef int64_t (*check_fn)(const int64_t *);

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Py_ssize_t nargs;
    PyObject *types[MAXN];     /* exact type of each argument */
    PyObject *descrs[MAXN];    /* an array's dtype, or NULL for a scalar */
    int ndims[MAXN];
    Py_ssize_t narrays;        /* array arguments, in the interface's order */
    int apos[MAXN], awritten[MAXN];
    Py_ssize_t aitem[MAXN];
    Py_ssize_t npairs;         /* overlap checks: pairs of array indices */
    int pairs[2 * MAXN * MAXN];
    Py_ssize_t nparams;        /* sizes: (argument, dimension) or (int argument, -1) */
    int ppos[MAXN], pdim[MAXN];
    long long limit;
    Py_ssize_t nint32;         /* Python ints that NumPy would convert to int32 */
    int i32pos[MAXN];
    Py_ssize_t ncargs;         /* the C function's arguments */
    char ckind[MAXN];          /* p size, a array, t temporary, d f l i scalar */
    int cindex[MAXN];
    char retkind;              /* n None, A argument, T temporary, d f l i value */
    int retindex;
    PyObject *rettype;         /* a NumPy scalar type for the value, or NULL */
    entry_fn entry;
    check_fn check;
    PyObject *slow, *temps, *error, *miss;
    int accepted_valid;        /* the last sizes the bounds check accepted */
    int64_t accepted[MAXN];
} Entry;

typedef union { double d; float f; int64_t l; int32_t i; } Value;

static PyObject *slow(Entry *e, PyObject *args) { return PyObject_CallOneArg(e->slow, args); }

static PyObject *miss(Entry *e) { Py_INCREF(e->miss); return e->miss; }

/* A Python int (or __index__) as int64; 0 with the error cleared when it does not fit. */
static int as_int64(PyObject *o, int64_t *out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    *out = (int64_t)v;
    return 1;
}

/* A scalar argument converted as cffi converts it; 0 (error cleared) when it cannot be. */
static int convert(char kind, PyObject *o, Value *v) {
    int64_t x;
    if (kind == 'd' || kind == 'f') {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (kind == 'd') v->d = d; else v->f = (float)d;
        return 1;
    }
    if (!as_int64(o, &x)) return 0;
    if (kind == 'l') { v->l = x; return 1; }
    if (x < INT32_MIN || x > INT32_MAX) return 0;
    v->i = (int32_t)x;
    return 1;
}

static PyObject *result(Entry *e, PyObject *const *items, PyObject *temps, Value *r) {
    PyObject *value;
    switch (e->retkind) {
    case 'n': Py_RETURN_NONE;
    case 'A': Py_INCREF(items[e->retindex]); return items[e->retindex];
    case 'T': value = PyTuple_GET_ITEM(temps, e->retindex); Py_INCREF(value); return value;
    case 'd': value = PyFloat_FromDouble(r->d); break;
    case 'f': value = PyFloat_FromDouble((double)r->f); break;
    case 'l': value = PyLong_FromLongLong(r->l); break;
    default: value = PyLong_FromLong(r->i); break;
    }
    if (value == NULL || e->rettype == NULL) return value;
    PyObject *typed = PyObject_CallOneArg(e->rettype, value);  /* np.float32(r)... */
    Py_DECREF(value);
    return typed;
}

static PyObject *raise_flag(Entry *e, int32_t flag) {
    PyObject *exc = PyObject_CallFunction(e->error, "i", (int)flag);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* The temporaries, allocated by the Python callable for these sizes: a tuple of arrays,
 * or None when a shape would be negative (NULL with an error set if it raised). */
static PyObject *temporaries(Entry *e, const int64_t *sizes) {
    PyObject *t = PyTuple_New(e->nparams);
    if (t == NULL) return NULL;
    for (Py_ssize_t k = 0; k < e->nparams; k++) {
        PyObject *v = PyLong_FromLongLong(sizes[k]);
        if (v == NULL) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, k, v);
    }
    PyObject *out = PyObject_CallOneArg(e->temps, t);
    Py_DECREF(t);
    return out;
}

static int types_match(Entry *e, PyObject *const *items) {
    for (Py_ssize_t k = 0; k < e->nargs; k++) {
        PyObject *o = items[k];
        if ((PyObject *)Py_TYPE(o) != e->types[k]) return 0;
        if (e->descrs[k] != NULL
            && ((PyObject *)PyArray_DESCR((PyArrayObject *)o) != e->descrs[k]
                || PyArray_NDIM((PyArrayObject *)o) != e->ndims[k]))
            return 0;
    }
    return 1;
}

/* Layout, writability and overlap of the array arguments: 1 when all pass. */
static int arrays_pass(Entry *e, PyObject *const *items, char **data, char **end) {
    for (Py_ssize_t x = 0; x < e->narrays; x++) {
        PyArrayObject *a = (PyArrayObject *)items[e->apos[x]];
        int flags = PyArray_FLAGS(a);
        if (!(flags & NPY_ARRAY_C_CONTIGUOUS)) return 0;
        if (e->awritten[x] && !(flags & NPY_ARRAY_WRITEABLE)) return 0;
        npy_intp n = 1;
        for (int d = 0; d < PyArray_NDIM(a); d++) n *= PyArray_DIMS(a)[d];
        data[x] = PyArray_BYTES(a);
        end[x] = data[x] + n * e->aitem[x];
    }
    for (Py_ssize_t k = 0; k < e->npairs; k++) {
        int p = e->pairs[2 * k], q = e->pairs[2 * k + 1];
        if (data[p] < end[q] && data[q] < end[p]) return 0;
    }
    return 1;
}

/* The sizes, within the interface's limit and accepted by the bounds check: 1 when so. */
static int sizes_pass(Entry *e, PyObject *const *items, int64_t *sizes) {
    for (Py_ssize_t k = 0; k < e->nparams; k++) {
        PyObject *o = items[e->ppos[k]];
        if (e->pdim[k] >= 0) sizes[k] = PyArray_DIMS((PyArrayObject *)o)[e->pdim[k]];
        else if (!as_int64(o, &sizes[k])) return 0;
        if (sizes[k] < -e->limit || sizes[k] > e->limit) return 0;
    }
    if (e->accepted_valid && memcmp(sizes, e->accepted, e->nparams * sizeof(int64_t)) == 0)
        return 1;
    if (e->check(sizes) != 0) return 0;
    memcpy(e->accepted, sizes, e->nparams * sizeof(int64_t));
    e->accepted_valid = 1;
    return 1;
}

static PyObject *entry_call(PyObject *self, PyObject *const *argv, size_t nargsf,
                            PyObject *kwnames) {
    Entry *e = (Entry *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL || !PyTuple_CheckExact(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "a polyopt call entry takes one tuple of arguments");
        return NULL;
    }
    PyObject *args = argv[0];
    if (PyTuple_GET_SIZE(args) != e->nargs) return miss(e);
    PyObject *const *items = &PyTuple_GET_ITEM(args, 0);
    if (!types_match(e, items)) return miss(e);
    int64_t x;
    for (Py_ssize_t k = 0; k < e->nint32; k++)
        if (!as_int64(items[e->i32pos[k]], &x) || x < INT32_MIN || x > INT32_MAX)
            return slow(e, args);
    char *data[MAXN], *end[MAXN];
    int64_t sizes[MAXN];
    if (!arrays_pass(e, items, data, end) || !sizes_pass(e, items, sizes))
        return slow(e, args);
    Value values[MAXN];
    void *ptrs[MAXN + 1];
    for (Py_ssize_t k = 0; k < e->ncargs; k++) {
        int j = e->cindex[k];
        switch (e->ckind[k]) {
        case 'p': ptrs[k] = &sizes[j]; break;
        case 'a': ptrs[k] = data[j]; break;
        case 't': ptrs[k] = NULL; break;  /* filled below, once the temporaries exist */
        default:
            if (!convert(e->ckind[k], items[j], &values[k])) return slow(e, args);
            ptrs[k] = &values[k];
        }
    }
    PyObject *temps = NULL;
    if (e->temps != Py_None) {
        temps = temporaries(e, sizes);
        if (temps == NULL) return NULL;
        if (temps == Py_None) { Py_DECREF(temps); return slow(e, args); }
        for (Py_ssize_t k = 0; k < e->ncargs; k++)
            if (e->ckind[k] == 't')
                ptrs[k] = PyArray_DATA((PyArrayObject *)PyTuple_GET_ITEM(temps, e->cindex[k]));
    }
    int32_t flag = 0;
    ptrs[e->ncargs] = &flag;
    Value r;
    Py_BEGIN_ALLOW_THREADS  /* as cffi does: other threads run while the kernel does */
    e->entry(ptrs, &r);
    Py_END_ALLOW_THREADS
    PyObject *out = flag ? raise_flag(e, flag) : result(e, items, temps, &r);
    Py_XDECREF(temps);
    return out;
}

/* --- construction ------------------------------------------------------------------ */

static int int_at(PyObject *seq, Py_ssize_t k, int *out) {
    long v = PyLong_AsLong(PyTuple_GET_ITEM(seq, k));
    if (v == -1 && PyErr_Occurred()) return 0;
    *out = (int)v;
    return 1;
}

/* Each item of ``seq`` (a tuple) is a tuple of ``width`` ints, stored in row order. */
static int int_rows(PyObject *seq, int width, Py_ssize_t cap, int *out, Py_ssize_t *n) {
    *n = PyTuple_GET_SIZE(seq);
    if (*n > cap) {
        PyErr_SetString(PyExc_ValueError, "too many items for a call entry");
        return 0;
    }
    for (Py_ssize_t k = 0; k < *n; k++) {
        PyObject *row = PyTuple_GET_ITEM(seq, k);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != width) {
            PyErr_SetString(PyExc_TypeError, "a call entry's plan rows are tuples of ints");
            return 0;
        }
        for (int w = 0; w < width; w++)
            if (!int_at(row, w, &out[k * width + w])) return 0;
    }
    return 1;
}

static int fill(Entry *e, PyObject *types, PyObject *descrs, PyObject *arrays, PyObject *pairs,
                PyObject *params, PyObject *int32s, PyObject *cargs, PyObject *ret) {
    int rows[3 * MAXN];
    Py_ssize_t n;
    e->nargs = PyTuple_GET_SIZE(types);
    if (e->nargs > MAXN || PyTuple_GET_SIZE(descrs) != e->nargs) {
        PyErr_SetString(PyExc_ValueError, "a call entry's types and dtypes differ in number");
        return 0;
    }
    for (Py_ssize_t k = 0; k < e->nargs; k++) {
        PyObject *d = PyTuple_GET_ITEM(descrs, k);
        e->types[k] = PyTuple_GET_ITEM(types, k);
        Py_INCREF(e->types[k]);
        if (d == Py_None) continue;
        if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) != 2 || !int_at(d, 1, &e->ndims[k])) {
            PyErr_SetString(PyExc_TypeError, "an array's plan is (dtype, ndim)");
            return 0;
        }
        e->descrs[k] = PyTuple_GET_ITEM(d, 0);
        Py_INCREF(e->descrs[k]);
    }
    if (!int_rows(arrays, 3, MAXN, rows, &e->narrays)) return 0;
    for (Py_ssize_t k = 0; k < e->narrays; k++) {
        e->apos[k] = rows[3 * k];
        e->awritten[k] = rows[3 * k + 1];
        e->aitem[k] = rows[3 * k + 2];
    }
    if (!int_rows(pairs, 2, MAXN * MAXN, e->pairs, &e->npairs)) return 0;
    if (!int_rows(params, 2, MAXN, rows, &e->nparams)) return 0;
    for (Py_ssize_t k = 0; k < e->nparams; k++) {
        e->ppos[k] = rows[2 * k];
        e->pdim[k] = rows[2 * k + 1];
    }
    if (!int_rows(int32s, 1, MAXN, e->i32pos, &e->nint32)) return 0;
    if (!int_rows(cargs, 2, MAXN, rows, &e->ncargs)) return 0;
    for (Py_ssize_t k = 0; k < e->ncargs; k++) {
        e->ckind[k] = (char)rows[2 * k];
        e->cindex[k] = rows[2 * k + 1];
    }
    if (!int_rows(ret, 2, 1, rows, &n)) return 0;
    e->retkind = n ? (char)rows[0] : 'n';
    e->retindex = n ? rows[1] : 0;
    return 1;
}

static void entry_dealloc(PyObject *self) {
    Entry *e = (Entry *)self;
    for (Py_ssize_t k = 0; k < MAXN; k++) {
        Py_XDECREF(e->types[k]);
        Py_XDECREF(e->descrs[k]);
    }
    Py_XDECREF(e->rettype);
    Py_XDECREF(e->slow);
    Py_XDECREF(e->temps);
    Py_XDECREF(e->error);
    Py_XDECREF(e->miss);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *entry_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *types, *descrs, *arrays, *pairs, *params, *int32s, *cargs, *ret, *rettype;
    PyObject *slowf, *temps, *error, *missv;
    long long limit;
    unsigned long long entry, check;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!LO!O!O!OKKOOOO", &PyTuple_Type, &types,
                          &PyTuple_Type, &descrs, &PyTuple_Type, &arrays, &PyTuple_Type, &pairs,
                          &PyTuple_Type, &params, &limit, &PyTuple_Type, &int32s,
                          &PyTuple_Type, &cargs, &PyTuple_Type, &ret, &rettype,
                          &entry, &check, &slowf, &temps, &error, &missv))
        return NULL;
    Entry *e = (Entry *)type->tp_alloc(type, 0);
    if (e == NULL) return NULL;
    e->vectorcall = entry_call;
    e->limit = limit;
    e->entry = (entry_fn)(uintptr_t)entry;
    e->check = (check_fn)(uintptr_t)check;
    e->rettype = rettype == Py_None ? NULL : rettype;
    Py_XINCREF(e->rettype);
    e->slow = slowf; e->temps = temps; e->error = error; e->miss = missv;
    Py_INCREF(slowf); Py_INCREF(temps); Py_INCREF(error); Py_INCREF(missv);
    if (!fill(e, types, descrs, arrays, pairs, params, int32s, cargs, ret)) {
        Py_DECREF(e);
        return NULL;
    }
    return (PyObject *)e;
}

static PyObject *entry_tp_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    return PyVectorcall_Call(self, args, kwargs);
}

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "polyopt_call_entry.Entry",
    .tp_basicsize = sizeof(Entry),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A compiled kernel's warm call: entry(args) checks args and runs the kernel.",
    .tp_new = entry_new,
    .tp_dealloc = entry_dealloc,
    .tp_call = entry_tp_call,
    .tp_vectorcall_offset = offsetof(Entry, vectorcall),
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "polyopt_call_entry", "polyopt's compiled call entries.", -1,
};

PyMODINIT_FUNC PyInit_polyopt_call_entry(void) {
    if (PyType_Ready(&EntryType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&EntryType);
    if (PyModule_AddObject(m, "Entry", (PyObject *)&EntryType) < 0) {
        Py_DECREF(&EntryType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

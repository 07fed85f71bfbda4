/* An engine op's one record, built in C (issue #42).

   Observer.op_dep (observer.py) is called once per engine op while operators are
   profiled. In Python it measured ~6,600 instructions an op under callgrind on the
   custom-op job (two Python frames: its own and records.op_dep; a key lookup; id() of
   every variable; the thread-local buffer's append), about a third of what operators
   mode added to a step. This type does the same in one C call: an instance is
   installed as the observer's ``op_dep`` (observer.py, ``_install_native``) and is
   called exactly as the method is:

       op_dep(name, t0, t1, t_push, t_ready, pusher, reads, writes, attrs=None)

   and appends to the calling thread's event list the very tuple the method appends:

       (OP_DEP, name, OPERATOR, t0, t1, t_push, t_ready, pusher, read_ids, write_ids, key)

   ids: one variable's id() as an int, else a tuple of them (records.var_ids' fields).
   key: op_keys[name] when attrs is None, shaped_keys[(name, attrs)] when attrs is a
   tuple of input shapes, shaped_keys[(name, tuple(attrs.items()))] when attrs is a dict
   (a Gluon layer's op) whose key was given out before; else the Python side
   (``dict_key(name, attrs)``), which stores the new key.
   The buffer: ``local.add`` of recorder.local, the calling thread's ``events.append``. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

typedef struct {
    PyObject_HEAD
    PyObject *kind;         /* records.OP_DEP */
    PyObject *cat;          /* records.OPERATOR */
    PyObject *local;        /* recorder.local (a threading.local with .add) */
    PyObject *op_keys;      /* name -> key (a dict subclass that fills misses) */
    PyObject *shaped_keys;  /* (name, shapes) -> key (the same) */
    PyObject *dict_key;     /* (name, attrs dict) -> key, in Python */
    PyObject *add_name;     /* "add" */
    vectorcallfunc vectorcall;
} OpDep;

static PyObject *
var_ids(PyObject *vars)
{
    PyObject *seq = PySequence_Fast(vars, "op_dep: variables must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out;
    if (n == 1) {
        out = PyLong_FromVoidPtr(items[0]);
    } else {
        out = PyTuple_New(n);
        for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
            PyObject *id = PyLong_FromVoidPtr(items[i]);
            if (id == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyTuple_SET_ITEM(out, i, id);
        }
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *
op_key(OpDep *self, PyObject *name, PyObject *attrs)
{
    if (attrs == Py_None)
        return PyObject_GetItem(self->op_keys, name);
    if (PyTuple_CheckExact(attrs)) {
        PyObject *pair = PyTuple_Pack(2, name, attrs);
        if (pair == NULL)
            return NULL;
        PyObject *key = PyObject_GetItem(self->shaped_keys, pair);
        Py_DECREF(pair);
        return key;
    }
    if (PyDict_CheckExact(attrs)) {
        /* a key given out before: (name, tuple(attrs.items())) is equal to the stored
           (name, OpArgs(attrs.items())) (OpArgs is a tuple) */
        PyObject *items = PyTuple_New(PyDict_GET_SIZE(attrs));
        Py_ssize_t pos = 0, i = 0;
        PyObject *k, *v;
        while (items != NULL && PyDict_Next(attrs, &pos, &k, &v)) {
            PyObject *item = i < PyTuple_GET_SIZE(items) ? PyTuple_Pack(2, k, v) : NULL;
            if (item == NULL) {
                Py_CLEAR(items);
                break;
            }
            PyTuple_SET_ITEM(items, i++, item);
        }
        if (items == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "op_dep: attrs changed size");
            return NULL;
        }
        PyObject *pair = PyTuple_Pack(2, name, items);
        Py_DECREF(items);
        if (pair == NULL)
            return NULL;
        PyObject *key = PyDict_GetItemWithError(self->shaped_keys, pair);   /* borrowed */
        Py_DECREF(pair);
        if (key != NULL) {
            Py_INCREF(key);
            return key;
        }
        if (PyErr_Occurred())
            return NULL;
    }
    /* its first use (the Python side stores it), or another mapping */
    PyObject *args[2] = {name, attrs};
    return PyObject_Vectorcall(self->dict_key, args, 2, NULL);
}

/* Append (OP_DEP, name, OPERATOR, t0, t1, t_push, t_ready, pusher, read_ids, write_ids,
   key) to the calling thread's event list; 0, or -1 with an exception set. */
static int
append_record(OpDep *self, PyObject *name, PyObject *t0, PyObject *t1, PyObject *t_push,
              PyObject *t_ready, PyObject *pusher, PyObject *reads_in,
              PyObject *writes_in, PyObject *attrs)
{
    PyObject *key = op_key(self, name, attrs);
    if (key == NULL)
        return -1;
    PyObject *reads = var_ids(reads_in);
    if (reads == NULL) {
        Py_DECREF(key);
        return -1;
    }
    PyObject *writes = var_ids(writes_in);
    if (writes == NULL) {
        Py_DECREF(key);
        Py_DECREF(reads);
        return -1;
    }
    PyObject *rec = PyTuple_New(11);
    if (rec == NULL) {
        Py_DECREF(key);
        Py_DECREF(reads);
        Py_DECREF(writes);
        return -1;
    }
    PyObject *fields[8] = {self->kind, name, self->cat, t0, t1, t_push, t_ready, pusher};
    for (int i = 0; i < 8; i++) {
        Py_INCREF(fields[i]);
        PyTuple_SET_ITEM(rec, i, fields[i]);
    }
    PyTuple_SET_ITEM(rec, 8, reads);     /* (references moved into the tuple) */
    PyTuple_SET_ITEM(rec, 9, writes);
    PyTuple_SET_ITEM(rec, 10, key);
    /* (read at every record, not kept per thread: a forked child rebinds its thread's
       add, process_tracks.begin_child) */
    PyObject *add = PyObject_GetAttr(self->local, self->add_name);
    if (add == NULL) {
        Py_DECREF(rec);
        return -1;
    }
    PyObject *res = PyObject_CallOneArg(add, rec);
    Py_DECREF(add);
    Py_DECREF(rec);
    if (res == NULL)
        return -1;
    Py_DECREF(res);
    return 0;
}

static PyObject *
OpDep_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                 PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "op_dep: takes positional arguments only");
        return NULL;
    }
    if (nargs != 8 && nargs != 9) {
        PyErr_Format(PyExc_TypeError, "op_dep: takes 8 or 9 arguments (%zd given)", nargs);
        return NULL;
    }
    if (append_record((OpDep *)callable, args[0], args[1], args[2], args[3], args[4],
                      args[5], args[6], args[7], nargs == 9 ? args[8] : Py_None) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* time.perf_counter_ns(), without a Python call */
static PyObject *
perf_counter_ns(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyTime_t t;
    if (PyTime_PerfCounterRaw(&t) < 0)
        return NULL;
    return PyLong_FromLongLong((long long)t);
#else
    return PyLong_FromLongLong((long long)_PyTime_GetPerfCounter());
#endif
}

static PyObject *str_t_ready, *str_pusher, *str_reads, *str_writes;   /* (interned) */

/* op_dep.run_op(fn, args, name, t_push, op, reads, writes, attrs): fn(*args), timed, and its
   record (op None: pushed and run at once here: no ready stamp, no pusher, the given
   variables; else op's t_ready, pusher, reads and writes). Returns the exception fn
   raised (any BaseException, its traceback kept), or None: the engine's _call keeps it
   for the sync point. */
static PyObject *
run_op(PyObject *callable, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_Format(PyExc_TypeError, "run_op: takes 8 arguments (%zd given)", nargs);
        return NULL;
    }
    OpDep *self = (OpDep *)callable;
    PyObject *fn = args[0], *fargs = args[1], *name = args[2], *t_push = args[3];
    PyObject *op = args[4], *reads = args[5], *writes = args[6], *attrs = args[7];
    fargs = PySequence_Tuple(fargs);   /* (a new reference; the tuple itself, usually) */
    if (fargs == NULL)
        return NULL;
    PyObject *t0 = perf_counter_ns();
    if (t0 == NULL) {
        Py_DECREF(fargs);
        return NULL;
    }
    PyObject *exc = Py_None;
    PyObject *res = PyObject_Call(fn, fargs, NULL);
    Py_DECREF(fargs);
    if (res == NULL) {   /* as `except BaseException as e` */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (value == NULL) {
            Py_XDECREF(type);
            Py_XDECREF(tb);
            Py_DECREF(t0);
            PyErr_SetString(PyExc_SystemError, "run_op: an op failed without an exception");
            return NULL;
        }
        if (tb != NULL)
            PyException_SetTraceback(value, tb);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        exc = value;
    } else {
        Py_DECREF(res);
        Py_INCREF(exc);
    }
    PyObject *t1 = perf_counter_ns();
    int rc = -1;
    if (t1 != NULL) {
        if (op == Py_None) {
            rc = append_record(self, name, t0, t1, t_push, Py_None, Py_None, reads, writes,
                               attrs);
        } else {
            PyObject *f[4] = {PyObject_GetAttr(op, str_t_ready),
                              PyObject_GetAttr(op, str_pusher),
                              PyObject_GetAttr(op, str_reads),
                              PyObject_GetAttr(op, str_writes)};
            if (f[0] && f[1] && f[2] && f[3])
                rc = append_record(self, name, t0, t1, t_push, f[0], f[1], f[2], f[3],
                                   attrs);
            for (int i = 0; i < 4; i++)
                Py_XDECREF(f[i]);
        }
    }
    Py_DECREF(t0);
    Py_XDECREF(t1);
    if (rc < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    return exc;
}

static int
OpDep_init(OpDep *self, PyObject *args, PyObject *kwds)
{
    PyObject *kind, *cat, *local, *op_keys, *shaped_keys, *dict_key;
    static char *names[] = {"kind", "cat", "local", "op_keys", "shaped_keys", "dict_key",
                            NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOO:OpDep", names, &kind, &cat,
                                     &local, &op_keys, &shaped_keys, &dict_key))
        return -1;
    if (!PyCallable_Check(dict_key)) {
        PyErr_SetString(PyExc_TypeError, "OpDep: dict_key must be callable");
        return -1;
    }
    PyObject *add_name = PyUnicode_InternFromString("add");
    if (add_name == NULL)
        return -1;
    Py_INCREF(kind); Py_INCREF(cat); Py_INCREF(local);
    Py_INCREF(op_keys); Py_INCREF(shaped_keys); Py_INCREF(dict_key);
    Py_XSETREF(self->kind, kind);
    Py_XSETREF(self->cat, cat);
    Py_XSETREF(self->local, local);
    Py_XSETREF(self->op_keys, op_keys);
    Py_XSETREF(self->shaped_keys, shaped_keys);
    Py_XSETREF(self->dict_key, dict_key);
    Py_XSETREF(self->add_name, add_name);
    self->vectorcall = OpDep_vectorcall;
    return 0;
}

static int
OpDep_traverse(OpDep *self, visitproc visit, void *arg)
{
    Py_VISIT(self->kind);
    Py_VISIT(self->cat);
    Py_VISIT(self->local);
    Py_VISIT(self->op_keys);
    Py_VISIT(self->shaped_keys);
    Py_VISIT(self->dict_key);
    return 0;
}

static int
OpDep_clear(OpDep *self)
{
    Py_CLEAR(self->kind);
    Py_CLEAR(self->cat);
    Py_CLEAR(self->local);
    Py_CLEAR(self->op_keys);
    Py_CLEAR(self->shaped_keys);
    Py_CLEAR(self->dict_key);
    Py_CLEAR(self->add_name);
    return 0;
}

static void
OpDep_dealloc(OpDep *self)
{
    PyObject_GC_UnTrack(self);
    OpDep_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
OpDep_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(self, args, kwargs);
}

static PyMethodDef OpDep_methods[] = {
    {"run_op", (PyCFunction)(void (*)(void))run_op, METH_FASTCALL,
     "run_op(fn, args, name, t_push, op, reads, writes, attrs): fn(*args) timed and "
     "recorded; returns the exception it raised, or None"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject OpDepType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xprof.runtime.profiler._oprecord.OpDep",
    .tp_doc = "An engine op's dependency record, appended to the calling thread's buffer.",
    .tp_basicsize = sizeof(OpDep),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(OpDep, vectorcall),
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)OpDep_init,
    .tp_call = OpDep_call,
    .tp_methods = OpDep_methods,
    .tp_traverse = (traverseproc)OpDep_traverse,
    .tp_clear = (inquiry)OpDep_clear,
    .tp_dealloc = (destructor)OpDep_dealloc,
};


static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_oprecord",
    "An engine op's dependency record built in C (see observer.py).", -1, NULL,
};

PyMODINIT_FUNC
PyInit__oprecord(void)
{
    str_t_ready = PyUnicode_InternFromString("t_ready");
    str_pusher = PyUnicode_InternFromString("pusher");
    str_reads = PyUnicode_InternFromString("reads");
    str_writes = PyUnicode_InternFromString("writes");
    if (!str_t_ready || !str_pusher || !str_reads || !str_writes)
        return NULL;
    if (PyType_Ready(&OpDepType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&OpDepType);
    if (PyModule_AddObject(m, "OpDep", (PyObject *)&OpDepType) < 0) {
        Py_DECREF(&OpDepType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

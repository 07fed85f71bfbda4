/* A memory-profiled array's allocation and release records, in C (issue #42).

   While memory is profiled every new array logs its allocation, (device, nbytes, t_ns),
   and carries a release object whose finalizer logs (device, -nbytes, -1) when the array
   is freed (runtime/ndarray/memlog.py, profiler/memory.py reads the log). In Python
   that is a few statements at allocation and a ``__del__`` frame at every free: ~1.1%
   of the custom-op job's step in instructions, about 2-3% of its CPU time. Here:

       allocated = MemLog(log).allocated     # log: memory.log.extend
       release = allocated(device, nbytes)   # logs the allocation, returns the release

   and the release's deallocation logs the release, with no Python frame. The records
   are the ones the Python fallback (memlog.py) makes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyObject_HEAD
    PyObject *entry;   /* (device, -nbytes, -1) */
    PyObject *log;     /* the log's extend */
} Release;

static void
Release_dealloc(Release *self)
{
    if (self->entry != NULL && self->log != NULL) {
        /* a finalizer may run while an exception is set (as __del__ would): keep it;
           a failing log (interpreter shutdown) is ignored, as the Python one's is */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *res = PyObject_CallOneArg(self->log, self->entry);
        if (res == NULL)
            PyErr_Clear();
        Py_XDECREF(res);
        PyErr_Restore(type, value, tb);
    }
    Py_CLEAR(self->entry);
    Py_CLEAR(self->log);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
Release_get_entry(Release *self, void *closure)
{
    (void)closure;
    PyObject *e = self->entry != NULL ? self->entry : Py_None;
    Py_INCREF(e);
    return e;
}

static PyGetSetDef Release_getset[] = {
    {"entry", (getter)Release_get_entry, NULL, "the release's log entry", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ReleaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xprof.runtime.profiler._memrecord.Release",
    .tp_doc = "A memory-profiled array's release: logs it when freed.",
    .tp_basicsize = sizeof(Release),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)Release_dealloc,
    .tp_getset = Release_getset,
};

typedef struct {
    PyObject_HEAD
    PyObject *log;
} MemLog;

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

/* allocated(device, nbytes): log (device, nbytes, now), return the Release of
   (device, -nbytes, -1) */
static PyObject *
MemLog_allocated(MemLog *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "allocated: takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *dev = args[0];
    PyObject *neg = PyNumber_Negative(args[1]);
    if (neg == NULL)
        return NULL;
    PyObject *minus_one = PyLong_FromLong(-1);
    PyObject *entry = minus_one ? PyTuple_Pack(3, dev, neg, minus_one) : NULL;
    Py_DECREF(neg);
    Py_XDECREF(minus_one);
    if (entry == NULL)
        return NULL;
    Release *rel = PyObject_New(Release, &ReleaseType);
    if (rel == NULL) {
        Py_DECREF(entry);
        return NULL;
    }
    rel->entry = entry;
    rel->log = NULL;   /* (set once the allocation is logged: a failed one logs no release) */
    PyObject *now = perf_counter_ns();
    PyObject *alloc = now ? PyTuple_Pack(3, dev, args[1], now) : NULL;
    Py_XDECREF(now);
    PyObject *res = alloc ? PyObject_CallOneArg(self->log, alloc) : NULL;
    Py_XDECREF(alloc);
    if (res == NULL) {
        Py_DECREF(rel);
        return NULL;
    }
    Py_DECREF(res);
    Py_INCREF(self->log);
    rel->log = self->log;
    return (PyObject *)rel;
}

static PyMethodDef MemLog_methods[] = {
    {"allocated", (PyCFunction)(void (*)(void))MemLog_allocated, METH_FASTCALL,
     "allocated(device, nbytes): log the allocation; return its release (which logs "
     "the release when freed)"},
    {NULL, NULL, 0, NULL},
};

static int
MemLog_init(MemLog *self, PyObject *args, PyObject *kwds)
{
    PyObject *log;
    static char *names[] = {"log", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:MemLog", names, &log))
        return -1;
    if (!PyCallable_Check(log)) {
        PyErr_SetString(PyExc_TypeError, "MemLog: log must be callable");
        return -1;
    }
    Py_INCREF(log);
    Py_XSETREF(self->log, log);
    return 0;
}

static void
MemLog_dealloc(MemLog *self)
{
    Py_CLEAR(self->log);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject MemLogType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xprof.runtime.profiler._memrecord.MemLog",
    .tp_doc = "The memory log's allocation and release records.",
    .tp_basicsize = sizeof(MemLog),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)MemLog_init,
    .tp_dealloc = (destructor)MemLog_dealloc,
    .tp_methods = MemLog_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_memrecord",
    "A memory-profiled array's allocation and release records in C (see memlog.py).",
    -1, NULL,
};

PyMODINIT_FUNC
PyInit__memrecord(void)
{
    if (PyType_Ready(&ReleaseType) < 0 || PyType_Ready(&MemLogType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&MemLogType);
    if (PyModule_AddObject(m, "MemLog", (PyObject *)&MemLogType) < 0) {
        Py_DECREF(&MemLogType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ReleaseType);
    if (PyModule_AddObject(m, "Release", (PyObject *)&ReleaseType) < 0) {
        Py_DECREF(&ReleaseType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

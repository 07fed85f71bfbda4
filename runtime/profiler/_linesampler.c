/* The line sampler's tick loop, in C (optional: sampler.py runs its own Python loop
 * when this module was not built).
 *
 * Why C: a sampler thread must take the GIL to read another thread's frames, and the
 * thread that runs a custom op's pure-Python `forward` gives the GIL up for as long as
 * the sampler holds it. Under ThreadedEngine, measured in one process (docs/lines.md),
 * the call's cost grew with the Python the sampler ran per tick, even Python that
 * touched nothing of the sampled thread: a bare `sys._current_frames()` tick cost
 * x1.04-1.07, the full Python tick x1.06-1.11, a thread that only slept and took the
 * GIL x0.99-1.04. This loop runs no bytecode at all: it waits without the GIL, and a
 * tick holds the GIL only for the C that reads the stacks of the threads in
 * `sampler.running` and appends one record per sampled call, the same records the
 * Python loop makes (records.line_sample: code objects and line numbers).
 *
 * One entry point, run(), called on the sampler's own Python thread; it returns when
 * the stop lock (made by new_stop_lock(), released by stop()) is released. The
 * schedule, the records and the sampler's counters are Sampler._ticks's, with one
 * difference, which the Python loop cannot have: a tick that finds no call running
 * takes no GIL (see the loop). So this loop needs no slow ticking while calls are rare,
 * asks for the GIL only once a call runs (with the switch interval lowered by the
 * call's entry, sampler.enter), and never changes the switch interval itself: the
 * calls' entries and exits do, and Sampler._loop restores it when sampling stops.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>   /* (PyFrame_GetBack on 3.10: not declared by Python.h there) */
#include <pythread.h>
#include <time.h>

#define LOCK_CAPSULE "xprof line sampler stop lock"

/* time.perf_counter_ns() on Linux: CLOCK_MONOTONIC (a call's stamps are compared with
 * the samples' own) */
static long long
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
free_lock(PyObject *capsule)
{
    PyThread_type_lock lock = PyCapsule_GetPointer(capsule, LOCK_CAPSULE);
    if (lock != NULL) {
        PyThread_free_lock(lock);
    }
}

static PyObject *
new_stop_lock(PyObject *module, PyObject *unused)
{
    PyThread_type_lock lock = PyThread_allocate_lock();
    if (lock == NULL) {
        return PyErr_NoMemory();
    }
    PyThread_acquire_lock(lock, WAIT_LOCK);
    PyObject *capsule = PyCapsule_New(lock, LOCK_CAPSULE, free_lock);
    if (capsule == NULL) {
        PyThread_free_lock(lock);
    }
    return capsule;
}

static PyObject *
stop(PyObject *module, PyObject *capsule)
{
    PyThread_type_lock lock = PyCapsule_GetPointer(capsule, LOCK_CAPSULE);
    if (lock == NULL) {
        return NULL;
    }
    PyThread_release_lock(lock);
    Py_RETURN_NONE;
}

/* sampler.<name> += delta (the Python loop's counters, read and written each tick so a
 * reset() between sessions takes effect) */
static int
add_to(PyObject *sampler, PyObject *name, long long delta)
{
    PyObject *old = PyObject_GetAttr(sampler, name);
    if (old == NULL) {
        return -1;
    }
    long long value = PyLong_AsLongLong(old);
    Py_DECREF(old);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *new = PyLong_FromLongLong(value + delta);
    if (new == NULL) {
        return -1;
    }
    int r = PyObject_SetAttr(sampler, name, new);
    Py_DECREF(new);
    return r;
}

static PyThreadState *
thread_state_of(PyInterpreterState *interp, unsigned long ident)
{
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(interp); ts != NULL;
         ts = PyThreadState_Next(ts)) {
        if (ts->thread_id == ident) {
            return ts;
        }
    }
    return NULL;
}

/* (code, line, code, line, ...) of `frame` (stolen) and its callers, from the leaf, up
 * to a frame whose code is in `stops` (excluded) or `max_items` values; `*bottom` says
 * whether the walk ran out of frames without meeting a stop code */
static PyObject *
stack_of(PyFrameObject *frame, PyObject *stops, Py_ssize_t max_items, int *bottom)
{
    PyObject *stack = PyList_New(0);
    if (stack == NULL) {
        Py_DECREF(frame);
        return NULL;
    }
    while (frame != NULL && PyList_GET_SIZE(stack) < max_items) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        int stop_here = PySet_Contains(stops, (PyObject *)code);
        if (stop_here != 0) {
            Py_DECREF(code);
            if (stop_here < 0) {
                goto error;
            }
            break;
        }
        PyObject *line = PyLong_FromLong(PyFrame_GetLineNumber(frame));
        int failed = line == NULL || PyList_Append(stack, (PyObject *)code) < 0
                     || PyList_Append(stack, line) < 0;
        Py_DECREF(code);
        Py_XDECREF(line);
        if (failed) {
            goto error;
        }
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    *bottom = frame == NULL;
    Py_XDECREF(frame);
    PyObject *tuple = PyList_AsTuple(stack);
    Py_DECREF(stack);
    return tuple;
error:
    Py_XDECREF(frame);
    Py_DECREF(stack);
    return NULL;
}

/* Whether a call's sample `stack` holds none of the user's code: the walk met no stop
 * code, or nothing below it, or its outermost frame is xprof's own (`own`: the
 * runtime's folder). Then the thread is in the call's bookkeeping, before or after
 * the user's function: Sampler._ticks drops such samples too. */
static int
outside_user_code(PyObject *stack, int bottom, PyObject *own)
{
    Py_ssize_t n = PyTuple_GET_SIZE(stack);
    if (bottom || n == 0) {
        return 1;
    }
    PyObject *filename = ((PyCodeObject *)PyTuple_GET_ITEM(stack, n - 2))->co_filename;
    return PyUnicode_Check(filename)
           && PyUnicode_Tailmatch(filename, own, 0, PY_SSIZE_T_MAX, -1) == 1;
}

/* One tick's samples: a record for each call in `running` whose thread is in the
 * user's code. Returns the count, -1 on error. */
static Py_ssize_t
sample_calls(PyObject *running, PyObject *stops, PyObject *own, PyObject *line_sample,
             PyObject *category, long long t, long long w, Py_ssize_t max_items)
{
    /* a copy: a record's constructor or an append may let another thread change it */
    PyObject *items = PyDict_Items(running);
    if (items == NULL) {
        return -1;
    }
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    PyObject *t_obj = PyLong_FromLongLong(t);
    PyObject *w_obj = PyLong_FromLongLong(w);
    Py_ssize_t n = -1;
    if (t_obj == NULL || w_obj == NULL) {
        goto done;
    }
    n = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        PyObject *key = PyTuple_GET_ITEM(item, 0);
        PyObject *entry = PyTuple_GET_ITEM(item, 1);
        /* entry: [call number, op name, call start, lines buffer's append, outer, sampled] */
        if (!PyList_Check(entry) || PyList_GET_SIZE(entry) < 6) {
            continue;
        }
        unsigned long ident = PyLong_AsUnsignedLong(key);
        if (ident == (unsigned long)-1 && PyErr_Occurred()) {
            n = -1;
            goto done;
        }
        PyThreadState *ts = thread_state_of(interp, ident);
        if (ts == NULL) {
            continue;
        }
        PyFrameObject *frame = PyThreadState_GetFrame(ts);
        if (frame == NULL) {
            continue;
        }
        int bottom = 0;
        PyObject *stack = stack_of(frame, stops, max_items, &bottom);
        if (stack == NULL) {
            n = -1;
            goto done;
        }
        if (outside_user_code(stack, bottom, own)) {
            Py_DECREF(stack);
            continue;
        }
        Py_INCREF(entry);
        PyObject *record = NULL;
        {
            Py_INCREF(Py_True);
            PyObject *was = PyList_GET_ITEM(entry, 5);
            PyList_SET_ITEM(entry, 5, Py_True);
            Py_DECREF(was);
            PyObject *args[7] = {PyList_GET_ITEM(entry, 1), category, t_obj, w_obj,
                                 PyList_GET_ITEM(entry, 0), PyList_GET_ITEM(entry, 2),
                                 stack};
            for (int k = 0; k < 7; k++) {
                Py_INCREF(args[k]);
            }
            PyObject *add = PyList_GET_ITEM(entry, 3);
            Py_INCREF(add);
            record = PyObject_Vectorcall(line_sample, args, 7, NULL);
            for (int k = 0; k < 7; k++) {
                Py_DECREF(args[k]);
            }
            if (record != NULL) {
                PyObject *r = PyObject_CallOneArg(add, record);
                Py_XDECREF(r);
                if (r == NULL) {
                    Py_CLEAR(record);
                }
            }
            Py_DECREF(add);
        }
        Py_DECREF(stack);
        Py_DECREF(entry);
        if (record == NULL) {
            n = -1;
            goto done;
        }
        Py_DECREF(record);
        n++;
    }
done:
    Py_XDECREF(t_obj);
    Py_XDECREF(w_obj);
    Py_DECREF(items);
    return n;
}

static PyObject *
run(PyObject *module, PyObject *args)
{
    PyObject *sampler, *running, *stops, *own, *line_sample, *category, *capsule;
    long long interval;
    int max_depth;
    if (!PyArg_ParseTuple(args, "OO!O!UOOLiO", &sampler, &PyDict_Type, &running,
                          &PySet_Type, &stops, &own, &line_sample, &category, &interval,
                          &max_depth, &capsule)) {
        return NULL;
    }
    PyThread_type_lock lock = PyCapsule_GetPointer(capsule, LOCK_CAPSULE);
    if (lock == NULL) {
        return NULL;
    }
    if (interval <= 0) {
        PyErr_Format(PyExc_ValueError, "interval_ns %lld: must be > 0", interval);
        return NULL;
    }
    PyObject *names[4] = {PyUnicode_FromString("ticks"), PyUnicode_FromString("samples"),
                          PyUnicode_FromString("gaps"), PyUnicode_FromString("gap_ns")};
    PyObject *result = NULL;
    for (int k = 0; k < 4; k++) {
        if (names[k] == NULL) {
            goto done;
        }
    }
    long long prev = now_ns();
    long long due = prev + interval;   /* a fixed schedule: a late wake-up shortens the next wait */
    int fresh = 1;
    /* the counters' increments since they were last added to the sampler's (with the
     * GIL: at a tick that samples, and at the end) */
    long long ticks = 0, gaps = 0, gap_ns = 0;
    for (;;) {
        PyLockStatus got;
        long long t = 0, w = 0;
        int gapped = 0;
        Py_BEGIN_ALLOW_THREADS
        for (;;) {
            long long wait = due - now_ns();
            got = PyThread_acquire_lock_timed(lock, wait > 0 ? wait / 1000 : 0, 0);
            if (got == PY_LOCK_ACQUIRED) {
                break;
            }
            t = now_ns();
            due += interval;
            if (due <= t) {   /* more than a tick late (the GIL was held): the next from now */
                due = t + interval;
            }
            w = t - prev;
            gapped = !fresh;
            if (gapped) {
                gaps++;
                gap_ns += w;
            }
            fresh = 0;
            prev = t;
            ticks++;
            /* No call running: nothing to read, and the GIL is not taken. A sampler
             * waiting for the GIL while the script runs Python outside custom ops waits
             * with Python's own switch interval (5 ms), which a call's entry lowers too
             * late for it: it missed short calls that began meanwhile (a NaiveEngine
             * backward of 3 ms was sampled in 5-7 of 12 steps of a Gluon job), and its
             * late sample gave the ms it waited to whatever line the call was at then.
             * Waiting here instead, it asks for the GIL once a call runs, the switch
             * interval lowered by the call's entry. The size is read without the GIL:
             * a stale value only delays a sample by one tick or takes the GIL once for
             * nothing. (The Python loop cannot wait so: it ticks slowly when idle.) */
            if (PyDict_GET_SIZE(running) != 0) {
                break;
            }
        }
        Py_END_ALLOW_THREADS
        if (got != PY_LOCK_ACQUIRED) {   /* the stamp is when the stacks are read, the GIL held */
            long long late = now_ns() - t;
            t += late;
            w += late;
            prev = t;
            if (gapped) {
                gap_ns += late;
            }
        }
        if ((ticks && add_to(sampler, names[0], ticks) < 0)
            || (gaps && (add_to(sampler, names[2], gaps) < 0
                         || add_to(sampler, names[3], gap_ns) < 0))) {
            goto done;
        }
        ticks = gaps = gap_ns = 0;
        if (got == PY_LOCK_ACQUIRED) {
            break;
        }
        Py_ssize_t n = sample_calls(running, stops, own, line_sample, category, t, w,
                                    2 * (Py_ssize_t)max_depth);
        if (n < 0 || add_to(sampler, names[1], n) < 0) {
            goto done;
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int k = 0; k < 4; k++) {
        Py_XDECREF(names[k]);
    }
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(sampler, running, stop_codes, own_folder, line_sample, category, interval_ns,"
     " max_depth, stop_lock): tick until stop(stop_lock)"},
    {"new_stop_lock", new_stop_lock, METH_NOARGS, "a stop lock for one run()"},
    {"stop", stop, METH_O, "stop(stop_lock): the run() waiting on it returns"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_linesampler",
    .m_doc = "The line sampler's tick loop in C (see sampler.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__linesampler(void)
{
    return PyModule_Create(&module);
}

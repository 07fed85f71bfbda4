/* `xprof run --slow`'s delay: a timed busy wait that does not hold the GIL.
 *
 * Why C: an op slowed for an experiment must cost what a slower kernel would. numpy's
 * kernels release the GIL, so a slower one keeps its core busy and lets Python threads
 * run; a Python busy loop would hold the GIL and stall the thread pushing ops (a
 * different slowdown from the one predicted), and time.sleep gives the core away and
 * wakes up late on a loaded machine. spin(ns) releases the GIL and spins on the
 * monotonic clock until ns have passed (runtime/slow.py falls back to a Python loop
 * where this module was not built). It returns how long past the end the GIL took to
 * come back: a slower kernel takes the GIL back once, the wait after it once more, and
 * runtime/slow.py takes that second hand-off out of the next wait it gives.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static PyObject *spin(PyObject *self, PyObject *arg)
{
    long long ns = PyLong_AsLongLong(arg);
    if (ns == -1 && PyErr_Occurred())
        return NULL;
    long long end = 0;
    if (ns > 0) {
        Py_BEGIN_ALLOW_THREADS
        end = now_ns() + ns;
        while (now_ns() < end)
            ;
        Py_END_ALLOW_THREADS
        return PyLong_FromLongLong(now_ns() - end);
    }
    return PyLong_FromLongLong(0);
}

static PyMethodDef methods[] = {
    {"spin", spin, METH_O, "spin(ns): busy-wait ns nanoseconds without the GIL; the ns past them until the GIL "
     "was back."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_spin", "A timed busy wait without the GIL (xprof run --slow).",
    -1, methods
};

PyMODINIT_FUNC PyInit__spin(void)
{
    return PyModule_Create(&module);
}

"""``mx.mon`` / ``mx.monitor``: statistics of every array an executor computes.

``Monitor(interval, stat_func, pattern)`` is installed on executors
(``Module.install_monitor``); between ``tic()`` and ``toc()`` of every ``interval``-th
batch, each node output (and, with ``monitor_all``, each node input) the executor
produces is passed to ``stat_func`` (default: ``norm(x) / sqrt(size)``) as it is
pushed, and ``toc()`` adds the arguments' statistics and returns ``(step, name,
text)`` rows. A monitored executor runs one engine op per node (no bulk segments), so
every array exists to be looked at.
"""
import logging
import math
import re

from .base import py_str
from .ndarray import ndarray as _nd

__all__ = ["Monitor"]


def _default_stat(x):
    return _nd.invoke("norm", (x,), {}) / math.sqrt(max(x.size, 1))


class Monitor:
    """Collect ``stat_func`` of the arrays whose names match ``pattern``."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.stat_func = stat_func if stat_func is not None else _default_stat
        self.interval = int(interval)
        if self.interval < 1:
            raise ValueError(f"Monitor: interval={interval!r} must be at least 1")
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array):
        """The executors' callback: one statistic per matching array."""
        if not self.activated:
            return
        name = py_str(name)
        if not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting if this batch is an ``interval``-th one."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; the ``(step, name, text)`` rows (arguments included)."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda row: row[1])
        res = []
        for n, k, values in self.queue:
            if isinstance(values, _nd.NDArray):
                values = [values]
            text = ""
            for v in values:
                if v.size == 1:
                    text += str(v.asscalar()) + "\t"
                else:
                    text += str(v.asnumpy()) + "\t"
            res.append((n, k, text))
        self.queue = []
        return res

    def toc_print(self):
        for n, k, v in self.toc():
            logging.info("Batch: %7d %30s %s", n, k, v)

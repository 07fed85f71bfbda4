"""User-level profiling objects, shaped like MXNet's: Domain, Task, Frame, Event,
Counter, Marker and Scope.

Each records into the calling thread's buffer, only while the profiler records. Tasks
and frames may start and stop on different threads, so they are async (``b``/``e``)
events keyed by an id; an Event is a slice on its thread; a Counter is a ``C`` series.
"""
import itertools
import numbers
import threading
from time import perf_counter_ns

from . import memory, records
from .observer import flags, observer

_ids = itertools.count(1)
_MARKER_SCOPES = {"global": "g", "process": "p", "thread": "t"}


def _name(value, what):
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} name {value!r} is not allowed; use a non-empty string")
    return value


class Domain:
    """A named category; its tasks, frames, counters and markers appear under it."""

    def __init__(self, name):
        self.name = _name(name, "Domain")

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Domain({self.name!r})"


def _check_domain(domain):
    if not isinstance(domain, Domain):
        raise ValueError(f"domain {domain!r} is not allowed; use a profiler.Domain")
    return domain


class _Span:
    """start()/stop() pair, also usable as a context manager."""

    def __init__(self, name):
        self.name = _name(name, type(self).__name__)
        self._t0 = None

    def start(self):
        if self._t0 is not None:
            raise ValueError(f"{type(self).__name__} {self.name!r} is already started")
        self._t0 = perf_counter_ns()
        self._on_start(self._t0)

    def stop(self):
        if self._t0 is None:
            raise ValueError(f"{type(self).__name__} {self.name!r} was not started")
        t0, self._t0 = self._t0, None
        self._on_stop(t0, perf_counter_ns())

    def _on_start(self, t0):
        pass

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def __str__(self):
        return self.name


class _AsyncSpan(_Span):
    def __init__(self, domain, name):
        super().__init__(name)
        self.domain = _check_domain(domain)
        self._id = None

    def _on_start(self, t0):
        self._id = next(_ids)
        if flags.recording:
            observer.async_begin(self.name, self.domain.name, t0, self._id)
            self._recorded = True
        else:
            self._recorded = False

    def _on_stop(self, t0, t1):
        if self._recorded:
            observer.async_end(self.name, self.domain.name, t1, self._id)


class Task(_AsyncSpan):
    """A unit of work in a domain (may end on another thread)."""


class Frame(_AsyncSpan):
    """One iteration of a repeated activity (a training step, a video frame)."""


class Event(_Span):
    """A named slice on the calling thread, in category ``Event``."""

    def _on_stop(self, t0, t1):
        if flags.recording:
            observer.slice(self.name, records.EVENT, t0, t1)


class Counter:
    """A numeric series: ``set_value``, ``increment``, ``decrement``, ``+=``, ``-=``."""

    def __init__(self, domain, name, value=None):
        self.domain = _check_domain(domain)
        self.name = _name(name, "Counter")
        self._lock = threading.Lock()
        self.value = 0
        if value is not None:
            self.set_value(value)

    @staticmethod
    def _number(value):
        if type(value) is int or type(value) is float:
            return value
        # numpy scalars (np.int64 from a shape or a sum) count too, as in MXNet
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"counter value {value!r} is not allowed; use an int or float")
        return value.item() if hasattr(value, "item") else value

    def _record(self, value):
        if flags.recording:
            observer.counter(self.name, self.domain.name, value)

    def set_value(self, value):
        value = self._number(value)
        with self._lock:
            self.value = value
            self._record(value)

    def increment(self, delta=1):
        delta = self._number(delta)
        with self._lock:
            self.value += delta
            self._record(self.value)

    def decrement(self, delta=1):
        delta = self._number(delta)
        with self._lock:
            self.value -= delta
            self._record(self.value)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


class Marker:
    """An instant event; ``mark(scope)`` with scope 'global', 'process' or 'thread'."""

    def __init__(self, domain, name):
        self.domain = _check_domain(domain)
        self.name = _name(name, "Marker")

    def mark(self, scope="process"):
        if scope not in _MARKER_SCOPES:
            raise ValueError(f"marker scope {scope!r} is not allowed; use 'global', "
                             "'process' or 'thread'")
        if flags.recording:
            observer.instant(self.name, self.domain.name, _MARKER_SCOPES[scope])


class Scope:
    """Names the memory allocations made inside it (the CSV's attribute names)."""

    def __init__(self, name="<unk>:", append_mode=True):
        if not isinstance(name, str) or not name.strip(":"):
            raise ValueError(f"Scope name {name!r} is not allowed; use a non-empty string")
        self.name = name.rstrip(":")
        self.append_mode = append_mode

    def __enter__(self):
        st = memory.scope_stack
        outer = st.names
        name = self.name
        if self.append_mode and outer:
            name = outer[-1] + ":" + name
        st.names = outer + (name,)
        return self

    def __exit__(self, *exc):
        memory.scope_stack.names = memory.scope_stack.names[:-1]
        return False

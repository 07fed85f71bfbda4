"""``mx.name``: how unnamed symbols are named (``fullyconnected0``), as in MXNet.

A :class:`NameManager` gives out ``<hint><n>`` with one counter per hint; ``with
NameManager():`` starts fresh counters for the block, ``with Prefix('net_'):`` also puts a
prefix in front of every node name made inside it. Outside any block the process-wide
default manager is used (its counters restart with ``mx.sym.symbol.reset_names()``).
As in MXNet 1.9.1, the current manager is per thread and is also the class attribute
``NameManager.current`` (readable and assignable: ``NameManager.current = NameManager()``
changes this thread's manager only).
"""
import threading

from ._current import class_attribute_meta

__all__ = ["NameManager", "Prefix", "current"]


def _set_current(manager):
    _state.manager = manager


class NameManager(metaclass=class_attribute_meta(
        "current", lambda: current(), _set_current,
        "NameManager.current: this thread's manager")):
    """Names for nodes created while it is current."""

    def __init__(self):
        self._counter = {}
        self._lock = threading.Lock()
        self._previous = None

    def get(self, name, hint):
        """``name`` when given, else ``<hint><n>`` with this manager's counter for hint."""
        if name:
            return name
        with self._lock:
            n = self._counter.get(hint, 0)
            self._counter[hint] = n + 1
        return f"{hint}{n}"

    def reset(self):
        with self._lock:
            self._counter.clear()

    def __enter__(self):
        self._previous = current()
        _state.manager = self
        return self

    def __exit__(self, *exc):
        _state.manager = self._previous
        self._previous = None


class Prefix(NameManager):
    """A manager that puts ``prefix`` in front of every name it gives or passes on."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


class _State(threading.local):
    manager = None


_state = _State()
_default = NameManager()


def current():
    """The manager names come from on this thread."""
    return _state.manager or _default


def reset_default():
    _default.reset()

"""``mx.name``: how unnamed symbols are named (``fullyconnected0``), as in MXNet.

A :class:`NameManager` gives out ``<hint><n>`` with one counter per hint; ``with
NameManager():`` starts fresh counters for the block, ``with Prefix('net_'):`` also puts a
prefix in front of every node name made inside it. Outside any block the process-wide
default manager is used (its counters restart with ``mx.sym.symbol.reset_names()``).
"""
import threading

__all__ = ["NameManager", "Prefix", "current"]


class NameManager:
    """Names for nodes created while it is current."""

    def __init__(self):
        self._counts = {}
        self._lock = threading.Lock()
        self._previous = None

    def get(self, name, hint):
        """``name`` when given, else ``<hint><n>`` with this manager's counter for hint."""
        if name:
            return name
        with self._lock:
            n = self._counts.get(hint, 0)
            self._counts[hint] = n + 1
        return f"{hint}{n}"

    def reset(self):
        with self._lock:
            self._counts.clear()

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

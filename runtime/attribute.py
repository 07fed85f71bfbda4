"""``mx.attribute``: ``with mx.AttrScope(ctx_group='dev1'):`` attaches attributes to
every symbol created inside the block, as in MXNet (values are strings; an inner scope
adds to and overrides the outer one's). Stored in the nodes' ``attr`` and written to the
symbol JSON; xprof runs everything on the CPU, so ``ctx_group`` does not move work. The current scope is per thread and, as in MXNet
1.9.1, also the assignable class attribute ``AttrScope.current``."""
import threading

from ._current import class_attribute_meta

__all__ = ["AttrScope", "current"]


def _set_current(scope):
    _state.scope = scope


class AttrScope(metaclass=class_attribute_meta(
        "current", lambda: current(), _set_current,
        "AttrScope.current: this thread's attribute scope")):
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError(f"AttrScope: attribute {k}={v!r} must be a string")
        self._attr = kwargs
        self._previous = None

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (a dict, or None)."""
        if not self._attr:
            return dict(attr or {})
        merged = dict(self._attr)
        merged.update(attr or {})
        return merged

    def __enter__(self):
        self._previous = current()
        outer = self._previous._attr if self._previous is not None else {}
        self._attr = dict(outer, **self._attr)
        _state.scope = self
        return self

    def __exit__(self, *exc):
        _state.scope = self._previous
        self._previous = None


class _State(threading.local):
    scope = None


_state = _State()
_empty = AttrScope()


def current():
    return _state.scope or _empty

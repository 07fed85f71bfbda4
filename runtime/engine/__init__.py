"""The process's engine: chosen by ``XPROF_ENGINE_TYPE`` (alias ``MXNET_ENGINE_TYPE``).

``get()`` returns the current engine. ``set_engine_type`` swaps it (after draining the
old one); tests use it to run the same code on both engines.
"""
import atexit
import os

from .. import _env
from .base import (MODE_IMPERATIVE, MODE_INTERNAL, MODE_SYMBOLIC, Engine, Var, attribution,
                   thread_state)
from .naive import NaiveEngine
from .threaded import ThreadedEngine

__all__ = ["get", "set_engine_type", "engine_type", "Engine", "Var", "ThreadedEngine",
           "NaiveEngine", "attribution", "thread_state", "MODE_SYMBOLIC",
           "MODE_IMPERATIVE", "MODE_INTERNAL", "ENGINE_TYPES"]

ENGINE_TYPES = ("ThreadedEngine", "NaiveEngine")
# MXNet's other engine names behave like the threaded engine here.
_ALIASES = {"ThreadedEnginePerDevice": "ThreadedEngine", "ThreadedEnginePooled": "ThreadedEngine"}


def _make(kind):
    kind = _ALIASES.get(kind, kind)
    if kind == "NaiveEngine":
        return NaiveEngine()
    if kind == "ThreadedEngine":
        workers = _env.get_int("CPU_WORKER_NTHREADS", max(1, min(4, os.cpu_count() or 1)))
        threshold = _env.get_int("ENGINE_INLINE_THRESHOLD", 1 << 16)
        return ThreadedEngine(num_workers=workers, inline_threshold=threshold)
    raise ValueError(f"engine type {kind!r} is not known; use one of {', '.join(ENGINE_TYPES)}")


_engine = _make(_env.get("ENGINE_TYPE", "ThreadedEngine"))
_hooks = []  # callables(engine) run when the engine is replaced (profiler re-attaches)


def get():
    return _engine


def engine_type():
    return _engine.name


def on_engine_change(hook):
    _hooks.append(hook)


def set_engine_type(kind):
    """Replace the process's engine; pending work on the old one is finished first."""
    global _engine
    new = _make(kind)
    old = _engine
    try:
        old.wait_all()
    finally:
        old.shutdown()
        new.observer, new.profile_mask = old.observer, old.profile_mask
        _engine = new
        for hook in _hooks:
            hook(new)
    return new


def _shutdown_at_exit():
    # Bounded: interpreter exit never hangs on a stuck op; queued work gets a fair chance
    # to finish so that profiles written at exit are complete.
    _engine.shutdown(timeout=_env.get_int("ENGINE_EXIT_TIMEOUT", 30))


atexit.register(_shutdown_at_exit)

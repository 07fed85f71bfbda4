"""``mx.profiler``: MXNet-1.x-shaped profiler API over xprof's engine and recorder.

Data flows one way: the engine and the NDArray layer record raw tuples
(:mod:`.recorder`), :mod:`.chrome` turns them into the trace file, :mod:`.stats`
aggregates them (the same code ``xprof stats`` runs on files).
"""
import contextlib

from .config import MODE_ALL, MODE_API, MODE_IMPERATIVE, MODE_MEMORY, MODE_SYMBOLIC
from .objects import Counter, Domain, Event, Frame, Marker, Scope, Task
from .session import (dump, dumps, get_config, get_mode, is_recording, pause, resume,
                      set_config, set_state, state)


@contextlib.contextmanager
def scope(name="<unk>:", append_mode=True):
    """MXNet's function form of :class:`Scope`: names the allocations made inside it and
    yields ``name`` ending in ':' as MXNet does (``with mx.profiler.scope('layer1'):``)."""
    with Scope(name, append_mode):
        yield name if name.endswith(":") else name + ":"


def set_kvstore_handle(handle):
    """MXNet API for profiling a parameter server; xprof has none, so nothing to do."""


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """MXNet's deprecated form: ``mode`` is 'symbolic' or 'all'."""
    if mode not in ("symbolic", "all"):
        raise ValueError(f"profiler_set_config: mode={mode!r} is not allowed; use "
                         "'symbolic' or 'all'")
    set_config(profile_all=(mode == "all"), filename=filename)


def profiler_set_state(state="stop"):
    set_state(state)


def dump_profile():
    dump(True)


__all__ = ["set_config", "set_state", "state", "pause", "resume", "dump", "dumps",
           "get_config", "get_mode", "is_recording", "Domain", "Task", "Frame", "Event",
           "Counter", "Marker", "Scope", "MODE_SYMBOLIC", "MODE_IMPERATIVE", "MODE_API",
           "MODE_MEMORY", "MODE_ALL", "profiler_set_config", "profiler_set_state",
           "dump_profile", "scope", "set_kvstore_handle"]

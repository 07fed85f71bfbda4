"""Readers: pure functions (no click) from trace files and logs to events, checks and statistics.

:func:`stats_module` gives the shared aggregator ``xprof/runtime/profiler/stats.py``
loaded on its own.  Why not a plain import: importing ``xprof.runtime.profiler.stats``
runs ``xprof/runtime/__init__.py`` first, which boots the engine (~0.25 s, numpy) and,
with ``XPROF_PROFILER_AUTOSTART=1`` in the environment, would start profiling the CLI
itself and dump a ``profile.json`` at exit — possibly over the file being read.  The
module is pure, so loading its file directly runs exactly the same code.
"""
from __future__ import annotations

import importlib.util
import os
import sys



def stats_module():
    """The ``xprof.runtime.profiler.stats`` module, without importing ``xprof.runtime``."""
    return profiler_module("stats")


def profiler_module(name):
    """The pure module ``xprof.runtime.profiler.<name>`` (stats, selftime, callstats),
    loaded without importing ``xprof.runtime``."""
    key = f"_xprof_profiler_{name}"
    mod = sys.modules.get(key)
    if mod is not None:
        return mod
    path = None
    try:
        spec = importlib.util.find_spec("xprof.runtime")  # locates, does not execute
        if spec is not None and spec.submodule_search_locations:
            path = os.path.join(list(spec.submodule_search_locations)[0], "profiler",
                                f"{name}.py")
    except (ImportError, ValueError):
        path = None
    if path is None or not os.path.isfile(path):
        return importlib.import_module(f"xprof.runtime.profiler.{name}")  # unusual install
    spec = importlib.util.spec_from_file_location(key, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    spec.loader.exec_module(mod)
    return mod

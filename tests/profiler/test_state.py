"""Profiler state is one object: the public API changes it and announces the change, and
the concerns that follow it (engine hook, continuous dump, exits, xprof run hand-over)
react; no profiler module keeps its state in module globals."""
import ast
import os

import xprof.runtime as mx
from xprof.runtime import engine as engine_mod
from xprof.runtime.profiler.observer import flags, observer
from xprof.runtime.profiler.state import state

from proftools import REPO


def test_no_profiler_module_rebinds_a_global():
    folder = os.path.join(REPO, "runtime", "profiler")
    found = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            found += [f"{name}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.Global)]
    assert found == []


def test_calls_change_the_one_state_and_listeners_see_each_change(prof):
    seen = []

    def listener(st, change, **details):
        seen.append((change, st.state, st.paused, st.recording))

    state.subscribe(listener)
    try:
        prof.start(profile_imperative=True)
        assert engine_mod.get().observer is observer and flags.recording
        mx.profiler.pause()
        assert engine_mod.get().observer is None and not flags.recording
        mx.profiler.resume()
        assert engine_mod.get().profile_mask == observer.mask != 0
        mx.nd.ones((2,)).wait_to_read()
        mx.profiler.dump(finished=True)
        assert engine_mod.get().observer is None and state.state == "stop"
    finally:
        state._listeners.remove(listener)
    changes = [c for c, *_ in seen]
    assert changes == ["config", "run", "pause", "resume", "finishing", "dumped", "finish"]
    assert seen[1][1:] == ("run", False, True) and seen[2][1:] == ("run", True, False)
    assert seen[-1][1:] == ("stop", False, False)


def test_continuous_dump_follows_the_state(prof, tmp_path):
    from xprof.runtime.profiler import session
    (flusher,) = [x for x in state._listeners if type(x).__name__ == "ContinuousDump"]
    prof.start(continuous_dump=True, dump_period=60)
    assert flusher.thread is not None and flusher.thread.is_alive()
    mx.profiler.set_state("stop")
    assert flusher.thread is None
    prof.start(continuous_dump=False)
    assert flusher.thread is None
    assert session.state() == "run"

"""Fixtures for the Gluon tests: a clean profiler session in tmp_path, and engine
switching restored afterwards (see gluonhelpers.py for the shared model and data)."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import xprof.runtime as mx  # noqa: E402
import xprof.runtime.engine as engine_mod  # noqa: E402
from xprof.runtime import _native  # noqa: E402


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """OpenBLAS at one thread during these tests: the engine's workers already use the
    cores, and on a loaded machine OpenBLAS's spinning threads make the CNN tests 5-10x
    slower (see runtime/_native.py). Restored afterwards."""
    before = _native.get_num_threads()
    if before is not None and before != 1:
        _native.set_num_threads(1)
    yield
    if before is not None and before != 1:
        _native.set_num_threads(before)


def _reset_profiler(tmp_path):
    try:
        mx.nd.waitall()
    except Exception:  # noqa: BLE001 - an error left by an earlier test is not ours
        pass
    mx.profiler.set_state("stop")
    mx.profiler.set_config(filename=str(tmp_path / "reset-profile.json"))
    mx.profiler.dump(finished=True)
    mx.profiler.set_config()


class Profile:
    """Record a block of code; ``events()`` returns the trace's complete events."""

    def __init__(self, tmp_path):
        self.path = str(tmp_path / "trace.json")
        self.doc = None

    def __enter__(self):
        mx.profiler.set_config(profile_all=True, filename=self.path)
        mx.profiler.set_state("run")
        return self

    def __exit__(self, *exc):
        mx.nd.waitall()
        mx.profiler.set_state("stop")
        mx.profiler.dump(finished=True)
        with open(self.path, "rb") as f:
            self.doc = json.loads(f.read())
        return False

    def events(self, cat=None):
        return [e for e in self.doc["traceEvents"] if e.get("ph") == "X"
                and (cat is None or e.get("cat") == cat)]


@pytest.fixture
def profile(tmp_path):
    _reset_profiler(tmp_path)
    yield lambda: Profile(tmp_path)
    _reset_profiler(tmp_path)


@pytest.fixture
def engines():
    """Call ``engines(kind)`` to switch engine within a test; ThreadedEngine after."""
    def switch(kind):
        if engine_mod.engine_type() != kind:
            engine_mod.set_engine_type(kind)
    yield switch
    if engine_mod.engine_type() != "ThreadedEngine":
        engine_mod.set_engine_type("ThreadedEngine")

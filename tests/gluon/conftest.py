"""Fixtures for the Gluon tests: one BLAS thread, and a clean profiler session in
tmp_path (see gluonhelpers.py for the shared model and data; engine switching is the
root conftest's ``on_engine``)."""
import json
import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "profiler"))

import xprof.runtime as mx  # noqa: E402
from proftools import reset_profiler  # noqa: E402
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
    reset_profiler(tmp_path)
    yield lambda: Profile(tmp_path)
    reset_profiler(tmp_path)

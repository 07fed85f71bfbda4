"""Shared fixtures: run a test on both engines, and helpers for engine-level tests.

``engine`` parametrizes a test over ``NaiveEngine`` and ``ThreadedEngine`` (installed
with :func:`xprof.runtime.engine.set_engine_type`) and puts the default
``ThreadedEngine`` back afterwards. ``threaded_engine`` is for tests about real
concurrency, which only the threaded engine has.
"""
import faulthandler
import os
import subprocess
import sys
import threading

import pytest
from hypothesis import settings

import xprof.runtime.engine as engine_mod

# The suite is CI's gate, so its property tests draw the same examples on every run
# (a red run can be replayed); ``pytest --hypothesis-profile=explore`` draws new ones.
settings.register_profile("gate", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("gate")

ENGINES = ("NaiveEngine", "ThreadedEngine")


def _install(kind):
    engine_mod.set_engine_type(kind)
    return engine_mod.get()


def _restore():
    # Restore the default engine; an error the test left unreported fails teardown.
    engine_mod.set_engine_type("ThreadedEngine")


# A deadlocked engine would hang the run; instead, print every thread's stack and exit.
HANG_LIMIT = int(os.environ.get("XPROF_TEST_HANG_LIMIT", "300"))


@pytest.fixture
def hang_guard():
    faulthandler.dump_traceback_later(HANG_LIMIT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(params=ENGINES)
def engine(request, hang_guard):
    """The process's engine, of each type in turn."""
    eng = _install(request.param)
    assert eng.name == request.param
    yield eng
    _restore()


@pytest.fixture
def on_engine():
    """Switch the engine for one test (``on_engine('NaiveEngine')``); restored after."""
    yield _install
    if engine_mod.engine_type() != "ThreadedEngine":
        _restore()


@pytest.fixture
def threaded_engine(hang_guard):
    eng = _install("ThreadedEngine")
    yield eng
    _restore()


class Gate:
    """A threading.Event for an op to block on.

    Under NaiveEngine an op runs inside ``push`` on the pushing thread, so a gate that
    the test opens later would deadlock: there the gate starts open and ordering is
    checked without blocking.
    """

    def __init__(self, eng):
        self.event = threading.Event()
        if eng.name == "NaiveEngine":
            self.event.set()

    def wait(self):
        assert self.event.wait(60), "gate never opened (test deadlock)"

    def open(self):
        self.event.set()


@pytest.fixture
def gate_factory(engine):
    return lambda: Gate(engine)


def _run_python(code, env_extra=None, timeout=60):
    """Run ``code`` in a fresh interpreter (no XPROF_/MXNET_ settings inherited, plus
    ``env_extra``); return the CompletedProcess. A hang raises
    ``subprocess.TimeoutExpired``, which fails the test."""
    env = dict(os.environ)
    for key in list(env):
        if key.startswith(("XPROF_", "MXNET_")):
            del env[key]
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def run_python():
    return _run_python

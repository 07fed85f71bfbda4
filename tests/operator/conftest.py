"""Fixtures for the custom-operator tests: the operators themselves (registered afresh
for every test, so another test module registering the same name cannot change what
these tests run), a clean profiler session, and engine switching."""
import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "profiler"))

import proftools  # noqa: E402
from customop_defs import OPS, ScaleProp, register_all  # noqa: E402


@pytest.fixture(autouse=True)
def custom_ops():
    register_all()
    ScaleProp.received.clear()
    yield OPS


# -- profiler and engines -------------------------------------------------------------------
@pytest.fixture
def prof(tmp_path):
    proftools.reset_profiler(tmp_path)
    session = proftools.Session(tmp_path)
    yield session
    proftools.reset_profiler(tmp_path)

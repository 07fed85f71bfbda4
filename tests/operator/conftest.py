"""Fixtures for the custom-operator tests: the operators themselves (registered afresh
for every test, so another test module registering the same name cannot change what
these tests run) and the clean profiler session (`prof`, from proftools)."""
import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "profiler"))

from customop_defs import OPS, ScaleProp, register_all  # noqa: E402
from proftools import prof  # noqa: E402,F401 - the fixture, defined once


@pytest.fixture(autouse=True)
def custom_ops():
    register_all()
    ScaleProp.received.clear()
    yield OPS


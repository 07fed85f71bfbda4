"""The clean profiler session (`prof`, from tests/profiler/proftools.py) for the mx.io
tests that look at what a batch records."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "profiler"))

from proftools import prof  # noqa: E402,F401 - the fixture, defined once

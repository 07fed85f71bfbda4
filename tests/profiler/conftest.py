"""Fixtures for the profiler tests.

The profiler is one per process, so every test starts and ends with a clean session:
stopped, nothing recorded, default configuration, and the trace going to the test's
tmp_path (never to a profile.json in the working directory).
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import proftools  # noqa: E402


@pytest.fixture
def prof(tmp_path):
    proftools.reset_profiler(tmp_path)
    session = proftools.Session(tmp_path)
    yield session
    proftools.reset_profiler(tmp_path)

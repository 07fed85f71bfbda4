"""Fixtures for the profiler tests.

The profiler is one per process, so every test starts and ends with a clean session:
stopped, nothing recorded, default configuration, and the trace going to the test's
tmp_path (never to a profile.json in the working directory).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from proftools import prof  # noqa: E402,F401 - the fixture, defined once

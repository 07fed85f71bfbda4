"""Fixtures of the CLI tests: the shared trace and log fixtures (skipped when absent)."""
from __future__ import annotations

import pytest

from cli_helpers import ONEDNN, TRACES


@pytest.fixture
def traces_dir():
    if not TRACES.is_dir():
        pytest.skip(f"shared fixtures not found at {TRACES} (expected <repo>/../shared/fixtures)")
    return TRACES


@pytest.fixture
def onednn_dir():
    if not ONEDNN.is_dir():
        pytest.skip(f"shared fixtures not found at {ONEDNN} (expected <repo>/../shared/fixtures)")
    return ONEDNN

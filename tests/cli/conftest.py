"""Fixtures of the CLI tests: the reader fixtures in tests/fixtures/ (traces and oneDNN logs)."""
from __future__ import annotations

import pytest

from cli_helpers import ONEDNN, TRACES


@pytest.fixture
def traces_dir():
    assert TRACES.is_dir(), f"reader fixtures missing at {TRACES}"
    return TRACES


@pytest.fixture
def onednn_dir():
    assert ONEDNN.is_dir(), f"reader fixtures missing at {ONEDNN}"
    return ONEDNN

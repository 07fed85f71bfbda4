"""Fixtures for the symbol tests: a clean bulk-execution environment and a profiler
session writing to a temporary file."""
import pytest

from symhelpers import Trace

BULK_VARS = ("EXEC_BULK_EXEC_INFERENCE", "EXEC_BULK_EXEC_TRAIN",
             "EXEC_BULK_EXEC_MAX_NODE_TRAIN", "EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD",
             "EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD", "EXEC_BULK_EXEC_MAX_NODE_INFERENCE")


@pytest.fixture(autouse=True)
def clean_bulk_env(monkeypatch):
    """Every test starts with the bulk settings at their defaults."""
    for name in BULK_VARS:
        monkeypatch.delenv("XPROF_" + name, raising=False)
        monkeypatch.delenv("MXNET_" + name, raising=False)
    yield monkeypatch


@pytest.fixture
def trace(tmp_path):
    return Trace(tmp_path / "p.json")

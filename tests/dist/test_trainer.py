"""gluon.Trainer (and Module.fit) with kvstore="dist_sync" / "dist_device_sync" on 2
ranks: after the steps every rank's parameters are equal, and equal to one process
stepping on the sum of the ranks' gradients (MXNet's server-side update)."""
from __future__ import annotations

import numpy as np
import pytest

from dist_helpers import run_job


@pytest.mark.parametrize("kind,on_kv", [("dist_sync", "none"), ("dist_sync", "0"),
                                        ("dist_device_sync", "1")])
def test_parameters_equal_after_steps(tmp_path, kind, on_kv):
    res = run_job(tmp_path, "trainer.py", 2, kind, on_kv)
    assert res.returncode == 0, res.stderr
    p0, p1 = (np.load(tmp_path / f"params{r}.npy") for r in (0, 1))
    np.testing.assert_array_equal(p0, p1)
    assert not np.allclose(p0, 0.1)                      # it did train
    np.testing.assert_allclose(p0, np.load(tmp_path / "reference.npy"), rtol=1e-5,
                               atol=1e-6)


def test_module_fit_on_dist_sync_keeps_ranks_equal(tmp_path):
    res = run_job(tmp_path, "module_fit.py", 2)
    assert res.returncode == 0, res.stderr
    w0, w1 = (np.load(tmp_path / f"module{r}.npy") for r in (0, 1))
    np.testing.assert_array_equal(w0, w1)       # different data, one shared update
    assert not np.allclose(w0, 0.1)

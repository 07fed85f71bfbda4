"""MXNet 1.9.1's nightly distributed kvstore tests (tests/dist/mxnet_nightly, vendored
with only ``import mxnet as mx`` changed) on 2 ranks: ``dist_device_sync_kvstore.py``
whole, and the dense parts of ``dist_sync_kvstore.py``: ``--type init_gpu``,
``--type gluon_step_cpu`` and the dense push/pull checks of ``--type default_cpu``
(``dense_push_pull.py``); the dense cases of ``dist_async_kvstore.py``
(``dense_async_trainer.py``). Their ``mx.gpu(i)`` contexts are labels
(``XPROF_GPU_AS_LABEL=1``). Not run: the row_sparse and 2-bit compression parts
(``gluon_type_cpu``'s row_sparse cases, ``gluon_sparse_step_cpu``, ``invalid_cpu``,
``compressed_cpu``, dist_async's row_sparse weights): xprof has no sparse storage
nor gradient compression."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import cli_subprocess

NIGHTLY = Path(__file__).resolve().parent / "mxnet_nightly"


@pytest.mark.parametrize("script,args", [
    ("dist_device_sync_kvstore.py", ()),
    ("dist_sync_kvstore.py", ("--type", "init_gpu")),
    ("dist_sync_kvstore.py", ("--type", "gluon_step_cpu")),
    ("dense_push_pull.py", ()),
    ("dense_async_trainer.py", ()),
])
def test_mxnet_nightly_passes(tmp_path, script, args):
    res = cli_subprocess("run", "--nproc", 2, "-q", "-o", tmp_path / "p.json",
                         NIGHTLY / script, *args, timeout=600,
                         env={"XPROF_GPU_AS_LABEL": "1"})
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-4000:]
    # each rank prints "worker <rank> ..." when done (mpiexec may join the two lines)
    assert "worker 0 " in res.stdout and "worker 1 " in res.stdout, res.stdout

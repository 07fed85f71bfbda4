"""Without the dist extra, a dist kvstore is one line naming what to install."""
from __future__ import annotations

import os
import subprocess
import sys


def test_without_mpi4py_the_error_names_the_extra(tmp_path):
    fake = tmp_path / "mpi4py"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'mpi4py'\")\n")
    code = ("import xprof.runtime as mx\n"
            "try:\n    mx.kv.create('dist_sync')\n"
            "except mx.base.MXNetError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("pip install 'xprof-mx[dist]'")
    assert len(out.stdout.strip().splitlines()) == 1


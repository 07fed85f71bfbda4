"""xprof-mx installs beside openxla's ``xprof`` (Google's XProf) in either order.

Our wheel is built from this tree; openxla's is fetched from the package index at test
time (``pip download --no-deps xprof``; skipped, with the reason, when the index cannot
be reached). Each order goes into a fresh venv: our wheel with its dependencies, theirs
with ``--no-deps`` (its own dependencies are not needed to check files and scripts).
Checked: ``xprof-mx`` profiles a script and reads the trace; ``import xprof.runtime``
works; ``python -m xprof.mxcli`` runs; every file of openxla's wheel is byte-identical
to the wheel's copy after our install; ``xprof --help`` names both ways in one line.
"""
from __future__ import annotations

import csv
import base64
import hashlib
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = textwrap.dedent("""
    import xprof.runtime as mx
    x = mx.nd.ones((8, 8))
    y = mx.nd.dot(x, x) + 1
    print(float(y.sum().asscalar()))
""")


def _sh(*cmd, cwd=None, env=None, timeout=600):
    res = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=timeout)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))}: {res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    where = tmp_path_factory.mktemp("wheels")
    theirs = where / "theirs"
    res = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                          "-d", str(theirs), "xprof"], capture_output=True, text=True,
                         timeout=600)
    found = sorted(theirs.glob("xprof-*.whl")) if theirs.exists() else []
    if res.returncode != 0 or not found:
        pytest.skip(f"openxla's xprof wheel could not be fetched from the package index: "
                    f"{(res.stderr or res.stdout).strip().splitlines()[-1:] or ['no wheel']}")
    ours = where / "ours"
    _sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", ours, ROOT)
    # our dependencies' wheels, once: each venv installs them from here, not the index
    deps = where / "deps"
    _sh(sys.executable, "-m", "pip", "download", "-q", "-d", deps, "click>=8.1",
        "numpy>=1.24", "rich>=13", "orjson>=3.9")
    return sorted(ours.glob("xprof_mx-*.whl"))[0], found[0], deps


def _venv(path):
    _sh(sys.executable, "-m", "venv", path)
    return path / "bin" / "python"


def _record(wheel):
    """{installed relative path: sha256 in RECORD's form} of a wheel's files."""
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
        rows = csv.reader(z.read(name).decode().splitlines())
        out = {}
        for path, digest, _ in rows:
            if digest:
                out[path] = digest
        return out


def _site(python):
    return Path(_sh(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())


def _unchanged(site, wheel):
    """The files of ``wheel`` whose installed bytes differ from the wheel's."""
    changed = []
    for path, digest in _record(wheel).items():
        if ".dist-info/" in path:
            continue
        algo, want = digest.split("=", 1)
        data = (site / path).read_bytes()
        got = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
        if got != want:
            changed.append(path)
    return changed


@pytest.mark.parametrize("order", ["theirs_then_ours", "ours_then_theirs"])
def test_both_install_in_either_order(tmp_path, wheels, order):
    ours, theirs, deps = wheels
    python = _venv(tmp_path / "venv")
    pip = [python, "-m", "pip", "install", "-q"]
    steps = [[*pip, "--no-deps", theirs],
             [*pip, "--no-index", "--find-links", deps, ours]]
    if order == "ours_then_theirs":
        steps.reverse()
    for step in steps:
        _sh(*step)
    site = _site(python)
    # every file of openxla's wheel as it shipped: ours wrote over none of them
    assert _unchanged(site, theirs) == []
    # ours: none of our files is in a folder of theirs (the CLI is xprof.mxcli)
    theirs_dirs = {Path(p).parts[1] for p in _record(theirs) if p.startswith("xprof/")
                   and len(Path(p).parts) > 2}
    ours_dirs = {Path(p).parts[1] for p in _record(ours) if p.startswith("xprof/")
                 and len(Path(p).parts) > 2}
    assert not theirs_dirs & ours_dirs, theirs_dirs & ours_dirs
    assert "xprof/__init__.py" not in _record(ours)
    bindir = python.parent
    (tmp_path / "job.py").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "PYTHON"))}
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    _sh(bindir / "xprof-mx", "run", "-q", "-o", "p.json", "job.py", cwd=tmp_path, env=env)
    out = _sh(bindir / "xprof-mx", "validate", "p.json", cwd=tmp_path, env=env).stdout
    assert "0 errors" in out
    _sh(python, "-m", "xprof.mxcli", "stats", "p.json", "--top", "3", cwd=tmp_path, env=env)
    assert _sh(python, "-c", "import xprof.runtime as mx; print(mx.nd.ones((2,)).sum().asscalar())",
               env=env).stdout.strip() == "2.0"
    helped = _sh(python, "-m", "xprof.mxcli", "--help", env=env).stdout
    line = [ln for ln in helped.splitlines() if "openxla's xprof" in ln]
    assert len(line) == 1 and "xprof-mx" in line[0] and "python -m xprof.mxcli" in line[0]

"""MXNet 1.9.1's own unit tests run against xprof.runtime with only the import changed.

Usage::

    python benchmarks/mxnet_unittests.py /path/to/mxnet/tests/python/unittest \
        [--files test_ndarray,test_io] [--timeout 60] [--json out.json] [--failures]
    python benchmarks/mxnet_unittests.py --mirror /work/.mirror/apache+mxnet/repo \
        --suite numpy [--json out.json]

``--mirror`` takes the test files from a git clone of apache/mxnet instead (``git
archive`` of ``tests/python/{unittest,common,train}`` at the suite's tag): suite
``legacy`` is MXNet 1.9.1's 22 files (the 20 of issue 17 and, from issue 45, its two sparse files), ``numpy`` MXNet 1.9.1's four NumPy files
(``test_numpy_op``, ``test_numpy_ndarray``, ``test_numpy_gluon``,
``test_numpy_interoperability``), ``numpy2`` MXNet 2.0's (the clone's HEAD)
``test_numpy_ndarray`` and ``test_numpy_gluon``, each run with its own tag's
``common.py``.

The unit-test directory (and its siblings ``../common`` and ``../train``) is copied into a temporary
directory next to a ``conftest.py`` that installs an import alias: ``import mxnet``,
``import mxnet.ndarray as nd`` or ``from mxnet.gluon import nn`` give the matching module
of ``xprof.runtime`` (``mxnet.X.Y`` is ``xprof.runtime.X.Y``, the same module object). The
test files themselves are not changed. Each file runs in its own pytest process (a crash
or a hang costs one file), each test under a SIGALRM timeout.

Counting: a test is collected when pytest collects it; a file that cannot be imported
counts every module-level ``test_*`` function it defines as failed, so the denominator
does not shrink when a file breaks. The pass rate is passed / (collected - skipped).

The tests need ``pytest``, ``nose`` (for ``nose.tools``) and ``scipy`` in the running
interpreter, and the MXNet sources (``git archive`` of tag 1.9.1 of apache/mxnet); this
is a measurement, not part of xprof's CI.
"""
import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

FILES = ("test_ndarray", "test_autograd", "test_symbol", "test_executor", "test_gluon",
         "test_gluon_trainer", "test_gluon_data", "test_loss", "test_init", "test_optimizer",
         "test_metric", "test_engine", "test_exc_handling", "test_thread_local",
         "test_operator", "test_profiler", "test_module", "test_io", "test_kvstore",
         "test_gluon_rnn", "test_sparse_ndarray", "test_sparse_operator")

NUMPY_FILES = ("test_numpy_op", "test_numpy_ndarray", "test_numpy_gluon",
               "test_numpy_interoperability")
NUMPY2_FILES = ("test_numpy_ndarray", "test_numpy_gluon")
# suite -> (git ref of apache/mxnet, files)
SUITES = {"legacy": ("1.9.1", FILES), "numpy": ("1.9.1", NUMPY_FILES),
          "numpy2": ("HEAD", NUMPY2_FILES)}

# Directories beside unittest/ that MXNet's tests import from: common.py's helpers, and
# train/test_bucketing.py (test_module imports train_model, prepare_bucketing_data).
SIBLINGS = ("common", "train")

CONFTEST = '''
"""Written by xprof's benchmarks/mxnet_unittests.py: ``mxnet`` is ``xprof.runtime``."""
import importlib
import importlib.abc
import importlib.util
import signal
import sys

import pytest

import xprof.runtime as _xr

PREFIX = "xprof.runtime"


class _MXNetAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``mxnet.X`` imports ``xprof.runtime.X`` and is the same module object."""

    def find_spec(self, name, path=None, target=None):
        if name != "mxnet" and not name.startswith("mxnet."):
            return None
        real = importlib.import_module(PREFIX + name[len("mxnet"):])
        return importlib.util.spec_from_loader(name, self, is_package=hasattr(real, "__path__"))

    def create_module(self, spec):
        real = importlib.import_module(PREFIX + spec.name[len("mxnet"):])
        self._saved = (real, real.__spec__)
        return real

    def exec_module(self, module):
        real, spec = self._saved
        real.__spec__ = spec          # keep the real module's identity


sys.meta_path.insert(0, _MXNetAlias())
sys.modules["mxnet"] = _xr

TIMEOUT = int(__import__("os").environ.get("MXU_TIMEOUT", "60"))


class TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise TestTimeout(f"test took more than {TIMEOUT} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
'''


def count_tests(path):
    """Module-level ``test_*`` functions and ``Test*`` classes' methods defined in a file."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except SyntaxError:
        return 0
    n = 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            n += 1
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            n += sum(1 for b in node.body if isinstance(b, ast.FunctionDef)
                     and b.name.startswith("test"))
    return n


def first_line(text):
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("E "):
            return line[2:].strip()[:200]
    return (text or "").strip().splitlines()[-1][:200] if text and text.strip() else ""


def run_file(workdir, name, timeout, file_timeout):
    xml = os.path.join(workdir, name + ".xml")
    env = dict(os.environ, MXU_TIMEOUT=str(timeout), MXNET_TEST_SEED=os.environ.get(
        "MXNET_TEST_SEED", "1234"), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", name + ".py", "-q", "-p", "no:cacheprovider",
           "--junitxml", xml, "-o", "junit_family=xunit1", "-W", "ignore"]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True,
                              timeout=file_timeout)
        out = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        out = f"file timed out after {file_timeout} s\n{e.stdout or ''}"
    seconds = time.perf_counter() - t0
    res = {"file": name, "collected": 0, "passed": 0, "failed": 0, "skipped": 0,
           "seconds": round(seconds, 1), "failures": {}}
    defined = count_tests(os.path.join(workdir, name + ".py"))
    cases = []
    if os.path.exists(xml):
        try:
            cases = ET.parse(xml).getroot().iter("testcase")
        except ET.ParseError:
            cases = []
    collection_error = None
    for case in cases:
        kids = {c.tag: c for c in case}
        test = case.get("name")
        if not case.get("classname") and "error" in kids:     # collection error
            collection_error = first_line(kids["error"].get("message", "") + "\n" +
                                          (kids["error"].text or ""))
            continue
        res["collected"] += 1
        if "skipped" in kids:
            res["skipped"] += 1
        elif "failure" in kids or "error" in kids:
            res["failed"] += 1
            k = kids.get("failure", kids.get("error"))
            res["failures"][test] = first_line(k.text) or k.get("message", "")[:200]
        else:
            res["passed"] += 1
    if res["collected"] == 0 and defined:
        res["collected"] = res["failed"] = defined
        res["failures"]["<import>"] = collection_error or first_line(out) or "no result"
    return res


def extract(mirror, ref, dest):
    """``tests/python/{unittest,common,train}`` of ``ref`` in the git clone ``mirror``,
    written under ``dest`` (``git archive``: the files as committed, nothing changed);
    returns the unittest directory."""
    paths = [f"tests/python/{d}" for d in ("unittest",) + SIBLINGS]
    have = subprocess.run(["git", "-C", mirror, "ls-tree", "--name-only", ref,
                           "tests/python/"], capture_output=True, text=True, check=True)
    paths = [p for p in paths if p in have.stdout.split()]
    archive = subprocess.run(["git", "-C", mirror, "archive", ref] + paths,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return os.path.join(dest, "tests", "python", "unittest")


def rate(passed, collected, skipped):
    run = collected - skipped
    return 100.0 * passed / run if run else 0.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("unittest_dir", nargs="?",
                    help="MXNet's tests/python/unittest (tag 1.9.1); or give --mirror")
    ap.add_argument("--mirror", help="a git clone of apache/mxnet to take the tests from")
    ap.add_argument("--suite", choices=sorted(SUITES), default="legacy",
                    help="with --mirror: which files at which tag (default legacy)")
    ap.add_argument("--files", default=None,
                    help="comma-separated test files (without .py); default: the suite's "
                         "(the 22 of issues 17 and 45 for a directory)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test (default 60)")
    ap.add_argument("--file-timeout", type=int, default=1500, help="seconds per file")
    ap.add_argument("--json", help="write the per-file results (with failures) here")
    ap.add_argument("--failures", action="store_true",
                    help="print each failing test's first error line")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="mxu-")
    ref, files = SUITES[args.suite]
    if args.files is None:
        args.files = ",".join(files)
    if args.mirror:
        try:
            src = extract(args.mirror, ref, tmp)
        except (OSError, subprocess.CalledProcessError) as e:
            shutil.rmtree(tmp, ignore_errors=True)
            ap.error(f"cannot take the tests at {ref} from {args.mirror!r}: {e}")
        tmp = os.path.join(tmp, "run")
        os.mkdir(tmp)
    elif args.unittest_dir:
        src = os.path.abspath(args.unittest_dir)
    else:
        ap.error("give MXNet's unittest directory or --mirror")
    if not os.path.isfile(os.path.join(src, "common.py")):
        ap.error(f"{src!r} is not MXNet's tests/python/unittest (no common.py)")
    try:
        work = os.path.join(tmp, "unittest")
        shutil.copytree(src, work)
        for sibling in SIBLINGS:
            path = os.path.join(os.path.dirname(src), sibling)
            if os.path.isdir(path):
                shutil.copytree(path, os.path.join(tmp, sibling))
        with open(os.path.join(work, "conftest.py"), "w") as f:
            f.write(CONFTEST)
        results = []
        for name in [f.strip() for f in args.files.split(",") if f.strip()]:
            if not os.path.isfile(os.path.join(work, name + ".py")):
                ap.error(f"no {name}.py in {src!r}")
            r = run_file(work, name, args.timeout, args.file_timeout)
            results.append(r)
            print(f"{name:22s} collected {r['collected']:4d}  passed {r['passed']:4d}  "
                  f"failed {r['failed']:4d}  skipped {r['skipped']:3d}  "
                  f"{rate(r['passed'], r['collected'], r['skipped']):5.1f}%  "
                  f"({r['seconds']} s)", flush=True)
            if args.failures:
                for test, why in r["failures"].items():
                    print(f"    {test}: {why}")
    finally:
        shutil.rmtree(os.path.dirname(tmp) if args.mirror else tmp, ignore_errors=True)
    tot = {k: sum(r[k] for r in results) for k in ("collected", "passed", "failed", "skipped")}
    print(f"{'TOTAL':22s} collected {tot['collected']:4d}  passed {tot['passed']:4d}  "
          f"failed {tot['failed']:4d}  skipped {tot['skipped']:3d}  "
          f"{rate(tot['passed'], tot['collected'], tot['skipped']):5.1f}% of the tests run")
    if args.json:
        tmpname = args.json + ".tmp"
        with open(tmpname, "w") as f:
            json.dump({"total": tot, "files": results}, f, indent=1)
        os.replace(tmpname, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

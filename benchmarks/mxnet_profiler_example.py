"""Run one of MXNet 1.9.1's ``example/profiler`` scripts against xprof.runtime and
validate the trace it writes.

Usage::

    python benchmarks/mxnet_profiler_example.py /path/to/mxnet/example/profiler \
        [--script profiler_executor.py] [--memonger /path/to/mxnet-memonger] [--keep DIR]

The script is copied into a temporary directory with its ``mxnet`` import lines
changed to ``xprof.runtime`` and nothing else, except what no Python 3.8+ can run:
``time.clock()`` (removed from Python in 3.8) becomes ``time.process_time()``, its
documented replacement. ``profiler_executor.py`` imports ``memonger``
(dmlc/mxnet-memonger, which the example's README says to put on ``PYTHONPATH``); with
``--memonger`` its ``memonger.py`` is copied next to the script, with the same import
change. An MNIST-shaped data set (idx files of random bytes under ``mnist/``) is
written first, so that nothing is downloaded. The trace must pass ``xprof validate``.
This is a measurement outside xprof's CI (it needs MXNet's sources).
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

IMPORTS = ((re.compile(r"^import mxnet as mx$", re.M), "import xprof.runtime as mx"),
           (re.compile(r"^from mxnet import (\w+)$", re.M), r"from xprof.runtime import \1"))
PY38 = ((re.compile(r"\btime\.clock\(\)"), "time.process_time()"),)


def rewrite(text, rules):
    changed = 0
    for pattern, repl in rules:
        text, n = pattern.subn(repl, text)
        changed += n
    return text, changed


def write_mnist(folder, n_train=512, n_test=256, seed=0):
    """``{train,t10k}-{images-idx3,labels-idx1}-ubyte``: MNIST's layout, random bytes."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)

    def idx(path, arr):
        with open(path, "wb") as f:
            f.write(bytes([0, 0, 8, arr.ndim]))
            f.write(struct.pack(">" + "I" * arr.ndim, *arr.shape))
            f.write(arr.astype(np.uint8).tobytes())

    for split, n in (("train", n_train), ("t10k", n_test)):
        idx(os.path.join(folder, f"{split}-images-idx3-ubyte"), rng.integers(0, 256, (n, 28, 28)))
        idx(os.path.join(folder, f"{split}-labels-idx1-ubyte"), rng.integers(0, 10, (n,)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("example_dir", help="MXNet's example/profiler")
    ap.add_argument("--script", default="profiler_executor.py")
    ap.add_argument("--memonger", help="a checkout of dmlc/mxnet-memonger")
    ap.add_argument("--keep", help="run in this directory and keep it")
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args(argv)
    src = os.path.join(args.example_dir, args.script)
    if not os.path.isfile(src):
        ap.error(f"no {args.script} in {args.example_dir!r}")
    work = args.keep or tempfile.mkdtemp(prefix="mxex-")
    os.makedirs(work, exist_ok=True)
    try:
        with open(src) as f:
            text, n_imports = rewrite(f.read(), IMPORTS)
        text, n_py = rewrite(text, PY38)
        with open(os.path.join(work, args.script), "w") as f:
            f.write(text)
        print(f"{args.script}: {n_imports} import line(s) changed, {n_py} time.clock() "
              "call(s) replaced")
        if args.memonger:
            with open(os.path.join(args.memonger, "memonger.py")) as f:
                mtext, _ = rewrite(f.read(), IMPORTS)
            with open(os.path.join(work, "memonger.py"), "w") as f:
                f.write(mtext)
        write_mnist(os.path.join(work, "mnist"))
        before = set(os.listdir(work))
        run = subprocess.run([sys.executable, args.script], cwd=work, text=True,
                             capture_output=True, timeout=args.timeout)
        print(run.stdout, end="")
        if run.returncode != 0:
            print(run.stderr, end="", file=sys.stderr)
            print(f"{args.script} exited with {run.returncode}")
            return 1
        traces = sorted(n for n in set(os.listdir(work)) - before if n.endswith(".json"))
        if not traces:
            print("no trace written")
            return 1
        status = 0
        for name in traces:
            check = subprocess.run([sys.executable, "-m", "xprof.mxcli", "validate",
                                    os.path.join(work, name)], text=True,
                                   capture_output=True, timeout=args.timeout)
            print(f"xprof validate {name}: {check.stdout.strip()}")
            status |= check.returncode
        return status
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

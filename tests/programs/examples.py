"""Run one of MXNet 1.9.1's example programs (``tests/programs/examples``) on local
synthetic data, profiled by ``xprof run`` or on MXNet itself.

    python tests/programs/examples.py NAME --workdir DIR [--python PY] [--mxnet] [--plain]

The program tree is copied into ``DIR/examples``, the data it downloads is written
there in the real formats (MNIST's idx files, a RecordIO file of JPEGs, BSDS500's image
folders, the Sherlock Holmes text files; ``programdata``), and the program runs from its
own folder with the arguments of ``PROGRAMS`` (CI-sized: fewer epochs, smaller layers).
By default it runs under ``xprof run -o xprof_run.json`` (its profile in that folder, next
to the traces the profiler examples write themselves); ``--plain`` runs it with Python
alone; ``--mxnet`` runs it on MXNet (``xprof.runtime`` imports changed back to
``mxnet``), the reference the tests' recorded results came from. ``--python PY``: the
interpreter that runs the program (default this one, which writes the data: it needs
Pillow).

The last line printed is a JSON object: ``{"program", "returncode", "folder"}``.
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "examples")


def _mnist(folder, n_train, n_test, gz):
    import programdata
    programdata.write_mnist(folder, n_train, seed=0, learnable=True, gz=gz, n_test=n_test)


def _rec(folder):
    import programdata
    programdata.write_image_rec(os.path.join(folder, "test.rec"), 640, size=(96, 128))


def _bsds(folder):
    import programdata
    home = os.path.dirname(os.path.dirname(os.path.dirname(folder)))   # DIR, as HOME
    programdata.write_bsds(os.path.join(home, ".mxnet", "datasets", "BSDS500"), 8, 4)


def _memonger(folder):
    import programdata
    programdata.write_memonger(folder)


def _sentences(folder):
    import programdata
    programdata.write_sentences(os.path.join(folder, "data"), 128, 96)


# name -> (program under examples/, its arguments, what to write in its folder)
PROGRAMS = {
    "custom_softmax": ("numpy-ops/custom_softmax.py", [],
                       lambda d: _mnist(os.path.join(d, "data"), 6000, 1000, gz=False)),
    "custom_sparse_sqr": ("numpy-ops/custom_sparse_sqr.py", [], None),
    "weighted_logistic_regression": ("numpy-ops/weighted_logistic_regression.py", [], None),
    "profiler_executor": ("profiler/profiler_executor.py", [], _memonger),
    "profiler_imageiter": ("profiler/profiler_imageiter.py", [], _rec),
    "profiler_matmul": ("profiler/profiler_matmul.py",
                        ["--iter_num", "20", "--begin_profiling_iter", "5",
                         "--end_profiling_iter", "15"], None),
    "profiler_ndarray": ("profiler/profiler_ndarray.py", [], None),
    "gluon_mnist": ("gluon/mnist/mnist.py", ["--epochs", "1", "--log-interval", "10"],
                    lambda d: _mnist(os.path.join(d, "data"), 2000, 1000, gz=True)),
    "super_resolution": ("gluon/super_resolution/super_resolution.py",
                         ["--epochs", "2", "--test_batch_size", "4"], _bsds),
    "module_mnist_mlp": ("module/mnist_mlp.py", [],
                         lambda d: _mnist(os.path.join(d, "data"), 12000, 1000, gz=False)),
    "lstm_bucketing": ("rnn/bucketing/lstm_bucketing.py",
                       ["--num-epochs", "2", "--num-hidden", "32", "--num-embed", "32",
                        "--batch-size", "16", "--disp-batches", "5"], _sentences),
}


def for_mxnet(folder):
    """Every program file under ``folder`` with its ``xprof.runtime`` imports back to
    ``mxnet``, and ``mx.gpu(0)`` as the CPU (MXNet's CPU build has no GPU)."""
    for root, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path) as f:
                    text = f.read()
                text = re.sub(r"\bxprof\.runtime\b", "mxnet", text)
                text = re.sub(r"\bmx\.gpu\(0\)", "mx.cpu()", text)
                with open(path, "w") as f:
                    f.write(text)


def prepare(name, workdir):
    """Copy the programs into ``workdir/examples`` and write ``name``'s data; returns
    (program folder, script file name)."""
    path, _, write = PROGRAMS[name]
    dest = os.path.join(workdir, "examples")
    if not os.path.isdir(dest):
        shutil.copytree(SOURCE, dest, ignore=shutil.ignore_patterns("__pycache__"))
    folder = os.path.join(dest, os.path.dirname(path))
    if write is not None:
        sys.path.insert(0, HERE)
        write(folder)
    return folder, os.path.basename(path)


def command(name, script, python=None, mxnet=False, plain=False):
    args = PROGRAMS[name][1]
    python = python or sys.executable
    if mxnet or plain:
        return [python, script] + args
    return [python, "-m", "xprof.mxcli", "run", "-q", "-o", "xprof_run.json", script] + args


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", choices=sorted(PROGRAMS))
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--python", help="the interpreter that runs the program")
    ap.add_argument("--mxnet", action="store_true", help="run on MXNet (give --python)")
    ap.add_argument("--plain", action="store_true", help="run without the profiler")
    args = ap.parse_args(argv)
    workdir = os.path.abspath(args.workdir)
    folder, script = prepare(args.name, workdir)
    if args.mxnet:
        for_mxnet(os.path.join(workdir, "examples"))
    # profiler_matmul binds mx.gpu(0): a label of host memory here (MXNet needs a GPU)
    env = dict(os.environ, HOME=workdir, XPROF_GPU_AS_LABEL="1")
    res = subprocess.run(command(args.name, script, args.python, args.mxnet, args.plain),
                         cwd=folder, env=env)
    print(json.dumps({"program": args.name, "returncode": res.returncode,
                      "folder": folder}))
    return res.returncode


if __name__ == "__main__":
    sys.exit(main())

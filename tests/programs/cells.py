"""Run a program's cells in order in one process, as a notebook runs a page.

A program here is a tutorial's code cells, one after another, each headed by
``# %% [N]``. Every cell is run even when an earlier one failed (a notebook's "run all,
continue on error"), so the count of cells that run is the measure of how much of a page
works. As in a notebook, a cell whose last statement is an expression prints its
``repr`` (an array's values: the sync point where an asynchronous error shows).

    python tests/programs/cells.py PROGRAM [--workdir DIR] [--mnist N] [--leaves N]
                                          [--pretrained NAME] [--mxnet]
                                          [--keep-after N]

``--mnist N`` writes an MNIST-shaped set of N training and N/2 test images under
``$HOME/.mxnet/datasets/mnist`` first (the caller points ``HOME`` at a scratch folder):
the pages' MNIST is downloaded by MXNet, read from local files by xprof.
``--pretrained NAME`` writes a model zoo network's weights (random) where
``pretrained=True`` finds them (xprof only: MXNet downloads them). ``--leaves N`` writes N synthetic leaf images per class under ``plants/`` (the crash
course's downloaded data set). ``--mxnet`` runs the program on MXNet itself (import lines
changed back, ``mx.gpu()`` replaced by ``mx.cpu()`` and MXNet's checksum of the MNIST
files skipped): the reference the counts are compared with.

``--keep-after N`` copies the ``*.json`` files of the working folder into ``after-N/``
once cell N has run (a trace as it was at that point of the page).

The last line printed is a JSON object: ``{"program", "cells", "ran", "failed": [{"cell",
"error"}]}``. Matplotlib is replaced by a stand-in that checks what it is given is an
image (``programdata.pyplot``) when it is not installed.
"""
import ast
import json
import os
import re
import shutil
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
CELL = re.compile(r"^# %% \[(\d+)\][^\n]*\n", re.M)


def split_cells(text):
    """[(number, code)] of a program's cells."""
    marks = list(CELL.finditer(text))
    return [(int(m.group(1)), text[m.end():marks[i + 1].start() if i + 1 < len(marks)
                                     else len(text)])
            for i, m in enumerate(marks)]


def for_mxnet(code):
    """The cell as MXNet runs it: ``xprof.runtime`` imports back to ``mxnet``; no GPU."""
    code = re.sub(r"\bxprof\.runtime\b", "mxnet", code)
    return re.sub(r"\bmx\.gpu\(\d*\)", "mx.cpu()", code)


def run_cell(code, namespace, label):
    """Run one cell; print the value of a last expression, as a notebook does."""
    tree = ast.parse(code, label)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, label, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, label, "eval"), namespace)
        if value is not None:
            print(repr(value))


def keep_files(folder):
    """Copy the trace files the program wrote so far (``*.json`` here) into ``folder``."""
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir("."):
        if name.endswith(".json") and os.path.isfile(name):
            shutil.copy(name, os.path.join(folder, name))


def run_program(path, mxnet=False, keep_after=()):
    with open(path) as f:
        cells = split_cells(f.read())
    name = os.path.splitext(os.path.basename(path))[0]
    namespace = {"__name__": "__main__"}
    failed = []
    for number, code in cells:
        if mxnet:
            code = for_mxnet(code)
        label = f"{name}[{number}]"
        print(f"--- cell {number}", flush=True)
        try:
            run_cell(code, namespace, label)
        except BaseException as e:   # noqa: B902 - a cell's SystemExit is its failure too
            if isinstance(e, KeyboardInterrupt):
                raise
            traceback.print_exc()
            failed.append({"cell": number, "error": f"{type(e).__name__}: {e}"[:300]})
        sys.stdout.flush()
        sys.stderr.flush()
        if number in keep_after:
            keep_files(f"after-{number}")
    return {"program": name, "cells": len(cells), "ran": len(cells) - len(failed),
            "failed": failed}


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("--workdir", default=".")
    ap.add_argument("--mnist", type=int, default=0)
    ap.add_argument("--leaves", type=int, default=0)
    ap.add_argument("--pretrained", help="a model zoo name whose weights to write")
    ap.add_argument("--mxnet", action="store_true")
    ap.add_argument("--keep-after", type=int, action="append", default=[],
                    help="copy the *.json files into after-N/ after cell N")
    args = ap.parse_args(argv)
    program = os.path.abspath(args.program)
    sys.path.insert(0, HERE)
    import programdata
    os.chdir(args.workdir)
    if args.mnist:
        programdata.write_mnist(os.path.join(os.path.expanduser("~"), ".mxnet", "datasets",
                                             "mnist"), args.mnist)
    if args.leaves:
        programdata.write_leaves("plants", args.leaves)
    if args.pretrained and not args.mxnet:
        import xprof.runtime as mx
        programdata.write_pretrained(args.pretrained, mx)
    programdata.install_pyplot()
    if args.mxnet:
        programdata.skip_mxnet_checksums()
    summary = run_program(program, args.mxnet, set(args.keep_after))
    print(json.dumps(summary))
    return 0 if not summary["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""The CNN training step of ``bench_cnn_step.py`` on xprof and on Apache MXNet 1.x, side
by side: the same Gluon code runs under ``import xprof.runtime as mx`` and under ``import
mxnet as mx`` (the promise of the one changed import line), each in its own process,
alternating, several rounds. MXNet needs numpy < 2, so it lives in a venv of its own:

    python -m venv /tmp/venv-mxnet && /tmp/venv-mxnet/bin/pip install mxnet==1.9.1 'numpy<1.24'
    python benchmarks/bench_cnn_mxnet.py --mxnet-python /tmp/venv-mxnet/bin/python

Each round starts one process per side; a process builds the net (batch 64, 1x28x28:
Conv(20,5,relu) Pool Conv(50,5,relu) Pool Flatten Dense(512,relu) Dense(10), softmax
cross-entropy, SGD momentum), runs warm-up steps, then times ``--steps`` steps (each
ends with ``waitall``) and prints their median. The report is the median over rounds
of each side and of the per-round ratio xprof / MXNet. Imperative and hybridized.
Figures only: nothing is asserted.

    --child FRAMEWORK MODE   (internal) run one side and print its median step in ms
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def child(framework, mode, steps, batch):
    import importlib
    mx = importlib.import_module("mxnet" if framework == "mxnet" else "xprof.runtime")
    import numpy as np
    autograd, gluon = mx.autograd, mx.gluon
    nn = gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2, 2),
                nn.Conv2D(50, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Flatten(),
                nn.Dense(512, activation="relu"), nn.Dense(10))
    net.initialize(mx.init.Xavier())
    if mode == "hybridized":
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.01, "momentum": 0.9})
    rng = np.random.default_rng(0)
    data = mx.nd.array(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    label = mx.nd.array(rng.integers(0, 10, batch).astype(np.float32))

    def step():
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(batch)
        mx.nd.waitall()

    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    print(f"{statistics.median(times) * 1e3:.3f}")


def _child_src():
    return (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
            "import bench_cnn_mxnet as b\n"
            "b.child(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))\n")


def run_side(python, framework, mode, steps, batch):
    out = subprocess.run([python, "-c", _child_src(), framework, mode, str(steps),
                          str(batch)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"{framework} side failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mxnet-python", default=os.environ.get("MXNET_PYTHON"),
                    help="the Python of a venv with mxnet 1.x installed")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    if not args.mxnet_python:
        raise SystemExit("bench_cnn_mxnet: give --mxnet-python (a venv with mxnet==1.9.1 "
                         "and numpy<1.24); see the docstring")
    print(f"CNN step, batch {args.batch}, median of {args.steps} steps per process, "
          f"{args.rounds} alternating rounds (xprof: {sys.executable}; "
          f"MXNet: {args.mxnet_python})")
    for mode in ("imperative", "hybridized"):
        xs, ms, ratios = [], [], []
        for _ in range(args.rounds):
            x = run_side(sys.executable, "xprof", mode, args.steps, args.batch)
            m = run_side(args.mxnet_python, "mxnet", mode, args.steps, args.batch)
            xs.append(x)
            ms.append(m)
            ratios.append(x / m)
        med = statistics.median
        print(f"  {mode:10s} xprof {med(xs):7.2f} ms (best {min(xs):.2f})   "
              f"MXNet {med(ms):7.2f} ms (best {min(ms):.2f})   "
              f"xprof / MXNet x{med(ratios):.2f} (per-round ratios {min(ratios):.2f}"
              f"-{max(ratios):.2f})")


if __name__ == "__main__":
    main()

"""Time one Gluon training step of the guide's CNN, imperative and hybridized, against
a plain-numpy forward + backward + SGD update of the same network in the same run.

Network (batch 64, input 1x28x28, float32):
    Conv2D(20, 5, relu) -> MaxPool2D(2, 2) -> Conv2D(50, 5, relu) -> MaxPool2D(2, 2)
    -> Flatten -> Dense(512, relu) -> Dense(10) -> softmax cross-entropy, SGD momentum

A step is ``autograd.record()`` forward + loss, ``backward``, ``Trainer.step`` and
``mx.nd.waitall()``. The numpy reference does the same arithmetic in straightforward
numpy (convolution on a ``sliding_window_view`` with ``tensordot``, its data gradient
as a full correlation with the flipped kernel, pooling by reshape), on one thread of
Python like the engine's kernels. The three run in interleaved rounds (see
benchmarks/_util.py), so machine load hits them alike: the ratios are the figures that
travel across machines. Figures only: nothing is asserted.

    python benchmarks/bench_cnn_step.py [--batch 64] [--steps 5] [--rounds 7]
        [--engine ThreadedEngine|NaiveEngine] [--blas-threads N]

The engine already sets OpenBLAS to cores / workers threads and keeps freed memory for
reuse when it starts (runtime/engine/__init__.py; ``XPROF_BLAS_NUM_THREADS``,
``XPROF_MALLOC_TUNING=0`` change that). ``--blas-threads`` overrides the thread count
for the whole run (both sides).
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import interleaved, ratio  # noqa: E402

import xprof.runtime as mx  # noqa: E402
from xprof.runtime import _native, autograd, gluon  # noqa: E402
from xprof.runtime.gluon import nn  # noqa: E402

LR, MOMENTUM = 0.01, 0.9


# -- the Gluon side ---------------------------------------------------------------------
def build_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2, 2),
                nn.Conv2D(50, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Flatten(),
                nn.Dense(512, activation="relu"), nn.Dense(10))
    return net


def gluon_step_fn(x, y, hybridize):
    net = build_net()
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": LR, "momentum": MOMENTUM})
    data, label = mx.nd.array(x), mx.nd.array(y)
    batch = x.shape[0]

    def step():
        with autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(batch)
        mx.nd.waitall()
    step()          # deferred init, graph binding
    return step


# -- the plain-numpy side -------------------------------------------------------------------
def _conv_fwd(x, w, b):
    """(n, c, h, w) * (f, c, k, k) -> (n, f, h-k+1, w-k+1), valid, stride 1."""
    k = w.shape[2]
    win = sliding_window_view(x, (k, k), axis=(2, 3))          # n, c, oh, ow, k, k
    out = np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3]))    # n, oh, ow, f
    out += b
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2)), win


def _conv_bwd(og, win, w):
    k = w.shape[2]
    dw = np.tensordot(og, win, axes=([0, 2, 3], [0, 2, 3]))    # f, c, k, k
    db = og.sum(axis=(0, 2, 3))
    padded = np.pad(og, ((0, 0), (0, 0), (k - 1, k - 1), (k - 1, k - 1)))
    gwin = sliding_window_view(padded, (k, k), axis=(2, 3))    # n, f, h, w, k, k
    dx = np.tensordot(gwin, w[:, :, ::-1, ::-1], axes=([1, 4, 5], [0, 2, 3]))
    return np.ascontiguousarray(dx.transpose(0, 3, 1, 2)), dw, db


def _pool_fwd(x):
    n, c, h, w = x.shape
    v = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = v.max(axis=(3, 5))
    return out, v


def _pool_bwd(og, v, out):
    mask = v == out[:, :, :, None, :, None]
    g = mask * og[:, :, :, None, :, None]
    n, c, h2, _, w2, _ = v.shape
    return g.reshape(n, c, h2 * 2, w2 * 2)


def numpy_step_fn(x, y):
    rng = np.random.default_rng(0)

    def init(*shape):
        fan = np.prod(shape[1:])
        return (rng.standard_normal(shape) / np.sqrt(fan)).astype(np.float32)
    p = {"w1": init(20, 1, 5, 5), "b1": np.zeros(20, np.float32),
         "w2": init(50, 20, 5, 5), "b2": np.zeros(50, np.float32),
         "w3": init(512, 800), "b3": np.zeros(512, np.float32),
         "w4": init(10, 512), "b4": np.zeros(10, np.float32)}
    mom = {k: np.zeros_like(v) for k, v in p.items()}
    labels = y.astype(np.int64)
    n = x.shape[0]

    def step():
        c1, win1 = _conv_fwd(x, p["w1"], p["b1"])
        a1 = np.maximum(c1, 0)
        p1, v1 = _pool_fwd(a1)
        c2, win2 = _conv_fwd(p1, p["w2"], p["b2"])
        a2 = np.maximum(c2, 0)
        p2, v2 = _pool_fwd(a2)
        f = p2.reshape(n, -1)
        h = f @ p["w3"].T + p["b3"]
        a3 = np.maximum(h, 0)
        logits = a3 @ p["w4"].T + p["b4"]
        z = logits - logits.max(axis=1, keepdims=True)
        prob = np.exp(z)
        prob /= prob.sum(axis=1, keepdims=True)
        g = prob
        g[np.arange(n), labels] -= 1.0
        g /= n
        grads = {"w4": g.T @ a3, "b4": g.sum(axis=0)}
        g = (g @ p["w4"]) * (h > 0)
        grads["w3"], grads["b3"] = g.T @ f, g.sum(axis=0)
        g = (g @ p["w3"]).reshape(p2.shape)
        g = _pool_bwd(g, v2, p2) * (c2 > 0)
        g, grads["w2"], grads["b2"] = _conv_bwd(g, win2, p["w2"])
        g = _pool_bwd(g, v1, p1) * (c1 > 0)
        _, grads["w1"], grads["b1"] = _conv_bwd(g, win1, p["w1"])
        for k, gk in grads.items():
            m = mom[k]
            m *= MOMENTUM
            m -= LR * gk.astype(np.float32)
            p[k] += m
    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=5, help="steps per timed call")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds")
    ap.add_argument("--engine", default=None, help="ThreadedEngine (default) or NaiveEngine")
    ap.add_argument("--blas-threads", type=int, default=None,
                    help="OpenBLAS threads (default: leave OpenBLAS's own setting)")
    args = ap.parse_args()
    if args.blas_threads:
        _native.set_num_threads(args.blas_threads)
    if args.engine:
        mx.engine.set_engine_type(args.engine)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((args.batch, 1, 28, 28), dtype=np.float32)
    y = (np.arange(args.batch) % 10).astype(np.float32)

    fns = {"imperative": gluon_step_fn(x, y, False),
           "hybridized": gluon_step_fn(x, y, True),
           "numpy": numpy_step_fn(x, y)}
    fns["numpy"]()

    def repeat(fn):
        return lambda: [fn() for _ in range(args.steps)]
    t0 = time.perf_counter()
    times = interleaved({k: repeat(f) for k, f in fns.items()}, rounds=args.rounds)
    ms = {k: statistics.median(v) / args.steps * 1e3 for k, v in times.items()}
    best = {k: min(v) / args.steps * 1e3 for k, v in times.items()}
    print(f"CNN training step, batch {args.batch}, 1x28x28 float32, engine "
          f"{mx.engine.engine_type()}, OpenBLAS threads {_native.get_num_threads()}, "
          f"malloc tuning {'off' if os.environ.get('XPROF_MALLOC_TUNING') == '0' else 'on'} "
          f"({args.rounds} rounds x {args.steps} steps, {time.perf_counter() - t0:.1f} s)")
    for k in fns:
        print(f"  {k:<11} {ms[k]:8.2f} ms/step median  ({best[k]:.2f} min)")
    print(f"  ratio imperative/numpy: {ratio(times, 'imperative', 'numpy'):.2f}x")
    print(f"  ratio hybridized/numpy: {ratio(times, 'hybridized', 'numpy'):.2f}x")
    print(f"  ratio hybridized/imperative: {ratio(times, 'hybridized', 'imperative'):.2f}x")
    print("  (targets on the reference machine: imperative <= 37 ms, hybridized <= 32 ms; "
          "the machine's other load moves single figures, compare the ratios)")


if __name__ == "__main__":
    main()

"""Time one training step (forward + backward) of a LeNet-style CNN on the op kernels.

Network (batch 64, input 1x28x28, float32):
    Conv2D(20, 5, relu) -> MaxPool2D(2, 2) -> Conv2D(50, 5, relu) -> MaxPool2D(2, 2)
    -> Flatten -> Dense(512, relu) -> Dense(10) -> SoftmaxOutput

The step runs the registered kernels and gradients of ``xprof.runtime.ops`` directly
(no engine, no NDArray layer), and, in the same run, a straightforward numpy reference:
convolution as one BLAS product per kernel offset over shifted input slices, pooling as a
reshape followed by ``max`` over the window axes. It prints milliseconds per step for
both, their ratio, the largest difference between their gradients, and a per-operator
breakdown of the kernels' step. Figures only: nothing is asserted.

    python benchmarks/bench_cnn_kernels.py [--batch 64] [--steps 20]
"""
import argparse
import statistics
import time
from collections import defaultdict

import numpy as np

import xprof.runtime.ops  # noqa: F401  (registers every operator)
from xprof.runtime.ops import registry


def make_params(rng):
    def init(*shape, fan_in):
        return (rng.standard_normal(shape, dtype=np.float32) / np.sqrt(fan_in)).astype(
            np.float32)
    return {
        "w1": init(20, 1, 5, 5, fan_in=25), "b1": np.zeros(20, np.float32),
        "w2": init(50, 20, 5, 5, fan_in=500), "b2": np.zeros(50, np.float32),
        "w3": init(512, 800, fan_in=800), "b3": np.zeros(512, np.float32),
        "w4": init(10, 512, fan_in=512), "b4": np.zeros(10, np.float32),
    }


# -- the network on the registered kernels ---------------------------------------------
class Tape:
    """Runs kernels, remembers (op, inputs, outputs, params) and replays the gradients."""

    def __init__(self, times):
        self.records = []
        self.times = times

    def __call__(self, name, *inputs, **params):
        op = registry.get(name)
        t0 = time.perf_counter()
        out = op.kernel(*inputs, **params)
        self.times[name] += time.perf_counter() - t0
        outs = out if isinstance(out, tuple) else (out,)
        self.records.append((op, inputs, outs, params))
        return outs[0]

    def backward(self, loss_out):
        grads = {id(loss_out): np.ones_like(loss_out)}
        result = {}
        for op, inputs, outs, params in reversed(self.records):
            og = [grads.get(id(o)) for o in outs]
            if og[0] is None:
                continue
            t0 = time.perf_counter()
            gin = op.grad(og, list(inputs), list(outs), **params)
            self.times["_backward_" + op.name] += time.perf_counter() - t0
            for x, g in zip(inputs, gin):
                if g is None:
                    continue
                key = id(x)
                grads[key] = g if key not in grads else grads[key] + g
                result[key] = grads[key]
        return result


def step_kernels(x, label, p, times):
    tape = Tape(times)
    conv = dict(kernel=(5, 5), stride=(1, 1), pad=(0, 0))
    pool = dict(kernel=(2, 2), stride=(2, 2), pool_type="max")
    h = tape("Convolution", x, p["w1"], p["b1"], num_filter=20, **conv)
    h = tape("Activation", h, act_type="relu")
    h = tape("Pooling", h, **pool)
    h = tape("Convolution", h, p["w2"], p["b2"], num_filter=50, **conv)
    h = tape("Activation", h, act_type="relu")
    h = tape("Pooling", h, **pool)
    h = tape("Flatten", h)
    h = tape("FullyConnected", h, p["w3"], p["b3"], num_hidden=512)
    h = tape("Activation", h, act_type="relu")
    h = tape("FullyConnected", h, p["w4"], p["b4"], num_hidden=10)
    out = tape("SoftmaxOutput", h, label)
    g = tape.backward(out)
    return {k: g[id(v)] for k, v in p.items()}


# -- a straightforward numpy reference -----------------------------------------------
def ref_conv(x, w, b):
    n, c, hgt, wid = x.shape
    f, _, kh, kw = w.shape
    oh, ow = hgt - kh + 1, wid - kw + 1
    out = np.zeros((n, f, oh, ow), np.float32)
    for i in range(kh):
        for j in range(kw):
            part = np.tensordot(x[:, :, i:i + oh, j:j + ow], w[:, :, i, j], axes=([1], [1]))
            out += part.transpose(0, 3, 1, 2)
    return out + b[None, :, None, None]


def ref_conv_grad(og, x, w):
    n, c, hgt, wid = x.shape
    f, _, kh, kw = w.shape
    oh, ow = og.shape[2:]
    dx = np.zeros_like(x)
    dw = np.zeros_like(w)
    for i in range(kh):
        for j in range(kw):
            xs = x[:, :, i:i + oh, j:j + ow]
            dw[:, :, i, j] = np.tensordot(og, xs, axes=([0, 2, 3], [0, 2, 3]))
            dx[:, :, i:i + oh, j:j + ow] += np.tensordot(
                og, w[:, :, i, j], axes=([1], [0])).transpose(0, 3, 1, 2)
    return dx, dw, og.sum(axis=(0, 2, 3))


def ref_pool(x):
    n, c, hgt, wid = x.shape
    return x.reshape(n, c, hgt // 2, 2, wid // 2, 2).max(axis=(3, 5))


def ref_pool_grad(og, x, out):
    n, c, hgt, wid = x.shape
    xr = x.reshape(n, c, hgt // 2, 2, wid // 2, 2)
    mask = xr == out[:, :, :, None, :, None]
    return (mask * og[:, :, :, None, :, None]).reshape(x.shape)


def step_reference(x, label, p):
    c1 = ref_conv(x, p["w1"], p["b1"])
    a1 = np.maximum(c1, 0)
    p1 = ref_pool(a1)
    c2 = ref_conv(p1, p["w2"], p["b2"])
    a2 = np.maximum(c2, 0)
    p2 = ref_pool(a2)
    f = p2.reshape(len(x), -1)
    d1 = f @ p["w3"].T + p["b3"]
    a3 = np.maximum(d1, 0)
    d2 = a3 @ p["w4"].T + p["b4"]
    e = np.exp(d2 - d2.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True)
    g = prob.copy()
    g[np.arange(len(x)), label.astype(int)] -= 1
    grads = {"w4": g.T @ a3, "b4": g.sum(0)}
    g = (g @ p["w4"]) * (d1 > 0)
    grads.update(w3=g.T @ f, b3=g.sum(0))
    g = (g @ p["w3"]).reshape(p2.shape)
    g = ref_pool_grad(g, a2, p2) * (c2 > 0)
    g, grads["w2"], grads["b2"] = ref_conv_grad(g, p1, p["w2"])
    g = ref_pool_grad(g, a1, p1) * (c1 > 0)
    _, grads["w1"], grads["b1"] = ref_conv_grad(g, x, p["w1"])
    return grads


def timed(fn, steps):
    """(median wall ms, min wall ms, median CPU ms of the whole process) per call."""
    fn()                                   # warm-up (page faults, BLAS threads)
    fn()
    wall, cpu = [], []
    for _ in range(steps):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return (statistics.median(wall) * 1e3, min(wall) * 1e3, statistics.median(cpu) * 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    p = make_params(rng)
    x = rng.random((args.batch, 1, 28, 28), dtype=np.float32)
    label = rng.integers(0, 10, args.batch).astype(np.float32)

    times = defaultdict(float)
    ours = step_kernels(x, label, p, times)
    ref = step_reference(x, label, p)
    worst = max(float(np.abs(ours[k] - ref[k]).max() / (np.abs(ref[k]).max() + 1e-12))
                for k in p)
    dtypes = sorted({str(g.dtype) for g in ours.values()})

    per_step = []

    def kernels_step():
        times = defaultdict(float)
        step_kernels(x, label, p, times)
        per_step.append(times)

    k_med, k_min, k_cpu = timed(kernels_step, args.steps)
    r_med, r_min, r_cpu = timed(lambda: step_reference(x, label, p), max(3, args.steps // 2))
    per_step = per_step[2:]

    print(f"CNN training step, batch {args.batch}, float32 (gradient dtypes: "
          f"{', '.join(dtypes)})")
    print(f"  kernels:   {k_med:8.2f} ms/step median  ({k_min:.2f} min, "
          f"{k_cpu:.2f} CPU ms)")
    print(f"  reference: {r_med:8.2f} ms/step median  ({r_min:.2f} min, "
          f"{r_cpu:.2f} CPU ms)")
    print(f"  ratio reference/kernels: {r_med / k_med:.2f}x median, "
          f"{r_min / k_min:.2f}x min")
    print(f"  max relative gradient difference vs reference: {worst:.2e}")
    print("  per-operator time in the kernels' step (ms/step: median, min over steps):")
    stats = {name: (statistics.median(t[name] for t in per_step) * 1e3,
                    min(t[name] for t in per_step) * 1e3) for name in per_step[0]}
    for name, (med, low) in sorted(stats.items(), key=lambda kv: -kv[1][0]):
        print(f"    {name:28s} {med:7.2f} {low:7.2f}")
    print("  BLAS threads and other load on the machine change wall times; CPU ms is "
          "the process's CPU time (all threads, including BLAS spin-waits).")


if __name__ == "__main__":
    main()

"""Bulk execution: the same bound graphs run with bulk segments on and off.

Graphs: a chain of 200 small elementwise ops on a 16x16 array, and a small MLP
(64 -> 32 -> 32 -> 10, batch 8) with SoftmaxOutput. Each is timed for inference
(``forward()``) and training (``forward(is_train=True)`` + ``backward()``), ITERS passes
then ``waitall``, bulk on and off alternately in the same process (the setting is read
at every forward/backward), median of per-round ratios. Figures only.
Run: python benchmarks/bench_bulk.py [ITERS]
"""
import os
import sys

import numpy as np

from _util import interleaved, per_op_us, ratio

ITERS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
_VARS = ("XPROF_EXEC_BULK_EXEC_INFERENCE", "XPROF_EXEC_BULK_EXEC_TRAIN")


def chain(mx, n=200):
    x = mx.sym.var("x")
    y = x
    for i in range(n):
        k = i % 4
        if k == 0:
            y = y * 0.5
        elif k == 1:
            y = y + 1.0
        elif k == 2:
            y = mx.sym.tanh(y)
        else:
            y = y * y
    return y, {"x": (16, 16)}, n


def mlp(mx):
    data = mx.sym.var("data")
    h = data
    for i, width in enumerate((32, 32)):
        h = mx.sym.FullyConnected(h, num_hidden=width, name=f"fc{i}")
        h = mx.sym.Activation(h, act_type="relu", name=f"relu{i}")
    h = mx.sym.FullyConnected(h, num_hidden=10, name="out")
    return mx.sym.SoftmaxOutput(h, name="softmax"), {"data": (8, 64)}, 6


def bulk(on):
    for v in _VARS:
        os.environ[v] = "1" if on else "0"


def main():
    import xprof.runtime as mx
    rng = np.random.default_rng(0)
    print(f"bulk on vs off, {ITERS} passes per timing, median of 7 interleaved rounds")
    for make in (chain, mlp):
        sym, shapes, nodes = make(mx)
        ex = sym.simple_bind(mx.cpu(), **shapes)
        for name, arr in ex.arg_dict.items():
            if name.endswith("label"):
                arr[:] = rng.integers(0, 10, arr.shape).astype(np.float32)
            else:
                arr[:] = (rng.standard_normal(arr.shape) * 0.1).astype(np.float32)
        for mode in ("inference", "train"):
            def run(on, mode=mode):
                def fn():
                    bulk(on)
                    for _ in range(ITERS):
                        if mode == "train":
                            ex.forward(is_train=True)
                            ex.backward()
                        else:
                            ex.forward()
                    mx.nd.waitall()
                return fn
            run(True)()
            run(False)()
            t = interleaved({"on": run(True), "off": run(False)}, rounds=7)
            ops = ITERS * nodes * (2 if mode == "train" else 1)
            print(f"  {make.__name__:5s} {mode:9s}  bulk on {per_op_us(t, 'on', ops):6.2f} "
                  f"us/node   off {per_op_us(t, 'off', ops):6.2f} us/node   "
                  f"off/on {ratio(t, 'off', 'on'):5.2f}x")
    for v in _VARS:
        os.environ.pop(v, None)


if __name__ == "__main__":
    main()

"""A Gluon training job with one heavy Dense layer: the known answers of the real-job tests.

    python tests/jobs/gluon_mlp.py [--hybridize] [--steps 10] [--sleep-ms 0] [--custom]
        [--warmup 0]

The network is ``Dense(--width=512, relu) -> heavy Dense(--heavy=4096, relu) -> Dense(10)``
on a batch of 64 random rows of 64 features, trained with SGD and a softmax cross-entropy
loss. The heavy layer (prefix ``heavy_``) holds nearly all the arithmetic (about 0.8 GFLOP a step), so its
``FullyConnected`` and ``_backward_FullyConnected`` ops are what bound each step, and ten
steps amortize the first one's deferred initialization (and, hybridized, its graph). With
``--sleep-ms`` the loop sleeps that long in Python after each step, while the engine
may still run the step's tail: then Python, not any op, sets the pace. With
``--custom`` a custom operator (``Scale``, a numpy multiply in ``forward`` and
``backward``) sits after the first layer.

The script measures its own ground truth with ``perf_counter`` and prints it as one JSON
line on stdout (``{"steps_s": [...], "sleep_s": ...}``): the wall time of each step
(from before ``record()`` to after ``waitall()``) and the total time it slept.

``--warmup N`` runs N steps first with the profiler stopped (the script's own
``mx.profiler.set_state`` calls, which ``xprof run`` follows): the profile then holds the
steady steps alone, without the first one's initialization (the what-if tests compare
two runs' walls, and the first step's time varies most).
"""
import argparse
import json
import time

import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn


class Scale(mx.operator.CustomOp):
    """out = 2 * x; its gradient, 2 * dy."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 2)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 2)


@mx.operator.register("Scale")
class ScaleProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    # list_arguments, list_outputs, infer_shape: CustomOpProp's defaults (one input
    # "data", one output "output" of its shape), as in MXNet
    def create_operator(self, ctx, shapes, dtypes):
        return Scale()


class CustomScale(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Custom(x, op_type="Scale")


def build(heavy, custom, width=512):
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(width, activation="relu", in_units=64, prefix="first_"))
        if custom:
            net.add(CustomScale(prefix="scale_"))
        net.add(nn.Dense(heavy, activation="relu", in_units=width, prefix="heavy_"))
        net.add(nn.Dense(10, in_units=heavy, prefix="head_"))
    return net


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hybridize", action="store_true")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--heavy", type=int, default=4096)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--sleep-ms", type=float, default=0.0)
    ap.add_argument("--custom", action="store_true")
    ap.add_argument("--warmup", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.normal(size=(args.batch_size, 64)).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 10, size=args.batch_size).astype(np.float32))
    net = build(args.heavy, args.custom, args.width)
    net.initialize(mx.init.Xavier())
    if args.hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    steps, slept = [], 0.0
    if args.warmup:
        mx.profiler.set_state("stop")
        for _ in range(args.warmup):
            _step(net, loss_fn, trainer, x, y, args.batch_size)
        mx.nd.waitall()
        mx.profiler.set_state("run")
    for _ in range(args.steps):
        t0 = time.perf_counter()
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(args.batch_size)
        if args.sleep_ms:
            s0 = time.perf_counter()
            time.sleep(args.sleep_ms / 1000.0)
            slept += time.perf_counter() - s0
        mx.nd.waitall()
        steps.append(time.perf_counter() - t0)
    if args.warmup:
        mx.profiler.set_state("stop")
    print(json.dumps({"steps_s": steps, "sleep_s": slept}))


def _step(net, loss_fn, trainer, x, y, batch_size):
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(batch_size)


if __name__ == "__main__":
    main()

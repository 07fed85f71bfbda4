"""``gluon_mlp.py`` written for MXNet 2: the same known answers, on np arrays.

    python tests/jobs/gluon2_mlp.py [--hybridize] [--steps 10] [--custom]

MXNet 2's style throughout: ``npx.set_np()``, a ``HybridBlock`` with ``forward(self, x)``
(no prefixes, no ``hybrid_forward``), ``mx.np`` data, ``initialize(device=)``. The
network is ``Dense(--width=512, relu) -> heavy Dense(--heavy=4096, relu) -> Dense(10)``
on a batch of 64 random rows of 64 features; the heavy layer is the second Dense made in
the process, so its name is ``dense1`` (``dense0`` and ``dense2`` the others), and it
holds nearly all the arithmetic. With ``--custom`` a custom operator (``Scale``: 2 * x,
numpy in ``forward`` and ``backward``) is called on the first layer's output through
``mx.nd.Custom`` with np arrays. Hybridized, the block's ``forward`` becomes one graph
recorded from its first call.

Prints the wall time of each step measured with ``perf_counter`` as one JSON line
(``{"steps_s": [...], "sleep_s": 0}``), as ``gluon_mlp.py`` does.
"""
import argparse
import json
import time

import xprof.runtime as mx
from xprof.runtime import autograd, gluon, np, npx
from xprof.runtime.gluon import nn

npx.set_np()


class Scale(mx.operator.CustomOp):
    """out = 2 * x; its gradient, 2 * dy (numpy values, written back with assign)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.np.array(in_data[0].asnumpy() * 2))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], mx.np.array(out_grad[0].asnumpy() * 2))


@mx.operator.register("Scale2")
class ScaleProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, device, shapes, dtypes):
        return Scale()


class MLP(nn.HybridBlock):
    def __init__(self, width, heavy, custom):
        super().__init__()
        self.first = nn.Dense(width, activation="relu", in_units=64)
        self.heavy = nn.Dense(heavy, activation="relu", in_units=width)
        self.head = nn.Dense(10, in_units=heavy)
        self.custom = custom

    def forward(self, x):
        h = self.first(x)
        if self.custom:
            h = mx.nd.Custom(h, op_type="Scale2")
        return self.head(self.heavy(h))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hybridize", action="store_true")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--heavy", type=int, default=4096)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--custom", action="store_true")
    args = ap.parse_args()
    device = mx.gpu() if mx.device.num_gpus() else mx.cpu()
    npx.random.seed(0)
    x = np.random.normal(size=(args.batch_size, 64), device=device)
    y = np.random.randint(0, 10, size=(args.batch_size,), device=device)
    net = MLP(args.width, args.heavy, args.custom)
    net.initialize(mx.init.Xavier(), device=device)
    if args.hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    steps = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(args.batch_size)
        npx.waitall()
        steps.append(time.perf_counter() - t0)
    print(json.dumps({"steps_s": steps, "sleep_s": 0.0}))


if __name__ == "__main__":
    main()

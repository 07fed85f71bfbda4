"""A Gluon job written for MXNet 2 (np arrays, ``forward``, ``device=``) with two custom
operators, trained imperatively and then hybridized.

    xprof run --stats sample_scripts/gluon2_custom_ops.py [--steps 4] [--batch-size 32]

The network classifies random 16x16 single-channel images into 10 classes:

    Conv2D(8, 3, relu) -> Softsign (custom, numpy in Python) -> MaxPool2D(2)
    -> Flatten -> Dense(64) -> ScaledTanh (custom, np sub-operators) -> Dense(10)

``Softsign`` computes ``x / (1 + |x|)`` in numpy inside ``forward``/``backward`` (its
time is Python: the ``pure_python`` part of its calls); ``ScaledTanh`` computes
``1.7159 * tanh(2/3 x)`` with ``mx.np`` operators on the arrays it receives (np arrays,
as it was called with), so its calls are sub-operators (``_npi_tanh``,
``_npi_multiply_scalar``...). Half the steps run imperatively, the other half with
the network hybridized: its ``forward`` is recorded into one graph at the first
hybridized call, and each of its operators is still an event with its layer's name.

Only the import lines differ from the MXNet 2 version of this script, and one thing
MXNet 2 refuses: ``mx.nd.Custom`` accepts np arrays here (MXNet asks for
``as_nd_ndarray()`` first).
"""
import argparse

import numpy

import xprof.runtime as mx
from xprof.runtime import autograd, gluon, np, npx
from xprof.runtime.gluon import nn

npx.set_np()


class Softsign(mx.operator.CustomOp):
    """x / (1 + |x|) in numpy; gradient 1 / (1 + |x|)^2."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        self.assign(out_data[0], req[0], np.array(x / (1 + numpy.abs(x))))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x = in_data[0].asnumpy()
        dy = out_grad[0].asnumpy()
        self.assign(in_grad[0], req[0], np.array(dy / (1 + numpy.abs(x)) ** 2))


@mx.operator.register("Softsign")
class SoftsignProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, device, shapes, dtypes):
        return Softsign()


class ScaledTanh(mx.operator.CustomOp):
    """1.7159 * tanh(2/3 x) with np operators (LeCun's activation)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], 1.7159 * np.tanh(in_data[0] * (2 / 3)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        t = np.tanh(in_data[0] * (2 / 3))
        self.assign(in_grad[0], req[0], out_grad[0] * (1.7159 * 2 / 3) * (1 - t * t))


@mx.operator.register("ScaledTanh")
class ScaledTanhProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, device, shapes, dtypes):
        return ScaledTanh()


class Net(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(8, kernel_size=3, activation="relu")
        self.pool = nn.MaxPool2D(pool_size=2)
        self.flatten = nn.Flatten()
        self.hidden = nn.Dense(64)
        self.out = nn.Dense(10)

    def forward(self, x):
        x = mx.nd.Custom(self.conv(x), op_type="Softsign")
        x = self.hidden(self.flatten(self.pool(x)))
        return self.out(mx.nd.Custom(x, op_type="ScaledTanh"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4, help="steps of each half")
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    device = mx.gpu() if mx.device.num_gpus() else mx.cpu()
    npx.random.seed(0)
    x = np.random.uniform(size=(args.batch_size, 1, 16, 16), device=device)
    y = np.random.randint(0, 10, size=(args.batch_size,), device=device)
    net = Net()
    net.initialize(mx.init.Xavier(), device=device)
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    metric = gluon.metric.Accuracy()
    for half in ("imperative", "hybridized"):
        if half == "hybridized":
            net.hybridize()
        for step in range(args.steps):
            with autograd.record():
                out = net(x)
                loss = loss_fn(out, y)
            loss.backward()
            trainer.step(args.batch_size)
            metric.update(y, out)
        print(f"{half}: loss {float(loss.mean()):.4f}, {metric.get()[0]} "
              f"{metric.get()[1]:.3f}")


if __name__ == "__main__":
    main()

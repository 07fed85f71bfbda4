"""Module-API training, profiled: ``mx.mod.Module.fit`` on an ``NDArrayIter``.

A two-layer MLP on a synthetic, learnable classification problem (the label is the
argmax of a fixed linear map of the input), trained with SGD and momentum; the fit
logs its speed (``Speedometer``), scores a validation iterator every epoch and writes
MXNet checkpoints (``do_checkpoint``). Run it under ``xprof run``: each node of the
bound symbol is its own ``operator`` event (bulk execution is off), named as in MXNet
(``FullyConnected``, ``_backward_FullyConnected``) with the node name in its args.

    xprof run sample_scripts/module_fit_mlp.py [--epochs 2] [--prefix DIR/mlp]
"""
import argparse
import logging
import os
import tempfile

import numpy as np

import xprof.runtime as mx


def data(n, rng, proj):
    x = rng.uniform(-1, 1, size=(n, 20)).astype(np.float32)
    return x, np.argmax(x @ proj, axis=1).astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=25)
    ap.add_argument("--prefix", default=os.path.join(tempfile.gettempdir(), "mlp"))
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO)
    rng = np.random.default_rng(0)
    proj = rng.normal(size=(20, 4))
    train_x, train_y = data(100, rng, proj)
    val_x, val_y = data(50, rng, proj)
    train = mx.io.NDArrayIter(train_x, train_y, args.batch_size, shuffle=True)
    val = mx.io.NDArrayIter(val_x, val_y, args.batch_size)

    net = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(net, num_hidden=32, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=4, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")

    mod = mx.mod.Module(net, data_names=("data",), label_names=("softmax_label",))
    mod.fit(train, eval_data=val, eval_metric="acc", optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
            initializer=mx.init.Xavier(), num_epoch=args.epochs,
            batch_end_callback=mx.callback.Speedometer(args.batch_size, 2),
            epoch_end_callback=mx.callback.do_checkpoint(args.prefix))
    (name, acc), = mod.score(val, "acc")
    print(f"validation {name} {acc:.3f}")


if __name__ == "__main__":
    main()

"""The heavy-Dense MLP of ``gluon_mlp.py`` trained by ``mx.mod.Module.fit``.

    python tests/jobs/module_mlp.py [--epochs 1] [--batches 10] [--batch-size 64]
                                    [--heavy 4096] [--width 512] [--sync-batches]

``first`` (--width units, relu) -> ``heavy`` (--heavy units, relu) -> ``head`` (10) ->
``SoftmaxOutput``, SGD, on ``--batches`` batches of ``--batch-size`` random rows. The ``heavy`` layer's
``FullyConnected`` and ``_backward_FullyConnected`` bound each step. Prints the wall time
of the fit as JSON (``{"fit_s": ...}``), measured with ``perf_counter``.
"""
import argparse
import json
import time

import numpy as np

import xprof.runtime as mx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--heavy", type=int, default=4096)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--sync-batches", action="store_true",
                    help="end each batch with mx.nd.waitall() (a step boundary)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = args.batch_size * args.batches
    x = rng.normal(size=(n, 64)).astype(np.float32)
    y = rng.integers(0, 10, size=n).astype(np.float32)
    train = mx.io.NDArrayIter(x, y, args.batch_size)
    net = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(net, num_hidden=args.width, name="first")
    net = mx.sym.Activation(net, act_type="relu", name="first_relu")
    net = mx.sym.FullyConnected(net, num_hidden=args.heavy, name="heavy")
    net = mx.sym.Activation(net, act_type="relu", name="heavy_relu")
    net = mx.sym.FullyConnected(net, num_hidden=10, name="head")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    mod = mx.mod.Module(net, data_names=("data",), label_names=("softmax_label",))
    t0 = time.perf_counter()
    mod.fit(train, optimizer="sgd", optimizer_params={"learning_rate": 0.01},
            initializer=mx.init.Xavier(), num_epoch=args.epochs,
            batch_end_callback=(lambda _: mx.nd.waitall()) if args.sync_batches else None)
    if not args.sync_batches:   # (each batch's callback waited already)
        mx.nd.waitall()
    print(json.dumps({"fit_s": time.perf_counter() - t0}))


if __name__ == "__main__":
    main()

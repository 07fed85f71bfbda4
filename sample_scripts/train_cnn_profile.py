"""Profile one training iteration of a small CNN (MXNet's "Profiling MXNet Models" guide).

The network is the guide's LeNet-style CNN:

    Conv2D(20, 5, relu) -> MaxPool2D(2, 2) -> Conv2D(50, 5, relu) -> MaxPool2D(2, 2)
    -> Flatten -> Dense(512, relu) -> Dense(10)

trained with SGD on MNIST read from local idx files (``--mnist DIR``, holding
``train-images-idx3-ubyte`` and ``train-labels-idx1-ubyte``, plain or ``.gz``) or, by
default, on a small synthetic dataset. One warm-up iteration runs unprofiled (it
creates the deferred parameters and, with ``--hybridize``, builds the graph); the next
iteration (``--iterations N``: the next N, each ended by ``waitall``) is profiled, the
aggregate table printed (``mx.profiler.dumps()``) and the trace written
(``mx.profiler.dump()``). Open the trace file in chrome://tracing or Perfetto, or run ``xprof stats`` on it: each operator event carries
its layer's name (``{"name": "hybridsequential0_conv0"}``) so the two convolutions can
be told apart.

    python sample_scripts/train_cnn_profile.py [--mnist DIR | DIR] [--hybridize]
        [--batch-size 64] [--iterations 1] [--output profile_output.json]

Only the import line differs from the MXNet version of this script.
"""
import argparse
import sys

import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn


def build_net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(channels=20, kernel_size=5, activation="relu"))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
        net.add(nn.Conv2D(channels=50, kernel_size=5, activation="relu"))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
        net.add(nn.Flatten())
        net.add(nn.Dense(512, activation="relu"))
        net.add(nn.Dense(10))
    return net


def synthetic_dataset(num_samples, seed=0):
    """Images (n, 28, 28, 1) uint8 and labels: each class a fixed random pattern plus
    noise (learnable, so the loss goes down as it would on MNIST)."""
    rng = np.random.default_rng(seed)
    patterns = rng.integers(0, 256, size=(10, 28, 28, 1))
    labels = np.arange(num_samples) % 10
    noise = rng.integers(-64, 65, size=(num_samples, 28, 28, 1))
    images = np.clip(patterns[labels] + noise, 0, 255).astype(np.uint8)
    return gluon.data.ArrayDataset(images, labels.astype(np.float32))


def load_data(args):
    if args.mnist:
        try:
            dataset = gluon.data.vision.MNIST(root=args.mnist, train=True)
        except (FileNotFoundError, ValueError) as e:
            sys.exit(f"train_cnn_profile: {e}")
    else:
        dataset = synthetic_dataset(args.samples)
    dataset = dataset.transform_first(gluon.data.vision.transforms.ToTensor())
    return gluon.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                                 last_batch="discard")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mnist", metavar="DIR", help="folder with the MNIST idx files "
                        "(default: synthetic data)")
    parser.add_argument("mnist_dir", nargs="?", metavar="MNIST_DIR",
                        help="the same folder, given as a plain path")
    parser.add_argument("--hybridize", action="store_true",
                        help="run the network through the symbolic executor")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--samples", type=int, default=256,
                        help="synthetic samples (ignored with --mnist)")
    parser.add_argument("--iterations", type=int, default=1,
                        help="iterations to profile (the data must hold one more)")
    parser.add_argument("--output", default="profile_output.json",
                        help="trace file to write (Chrome trace format)")
    args = parser.parse_args(argv)
    if args.mnist and args.mnist_dir and args.mnist != args.mnist_dir:
        parser.error("give the MNIST folder once (--mnist DIR or DIR)")
    args.mnist = args.mnist or args.mnist_dir
    if args.batch_size < 1:
        parser.error("--batch-size must be positive")
    if args.iterations < 1:
        parser.error("--iterations must be positive")

    mx.random.seed(42)
    np.random.seed(42)
    ctx = mx.cpu()
    train_data = load_data(args)
    batches = iter(train_data)

    net = build_net()
    net.initialize(mx.init.Xavier(magnitude=2.24), ctx=ctx)
    if args.hybridize:
        net.hybridize()
    softmax_cross_entropy = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})

    def run_iteration():
        try:
            data, label = next(batches)
        except StopIteration:
            sys.exit(f"train_cnn_profile: not enough data for {args.iterations + 1} "
                     f"batches; lower --batch-size or --iterations")
        data = data.as_in_context(ctx)
        label = label.as_in_context(ctx)
        with autograd.record():
            output = net(data)
            loss = softmax_cross_entropy(output, label)
        loss.backward()
        trainer.step(data.shape[0])
        return loss

    # Warm-up: deferred initialization, graph construction (hybridized), first kernels.
    run_iteration()
    mx.nd.waitall()

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    mx.profiler.set_state("run")
    for _ in range(args.iterations):
        loss = run_iteration()
        # Ask the engine to finish everything (ops run asynchronously).
        mx.nd.waitall()
    mx.profiler.set_state("stop")
    # The aggregate table first: dump() ends the profiling session (xprof releases the
    # recorded events then), and this order works the same in MXNet.
    print(mx.profiler.dumps())
    mx.profiler.dump()
    print(f"loss: {float(loss.mean().asscalar()):.4f}; trace written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

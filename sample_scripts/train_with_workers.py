"""Train a small network on data loaded by DataLoader worker processes.

Under ``xprof run`` each worker is a process track group of its own in the profile,
``DataLoader worker 0``, ``DataLoader worker 1``, ...: its ``__getitem__`` (each sample,
transforms included) and ``batchify`` slices (category ``DataLoader``), the NDArray
operators its samples ran, and its memory. The training loop's thread has a
``wait for batch`` slice per batch: the time it waited for its input (long ones mean
the loop is input-bound: more workers, or cheaper transforms).

    xprof run sample_scripts/train_with_workers.py [--workers 2] [--epochs 2]
        [--samples 96] [--batch-size 16] [--item-ms 1]
"""
import argparse
import time

import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd, gluon


class Synthetic(gluon.data.Dataset):
    """Sample i: a noisy 8x8 image of class i % 4 (an NDArray made and scaled in
    ``__getitem__``, so the workers run engine ops), and its label; ``item_ms`` of
    extra CPU work per sample stands for decoding and augmentation."""

    def __init__(self, n, item_ms):
        rng = np.random.default_rng(0)
        self._images = rng.random((n, 1, 8, 8), dtype=np.float32)
        self._item_s = item_ms / 1e3

    def __len__(self):
        return len(self._images)

    def __getitem__(self, i):
        until = time.perf_counter() + self._item_s
        while time.perf_counter() < until:      # the sample's own CPU work
            pass
        image = mx.nd.array(self._images[i]) * 2 - 1
        return image, np.float32(i % 4)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--samples", type=int, default=96)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--item-ms", type=float, default=1.0)
    args = parser.parse_args(argv)

    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dense(4))
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    loader = gluon.data.DataLoader(Synthetic(args.samples, args.item_ms),
                                   batch_size=args.batch_size, num_workers=args.workers)
    for epoch in range(args.epochs):
        total = 0.0
        for data, label in loader:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
            total += loss.mean().asscalar()
        print(f"epoch {epoch}: mean loss {total / len(loader):.4f}")


if __name__ == "__main__":
    main()

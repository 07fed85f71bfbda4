"""Shared pieces of the Gluon tests: the guide's CNN, a learnable synthetic dataset,
a training loop and numerical differentiation."""
import gzip
import os
import struct

import numpy as np
from gradcheck import numeric_grad

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn


def guide_cnn():
    """The CNN of MXNet's profiling guide."""
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2, 2),
                nn.Conv2D(50, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Flatten(),
                nn.Dense(512, activation="relu"), nn.Dense(10))
    return net


def synthetic(n=512, seed=0, noise=1.0):
    """(x, y): class k is a fixed random 28x28 pattern plus Gaussian noise."""
    rng = np.random.default_rng(seed)
    patterns = rng.standard_normal((10, 1, 28, 28), dtype=np.float32)
    y = np.arange(n) % 10
    x = patterns[y] + noise * rng.standard_normal((n, 1, 28, 28), dtype=np.float32)
    return x.astype(np.float32), y.astype(np.float32)


def train(net, x, y, epochs, batch_size=64, lr=0.01, momentum=0.9, seed=7):
    """SGD-train ``net``; return (per-step mean losses, final training accuracy)."""
    np.random.seed(seed)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=batch_size,
                                   shuffle=True)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": lr, "momentum": momentum})
    losses = []
    for _ in range(epochs):
        for data, label in loader:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
            losses.append(float(loss.mean().asscalar()))
    acc = mx.metric.Accuracy()
    for data, label in gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=256):
        acc.update(label, net(data))
    return np.array(losses), acc.get()[1]


def numerical_grad(f, arr, eps=1e-6):
    """Central differences of scalar ``f()`` w.r.t. every element of numpy ``arr``."""
    return numeric_grad(f, arr, eps)


def write_idx(path, array, gz):
    """Write ``array`` (uint8) as an idx file, gzipped to ``path.gz`` if ``gz``."""
    codes = {np.dtype(np.uint8): 0x08}
    header = struct.pack(">HBB", 0, codes[array.dtype], array.ndim)
    header += struct.pack(">" + "I" * array.ndim, *array.shape)
    opener = gzip.open if gz else open
    with opener(path + (".gz" if gz else ""), "wb") as f:
        f.write(header + array.tobytes())


def mnist_dir(root, n, gz, train=True, seed=0):
    """Write a tiny MNIST-format dataset (random images and labels) into ``root``."""
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    stem = "train" if train else "t10k"
    os.makedirs(root, exist_ok=True)
    write_idx(os.path.join(root, f"{stem}-images-idx3-ubyte"), images, gz)
    write_idx(os.path.join(root, f"{stem}-labels-idx1-ubyte"), labels, gz)
    return images, labels

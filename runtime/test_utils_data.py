"""MXNet's data-set helpers of ``mx.test_utils`` on local files: ``download`` returns a
file already there (xprof never downloads), ``get_mnist`` reads MNIST's gzipped idx files
from the current folder, ``get_mnist_iterator`` builds MNISTIters over ``data/``."""
import gzip
import os
import struct

import numpy as np

__all__ = ["download", "get_mnist", "get_mnist_ubyte", "get_mnist_iterator", "get_cifar10",
           "get_bz2_data", "DummyIter"]


def _no_download(what):
    return RuntimeError(f"{what}: xprof does not download data sets; put the files in "
                        "place yourself and read them with mx.io or gluon.data")


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """MXNet's ``download``, which returns a file already there (``fname``, default the
    URL's last part, under ``dirname``) without downloading: xprof never downloads, so a
    missing file (or ``overwrite=True``) is an error naming it."""
    if retries < 0:
        raise ValueError(f"download: retries={retries} must be at least 0")
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname and not os.path.exists(dirname):
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        return fname
    raise _no_download(f"download({url!r}) to {fname!r}")


def get_mnist():
    """MNIST's four gzipped idx files (``download``: they must be in the current folder)
    as a dict: ``train_data``/``test_data`` (N, 1, 28, 28) float32 in [0, 1],
    ``train_label``/``test_label`` int8, as MXNet's."""
    def read_data(label_url, image_url):
        with gzip.open(download(label_url)) as flbl:
            struct.unpack(">II", flbl.read(8))
            label = np.frombuffer(flbl.read(), dtype=np.int8)
        with gzip.open(download(image_url), "rb") as fimg:
            _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
            image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), rows, cols)
            image = image.reshape(image.shape[0], 1, 28, 28).astype(np.float32) / 255
        return label, image

    path = "http://data.mxnet.io/data/mnist/"
    train_lbl, train_img = read_data(path + "train-labels-idx1-ubyte.gz",
                                     path + "train-images-idx3-ubyte.gz")
    test_lbl, test_img = read_data(path + "t10k-labels-idx1-ubyte.gz",
                                   path + "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_img, "train_label": train_lbl,
            "test_data": test_img, "test_label": test_lbl}


_MNIST_UBYTE = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


def get_mnist_ubyte():
    """MNIST's four idx files in ``data/`` (MXNet downloads and unzips them there;
    xprof needs them in place)."""
    os.makedirs("data", exist_ok=True)
    missing = [n for n in _MNIST_UBYTE if not os.path.exists(os.path.join("data", n))]
    if missing:
        raise _no_download(f"get_mnist_ubyte (missing data/{missing[0]})")


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, val) ``MNISTIter``s over ``data/``'s idx files, flat unless
    ``input_shape`` has 3 dimensions; the training one shuffled (as MXNet's)."""
    from . import io as _io
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = _io.MNISTIter(image="data/train-images-idx3-ubyte",
                          label="data/train-labels-idx1-ubyte", input_shape=input_shape,
                          batch_size=batch_size, shuffle=True, flat=flat,
                          num_parts=num_parts, part_index=part_index)
    val = _io.MNISTIter(image="data/t10k-images-idx3-ubyte",
                        label="data/t10k-labels-idx1-ubyte", input_shape=input_shape,
                        batch_size=batch_size, flat=flat, num_parts=num_parts,
                        part_index=part_index)
    return train, val


def get_cifar10(path="data"):
    raise _no_download("get_cifar10")


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    raise _no_download("get_bz2_data")


def DummyIter(real_iter):  # noqa: N802 - MXNet's class name
    """An iterator giving ``real_iter``'s first batch forever (MXNet's speed-test helper)."""
    from . import io as _io

    class _Dummy(_io.DataIter):
        def __init__(self):
            super().__init__(real_iter.batch_size)
            self.provide_data = real_iter.provide_data
            self.provide_label = real_iter.provide_label
            self.the_batch = next(real_iter)

        def next(self):
            return self.the_batch
    return _Dummy()

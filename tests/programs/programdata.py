"""What the programs of ``tests/programs`` download or display, made locally.

- ``write_mnist``: MNIST's four idx files (random digits, gzipped as MXNet downloads
  them), where ``MNIST()`` looks.
- ``write_pretrained``: a model zoo network's weights file (random weights) where
  ``pretrained=True`` looks, written by the engine under test.
- ``write_leaves``: the crash course's leaf images (``plants/<species>/<healthy|
  diseased>/*.JPG``), small synthetic pictures. They are PNG images: MXNet's
  ``image.imread`` and xprof's decode a file by its content, and the page's own
  ``prepare_dataset`` selects files by the ``.JPG`` name.
- ``install_pyplot``: a stand-in for ``matplotlib.pyplot`` (not a dependency of the
  tests) that checks every picture it is given is an image a real one would draw.
- ``skip_mxnet_checksums``: MXNet compares MNIST's files with the published ones and
  downloads on a mismatch; for the reference runs on MXNet, synthetic files are accepted.
"""
import gzip
import os
import struct
import sys
import types
import zlib

import numpy as np


def write_mnist(folder, n_train, seed=0):
    """``{train,t10k}-{images-idx3,labels-idx1}-ubyte`` with ``n_train`` and
    ``n_train // 2`` random samples."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)

    def idx(path, arr):
        with gzip.open(path + ".gz", "wb") as f:
            f.write(bytes([0, 0, 8, arr.ndim]))
            f.write(struct.pack(">" + "I" * arr.ndim, *arr.shape))
            f.write(arr.astype(np.uint8).tobytes())

    for split, n in (("train", n_train), ("t10k", max(n_train // 2, 1))):
        idx(os.path.join(folder, f"{split}-images-idx3-ubyte"),
            rng.integers(0, 256, (n, 28, 28)))
        idx(os.path.join(folder, f"{split}-labels-idx1-ubyte"), rng.integers(0, 10, (n,)))


def write_pretrained(name, mx):
    """``~/.mxnet/models/<name>.params``: ``name``'s weights, initialized at random by
    ``mx`` (the engine under test) and saved as ``pretrained=True`` loads them."""
    folder = os.path.join(os.path.expanduser("~"), ".mxnet", "models")
    os.makedirs(folder, exist_ok=True)
    mx.npx.set_np()          # saved as MXNet 2 saves them: NumPy shape semantics
    try:
        net = mx.gluon.model_zoo.vision.get_model(name)
        net.initialize()
        net(mx.np.zeros((1, 3, 224, 224)))
        net.save_parameters(os.path.join(folder, name + ".params"))
    finally:
        mx.npx.reset_np()


def png_bytes(image):
    """An 8-bit RGB (H, W, 3) uint8 array as a PNG file's bytes."""
    h, w, c = image.shape
    assert c == 3 and image.dtype == np.uint8

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, w * 3)], axis=1)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
            + chunk(b"IEND", b""))


SPECIES = ("Mango (P0)", "Arjun (P1)")


def write_leaves(root, per_class, size=(48, 72), seed=0):
    """``per_class`` pictures of each of healthy/diseased, spread over two species."""
    rng = np.random.default_rng(seed)
    for target, tint in (("healthy", (40, 160, 40)), ("diseased", (150, 120, 40))):
        for i in range(per_class):
            folder = os.path.join(root, SPECIES[i % len(SPECIES)], target)
            os.makedirs(folder, exist_ok=True)
            noise = rng.integers(-40, 40, size + (3,))
            image = np.clip(np.array(tint) + noise, 0, 255).astype(np.uint8)
            with open(os.path.join(folder, f"{i:04d}_{target}.JPG"), "wb") as f:
                f.write(png_bytes(image))


# -- a stand-in for matplotlib.pyplot --------------------------------------------------------
def _check_image(image):
    a = np.asarray(image)
    if a.dtype == object or a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[-1] not in (3, 4)):
        raise TypeError(f"imshow: not an image: {type(image).__name__} of shape "
                        f"{getattr(a, 'shape', None)}")
    return a


class _Axes:
    def imshow(self, image, **kwargs):
        _check_image(image)

    def set_title(self, *args, **kwargs):
        pass

    def set(self, **kwargs):
        pass

    def axis(self, *args, **kwargs):
        pass


class _Figure:
    def tight_layout(self, **kwargs):
        pass


def _subplots(nrows=1, ncols=1, **kwargs):
    axes = np.empty((nrows, ncols), dtype=object)
    for i in range(nrows):
        for j in range(ncols):
            axes[i, j] = _Axes()
    if nrows == 1 and ncols == 1:
        return _Figure(), axes[0, 0]
    if nrows == 1 or ncols == 1:
        return _Figure(), axes.reshape(-1)
    return _Figure(), axes


def install_pyplot():
    """``matplotlib.pyplot`` as the stand-in, unless matplotlib is installed."""
    try:
        import matplotlib  # noqa: F401
        import matplotlib.pyplot  # noqa: F401
        return
    except ImportError:
        pass
    package = types.ModuleType("matplotlib")
    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.subplots = _subplots
    pyplot.imshow = lambda image, **kwargs: _check_image(image) is None
    pyplot.show = lambda *a, **k: None
    pyplot.figure = lambda *a, **k: _Figure()
    pyplot.title = pyplot.axis = lambda *a, **k: None
    package.pyplot = pyplot
    sys.modules["matplotlib"] = package
    sys.modules["matplotlib.pyplot"] = pyplot


def skip_mxnet_checksums():
    import mxnet.gluon.data.vision.datasets as datasets
    import mxnet.gluon.utils as utils
    datasets.check_sha1 = utils.check_sha1 = lambda *args, **kwargs: True

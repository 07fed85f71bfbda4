"""What the programs of ``tests/programs`` download or display, made locally.

- ``write_mnist``: MNIST's four idx files (random digits, or with ``learnable`` digits
  a network can tell apart; gzipped as MXNet downloads them, or plain as MXNet's zip
  holds them), where ``MNIST()`` / ``MNISTIter`` look.
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


def write_mnist(folder, n_train, seed=0, learnable=False, gz=True, n_test=None):
    """``{train,t10k}-{images-idx3,labels-idx1}-ubyte`` (``.gz`` unless ``gz=False``)
    with ``n_train`` and ``n_test`` (default ``n_train // 2``) samples: random pixels,
    or with ``learnable`` each digit its class's stroke pattern plus noise, so that a
    trained network's accuracy says something."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_test = max(n_train // 2, 1) if n_test is None else n_test
    protos = rng.random((10, 28, 28)) < 0.25 if learnable else None

    def idx(path, arr):
        opener = gzip.open if gz else open
        with opener(path + (".gz" if gz else ""), "wb") as f:
            f.write(bytes([0, 0, 8, arr.ndim]))
            f.write(struct.pack(">" + "I" * arr.ndim, *arr.shape))
            f.write(arr.astype(np.uint8).tobytes())

    for split, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, (n,))
        if learnable:
            flips = rng.random((n, 28, 28)) < 0.3      # an MLP learns it, after a while
            images = (protos[labels] ^ flips) * rng.integers(150, 256, (n, 28, 28))
        else:
            images = rng.integers(0, 256, (n, 28, 28))
        idx(os.path.join(folder, f"{split}-images-idx3-ubyte"), images)
        idx(os.path.join(folder, f"{split}-labels-idx1-ubyte"), labels)


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


# -- the data of MXNet's example programs (tests/programs/examples) -------------------------
RECORD_MAGIC = 0xCED7230A


def recordio_bytes(payloads):
    """RecordIO as dmlc-core writes it: per record the magic, (continuation flag << 29 |
    length), the payload padded to 4 bytes. A payload holding the magic at a 4-byte
    boundary is written in parts (flags 1, 2..., 3) without those 4 bytes, as dmlc does."""
    out = bytearray()
    magic = struct.pack("<I", RECORD_MAGIC)
    for data in payloads:
        cuts = [i for i in range(0, len(data) - 3, 4) if data[i:i + 4] == magic]
        parts = [data[a + (4 if k else 0):b] for k, (a, b) in
                 enumerate(zip([0] + cuts, cuts + [len(data)]))]
        for k, part in enumerate(parts):
            flag = 0 if len(parts) == 1 else 1 if k == 0 else 3 if k == len(parts) - 1 else 2
            out += magic + struct.pack("<I", (flag << 29) | len(part)) + part
            out += b"\0" * (-len(part) % 4)
    return bytes(out)


def image_record(label, index, encoded):
    """An image record as ``mx.recordio.pack`` makes it: the ``IfQQ`` header (flag 0,
    a float label, the id, 0), then the encoded image."""
    return struct.pack("<IfQQ", 0, float(label), index, 0) + encoded


def encoded(image, fmt="JPEG", quality=95):
    """An (H, W, 3) or (H, W) uint8 array as a JPEG/PNG file's bytes (Pillow)."""
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format=fmt, quality=quality)
    return buf.getvalue()


def smooth_image(rng, height, width):
    """A picture with structure at several scales (blurred noise, colour gradients): what
    a resize or crop does to it shows, unlike white noise."""
    small = rng.integers(0, 256, (height // 16 + 2, width // 16 + 2, 3)).astype(np.float32)
    ys = np.linspace(0, small.shape[0] - 1.001, height)
    xs = np.linspace(0, small.shape[1] - 1.001, width)
    y0, x0 = ys.astype(int), xs.astype(int)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    rows = small[y0] * (1 - fy) + small[y0 + 1] * fy
    img = rows[:, x0] * (1 - fx) + rows[:, x0 + 1] * fx
    img += rng.normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def write_image_rec(path, n, size=(256, 320), seed=0, classes=10):
    """``path`` (.rec) and its ``.idx``: ``n`` JPEG pictures of ``size`` (H, W), labels
    ``i % classes``, as ``im2rec.py``/``MXIndexedRecordIO`` write them."""
    rng = np.random.default_rng(seed)
    records = [image_record(i % classes, i, encoded(smooth_image(rng, *size)))
               for i in range(n)]
    blob = recordio_bytes(records)
    with open(path, "wb") as f:
        f.write(blob)
    pos, lines = 0, []
    for i, rec in enumerate(records):
        lines.append(f"{i}\t{pos}\n")
        pos += len(recordio_bytes([rec]))
    with open(os.path.splitext(path)[0] + ".idx", "w") as f:
        f.writelines(lines)


def write_bsds(root, n_train, n_test, size=(270, 300), seed=0):
    """BSDS500's ``images/{train,test}/*.jpg`` (what super_resolution downloads)."""
    rng = np.random.default_rng(seed)
    for split, n in (("train", n_train), ("test", n_test)):
        folder = os.path.join(root, "images", split)
        os.makedirs(folder, exist_ok=True)
        for i in range(n):
            h, w = size if i % 2 else size[::-1]       # both orientations, as BSDS
            with open(os.path.join(folder, f"{1000 + i}.jpg"), "wb") as f:
                f.write(encoded(smooth_image(rng, h, w)))


def write_sentences(folder, n_train, n_test, vocab=40, seed=0):
    """``sherlockholmes.{train,test}.txt``: sentences of 5-55 words drawn from a small
    Markov chain (each word has 3 likely successors), so an LSTM's perplexity falls; the
    test file uses only words the training file has (the vocabulary comes from it)."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocab)]
    succ = rng.integers(0, vocab, (vocab, 3))
    os.makedirs(folder, exist_ok=True)
    seen = set()
    for split, n in (("train", n_train), ("test", n_test)):
        lines = []
        for _ in range(n):
            k, w = int(rng.integers(5, 56)), int(rng.integers(vocab))
            out = []
            for _ in range(k):
                if split == "train" or words[w] in seen:
                    out.append(words[w])
                w = int(succ[w, rng.integers(3)]) if rng.random() < 0.9 else int(
                    rng.integers(vocab))
            seen.update(out)
            lines.append(" " + " ".join(out) + " \n")
        with open(os.path.join(folder, f"sherlockholmes.{split}.txt"), "w") as f:
            f.writelines(lines)


MEMONGER = '''"""A stand-in for dmlc/mxnet-memonger, which profiler_executor.py imports and (without
use_memonger) never calls; the real package is not a dependency of xprof's tests."""


def search_plan(sym, **kwargs):
    raise NotImplementedError("memonger.search_plan: the stand-in of xprof's tests")
'''


def write_memonger(folder):
    with open(os.path.join(folder, "memonger.py"), "w") as f:
        f.write(MEMONGER)

"""Vision datasets read from local files (there is no download: xprof runs offline).

``ImageFolderDataset(root)`` reads a folder of class folders (``root/<class>/<image>``)
as MXNet does: ``synsets`` the sorted class folder names, samples ``(image, label)``
with the image an (H, W, 3) uint8 array read by ``mx.image.imread`` (``flag=0``: one
grey channel) and the label the class index; files whose extension is not an image's
are skipped with a warning.

``MNIST(root, train=True)`` reads the standard idx files from ``root``:
``train-images-idx3-ubyte`` / ``train-labels-idx1-ubyte`` (``train=True``) or
``t10k-images-idx3-ubyte`` / ``t10k-labels-idx1-ubyte``, each plain or gzipped
(``.gz``). Samples are ``(image, label)``: the image an NDArray of shape (28, 28, 1),
uint8, the label an int32 scalar, as in MXNet.
"""
import gzip
import os
import struct
import warnings

import numpy as np

from .... import image as _image
from ... import _arrays
from ..dataset import Dataset

__all__ = ["MNIST", "FashionMNIST", "ImageFolderDataset", "DatasetNotFoundError", "read_idx"]


class DatasetNotFoundError(FileNotFoundError, ValueError):
    """A dataset's files are not in the given folder (catchable as either
    FileNotFoundError or ValueError)."""


_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
              0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def read_idx(path):
    """Read an idx file (plain or gzipped) into a numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{path}: cannot read the idx file: {e}") from None
    if len(raw) < 4:
        raise ValueError(f"{path}: too short for an idx file ({len(raw)} bytes)")
    zero, dtype_code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or dtype_code not in _IDX_TYPES or ndim < 1:
        raise ValueError(f"{path}: not an idx file (bad magic number "
                         f"0x{int.from_bytes(raw[:4], 'big'):08x})")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: truncated idx header")
    dims = struct.unpack(">" + "I" * ndim, raw[4:header])
    dtype = np.dtype(_IDX_TYPES[dtype_code])
    expected = int(np.prod(dims)) * dtype.itemsize
    if len(raw) - header != expected:
        raise ValueError(f"{path}: idx header says shape {dims} ({expected} bytes of data) "
                         f"but the file holds {len(raw) - header} bytes")
    data = np.frombuffer(raw, dtype=dtype, offset=header).reshape(dims)
    return data.astype(dtype.newbyteorder("=")) if dtype.byteorder == ">" else data.copy()


def _find(root, stem):
    """The path of ``stem`` in ``root`` (plain, .gz, or with '.' for the last '-')."""
    alt = stem[::-1].replace("-", ".", 1)[::-1]      # train-images.idx3-ubyte style
    for name in (stem, stem + ".gz", alt, alt + ".gz"):
        path = os.path.join(root, name)
        if os.path.isfile(path):
            return path
    return None


class MNIST(Dataset):
    """The MNIST handwritten digits from local idx files in ``root``."""

    _files = {True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
              False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
    _what = "MNIST"

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "mnist"), train=True,
                 transform=None):
        self._root = os.path.abspath(os.path.expanduser(str(root)))
        self._train = bool(train)
        self._transform = transform
        images, labels = self._files[self._train]
        if not os.path.isdir(self._root):
            raise DatasetNotFoundError(
                f"{self._what}: folder {self._root} does not exist; it must hold {images} "
                f"and {labels} (plain or .gz). xprof never downloads datasets: copy the "
                "files there or pass root=")
        paths = [_find(self._root, stem) for stem in (images, labels)]
        missing = [stem for stem, p in zip((images, labels), paths) if p is None]
        if missing:
            raise DatasetNotFoundError(
                f"{self._what}: {', '.join(missing)} (or .gz) not found in {self._root}; "
                f"the {'training' if self._train else 'test'} set needs {images} and "
                f"{labels}. xprof never downloads datasets: copy the files there")
        data = read_idx(paths[0])
        label = read_idx(paths[1])
        if data.ndim != 3:
            raise ValueError(f"{paths[0]}: expected images of shape (n, rows, cols), got "
                             f"{data.shape}")
        if label.ndim != 1 or len(label) != len(data):
            raise ValueError(f"{paths[1]}: expected {len(data)} labels (one per image in "
                             f"{paths[0]}), got shape {label.shape}")
        self._data = np.ascontiguousarray(data.reshape(data.shape + (1,)), dtype=np.uint8)
        self._label = label.astype(np.int32)

    def __len__(self):
        return len(self._label)

    def __getitem__(self, idx):
        image = _arrays.from_numpy(self._data[idx])
        label = self._label[idx]
        if self._transform is not None:
            return self._transform(image, label)
        return image, label

    def _get_batch(self, indices):
        if self._transform is not None:
            return None
        idx = np.asarray(indices)
        return self._data[idx], self._label[idx]


class FashionMNIST(MNIST):
    """Fashion-MNIST: same file names and format as MNIST."""

    _what = "FashionMNIST"

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "fashion-mnist"),
                 train=True, transform=None):
        super().__init__(root, train, transform)


class ImageFolderDataset(Dataset):
    """Images in class folders: ``root/<class>/<image file>`` (see the module
    docstring)."""

    _exts = (".jpg", ".jpeg", ".png")

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(str(root))
        if not os.path.isdir(self._root):
            raise DatasetNotFoundError(f"ImageFolderDataset: folder {self._root} does not "
                                       "exist")
        if flag not in (0, 1):
            raise ValueError(f"ImageFolderDataset: flag={flag!r} is not allowed; use 1 "
                             "(colour) or 0 (greyscale)")
        self._flag = flag
        self._transform = transform
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(self._root)):
            path = os.path.join(self._root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"ImageFolderDataset: ignoring {path}, which is not a "
                              "folder", stacklevel=2)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for name in sorted(os.listdir(path)):
                file = os.path.join(path, name)
                if os.path.splitext(name)[1].lower() not in self._exts:
                    warnings.warn(f"ImageFolderDataset: ignoring {file}: only "
                                  f"{', '.join(self._exts)} files are read", stacklevel=2)
                    continue
                self.items.append((file, label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        path, label = self.items[idx]
        image = _image.imread(path, self._flag)
        if self._transform is not None:
            return self._transform(image, label)
        return image, label

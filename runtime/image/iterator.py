"""``mx.image.ImageIter``: batches of augmented images from a RecordIO file
(``path_imgrec``, with ``path_imgidx`` for shuffling and parts) or from an image list
(``path_imglist`` text file, or ``imglist`` in Python) under ``path_root``, as MXNet 1.x's.

Each image is decoded (``Imdecode``), augmented (``CreateAugmenter(data_shape,
**kwargs)`` unless ``aug_list`` is given), transposed to CHW and written into the batch
array; the last batch is padded (``'pad'``, the default, with images from the start),
dropped (``'discard'``) or carried into the next epoch (``'roll_over'``).
"""
import logging
import os
import random
from numbers import Number

from .. import io as _io
from .. import recordio
from .augment import CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]


def _zeros_empty():
    from ..util import is_np_array
    if is_np_array():
        from .. import numpy as _np
        return _np.zeros, _np.empty
    from .. import ndarray as nd
    return nd.zeros, nd.empty


def _array_fn():
    from ..util import is_np_array
    if is_np_array():
        from .. import numpy as _np
        return _np.array
    from .. import ndarray as nd
    return nd.array


class ImageIter(_io.DataIter):
    """Images and labels in batches of ``batch_size``, each image of ``data_shape``
    (3, H, W); see the module docstring."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="softmax_label", dtype="float32", last_batch_handle="pad",
                 **kwargs):
        super().__init__()
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError("ImageIter: give path_imgrec, path_imglist or imglist")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise ValueError(f"ImageIter: dtype={dtype!r} label not supported; use int32, "
                             "float32, int64 or float64")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError(f"ImageIter: last_batch_handle={last_batch_handle!r} is not "
                             "allowed; use 'pad', 'discard' or 'roll_over'")
        name = self.__class__.__name__
        if path_imgrec:
            logging.info("%s: loading recordio %s...", name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
                self.imgidx = None
        else:
            self.imgrec = None
        array_fn = _array_fn()
        imgkeys = []
        if path_imglist:
            logging.info("%s: loading image list %s...", name, path_imglist)
            self.imglist = {}
            with open(path_imglist) as fin:
                for line in iter(fin.readline, ""):
                    line = line.strip().split("\t")
                    key = int(line[0])
                    self.imglist[key] = (array_fn(line[1:-1], dtype=dtype), line[-1])
                    imgkeys.append(key)
        elif isinstance(imglist, list):
            logging.info("%s: loading image list...", name)
            self.imglist = {}
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = array_fn(img[:-1], dtype=dtype)
                elif isinstance(img[0], Number):
                    label = array_fn([img[0]], dtype=dtype)
                else:
                    label = array_fn(img[0], dtype=dtype)
                self.imglist[key] = (label, img[-1])
                imgkeys.append(key)
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        self.provide_label = [(label_name, (batch_size, label_width) if label_width > 1
                               else (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError("ImageIter: shuffle and num_parts > 1 need path_imgidx")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError(f"ImageIter: part_index={part_index} is not in [0, "
                                 f"{num_parts})")
            c = len(self.seq) // num_parts
            self.seq = self.seq[part_index * c:(part_index + 1) * c]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = self._cache_label = self._cache_idx = None
        self.reset()

    def reset(self):
        """Back to the first image (shuffled again with ``shuffle``); a rolled-over
        partial batch is kept."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Back to the first image, dropping a rolled-over partial batch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = self._cache_label = self._cache_idx = None

    def next_sample(self):
        """(label, encoded image bytes) of the next image."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is not None:
            if self.cur >= self.num_image:
                if self.last_batch_handle != "discard":
                    self.cur = 0
                raise StopIteration
            idx = self.seq[self.cur]
            self.cur += 1
            if self.imgrec is not None:
                header, img = recordio.unpack(self.imgrec.read_idx(idx))
                return (header.label if self.imglist is None else self.imglist[idx][0]), img
            label, fname = self.imglist[idx]
            return label, self.read_image(fname)
        s = self.imgrec.read()
        if s is None:
            if self.last_batch_handle != "discard":
                self.imgrec.reset()
            raise StopIteration
        header, img = recordio.unpack(s)
        return header.label, img

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping:  %s", e)
                    continue
                data = self.augmentation_transform(data)
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next ``DataBatch`` (``pad``: how many of its images repeat the start)."""
        c, h, w = self.data_shape
        if self._cache_data is not None:
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            zeros, empty = _zeros_empty()
            batch_data = zeros((self.batch_size, c, h, w))
            batch_label = empty(self.provide_label[0][1])
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = \
                    batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return _io.DataBatch([batch_data], [batch_label], pad=pad)

    def check_data_shape(self, data_shape):
        if len(data_shape) != 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if data_shape[0] != 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data):
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s):
        """The decoded image; a broken one raises naming its file or index."""
        try:
            return imdecode(s)
        except Exception as e:  # noqa: BLE001 - any decoder failure names the image
            if self.seq is not None:
                idx = self.seq[(self.cur % self.num_image) - 1]
            else:
                idx = self.cur - 1
            where = (f"filename: {self.imglist[idx][1]}" if self.imglist is not None
                     else f"index: {idx}")
            raise RuntimeError(f"Broken image {where}, {e}") from None

    def read_image(self, fname):
        """The bytes of image file ``fname`` under ``path_root``."""
        with open(os.path.join(self.path_root or "", fname), "rb") as fin:
            return fin.read()

    def augmentation_transform(self, data):
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW, as the batch holds it."""
        from ..util import is_np_array
        if is_np_array():
            return datum.transpose(2, 0, 1)
        from .. import ndarray as nd
        return nd.transpose(datum, axes=(2, 0, 1))

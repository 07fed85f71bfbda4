"""``mx.contrib.io.DataLoaderIter``: a Gluon ``DataLoader`` as an ``mx.io.DataIter`` (for
the Module API): its batches as ``DataBatch``es with data and label cast to ``dtype``; a
short last batch is padded to the first batch's size (``pad`` says by how many)."""
from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Batches of ``loader`` named ``data_name`` / ``label_name``."""

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super().__init__()
        self._loader = loader
        self._iter = iter(loader)
        data, label = next(self._iter)
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, arr):
        arr = arr.astype(self.dtype)
        if not self.getpad():
            return [arr]
        from .. import ndarray as nd
        out = nd.empty((self.batch_size,) + tuple(arr.shape[1:]), dtype=self.dtype)
        out[:arr.shape[0]] = arr
        return [out]

    def getdata(self):
        return self._padded(self._current_batch[0])

    def getlabel(self):
        return self._padded(self._current_batch[1])

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None

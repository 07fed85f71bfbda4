"""Which arrays Gluon makes: ``mx.np.ndarray`` while the NumPy interface is on
(``npx.set_np()``, ``@use_np``: ``mx.util.is_np_array()``), else MXNet 1.x's NDArray.

Parameters are created in the class current when they are initialized, data samples and
batches in the class current when they are read (a DataLoader asks when its iteration
starts, on the loop's thread: the switch is per thread and its workers may be other
threads or processes), transforms return the class they were given.
"""
from ..ndarray import ndarray as _nd
from ..util import is_np_array

__all__ = ["array_class", "from_numpy"]


def array_class():
    if is_np_array():
        from ..numpy.multiarray import ndarray
        return ndarray
    return _nd.NDArray


def from_numpy(values, ctx=None, cls=None):
    """numpy ``values`` as an array of ``cls`` (default: :func:`array_class`)."""
    return _nd.from_numpy(values, ctx, cls=cls or array_class())


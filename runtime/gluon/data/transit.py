"""How a batch and a worker's exception cross the process boundary.

A worker process sends its batch as numpy data: every NDArray becomes an ``Arrays``
leaf holding ``asnumpy()``, the whole batch is pickled (protocol 5), and the parent
rebuilds NDArrays from the numpy data in the context it asks for. An exception travels
with its traceback as text, so the parent can say where in the worker it was raised.
"""
import pickle
import traceback

from ...ndarray import ndarray as _nd
from .batching import map_leaves

__all__ = ["encode_batch", "decode_batch", "encode_error", "decode_error"]

_PROTOCOL = pickle.HIGHEST_PROTOCOL


class Array:
    """An NDArray in transit: its values as a numpy array."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    def __reduce__(self):
        return Array, (self.data,)


def encode_batch(tag, batch, events=None):
    """``(tag, True, batch, events)`` as bytes, the batch's NDArrays as numpy data;
    ``events``: the worker's profile flush (:mod:`...profiler.process_tracks`) or None."""
    payload = map_leaves(lambda a: Array(a.asnumpy()), batch, _nd.NDArray)
    try:
        return pickle.dumps((tag, True, payload, events), _PROTOCOL)
    except Exception as e:  # noqa: BLE001 - pickling raises what the object raises
        raise TypeError(f"DataLoader: a batch cannot leave its worker process: its samples "
                        f"do not pickle ({type(e).__name__}: {e}); have the dataset return "
                        f"arrays and numbers, or load in this process (num_workers=0, or "
                        f"thread_pool=True)") from e


def encode_error(tag, exc, events=None):
    """``(tag, False, (exception or None, its type name, message, traceback text),
    events)``: the exception itself when it pickles, its text in any case."""
    text = "".join(traceback.format_exception(exc))
    try:
        pickled = pickle.dumps(exc, _PROTOCOL)
        pickle.loads(pickled)
    except Exception:  # noqa: BLE001 - any exception may fail to round-trip
        pickled = None
    return pickle.dumps((tag, False, (pickled, type(exc).__name__, str(exc), text), events),
                        _PROTOCOL)


def decode(message):
    """``(tag, ok, payload, events)`` from the bytes a worker sent."""
    return pickle.loads(message)


def decode_batch(payload, ctx):
    """The batch with NDArrays rebuilt from their numpy data on ``ctx``."""
    return map_leaves(lambda t: _nd.from_numpy(t.data, ctx), payload, Array)


def decode_error(payload, where):
    """The worker's exception, re-created where possible, with a note saying ``where``
    it was raised and the worker's traceback."""
    pickled, type_name, message, text = payload
    exc = None
    if pickled is not None:
        try:
            exc = pickle.loads(pickled)
        except Exception:  # noqa: BLE001
            exc = None
    if not isinstance(exc, BaseException):
        exc = RuntimeError(f"{type_name}: {message}")
    exc.add_note(f"raised in {where}; its traceback:\n{text.rstrip()}")
    return exc

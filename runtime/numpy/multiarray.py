"""``mx.np.ndarray``: an array with NumPy's rules on xprof's engine.

The class's operators (``_operators``), indexing (``_indexing``) and official NumPy's
protocols (``_interop``) are attached by those modules, which import this one; the
package imports them all, so ``mx.np.ndarray`` is complete whenever it can be reached.

The class is a subclass of :class:`~xprof.runtime.ndarray.NDArray` with no slots of its
own (as MXNet's ``mx.np.ndarray`` subclasses its legacy NDArray): the same engine
variable, the same asynchronous pushes through ``ndarray.invoke``/``push_op``, the same
profiler records. Only its front-door methods differ: NumPy's dtype rules, 0-d results,
``bool`` comparisons, true division, NumPy indexing, MXNet 2's operator names.

How another module makes an np array (the Gluon 2 layer, data loaders, conversions):

- ``ndarray.invoke(opname, inputs, params, out=None, ctx=None, cls=np_ndarray)``: run
  any registered operator; new outputs take the class of the first input, so an op on
  np arrays returns np arrays; pass ``cls=`` (this module's :data:`ndarray`) for an op
  without inputs (creation) or to get np arrays from nd inputs.
- ``ndarray.from_numpy(values, ctx, role="array", cls=ndarray)``: an np array holding a
  copy of numpy data, ready at once (no engine op).
- ``ndarray.new_array(shape, dtype, ctx, role, cls=ndarray)``: an np array with no data
  yet, to be written by an op pushed with ``outs=[it]``.
- :func:`as_np_ndarray` (also the NDArray method ``x.as_np_ndarray()``) and
  ``x.as_nd_ndarray()``: the same values as the other class, without waiting.
- ``isinstance(x, mx.np.ndarray)`` tells the two kinds apart; every np array is also an
  ``NDArray``.
"""
import numbers
import warnings

import numpy as _np

from ..autograd import state as _ag_state
from ..context import Context, current_context
from ..engine.base import ALWAYS_RUN
from ..ndarray import ndarray as _nd
from ..ndarray.ndarray import NDArray, from_numpy, invoke
from ..util import default_float

__all__ = ["ndarray", "apply", "as_np_ndarray", "as_nd_ndarray", "to_np", "device_of"]

_BOOL = _np.dtype(bool)


def device_of(device=None, ctx=None):
    """The Context for MXNet 2's ``device=`` (or 1.x's ``ctx=``) argument."""
    d = device if device is not None else ctx
    if d is None:
        return current_context()
    if isinstance(d, str):
        kind, _, num = d.partition(":")
        d = Context(kind, int(num or 0))
    if not isinstance(d, Context):
        raise ValueError(f"device={d!r} is not a Device; use mx.cpu() or mx.device.cpu()")
    d.check_available()
    return d


class ndarray(NDArray):
    """An n-dimensional array with NumPy's rules whose values the engine computes
    asynchronously (MXNet 2's ``mx.np.ndarray``)."""

    __slots__ = ()
    __hash__ = NDArray.__hash__

    # -- metadata (never waits) --------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self._dtype.itemsize

    @property
    def device(self):
        return self.context

    @property
    def T(self):
        return self.transpose()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    # -- sync points -------------------------------------------------------------------
    def item(self, *args):
        """A Python scalar (waits for the array): the only element, or the one at
        ``args``."""
        values = self.asnumpy()
        if not args and values.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return values.item(*args)

    def __bool__(self):
        if self.size == 0:
            warnings.warn("The truth value of an empty array is ambiguous. Returning False",
                          DeprecationWarning, stacklevel=2)
            return False
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.shape or self._dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def __array_namespace__(self, api_version=None):
        """The array API namespace (``mx.np``), for versions 2021.10 or none."""
        if api_version is not None and api_version != "2021.10":
            raise ValueError(f"Unrecognized array API version: {api_version!r}; "
                             "supported: '2021.10'")
        return __import__("xprof.runtime.numpy", fromlist=["numpy"])

    def __repr__(self):
        values = self.asnumpy()
        text = repr(values)
        default = default_float()
        if values.dtype == default:
            text = text.replace(f", dtype={default.name})", ")")
        elif values.dtype.kind == "f" and f"dtype={values.dtype.name}" not in text:
            text = text[:-1] + f", dtype={values.dtype.name})"
        if self.context.device_type != "cpu":
            text = text[:-1] + f", device={self.context})"
        return text

    def __str__(self):
        return str(self.asnumpy())

    def __format__(self, spec):
        if not spec:
            return str(self)
        if self.ndim:
            raise TypeError("unsupported format string passed to mxnet.numpy.ndarray."
                            "__format__ (only 0-d arrays take a format spec)")
        return format(self.item(), spec)

    # -- conversions, copies, devices -----------------------------------------------------
    def as_nd_ndarray(self):
        """The same values as a legacy ``mx.nd.NDArray`` (no wait; see :func:`convert`)."""
        return convert(self, NDArray)

    def as_np_ndarray(self):
        return self

    def to_device(self, device):
        return self.as_in_context(device_of(device))

    def copyto(self, other):
        if isinstance(other, str):
            other = device_of(other)
        return NDArray.copyto(self, other)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        dtype = _np.dtype(dtype if dtype is not None else default_float())
        if not copy and dtype == self._dtype:
            return self
        return invoke("Cast", (self,), {"dtype": dtype.name})

    def asnumpy(self):
        return NDArray.asnumpy(self)

    def wait_to_read(self):
        NDArray.wait_to_read(self)

    # -- shape -----------------------------------------------------------------------------
    def reshape(self, *args, **kwargs):
        """NumPy's reshape (``x.reshape(2, 3)``, ``x.reshape((2, -1))``), op ``_npx_reshape``;
        MXNet's ``reverse=``, and ``npx.reshape``'s special codes, are accepted too."""
        shape = kwargs.pop("newshape", kwargs.pop("shape", None))
        order = kwargs.pop("order", "C")
        reverse = kwargs.pop("reverse", False)
        if kwargs:
            raise TypeError(f"reshape: unknown argument {next(iter(kwargs))!r}")
        if shape is None:
            shape = args[0] if len(args) == 1 else args
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        if order != "C":
            raise NotImplementedError(f"reshape: order={order!r}; only 'C' is supported")
        return invoke("_npx_reshape", (self,), {"newshape": tuple(int(s) for s in shape),
                                                "reverse": reverse})

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], numbers.Integral)):
            axes = axes[0] or ()
        return invoke("_npi_transpose", (self,), {"axes": tuple(axes)})

    def flatten(self, order="C"):
        return self.reshape(-1, order=order)

    # -- autograd ------------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        NDArray.attach_grad(self, grad_req)

    @property
    def grad(self):
        """The gradient buffer; None with ``grad_req='null'`` (MXNet 2)."""
        return None if self._grad_req == "null" else self._grad

    def detach(self):
        return NDArray.detach(self)

    def __neg__(self):
        return invoke("_npi_negative", (self,), {})

    def __abs__(self):
        return invoke("_npi_absolute", (self,), {})

    def __invert__(self):
        if self._dtype == _BOOL:
            return invoke("_npi_logical_not", (self,), {})
        return invoke("_npi_bitwise_not", (self,), {})

    def __matmul__(self, other):
        return invoke("_npi_matmul", (self, to_np(other, self)), {})

    def __rmatmul__(self, other):
        return invoke("_npi_matmul", (to_np(other, self), self), {})

    def __getstate__(self):
        return {"values": self.asnumpy(), "ctx": self.context}

    def __setstate__(self, state):
        fresh = from_numpy(state["values"], state.get("ctx") or current_context(), "array",
                           ndarray)
        for slot in ("queue", "readers", "writer", "exc", "_data", "shape", "_dtype",
                     "context", "_ag", "_grad", "_grad_req"):
            setattr(self, slot, getattr(fresh, slot))

    def __reduce__(self):
        return (_rebuild, (self.asnumpy(), self.context))


def _rebuild(values, ctx):
    return from_numpy(values, ctx, "array", ndarray)


def apply(opname, inputs, params, out=None, device=None):
    """Run operator ``opname``; new outputs are np arrays."""
    return invoke(opname, inputs, params, out=out, ctx=device, cls=ndarray)


def to_np(value, like=None, dtype=None):
    """``value`` as an np array: np arrays as they are, legacy NDArrays converted,
    numpy data and Python sequences copied (ready at once, no engine op)."""
    if isinstance(value, ndarray):
        return value
    if isinstance(value, NDArray):
        return convert(value, ndarray)
    ctx = like.context if like is not None else current_context()
    if dtype is None:
        if isinstance(value, (_np.ndarray, _np.generic)):
            dtype = value.dtype
        elif isinstance(value, bool):
            dtype = _BOOL
        elif isinstance(value, numbers.Number) and like is not None:
            from ..ops.np_elemwise import scalar_result
            dtype = scalar_result(like._dtype, value)
        else:
            dtype = default_float()
    return from_numpy(_np.asarray(value, dtype=dtype), ctx, "array", ndarray)


# -- conversions between the two classes ------------------------------------------------------
def _share(src, dst):
    """Engine function: ``dst`` takes ``src``'s buffer (an error of ``src`` propagates)."""
    if src.exc is not None:
        raise src.exc
    dst._data = src._data


def convert(x, cls):
    """``x``'s values as an array of class ``cls``, without waiting: the new array takes
    ``x``'s buffer when ``x`` has been written (an engine bookkeeping op, ordered after
    ``x``'s writer, never profiled: MXNet shares the memory, no op runs). While autograd
    records, a recorded ``_copy`` instead, so gradients flow through the conversion."""
    if x.__class__ is cls:
        return x
    if _ag_state.recording:
        return invoke("_copy", (x,), {}, cls=cls)
    h = _nd.new_handle(x, None, cls)
    _nd.engine_push(_share, (x, h), [x], [h], "_share", mode=ALWAYS_RUN)
    return h


def as_np_ndarray(x):
    """A legacy NDArray's values as an ``mx.np.ndarray`` (``x.as_np_ndarray()``)."""
    return convert(x, ndarray)


def as_nd_ndarray(x):
    return convert(x, NDArray)


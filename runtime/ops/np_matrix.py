"""MXNet 2's NumPy matrix-structure operators, with their gradients: ``_npi_tril``,
``_npi_triu``, ``_npi_trace``, ``_npi_diagonal``, ``_npi_diag``."""
import numpy as np

from .registry import defop, input_size

__all__ = []


def _tri_mask(shape, k, lower):
    rows, cols = shape[-2], shape[-1]
    return np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1,
                                                                  dtype=bool)


def _tri(lower):
    """A 1-d input is the row of a square matrix (numpy's ``tril([1, 2, 3])``)."""
    def square(shape):
        return (shape[0], shape[0]) if len(shape) == 1 else tuple(shape)

    def kernel(m, k=0):
        if m.ndim < 1:
            raise ValueError("tril/triu: the input needs at least 1 dimension")
        mask = _tri_mask(square(m.shape), int(k), lower)
        return np.where(mask, m, np.zeros((), m.dtype))

    def infer(in_shapes, in_dtypes, **_):
        if len(in_shapes[0]) < 1:
            raise ValueError("tril/triu: the input needs at least 1 dimension")
        return [square(in_shapes[0])], [in_dtypes[0]]

    def grad(ograds, inputs, outputs, k=0):
        x = inputs[0]
        g = np.where(_tri_mask(square(x.shape), int(k), lower), ograds[0], 0)
        if x.ndim == 1:
            g = g.sum(axis=0)
        return [g.astype(x.dtype)]
    return kernel, infer, grad


for _name, _lower, _gname in (("_npi_tril", True, "_backward_tril"),
                              ("_npi_triu", False, "_backward_triu")):
    _k, _i, _g = _tri(_lower)
    defop(_name, _k, infer=_i, grad=_g, grad_name=_gname, cost=input_size, params={"k": 0})


def _diagonal(a, offset=0, axis1=0, axis2=1):
    return np.diagonal(a, int(offset), int(axis1), int(axis2)).copy()


def _diagonal_grad(ograds, inputs, outputs, offset=0, axis1=0, axis2=1):
    a = inputs[0]
    g = np.zeros_like(a)
    view = np.diagonal(g, int(offset), int(axis1), int(axis2))
    view.setflags(write=True)
    view[...] = ograds[0]
    return [g]


def _diagonal_infer(in_shapes, in_dtypes, offset=0, axis1=0, axis2=1, **_):
    probe = np.broadcast_to(np.empty((), np.int8), tuple(in_shapes[0]))
    return [np.diagonal(probe, int(offset), int(axis1), int(axis2)).shape], [in_dtypes[0]]


defop("_npi_diagonal", _diagonal, arg_names=("a",), infer=_diagonal_infer,
      grad=_diagonal_grad, grad_name="_backward_npi_diagonal", cost=input_size,
      params={"offset": 0, "axis1": 0, "axis2": 1})


def _trace(a, offset=0, axis1=0, axis2=1):
    return np.asarray(np.trace(a, int(offset), int(axis1), int(axis2)), dtype=a.dtype)


def _trace_grad(ograds, inputs, outputs, offset=0, axis1=0, axis2=1):
    a = inputs[0]
    ax1, ax2 = int(axis1) % a.ndim, int(axis2) % a.ndim
    n, m = a.shape[ax1], a.shape[ax2]
    mask = np.eye(n, m, int(offset), dtype=a.dtype)
    moved = np.asarray(ograds[0])[..., None, None] * mask
    return [np.moveaxis(moved, (-2, -1), (ax1, ax2)).astype(a.dtype)]


def _trace_infer(in_shapes, in_dtypes, offset=0, axis1=0, axis2=1, **_):
    shape = _diagonal_infer(in_shapes, in_dtypes, offset, axis1, axis2)[0][0]
    return [shape[:-1]], [in_dtypes[0]]


defop("_npi_trace", _trace, arg_names=("a",), infer=_trace_infer, grad=_trace_grad,
      grad_name="_backward_npi_trace", cost=input_size,
      params={"offset": 0, "axis1": 0, "axis2": 1})


def _diag(v, k=0):
    return np.diag(v, int(k)).copy()


def _diag_grad(ograds, inputs, outputs, k=0):
    from .np_numeric import _moved_grad      # diag copies elements: the shared rule
    return [_moved_grad(lambda a: np.diag(a, int(k)), inputs[0], ograds[0])]


defop("_npi_diag", _diag, arg_names=("v",), grad=_diag_grad, grad_name="_backward_npi_diag",
      infer=lambda in_shapes, in_dtypes, k=0, **_: (
          [np.diag(np.zeros(tuple(in_shapes[0]), np.int8), int(k)).shape], [in_dtypes[0]]),
      cost=input_size, params={"k": 0})

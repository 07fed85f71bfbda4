"""Sorting and selecting the largest: ``sort``, ``argsort``, ``topk`` (MXNet 1.x params:
``axis``, ``is_ascend``, ``k``, ``ret_typ`` in value/indices/mask/both, ``dtype`` of the
indices). Gradients flow back to the elements selected; indices have none."""
import numpy as np

from .registry import defop, input_size, reads_no_out_grads


def _axis_of(axis, ndim, opname):
    if axis is None:
        return None
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{opname}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def _order(data, axis, is_ascend):
    """Indices that sort ``data`` along ``axis`` (stable; descending keeps ties in order)."""
    if axis is None:
        data = data.reshape(-1)
        axis = 0
    if is_ascend:
        return np.argsort(data, axis=axis, kind="stable"), axis
    return np.argsort(-data if data.dtype.kind != "u" else data.max() - data, axis=axis,
                      kind="stable"), axis


def _sort(data, axis=-1, is_ascend=True):
    idx, ax = _order(data, _axis_of(axis, data.ndim, "sort"), is_ascend)
    src = data if axis is not None else data.reshape(-1)
    return np.take_along_axis(src, idx, ax)


def _sort_grad(ograds, inputs, outputs, axis=-1, is_ascend=True):
    x = inputs[0]
    idx, ax = _order(x, _axis_of(axis, x.ndim, "sort"), is_ascend)
    g = np.zeros(x.shape if axis is not None else (x.size,), dtype=x.dtype)
    np.put_along_axis(g, idx, ograds[0], ax)
    return [g.reshape(x.shape)]


def _flat_or_same(in_shapes, in_dtypes, axis=-1, **_):
    return ([tuple(in_shapes[0]) if axis is not None else (int(np.prod(in_shapes[0])),)],
            [in_dtypes[0]])


defop("sort", _sort, infer=_flat_or_same, grad=_sort_grad, cost=input_size,
      grad_name="_backward_topk",
      params={"axis": -1, "is_ascend": True})


def _argsort(data, axis=-1, is_ascend=True, dtype="float32"):
    idx, _ = _order(data, _axis_of(axis, data.ndim, "argsort"), is_ascend)
    return idx.astype(dtype)


def _argsort_infer(in_shapes, in_dtypes, axis=-1, dtype="float32", **_):
    shapes, _ = _flat_or_same(in_shapes, in_dtypes, axis)
    return shapes, [np.dtype(dtype)]


defop("argsort", _argsort, infer=_argsort_infer, cost=input_size,
      grad=lambda og, i, o, **_: [np.zeros_like(i[0])],
      params={"axis": -1, "is_ascend": True, "dtype": "float32"})

_RET_TYPES = ("value", "indices", "mask", "both")


def _topk_parts(data, axis, k, is_ascend):
    ax = _axis_of(axis, data.ndim, "topk")
    src = data if ax is not None else data.reshape(-1)
    ax = 0 if ax is None else ax
    n = src.shape[ax]
    k = n if int(k) <= 0 else min(int(k), n)
    idx, _ = _order(src, ax, is_ascend)
    idx = np.take(idx, np.arange(k), axis=ax)
    return src, ax, idx


def _check_ret(ret_typ):
    if ret_typ not in _RET_TYPES:
        raise ValueError(f"topk: ret_typ={ret_typ!r} is not one of {', '.join(_RET_TYPES)}")


def _topk(data, axis=-1, k=1, ret_typ="indices", is_ascend=False, dtype="float32"):
    _check_ret(ret_typ)
    src, ax, idx = _topk_parts(data, axis, k, is_ascend)
    if ret_typ == "mask":
        mask = np.zeros_like(src)
        np.put_along_axis(mask, idx, 1, ax)
        return mask.reshape(data.shape)
    values = np.take_along_axis(src, idx, ax)
    indices = idx.astype(dtype)
    if ret_typ == "value":
        return values
    if ret_typ == "indices":
        return indices
    return values, indices


def _topk_grad(ograds, inputs, outputs, axis=-1, k=1, ret_typ="indices", is_ascend=False,
               dtype="float32"):
    x = inputs[0]
    if ret_typ not in ("value", "both"):
        return [np.zeros_like(x)]
    src, ax, idx = _topk_parts(x, axis, k, is_ascend)
    g = np.zeros_like(src)
    np.put_along_axis(g, idx, ograds[0], ax)
    return [g.reshape(x.shape)]


def _topk_infer(in_shapes, in_dtypes, axis=-1, k=1, ret_typ="indices", is_ascend=False,
                dtype="float32", **_):
    _check_ret(ret_typ)
    shape = tuple(in_shapes[0])
    if ret_typ == "mask":
        return [shape], [in_dtypes[0]]
    ax = _axis_of(axis, len(shape), "topk")
    if ax is None:
        shape, ax = (int(np.prod(shape)),), 0
    n = shape[ax]
    kk = n if int(k) <= 0 else min(int(k), n)
    out = shape[:ax] + (kk,) + shape[ax + 1:]
    if ret_typ == "value":
        return [out], [in_dtypes[0]]
    if ret_typ == "indices":
        return [out], [np.dtype(dtype)]
    return [out, out], [in_dtypes[0], np.dtype(dtype)]


reads_no_out_grads(_topk_grad,    # indices or a mask: MXNet's MakeZeroGradNodes
                   when=lambda p: p.get("ret_typ", "indices") not in ("value", "both"))
defop("topk", _topk, infer=_topk_infer, grad=_topk_grad, cost=input_size,
      num_outputs=lambda p: 2 if p.get("ret_typ") == "both" else 1,
      params={"axis": -1, "k": 1, "ret_typ": "indices", "is_ascend": False,
              "dtype": "float32"})

"""``Embedding``: rows of a ``(input_dim, output_dim)`` weight picked by integer indices.

The output has the data's shape plus ``output_dim``. Indices are rounded down and
clipped to ``[0, input_dim - 1]``, as MXNet's CPU kernel does. The weight's gradient is
the output gradient scattered back into the picked rows (``np.add.at``, repeated
indices summed); the indices get a zero gradient. ``sparse_grad=True``: the same values,
the gradient array of row_sparse class (Gluon's weight ``grad_stype``; values dense).
"""
import numpy as np

from .params import _check_arg_shapes, _dtype, _positive_int
from .registry import defop, derive

__all__ = []


def _dims(input_dim, output_dim):
    return (_positive_int(input_dim, "input_dim", "Embedding"),
            _positive_int(output_dim, "output_dim", "Embedding"))


def _indices(data, input_dim):
    return np.clip(np.floor(data), 0, input_dim - 1).astype(np.int64)


def _embedding(data, weight, input_dim=None, output_dim=None, dtype="float32",
               sparse_grad=False, **_):
    n_in, _ = _dims(input_dim, output_dim)
    return weight[_indices(data, n_in)]


def _embedding_grad(ograds, inputs, outputs, input_dim=None, output_dim=None, **_):
    data, weight = inputs
    n_in, n_out = _dims(input_dim, output_dim)
    dw = np.zeros_like(weight)
    np.add.at(dw, _indices(data, n_in).reshape(-1), ograds[0].reshape(-1, n_out))
    return [None, dw]


def _check(input_dim, output_dim, sparse_grad, in_shapes):
    n_in, n_out = _dims(input_dim, output_dim)   # sparse_grad: row_sparse class, dense values
    _check_arg_shapes("Embedding", ("weight",), in_shapes[1:], [(n_in, n_out)],
                      f"input_dim={n_in}, output_dim={n_out}")
    return n_in, n_out


def _embedding_infer(in_shapes, in_dtypes, input_dim=None, output_dim=None,
                     dtype="float32", sparse_grad=False, **_):
    _, n_out = _check(input_dim, output_dim, sparse_grad, in_shapes)
    return [tuple(in_shapes[0]) + (n_out,)], [in_dtypes[1] if len(in_dtypes) > 1
                                              else _dtype(dtype)]


def _embedding_infer_args(in_shapes, input_dim=None, output_dim=None, sparse_grad=False,
                          **_):
    n_in, n_out = _check(input_dim, output_dim, sparse_grad, in_shapes)
    return [in_shapes[0], (n_in, n_out)]


defop("Embedding", _embedding, arg_names=("data", "weight"), infer=_embedding_infer,
      infer_args=_embedding_infer_args, grad=_embedding_grad,
      grad_reads=lambda p: ((0,), False),        # the indices; the weight's shape only
      params={"input_dim": None, "output_dim": None, "dtype": "float32",
              "sparse_grad": False})

# contrib's SparseEmbedding: Embedding with a row_sparse weight gradient, its own name
derive("_contrib_SparseEmbedding", "Embedding",
       params={"input_dim": None, "output_dim": None, "dtype": "float32", "sparse_grad": True,
               "deterministic": False})

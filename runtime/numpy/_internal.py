"""``mx.np._internal``: the operator functions MXNet's own code calls directly (as
``mxnet.ndarray.numpy._internal`` has them), for code written against them."""
from ..ndarray.ndarray import invoke
from .multiarray import to_np

__all__ = ["boolean_mask_assign_scalar", "boolean_mask_assign_tensor"]


def boolean_mask_assign_scalar(data, mask, value=0.0, start_axis=0, out=None):
    """``data[mask] = value`` along ``start_axis``: op ``_npi_boolean_mask_assign_scalar``."""
    data = to_np(data)
    return invoke("_npi_boolean_mask_assign_scalar", (data, to_np(mask, data)),
                  {"value": float(value), "start_axis": int(start_axis)}, out=out)


def boolean_mask_assign_tensor(data, mask, value, start_axis=0, out=None):
    """``data[mask] = value`` (an array) along ``start_axis``: op
    ``_npi_boolean_mask_assign_tensor``."""
    data = to_np(data)
    return invoke("_npi_boolean_mask_assign_tensor", (data, to_np(mask, data),
                                                      to_np(value, data)),
                  {"start_axis": int(start_axis)}, out=out)

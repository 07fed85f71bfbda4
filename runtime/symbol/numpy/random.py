"""``mx.sym.np.random``: draws as graph nodes of the operators ``mx.np.random`` pushes
(``_npi_uniform``, ``_npi_normal``); the executor draws them from the shared, seeded
generator."""
from ._symbol import apply

__all__ = ["uniform", "normal"]


def _draw(opname, a, b, size, dtype):
    from ...ndarray.ndarray import _shape
    from . import _functions  # noqa: F401 - (a sibling, not the package)
    inputs, params = [], {"a": 0.0, "b": 1.0, "size": () if size is None else _shape(size),
                          "dtype": _functions._float(dtype)}
    slots = []
    for slot, value in enumerate((a, b)):
        if hasattr(value, "_outputs"):
            inputs.append(value)
            slots.append(slot)
        else:
            params["ab"[slot]] = float(value)
    params["arrays_for"] = tuple(slots)
    return apply(opname, inputs, params)


def uniform(low=0.0, high=1.0, size=None, dtype=None, device=None, ctx=None):
    return _draw("_npi_uniform", low, high, size, dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, device=None, ctx=None):
    return _draw("_npi_normal", loc, scale, size, dtype)

"""``xprof stats --group-by``: which row an operator event counts in.

* ``name`` (the default): the event's name, as every table always did;
* ``layer``: name plus the layer name xprof records in ``args.name`` (``conv0``), so two
  convolutions of one network are two rows: ``Convolution (conv0)``; events without a
  layer keep their name;
* ``shape``: name plus the input shapes the event carries in ``args["Input Dims"]``
  (xprof with ``profile_all``/``profile_imperative``, PyTorch with ``record_shapes``):
  ``dot [[2000, 2000], [2000, 2000]]``; events without shapes keep their name.

Only slices (``X``, ``B``/``E``) are regrouped; async pairs and counters keep their
names. Pure functions of one event's name and args.
"""
from __future__ import annotations

from xprof.shared.names import INPUT_DIMS

GROUP_BY = ("name", "layer", "shape")
SHAPES_ARG = INPUT_DIMS        # PyTorch's key, which xprof writes too
LAYER_ARG = "name"


def shapes_label(dims):
    """``[[8, 1, 28, 28], [20]]`` as text (PyTorch prints input shapes this way)."""
    return "[" + ", ".join("[" + ", ".join(str(d) for d in shape) + "]" for shape in dims) + "]"


def _dims(value):
    if type(value) is not list:
        return None
    for shape in value:
        if type(shape) is not list or any(type(d) is not int for d in shape):
            return None
    return value


def row_name(name, args, group_by):
    """The row an event named ``name`` with ``args`` counts in under ``group_by``."""
    if group_by == "name" or type(args) is not dict:
        return name
    if group_by == "layer":
        layer = args.get(LAYER_ARG)
        return f"{name} ({layer})" if type(layer) is str and layer else name
    dims = _dims(args.get(SHAPES_ARG))
    return f"{name} {shapes_label(dims)}" if dims is not None else name

"""``xprof stats --group-by``: which row an operator event counts in.

* ``name`` (the default): the event's name, as every table always did;
* ``layer``: one row per layer, keyed by the layer's name (``args.name``, which xprof
  records on every op a Gluon block or a bound graph's node launches): its forward,
  backward and update ops summed. The name is taken back to its layer by MXNet's own
  naming rules: a hybridized graph's ``_fwd`` suffix, a parameter's suffix on an
  optimizer update (``dense0_weight`` -> ``dense0``), the built-in activation of a
  ``Dense``/``Conv`` layer (``dense0_relu`` -> ``dense0``). Operator events without a
  layer count in one ``(no layer)`` row; other domains keep their names;
* ``op,layer``: name plus the layer, so two convolutions of one network are two rows:
  ``Convolution (conv0)``; events without a layer keep their name;
* ``shape``: name plus the input shapes the event carries in ``args["Input Dims"]``
  (xprof with ``profile_all``/``profile_imperative``, PyTorch with ``record_shapes``):
  ``dot [[2000, 2000], [2000, 2000]]``; events without shapes keep their name.

Only slices (``X``, ``B``/``E``) are regrouped; async pairs and counters keep their
names. Pure functions of one event's name, category and args.
"""
from __future__ import annotations

import re

from xprof.traces.names import INPUT_DIMS, OPERATOR

GROUP_BY = ("name", "layer", "op,layer", "shape")
SHAPES_ARG = INPUT_DIMS        # PyTorch's key, which xprof writes too
LAYER_ARG = "name"
NO_LAYER = "(no layer)"
# what MXNet appends to a layer's name: a hybridized graph node's "_fwd"; a parameter
# (an update op carries its parameter's name); a Dense/Conv layer's own activation
_LAYER_SUFFIX = re.compile(
    r"(_fwd)?(_(l\d+_)?(i2h_|h2h_|h2r_)?(weight|bias|gamma|beta|alpha|running_mean|"
    r"running_var|moving_mean|moving_var))?(_(relu|sigmoid|tanh|softrelu|softsign))?(_fwd)?$")


def layer_of(name):
    """The layer a recorded ``args.name`` belongs to (see the module docstring)."""
    stem = _LAYER_SUFFIX.sub("", name, count=1)
    return stem or name


def shapes_label(dims):
    """``[[8, 1, 28, 28], [20]]`` as text (PyTorch prints input shapes this way)."""
    return "[" + ", ".join("[" + ", ".join(str(d) for d in shape) + "]" for shape in dims) + "]"


def dims_of(value):
    """``value`` when it is a list of shapes (lists of ints), else None."""
    if type(value) is not list:
        return None
    for shape in value:
        if type(shape) is not list or any(type(d) is not int for d in shape):
            return None
    return value


def row_name(name, args, group_by, cat=None):
    """The row an event named ``name`` of category ``cat`` with ``args`` counts in under
    ``group_by``."""
    if group_by == "name":
        return name
    if group_by == "layer":
        layer = args.get(LAYER_ARG) if type(args) is dict else None
        if type(layer) is str and layer:
            return layer_of(layer)
        return NO_LAYER if cat == OPERATOR else name
    if type(args) is not dict:
        return name
    if group_by == "op,layer":
        layer = args.get(LAYER_ARG)
        return f"{name} ({layer})" if type(layer) is str and layer else name
    dims = dims_of(args.get(SHAPES_ARG))
    return f"{name} {shapes_label(dims)}" if dims is not None else name

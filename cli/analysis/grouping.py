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
names. Pure functions of a slice's name, category, layer and shapes (the ``Trace``'s
columns, ``traces/argkeys.py``).
"""
from __future__ import annotations

from xprof.traces.argkeys import LAYER_ARG, SHAPES_ARG, dims_of, layer_of, shapes_label  # noqa: F401
from xprof.traces.names import OPERATOR

GROUP_BY = ("name", "layer", "op,layer", "shape")
NO_LAYER = "(no layer)"


def grouped(name, cat, layer, shapes, group_by):
    """The row a slice named ``name`` of category ``cat`` counts in under ``group_by``
    (``layer``: its recorded ``args.name`` or None; ``shapes``: the label of its input
    shapes or None: the ``Trace``'s ``layer``/``shape`` columns)."""
    if group_by == "name":
        return name
    if group_by == "layer":
        if layer:
            return layer_of(layer)
        return NO_LAYER if cat == OPERATOR else name
    if group_by == "op,layer":
        return f"{name} ({layer})" if layer else name
    return f"{name} {shapes}" if shapes is not None else name

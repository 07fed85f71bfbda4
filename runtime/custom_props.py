"""The registered custom-operator types and what their props say: which
``CustomOpProp`` class answers for an ``op_type`` (``mx.operator.register`` fills
:data:`_registry`), a prop for a node's or a call's parameters (made once per op type,
prop class and parameters: :func:`prop_for`, :func:`describe`), and the checked
answers of its ``infer_shape``/``infer_type`` (:func:`infer`). Pure Python and numpy:
the operator ``Custom`` (``operator.CustomOpDef``) and the call path read it, and it
imports neither."""
import numpy as np

_registry = {}   # op_type -> its CustomOpProp subclass (``mx.operator.register``)


def custom_op_types():
    """The registered custom operator types."""
    return sorted(_registry)


def _lookup(op_type):
    try:
        return _registry[op_type]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise ValueError(f"custom operator op_type={op_type!r} is not registered; "
                         f"registered: {known}") from None


# -- shape/type inference ---------------------------------------------------------------
def make_prop(op_type, kwargs):
    """The prop instance for a call: extra keyword arguments arrive as strings."""
    cls = _lookup(op_type)
    return cls(**{k: str(v) for k, v in kwargs.items()})


_props = {}


def prop_for(params):
    """The prop of a ``Custom`` node's ``params`` (``op_type`` and the user's parameters,
    given to the prop as strings), made once per op type, prop class and parameters, as
    MXNet's attribute parser makes one per node: graph code asks it for names, shapes
    and types many times."""
    op_type = params.get("op_type")
    cls = _lookup(op_type)
    kwargs = tuple(sorted((k, str(v)) for k, v in params.items() if k != "op_type"))
    key = (op_type, cls, kwargs)
    prop = _props.get(key)
    if prop is None:
        if len(_props) > 4096:
            _props.clear()
        prop = _props[key] = cls(**dict(kwargs))
    return prop


_described = {}


def describe(op_type, kwargs, in_shapes, in_dtypes):
    """(prop, out_shapes, aux_shapes, out_dtypes, aux_dtypes, out_names), cached per
    op type, prop class, parameters, input shapes and dtypes: inference runs Python
    code of the user's and numpy dtype conversions, too slow to repeat on every call."""
    cls = _lookup(op_type)
    key = (op_type, cls, tuple(sorted((k, str(v)) for k, v in kwargs.items())),
           tuple(in_shapes), tuple(in_dtypes))
    found = _described.get(key)
    if found is None:
        prop = cls(**{k: str(v) for k, v in kwargs.items()})
        _, oshapes, ashapes, odtypes, adtypes = infer(prop, op_type, in_shapes, in_dtypes)
        found = (prop, oshapes, ashapes, odtypes, adtypes, list(prop.list_outputs()))
        if len(_described) > 4096:
            _described.clear()
        _described[key] = found
    return found


def infer(prop, op_type, in_shapes, in_dtypes):
    """(in_shapes, out_shapes, aux_shapes, in_dtypes, out_dtypes, aux_dtypes), checked."""
    n_args = len(prop.list_arguments())
    n_out = len(prop.list_outputs())
    n_aux = len(prop.list_auxiliary_states())
    if len(in_shapes) != n_args:
        raise ValueError(f"custom operator {op_type!r} takes {n_args} input(s) "
                         f"{prop.list_arguments()}, got {len(in_shapes)}")
    res = prop.infer_shape([list(s) for s in in_shapes])
    if not isinstance(res, (tuple, list)) or len(res) not in (2, 3):
        raise ValueError(f"custom operator {op_type!r}: infer_shape must return "
                         "(in_shapes, out_shapes[, aux_shapes])")
    ishapes, oshapes = res[0], res[1]
    ashapes = res[2] if len(res) == 3 else []
    if len(ishapes) != n_args or len(oshapes) != n_out or len(ashapes) != n_aux:
        raise ValueError(
            f"custom operator {op_type!r}: infer_shape returned {len(ishapes)} input, "
            f"{len(oshapes)} output and {len(ashapes)} aux shapes; expected {n_args}, "
            f"{n_out} and {n_aux}")
    for i, (given, inferred) in enumerate(zip(in_shapes, ishapes)):
        if tuple(given) != tuple(int(d) for d in inferred):
            raise ValueError(f"custom operator {op_type!r}: infer_shape gives input {i} "
                             f"shape {tuple(inferred)} but the input has shape {tuple(given)}")
    oshapes = [_check_shape(op_type, "output", i, s) for i, s in enumerate(oshapes)]
    ashapes = [_check_shape(op_type, "aux", i, s) for i, s in enumerate(ashapes)]
    tres = prop.infer_type([np.dtype(d).type for d in in_dtypes])
    if not isinstance(tres, (tuple, list)) or len(tres) not in (2, 3) \
            or len(tres[1]) != n_out:
        raise ValueError(f"custom operator {op_type!r}: infer_type must return "
                         f"(in_types, out_types[, aux_types]) with {n_out} output type(s)")
    odtypes = [np.dtype(t) for t in tres[1]]
    adtypes = [np.dtype(t) for t in tres[2]] if len(tres) == 3 else \
        [np.dtype(in_dtypes[0])] * n_aux
    return [tuple(s) for s in in_shapes], oshapes, ashapes, odtypes, adtypes


def _check_shape(op_type, what, i, shape):
    try:
        shape = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise ValueError(f"custom operator {op_type!r}: {what} {i} shape {shape!r} is not "
                         "a sequence of ints") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"custom operator {op_type!r}: {what} {i} shape {shape} is negative")
    return shape

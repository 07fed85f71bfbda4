"""What the ``mx.nd`` namespace and its sub-namespaces (``contrib``, ``linalg``,
``image``) are made of: the function generated for each registered operator
(:func:`_make_function`), the context check of creation functions (:func:`_ctx`) and the
front end of MXNet's Python-level operators (:data:`_FRONTEND`). A module of its own so
that the sub-namespaces import it, never the package that imports them."""
from ..context import Context, current_context
from ..ops import python_level as _python_level
from . import random
from .ndarray import NDArray, invoke


def _ctx(ctx):
    if ctx is None:
        ctx = current_context()
    elif not isinstance(ctx, Context):
        raise ValueError(f"ctx={ctx!r} is not a Context; use mx.cpu()")
    ctx.check_available()
    return ctx


def _takes_any_keyword(kernel):
    import inspect
    try:
        params = inspect.signature(kernel).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_KEYWORD for p in params)


def _make_function(op, fname=None):
    names = op.arg_names + op.aux_names     # inputs, by keyword too (moving_mean=...)
    # As in MXNet ("Cannot find argument"), an unknown keyword is an error at the call,
    # not a TypeError from the kernel at the next sync point.
    allowed = None if _takes_any_keyword(op.kernel) else frozenset(op.params) | set(names)

    def fn(*args, out=None, name=None, **kwargs):
        if allowed is not None and not op.params:
            # MXNet: an operator without parameters (broadcast_maximum) ignores keywords
            kwargs = {k: v for k, v in kwargs.items() if k in allowed}
        elif allowed is not None:
            for key in kwargs:
                if key not in allowed:
                    from ..base import as_mxnet_error
                    raise as_mxnet_error(ValueError(
                        f"{op.name}: unknown argument {key!r}; arguments: "
                        + (", ".join(list(names) + list(op.params)) or "none")))
        inputs = list(args)
        if op.variadic:
            inputs = [a for a in args]
        elif inputs and not isinstance(inputs[-1], NDArray):
            # MXNet's generated signature: inputs, then parameters in order
            # (``mx.nd.clip(x, 0, 1)``, ``mx.nd.sum(x, 0)``)
            k = 0
            while k < len(inputs) and isinstance(inputs[k], NDArray):
                k += 1
            if k >= op.nin:      # else: a missing input, reported below
                inputs, positional = inputs[:k], inputs[k:]
                pnames = [p for p in op.params if p not in kwargs]
                if len(positional) > len(pnames):
                    raise ValueError(f"{op.name}: {len(positional)} positional parameters "
                                     f"given, it takes at most {len(pnames)} ({pnames})")
                kwargs.update(zip(pnames, positional))
        for arg_name in names:
            if arg_name in kwargs and isinstance(kwargs[arg_name], NDArray):
                inputs.append(kwargs.pop(arg_name))
        for i, x in enumerate(inputs):
            if not isinstance(x, NDArray):
                raise ValueError(f"{op.name}: input {i} is {type(x).__name__}, not an NDArray")
        params = dict(op.params)
        params.update(kwargs)
        if "rng" in params and params["rng"] is None:
            # random operators draw from the shared, seeded generator, in push order
            params["rng"] = random._RngRef()
            return invoke(op.name, tuple(inputs), params, out=out,
                          extra_vars=(random._var(),))
        return invoke(op.name, tuple(inputs), params, out=out)

    fn.__name__ = fn.__qualname__ = fname or op.name
    fn.__doc__ = op.doc or f"Operator ``{op.name}`` (inputs: {', '.join(names) or 'none'})."
    return fn


# MXNet's Python-level operator functions (maximum, power, split_v2...), shared with mx.sym
_FRONTEND = _python_level.Frontend(
    lambda opname, inputs, params: invoke(opname, inputs, params), NDArray, False)

"""``mx.model``: MXNet 1.x's checkpoint files and the batch-end record of ``fit``.

A checkpoint is ``prefix-symbol.json`` (the symbol's JSON) and ``prefix-%04d.params``
(MXNet's binary NDArray format, names prefixed ``arg:`` for arguments and ``aux:`` for
auxiliary states); every file is written to a temp file and renamed, so a failed save
never leaves half a checkpoint in place of a good one. ``FeedForward`` (removed from
MXNet's docs long ago) is not provided: use ``mx.mod.Module``.
"""
import os
from collections import namedtuple

from xprof.traces.atomic import write_atomic


__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params",
           "save_params_file", "load_params_file"]

# What a batch-end callback receives (fit, score).
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def write_file(fname, data):
    """Write ``data`` (bytes or str) to ``fname`` atomically."""
    write_atomic(os.fspath(fname), data.encode("utf-8") if isinstance(data, str) else data)


def save_symbol_file(fname, symbol):
    write_file(fname, symbol.tojson())


def save_params_file(fname, arg_params, aux_params):
    """``arg_params``/``aux_params`` as one MXNet ``.params`` file."""
    from .context import cpu
    from . import ndarray as nd
    save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in (arg_params or {}).items()}
    save_dict.update({f"aux:{k}": v.as_in_context(cpu())
                      for k, v in (aux_params or {}).items()})
    nd.save(os.fspath(fname), save_dict)


def load_params_file(fname):
    """``(arg_params, aux_params)`` from an MXNet ``.params`` file."""
    from . import ndarray as nd
    loaded = nd.load(os.fspath(fname))
    if not isinstance(loaded, dict):
        raise ValueError(f"{fname!r} holds an unnamed list of arrays, not a module's "
                         "parameters (arg:/aux: names)")
    arg_params, aux_params = {}, {}
    for k, v in loaded.items():
        kind, _, name = k.partition(":")
        if kind == "arg" and name:
            arg_params[name] = v
        elif kind == "aux" and name:
            aux_params[name] = v
        else:
            raise ValueError(f"{fname!r} is not a module's parameter file: the array "
                             f"{k!r} is not named arg:<name> or aux:<name>")
    return arg_params, aux_params


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and
    ``prefix-%04d.params``."""
    if symbol is not None:
        save_symbol_file(f"{prefix}-symbol.json", symbol)
    save_params_file(f"{prefix}-{int(epoch):04d}.params", arg_params, aux_params)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` of ``prefix-%04d.params``."""
    return load_params_file(f"{prefix}-{int(epoch):04d}.params")


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` of a checkpoint."""
    from . import symbol as sym
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


def __getattr__(name):
    if name == "FeedForward":
        raise AttributeError("mx.model.FeedForward is not provided by xprof (it was "
                             "deprecated in MXNet 1.x); use mx.mod.Module")
    raise AttributeError(f"module 'xprof.runtime.model' has no attribute {name!r}")

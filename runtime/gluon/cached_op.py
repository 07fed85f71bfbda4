"""``mx.nd.CachedOp``: a Symbol made callable on NDArrays, run as a hybridized Gluon
block (the same bound-graph machinery as :mod:`._hybrid`). It lives here, above the
NDArray layer it is named in: ``mx.nd`` resolves the name on first use
(``ndarray.LAZY_NAMES``), so the NDArray layer never imports Gluon."""
from .. import symbol as _symbol
from ..ndarray.ndarray import NDArray
from .block import SymbolBlock

__all__ = ["CachedOp"]


class CachedOp:
    """A Symbol made callable on NDArrays (MXNet's ``mx.nd.CachedOp``): the arguments,
    in ``sym.list_inputs()`` order, feed a hybridized graph bound once per input
    signature; under ``autograd.record()`` the call is one autograd node."""

    def __init__(self, sym, flags=()):
        self._names = sym.list_inputs()
        self._block = SymbolBlock(sym, [_symbol.var(n) for n in self._names])
        self._block.hybridize()

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            raise ValueError(f"CachedOp: unknown keyword arguments {sorted(kwargs)}; "
                             "pass the inputs positionally")
        if len(args) != len(self._names):
            raise ValueError(f"CachedOp: {len(args)} inputs given, the symbol takes "
                             f"{len(self._names)} ({self._names})")
        result = self._block(*args)
        if out is None:
            return result
        outs = [out] if isinstance(out, NDArray) else list(out)
        results = [result] if isinstance(result, NDArray) else list(result)
        for r, o in zip(results, outs):
            r.copyto(o)
        return out

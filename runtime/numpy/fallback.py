"""``mx.np.fallback``: the names of ``mx.np`` functions official NumPy computes (inside an
engine op each, ``_fallback.py``)."""
from ._fallback import FALLBACK

__all__ = [name for name in FALLBACK]

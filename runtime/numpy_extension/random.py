"""``mx.npx.random``: seeding the generator every random op draws from."""
from ..ndarray.random import seed  # noqa: F401

__all__ = ["seed"]

"""``mx.np``: MXNet 2's NumPy-compatible array interface, which xprof does not have.

The module exists so that a script importing it loads; every name in it raises
``NotImplementedError`` saying so (use ``mx.nd``, xprof's MXNet 1.x arrays).
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"mx.np.{name}: the NumPy-compatible interface (mx.np) is "
                              "not supported by xprof; use mx.nd")

"""``mx.contrib``: MXNet 1.x's experimental namespace, as far as xprof has it.

``mx.contrib.amp`` exists so that code importing it loads; automatic mixed precision
itself is refused (see :mod:`.amp`).
"""

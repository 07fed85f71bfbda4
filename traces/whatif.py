"""The what-if grammar, shared by ``xprof explain --what-if`` (predicted by replaying a
trace) and ``xprof run --slow`` (a real run with the matching ops slowed): one parser, so
a prediction and its proof name the same ops.

A spec is ``TARGET=CHANGE``:

* ``TARGET``: an op name (``FullyConnected``, ``Heavy::pure_python``), ``layer:NAME``
  (the ops of a Gluon/Module layer: ``args.name``), ``custom:TYPE`` (a custom op's calls,
  forward and backward: their Python and their sub-operators), ``python`` (the Python
  time of the threads that push ops), ``workers`` (the engine's worker threads),
  ``custom_pool`` (the custom-op pool's bound);
* ``CHANGE``: ``0.5x`` (a factor), ``+2ms`` / ``-1.5ms`` (time added to each call),
  ``0`` (removed: a factor of 0), or a count for ``workers``/``custom_pool``.

:func:`parse` raises ``ValueError`` with one line naming the bad value and what is
allowed (the CLI turns it into exit 2).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

POOLS = ("workers", "custom_pool")
_CHANGE = re.compile(r"^(?:(?P<factor>\d+(?:\.\d+)?)x|(?P<add>[+-]\d+(?:\.\d+)?)ms|(?P<zero>0))$")
FORMS = ("OP=0.5x", "OP=+2ms", "layer:NAME=0.5x", "custom:TYPE=0.5x", "custom:TYPE=0",
         "python=0.5x", "workers=N", "custom_pool=N")


@dataclass(frozen=True)
class Spec:
    """One parsed spec: ``kind`` is ``op``, ``layer``, ``custom``, ``python`` or a pool
    (``workers``, ``custom_pool``); ``name`` the op, layer or custom-op type; ``factor``
    and ``add_ns`` the change of each matching call's time; ``count`` a pool's size."""

    text: str
    kind: str
    name: str = None
    factor: float = 1.0
    add_ns: int = 0
    count: int = None

    def times(self, dur_ns):
        """A call's time after the change (never below 0)."""
        return max(0.0, dur_ns * self.factor + self.add_ns)


def parse(text):
    """The :class:`Spec` of ``text`` (``ValueError``: one line, the forms allowed)."""
    if not isinstance(text, str) or "=" not in text:
        raise ValueError(f"what-if {text!r} is not TARGET=CHANGE; use one of "
                         f"{', '.join(FORMS)}")
    target, _, change = text.rpartition("=")
    target, change = target.strip(), change.strip()
    if not target:
        raise ValueError(f"what-if {text!r} names no op; use one of {', '.join(FORMS)}")
    if target in POOLS:
        if not change.isdigit() or int(change) < 1:
            raise ValueError(f"what-if {text!r}: {target} takes a whole number of threads "
                             f"of at least 1, e.g. {target}=4")
        return Spec(text, target, count=int(change))
    m = _CHANGE.match(change)
    if m is None:
        raise ValueError(f"what-if {text!r}: the change {change!r} is not a factor (0.5x), "
                         f"a time per call (+2ms, -1ms) or 0 (removed)")
    factor, add = 1.0, 0
    if m.group("factor") is not None:
        factor = float(m.group("factor"))
    elif m.group("add") is not None:
        add = round(float(m.group("add")) * 1e6)
    else:
        factor = 0.0
    if target == "python":
        if add:
            raise ValueError(f"what-if {text!r}: python takes a factor (python=0.5x)")
        return Spec(text, "python", factor=factor)
    for prefix in ("layer", "custom"):
        if target.startswith(prefix + ":"):
            name = target[len(prefix) + 1:]
            if not name:
                raise ValueError(f"what-if {text!r}: {prefix}: needs a name, e.g. "
                                 f"{prefix}:NAME=0.5x")
            return Spec(text, prefix, name, factor, add)
    return Spec(text, "op", target, factor, add)


def parse_slow(text):
    """A spec for ``xprof run --slow``: ops, layers and custom ops made slower (a
    factor of at least 1, or time added); ``ValueError`` for anything a run cannot
    make real (a faster op, Python time, a pool: ``workers=N`` is a setting,
    ``XPROF_CPU_WORKER_NTHREADS``)."""
    spec = parse(text)
    if spec.kind in POOLS or spec.kind == "python":
        raise ValueError(f"--slow {text!r}: a run can slow ops, layers and custom ops "
                         f"(OP=2x, OP=+2ms, layer:NAME=2x, custom:TYPE=2x); "
                         f"{spec.kind} is not slowed by a run")
    if spec.factor < 1 or spec.add_ns < 0:
        raise ValueError(f"--slow {text!r}: a run can only slow an op down: a factor of "
                         f"at least 1 (2x) or time added (+2ms)")
    return spec


def custom_names(type_name):
    """The custom-op call names of type ``type_name``: its forward's and backward's
    (``Heavy``, ``_backward_Heavy``)."""
    return (type_name, "_backward_" + type_name)

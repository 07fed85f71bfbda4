"""``xprof run --slow SPEC``: the run with the matching ops really slowed, to check a
prediction of ``xprof explain --what-if`` (Coz's idea: prove a speed-up by slowing
everything else; here, prove a prediction by making the op slower and measuring).

The SPEC grammar is the what-if's (:mod:`xprof.traces.whatif`, ``parse_slow``): an op
name as the trace names it (``FullyConnected``, ``Heavy::dot``, ``Heavy::pure_python``),
``layer:NAME`` (ops carrying that layer name), ``custom:TYPE`` (a custom op's calls,
forward and backward: their Python and their sub-operators), each ``Nx`` (N >= 1) or
``+Nms``. A slowed op runs, then waits ``(N - 1)`` times its own run time (or N ms) in a
timed busy wait on its own thread that releases the GIL (``_spin.c``), as a slower
kernel would; a custom call's Python waits ``(N - 1)`` times its Python time (its waits
at sync points excluded) before it returns. Each slowed event is marked in the trace
(``args.slowed_ns``, the wait its spec asks for) and counted per spec (``otherData.slowed``).

The engine asks :func:`op_extra` after each profiled op only while specs are installed
(``engine.slow``: one attribute test otherwise); custom calls ask :func:`call_extra`.

``--slow-alternate`` slows every other step only (a step ends where the script's
``waitall`` returns, :func:`step_end`; the first is not slowed), so one run holds steps
both ways: the change is measured between steps of one process, seconds apart, instead
of between two processes, whose speed on a shared machine differs by more than the
change asked about (``benchmarks/bench_whatif.py``).
"""
from __future__ import annotations

import threading
import time
from time import perf_counter_ns

from xprof.traces import whatif as _grammar
from xprof.traces.names import PURE_PYTHON

try:
    from ._spin import spin as _spin
except ImportError:   # no C compiler at install: a Python loop (holds the GIL)
    _spin = None

specs = ()          # the installed specs (whatif.Spec)
alternate = False   # --slow-alternate: slow every other step
on = True           # whether this step's ops are slowed (alternate: off in the first)
counts = {}         # spec text -> [events slowed, ns added]
_lock = threading.Lock()


_owed = threading.local()   # per thread: ns its last wait overran (the GIL's hand-off)


def spin(ns):
    """Busy-wait ``ns`` nanoseconds (without the GIL where ``_spin`` is built). Taking
    the GIL back after the wait can take up to the switch interval when another thread
    runs Python: a hand-off a slower kernel would not add (it takes the GIL back once,
    after its own work). The overrun is owed, and taken out of this thread's next wait,
    so the waits given add up to what the specs ask."""
    if ns <= 0:
        return
    if _spin is not None:
        owed = getattr(_owed, "ns", 0)
        if owed >= ns:
            _owed.ns = owed - ns
            return
        _owed.ns = _spin(int(ns - owed)) or 0
        return
    end = perf_counter_ns() + ns
    while perf_counter_ns() < end:
        pass


def install(texts, alternate_steps=False):
    """Parse and install ``texts`` (``ValueError``: the first bad one, in one line); the
    engine starts asking. ``()`` removes them. ``alternate_steps``: slow every other
    step, from the second."""
    global specs, alternate, on
    parsed = tuple(_grammar.parse_slow(t) for t in texts)
    specs = parsed
    alternate = bool(alternate_steps and parsed)
    on = not alternate
    counts.clear()
    counts.update({s.text: [0, 0] for s in parsed})
    from . import engine
    engine.set_slow(__import__(__name__, fromlist=["op_extra"]) if parsed else None)
    return parsed


def step_end():
    """A ``waitall`` returned (nothing of the step is left running): with
    ``alternate``, the next step is slowed if this one was not."""
    global on
    if alternate:
        on = not on


def _matches(spec, trace_name, call_name, attrs):
    if spec.kind == "op":
        return spec.name == trace_name
    if spec.kind == "layer":
        return type(attrs) is dict and attrs.get("name") == spec.name
    return call_name is not None and call_name in _grammar.custom_names(spec.name)


def _extra(spec, dur_ns):
    return max(0, int(spec.times(dur_ns) - dur_ns))


def _count(spec, extra):
    with _lock:
        c = counts[spec.text]
        c[0] += 1
        c[1] += extra


def op_extra(name, tag, attrs, dur_ns):
    """The extra ns an engine op that ran ``dur_ns`` is given (0: not slowed), the first
    matching spec's; ``tag``: the custom call whose sub-operator it is (or None)."""
    if not on:
        return 0
    call_name = getattr(tag, "name", None) if tag is not None else None
    trace_name = name if call_name is None else call_name + "::" + name
    for spec in specs:
        if _matches(spec, trace_name, call_name, attrs):
            extra = _extra(spec, dur_ns)
            _count(spec, extra)
            return extra
    return 0


def call_extra(call_name, python_ns):
    """The extra ns a custom call's Python (``python_ns`` of it, waits excluded) is
    given before it returns (0: not slowed)."""
    if not on:
        return 0
    pure = call_name + "::" + PURE_PYTHON
    for spec in specs:
        if (spec.kind == "op" and spec.name == pure) or \
                (spec.kind == "custom" and call_name in _grammar.custom_names(spec.name)):
            extra = _extra(spec, python_ns)
            _count(spec, extra)
            return extra
    return 0


def summary():
    """``{spec: {"events", "slowed_ms"}}`` (the trace's ``otherData.slowed``)."""
    return {text: {"events": n, "slowed_ms": round(ns / 1e6, 6)}
            for text, (n, ns) in counts.items()}


def unmatched():
    """The specs that slowed nothing."""
    return [text for text, (n, _) in counts.items() if n == 0]


_ = time   # (time is the fallback's clock's module; kept for readers of spin)

"""Where a custom operator's time goes: the per-call breakdown, aggregated per op type.

One implementation for ``profiler.dumps()`` (fed from the recorder's call records) and
``xprof stats`` (fed from the trace's call spans), so a saved trace and the process
that wrote it print the same ``Custom Operator Calls`` section. Pure stdlib.

**A call** is one ``mx.nd.Custom`` / ``mx.sym.Custom`` forward or backward, named after
its op type (``_backward_<op_type>`` for backward). Its latency (pushed -> outputs ready)
splits exactly, in integer nanoseconds, into

* **Queued**: pushed -> its ``forward``/``backward`` starts on the custom-op thread,
  itself exactly **Inputs** (pushed -> its input arrays written: the engine's ready
  stamp of the call) + **Pool** (ready -> a custom-op thread starts its code); Inputs
  is itself exactly **Backlog** (pushed -> the op that wrote its inputs, its
  *producer*, began to run: earlier, already-queued work, as when a loop pushes steps
  ahead) + **Producer** (while the producer ran, and its hand-off);
* **Python**: the call's Python time on that thread, minus Blocked;
* **Blocked**: time that Python code spent blocked at sync points (``wait_to_read``,
  ``asnumpy``, ``asscalar``, ``waitall``, an engine ``wait_for_var``);
* **Tail**: ``forward`` returned -> outputs ready (its sub-operators finishing);

and, beside the sum (not part of the latency), **Own** (Python + Blocked + Tail: from its
code's start to its outputs, what the op itself takes; the section is ranked by it),
**Ahead** (how many earlier calls of the op type were still in flight when a call was
pushed, the median over its calls: the steps a loop runs ahead), **Sub-operators**, the summed engine run
time of the sub-operators it launched (those launched while its operator was created
included; it overlaps the parts), and **Setup**, the Python time of creating its
operator (``CustomOpProp.create_operator``, the ``CustomOp``'s ``__init__``: on the
caller's thread before the push; counted on the call that created it, so per call it is
the creation time spread over the calls).

Every figure of a row is **per call** (an average over the op type's calls, ms), except
``Latency.Total``, the sum over the calls (kept for sorting and for older consumers):
the text table calls the average ``Latency/call``.

**In a trace** a call is an async pair (``ph`` ``b``/``e``, one ``id`` per call, ``cat``
``"Custom Operator"``, ``name`` the op type): ``b`` at the push, ``e`` when the outputs
are ready, the split as integer-nanosecond args on ``b`` (:data:`ARG_KEYS`).
Latency is read back from the two time stamps, which xprof writes as exact integer
nanoseconds; Tail is what remains of it, so the sum holds whatever a trace holds. Traces
written before the split (no ``inputs_ns``) have Queued only: Inputs, Pool and Setup
are unknown for them, never zeros.

**Without call spans** (MXNet 1.x traces, or op types recorded without them) the
breakdown is derived from the ``Custom Operator`` rows of the aggregate, per op type:
Count and Python from ``<op>::pure_python``, Sub-operators from the other ``<op>::*``
rows; the rest is unknown (``null`` in JSON, ``unknown`` in the table), never zeros.

:func:`headline` says in one sentence which part dominates a row, in a user's words.
"""
from __future__ import annotations

from bisect import bisect_right

SECTION = "Custom Operator Calls"
CATEGORY = "Custom Operator"
PURE_PYTHON = "pure_python"
# args of a call span's ``b`` event, integer nanoseconds; ``queued_ns`` marks a call span
# (older traces: no inputs_ns/pool_ns/setup_ns)
ARG_KEYS = ("queued_ns", "inputs_ns", "pool_ns", "python_ns", "blocked_ns", "tail_ns",
            "sub_operators_ns", "setup_ns", "backlog_ns")
PARTS = ("Queued", "Python", "Blocked", "Tail")   # add up to the latency
QUEUED_PARTS = ("Inputs", "Pool")                 # add up to Queued
INPUT_PARTS = ("Backlog", "Producer")             # add up to Inputs
OWN_PARTS = ("Python", "Blocked", "Tail")         # add up to Own
SUB = "Sub-operators"
SETUP = "Setup"
OWN = "Own"
AHEAD = "Ahead"
# a row's keys after Count and Latency, in order (all ms per call; Ahead is a count)
ROW_PARTS = ("Queued", "Inputs", *INPUT_PARTS, "Pool", "Python", "Blocked", "Tail", OWN,
             AHEAD, SUB, SETUP)

_NS_PER_MS = 1_000_000
_MS_DIGITS = 6


def is_call_args(args):
    """True when an async begin's args are a call span's split (see :data:`ARG_KEYS`)."""
    return type(args) is dict and ARG_KEYS[0] in args


def arg_values(inputs, pool, python, blocked, tail, sub, setup, backlog=None):
    """A call span's ``b`` args (:data:`ARG_KEYS`) from its split in integer ns
    (``backlog``: None when the dump could not tell it)."""
    out = {"queued_ns": inputs + pool, "inputs_ns": inputs, "pool_ns": pool,
           "python_ns": python, "blocked_ns": blocked, "tail_ns": tail,
           "sub_operators_ns": sub, "setup_ns": setup}
    if backlog is not None:
        out["backlog_ns"] = backlog
    return out


def split_of(args, latency):
    """``(queued, inputs, pool, python, blocked, tail, sub, setup, backlog)`` ns of a call
    span, Tail = latency - the rest; inputs, pool and setup are None in a trace written
    before the split (no ``inputs_ns``), backlog in one written before Inputs was split
    (no ``backlog_ns``). Pool is Queued - Inputs and Producer Inputs - Backlog (so the
    parts add up whatever ``pool_ns`` says)."""
    q, p, b = _int(args.get("queued_ns")), _int(args.get("python_ns")), \
        _int(args.get("blocked_ns"))
    inputs = args.get("inputs_ns")
    backlog = None
    if type(inputs) in (int, float):
        inputs = min(max(int(inputs), 0), q)
        pool, setup = q - inputs, _int(args.get("setup_ns"))
        backlog = args.get("backlog_ns")
        backlog = min(max(int(backlog), 0), inputs) if type(backlog) in (int, float) \
            else None
    else:
        inputs = pool = setup = None
    return (q, inputs, pool, p, b, latency - q - p - b, _int(args.get("sub_operators_ns")),
            setup, backlog)


def _int(v):
    return int(v) if type(v) in (int, float) else 0


def percentile(sorted_values, p):
    """Nearest-rank percentile of sorted integers (a value that occurred; no interpolation)."""
    n = len(sorted_values)
    rank = -(-p * n // 100)          # ceil(p * n / 100), exact in integers
    return sorted_values[max(rank, 1) - 1]


class CallStats:
    """Calls per op type, each call's latency and split kept (integer ns) for percentiles.

    Op types without call spans get rows derived, when rendering, from the aggregate's
    ``time`` table (``{domain: {name: [count, sum, min, max]}}``, picoseconds), so
    merging two CallStats and their aggregates gives the same section as one run.
    """

    __slots__ = ("calls",)

    def __init__(self):
        # name -> [(latency, queued, inputs, pool, python, blocked, tail, sub, setup)]
        self.calls = {}

    def add(self, name, latency, queued, inputs, pool, python, blocked, tail, sub, setup,
            backlog=None, t_push=None):
        """One call (integer ns; latency == queued + python + blocked + tail, queued ==
        inputs + pool, backlog <= inputs; inputs, pool, setup and backlog None when the
        source does not tell; ``t_push``: when it was pushed, for :data:`AHEAD`)."""
        rows = self.calls.get(name)
        if rows is None:
            rows = self.calls[name] = []
        rows.append((latency, queued, inputs, pool, python, blocked, tail, sub, setup,
                     backlog, t_push))

    def add_split(self, name, split, backlog=None, t_push=None):
        """One call from ``records.call_split``'s ``(latency, inputs, pool, python,
        blocked, tail, sub, setup)``."""
        latency, inputs, pool, python, blocked, tail, sub, setup = split
        self.add(name, latency, inputs + pool, inputs, pool, python, blocked, tail, sub, setup,
                 backlog, t_push)

    def merge(self, other):
        for name, rows in other.calls.items():
            self.calls.setdefault(name, []).extend(rows)
        return self

    def _rows(self, time):
        """``{name: row}`` with every value in ns (None = unknown; Ahead a count),
        unordered."""
        out = {}
        for name, calls in self.calls.items():
            n = len(calls)
            lat = sorted(c[0] for c in calls)
            row = {"Count": n, "Latency": {
                "Total": sum(lat), "Min": lat[0], "Max": lat[-1], "Avg": sum(lat) / n,
                "P50": percentile(lat, 50), "P95": percentile(lat, 95)}}
            # one call of an older trace makes the op type's part unknown: an average
            # over the calls that know it would break Queued = Inputs + Pool
            for part, i in (("Queued", 1), ("Inputs", 2), ("Pool", 3), ("Python", 4),
                            ("Blocked", 5), ("Tail", 6), (SUB, 7), (SETUP, 8),
                            ("Backlog", 9)):
                values = [c[i] for c in calls]
                row[part] = None if None in values else sum(values) / n
            row["Producer"] = None if row["Backlog"] is None else row["Inputs"] - row["Backlog"]
            row[OWN] = row["Python"] + row["Blocked"] + row["Tail"]
            row[AHEAD] = _ahead(calls)
            out[name] = {k: row[k] for k in ("Count", "Latency", *ROW_PARTS)}
        out.update(_derived(time, out))
        return out

    def _ordered(self, time, sort_by, ascending):
        """Rows by ``sort_by``: ``total`` (the default) ranks by each op type's own cost
        over its calls (Own x Count: what the op itself takes, not the queues in front of
        it; a loop running ahead makes every call's latency mostly backlog), ``avg``,
        ``min``, ``max`` by the latency, ``count`` by calls."""
        def value(row):
            lat = row["Latency"]
            if sort_by == "count":
                return row["Count"]
            if sort_by not in ("avg", "min", "max"):
                own = row.get(OWN)
                return (own if own is not None else row["Python"] or 0.0) * row["Count"]
            key = {"avg": "Avg", "min": "Min", "max": "Max"}[sort_by]
            if lat[key] is not None:
                return lat[key]
            return row["Python"]   # derived rows

        items = sorted(self._rows(time).items())
        items.sort(key=lambda kv: value(kv[1]), reverse=not ascending)
        return items

    def to_json(self, time, sort_by="total", ascending=False):
        """``{op: {"Count", "Latency": {"Total", "Min", "Max", "Avg", "P50", "P95"},
        "Queued", "Inputs", "Pool", "Python", "Blocked", "Tail", "Sub-operators",
        "Setup"}}``: ms; everything but ``Latency.Total`` (the sum over the calls) is per
        call, the parts and the figures beside them averages; ``None`` where unknown;
        ``{}`` when the profile has no custom-operator calls."""
        return {name: _json_row(row) for name, row in self._ordered(time, sort_by, ascending)}

    def text_lines(self, time, sort_by="total", ascending=False):
        """The plain-text table (:func:`table_cells`), aligned like the other sections;
        ``[]`` without calls."""
        section = self.to_json(time, sort_by, ascending)
        if not section:
            return []
        headers, body = table_cells(section)
        widths = [max(len(h), *(len(c[i]) for c in body)) for i, h in enumerate(headers)]

        def fmt(cols):
            return (cols[0].ljust(widths[0]) + "  "
                    + "  ".join(c.rjust(w) for c, w in zip(cols[1:], widths[1:]))).rstrip()

        lines = [SECTION, "=" * len(SECTION), fmt(headers), fmt(["-" * len(h) for h in headers]),
                 *(fmt(c) for c in body), PER_CALL_NOTE]
        if any(row["Latency"]["Avg"] is None for row in section.values()):
            lines.append(UNKNOWN_NOTE)
        return lines


def _ahead(calls):
    """The median, over an op type's calls, of how many earlier calls of it were still in
    flight (pushed, outputs not yet ready) when the call was pushed: a loop that pushes
    k steps before waiting keeps about k of them; None without push times."""
    pushes = [c[10] for c in calls]
    if None in pushes:
        return None
    pairs = sorted((c[10], c[10] + c[0]) for c in calls)
    done = sorted(d for _, d in pairs)
    counts = sorted(i - bisect_right(done, p) for i, (p, _) in enumerate(pairs))
    # (an earlier call done by this push is counted by bisect_right; one pushed later
    # cannot be done by it: its push is later)
    return float(counts[(len(counts) - 1) // 2] + counts[len(counts) // 2]) / 2


def _derived(time, known, ps_per_ns=1000):
    """Rows (ns) for op types with ``<op>::pure_python`` rows in the ``Custom Operator``
    domain of ``time`` but no call spans: Count and Python from that row, Sub-operators
    from the other ``<op>::*`` rows; what the rows cannot tell is None."""
    rows = time.get(CATEGORY, {})
    suffix = "::" + PURE_PYTHON
    out = {}
    for name, entry in rows.items():
        op = name[:-len(suffix)]
        if not name.endswith(suffix) or op in known or not entry[0]:
            continue
        prefix = op + "::"
        sub = sum(e[1] for n, e in rows.items() if n.startswith(prefix) and n != name)
        row = {"Count": entry[0],
               "Latency": dict.fromkeys(("Total", "Min", "Max", "Avg", "P50", "P95")),
               **dict.fromkeys(ROW_PARTS)}
        row["Python"] = entry[1] / ps_per_ns / entry[0]
        row[SUB] = sub / ps_per_ns / entry[0]
        out[op] = row
    return out


UNKNOWN_NOTE = ("unknown: no call spans for these op types (an MXNet 1.x trace): Python is "
                "<op>::pure_python, Sub-operators the other <op>::* rows")
PER_CALL_NOTE = ("per call (ms): Latency/call and the parts are averages over the calls, "
                 "% their share of Latency/call (Queued = Inputs + Pool, Inputs = Backlog + "
                 "Producer); Own = Python + Blocked + Tail ranks the rows; Ahead: earlier "
                 "calls still in flight at a push (median); Sub-operators and Setup are "
                 "beside the sum")


def table_cells(section):
    """``(headers, rows)`` of the ``Custom Operator Calls`` table, as strings, from its JSON
    section (ms): per-call latency figures, each part with its share of the latency
    (Queued, Python, Blocked and Tail add up to 100%; Inputs and Pool to Queued's), then
    Sub-operators and Setup; ``unknown`` where the input cannot tell. Every column is per
    call (the sum over calls is in the JSON's ``Latency.Total`` only). The text table and
    the CLI's rich table both show these cells."""
    headers = ["Name", "Count", "Latency/call (ms)", "P50 (ms)", "P95 (ms)", "Max (ms)"]
    shared = ("Queued", "Inputs", *INPUT_PARTS, "Pool", "Python", "Blocked", "Tail")
    for part in shared:
        headers += [f"{part} (ms)", "%"]
    headers += [f"{OWN} (ms)", AHEAD, f"{SUB} (ms)", f"{SETUP} (ms)"]
    body = []
    for name, row in section.items():
        lat = row["Latency"]
        cells = [name, str(row["Count"])]
        cells += [_cell(lat[k]) for k in ("Avg", "P50", "P95", "Max")]
        for part in shared:
            cells += [_cell(row.get(part)), _share(row.get(part), lat["Avg"])]
        ahead = row.get(AHEAD)
        cells += [_cell(row.get(OWN)), "unknown" if ahead is None else f"{ahead:.1f}",
                  _cell(row.get(SUB)), _cell(row.get(SETUP))]
        body.append(cells)
    return headers, body


def _json_row(row):
    out = {}
    for key, value in row.items():
        if key == "Count":
            out[key] = value
        elif key == AHEAD:   # a count of calls, not a time
            out[key] = None if value is None else round(value, 1)
        elif isinstance(value, dict):
            out[key] = {k: _ms(v) for k, v in value.items()}
        else:
            out[key] = _ms(value)
    return out


def _ms(ns):
    return None if ns is None else round(ns / _NS_PER_MS, _MS_DIGITS)


def _cell(ms):
    return "unknown" if ms is None else f"{ms:.4f}"


def _share(ms, latency):
    if ms is None or latency is None:
        return "unknown"
    return f"{100.0 * ms / latency:.1f}" if latency else "-"


# -- the headline: what a user can act on, in a user's words ----------------------------
_SAYS = {
    "Inputs": "waits for its inputs to be written",
    "Producer": "waits for its inputs to be written",
    "Pool": "waits for a free custom-operator thread",
    "Queued": ("waits before its Python code starts (for its inputs or for a "
               "custom-operator thread: this trace does not tell which)"),
    "Python": "runs its Python code",
    "Blocked": "waits at sync points in its Python code (wait_to_read, asnumpy, ...)",
    "Tail": "waits for its sub-operators after its Python code returned",
}


def dominant(row):
    """``(part, ms)``: the largest part of a JSON row's latency: Backlog, Producer,
    Pool, Python, Blocked, Tail (Inputs whole where a row cannot split it, Queued where
    it cannot split that); None without a latency (rows derived from MXNet traces)."""
    if (row.get("Latency") or {}).get("Avg") is None:
        return None
    if row.get("Inputs") is None:
        parts = PARTS
    elif row.get("Backlog") is None:
        parts = (*QUEUED_PARTS, *PARTS[1:])
    else:
        parts = (*INPUT_PARTS, "Pool", *PARTS[1:])
    best = max(parts, key=lambda p: row.get(p) or 0.0)   # first of equals: the earliest part
    return best, row.get(best) or 0.0


def own_text(row):
    """``"its own cost is 9.412 ms per call: Python 9.301 ms, sub-operators 0.050 ms"``:
    what the op itself takes (:data:`OWN`), with its largest part named, the things a
    user can change in the op."""
    own = row.get(OWN)
    if own is None:
        return ""
    parts = [("Python", row.get("Python")), ("blocked", row.get("Blocked")),
             ("sub-operators", row.get(SUB))]
    named = ", ".join(f"{n} {v:.3f} ms" for n, v in parts if v)
    return f"its own cost is {own:.3f} ms per call" + (f": {named}" if named else "")


def headline(row, writer=None):
    """One sentence on a row (JSON section, ms) that names what the user can act on,
    by the part of the latency that dominates: the op's own Python, its sub-operators,
    its blocked time, the op writing its inputs (``writer``, from the trace's dependency
    records, ``cli/analysis/callinputs.py``), or, when the wait is backlog, the steps the
    loop runs ahead and the op's own cost: ``"the loop runs 5.0 steps ahead; 96% of its
    latency is backlog (earlier work queued before its inputs' writer started): its own
    cost is 3.012 ms per call: Python 2.990 ms"``. Rows without a latency say so and
    what is known."""
    found = dominant(row)
    if found is None:
        return (f"latency unknown (no call spans in this trace): Python "
                f"{_cell(row.get('Python'))} ms, sub-operators {_cell(row.get(SUB))} ms per call")
    part, ms = found
    lat = row["Latency"]["Avg"]
    share = f"{100.0 * ms / lat:.0f}%" if lat else "0%"
    if part == "Backlog":
        ahead = row.get(AHEAD)
        if ahead is not None and ahead >= 1:   # earlier steps of the loop: act on its cost
            return (f"the loop runs {ahead:.1f} steps ahead; {share} of its latency is "
                    f"backlog (earlier work queued before its inputs' writer started): "
                    f"{own_text(row)}")
        # no earlier call in flight: the backlog is the work feeding its inputs' writer
        inputs = row.get("Inputs") or 0.0
        pct = lambda v: f"{100.0 * (v or 0.0) / lat:.0f}%" if lat else "0%"  # noqa: E731
        by = f" (by {writer})" if writer else ""
        return (f"{pct(inputs)} of its latency waits for its inputs to be written{by}: "
                f"{pct(row.get('Backlog'))} before {writer or 'that op'} started, "
                f"{pct(row.get('Producer'))} while it ran")
    said = _SAYS[part] + (f" (by {writer})" if part in ("Inputs", "Producer") and writer
                          else "")
    return f"{share} of its latency {said}"

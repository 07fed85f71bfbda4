"""``xprof diff``: did a change help? Two runs compared op by op, with a noise floor.

**Matching.** Slices are matched by (category, name, layer, input shapes, rank): the
layer is the ``args.name`` xprof records on every engine op (``mlp_heavy_fwd``), the
shapes ``args["Input Dims"]`` (xprof, PyTorch with ``record_shapes``), the rank that of a
merged multi-rank trace's ``rank R: ...`` process. An op's stable identity is what the
engine knows of it, never its time stamps or position. The API domains (the pushes of
``mx.nd`` calls and the sync waits) are not rows: their time is the ops'. Custom-op
calls are compared by op type from the ``Custom Operator Calls`` breakdown. Keys only
in A are *removed*, only in B *added*.

**Significance** (:func:`significance`). Per matched row, the ratio of the medians
B/A, and a bootstrap interval of that ratio from each run's own call-to-call variation
(:data:`RESAMPLES` resamples of each run's durations, a fixed seed, so the answer does
not change between two readings of the same files; at most :data:`MAX_SAMPLES` calls
of a row, evenly picked, are resampled). A change is **significant** when its ratio and the whole
99% interval lie outside the noise floor ``[1/(1+FLOOR), 1+FLOOR]`` around 1 and around
the run-wide **drift** (:func:`run_drift`: the median ratio over the rows): the
interval says the runs' own variation cannot explain it, the floor that it exceeds the
drift between two runs of one job on one machine (:data:`FLOOR` is 10%), and the
drift that it changed by itself, not with the whole run (a uniformly slower machine
shows in the step and wall times, not as every op flagged). A
row with fewer than :data:`MIN_CALLS` calls in either run is never significant (no
variation to judge it by). Tested on synthetic samples with known answers
(``tests/cli/test_diff_significance.py``).

**Wall time and the critical path.** When both traces carry dependency records, each
is analysed as ``xprof explain`` does (``analysis.explain.analyze``); a row's *path
time* is the run time of its slices on the critical path. The change in wall time is
then split into what moved on the path (which rows) and what changed off it, absorbed
by slack. Rows are ordered by their impact on wall time: the change of their path
time when there are dependency records, of their total time otherwise.

The document (``--format json``) is ``{"rows": [...], "wall": {...}, "critical_path":
{...}, "added": [...], "removed": [...], "custom_ops": [...], "memory": {...}}`` (see
:func:`diff`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from xprof.mxcli.analysis import critical_path as cp, linediff

FLOOR = 0.10          # the between-run drift a change must exceed
CONFIDENCE = 0.99
RESAMPLES = 400
MAX_SAMPLES = 500
MIN_CALLS = 5
API_DOMAINS = frozenset({"API", "MXNET_C_API"})
_MS = 1e6
CALL_KEYS = ("Queued", "Inputs", "Backlog", "Producer", "Pool", "Setup", "Python", "Blocked",
             "Tail", "Own", "Sub-operators")


# -- significance ------------------------------------------------------------------------
def significance(a, b, seed=0, drift=1.0):
    """``(ratio, (low, high), significant)`` of two samples of durations (any unit):
    the ratio of medians B/A, its bootstrap interval at :data:`CONFIDENCE`, and whether
    that interval lies wholly outside the noise floor around 1 and around ``drift``
    (the run-wide ratio, :func:`run_drift`; see the module docstring)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ma, mb = float(np.median(a)), float(np.median(b))
    ratio = mb / ma if ma > 0 else (float("inf") if mb > 0 else 1.0)
    if len(a) < MIN_CALLS or len(b) < MIN_CALLS or ma <= 0:
        return ratio, (None, None), False
    if _inside(ratio, ratio, drift):
        # inside a floor itself: the interval around it cannot lie outside (and the
        # resampling, most of a diff's time on thousands of unchanged rows, is skipped)
        return ratio, (None, None), False
    rng = np.random.default_rng(seed)
    ra = _boot_medians(_pick(np.sort(a)), rng)
    rb = _boot_medians(_pick(np.sort(b)), rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        boots = rb / ra
    boots = boots[np.isfinite(boots)]
    if not len(boots):
        return ratio, (None, None), False
    tail = (1 - CONFIDENCE) / 2 * 100
    lo, hi = (float(x) for x in np.percentile(boots, [tail, 100 - tail]))
    return ratio, (lo, hi), not _inside(lo, hi, drift)


def _inside(lo, hi, drift):
    """Does ``[lo, hi]`` reach into the noise floor around 1 or around ``drift``?"""
    for center in (1.0, drift):
        if lo <= center * (1 + FLOOR) and hi >= center / (1 + FLOOR):
            return True
    return False


def run_drift(pairs):
    """The run-wide ratio B/A: the median, over the rows with at least
    :data:`MIN_CALLS` calls in both runs, of their median ratios (each row one vote, so
    a change to a few layers does not move it). Two runs of one job on a shared
    machine drift apart as a whole (a slower core, another process: 15-25% measured on
    this 2-core VM, every op alike); a row is a change of its own only when it moved
    away from that too. 1.0 with fewer than 3 such rows."""
    ratios = []
    for da, db in pairs:
        if len(da) >= MIN_CALLS and len(db) >= MIN_CALLS:
            ma = float(np.median(da))
            if ma > 0:
                ratios.append(float(np.median(db)) / ma)
    return float(np.median(ratios)) if len(ratios) >= 3 else 1.0


def _pick(sorted_values):
    n = len(sorted_values)
    if n <= MAX_SAMPLES:
        return sorted_values
    return sorted_values[np.linspace(0, n - 1, MAX_SAMPLES).astype(np.int64)]


def _boot_medians(values, rng):
    idx = rng.integers(0, len(values), size=(RESAMPLES, len(values)))
    return np.median(values[idx], axis=1)


# -- one run ----------------------------------------------------------------------------
@dataclass
class Run:
    """One trace, read once: its ``Trace`` (with its layer and shape columns), statistics
    and explain analysis (:func:`run_of`)."""

    path: str
    tl: object
    stats: dict
    analysis: object


def run_of(path, tl):
    """The :class:`Run` of a ``Trace`` (loaded with ``keys=True``): the ``Custom
    Operator Calls`` section, the memory peak and the explain analysis."""
    from xprof.mxcli.analysis.explain import analyze

    stats = {"Custom Operator Calls": calls_section(tl), "Memory peak kB": memory_peak_kb(tl)}
    return Run(str(path), tl, stats, analyze(tl))


def memory_peak_kb(tl):
    """The largest value of the memory counters (kB, as ``xprof stats`` shows them), or
    None without any."""
    from xprof.traces.counters import is_memory

    memory = np.array([is_memory(cat, name) for cat, name, _, _ in tl.counter_series_table]
                      or [False])
    values = tl.counter_value[memory[tl.counter_series]] if len(tl.counter_series) else \
        tl.counter_value
    values = values[np.abs(values) < 2 ** 63]   # (NaN: no)
    return float(values.max()) / 1000.0 if len(values) else None


@dataclass
class Summary:
    """What a diff needs of one run, small and picklable (so the two traces are read
    in two processes at once): its rows, wall time, path, steps and statistics."""

    path: str
    rows: "Rows"
    wall_ns: int
    serial: bool
    path_ns: int
    by_kind: dict
    steps: object
    stats: dict
    lines: tuple = ({}, {})   # (rows, summary) of its Python-line samples (linediff.py)


def summarize(run):
    return Summary(run.path, rows_of(run), run.analysis.wall, run.analysis.serial,
                   run.analysis.path.length, dict(run.analysis.by_kind), steps_ns(run),
                   run.stats, linediff.sections(run.tl))


def calls_section(tl):
    """The ``Custom Operator Calls`` section of the trace's call spans (paired by the read
    model, ``Trace.call_stats``): what a diff needs of ``xprof stats``' tables (the rest
    of them, self time and all, is left out of its pass)."""
    from xprof.traces import stats as S

    st = S.Stats()
    st.calls = tl.call_stats
    return S.to_json_obj(st).get("Custom Operator Calls") or {}


# -- rows --------------------------------------------------------------------------------
@dataclass
class Rows:
    """The matched-key view of one run: per key (a tuple of texts), its durations (ns)
    and its run time on the critical path (ns)."""

    durations: dict
    path_ns: dict


def rows_of(run):
    tl = run.tl
    layer, shapes = tl.layer, tl.shape
    ranks = [tl.process_rank(p) for p in tl.pids]
    process = tl.thread_process()
    thread_rank = np.array([ranks[k] if k >= 0 and ranks[k] is not None else -1
                            for k in process.tolist()] or [0], dtype=np.int64)
    rank = thread_rank[tl.thread] if len(tl.threads) else np.full(len(tl.start), -1)
    cats = np.array([c in API_DOMAINS for c in tl.cats] or [False], dtype=bool)
    keep = ~cats[tl.cat]
    keep[tl.sync_slice] = False   # waits at sync points: the ops' time, waited for
    cols = np.stack([tl.cat, tl.name, layer, shapes, rank]).astype(np.int64)[:, keep]
    dur = (tl.end - tl.start)[keep]
    rows_ix = np.flatnonzero(keep)
    if not cols.shape[1]:
        return Rows({}, {})
    # one int64 per slice (mixed radix over the five columns; -1s shifted to 0): a 1-D
    # unique sorts integers, np.unique(axis=1) sorted rows as records (6 s of 1M)
    shifted = cols + 1
    radix = (shifted.max(axis=1) + 1).tolist()
    if math.prod(radix) < 2 ** 62:
        flat = np.zeros(cols.shape[1], dtype=np.int64)
        for col, r in zip(shifted, radix):
            flat = flat * r + col
        _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        uniq = cols[:, first]
    else:   # too many distinct values to pack in 62 bits
        uniq, inverse = np.unique(cols, axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    cuts = np.flatnonzero(np.diff(inverse[order])) + 1
    groups = np.split(order, cuts)
    key_of = [_key_text(run, col) for col in uniq.T.tolist()]
    durations = {key_of[inverse[g[0]]]: dur[g] for g in groups}
    # run time on the critical path, per key
    path_ns = {}
    path = run.analysis.path
    kinds = np.frombuffer(path.kind, dtype=np.int64)
    if len(kinds):
        op = kinds == cp.OP
        seg_rows = np.frombuffer(path.row, dtype=np.int64)[op]
        seg_dur = (np.frombuffer(path.t1, dtype=np.int64)
                   - np.frombuffer(path.t0, dtype=np.int64))[op]
        where = np.full(len(tl.start), -1, dtype=np.int64)
        where[rows_ix] = inverse
        k = where[seg_rows]
        ok = k >= 0
        sums = np.bincount(k[ok], weights=seg_dur[ok], minlength=len(key_of))
        for i in np.flatnonzero(sums).tolist():
            path_ns[key_of[i]] = int(sums[i])
    return Rows(durations, path_ns)


def _key_text(run, col):
    cat, name, layer, shapes, rank = col
    tl = run.tl
    return (tl.cats[cat], tl.names[name],
            tl.layers[layer] if layer >= 0 else None,
            tl.shape_labels[shapes] if shapes >= 0 else None,
            rank if rank >= 0 else None)


def _side(d):
    s = np.sort(d)
    return {"count": int(len(s)), "median_ms": round(float(np.median(s)) / _MS, 6),
            "p90_ms": round(float(np.percentile(s, 90)) / _MS, 6),
            "total_ms": round(float(s.sum()) / _MS, 6)}


def _ident(key):
    cat, name, layer, shapes, rank = key
    out = {"name": name, "layer": layer, "shapes": shapes, "category": cat}
    if rank is not None:
        out["rank"] = rank
    return out


def label(row):
    """How a row is named in text: ``FullyConnected (mlp_heavy_fwd) [[64, 64], ...]``."""
    text = row["name"]
    if row.get("layer"):
        text += f" ({row['layer']})"
    if row.get("rank") is not None:
        text = f"rank {row['rank']}: " + text
    return text


# -- the document ------------------------------------------------------------------------
def diff(a, b):
    """The diff document of two runs (:class:`Summary`, or :class:`Run`: see the
    module docstring)."""
    a = a if isinstance(a, Summary) else summarize(a)
    b = b if isinstance(b, Summary) else summarize(b)
    ra, rb = a.rows, b.rows
    deps = a.serial is False and b.serial is False
    rows = []
    pairs = [(k, k) for k in sorted(set(ra.durations) & set(rb.durations), key=str)]
    pairs += _reshaped(set(ra.durations) - set(rb.durations),
                       set(rb.durations) - set(ra.durations))
    paired_a, paired_b = {ka for ka, _ in pairs}, {kb for _, kb in pairs}
    drift = run_drift((ra.durations[k], rb.durations[kb]) for k, kb in pairs)
    for key, key_b in pairs:
        da, db = ra.durations[key], rb.durations[key_b]
        ratio, (lo, hi), sig = significance(da, db, drift=drift)
        sa, sb = _side(da), _side(db)
        pa, pb = ra.path_ns.get(key, 0) / _MS, rb.path_ns.get(key_b, 0) / _MS
        change = sb["total_ms"] - sa["total_ms"]
        row = {**_ident(key), "a": sa, "b": sb, "ratio": round(ratio, 6),
               "interval": [None if lo is None else round(lo, 6),
                            None if hi is None else round(hi, 6)],
               "significant": bool(sig), "change_ms": round(change, 6),
               "path_ms": {"a": round(pa, 6), "b": round(pb, 6)},
               "impact_ms": round((pb - pa) if deps else change, 6)}
        if key_b != key:   # the same op of the same layer, its input shapes changed
            row["shapes_b"] = key_b[3]
        rows.append(row)
    rows.sort(key=rank_key)
    added = [{**_ident(k), **_side(rb.durations[k]),
              "path_ms": round(rb.path_ns.get(k, 0) / _MS, 6)}
             for k in sorted(set(rb.durations) - set(ra.durations) - paired_b, key=str)]
    removed = [{**_ident(k), **_side(ra.durations[k]),
                "path_ms": round(ra.path_ns.get(k, 0) / _MS, 6)}
               for k in sorted(set(ra.durations) - set(rb.durations) - paired_a, key=str)]
    for group in (added, removed):
        group.sort(key=lambda r: (-r["total_ms"], label(r)))
    wa, wb = a.wall_ns / _MS, b.wall_ns / _MS
    wall = {"a_ms": round(wa, 6), "b_ms": round(wb, 6), "change_ms": round(wb - wa, 6),
            "ratio": round(wb / wa, 6) if wa > 0 else None,
            "steps": _steps_change(a.steps, b.steps)}
    return {"a": a.path, "b": b.path, "drift": round(drift, 6), "rows": rows, "wall": wall,
            "critical_path": _path_change(a, b, rows, added, removed, deps, wall),
            "added": added, "removed": removed,
            "custom_ops": _custom_ops(a.stats, b.stats),
            "python_lines": linediff.compare(a.lines, b.lines),
            "memory": _memory(a.stats, b.stats)}


def rank_key(row):
    """Rows' order: significant changes first (a real change is never hidden below rows
    that moved by noise), each group by its impact on wall time, then (where the path
    cannot tell: equal impacts, no dependency records) by the row's own change."""
    return (not row["significant"], -abs(row["impact_ms"]), -abs(row["change_ms"]),
            label(row))


def _reshaped(only_a, only_b):
    """Pairs ``(key in A, key in B)`` of rows that are the same op of the same layer
    (and rank) whose input shapes changed: one candidate on each side, and a layer to
    tell it by (a layer made wider is that layer's rows, slower, not one row removed
    and another added)."""
    def by_op(keys):
        groups = {}
        for k in keys:
            if k[2] is not None:
                groups.setdefault((k[0], k[1], k[2], k[4]), []).append(k)
        return groups
    ga, gb = by_op(only_a), by_op(only_b)
    return sorted(((ga[g][0], gb[g][0]) for g in set(ga) & set(gb)
                   if len(ga[g]) == 1 and len(gb[g]) == 1), key=str)


def steps_ns(run):
    """The run's step times (ns), when it has steps: the time between consecutive
    ``WaitForAll`` sync points of its busiest driver (a training loop's ``waitall`` per
    step), or PyTorch's ``ProfilerStep#N`` slices; None without at least
    :data:`MIN_CALLS` of them."""
    tl = run.tl
    if len(tl.start):
        # one test per name (not ``astype(str)``: a fixed-width copy of every name as
        # long as the longest, gigabytes for one 10 MB name)
        is_step = np.array([n.startswith("ProfilerStep#") for n in tl.names], dtype=bool)
        step_rows = np.flatnonzero(is_step[tl.name])
        if len(step_rows) >= MIN_CALLS:
            return (tl.end - tl.start)[step_rows]
    if len(tl.sync_slice):
        waits = tl.sync_slice[tl.sync_all]
        if len(waits) > MIN_CALLS:
            threads, counts = np.unique(tl.thread[waits], return_counts=True)
            main = threads[np.argmax(counts)]
            ends = np.sort(tl.end[waits[tl.thread[waits] == main]])
            if len(ends) > MIN_CALLS:
                return np.diff(ends)
    return None


def _steps_change(sa, sb):
    if sa is None or sb is None:
        return None
    ratio, (lo, hi), sig = significance(sa, sb)
    return {"a": {"count": int(len(sa)), "median_ms": round(float(np.median(sa)) / _MS, 6)},
            "b": {"count": int(len(sb)), "median_ms": round(float(np.median(sb)) / _MS, 6)},
            "ratio": round(ratio, 6),
            "interval": [None if lo is None else round(lo, 6),
                         None if hi is None else round(hi, 6)],
            "significant": bool(sig)}


def _path_change(a, b, rows, added, removed, deps, wall):
    """How the wall time's change splits over the critical path (both with dependency
    records), with the sentence that says it."""
    if not deps:
        return {"available": False,
                "reason": "one of the traces has no dependency records (not recorded by "
                          "the xprof engine): impact is each row's change of total time",
                "summary": _summary(wall, rows, None)}
    pa, pb = a.path_ns / _MS, b.path_ns / _MS
    on_rows = sum(r["path_ms"]["b"] - r["path_ms"]["a"] for r in rows)
    on_added = sum(r["path_ms"] for r in added)
    on_removed = sum(r["path_ms"] for r in removed)
    by_kind = {k: round((b.by_kind.get(k, 0) - a.by_kind.get(k, 0)) / _MS, 6)
               for k in cp.KINDS}
    return {"available": True, "a_ms": round(pa, 6), "b_ms": round(pb, 6),
            "change_ms": round(pb - pa, 6), "matched_rows_change_ms": round(on_rows, 6),
            "added_rows_ms": round(on_added, 6), "removed_rows_ms": round(on_removed, 6),
            "by_kind_change_ms": by_kind, "summary": _summary(wall, rows, True)}


def _summary(wall, rows, deps):
    """``wall +38.0 ms, of which second_dense FullyConnected +31.0 ms on the path;
    head_dense +4.0 ms off the path, absorbed by slack``.

    On the path: the rows whose path time changed most (whatever their significance: this
    is how the wall's change splits, not a verdict on each row). Off the
    path: the row whose own change the path absorbed most, but never one that was on
    A's path, changed significantly, and moved the way the wall did by a comparable
    amount: that change is the wall's, whatever the path's accounting of it says (a
    custom op's Python cut in half, the run as much faster)."""
    text = f"wall {_signed(wall['change_ms'])} ms"
    if deps:
        on = sorted((r for r in rows if abs(r["impact_ms"]) >= 0.001),
                    key=lambda r: -abs(r["impact_ms"]))[:2]   # the wall's largest parts
        off = [r for r in sorted(rows, key=lambda r: -abs(r["change_ms"] - r["impact_ms"]))
               if abs(r["change_ms"] - r["impact_ms"]) >= max(0.001, abs(r["impact_ms"]))
               and not any(r is o for o in on) and not _carried_the_wall(r, wall)][:1]
        if on:
            text += ", of which " + ", ".join(
                f"{label(r)} {_signed(r['impact_ms'])} ms" for r in on) + " on the path"
        if off:
            r = off[0]
            text += (f"; {label(r)} {_signed(r['change_ms'] - r['impact_ms'])} ms off the "
                     f"path, absorbed by slack")
    else:
        top = [r for r in rows if abs(r["change_ms"]) >= 0.001][:2]
        if top:
            text += "; largest changes: " + ", ".join(
                f"{label(r)} {_signed(r['change_ms'])} ms" for r in top)
    return text


def _carried_the_wall(row, wall):
    """A row on A's critical path whose own time changed significantly, the same way as
    the wall and by a comparable amount (the wall moved at least half as much)."""
    change, moved = row["change_ms"], wall["change_ms"]
    return (row["significant"] and row["path_ms"]["a"] > 0 and change * moved > 0
            and abs(moved) >= 0.5 * abs(change))


def _signed(v):
    return f"{v:+,.3f}"


def _custom_ops(sa, sb):
    ca, cb = sa.get("Custom Operator Calls") or {}, sb.get("Custom Operator Calls") or {}
    out = []
    for name in sorted(set(ca) | set(cb)):
        x, y = ca.get(name), cb.get(name)
        entry = {"name": name}
        for side, row in (("a", x), ("b", y)):
            if row is None:
                entry[side] = None
                continue
            lat = row.get("Latency") or {}
            entry[side] = {"count": row.get("Count"), "latency_ms": lat.get("Avg"),
                           **{k: row.get(k) for k in CALL_KEYS if k in row}}
        if x is not None and y is not None:
            entry["change_ms"] = {k: _sub(entry["b"].get(k), entry["a"].get(k))
                                  for k in ("latency_ms",) + CALL_KEYS
                                  if k in entry["a"] or k in entry["b"]}
        out.append(entry)
    return out


def _sub(x, y):
    if type(x) in (int, float) and type(y) in (int, float):
        return round(x - y, 6)
    return None


def _memory(sa, sb):
    a, b = sa.get("Memory peak kB"), sb.get("Memory peak kB")
    return {"a_peak_kb": None if a is None else round(a, 3),
            "b_peak_kb": None if b is None else round(b, 3),
            "change_kb": None if a is None or b is None else round(b - a, 3)}


# -- the gate ----------------------------------------------------------------------------
_SPEC = re.compile(r"^(?:(wall)|op:(.+)):(\d+(?:\.\d+)?)%$|^(\d+(?:\.\d+)?)%$")


def parse_gate(spec):
    """``"10%"`` | ``"wall:5%"`` | ``"op:NAME:10%"`` -> ``(kind, name, fraction)``;
    ``ValueError`` naming the value and the forms allowed."""
    m = _SPEC.match(spec.strip())
    if not m:
        raise ValueError(f"--fail-on {spec!r} is not a threshold; use P% (wall or any op), "
                         f"wall:P% or op:NAME:P%, e.g. 10%")
    if m.group(4) is not None:
        return "any", None, float(m.group(4)) / 100
    if m.group(1):
        return "wall", None, float(m.group(3)) / 100
    return "op", m.group(2), float(m.group(3)) / 100


def material(row, wall_ms, on_path=False):
    """A row whose change moves at least :data:`MATERIAL` of A's wall time. With both
    runs' dependency records (``on_path``) that is its change on the critical path: a
    slower op whose extra time the slack absorbed made no run longer (two runs of one
    unchanged job can differ by a whole mode in one small op beside the path: a relu's
    gradient at 9 us in one run, 0.13 ms in every call of the next). Without them, its
    median's change times its calls (a 3x slower op of a microsecond is real and does
    not matter; its total, moved by a few calls a busy machine delayed, is not its
    typical change). With them, its own change must be material too: an op whose time
    barely moved but more of which lies on the path (the path went through it rather
    than through an op beside it) changed the path's shape, not its own speed (two runs
    of one job: a relu's gradient 0.06 -> 0.15 ms a call, its path time 0.5 -> 4.8 ms,
    the run no slower)."""
    shift = abs(row["b"]["median_ms"] - row["a"]["median_ms"])
    own = shift * max(row["a"]["count"], row["b"]["count"]) >= MATERIAL * wall_ms
    if on_path:
        return own and row["path_ms"]["b"] - row["path_ms"]["a"] >= MATERIAL * wall_ms
    return own


MATERIAL = 0.02


def gate(doc, specs):
    """The reasons (texts) the diff fails the gate ``specs`` (parsed), [] when it passes
    (:func:`gate_rows`: with the rows that failed it)."""
    return [reason for reason, _ in gate_rows(doc, specs)]


def gate_rows(doc, specs):
    """``[(reason, row or None)]``: why the diff fails the gate ``specs`` (parsed), each
    with the row that failed it (None for the wall or step time); [] when it passes.

    * a row: significant, its median ratio above ``1 + P``, and (for ``P%``) material;
      ``op:NAME:P%`` the rows of that op or layer name only;
    * wall time: with steps (``wall.steps``), a significant step-time ratio above
      ``1 + P``; without, only ``wall:P%`` gates it, on the wall-time ratio alone (one
      number per run: no variation to judge it by)."""
    reasons, wall_reasons = [], []
    wall = doc["wall"]
    on_path = bool(doc.get("critical_path", {}).get("available"))
    steps = wall.get("steps")
    for kind, name, frac in specs:
        pct = f"{frac * 100:g}%"
        if kind in ("any", "wall"):
            if steps is not None:
                if steps["significant"] and steps["ratio"] > 1 + frac:
                    wall_reasons.append(f"step time {steps['a']['median_ms']:.3f} -> "
                                   f"{steps['b']['median_ms']:.3f} ms (median of "
                                   f"{steps['b']['count']} steps, x{steps['ratio']:.2f}, "
                                   f"significant; over {pct})")
            elif kind == "wall" and wall["ratio"] is not None and wall["ratio"] > 1 + frac:
                wall_reasons.append(f"wall time {wall['a_ms']:.3f} -> {wall['b_ms']:.3f} ms "
                               f"(+{(wall['ratio'] - 1) * 100:.1f}%, over {pct})")
        if kind == "wall":
            continue
        for row in doc["rows"]:
            if not (row["significant"] and row["ratio"] > 1 + frac):
                continue
            if kind == "op" and name not in (row["name"], row.get("layer")):
                continue
            if kind == "any" and not material(row, wall["a_ms"], on_path):
                continue
            reasons.append((f"{label(row)} median {row['a']['median_ms']:.3f} -> "
                            f"{row['b']['median_ms']:.3f} ms (x{row['ratio']:.2f}, "
                            f"significant; over {pct})", row))
    return reasons + [(r, None) for r in wall_reasons]   # the rows first: they say where

"""``xprof explain --what-if``: what a change would gain, predicted by replaying the run
(:mod:`.replay`), and, without a spec, "what would help": the largest ops on the path,
each predicted 2x faster and free.

Why predictions need the replay: the path changes when an op gets faster (its slack, a
parallel branch taking over, a pool freeing up). Each prediction says its wall and step
time, the op's slack in the recorded run and the top ops of the replayed run's critical
path (the replayed run written as a trace and walked as ``explain`` walks any trace).

The document (``explain --format json``'s ``"what_if"``)::

    [{"spec", "wall_ms", "delta_ms", "step_ms", "slack_ms", "top_ops"}, ...]

``step_ms`` is the median time between the busiest driver's ``waitall`` s (None without
steps); ``slack_ms`` how much more time the matched ops could take in all (in proportion
to their calls' times), in the recorded run, before the wall grows (0 on the critical
path; None for Python and pool changes); ``top_ops``
``[{"name", "path_ms"}]`` of the replayed path. ``"what_would_help"``: ``[{"name",
"path_ms", "gain_2x_ms", "gain_free_ms", "slack_ms"}]``, by ``gain_2x_ms``.
"""
from __future__ import annotations

import numpy as np

from xprof.traces import whatif as grammar
from xprof.traces.names import PURE_PYTHON

from xprof.mxcli.analysis import replay as rp

_MS = 1e6
HELP_TOP = 5            # ops of "what would help"
MIN_STEPS = 5


def matches(model, spec):
    """``(records, bodies)``: boolean masks of the records whose run time and whose
    body's Python ``spec`` changes (op, layer, custom); ``ValueError`` naming the spec
    when it matches no record."""
    tl, g = model.tl, model.graph
    names = np.array(tl.names, dtype=object)[g.name] if len(g) else np.zeros(0, object)
    has_body = np.array([i in model.bodies for i in range(len(g))], dtype=bool)
    if spec.kind == "op":
        sel = names == spec.name
    elif spec.kind == "layer":
        sel = np.array([lay == spec.name for lay in model.layer], dtype=bool)
    else:   # custom: its calls (forward and backward) and their sub-operators
        calls = np.isin(names, [n + "::" + PURE_PYTHON for n in grammar.custom_names(spec.name)])
        sel = calls | (np.isin(g.parent, np.flatnonzero(calls)) & (g.parent >= 0))
    if not sel.any():
        raise ValueError(f"what-if {spec.text!r} matches no op of this trace"
                         + _suggest(spec, names))
    return sel & ~has_body, sel & has_body


def _suggest(spec, names):
    if spec.kind == "layer":
        return " (no op with that layer name: xprof stats --group-by layer lists them)"
    if spec.kind == "custom":
        types = sorted({n.split("::")[0].removeprefix("_backward_") for n in names.tolist()
                        if n.endswith("::" + PURE_PYTHON)})
        return f" (custom-op types here: {', '.join(types[:8]) or 'none'})"
    return " (xprof stats lists the op names)"


def change_of(model, spec):
    """The :class:`.replay.Change` a parsed spec makes."""
    if spec.kind == "workers":
        return rp.Change(spec.text, workers=spec.count)
    if spec.kind == "custom_pool":
        return rp.Change(spec.text, custom_pool=spec.count)
    if spec.kind == "python":
        return rp.Change(spec.text, factor=spec.factor, python=True)
    records, bodies = matches(model, spec)
    return rp.Change(spec.text, records=records, bodies=bodies, factor=spec.factor,
                     add=spec.add_ns)


def step_ends(model, result=None):
    """The ends (ns) of the ``waitall`` s of the driver with most of them (recorded, or
    of a replay ``result``), in order: consecutive ends bound a step; None with fewer
    than :data:`MIN_STEPS` steps."""
    tl = model.tl
    rows = tl.sync_slice
    if not len(rows):
        return None
    is_all = tl.sync_all
    threads = tl.thread[rows].astype(np.int64)
    cand = np.flatnonzero(is_all)
    if len(cand) <= MIN_STEPS:
        return None
    ths, counts = np.unique(threads[cand], return_counts=True)
    main = ths[np.argmax(counts)]
    mine = cand[threads[cand] == main]
    ends = (result.sync_end[mine] if result is not None else tl.end[rows][mine]).astype(np.int64)
    ends = np.sort(ends[ends >= 0])
    return ends if len(ends) > MIN_STEPS else None


def steps_ms(model, result=None):
    """The median step time (ms): between consecutive ``waitall`` ends of the driver
    with most of them (:func:`step_ends`); None with fewer than :data:`MIN_STEPS`."""
    ends = step_ends(model, result)
    return None if ends is None else round(float(np.median(np.diff(ends))) / _MS, 6)


def alternate_check(model, spec_text, slowed_starts):
    """A run of ``xprof run --slow SPEC --slow-alternate`` checked against the
    prediction for SPEC: the measured change is the median over its slowed steps (a
    ``slowed_starts`` event, ns, starts in them) of each less the plain steps beside
    it; the predicted one the median, over the others, of the step replayed with SPEC less the
    step replayed as recorded (the slowed steps' ops already carry the wait, so they are
    not predicted from). Both from one process, so a machine whose speed differs between
    processes moves them together. ``{"spec", "step_ms", "steps", "measured_ms",
    "predicted_ms", "spread_ms"}`` (ms; ``steps``: [slowed, plain]; ``spread_ms``: half
    the interquartile range of the steps of either kind, the larger: how far the machine
    moved them); None without two steps each way."""
    ends = step_ends(model)
    if ends is None:
        return None
    starts = np.sort(np.asarray(slowed_starts, dtype=np.int64))
    lo, hi = ends[:-1], ends[1:]
    slowed = np.searchsorted(starts, hi) > np.searchsorted(starts, lo)
    if slowed.sum() < 2 or (~slowed).sum() < 2:
        return None
    base = rp.replay(model)
    changed = rp.replay(model, [change_of(model, grammar.parse(spec_text))])
    d_base = np.diff(step_ends(model, base).astype(np.float64))
    d_changed = np.diff(step_ends(model, changed).astype(np.float64))
    recorded = np.diff(ends.astype(np.float64))
    if not len(d_base) == len(d_changed) == len(recorded):
        return None
    plain = ~slowed
    spread = max(float(np.subtract(*np.percentile(recorded[side], [75, 25])))
                 for side in (plain, slowed)) / 2
    return {"spec": spec_text, "step_ms": round(float(np.median(recorded[plain])) / _MS, 6),
            "steps": [int(slowed.sum()), int(plain.sum())],
            "measured_ms": round(_beside(recorded, slowed) / _MS, 6),
            "predicted_ms": round(float(np.median((d_changed - d_base)[plain])) / _MS, 6),
            "spread_ms": round(spread / _MS, 6)}


def off_path(analysis):
    """A what-if target with time of its own of which at most a tenth is on the critical
    path (an op name, else an op's layer, ``layer:NAME``: a parameter's update beside the
    next step's work), the one with most time; None when every op is on it (one thread
    ran them all). ``analysis``: :func:`.explain.analyze` with ``layers=True``."""
    import collections

    from xprof.mxcli.analysis import critical_path as cp

    tl, g, path = analysis.tl, analysis.graph, analysis.path
    if g is None:
        return None
    on_path = np.zeros(len(tl.start))
    for kind, row, t0, t1 in zip(path.kind, path.row, path.t0, path.t1):
        if kind == cp.OP and row >= 0:
            on_path[row] += t1 - t0
    layers = getattr(analysis, "layers", None) or [None] * len(g)
    total, on = collections.Counter(), collections.Counter()
    for i in range(len(g)):
        row = int(g.slice[i])
        name = tl.names[tl.name[row]]
        if name.endswith("::" + PURE_PYTHON):
            continue
        for key in (name, f"layer:{layers[i]}" if layers[i] else None):
            if key:
                total[key] += int(tl.end[row] - tl.start[row])
                on[key] += on_path[row]
    for key, ns in total.most_common():
        if on[key] <= 0.1 * ns:
            return key
    return None


def _beside(steps, slowed):
    """The median over the slowed steps of each less the mean of the plain steps beside
    it (before and after): a change of the machine's speed lasting a few steps falls on
    both sides."""
    out = []
    for i in np.flatnonzero(slowed):
        near = [steps[j] for j in (i - 1, i + 1) if 0 <= j < len(steps) and not slowed[j]]
        if near:
            out.append(steps[i] - sum(near) / len(near))
    return float(np.median(out))


def replayed_events(model, result):
    """The replayed run as trace events (its op slices with dependency records, its sync
    points): read back by ``explain``'s analysis for the replayed path."""
    tl, g = model.tl, model.graph
    threads = {}

    def tid_of(key):
        if key not in threads:
            if isinstance(key, tuple):      # a slot a what-if added to a pool
                name = ("engine worker +" if key[1] == rp.WORKER else
                        "custom op worker +") + str(key[2])
            else:
                name = tl.thread_name(int(key))
            threads[key] = (len(threads) + 1, name)
        return threads[key][0]

    out = []
    cats = tl.cats
    for i in range(len(g)):
        if result.start[i] < 0 or result.end[i] < 0:
            continue
        th = result.thread[i] if result.thread[i] is not None else int(g.thread[i])
        tid = tid_of(th)
        start, end = int(result.start[i]), int(result.end[i])
        push = int(result.push[i]) if result.push[i] >= 0 else start
        ready = int(result.ready[i]) if result.ready[i] >= 0 else start
        pusher = tid_of(int(g.pusher[i]))
        v = tl.dep_vars[tl.dep_var_start[i]:tl.dep_var_start[i + 1]].tolist()
        out.append({"name": tl.names[g.name[i]], "cat": cats[g.cat[i]], "ph": "X",
                    "pid": 0, "tid": tid, "ts": start / 1000, "dur": (end - start) / 1000,
                    "args": {"dep": [max(0, start - push), max(0, min(start - ready,
                                                                     start - push)),
                                     pusher, *v]}})
    rows = tl.sync_slice
    for s in range(len(rows)):
        if result.sync_end[s] < 0:
            continue
        b, e = int(result.sync_start[s]), int(result.sync_end[s])
        wait = "all" if tl.sync_all[s] else \
            tl.sync_vars[tl.sync_var_start[s]:tl.sync_var_start[s + 1]].tolist()
        out.append({"name": "WaitForAll" if tl.sync_all[s] else "WaitForVar",
                    "cat": "operator", "ph": "i", "s": "t", "pid": 0,
                    "tid": tid_of(int(tl.thread[rows[s]])), "ts": e / 1000,
                    "args": {"wait": wait, "waited": e - b}})
    meta = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": tid, "args": {"name": name}}
            for tid, name in threads.values()]
    return meta + out


def top_ops_of(model, result, top=5):
    """``[{"name", "path_ms"}]``: the replayed run's critical path, its top ops."""
    from xprof.mxcli.analysis.explain import analyze

    a = analyze(replayed_events(model, result))
    return [{"name": n, "path_ms": round(ns / _MS, 6)} for n, ns in a.top_ops(top)]


def slack_ms(model, base_wall, records, bodies, total_ns):
    """How much more time (ms, over all their calls) the matched records could take,
    in proportion to their durations, before the replayed wall grows (by more than 1%
    of the time added, and the 2 ns of rounding: an op on the critical path has none);
    None when they take no time. The replay is deterministic, so a bisection finds it."""
    if total_ns <= 0:
        return None

    def grows(f):
        extra = (f - 1) * total_ns
        wall = rp.replay(model, [rp.Change("", records=records, bodies=bodies,
                                           factor=f)]).wall
        return wall - base_wall > 0.01 * extra + 2

    if grows(1.0 + 1e-3):
        return 0.0
    lo, hi = 1.0 + 1e-3, 2.0
    cap = 1.0 + model_wall_factor(base_wall, total_ns)
    while not grows(hi):
        lo = hi
        if hi >= cap:
            return round((hi - 1) * total_ns / _MS, 6)
        hi = min(hi * 2, cap)
    for _ in range(12):
        mid = (lo + hi) / 2
        if grows(mid):
            hi = mid
        else:
            lo = mid
    return round((lo - 1) * total_ns / _MS, 6)


def model_wall_factor(base_wall, total_ns):
    """The factor at which the matched ops' extra time equals the wall (the search's
    bound: slack beyond the whole run is not told apart)."""
    return max(1.0, base_wall / total_ns)


def total_ns(model, records, bodies):
    """The matched records' time in the recorded run."""
    return int(model.dur[records | bodies].sum())


def predict(model, specs, base=None):
    """The ``what_if`` documents of parsed ``specs`` (each alone, then all together when
    there are several: "several in one run combine")."""
    base = base if base is not None else rp.replay(model)
    out = []
    groups = [[s] for s in specs] + ([list(specs)] if len(specs) > 1 else [])
    for group in groups:
        changes = [change_of(model, s) for s in group]
        res = rp.replay(model, changes)
        slack = None
        if len(group) == 1 and group[0].kind in ("op", "layer", "custom"):
            c = changes[0]
            slack = slack_ms(model, base.wall, c.records, c.bodies,
                             total_ns(model, c.records, c.bodies))
        out.append({"spec": " + ".join(s.text for s in group),
                    "wall_ms": round(res.wall / _MS, 6),
                    "delta_ms": round((res.wall - base.wall) / _MS, 6),
                    "step_ms": steps_ms(model, res), "slack_ms": slack,
                    "top_ops": top_ops_of(model, res)})
    return out


MAX_RECORDS = 50_000   # a larger trace gets no "what would help" unless asked


def what_would_help(model, analysis, base=None, top=HELP_TOP):
    """For the ``top`` ops (and custom-op types) with most run time on the critical
    path: the wall gained if each were 2x faster and if it took no time (the ceiling),
    ranked by the 2x gain; an op that gains nothing has its slack (``slack_ms``; None
    where it gains: its slack is not what limits it)."""
    base = base if base is not None else rp.replay(model)
    rows = []
    for name, ns in analysis.top_ops(top):
        if name.endswith("::" + PURE_PYTHON):   # a custom op's Python: the whole op
            op = name[:-len("::" + PURE_PYTHON)].removeprefix("_backward_")
            spec_text = f"custom:{op}"
        else:
            spec_text = name
        if any(r["name"] == spec_text for r in rows):
            continue
        gains, change = {}, None
        for label, factor in (("2x", "0.5x"), ("free", "0")):
            try:
                change = change_of(model, grammar.parse(f"{spec_text}={factor}"))
            except ValueError:
                break
            gains[label] = (base.wall - rp.replay(model, [change]).wall) / _MS
        if len(gains) < 2:
            continue
        slack = None
        if gains["2x"] <= 0.001:   # no gain: say how much slack it has
            slack = slack_ms(model, base.wall, change.records, change.bodies,
                             total_ns(model, change.records, change.bodies))
        rows.append({"name": spec_text, "path_ms": round(ns / _MS, 6),
                     "gain_2x_ms": round(gains["2x"], 6),
                     "gain_free_ms": round(gains["free"], 6), "slack_ms": slack})
    rows.sort(key=lambda r: (-r["gain_2x_ms"], r["name"]))
    return rows


def help_text(rows):
    """The text output's "what would help" lines."""
    if not rows:
        return []
    width = max(len(r["name"]) for r in rows)
    out = ["what would help (the run replayed with each op 2x faster, and free)"]
    for r in rows:
        if r["slack_ms"] is not None and r["gain_2x_ms"] <= 0.001:
            said = f"no gain: {r['slack_ms']:.3f} ms of slack"
        else:
            said = (f"2x faster {-r['gain_2x_ms']:+10.3f} ms   free "
                    f"{-r['gain_free_ms']:+10.3f} ms")
        out.append(f"  {r['name']:<{width}}  {said}")
    return out


def what_if_text(docs, wall_ns, steps_ms_recorded, replay=None):
    """The text output's "what if" lines, one block per prediction."""
    out = ["what if (the run replayed with the change)"]
    if replay:
        out.append(f"  (the run replayed as it was: {replay['replayed_ms']:.3f} ms, recorded "
                   f"{replay['recorded_ms']:.3f} ms, {replay['error_%']:+.1f}%)")
    for d in docs:
        line = f"  {d['spec']}: wall {d['wall_ms']:.3f} ms ({d['delta_ms']:+.3f} ms"
        line += f", {100.0 * d['delta_ms'] * 1e6 / wall_ns:+.1f}%)" if wall_ns else ")"
        if d["step_ms"] is not None and steps_ms_recorded:
            line += (f"; median step {d['step_ms']:.3f} ms "
                     f"({d['step_ms'] - steps_ms_recorded:+.3f} ms)")
        if d["slack_ms"] is not None:
            line += f"; slack {d['slack_ms']:.3f} ms"
        out.append(line)
        if d["top_ops"]:
            out.append("    its path's top ops: " + ", ".join(
                f"{o['name']} {o['path_ms']:.3f} ms" for o in d["top_ops"][:3]))
    return out


def answer(analysis, specs):
    """``(key, document, replay)`` for ``explain``: ``("what_if", predict(...))`` for
    parsed ``specs``, else ``("what_would_help", ...)``; ``replay``: ``{"recorded_ms",
    "replayed_ms", "error_%"}``, the unchanged replay against the recorded wall (what
    the predictions rest on). ``(None, reason, None)`` when the trace cannot be
    replayed (no dependency records, an inconsistent trace) or, unasked, is too large
    to replay at once (more than :data:`MAX_RECORDS` records)."""
    if analysis.serial or analysis.graph is None or not len(analysis.graph):
        return None, ("no dependency records in this trace (not recorded by the xprof "
                      "engine): a run can only be replayed from xprof's own traces"), None
    if not specs and len(analysis.graph) > MAX_RECORDS:
        return None, (f"{len(analysis.graph):,} ops: not replayed unasked "
                      f"(xprof explain --what-if 'OP=0.5x' predicts one change)"), None
    model = rp.model_of(analysis.tl, analysis.graph, analysis.layers)
    base = rp.replay(model)
    if base.stalled:
        return None, (f"the replay stalled: {base.stalled:,} ops never became ready (the "
                      f"trace's dependency records are not consistent)"), None
    wall = analysis.wall
    replay = {"recorded_ms": round(wall / _MS, 6), "replayed_ms": round(base.wall / _MS, 6),
              "error_%": round(100.0 * (base.wall - wall) / wall, 3) if wall else None}
    if specs:
        return "what_if", predict(model, specs, base), replay
    return "what_would_help", what_would_help(model, analysis, base), replay

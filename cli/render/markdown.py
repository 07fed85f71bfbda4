"""``--format markdown``: ``stats``, ``explain`` and ``diff`` as GitHub-flavoured Markdown.

Where reviewers look (a CI job's ``$GITHUB_STEP_SUMMARY``, a pull request's comment),
a Perfetto JSON says nothing: each document here puts its verdict first (the line a
reviewer reads), then its tables, ranked as the text output ranks them. Each renderer is
a pure function of the command's JSON document (``--format json``'s), so the Markdown
never disagrees with it.
"""
from __future__ import annotations

from xprof.traces import callstats

MAX_ROWS = 25


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:,.3f}"
    return str(v).replace("|", "\\|").replace("\n", " ")


def table(headers, rows, right=None):
    """A GFM table; ``right``: the columns aligned right (default: all but the first)."""
    right = set(range(1, len(headers))) if right is None else set(right)
    out = ["| " + " | ".join(_cell(h) for h in headers) + " |",
           "| " + " | ".join("---:" if i in right else ":---" for i in range(len(headers)))
           + " |"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def _signed(v):
    return "" if v is None else f"{v:+,.3f}"


# -- xprof stats ----------------------------------------------------------------------------
def stats(doc, path):
    """The statistics document (``xprof stats --format json``) of ``path``."""
    out = [f"## xprof stats: `{path}`", ""]
    time = doc.get("Time") or {}
    rows = [(dom, name, r) for dom, names in time.items() for name, r in names.items()
            if dom not in ("API", "MXNET_C_API")]
    rows.sort(key=lambda x: -(x[2].get("Self") or 0))
    if rows:
        dom, name, r = rows[0]
        out += [f"**Top operator by self time: `{name}`** ({dom}), {r['Self']:,.3f} ms self, "
                f"{r['%']:.1f}% of wall, {r['Count']:,} calls.", ""]
    for dom, names in time.items():
        out += [f"### Time: {dom}", "", table(
            ["Name", "Count", "Total (ms)", "Self (ms)", "%", "Avg (ms)", "Max (ms)"],
            [(n, r.get("Count"), r.get("Total"), r.get("Self"), r.get("%"), r.get("Avg"),
              r.get("Max")) for n, r in list(names.items())[:MAX_ROWS]]), ""]
    calls = doc.get(callstats.SECTION) or {}
    if calls:
        out += ["### Custom operator calls (per call, ms)", "", table(
            ["Op", "Calls", "Latency", "Backlog", "Producer", "Pool", "Python", "Blocked",
             "Tail", "Own", "Ahead"],
            [(op, r["Count"], r["Latency"]["Avg"], r.get("Backlog"), r.get("Producer"),
              r.get("Pool"), r.get("Python"), r.get("Blocked"), r.get("Tail"), r.get("Own"),
              r.get("Ahead")) for op, r in list(calls.items())[:MAX_ROWS]]), ""]
        out += [f"- **{op}**: {callstats.headline(r)}" for op, r in
                list(calls.items())[:MAX_ROWS]] + [""]
    for section in ("Memory", "Counter"):
        for dom, names in (doc.get(section) or {}).items():
            out += [f"### {section}: {dom}", "", table(
                ["Name", "Count", "Min", "Max", "Avg"],
                [(n, r.get("Count"), r.get("Min"), r.get("Max"), r.get("Avg"))
                 for n, r in list(names.items())[:MAX_ROWS]]), ""]
    return "\n".join(out).rstrip() + "\n"


# -- xprof explain --------------------------------------------------------------------------
def explain(doc, path):
    """The explain document (``xprof explain --format json``) of ``path``."""
    wall = doc["wall_ms"] or 0.0
    out = [f"## xprof explain: `{path}`", ""]
    top = doc.get("top_ops") or []
    verdict = f"**Wall {wall:,.3f} ms**"
    if top:
        verdict += (f": `{top[0]['name']}` holds {top[0]['path_ms']:,.3f} ms of the critical "
                    f"path ({100 * top[0]['path_ms'] / wall:.1f}% of wall)" if wall else "")
    out += [verdict + ".", ""]
    out += [f"- {f['text']}" for f in doc.get("findings") or []]
    comp = doc.get("composition") or {}
    out += ["", "### Composition of the critical path", "", table(
        ["Part", "ms", "% of wall"],
        [(k.removesuffix("_ms"), v, round(100 * v / wall, 1) if wall else None)
         for k, v in comp.items()]), ""]
    if top:
        out += ["### Top ops on the critical path", "", table(
            ["Op", "On the path (ms)", "Calls", "Waited for"],
            [(o["name"], o["path_ms"], o["calls"], o.get("waited_for") or "")
             for o in top[:MAX_ROWS]], right={1, 2}), ""]
    helps = doc.get("what_would_help") or []
    if helps:
        out += ["### What would help (the run replayed)", "", table(
            ["Op", "On the path (ms)", "Gain if 2x faster (ms)", "Gain if free (ms)",
             "Slack (ms)"],
            [(r["name"], r["path_ms"], r["gain_2x_ms"], r["gain_free_ms"], r.get("slack_ms"))
             for r in helps]), ""]
    ifs = doc.get("what_if") or []
    if ifs:
        out += ["### What if (the run replayed)", "", table(
            ["Change", "Wall (ms)", "Change (ms)", "Median step (ms)", "Slack (ms)"],
            [(w["spec"], w["wall_ms"], _signed(w["delta_ms"]), w.get("step_ms"),
              w.get("slack_ms")) for w in ifs]), ""]
    threads = doc.get("threads") or {}
    if threads:
        out += ["### Threads (ms)", "", table(
            ["Thread", "Busy", "Blocked", "Idle"],
            [(n, t["busy_ms"], t["blocked_ms"], t["idle_ms"]) for n, t in threads.items()]),
            ""]
    return "\n".join(out).rstrip() + "\n"


# -- xprof diff -----------------------------------------------------------------------------
def diff(doc, reasons=(), top=MAX_ROWS):
    """The diff document (``xprof diff --format json``); ``reasons``: the gate's (a
    regression is the verdict)."""
    wall = doc["wall"]
    ratio = f" (x{wall['ratio']:.3f})" if wall.get("ratio") else ""
    if reasons:
        verdict = f"**Regression**: {reasons[0]}" + (
            f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else "")
    else:
        sig = [r for r in doc["rows"] if r["significant"]]
        verdict = (f"**{len(sig)} significant change{'s' if len(sig) != 1 else ''}**"
                   if sig else "**No significant change**")
    out = [f"## xprof diff: `{doc['a']}` → `{doc['b']}`", "", verdict + ".", "",
           f"Wall {wall['a_ms']:,.3f} → {wall['b_ms']:,.3f} ms{ratio}: "
           f"{doc['critical_path']['summary']}.", ""]
    steps = wall.get("steps")
    if steps:
        out += [f"Median step {steps['a']['median_ms']:,.3f} → {steps['b']['median_ms']:,.3f} "
                f"ms (x{steps['ratio']:.3f}{', significant' if steps['significant'] else ''}).",
                ""]
    if doc["rows"]:
        out += ["### Ops (significant first, by impact on wall)", "", table(
            ["Op", "Layer", "Median A (ms)", "Median B (ms)", "B/A", "Significant",
             "Impact (ms)"],
            [(r["name"], r.get("layer") or "", r["a"]["median_ms"], r["b"]["median_ms"],
              r["ratio"], "yes" if r["significant"] else "", _signed(r["impact_ms"]))
             for r in doc["rows"][:top]], right={2, 3, 4, 6}), ""]
    customs = [c for c in doc.get("custom_ops") or [] if c.get("change_ms")]
    if customs:
        keys = ("latency_ms", "Backlog", "Producer", "Python", "Blocked", "Tail", "Own")
        out += ["### Custom operators (change per call, ms)", "", table(
            ["Op", "Latency", "Backlog", "Producer", "Python", "Blocked", "Tail", "Own"],
            [(c["name"], *(_signed(c["change_ms"].get(k)) for k in keys))
             for c in customs]), ""]
    moved = [(e["op"], ln) for e in doc.get("python_lines") or [] for ln in e["lines"]
             if ln["significant"]]
    if moved:
        out += ["### Custom operators' Python lines that moved", "", table(
            ["Op", "Line", "Share A (%)", "Share B (%)", "Change (points)",
             "Per call (ms)"],
            [(op, f"{ln['file']}:{ln['line']} {ln['function']}",
              (ln["a"] or {}).get("%"), (ln["b"] or {}).get("%"),
              _signed(ln["change_points"]), _signed(ln["change_per_call_ms"]))
             for op, ln in moved[:top]], right={2, 3, 4, 5}), ""]
    return "\n".join(out).rstrip() + "\n"

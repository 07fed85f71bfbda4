"""``xprof diff --annotate github``: the regressions as GitHub Actions workflow commands,
at the source line where a reviewer sees them.

A custom operator's Python lines are sampled with their file and line (docs/lines.md),
so a line whose time per call grew significantly is annotated there; a custom op whose
Python (``<op>::pure_python``) got significantly slower is annotated at its most
sampled line (its source as the samples know it). A regression the ``--fail-on`` gate
fails on is an ``::error``, any other slowdown a ``::warning``. Ops with no known source
(engine ops) are in the summary, not annotated.
"""
from __future__ import annotations

import os

FORMATS = ("github",)


def _escape(text):
    """A workflow command's message: ``%``, CR and LF escaped (GitHub's rules)."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text):
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def _where(path):
    """A file as the workflow sees it: relative to the working folder when inside it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def github(doc, failing=()):
    """The ``::error``/``::warning`` lines of a diff document; ``failing``: the names
    (ops and custom-op types) the gate failed on."""
    out = []
    failing = set(failing)
    tops = {}
    for entry in doc.get("python_lines") or []:
        op = entry["op"]
        for ln in entry["lines"]:
            side = ln["b"] or ln["a"]
            if side is None or not side.get("file"):
                continue
            tops.setdefault(op, (side["file"], ln["line"]))
            grew = ln["change_per_call_ms"] is not None and ln["change_per_call_ms"] > 0
            if not (ln["significant"] and grew):
                continue
            level = "error" if op in failing else "warning"
            msg = (f"{op}: {ln['function']} line {ln['line']} takes "
                   f"{ln['change_per_call_ms']:+.3f} ms more per call "
                   f"({ln['change_points']:+.1f} points of the op's Python)")
            out.append(f"::{level} file={_prop(_where(side['file']))},line={ln['line']},"
                       f"title={_prop('xprof diff: ' + op)}::{_escape(msg)}")
    for row in doc.get("rows") or []:
        name = row["name"]
        if not (row["significant"] and row["ratio"] > 1 and name.endswith("::pure_python")):
            continue
        op = name.split("::")[0]
        if op not in tops:
            continue
        file, line = tops[op]
        level = "error" if op in failing or name in failing else "warning"
        msg = (f"{name} median {row['a']['median_ms']:.3f} -> {row['b']['median_ms']:.3f} ms "
               f"(x{row['ratio']:.2f}, significant)")
        out.append(f"::{level} file={_prop(_where(file))},line={line},"
                   f"title={_prop('xprof diff: ' + name)}::{_escape(msg)}")
    return out

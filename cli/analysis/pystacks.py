"""The sampled Python stacks of custom operators, for the tools people read stacks in:
flamegraph.pl's collapsed format, speedscope, a differential collapsed file.

The runtime writes each sampled call as a root slice (``cat`` ``python_line``, named
``forward``/``backward``/``create_operator``, ``args.op`` its op type, ``args.lines`` its
exact line table) with its stack as nested frame slices (``<function>:<line>``,
``args.file``), from the user's ``forward`` down to the leaf (runtime/profiler/linefold.py,
docs/lines.md). A stack here is a root-to-leaf path, rooted at the custom op and its
call: ``op;forward;Split.forward:37;python_loop:34``; its weight is the sampled time of
its leaf frame (the frame's slice minus the slices nested in it). Frame slices are capped
per dump (``otherData.python_lines.detail_dropped``); a call whose frames were dropped
contributes its line table instead (``op;forward;python_loop:34``: leaves only), so the
weights still add up to the sampled time.
"""
from __future__ import annotations


def stacks_of(samples, only=None):
    """``{op: {(op, call kind, frame, ..., leaf): ns}}`` of the Python-line samples
    (``Trace.python_lines``, ``traces/linesamples.py``: its ``frames``; ``only``: one op
    type, its backward and its creation too)."""
    out = {}
    if samples is None:
        return out
    for items in samples.frames.values():
        items = sorted(items, key=lambda e: (e[0], -e[1]))
        open_ = []   # [(end, frame name, child ns)] from the root down
        root = None
        for start, end, args, name, file in items:
            while open_ and open_[-1][0] <= start:
                _close(open_, root, out, only)
            if args is not None:   # a root: a call of an op
                while open_:
                    _close(open_, root, out, only)
                root = (args["op"], name, args)
                open_.append([end, None, 0, start, False])
                continue
            if not open_:
                continue
            open_[-1][4] = True                  # the parent has frames under it
            open_.append([end, _frame(name, file), 0, start, False])
        while open_:
            _close(open_, root, out, only)
    return out


def _close(open_, root, out, only):
    end, frame, child, start, has_frames = open_.pop()
    dur = end - start
    if open_:
        open_[-1][2] += dur
    if root is None:
        return
    op, kind, args = root
    if only and not _mine(op, only):
        return
    stacks = out.setdefault(op, {})
    if frame is None:   # the root: its frames were dropped, its line table stands in
        if not has_frames:
            for function, _, line, w, _, blocked in _rows(args["lines"]):
                leaf = f"(blocked in {blocked})" if blocked else f"{function}:{line}"
                key = (op, kind, leaf)
                stacks[key] = stacks.get(key, 0) + int(w)
        return
    self_ns = dur - child
    if self_ns <= 0:
        return
    path = [op, kind] + [f for _, f, _, _, _ in open_[1:]] + [frame]
    key = tuple(path)
    stacks[key] = stacks.get(key, 0) + self_ns


def _frame(name, file):
    return name if not file else name


def _rows(lines):
    for row in lines:
        if type(row) is list and len(row) == 6 and type(row[3]) in (int, float):
            yield row


def _mine(op, only):
    return op in (only, "_backward_" + only, only + " (create_operator)")


# -- the formats ------------------------------------------------------------------------------
def collapsed(stacks):
    """flamegraph.pl's collapsed lines (``frame;frame;... count``, count in whole
    microseconds, heaviest first)."""
    rows = [(";".join(_clean(f) for f in key), w // 1000)
            for per_op in stacks.values() for key, w in per_op.items()]
    rows = [(k, w) for k, w in rows if w > 0]
    rows.sort(key=lambda r: (-r[1], r[0]))
    return "".join(f"{k} {w}\n" for k, w in rows)


def _clean(frame):
    """A frame as the collapsed format allows it (no ``;``, no newline)."""
    return str(frame).replace(";", ":").replace("\n", " ")


def collapsed_diff(a, b):
    """A differential collapsed file (``frame;... A B``: flamegraph's difffolded form,
    both counts in microseconds) of two runs' stacks."""
    ka = {key: w for per_op in a.values() for key, w in per_op.items()}
    kb = {key: w for per_op in b.values() for key, w in per_op.items()}
    rows = []
    for key in set(ka) | set(kb):
        wa, wb = ka.get(key, 0) // 1000, kb.get(key, 0) // 1000
        if wa or wb:
            rows.append((";".join(_clean(f) for f in key), wa, wb))
    rows.sort(key=lambda r: (-abs(r[2] - r[1]), r[0]))
    return "".join(f"{k} {wa} {wb}\n" for k, wa, wb in rows)


def speedscope(stacks, name="xprof"):
    """speedscope's file format (https://www.speedscope.app/file-format-schema.json): one
    sampled profile per op type, weights in microseconds."""
    frames, index = [], {}

    def frame_id(f):
        if f not in index:
            index[f] = len(frames)
            entry = {"name": f}
            if ":" in f and f.rsplit(":", 1)[1].isdigit():
                entry["line"] = int(f.rsplit(":", 1)[1])
            frames.append(entry)
        return index[f]

    profiles = []
    for op in sorted(stacks):
        samples, weights = [], []
        for key, w in sorted(stacks[op].items(), key=lambda kv: -kv[1]):
            us = w / 1000.0
            if us <= 0:
                continue
            samples.append([frame_id(f) for f in key])
            weights.append(round(us, 3))
        if samples:
            total = round(sum(weights), 3)
            profiles.append({"type": "sampled", "name": op, "unit": "microseconds",
                             "startValue": 0, "endValue": total, "samples": samples,
                             "weights": weights})
    return {"$schema": "https://www.speedscope.app/file-format-schema.json",
            "shared": {"frames": frames}, "profiles": profiles, "name": name,
            "activeProfileIndex": 0, "exporter": "xprof"}

"""Seeded mutations of real traces: the inputs of the reader fuzz test (tests/cli/test_fuzz_files.py).

Byte mutations (flip, insert non-UTF-8 bytes, delete, duplicate, truncate, gzip and cut
or corrupt the gzip body) and structure mutations (an event's field set to a value the
readers must survive: 1e308, 2**64 + 1, 1.5 or [1] as an id, a lone \\ud800 escape, deep
nesting, an async end moved to another pid, ...). A plain module, so a failing case can
be rebuilt from its seed: ``mutate(sources, random.Random(seed))``.
"""
from __future__ import annotations

import gzip
import json

NASTY = [1e308, -1e308, -1, -0.5, 0, 1.5, 2 ** 53 + 1, 2 ** 63, 2 ** 64 + 1, 2 ** 70, -(2 ** 70),
         10 ** 400, "", "x", "\u00e9", [1], [], {}, {"a": 1}, None, True, False,
         "B", "E", "X", "b", "e", "s", "f", "t", "M", "C", "i"]
FIELDS = ["ph", "ts", "dur", "pid", "tid", "id", "id2", "name", "cat", "args", "bp", "s"]


def _deep(depth):
    """JSON text of a value nested ``depth`` levels (arrays and objects alternating)."""
    return '{"a":[' * (depth // 2) + "1" + "]}" * (depth // 2)


def _structure(doc, rng):
    """One structural change to a decoded trace; returns JSON text (may hold raw escapes)."""
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    if not events:
        return json.dumps(doc)
    k = rng.randrange(len(events))
    ev = events[k]
    choice = rng.randrange(10)
    if not isinstance(ev, dict) or choice == 0:
        events[k] = rng.choice(NASTY)
    elif choice <= 4:
        ev[rng.choice(FIELDS)] = rng.choice(NASTY)
    elif choice == 5:
        ev.pop(rng.choice(FIELDS), None)
    elif choice == 6:
        ev["args"] = {"deep": "DEEP_VALUE"}   # replaced by deeply nested JSON below
        deep = _deep(rng.choice([300, 600, 1000, 1100, 3000]))
    elif choice == 7:
        ev["name"] = "LONE_SURROGATE"   # replaced by a raw \ud800 escape below
    elif choice == 8:  # an async end on another pid than its begin, or odd ids
        ev.update(ph=rng.choice("befst"), id=rng.choice([1, 1.5, [1], "1", 2 ** 64 + 1]),
                  cat=ev.get("cat") or "c", name=ev.get("name") or "n",
                  pid=rng.choice([0, 1, 2 ** 40, "p"]))
    else:
        events.insert(rng.randrange(len(events) + 1), dict(ev, ts=rng.choice(NASTY[:12])))
    text = json.dumps(doc)
    if choice == 6:
        text = text.replace('"DEEP_VALUE"', deep)
    return text.replace('"LONE_SURROGATE"', '"\\ud800"')


def mutate_bytes(data, rng):
    """One byte-level change of ``data`` (any file: traces, oneDNN logs)."""
    n = len(data)
    choice = rng.randrange(7)
    at = rng.randrange(max(n, 1))
    if choice == 0:
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    if choice == 1:
        return data[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"{", b"]"]) + data[at:]
    if choice == 2:
        return data[:at] + data[at + rng.randrange(1, 200):]
    if choice == 3:
        return data[:at]
    if choice == 4:
        end = min(n, at + rng.randrange(1, 400))
        return data[:end] + data[at:]
    if choice == 5:
        packed = gzip.compress(data, mtime=0)
        cut = rng.randrange(10, max(11, len(packed)))
        return packed[:cut]
    packed = bytearray(gzip.compress(data, mtime=0))
    i = rng.randrange(10, max(11, len(packed) - 8))
    packed[i] ^= 1 << rng.randrange(8)
    return bytes(packed)


def mutate(sources, rng):
    """``(kind, bytes)``: one mutation of one of ``sources`` (a list of ``(bytes, doc)``)."""
    data, doc = rng.choice(sources)
    if rng.random() < 0.5:
        return "bytes", mutate_bytes(data, rng)
    return "structure", _structure(json.loads(json.dumps(doc)), rng).encode("utf-8", "surrogatepass")

"""The straggler of each step: the last rank to reach each collective, and by how much.

HTA guesses stragglers from late kernel starts. xprof's distributed kvstores know: each
collective begins with a small allgather of every rank's arrival time (the moment its
data was ready), kept in the collective's args (``Arrivals ms``, ``Last to arrive``,
``Late by ms``: how long the job waited for that last rank alone; see
``runtime/dist/events.py``). Every rank records the same arrivals, so one rank's trace
or the merged trace of all gives the same answer; a collective is counted once, by its
sequence number (``Seq``, equal on every rank).

Steps: a training step pushes each key once, so a step ends where a key comes round
again; the collectives before the first repeat are step 1, and so on. Broadcasts (a
store's ``init``, a Trainer's first parameters) are no step's. A step's collectives
overlap in time (every gradient of one backward pass), so the wait a straggler caused
in a step is its largest lateness there, not their sum.
"""
from __future__ import annotations

__all__ = ["arrivals", "steps"]


def arrivals(collectives):
    """``{seq: (name, key, last, late_ms)}`` of the collectives that recorded arrivals
    (``collectives``: ``Trace.collectives``, ``(ordinal, pid, name, ts, dur, args)`` in
    file order; a collective counted once, by its first record)."""
    found = {}
    for _, _, name, _, _, args in collectives:
        if "Last to arrive" not in args or args.get("Collective name") == "broadcast":
            continue
        seq = args.get("Seq")
        if seq in found or not isinstance(seq, int):
            continue
        late = args.get("Late by ms")
        found[seq] = (name, str(args.get("Key")), args["Last to arrive"],
                      float(late) if isinstance(late, (int, float)) else 0.0)
    return found


def steps(collectives):
    """``[{"step", "collectives", "last_rank", "last_at", "waited_ms", "worst"}]``: per
    step, the rank the job waited for longest (``waited_ms``, its largest lateness),
    at how many of the step's collectives it came last, and that longest wait."""
    out = []
    current, keys = [], set()
    for seq in sorted(collectives):
        name, key, last, late = collectives[seq]
        if key in keys:
            out.append(current)
            current, keys = [], set()
        keys.add(key)
        current.append((seq, name, key, last, late))
    if current:
        out.append(current)
    doc = []
    for i, step in enumerate(out, 1):
        waited = {}
        for _, _, _, last, late in step:
            waited[last] = max(waited.get(last, 0.0), late)
        rank = max(waited, key=lambda r: (waited[r], -r))
        worst = max(step, key=lambda c: c[4])
        doc.append({"step": i, "collectives": len(step), "last_rank": rank,
                    "last_at": sum(1 for c in step if c[3] == rank),
                    "waited_ms": round(waited[rank], 3),
                    "worst": {"seq": worst[0], "name": worst[1], "key": worst[2],
                              "last_rank": worst[3], "late_ms": round(worst[4], 3)}})
    return doc

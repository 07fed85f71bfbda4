"""Where does a custom operator's time go? Python code, its sub-operators, or waiting?

MXNet's custom-operator profiling was designed because users "can never know, at a
specific point in a custom operator event, whether we are executing pure python code,
the sub operators, or we are simply waiting for dependencies". This script runs three
custom operators for a few steps and prints xprof's answer, one line per op type:

* ``Busy`` spins in a Python loop (its time should be Python);
* ``Waiter`` launches two ``dot`` sub-operators and blocks on ``wait_to_read`` (its time
  should be Blocked, with the dots as Sub-operators);
* ``Chain`` launches a few small sub-operators and returns without waiting (its outputs
  are ready only when they finish: Tail).

Each call's latency (pushed -> outputs ready) is split exactly into Queued + Python +
Blocked + Tail; the script also measures Python and Blocked itself with
``time.perf_counter`` inside ``forward`` and prints both, so you can see they agree.
The same section is in ``xprof stats <trace>`` (``Custom Operator Calls``).

    python sample_scripts/custom_op_breakdown.py [--steps 20] [--size 600]
        [--output custom_op_breakdown.json]
"""
import argparse
import json
import time
from collections import defaultdict

import xprof.runtime as mx

measured = defaultdict(lambda: {"python": 0.0, "blocked": 0.0, "calls": 0})


class Busy(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        end = t0 + 0.002
        while time.perf_counter() < end:      # 2 ms of pure Python
            pass
        self.assign(out_data[0], req[0], in_data[0] + 0)
        m = measured["Busy"]
        m["python"] += time.perf_counter() - t0
        m["calls"] += 1


class Waiter(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        x = in_data[0]
        y = mx.nd.dot(mx.nd.dot(x, x), x)     # two sub-operators on the engine
        tw = time.perf_counter()
        y.wait_to_read()                      # blocks until both dots are done
        blocked = time.perf_counter() - tw
        self.assign(out_data[0], req[0], y)
        m = measured["Waiter"]
        m["blocked"] += blocked
        m["python"] += time.perf_counter() - t0 - blocked
        m["calls"] += 1


class Chain(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        y = in_data[0]
        for _ in range(4):
            y = mx.nd.tanh(y * 0.5)           # sub-operators, not waited for here
        self.assign(out_data[0], req[0], y)
        m = measured["Chain"]
        m["python"] += time.perf_counter() - t0
        m["calls"] += 1


def _prop(op_cls):
    """A prop for ``op_cls``: one input ``data``, one output of its shape (the defaults)."""
    class Prop(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def create_operator(self, ctx, shapes, dtypes):
            return op_cls()
    return Prop


for _cls in (Busy, Waiter, Chain):
    mx.operator.register(_cls.__name__)(_prop(_cls))


def verdict(row):
    """The part that takes the biggest share of the latency, in words."""
    lat = row["Latency"]["Avg"]
    if lat is None:
        return "latency unknown (no call spans in this profile)"
    parts = {"running its Python code": row["Python"], "blocked at a sync point": row["Blocked"],
             "queued before forward started": row["Queued"],
             "waiting for its sub-operators after forward returned": row["Tail"]}
    what, ms = max(parts.items(), key=lambda kv: kv[1])
    return f"{100.0 * ms / lat:.0f}% of its latency is {what}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="calls per op (default 20)")
    parser.add_argument("--size", type=int, default=600, help="matrix size for Waiter's dots")
    parser.add_argument("--output", default="custom_op_breakdown.json",
                        help="trace file (default custom_op_breakdown.json)")
    args = parser.parse_args(argv)

    x = mx.nd.random.uniform(shape=(args.size, args.size)) / args.size
    v = mx.nd.ones((1000,))
    mx.nd.waitall()
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    mx.profiler.set_state("run")
    for _ in range(args.steps):
        mx.nd.Custom(v, op_type="Busy")
        mx.nd.Custom(x, op_type="Waiter")
        mx.nd.Custom(v, op_type="Chain")
        mx.nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    section = json.loads(mx.profiler.dumps(format="json")).get("Custom Operator Calls", {})

    print(f"trace: {args.output} (same numbers: xprof stats {args.output})\n")
    print(f"{'op':8} {'calls':>5} {'latency':>9} {'queued':>8} {'python':>8} {'blocked':>8} "
          f"{'tail':>8} {'sub-ops':>8}   perf_counter in forward: python / blocked (ms)")
    for name, row in section.items():
        m = measured[name]
        n = max(m["calls"], 1)

        def ms(v):
            return "unknown" if v is None else f"{v:.3f}"
        print(f"{name:8} {row['Count']:5d} {ms(row['Latency']['Avg']):>9} {ms(row['Queued']):>8} "
              f"{ms(row['Python']):>8} {ms(row['Blocked']):>8} {ms(row['Tail']):>8} "
              f"{ms(row['Sub-operators']):>8}   {1000 * m['python'] / n:.3f} / "
              f"{1000 * m['blocked'] / n:.3f}")
    print()
    for name, row in section.items():
        print(f"{name}: {verdict(row)}")


if __name__ == "__main__":
    main()

"""Where does a custom operator's time go? Python code, its sub-operators, or waiting?

MXNet's custom-operator profiling was designed because users "can never know, at a
specific point in a custom operator event, whether we are executing pure python code,
the sub operators, or we are simply waiting for dependencies". This script runs four
custom operators for a few steps and prints xprof's answer. Each op is built so that one
part of its latency clearly dominates (and each call runs alone, ``waitall`` between
calls, so no op's wait is another op's work), so on every run it says:

* ``Busy`` launches one tiny sub-operator, then spins 20 ms in a Python loop:
  "Busy: NN% of its latency runs its Python code";
* ``Waiter`` launches two ``dot`` sub-operators (the second writes its output) and
  blocks on ``wait_to_read``:
  "Waiter: NN% of its latency waits at sync points in its Python code (...)";
* ``Chain`` launches three chained ``dot`` sub-operators and returns without waiting
  (its outputs are ready only when they finish):
  "Chain: NN% of its latency waits for its sub-operators after its Python code returned";
* ``Fed`` does almost nothing, but its input is the result of three ``dot`` ops pushed
  just before it: "Fed: NN% of its latency waits for its inputs to be written (by dot)"
  (the writer is read from the trace's dependency records).

Why built this way: a light op pushed from a custom-op thread can wait a few ms for an
engine worker on a loaded machine, so what each op is meant to show is many times
larger than such a wait, and no op's own sub-operators run after its Python work
except Chain's (that wait would be Tail).

Each call's latency (pushed -> outputs ready) is split exactly into Queued (= Inputs +
Pool) + Python + Blocked + Tail; the script also measures Python and Blocked itself
with ``time.perf_counter`` inside ``forward`` and prints both, so you can see they
agree. The same section is in ``xprof stats <trace>`` (``Custom Operator Calls``).

    python sample_scripts/custom_op_breakdown.py [--steps 20] [--size 600]
        [--output custom_op_breakdown.json]
"""
import argparse
import json
import time
from collections import defaultdict

import xprof.runtime as mx
from xprof.mxcli.analysis.callinputs import input_writers_of_file
from xprof.traces.callstats import headline

measured = defaultdict(lambda: {"python": 0.0, "blocked": 0.0, "calls": 0})
BUSY_S = 0.020     # Busy's Python work: well above any wait for a thread on a busy machine
CHAIN = 3          # dots Chain leaves running, and Fed's input is made of


class Busy(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        self.assign(out_data[0], req[0], in_data[0])   # one tiny sub-operator (a copy) ...
        end = t0 + BUSY_S
        while time.perf_counter() < end:      # ... done long before 20 ms of pure Python
            pass
        m = measured["Busy"]
        m["python"] += time.perf_counter() - t0
        m["calls"] += 1


class Waiter(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        x = in_data[0]
        mx.nd.dot(mx.nd.dot(x, x), x, out=out_data[0])   # two sub-operators on the engine
        tw = time.perf_counter()
        out_data[0].wait_to_read()            # blocks until both dots are done
        blocked = time.perf_counter() - tw
        m = measured["Waiter"]
        m["blocked"] += blocked
        m["python"] += time.perf_counter() - t0 - blocked
        m["calls"] += 1


class Chain(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        x = y = in_data[0]
        for _ in range(CHAIN - 1):
            y = mx.nd.dot(y, x)               # sub-operators, not waited for here
        mx.nd.dot(y, x, out=out_data[0])
        m = measured["Chain"]
        m["python"] += time.perf_counter() - t0
        m["calls"] += 1


class Fed(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        self.assign(out_data[0], req[0], in_data[0] * 2)   # its input took the time
        m = measured["Fed"]
        m["python"] += time.perf_counter() - t0
        m["calls"] += 1


def chained_dots(x):
    """``CHAIN`` dots in a row, pushed at once by the caller: Fed's input."""
    y = x
    for _ in range(CHAIN):
        y = mx.nd.dot(y, x)
    return y


def _prop(op_cls):
    """A prop for ``op_cls``: one input ``data``, one output of its shape (the defaults)."""
    class Prop(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def create_operator(self, ctx, shapes, dtypes):
            return op_cls()
    return Prop


for _cls in (Busy, Waiter, Chain, Fed):
    mx.operator.register(_cls.__name__)(_prop(_cls))


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
    for _ in range(args.steps):     # each call alone: no op's wait is another's work
        for data, op in ((v, "Busy"), (x, "Waiter"), (x, "Chain")):
            mx.nd.Custom(data, op_type=op)
            mx.nd.waitall()
        mx.nd.Custom(chained_dots(x), op_type="Fed")   # its input: dots pushed just before
        mx.nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    section = json.loads(mx.profiler.dumps(format="json")).get("Custom Operator Calls", {})
    writers = input_writers_of_file(args.output)

    print(f"trace: {args.output} (same numbers: xprof stats {args.output})\n")
    print(f"{'op':8} {'calls':>5} {'latency':>9} {'inputs':>8} {'pool':>8} {'python':>8} "
          f"{'blocked':>8} {'tail':>8} {'sub-ops':>8}   perf_counter in forward: python / "
          f"blocked (ms per call)")
    for name, row in section.items():
        m = measured[name]
        n = max(m["calls"], 1)

        def ms(v):
            return "unknown" if v is None else f"{v:.3f}"
        print(f"{name:8} {row['Count']:5d} {ms(row['Latency']['Avg']):>9} {ms(row['Inputs']):>8} "
              f"{ms(row['Pool']):>8} {ms(row['Python']):>8} {ms(row['Blocked']):>8} "
              f"{ms(row['Tail']):>8} {ms(row['Sub-operators']):>8}   {1000 * m['python'] / n:.3f} / "
              f"{1000 * m['blocked'] / n:.3f}")
    print()
    for name, row in section.items():
        print(f"{name}: {headline(row, writers.get(name))}")


if __name__ == "__main__":
    main()

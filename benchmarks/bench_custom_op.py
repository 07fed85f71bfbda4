"""Custom operator cost: ``mx.nd.Custom(x, op_type="MyAddOne")`` on a 100x100 array,
N calls then ``waitall``, profiling off and on (all modes), both engines; plus the cost
attribution adds to an ordinary op (the per-push read of the thread's attribution tag).

Targets (issue #4): <= 75 us per call, profiling adds <= 10 us per call, attribution adds
<= 0.2 us to an ordinary op. Issue #13: the span recorded per call (push -> outputs ready,
with its Queued/Python/Blocked/Tail split) adds <= 3 us per call: profiled rounds with the
span on and off (``observer.call_spans``) are interleaved in the same run.
Run: python benchmarks/bench_custom_op.py [N] [ROUNDS]
"""
import os
import statistics
import sys
import tempfile
import time
import timeit

from _util import per_op_us, register_add_one

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7


def main():
    import xprof.runtime as mx
    from xprof.runtime import engine
    from xprof.runtime.profiler.observer import observer

    register_add_one(mx)

    path = os.path.join(tempfile.mkdtemp(), "custom.json")
    interval = os.environ.get("XPROF_PROFILER_SAMPLE_INTERVAL_MS")
    sampler = "off" if interval is not None and float(interval) <= 0 else "on"
    print(f"mx.nd.Custom(x, op_type='MyAddOne') on 100x100, {N} calls then waitall "
          f"(median of {ROUNDS} interleaved rounds; best round in brackets); profiling "
          f"on = all modes, Python-line sampler {sampler} (issue #24's budget: off, "
          "XPROF_PROFILER_SAMPLE_INTERVAL_MS=0)")
    for kind in ("ThreadedEngine", "NaiveEngine"):
        engine.set_engine_type(kind)
        x = mx.nd.ones((100, 100))

        def calls():
            for _ in range(N):
                y = mx.nd.Custom(x, op_type="MyAddOne")
            mx.nd.waitall()
            return y

        calls()
        t = {"off": [], "on": [], "no span": []}
        for _ in range(ROUNDS):   # interleaved; each profiled round is dumped untimed
            t0 = time.perf_counter()
            calls()
            t["off"].append(time.perf_counter() - t0)
            for mode in ("on", "no span"):
                observer.call_spans = mode == "on"
                mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
                mx.profiler.set_state("run")
                t0 = time.perf_counter()
                calls()
                t[mode].append(time.perf_counter() - t0)
                mx.profiler.set_state("stop")
                mx.profiler.dump()
        observer.call_spans = True
        off, on = per_op_us(t, "off", N), per_op_us(t, "on", N)
        best_off, best_on = min(t["off"]) / N * 1e6, min(t["on"]) / N * 1e6
        print(f"  {kind:15s} off {off:7.1f} [{best_off:5.1f}] us/call   "
              f"on {on:7.1f} [{best_on:5.1f}] us/call   "
              f"(profiling adds {on - off:+.1f} [{best_on - best_off:+.1f}] us/call)")
        span = statistics.median(a - b for a, b in zip(t["on"], t["no span"])) / N * 1e6
        best_span = (min(t["on"]) - min(t["no span"])) / N * 1e6
        print(f"  {'':15s} the call span adds {span:+.2f} us/call (median of per-round "
              f"differences; best rounds {best_span:+.2f})")

    from xprof.runtime.engine.base import thread_state
    n = 1_000_000
    read = min(timeit.repeat("st.tag is not None and mode", globals={"st": thread_state,
                                                                    "mode": 2},
                             number=n, repeat=5)) / n * 1e6
    empty = min(timeit.repeat("None is not None and mode", globals={"mode": 2},
                              number=n, repeat=5)) / n * 1e6
    print(f"attribution check per ordinary op: {max(read - empty, 0) * 1000:.0f} ns "
          f"(thread-local tag read, the only per-op cost of attribution)")


if __name__ == "__main__":
    main()

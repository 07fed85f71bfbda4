"""Line sampler cost (issue #26): a custom op call whose ``forward`` runs ~2 ms of Python,
profiled with sampling on (1 ms) and off, and with profiling off, side by side.

Each call is waited for (``wait_to_read``), so a call's time is its latency. The three
modes run in interleaved rounds; printed: ms per call (median of rounds), the ratio
sampling on / off (both profiled: the target is <= 1.05), profiling on / off, the
achieved sample interval and samples per call, and the trace's growth from the samples
(bytes and ``python_line`` events per call). Both engines. With the sampler's C loop
built, the Python loop (``XPROF_PROFILER_SAMPLE_NATIVE=0``) runs as a fourth mode.
Run: python benchmarks/bench_lines.py [CALLS] [ROUNDS] [INTERVAL_MS] [SWITCH_FRACTION]
(SWITCH_FRACTION: the switch interval while sampling is INTERVAL_MS / this; default 4,
the sampler's own; 0.2 keeps Python's default 5 ms for a 1 ms interval.)
"""
import json
import os
import random
import statistics
import sys
import tempfile
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 21   # (7: +-4% run to run)
INTERVAL = sys.argv[3] if len(sys.argv) > 3 else "1"
FRACTION = float(sys.argv[4]) if len(sys.argv) > 4 else None
VAR = "XPROF_PROFILER_SAMPLE_INTERVAL_MS"
LOOP = "XPROF_PROFILER_SAMPLE_NATIVE"


def python_work(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def calibrate(seconds):
    n = 20000
    best = min(_timed(python_work, n) for _ in range(5))
    return max(1, int(n * seconds / best))


def _timed(fn, arg):
    t = time.perf_counter()
    fn(arg)
    return time.perf_counter() - t


def main():
    import xprof.runtime as mx
    from xprof.runtime import engine
    from xprof.runtime.profiler import sampler as sampler_mod
    from xprof.runtime.profiler.sampler import sampler

    if FRACTION is not None:
        sampler_mod._SWITCH_FRACTION = FRACTION
    work = calibrate(0.002)

    class TwoMs(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            python_work(work)
            self.assign(out_data[0], req[0], in_data[0])

    @mx.operator.register("TwoMs")
    class TwoMsProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return TwoMs()

    folder = tempfile.mkdtemp()
    print(f"mx.nd.Custom(op_type='TwoMs'): forward runs {_timed(python_work, work) * 1e3:.2f} "
          f"ms of Python; {N} calls, each waited; median of {ROUNDS} interleaved rounds; "
          f"sampling every {INTERVAL} ms, switch interval {INTERVAL} ms / "
          f"{sampler_mod._SWITCH_FRACTION:g}")
    native = sampler_mod._native is not None
    print(f"the sampler's loop: {'C (_linesampler)' if native else 'Python (C loop not built)'}"
          + ("; 'python loop': the Python loop, for comparison" if native else ""))
    saved = {name: os.environ.get(name) for name in (VAR, LOOP)}
    for kind in ("ThreadedEngine", "NaiveEngine"):
        engine.set_engine_type(kind)
        x = mx.nd.ones((10, 10))

        def calls():
            for _ in range(N):
                mx.nd.Custom(x, op_type="TwoMs").wait_to_read()

        calls()
        modes = ["profiled", "sampled"] + (["python loop"] if native else [])
        t = {m: [] for m in ["off"] + modes}
        rate, per_call, size, events = [], [], {}, {}
        order = random.Random(1)
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            calls()
            t["off"].append(time.perf_counter() - t0)
            for mode in order.sample(modes, len(modes)):   # (no mode always first)
                os.environ[VAR] = "0" if mode == "profiled" else INTERVAL
                os.environ[LOOP] = "0" if mode == "python loop" else "1"
                path = os.path.join(folder, f"{mode.replace(' ', '_')}.json")
                mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
                mx.profiler.set_state("run")
                t0 = time.perf_counter()
                calls()
                t[mode].append(time.perf_counter() - t0)
                info = sampler.info() if mode == "sampled" else None
                mx.profiler.set_state("stop")
                mx.profiler.dump()
                size[mode] = os.path.getsize(path)
                with open(path, "rb") as f:
                    events[mode] = sum(1 for e in json.load(f)["traceEvents"]
                                       if e.get("cat") == "python_line")
                if info and info["achieved_interval_ms"]:
                    rate.append(info["achieved_interval_ms"])
                    per_call.append(info["samples"] / N)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        ms = {m: statistics.median(v) / N * 1e3 for m, v in t.items()}
        on_off = statistics.median(a / b for a, b in zip(t["sampled"], t["profiled"]))
        prof = statistics.median(a / b for a, b in zip(t["profiled"], t["off"]))
        print(f"  {kind:15s} profiling off {ms['off']:.3f}  profiled {ms['profiled']:.3f}  "
              f"sampled {ms['sampled']:.3f} ms/call")
        print(f"  {'':15s} sampling on/off x{on_off:.3f} (target <= 1.05); "
              f"profiling on/off x{prof:.3f}")
        if native:
            py = statistics.median(a / b for a, b in zip(t["python loop"], t["profiled"]))
            print(f"  {'':15s} the Python loop's sampling on/off x{py:.3f}")
        if rate:
            print(f"  {'':15s} achieved interval {statistics.median(rate):.3f} ms "
                  f"({1000 / statistics.median(rate):.0f} ticks/s), "
                  f"{statistics.median(per_call):.2f} samples per call")
        grow = size["sampled"] - size["profiled"]
        print(f"  {'':15s} trace growth {grow / N:+.0f} bytes/call "
              f"({events['sampled'] / N:.2f} python_line events per call; "
              f"{size['profiled']:,} -> {size['sampled']:,} bytes)")


if __name__ == "__main__":
    main()

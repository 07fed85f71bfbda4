"""Profiler cost on 20,000 x ``x + 1`` (100x100 float32), all modes on, against the same
loop with profiling off in the same process; plus dump speed and trace bytes per op.

Targets (issue #3): recording adds <= 2 us/op; <= 3 us/op counting dumps() and dump();
dump writes >= 1,000,000 events/s; the trace takes <= 400 bytes per op. Issue #14: the
dependency records add <= 0.5 us/op and <= 60 trace bytes/op (a round of their own below:
profiling on with them off, ``observer.dependency_records(False)``, against on).
The machine is noisy: each round runs the loop with profiling off, then on (then
dumps() and dump()), and the report gives the median of the per-round differences and,
beside it, the difference of the best rounds (what the code costs when the machine
leaves it alone).
Run: python benchmarks/bench_profiler.py [N] [ROUNDS]
"""
import os
import statistics
import sys
import tempfile
import time

from _util import PROFILE_MODES

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 9


def main():
    import xprof.runtime as mx
    from xprof.runtime.profiler import session

    x = mx.nd.ones((100, 100))
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "bench.json")

    def loop():
        for _ in range(N):
            y = x + 1
        mx.nd.waitall()
        return y

    loop()
    off, on, total = [], [], []
    dump_s, dumps_s, events, sizes = [], [], [], []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        loop()
        off.append(time.perf_counter() - t0)

        mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
        mx.profiler.set_state("run")
        t0 = time.perf_counter()
        loop()
        t1 = time.perf_counter()
        mx.profiler.set_state("stop")
        n_events = session.event_count()
        t2 = time.perf_counter()
        mx.profiler.dumps()
        t3 = time.perf_counter()
        mx.profiler.dump()
        t4 = time.perf_counter()
        on.append(t1 - t0)
        dumps_s.append(t3 - t2)
        dump_s.append(t4 - t3)
        total.append(t4 - t0)
        events.append(n_events)
        sizes.append(os.path.getsize(path))

    med = statistics.median

    def extra(xs):   # us per op over the off loop: median of rounds, and best rounds
        return (med(x - o for x, o in zip(xs, off)) / N * 1e6,
                (min(xs) - min(off)) / N * 1e6)

    print(f"{N} x (y = x + 1), 100x100 float32, profile_all=True + aggregate_stats "
          f"({ROUNDS} interleaved rounds; median of per-round differences, best rounds)")
    print(f"  profiling off          {med(off) / N * 1e6:6.2f} us/op   best {min(off) / N * 1e6:.2f}")
    print(f"  profiling on           {med(on) / N * 1e6:6.2f} us/op   "
          "recording adds +%.2f us/op (best rounds +%.2f)" % extra(on))
    print(f"  on + dumps() + dump()  {med(total) / N * 1e6:6.2f} us/op   "
          "adds +%.2f us/op (best rounds +%.2f)" % extra(total))
    print(f"  dumps(): {med(dumps_s) * 1e3:.1f} ms   dump(): {med(dump_s) * 1e3:.1f} ms "
          f"(best {min(dump_s) * 1e3:.1f}) for {med(events):.0f} recorded events -> "
          f"{med(events) / med(dump_s) / 1e6:.2f} M events/s "
          f"(best {med(events) / min(dump_s) / 1e6:.2f})")
    print(f"  trace size: {med(sizes) / 1e6:.2f} MB = {med(sizes) / N:.0f} bytes per op")
    print("  recording cost by mode (each alone, best of the rounds over the best off round):")
    for mode, best in _by_mode(mx, loop, path).items():
        print(f"    {mode:10s} +{best:.2f} us/op")
    _dependency_cost(mx, loop, path)


def _dependency_cost(mx, loop, path):
    """What recording the dependency data costs (issue #14): rounds alternate profiling
    on (all modes) without dependency records (what the engine recorded before them: a
    plain slice per op, no stamps, no variables) and with them; each run is dumped, so
    the trace's size is measured both ways too. Wall and CPU time of the loop."""
    from xprof.runtime.profiler import observer as obs

    wall = {"without": [], "with": []}
    cpu = {"without": [], "with": []}
    size = {"without": [], "with": []}
    for _ in range(ROUNDS):
        for name in wall:
            obs.dependency_records(name == "with")
            try:
                mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
                mx.profiler.set_state("run")
                t0, c0 = time.perf_counter(), time.process_time()
                loop()
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
                mx.profiler.set_state("stop")
                mx.profiler.dump()
            finally:
                obs.dependency_records(True)
            size[name].append(os.path.getsize(path))
    med = statistics.median

    def added(xs):   # us per op: median of per-round differences, best rounds
        return (med(a - b for a, b in zip(xs["with"], xs["without"])) / N * 1e6,
                (min(xs["with"]) - min(xs["without"])) / N * 1e6)

    print("  dependency records add +%.2f us/op (median of per-round differences; "
          "best rounds +%.2f)" % added(wall) + "; CPU time +%.2f (best +%.2f)" % added(cpu))
    per_op = {name: med(s) / N for name, s in size.items()}
    print(f"  trace bytes per op: {per_op['with']:.0f} with dependency records, "
          f"{per_op['without']:.0f} without (+{per_op['with'] - per_op['without']:.0f})")


def _by_mode(mx, loop, path):
    """Where the recording cost goes: each mode on its own, interleaved with off rounds."""
    times = {name: [] for name in ("off", *PROFILE_MODES)}
    for _ in range(ROUNDS):
        for name in times:
            kwargs = PROFILE_MODES.get(name)
            if kwargs:
                mx.profiler.set_config(filename=path, **kwargs)
                mx.profiler.set_state("run")
            t0 = time.perf_counter()
            loop()
            times[name].append(time.perf_counter() - t0)
            if kwargs:
                mx.profiler.set_state("stop")
                mx.profiler.dump()
    best_off = min(times.pop("off"))
    return {name: (min(ts) - best_off) / N * 1e6 for name, ts in times.items()}


if __name__ == "__main__":
    main()

"""Why a Python timer around an asynchronous operator measures the wrong thing.

``mx.nd.dot(a, b)`` returns as soon as the operator is *pushed* to the engine; a worker
thread computes it later. A ``time.perf_counter()`` pair around the call therefore
measures only the push. Waiting (``mx.nd.waitall()``) before reading the clock gives
the real elapsed time, and the profiler records the operator's own duration on the
thread that ran it, with no wait needed in the measured code.

    python sample_scripts/python_timer_vs_profiler.py [--size 512] [--repeat 3]
        [--output python_timer_vs_profiler.json]
"""
import argparse
import json
import time

import xprof.runtime as mx


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=512, help="matrix size (default 512)")
    parser.add_argument("--repeat", type=int, default=3, help="measurements (default 3)")
    parser.add_argument("--output", default="python_timer_vs_profiler.json",
                        help="trace file (default python_timer_vs_profiler.json)")
    args = parser.parse_args(argv)

    a = mx.nd.random.uniform(shape=(args.size, args.size))
    b = mx.nd.random.uniform(shape=(args.size, args.size))
    mx.nd.dot(a, b).wait_to_read()   # warm-up, unprofiled

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    mx.profiler.set_state("run")
    for i in range(args.repeat):
        t0 = time.perf_counter()
        c = mx.nd.dot(a, b)
        t_push = time.perf_counter() - t0      # only the push: the op may not have run
        mx.nd.waitall()
        t_wait = time.perf_counter() - t0      # push + compute + wait
        print(f"run {i}: python timer around the call {t_push * 1e3:8.3f} ms   "
              f"with waitall() {t_wait * 1e3:8.3f} ms")
    mx.profiler.set_state("stop")

    stats = json.loads(mx.profiler.dumps(format="json"))
    dot = stats["Time"]["operator"]["dot"]
    push = stats["Time"]["API"]["dot"]
    print(f"profiler: operator 'dot' ran {dot['Count']} times, avg {dot['Avg']:.3f} ms "
          f"(on an engine thread); the API call 'dot' took avg {push['Avg']:.3f} ms")
    print(mx.profiler.dumps())
    mx.profiler.dump()
    print(f"trace written to {args.output}")
    del c


if __name__ == "__main__":
    main()

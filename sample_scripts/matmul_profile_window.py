"""Profile a window of a matrix-multiply loop: only iterations 50 to 69 are recorded.

The profiler is switched on with ``set_state('run')`` when iteration 50 starts and off
with ``set_state('stop')`` when iteration 70 starts, after ``waitall()`` so that every op
of the window has finished (ops run asynchronously: an op still queued when the
profiler stops is not recorded). Iterations outside the window cost nothing extra.

    python sample_scripts/matmul_profile_window.py [--size 64] [--iters 100]
        [--output matmul_profile_window.json]

The trace holds exactly 20 ``dot`` operator events; the table printed at the end is
``mx.profiler.dumps()``.
"""
import argparse

import xprof.runtime as mx

WINDOW = (50, 70)   # [start, stop): iterations recorded


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="matrix size (default 64)")
    parser.add_argument("--iters", type=int, default=100, help="loop length (default 100)")
    parser.add_argument("--output", default="matmul_profile_window.json",
                        help="trace file (default matmul_profile_window.json)")
    args = parser.parse_args(argv)
    if args.iters < WINDOW[1]:
        parser.error(f"--iters must be at least {WINDOW[1]} to cover the window")

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    a = mx.nd.random.uniform(shape=(args.size, args.size))
    b = mx.nd.random.uniform(shape=(args.size, args.size))
    c = mx.nd.zeros((args.size, args.size))
    for i in range(args.iters):
        if i == WINDOW[0]:
            mx.nd.waitall()          # start with an idle engine: nothing from before
            mx.profiler.set_state("run")
        elif i == WINDOW[1]:
            mx.nd.waitall()          # let the window's ops finish while recording
            mx.profiler.set_state("stop")
        c = mx.nd.dot(a, b) + c * 0.5
    mx.nd.waitall()
    print(mx.profiler.dumps())
    mx.profiler.dump()
    print(f"trace written to {args.output} (iterations {WINDOW[0]} to {WINDOW[1] - 1})")


if __name__ == "__main__":
    main()

"""Profile a chain of NDArray operators with ``profile_all=True``.

Each step applies a few elementwise and reduction operators to the previous result, so
every operator of the chain depends on the one before. With ``profile_all`` the trace
shows the API calls (``API``: time spent in Python to call and push each operator), the
operators themselves (``operator``: when and on which thread they ran) and the memory
counter (``Device Storage``).

    python sample_scripts/ndarray_chain.py [--steps 10] [--size 128]
        [--output ndarray_chain.json]
"""
import argparse

import xprof.runtime as mx


def chain(x, steps):
    for _ in range(steps):
        y = mx.nd.relu(x * 0.5 - 0.1)
        z = mx.nd.exp(-y).sqrt()
        x = z / (z.sum() + 1.0) + x * 0.9
    return x


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="chain length (default 10)")
    parser.add_argument("--size", type=int, default=128, help="vector length (default 128)")
    parser.add_argument("--output", default="ndarray_chain.json",
                        help="trace file (default ndarray_chain.json)")
    args = parser.parse_args(argv)

    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    x = mx.nd.ones((args.size,))
    mx.profiler.set_state("run")
    out = chain(x, args.steps)
    total = out.sum().asscalar()     # a sync point: waits for the whole chain
    mx.nd.waitall()
    mx.profiler.set_state("stop")
    print(f"result: {total:.6f}")
    print(mx.profiler.dumps())
    mx.profiler.dump()
    print(f"trace written to {args.output}")


if __name__ == "__main__":
    main()

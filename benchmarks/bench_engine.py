"""Engine overhead: ``y = x + 1`` on a 100x100 float32 array, N ops then ``waitall``,
against N numpy ``a + 1`` in the same process, for both engines.

Targets (issue #2): ThreadedEngine at most 4x numpy, NaiveEngine at most 3x.
Run: python benchmarks/bench_engine.py [N]
"""
import sys

import numpy as np

from _util import interleaved, per_op_us, ratio

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000


def main():
    import xprof.runtime as mx
    from xprof.runtime import engine

    a = np.ones((100, 100), np.float32)

    def numpy_loop():
        for _ in range(N):
            b = a + 1  # noqa: F841
        return b

    print(f"y = x + 1 on 100x100 float32, {N} ops then waitall (median of 7 rounds)")
    for kind in ("ThreadedEngine", "NaiveEngine"):
        engine.set_engine_type(kind)
        x = mx.nd.array(a)

        def engine_loop():
            for _ in range(N):
                y = x + 1
            mx.nd.waitall()
            return y

        engine_loop()
        t = interleaved({"engine": engine_loop, "numpy": numpy_loop}, rounds=7)
        print(f"  {kind:15s} {per_op_us(t, 'engine', N):6.2f} us/op   numpy "
              f"{per_op_us(t, 'numpy', N):5.2f} us/op   ratio {ratio(t, 'engine', 'numpy'):5.2f}x")
    heavy(mx)


def heavy(mx):
    """Asynchrony: pushing a 2000x2000 dot returns long before the product is ready."""
    import time
    from xprof.runtime import engine
    engine.set_engine_type("ThreadedEngine")
    x = mx.nd.random.uniform(shape=(2000, 2000))
    mx.nd.waitall()
    t0 = time.perf_counter()
    y = mx.nd.dot(x, x)
    t_push = time.perf_counter() - t0
    y.wait_to_read()
    t_all = time.perf_counter() - t0
    print(f"2000x2000 dot: push returned in {t_push * 1e6:.0f} us, result ready after "
          f"{t_all * 1e3:.1f} ms")


if __name__ == "__main__":
    main()

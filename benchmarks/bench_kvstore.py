"""dist_sync ``pushpull`` against mpi4py's own ``Allreduce`` on the same buffers, 2 ranks.

Run it as it is (``python benchmarks/bench_kvstore.py``): it starts itself on 2 ranks
through the dist extra's ``mpiexec``. Sizes: 4 KB, 4 MB and 64 MB of float32. Each round
times ``N`` pushpulls of a key (each waited for: the time a step would wait) and ``N``
raw ``MPI_Allreduce`` calls of a numpy array of the same size, alternately; rank 0
prints the median of the per-round ratios (xprof / raw MPI). The kvstore's extra work:
the engine op and the hand-over to the comm thread, the arrival allgather that names
stragglers, a new result array, the copy back into the pushed array, and the chunking
of keys above ``MXNET_KVSTORE_BIGARRAY_BOUND``. Not a timed test; figures depend on the
machine's load.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SIZES = {"4 KB": (1 << 10, 200), "4 MB": (1 << 20, 10), "64 MB": (1 << 24, 3)}
ROUNDS = 5


def _launch():
    from xprof.cli.launch import mpiexec

    exe = mpiexec()
    if exe is None:
        sys.exit("bench_kvstore needs the dist extra: pip install 'xprof-mx[dist]'")
    sys.exit(subprocess.call([exe, "-n", "2", sys.executable, os.path.abspath(__file__)]))


def main():
    from _util import interleaved, ratio

    import xprof.runtime as mx

    kv = mx.kv.create("dist_sync")
    MPI = kv._world.MPI
    comm = MPI.COMM_WORLD
    lines = []
    for label, (n, reps) in SIZES.items():
        kv.init(label, mx.nd.zeros((n,)))
        value = mx.nd.ones((n,))
        raw_in, raw_out = np.ones(n, np.float32), np.empty(n, np.float32)

        def xprof_side():
            for _ in range(reps):
                kv.pushpull(label, value)
                value.wait_to_read()

        def mpi_side():
            for _ in range(reps):
                comm.Allreduce(raw_in, raw_out, op=MPI.SUM)

        times = interleaved({"xprof": xprof_side, "mpi": mpi_side}, ROUNDS)
        per = {k: sorted(v)[len(v) // 2] / reps * 1e3 for k, v in times.items()}
        lines.append(f"{label:>6}: pushpull / Allreduce = {ratio(times, 'xprof', 'mpi'):5.2f}x"
                     f"   (median {per['xprof']:.3f} ms vs {per['mpi']:.3f} ms per call)")
    if kv.rank == 0:
        print("bench_kvstore: dist_sync pushpull vs mpi4py Allreduce, 2 ranks, float32")
        print("\n".join(lines))


if __name__ == "__main__":
    if any(v in os.environ for v in ("PMI_RANK", "OMPI_COMM_WORLD_RANK")):
        main()
    else:
        _launch()

"""dist_sync ``pushpull`` against mpi4py's own ``Allreduce`` on the same buffers, 2 ranks.

Run it as it is (``python benchmarks/bench_kvstore.py [ROUNDS]``): it starts itself on 2
ranks through the dist extra's ``mpiexec``. Sizes: 4 KB, 4 MB and 64 MB of float32. Each
round times ``N`` pushpulls of a key (each waited for: the time a step would wait) and
``N`` raw ``MPI_Allreduce`` calls of numpy arrays of the same size, alternately; rank 0
prints, per size, the median over the rounds of the per-round ratio (xprof / raw MPI),
the spread of those ratios, and the median time per call of each. The issue's target:
within 1.5x at 4 MB and above.

What the kvstore does beyond ``MPI_Allreduce``: the engine op (pushed, granted, run on
the pushing thread: its input is ready) and the hand-over to the comm thread and back,
the exchange of arrival times that names stragglers (an ``Iallgather`` that progresses
inside the transfer: no second rendezvous), the chunking of keys above
``MXNET_KVSTORE_BIGARRAY_BOUND`` (10^6 elements: 2 calls at 4 MB, 17 at 64 MB). The sum
goes into a pooled buffer that the stored value and the pushed array then share: no copy
back, no fresh memory to fault in. Not a timed test; figures depend on the machine's
load (quote them measured on a quiet machine).
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SIZES = {"4 KB": (1 << 10, 200), "4 MB": (1 << 20, 10), "64 MB": (1 << 24, 3)}
ROUNDS = 9
TARGET = 1.5    # the issue's bound at 4 MB and above


def _launch():
    from xprof.mxcli.runner.launch import mpiexec

    exe = mpiexec()
    if exe is None:
        sys.exit("bench_kvstore needs the dist extra: pip install 'xprof-mx[dist]'")
    sys.exit(subprocess.call([exe, "-n", "2", sys.executable, os.path.abspath(__file__),
                              *sys.argv[1:]]))


def main():
    import statistics

    from _util import interleaved

    import xprof.runtime as mx

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
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

        times = interleaved({"xprof": xprof_side, "mpi": mpi_side}, rounds)
        ratios = sorted(a / b for a, b in zip(times["xprof"], times["mpi"]))
        per = {k: statistics.median(v) / reps * 1e3 for k, v in times.items()}
        ratio = statistics.median(ratios)
        verdict = "" if n * 4 < (4 << 20) else \
            ("   within 1.5x" if ratio <= TARGET else "   ABOVE 1.5x")
        lines.append(f"{label:>6}: pushpull / Allreduce = {ratio:5.2f}x "
                     f"(rounds {ratios[0]:.2f}..{ratios[-1]:.2f})   median per call "
                     f"{per['xprof']:8.3f} ms vs {per['mpi']:8.3f} ms{verdict}")
    if kv.rank == 0:
        print(f"bench_kvstore: dist_sync pushpull vs mpi4py Allreduce, 2 ranks, float32, "
              f"median of {rounds} interleaved rounds")
        print("\n".join(lines))


if __name__ == "__main__":
    if any(v in os.environ for v in ("PMI_RANK", "OMPI_COMM_WORLD_RANK")):
        main()
    else:
        _launch()

"""DataLoader workers: one epoch over a dataset whose ``__getitem__`` costs ~1 ms of
numpy work, loaded in the calling thread (``num_workers=0``), in 2 worker processes,
and in 2 worker threads (``thread_pool=True``), alternately in one process, median of
interleaved rounds. The loaders are created (and their workers started) once, outside
the timings, and warmed up by one epoch; each timed epoch reads every batch's values.
Figures only. Run: python benchmarks/bench_dataloader.py [SAMPLES] [ROUNDS]
"""
import statistics
import sys
import time

import numpy as np

from _util import interleaved, ratio

SAMPLES = int(sys.argv[1]) if len(sys.argv) > 1 else 256
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
BATCH = 16


def make_dataset(gluon):
    class OneMillisecond(gluon.data.Dataset):
        """Sample i: a 64x64 float32 image from ~1 ms of numpy (sorts and sums)."""

        def __init__(self, n):
            self._n = n
            self._base = np.random.default_rng(0).random(16_384, dtype=np.float32)

        def __len__(self):
            return self._n

        def __getitem__(self, i):
            x = np.sort(self._base * (i + 1))
            image = x[:4096].reshape(64, 64) + x[-4096:].reshape(64, 64)
            return image, np.int32(i % 10)

    return OneMillisecond(SAMPLES)


def per_item_ms(dataset, n=200):
    t0 = time.perf_counter()
    for i in range(n):
        dataset[i % len(dataset)]
    return (time.perf_counter() - t0) / n * 1e3


def main():
    import xprof.runtime as mx
    from xprof.runtime import gluon
    dataset = make_dataset(gluon)
    loaders = {
        "0 workers": gluon.data.DataLoader(dataset, batch_size=BATCH),
        "2 processes": gluon.data.DataLoader(dataset, batch_size=BATCH, num_workers=2),
        "2 threads": gluon.data.DataLoader(dataset, batch_size=BATCH, num_workers=2,
                                           thread_pool=True),
    }

    def epoch(loader):
        def run():
            for data, label in loader:
                data.asnumpy()
                label.asnumpy()
        return run

    fns = {name: epoch(loader) for name, loader in loaders.items()}
    for fn in fns.values():
        fn()
    cost = per_item_ms(dataset)
    times = interleaved(fns, ROUNDS)
    mx.nd.waitall()
    print(f"{SAMPLES} samples, batch {BATCH}, __getitem__ {cost:.2f} ms each (measured "
          f"alone); median of {ROUNDS} interleaved rounds")
    base = statistics.median(times["0 workers"])
    for name in fns:
        t = statistics.median(times[name])
        line = f"  {name:12s} {t * 1e3:8.1f} ms/epoch  {t / SAMPLES * 1e3:6.3f} ms/sample"
        if name != "0 workers":
            line += f"  speed-up {ratio(times, '0 workers', name):.2f}x (vs {base * 1e3:.1f})"
        print(line)


if __name__ == "__main__":
    main()

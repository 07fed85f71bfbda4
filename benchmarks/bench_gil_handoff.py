"""The floor under any Python-level sampler on this machine: what one forced GIL hand-off
costs a thread running pure Python (issue #26, docs/lines.md).

A sampler written in Python must hold the GIL to read ``sys._current_frames()``. While
another thread runs pure Python, the sampler gets the GIL only by forcing a switch
(CPython's ``gil_drop_request`` after the switch interval): the running thread drops
the GIL, waits until the sampler has taken it, and takes it back after. This script
measures that price with nothing of xprof in the way: one thread runs a pure-Python
loop in chunks of about 2 ms (a custom op's ``forward``), while a bare "sampler"
thread sleeps an interval, reads ``sys._current_frames()`` and sleeps again (the least
a sampler can do), at several intervals and switch intervals, in interleaved rounds
against no sampler at all. Printed per configuration: the loop's time ratio to no
sampler, the hand-offs per second achieved, and the cost per hand-off in microseconds
(the extra time divided by the hand-offs). Figures only, nothing asserted.

    python benchmarks/bench_gil_handoff.py [ROUNDS] [CHUNKS]
"""
import statistics
import sys
import threading
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
CHUNKS = int(sys.argv[2]) if len(sys.argv) > 2 else 150

# name -> (switch interval s, sampler interval s or None)
CONFIGS = {
    "no sampler": (0.005, None),
    "no sampler, switch 0.25 ms": (0.00025, None),
    "every 1 ms, switch 0.25 ms (xprof's)": (0.00025, 0.001),
    "every 1 ms, switch 1 ms": (0.001, 0.001),
    "every 1 ms, switch 5 ms (Python's)": (0.005, 0.001),
    "every 2 ms, switch 0.5 ms": (0.0005, 0.002),
    "every 5 ms, switch 1.25 ms": (0.00125, 0.005),
}


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


class BareSampler:
    def __init__(self, interval):
        self.interval, self.ticks, self.stop = interval, 0, False
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        frames, sleep = sys._current_frames, time.sleep
        while not self.stop:
            sleep(self.interval)
            frames()
            self.ticks += 1


def one(switch, interval, work):
    saved = sys.getswitchinterval()
    sys.setswitchinterval(switch)
    sampler = BareSampler(interval) if interval else None
    if sampler:
        sampler.thread.start()
    t = time.perf_counter()
    for _ in range(CHUNKS):
        python_work(work)
    elapsed = time.perf_counter() - t
    if sampler:
        sampler.stop = True
        sampler.thread.join()
    sys.setswitchinterval(saved)
    return elapsed, (sampler.ticks if sampler else 0)


def main():
    work = calibrate(0.002)
    print(f"pure-Python chunks of {_timed(python_work, work) * 1e3:.2f} ms, {CHUNKS} per run, "
          f"median of {ROUNDS} interleaved rounds")
    times = {name: [] for name in CONFIGS}
    ticks = {name: [] for name in CONFIGS}
    for _ in range(ROUNDS):
        for name, (switch, interval) in CONFIGS.items():
            el, n = one(switch, interval, work)
            times[name].append(el)
            ticks[name].append(n / el)
    for name in CONFIGS:
        ratio = statistics.median(a / b for a, b in zip(times[name], times["no sampler"]))
        rate = statistics.median(ticks[name])
        cost = (ratio - 1) / rate * 1e6 if rate else 0.0
        print(f"  {name:40s} x{ratio:.3f}  {rate:6.0f} hand-offs/s"
              + (f"  {cost:6.1f} us per hand-off" if rate else ""))


if __name__ == "__main__":
    main()

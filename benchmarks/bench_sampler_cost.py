"""What the Python-line sampler costs a training step, and on which thread (issue #42).

One process runs ``bench_real_overhead.py``'s job (``custom`` by default) profiled in
all modes, in blocks of ``--block`` steps that alternate the sampler on (interval
``--interval-ms``) and off (``XPROF_PROFILER_SAMPLE_INTERVAL_MS=0``, read at each
``resume``), ABBA order; the first step of a block is not counted (the sampler thread
starts at a resumed session's first custom-op call). Printed: the median over block
pairs of (on / off) CPU per step (``time.process_time``), and per thread kind, per
step: CPU time (``/proc/self/task/*/schedstat``), voluntary and involuntary context
switches (``/proc/self/task/*/status``), and the sampler's samples. Why in one
process: between processes this VM's speed differs by more than the few percent asked
about (see bench_real_overhead.py); why per thread: the sampler's share is mostly not
its own thread's CPU (docs/lines.md, "What the sampler costs a training step").
Linux only (/proc).

    python benchmarks/bench_sampler_cost.py [--job custom] [--blocks 150] [--block 8]
        [--interval-ms 1] [--engine ThreadedEngine]
"""
import argparse
import os
import re
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_real_overhead import _build  # noqa: E402


def threads():
    """tid -> (kind, voluntary, involuntary context switches, CPU ns) of this process's
    threads; kind: the Python thread's name without its number."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/status") as f:
                status = f.read()
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                cpu = int(f.read().split()[0])
        except OSError:   # (the thread ended meanwhile)
            continue
        vol = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
        inv = int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
        kind = re.sub(r" \d+$", "", names.get(int(tid), "(not Python)"))
        out[tid] = (kind, vol, inv, cpu)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", default="custom")
    ap.add_argument("--blocks", type=int, default=150, help="blocks of each kind")
    ap.add_argument("--block", type=int, default=8, help="counted steps per block")
    ap.add_argument("--interval-ms", default="1")
    ap.add_argument("--engine", default="ThreadedEngine")
    a = ap.parse_args()
    os.environ["XPROF_ENGINE_TYPE"] = a.engine   # (read at import)
    import xprof.runtime as mx
    from xprof.runtime.profiler import sampler as S
    step = _build(mx, a.job)
    for _ in range(3):
        step()
    mx.profiler.set_config(aggregate_stats=False, profile_all=True,
                           filename=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                 f"bench-sampler-{os.getpid()}.json"))
    os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = "0"
    mx.profiler.set_state("run")
    medians = {"on": [], "off": []}
    per = {"on": {}, "off": {}}   # kind -> [vol, inv, cpu ns]
    samples = 0
    for b in range(2 * a.blocks):
        on = (b % 2 == 0) == ((b // 2) % 2 == 0)   # on off off on on off ...
        kind = "on" if on else "off"
        mx.profiler.pause()
        os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = a.interval_ms if on else "0"
        mx.profiler.resume()
        step()
        before, s0 = threads(), S.sampler.samples
        cpu = []
        for _ in range(a.block):
            c0 = time.process_time()
            step()
            cpu.append(time.process_time() - c0)
        after = threads()
        if on:
            samples += S.sampler.samples - s0
        medians[kind].append(statistics.median(cpu))
        for tid, (name, vol, inv, ns) in after.items():
            _, v0, i0, n0 = before.get(tid, (name, 0, 0, 0))
            acc = per[kind].setdefault(name, [0, 0, 0])
            acc[0] += vol - v0
            acc[1] += inv - i0
            acc[2] += ns - n0
    mx.profiler.set_state("stop")
    steps = a.blocks * a.block
    ratios = [x / y for x, y in zip(medians["on"], medians["off"])]
    q = statistics.quantiles(ratios, n=4)
    print(f"{a.job}: sampler on ({a.interval_ms} ms) / off, CPU per step, {a.blocks} "
          f"block pairs of {a.block} steps: x{statistics.median(ratios):.3f} "
          f"IQR [{q[0]:.3f}, {q[2]:.3f}]; off {statistics.median(medians['off']) * 1e3:.3f}"
          f" ms; {samples / steps:.2f} samples a step")
    for kind in ("on", "off"):
        print(f"  sampler {kind}: per step, per thread kind")
        for name, (vol, inv, ns) in sorted(per[kind].items()):
            if vol or inv:
                print(f"    {name:26s} CPU {ns / steps / 1e3:7.1f} us  voluntary "
                      f"{vol / steps:5.2f}  involuntary {inv / steps:5.2f}")
    os._exit(0)   # (no dump: the steps are what is measured)


if __name__ == "__main__":
    main()

"""What profiling costs a real training step: three jobs, profiling off, each mode, all.

Jobs (Gluon, imperative, SGD, the engine's defaults):
* ``cnn``: the profiler guide's CNN (Conv 20, pool, Conv 50, pool, Dense 512, Dense 10) on
  batch 64 of 1x28x28;
* ``mlp``: the heavy-Dense MLP of the known-answer tests (64 -> 512 -> 4096 -> 10, batch 64);
* ``custom``: a Dense, a custom operator whose forward and backward each sort 12,000
  doubles with numpy (0.3 ms on this VM's numpy 2), a Dense (batch 64): a step of about
  2 ms of CPU, ~28 events.

Two designs (``--design``):

* ``steps`` (the default): profiled and unprofiled steps alternate within one process,
  in blocks of :data:`BLOCK` steps: the profiler set to the mode and started, then
  paused and resumed at block edges (``mx.profiler.pause``/``resume``: paused, the
  engine has no observer and the flags are off, the path of an unprofiled process;
  ``bench_real_instructions.py --modes off,paused`` counts the same instructions). The
  first step of each block is not counted (the switch's own work: the line sampler's
  thread starts at a resumed session's first custom-op call; a session pays it once).
  A block's figure is the median CPU time (``time.process_time``: every thread of the
  process) of its counted steps; a mode's ratio per profiled block is over the mean of
  the unprofiled blocks on each side of it; its figure is the median over the blocks of
  ``--rounds`` processes, with the range and the interquartile range of those ratios,
  and the range of the per-process medians. ``off`` alternates unprofiled blocks with
  unprofiled blocks: the estimator's own noise (an A/A test). Why: on this VM one
  process's speed differs from the next one's by more than the figures asked about
  (#41: the same MLP run six times had steps of 16-25 ms); within one process, steps
  agree within a few percent.
* ``processes``: each (job, mode) runs in a process of its own: 3 warm-up steps
  unprofiled, then the profiler set to the mode and started, ``--steps`` steps, each
  ended by ``waitall``; the CPU time and the wall time per step. Modes alternate within
  each round, ``--rounds`` rounds, each round starting at the next mode; a mode's figure
  is the median over the rounds of its CPU per step over ``off``'s in the same round.
  Paired ratios of two processes spread 0.7-1.3 on this VM (#42's last stop).

``all-nolines`` is ``all`` without the Python-line sampler: the sampler's own share is
``all`` against it.
With MXNet 1.9.1 (``--mxnet``: importable here; ``--mxnet-python PATH``: the Python of
a venv that has it, e.g. ``pip install mxnet==1.9.1 "numpy<1.24"``), its own profiler's overhead on
the CNN is measured the same way.

    python benchmarks/bench_real_overhead.py [--design steps|processes]
        [--jobs cnn,mlp,custom] [--modes off,operators,...] [--rounds R] [--steps N]
        [--engine ThreadedEngine] [--json out.json] [--mxnet | --mxnet-python PATH]

(``--steps``: steps counted per mode and process; in the ``steps`` design, profiled
steps, as many unprofiled beside them. ``--rounds``: default 5 for ``steps``, 7 for
``processes``.)

A measurement: run it on a quiet machine (nothing else of ours running).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MODES = {
    "off": None,
    "operators": dict(profile_imperative=True, profile_symbolic=True, profile_api=False,
                      profile_memory=False),
    "api": dict(profile_imperative=False, profile_symbolic=False, profile_api=True,
                profile_memory=False),
    "memory": dict(profile_imperative=False, profile_symbolic=False, profile_api=False,
                   profile_memory=True),
    "all": dict(profile_all=True),
    # all of the above without the Python-line sampler (XPROF_PROFILER_SAMPLE_INTERVAL_MS=0
    # when profiling starts): the control for what the sampler costs, its thread's ticks
    # and the switch interval it lowers while custom-op Python runs (#42)
    "all-nolines": dict(profile_all=True, _no_lines=True),
}


def _build(mx, job):
    import numpy as np
    if mx.__name__.startswith("xprof"):
        from xprof.runtime import gluon  # noqa: F401 (mx.gluon)
    nn = mx.gluon.nn
    rng = np.random.default_rng(0)
    net = nn.HybridSequential()
    if job == "cnn":
        with net.name_scope():
            net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2, 2),
                    nn.Conv2D(50, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Flatten(),
                    nn.Dense(512, activation="relu"), nn.Dense(10))
        x = mx.nd.array(rng.random((64, 1, 28, 28), dtype=np.float32))
    elif job == "mlp":
        with net.name_scope():
            net.add(nn.Dense(512, activation="relu"), nn.Dense(4096, activation="relu"),
                    nn.Dense(10))
        x = mx.nd.array(rng.random((64, 64), dtype=np.float32))
    else:
        _register_custom(mx)

        class Layer(mx.gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.Custom(x, op_type="BenchNumpy")

        with net.name_scope():
            net.add(nn.Dense(256, activation="relu"), Layer(), nn.Dense(10))
        x = mx.nd.array(rng.random((64, 128), dtype=np.float32))
    y = mx.nd.array(rng.integers(0, 10, 64).astype(np.float32))
    net.initialize(mx.init.Xavier())
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(64)
        mx.nd.waitall()
    return step


def _register_custom(mx):
    import numpy as np
    buf = np.random.default_rng(1).random(12000)

    class BenchNumpy(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            np.sort(buf)
            self.assign(out_data[0], req[0], in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            np.sort(buf)
            self.assign(in_grad[0], req[0], out_grad[0])

    @mx.operator.register("BenchNumpy")
    class BenchNumpyProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=True)

        def create_operator(self, ctx, shapes, dtypes):
            return BenchNumpy()


def child(job, mode, steps, which):
    """The ``processes`` design's one measurement, in this process: prints a JSON line."""
    mx = _import(which)
    step = _build(mx, job)
    for _ in range(3):
        step()
    on = _configure(mx, mode, which)
    if on:
        mx.profiler.set_state("run")
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(steps):
        step()
    c1, t1 = time.process_time(), time.perf_counter()
    events = _events(mx, which) if on else None
    print(json.dumps({"cpu_ms": (c1 - c0) * 1000 / steps, "wall_ms": (t1 - t0) * 1000 / steps,
                      "events": events}))
    os._exit(0)   # (no dump at exit: the step's cost is what is measured)


BLOCK = 3   # steps per block of one kind in the ``steps`` design; the first is not counted


def _configure(mx, mode, which):
    """The profiler set to ``mode`` (not started); False for ``off``."""
    cfg = None if MODES[mode] is None else dict(MODES[mode])
    if cfg is None:
        return False
    if cfg.pop("_no_lines", False):   # (read when profiling starts)
        os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = "0"
    mx.profiler.set_config(aggregate_stats=False, filename=os.devnull if which == "mxnet"
                           else os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                             f"bench-real-{os.getpid()}.json"), **cfg)
    return True


def _events(mx, which):
    mx.profiler.set_state("stop")
    if which == "mxnet":
        return None
    from xprof.runtime.profiler import session
    return session.event_count()


def child_steps(job, mode, steps, which):
    """The ``steps`` design in this process: blocks of :data:`BLOCK` steps, unprofiled
    first and last, profiled between, until ``steps`` profiled steps are counted; prints
    each counted step's ``[profiled, cpu_ms, wall_ms, block]`` as one JSON line."""
    mx = _import(which)
    step = _build(mx, job)
    for _ in range(3):
        step()
    on = _configure(mx, mode, which)
    if on:
        mx.profiler.set_state("run")
        mx.profiler.pause()
    blocks = 2 * -(-steps // (BLOCK - 1)) + 1   # off, on, off, ..., off
    rows = []
    for b in range(blocks):
        profiled = b % 2 == 1
        if on:
            (mx.profiler.resume if profiled else mx.profiler.pause)()
        for i in range(BLOCK):
            c0, t0 = time.process_time(), time.perf_counter()
            step()
            c1, t1 = time.process_time(), time.perf_counter()
            if i:
                rows.append([profiled, (c1 - c0) * 1000, (t1 - t0) * 1000, b])
    events = _events(mx, which) if on else None
    print(json.dumps({"rows": rows, "events": events}))
    os._exit(0)   # (no dump at exit: the step's cost is what is measured)


def block_ratios(rows, col=1):
    """Per profiled block: the median of its counted steps' ``col`` (1: CPU, 2: wall)
    over the mean of the medians of the unprofiled blocks on either side."""
    by = {}
    for r in rows:
        by.setdefault(r[3], []).append(r[col])
    med = {b: statistics.median(v) for b, v in by.items()}
    return [med[b] / ((med[b - 1] + med[b + 1]) / 2)
            for b in sorted(med) if b % 2 == 1 and b - 1 in med and b + 1 in med]


def _import(which):
    if which == "mxnet":
        import mxnet as mx
    else:
        import xprof.runtime as mx
    return mx


PYTHON = {"xprof": sys.executable, "mxnet": sys.executable}   # (--mxnet-python)


def _run(job, mode, steps, engine, which="xprof", design="processes"):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env["XPROF_ENGINE_TYPE"] = engine
    env["MXNET_ENGINE_TYPE"] = engine
    out = subprocess.run([PYTHON[which], __file__, "--child", job, mode, str(steps), which,
                          design], capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spread(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else xs * 3
    return (f"x{statistics.median(xs):.3f} [{min(xs):.3f}, {max(xs):.3f}] "
            f"IQR [{q[0]:.3f}, {q[2]:.3f}]")


def run_steps(job, modes, rounds, steps, engine, which="xprof"):
    """The ``steps`` design: ``{mode: {"cpu", "wall", "per_process", "events",
    "off_cpu_ms"}}`` (ratios per profiled block, pooled over the processes)."""
    out = {}
    for r in range(rounds):
        k = r % len(modes)
        for m in modes[k:] + modes[:k]:
            res = _run(job, m, steps, engine, which, "steps")
            rows = res["rows"]
            cpu, wall = block_ratios(rows, 1), block_ratios(rows, 2)
            e = out.setdefault(m, {"cpu": [], "wall": [], "per_process": [],
                                   "events": res["events"], "off_cpu_ms": []})
            e["cpu"] += cpu
            e["wall"] += wall
            e["per_process"].append(statistics.median(cpu))
            e["off_cpu_ms"].append(statistics.median(x[1] for x in rows if not x[0]))
    return out


def report_steps(job, res, rounds, steps, engine):
    off = [x for m in res.values() for x in m["off_cpu_ms"]]
    print(f"{job}: steps design, {steps} profiled steps beside as many unprofiled per "
          f"process, blocks of {BLOCK} (first not counted), {rounds} processes, {engine}; "
          f"unprofiled: CPU {statistics.median(off):.2f} ms/step")
    for m, e in res.items():
        pp = e["per_process"]
        label = "off (A/A)" if m == "off" else m
        print(f"  {label:11s} CPU {_spread(e['cpu'])} per process [{min(pp):.3f}, "
              f"{max(pp):.3f}]  wall x{statistics.median(e['wall']):.3f}  "
              f"{e['events']} events", flush=True)


def run_processes(job, modes, rounds, steps, engine):
    per = {m: [] for m in modes}
    for r in range(rounds):
        k = r % len(modes)   # each round starts at the next mode (see the docstring)
        for m in modes[k:] + modes[:k]:
            per[m].append(_run(job, m, steps, engine))
    base = per["off"]
    print(f"{job}: processes design, {steps} steps, {rounds} rounds, {engine}; "
          f"off: CPU {statistics.median(r['cpu_ms'] for r in base):.2f} ms/step, wall "
          f"{statistics.median(r['wall_ms'] for r in base):.2f} ms/step")
    results = {}
    for m in modes:
        if m == "off":
            continue
        cpu = [r["cpu_ms"] / b["cpu_ms"] for r, b in zip(per[m], base)]
        wall = [r["wall_ms"] / b["wall_ms"] for r, b in zip(per[m], base)]
        ev = per[m][0]["events"]
        results[m] = {"cpu": cpu, "wall": wall, "events": ev}
        print(f"  {m:11s} CPU {_spread(cpu)}  wall x{statistics.median(wall):.3f} "
              f"[{min(wall):.3f}, {max(wall):.3f}]  {ev} events", flush=True)
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=5)
    ap.add_argument("--design", choices=("steps", "processes"), default="steps")
    ap.add_argument("--jobs", default="cnn,mlp,custom")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--engine", default="ThreadedEngine")
    ap.add_argument("--json", default=None)
    ap.add_argument("--mxnet", action="store_true")
    ap.add_argument("--mxnet-python", default=None)
    args = ap.parse_args()
    if args.child:
        job, mode, steps, which, design = args.child
        return (child_steps if design == "steps" else child)(job, mode, int(steps), which)
    modes = args.modes.split(",")
    for m in modes:
        if m not in MODES:
            ap.error(f"--modes: {m!r} is not a mode; allowed: {', '.join(MODES)}")
    if args.design == "processes" and "off" not in modes:
        modes.insert(0, "off")
    rounds = args.rounds or (5 if args.design == "steps" else 7)
    results = {}
    for job in args.jobs.split(","):
        if args.design == "steps":
            results[job] = run_steps(job, modes, rounds, args.steps, args.engine)
            report_steps(job, results[job], rounds, args.steps, args.engine)
        else:
            results[job] = run_processes(job, modes, rounds, args.steps, args.engine)
    if args.mxnet_python:
        PYTHON["mxnet"] = args.mxnet_python
    if args.mxnet or args.mxnet_python:
        found = subprocess.run([PYTHON["mxnet"], "-c", "import mxnet; print(mxnet.__version__)"],
                               capture_output=True, text=True)
        if found.returncode != 0:
            print(f"mxnet: not importable by {PYTHON['mxnet']} (MXNet 1.9.1 for its own "
                  "profiler's overhead)")
        else:
            print(f"MXNet {found.stdout.strip()} ({PYTHON['mxnet']})")
            if args.design == "steps":
                res = run_steps("cnn", ["all"], rounds, args.steps, args.engine, "mxnet")
                cpu = res["all"]["cpu"]
            else:
                per = {m: [_run("cnn", m, args.steps, args.engine, "mxnet")
                           for _ in range(rounds)] for m in ("off", "all")}
                cpu = [r["cpu_ms"] / b["cpu_ms"] for r, b in zip(per["all"], per["off"])]
            print(f"MXNet's own profiler on the CNN, all modes: CPU {_spread(cpu)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

"""What profiling costs a real training step: three jobs, profiling off, each mode, all.

Jobs (Gluon, imperative, SGD, the engine's defaults):
* ``cnn``: the profiler guide's CNN (Conv 20, pool, Conv 50, pool, Dense 512, Dense 10) on
  batch 64 of 1x28x28;
* ``mlp``: the heavy-Dense MLP of the known-answer tests (64 -> 512 -> 4096 -> 10, batch 64);
* ``custom``: a Dense, a custom operator whose forward and backward run numpy (about
  1 ms each), a Dense (batch 64).

Each (job, mode) runs in a process of its own: 3 warm-up steps unprofiled, then the
profiler set to the mode and started, ``--steps`` steps, each ended by ``waitall``;
the CPU time of the process (``time.process_time``, steadier than wall time on a shared
VM) and the wall time per step, and the events recorded. ``all-nolines`` is ``all``
without the Python-line sampler: the sampler's own share is ``all`` against it.

The estimator: modes alternate within each round, ``--rounds`` rounds, and each round
starts at the next mode (off, operators, api, ... then operators, api, ..., off), so no
mode always runs right after ``off`` or at the same place in the round. A mode's figure
is the median over the rounds of its CPU time per step over ``off``'s in the same round
(paired: a slow phase of the machine moves both), with the range and the interquartile
range of those ratios. A paired ratio carries the noise of two runs: on the quiet VM a
single mode moved +-4% between runs (docs/lines.md), which is why a mode whose
instructions add 0.2% (``bench_real_instructions.py``) can read x1.03 with a range of
[0.97, 1.13]; more rounds narrow the interquartile range, not the noise of a run.
With MXNet 1.9.1 importable as ``mxnet`` (``--mxnet``), its own profiler's overhead on
the CNN is measured the same way.

    python benchmarks/bench_real_overhead.py [--jobs cnn,mlp,custom] [--rounds 7]
        [--steps 20] [--engine ThreadedEngine] [--json out.json] [--mxnet]

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
    """One measurement, in this process: prints a JSON line."""
    if which == "mxnet":
        import mxnet as mx
    else:
        import xprof.runtime as mx
    step = _build(mx, job)
    for _ in range(3):
        step()
    cfg = None if MODES[mode] is None else dict(MODES[mode])
    if cfg is not None:
        if cfg.pop("_no_lines", False):   # (read when profiling starts)
            os.environ["XPROF_PROFILER_SAMPLE_INTERVAL_MS"] = "0"
        mx.profiler.set_config(aggregate_stats=False, filename=os.devnull if which == "mxnet"
                               else os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                 f"bench-real-{os.getpid()}.json"), **cfg)
        mx.profiler.set_state("run")
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(steps):
        step()
    c1, t1 = time.process_time(), time.perf_counter()
    events = None
    if cfg is not None:
        mx.profiler.set_state("stop")
        if which != "mxnet":
            from xprof.runtime.profiler import session
            events = session.event_count()
    print(json.dumps({"cpu_ms": (c1 - c0) * 1000 / steps, "wall_ms": (t1 - t0) * 1000 / steps,
                      "events": events}))
    os._exit(0)   # (no dump at exit: the step's cost is what is measured)


def _run(job, mode, steps, engine, which="xprof"):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env["XPROF_ENGINE_TYPE"] = engine
    env["MXNET_ENGINE_TYPE"] = engine
    out = subprocess.run([sys.executable, __file__, "--child", job, mode, str(steps), which],
                         capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=4)
    ap.add_argument("--jobs", default="cnn,mlp,custom")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--engine", default="ThreadedEngine")
    ap.add_argument("--json", default=None)
    ap.add_argument("--mxnet", action="store_true")
    args = ap.parse_args()
    if args.child:
        job, mode, steps, which = args.child
        return child(job, mode, int(steps), which)
    modes = args.modes.split(",")
    results = {}
    for job in args.jobs.split(","):
        per = {m: [] for m in modes}
        for r in range(args.rounds):
            k = r % len(modes)   # each round starts at the next mode (see the docstring)
            for m in modes[k:] + modes[:k]:
                per[m].append(_run(job, m, args.steps, args.engine))
        base = per["off"]
        print(f"{job}: {args.steps} steps, {args.rounds} rounds, {args.engine}; "
              f"off: CPU {statistics.median(r['cpu_ms'] for r in base):.2f} ms/step, wall "
              f"{statistics.median(r['wall_ms'] for r in base):.2f} ms/step")
        results[job] = {}
        for m in modes:
            if m == "off":
                continue
            cpu = [r["cpu_ms"] / b["cpu_ms"] for r, b in zip(per[m], base)]
            wall = [r["wall_ms"] / b["wall_ms"] for r, b in zip(per[m], base)]
            ev = per[m][0]["events"]
            results[job][m] = {"cpu": cpu, "wall": wall, "events": ev}
            q = statistics.quantiles(cpu, n=4, method="inclusive") if len(cpu) > 1 else cpu * 3
            print(f"  {m:11s} CPU x{statistics.median(cpu):.3f} [{min(cpu):.3f}, "
                  f"{max(cpu):.3f}] IQR [{q[0]:.3f}, {q[2]:.3f}]  wall "
                  f"x{statistics.median(wall):.3f} [{min(wall):.3f}, {max(wall):.3f}]  "
                  f"{ev} events")
        sys.stdout.flush()
    if args.mxnet:
        try:
            import mxnet  # noqa: F401
        except ImportError:
            print("mxnet: not importable here (MXNet 1.9.1 for its own profiler's overhead)")
        else:
            per = {m: [_run("cnn", m, args.steps, args.engine, "mxnet")
                       for _ in range(args.rounds)] for m in ("off", "all")}
            cpu = [r["cpu_ms"] / b["cpu_ms"] for r, b in zip(per["all"], per["off"])]
            print(f"MXNet's own profiler on the CNN, all modes: CPU x{statistics.median(cpu):.3f} "
                  f"[{min(cpu):.3f}, {max(cpu):.3f}]")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

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
VM) and the wall time per step, and the events recorded. Modes alternate within each
round (off, operators, api, memory, all, ...), ``--rounds`` rounds; the figure of a mode
is the median over the rounds of its ratio to ``off`` in the same round, with the range.
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
    cfg = MODES[mode]
    if cfg is not None:
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
        for _ in range(args.rounds):
            for m in modes:
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
            print(f"  {m:10s} CPU x{statistics.median(cpu):.3f} [{min(cpu):.3f}, "
                  f"{max(cpu):.3f}]  wall x{statistics.median(wall):.3f} [{min(wall):.3f}, "
                  f"{max(wall):.3f}]  {ev} events")
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

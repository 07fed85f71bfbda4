"""``xprof explain --what-if`` against ``xprof run --slow``: predicted and measured.

``--design steps`` (the default): for each job and engine, a run as it is picks the three
ops with most run time on the critical path and one op off it; then, per op, ``--runs``
runs (default 3) of ``xprof run --slow OP=2x --slow-alternate``, which slows every other
step. Per run, the measured change is the median slowed step less the median plain one,
and the predicted change the median over the plain steps of the step replayed with
``OP=2x`` less the step replayed as recorded (``whatif.alternate_check``); the table
holds the medians over the runs, held to max(15% of the measured change, 3% of the
step). Why within one run: on a shared VM the speed of a process differs from the
next one's by more than many of these changes (unchanged runs of one job: memory-bound
ops 2-5x apart, steps 16-23 ms), while steps of one process agree within a few percent.

``--design processes``: for each job and engine, ``--runs`` rounds (default 5), each a run as it is (the
baseline) followed by one run per op with ``--slow OP=2x``: the replay's error on each
baseline (replayed wall against recorded), and for the three ops with most run time on
the critical path and one op off it (the largest op whose time is not on the path), the
change of wall time the replay predicts for ``OP=2x`` (the median over the baselines)
against the change measured (the median over the rounds of the slowed wall minus the
same round's baseline wall: paired, so a drift of the machine cancels). The agreement asked for is within max(15%
of the measured change, 3% of wall); the off-path op should predict and measure no
change beyond that.

    python benchmarks/bench_whatif.py [--design steps|processes] [--runs 3]
        [--jobs mlp,hybrid,module,cnn,custom] [--engines ThreadedEngine,NaiveEngine]
        [--steps 40] [--json out.json]

A measurement, not a test: run it on a quiet machine (the line sampler off, one BLAS
thread, as the CI test does).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOBS = {
    "mlp": [str(ROOT / "tests/jobs/gluon_mlp.py")],
    "hybrid": [str(ROOT / "tests/jobs/gluon_mlp.py"), "--hybridize"],
    "module": [str(ROOT / "tests/jobs/module_mlp.py")],
    "cnn": [str(ROOT / "sample_scripts/train_cnn_profile.py"), "--output", "{tmp}/own.json"],
    "custom": [str(ROOT / "tests/jobs/blocked_waits.py"), "--mode", "custom"],
}
STEPPED = {   # the jobs with --steps profiled steps, each ended by waitall
    "mlp": [str(ROOT / "tests/jobs/gluon_mlp.py"), "--warmup", "2", "--steps", "{n}"],
    "hybrid": [str(ROOT / "tests/jobs/gluon_mlp.py"), "--hybridize", "--warmup", "2",
               "--steps", "{n}"],
    "module": [str(ROOT / "tests/jobs/module_mlp.py"), "--batches", "{n}", "--sync-batches"],
    "cnn": [str(ROOT / "sample_scripts/train_cnn_profile.py"), "--iterations", "{n}",
            "--samples", "{samples}", "--output", "{tmp}/own.json"],
    "custom": [str(ROOT / "tests/jobs/blocked_waits.py"), "--mode", "custom", "--rounds",
               "{n}", "--step-sync"],
}
ENV = {"XPROF_PROFILER_SAMPLE_INTERVAL_MS": "0", "XPROF_BLAS_NUM_THREADS": "1"}


def run(argv, out, engine, slow=None, alternate=False):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
    env.update(ENV, XPROF_ENGINE_TYPE=engine)
    cmd = [sys.executable, "-m", "xprof.mxcli", "run", "-q", "-o", str(out)]
    if slow:
        cmd += ["--slow", slow] + (["--slow-alternate"] if alternate else [])
    argv = [a.replace("{tmp}", str(Path(out).parent)) for a in argv]
    res = subprocess.run(cmd + argv, capture_output=True, text=True, env=env, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd + argv)}: exit {res.returncode}\n{res.stderr[-2000:]}")
    return out


def measure(job, engine, runs, tmp):
    from xprof.mxcli.analysis import explain as ex, replay as rp, whatif as wi
    from xprof.traces import whatif as grammar

    def base_run(k):
        path = run(JOBS[job], Path(tmp) / f"{job}-{engine}-base{k}.json", engine)
        a = ex.analyze(str(path), layers=True)
        m = rp.model_of(a.tl, a.graph, a.layers)
        return a, m, rp.replay(m)

    base = [base_run(0)]
    ops, off = _targets(base[0][0])
    if off is not None:
        ops.append(off)
    # rounds: a baseline run, then each op slowed, one after the other, so a drift of
    # the machine falls on both sides; the measured change is the median over the
    # rounds of (slowed wall - the same round's baseline wall)
    slowed = {spec: [] for spec in ops}
    for k in range(runs):
        if k:
            base.append(base_run(k))
        for spec in ops:
            path = run(JOBS[job], Path(tmp) / f"{job}-{engine}-slow{k}.json", engine,
                       spec + "=2x")
            slowed[spec].append(ex.analyze(str(path)).wall / 1e6)
    walls = [a.wall / 1e6 for a, _, _ in base]
    rows = []
    for spec in ops:
        predicted = statistics.median(
            wi.predict(m, [grammar.parse(spec + "=2x")], r)[0]["delta_ms"]
            for _, m, r in base)
        measured = statistics.median(s - b for s, b in zip(slowed[spec], walls))
        bound = max(0.15 * abs(measured), 0.03 * statistics.median(walls))
        rows.append({"op": spec, "on_path": spec != off, "predicted_ms": round(predicted, 3),
                     "measured_ms": round(measured, 3), "bound_ms": round(bound, 3),
                     "ok": abs(predicted - measured) <= bound})
    errors = [100 * (r.wall - a.wall) / a.wall for a, _, r in base]
    return {"job": job, "engine": engine, "wall_ms": [round(w, 3) for w in walls],
            "replay_error_pct": [round(e, 2) for e in errors], "ops": rows}


def slowed_starts(path):
    """The start (ns, as the read model has it) of each event the run marked slowed."""
    with open(path, "rb") as f:
        events = json.load(f)["traceEvents"]
    return [round(e["ts"] * 1000) for e in events if "slowed_ns" in (e.get("args") or {})]


def _targets(a0):
    """The three ops with most run time on the critical path (a custom op's Python: the
    custom op) and one op off it."""
    ops = []
    for name, _ in a0.top_ops(10):
        spec = name
        if name.endswith("::pure_python"):
            spec = "custom:" + name.split("::")[0].removeprefix("_backward_")
        if spec not in ops:
            ops.append(spec)
        if len(ops) == 3:
            break
    from xprof.mxcli.analysis import whatif as wi

    return ops, wi.off_path(a0)


def measure_steps(job, engine, runs, tmp, steps):
    """``--design steps``: per op, ``runs`` runs slowing every other step."""
    from xprof.mxcli.analysis import explain as ex, replay as rp, whatif as wi

    argv = [a.replace("{n}", str(steps)).replace("{samples}", str(64 * (steps + 1)))
            for a in STEPPED[job]]
    a0 = ex.analyze(str(run(argv, Path(tmp) / f"{job}-{engine}-plain.json", engine)),
                    layers=True)
    ops, off = _targets(a0)
    rows = []
    for spec in ops + ([off] if off else []):
        checks = []
        for k in range(runs):
            path = run(argv, Path(tmp) / f"{job}-{engine}-alt{k}.json", engine,
                       spec + "=2x", alternate=True)
            a = ex.analyze(str(path), layers=True)
            model = rp.model_of(a.tl, a.graph, a.layers)
            checks.append(wi.alternate_check(model, spec + "=2x", slowed_starts(path)))
        checks = [c for c in checks if c is not None]
        if not checks:
            rows.append({"op": spec, "on_path": spec != off, "ok": None})
            continue
        predicted = statistics.median(c["predicted_ms"] for c in checks)
        measured = statistics.median(c["measured_ms"] for c in checks)
        step = statistics.median(c["step_ms"] for c in checks)
        bound = max(0.15 * abs(measured), 0.03 * step)
        rows.append({"op": spec, "on_path": spec != off, "step_ms": round(step, 3),
                     "predicted_ms": round(predicted, 3), "measured_ms": round(measured, 3),
                     "bound_ms": round(bound, 3), "ok": abs(predicted - measured) <= bound,
                     "runs": checks})
    return {"job": job, "engine": engine, "design": "steps",
            "wall_ms": [round(a0.wall / 1e6, 3)], "ops": rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--design", choices=("steps", "processes"), default="steps")
    ap.add_argument("--runs", type=int, default=None,
                    help="runs per op (steps: 3) or rounds (processes: 5)")
    ap.add_argument("--steps", type=int, default=40, help="profiled steps (design steps)")
    ap.add_argument("--jobs", default=",".join(JOBS))
    ap.add_argument("--engines", default="ThreadedEngine,NaiveEngine")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for job in args.jobs.split(","):
            for engine in args.engines.split(","):
                if args.design == "steps":
                    res = measure_steps(job, engine, args.runs or 3, tmp, args.steps)
                    print(f"{job:7s} {engine:15s} (per step, {args.steps} steps, every "
                          f"other slowed)")
                else:
                    res = measure(job, engine, args.runs or 5, tmp)
                    print(f"{job:7s} {engine:15s} wall "
                          f"{statistics.median(res['wall_ms']):8.1f} ms  replay error "
                          f"{res['replay_error_pct']} %")
                out.append(res)
                for r in res["ops"]:
                    if r["ok"] is None:
                        print(f"    {r['op']:32s} no run with steps both ways")
                        continue
                    step = f"  step {r['step_ms']:7.2f} ms" if "step_ms" in r else ""
                    print(f"    {r['op']:32s} {'on ' if r['on_path'] else 'off'} path{step}  "
                          f"predicted {r['predicted_ms']:+9.2f} ms  measured "
                          f"{r['measured_ms']:+9.2f} ms  bound {r['bound_ms']:7.2f}  "
                          f"{'ok' if r['ok'] else 'OFF'}")
                sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

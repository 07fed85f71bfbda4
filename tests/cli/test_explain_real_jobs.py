"""``xprof explain`` on real training jobs, against answers known by construction.

The jobs in ``tests/jobs`` are built so that the answer is not in doubt: one heavy Dense
layer holds nearly all the arithmetic (so its ``FullyConnected`` / backward bounds each
step), a loop sleeping 150 ms per step in Python (so Python sets the pace), a main
thread blocked in ``waitall`` and a custom op blocked in ``wait_to_read`` inside its
``forward`` (both timed by the script with ``perf_counter``). Each job runs once per
engine under ``xprof run`` (module-scoped cache), then ``xprof explain --format json
--mark-trace`` reads its trace; the asserts compare the document with the script's own
measurements. Both engines where the job applies: ``NaiveEngine`` runs every op inline
on the pushing thread, so its path has no queue or hand-off and its waits last ~0.
"""
from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from cli_helpers import cli
from test_real_jobs_deps import run_job

JOBS = Path(__file__).resolve().parents[2] / "tests" / "jobs"
THREADED, NAIVE = "ThreadedEngine", "NaiveEngine"
FC = ("FullyConnected", "_backward_FullyConnected")

HEAVY = {   # job -> (argv per engine, the heavy layer's name in args.name)
    "imperative": ([str(JOBS / "gluon_mlp.py")], "mlp_heavy"),
    "hybridized": ([str(JOBS / "gluon_mlp.py"), "--hybridize"], "mlp_heavy"),
    "module_fit": ([str(JOBS / "module_mlp.py")], "heavy"),
    # MXNet 2's style (np arrays, forward(), no prefixes): the heavy layer is the second
    # Dense made in the process; hybridized, its graph is recorded from the first call
    "np_imperative": ([str(JOBS / "gluon2_mlp.py")], "dense1"),
    "np_hybridized": ([str(JOBS / "gluon2_mlp.py"), "--hybridize"], "dense1"),
}
# NaiveEngine runs the same arithmetic ~3x slower here (BLAS on the pushing thread
# beside the interpreter): fewer steps keep each run near a second. A larger batch keeps
# the heavy layer's products well above its weight's update (whose cost does not grow
# with the batch): at batch 64 the 8 MB sgd_update came within reach of them in a run of
# 4 steps (page faults of the first steps) and topped the path once in Gluon, once in
# Module.fit (CI, 24 updates 17.9 ms against 12 FullyConnected 6.0 ms)
NAIVE_ARGS = {"gluon_mlp.py": ["--steps", "4", "--batch-size", "256"],
              "gluon2_mlp.py": ["--steps", "4", "--batch-size", "256"],
              "module_mlp.py": ["--batches", "4", "--batch-size", "256"]}


class Run:
    """One job under ``xprof run`` and its explain document."""

    def __init__(self, argv, engine, tmp):
        # The jobs time their waits with perf_counter (the ground truth). The line
        # sampler is off: each of its ticks is a GIL hand-off, and on a loaded machine
        # one landing in a timed asnumpy copy adds milliseconds to that figure, none of
        # them a wait (sampling is tested in test_stats_lines.py)
        _, res = run_job(argv, tmp, env={"XPROF_ENGINE_TYPE": engine,
                                         "XPROF_PROFILER_SAMPLE_INTERVAL_MS": "0"})
        self.truth = json.loads([ln for ln in res.stdout.splitlines()
                                 if ln.startswith("{")][-1])
        marked = tmp / "marked.json"
        out = cli("explain", tmp / "profile.json", "--format", "json", "--mark-trace", marked)
        assert out.exit_code == 0, out.stderr
        self.doc = json.loads(out.stdout)
        self.events = json.loads(marked.read_text())["traceEvents"]
        self.text = cli("explain", tmp / "profile.json").stdout

    @property
    def wall(self):
        return self.doc["wall_ms"]

    def thread(self, prefix):
        found = [t for n, t in self.doc["threads"].items() if n.startswith(prefix)]
        assert len(found) == 1, (prefix, list(self.doc["threads"]))
        return found[0]

    def path_ms_by_layer(self):
        """{(op name, layer name): ms on the path} from the marked trace."""
        out = collections.Counter()
        for e in self.events:
            args = e.get("args") or {}
            if "critical_path" in args:
                out[(e["name"], args.get("name"))] += args["critical_path"]
        return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cache = {}

    def get(argv, engine=THREADED):
        key = (tuple(argv), engine)
        if key not in cache:
            more = NAIVE_ARGS.get(Path(argv[0]).name, []) if engine == NAIVE else []
            if more and more[0] not in argv:
                argv = [*argv, *more]
            cache[key] = Run(argv, engine, tmp_path_factory.mktemp("job"))
        return cache[key]
    return get


def _consistent(r):
    """What every explain document must satisfy: the composition is the path, each
    thread's busy + blocked + idle is the wall time, the text shows the JSON's figures."""
    doc = r.doc
    assert set(doc["composition"]) == {"op_ms", "queue_ms", "handoff_ms", "python_ms",
                                       "blocked_ms"}
    assert sum(doc["composition"].values()) == pytest.approx(doc["critical_path_ms"], rel=0.01)
    assert [o["path_ms"] for o in doc["top_ops"]] == sorted(
        (o["path_ms"] for o in doc["top_ops"]), reverse=True)
    for name, t in doc["threads"].items():
        assert set(t) == {"busy_ms", "blocked_ms", "idle_ms"}
        assert sum(t.values()) == pytest.approx(r.wall, rel=0.03), name
        pct = lambda ms: f"{100 * ms / r.wall:5.1f}%"  # noqa: E731
        assert (f"busy {pct(t['busy_ms'])}  blocked {pct(t['blocked_ms'])}  "
                f"idle {pct(t['idle_ms'])}") in r.text, name


@pytest.mark.parametrize("engine", [THREADED, NAIVE])
@pytest.mark.parametrize("job", sorted(HEAVY))
def test_a_heavy_dense_layer_bounds_the_path(job, engine, run):
    argv, layer = HEAVY[job]
    r = run(argv, engine)
    _consistent(r)
    comp, wall = r.doc["composition"], r.wall
    top = r.doc["top_ops"][0]
    assert top["name"] in FC, r.doc["top_ops"][:3]
    # and the heavy layer's, not another Dense layer's
    (name, on), _ = r.path_ms_by_layer().most_common(1)[0]
    assert name in FC and (on or "").startswith(layer), r.path_ms_by_layer().most_common(3)
    assert comp["op_ms"] >= 0.5 * wall, comp
    assert comp["handoff_ms"] < 0.15 * wall, comp
    if engine == NAIVE:      # every op inline where it was pushed: nothing to hand off
        assert comp["queue_ms"] == 0 and comp["handoff_ms"] == 0, comp
        assert top["waited_for"] == "its push (main thread)"
    else:
        assert top["waited_for"] and top["calls"] >= 4


@pytest.mark.parametrize("engine", [THREADED, NAIVE])
def test_a_loop_sleeping_in_python_is_paced_by_python(engine, run):
    r = run([str(JOBS / "gluon_mlp.py"), "--sleep-ms", "150", "--steps", "3"], engine)
    _consistent(r)
    slept = r.truth["sleep_s"] * 1000
    py = r.doc["composition"]["python_ms"]
    assert slept >= 3 * 150
    if engine == THREADED:   # the engine runs each step while Python sleeps: 30 ms of ops
        assert py >= 0.5 * r.wall, r.doc["composition"]
    # (NaiveEngine runs the step inline before the sleep, ~3x slower here: its ops
    # may take more of the wall than the sleep; the sleep is still Python, whole)
    # each sleep is on the path whole: inside Python stretches of at least 150 ms (one
    # per step, or one for the whole loop when the wait after a sleep has nothing left)
    assert py >= 0.98 * slept, (py, slept)
    long_python = [s["dur"] / 1000 for s in r.doc["critical_path"]
                   if s["kind"] == "python" and s["dur"] >= 150_000 * 0.98]
    assert sum(long_python) >= 0.98 * slept, (long_python, slept)
    assert r.thread("main thread")["busy_ms"] >= slept * 0.98     # sleeping is not blocked


@pytest.mark.parametrize("engine", [THREADED, NAIVE])
def test_a_main_thread_blocked_in_waitall(engine, run):
    r = run([str(JOBS / "blocked_waits.py"), "--mode", "waitall"], engine)
    _consistent(r)
    measured = r.truth["main_blocked_s"] * 1000
    main = r.thread("main thread")
    assert main["blocked_ms"] == pytest.approx(measured, rel=0.05, abs=2.0)
    if engine == THREADED:   # the products ran on a worker while main waited
        assert measured >= 0.5 * r.wall
        assert r.doc["top_ops"][0]["name"] == "dot"


@pytest.mark.parametrize("engine", [THREADED, NAIVE])
def test_a_custom_op_blocked_in_wait_to_read(engine, run):
    r = run([str(JOBS / "blocked_waits.py"), "--mode", "custom"], engine)
    _consistent(r)
    forward = r.truth["forward_blocked_s"] * 1000
    main = r.truth["main_blocked_s"] * 1000
    blocked = r.thread("main thread")["blocked_ms"]
    if engine == THREADED:
        assert blocked == pytest.approx(main, rel=0.05, abs=2.0)
    else:   # the call ran where it was pushed: asnumpy only copies (its perf_counter
        # time is the copy's, ~1-2 ms, not a wait): never more blocked than that
        assert 0 <= blocked <= main + 0.5, (blocked, main)
    custom = [t for n, t in r.doc["threads"].items() if n.startswith("custom op")]
    if engine == THREADED:
        assert len(custom) == 1
        assert custom[0]["blocked_ms"] == pytest.approx(forward, rel=0.05, abs=2.0)
        assert forward >= 0.5 * r.wall        # the products ran while forward waited
        assert custom[0]["busy_ms"] < 0.2 * forward
        assert r.doc["top_ops"][0]["name"] == "Waiter::dot"
    else:   # the call runs inline, its sub-operators at their push: nothing waits, and
        # the job's perf_counter windows (a copy, a wait_to_read with nothing left) bound
        # the blocked time from above (on a busy machine they grow, it does not)
        total = sum(t["blocked_ms"] for t in custom) + r.thread("main thread")["blocked_ms"]
        assert 0 <= total <= forward + main + 0.5, (total, forward, main)

"""Hostile and careless inputs against the command line, counted: tracebacks, losses, hangs.

Issue #29 asked for the same attacks to be re-run before and after its fixes. This runs
them against the ``xprof`` of a given Python (a venv with xprof-mx installed), each in a
fresh process under a time limit, and classifies every run:

- ``ok``: the documented outcome (a refusal is one ``xprof: error:`` line and exit 2);
- ``traceback``: a Python traceback reached the terminal;
- ``loss``: an input was overwritten, or a run that said it succeeded left no profile;
- ``hang``: the run did not end within its limit;
- ``wrong``: it ended without a traceback but not as documented (exit code, page size).

Kinds: an output naming an input (same path, symlink, hard link; report, trace, merge,
explain --mark-trace, diff --report); every setting of ``runtime/_env.py:SETTINGS`` with
seven malformed values under ``xprof run``; gzip bodies cut or corrupted, in every reading
command; integers beyond 2^63 in dependency records and sync waits, in stats, explain,
--mark-trace, report and diff; a 10 MB event name in a report; ``xprof view`` with a
foreign Host, no token, NUL paths; one SIGTERM to a run whose custom op never returns.

Issue #40's rows: a later dump after a finished one (again, after ``dumps(reset=True)``,
the profiler guide's cells 8-9); a failed run over a good profile; malformed and unknown
settings under plain ``python``; a rank that raises, exits 3 or is killed, on 2 and 3
ranks, with a kvstore, without, and before it, and a launcher killed while ranks wait;
1 and 10 MB names in stats, diff, explain (output size, peak memory); reading commands
under a 400 MB and 1 GB memory limit; ``--fail-on op:NAME`` naming nothing and a diff
whose reader is killed; a full disk (``RLIMIT_FSIZE``); one or two signals to a run
with a stuck op (``--baseline`` too); a custom op's failing backward under
``Module.fit``; an unpicklable DataLoader sample.

    python benchmarks/attacks.py [--python PATH] [--only KIND] [--show-failures]

Prints one row per kind and the totals. Figures only: the tests under tests/cli hold
each rule.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

SETTING_NAMES = [
    "ENGINE_TYPE", "CPU_WORKER_NTHREADS", "ENGINE_INLINE_THRESHOLD", "ENGINE_EXIT_TIMEOUT",
    "BLAS_NUM_THREADS", "GC_TUNING", "MALLOC_TUNING", "EXEC_BULK_EXEC_INFERENCE",
    "EXEC_BULK_EXEC_TRAIN", "EXEC_BULK_EXEC_MAX_NODE_INFERENCE",
    "EXEC_BULK_EXEC_MAX_NODE_TRAIN", "EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD",
    "EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD", "CUSTOM_OP_NUM_THREADS", "CUSTOM_OP_MAX_IN_FLIGHT",
    "PROFILER_AUTOSTART", "PROFILER_MODE", "PROFILER_AGGREGATE_STATS", "UPDATE_ON_KVSTORE",
]
BAD_VALUES = ["abc", "-5", "1.5", "9" * 40, "0x10", "\u00e9", " 3 "]
HUGE = [2 ** 63, 2 ** 64, 2 ** 64 + 7, -(2 ** 63) - 1, 10 ** 30]

SCRIPT = '''
import xprof.runtime as mx
x = mx.nd.ones((50, 50))
for _ in range(3):
    y = (x + 1) * 2
    y.wait_to_read()
z = mx.nd.dot(y, x)
mx.nd.waitall()
'''

HANG_SCRIPT = '''
import threading
import xprof.runtime as mx

class Stuck(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        threading.Event().wait()

@mx.operator.register("Stuck")
class StuckProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Stuck()

y = mx.nd.Custom(mx.nd.ones((2, 2)), op_type="Stuck")
print("pushed", flush=True)
y.wait_to_read()   # blocks for ever: the SIGTERM arrives in the script, then the drain
'''


class Runner:
    def __init__(self, python, work, show):
        self.python = python
        self.work = work
        self.show = show
        self.counts = defaultdict(Counter)

    def env(self, extra=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("XPROF_", "MXNET_"))}
        env.update(extra or {})
        return env

    def xprof(self, args, timeout=120, env=None, cwd=None):
        try:
            p = subprocess.run([self.python, "-m", "xprof.mxcli", *args], capture_output=True,
                               text=True, timeout=timeout, env=self.env(env),
                               cwd=cwd or self.work, errors="replace")
            return p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            return None, "", ""

    def judge(self, kind, what, rc, err, ok, lost=False):
        """Classify one run: ``ok`` is whether the exit and output are as documented."""
        if rc is None:
            verdict = "hang"
        elif "Traceback (most recent call last)" in err:
            verdict = "traceback"
        elif lost:
            verdict = "loss"
        elif ok:
            verdict = "ok"
        else:
            verdict = "wrong"
        self.counts[kind][verdict] += 1
        if verdict != "ok" and self.show:
            tail = err.strip().splitlines()[-1:] if err else []
            print(f"    [{kind}] {verdict}: {what} (exit {rc}) {tail}")

    @staticmethod
    def refused(rc, err):
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        return rc == 2 and len(lines) == 1 and lines[0].startswith("xprof: ")


def make_trace(r):
    """A real xprof trace (dependency records, sync waits) written by the tested xprof."""
    script = os.path.join(r.work, "job.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    rc, _, err = r.xprof(["run", "-o", "base.json", script], timeout=300)
    if rc != 0:
        raise SystemExit(f"xprof run failed on the base job:\n{err[-2000:]}")
    return os.path.join(r.work, "base.json")


def attack_output_is_input(r, base):
    cases = [("report", lambda i, o: ["report", i, "-o", o]),
             ("trace", lambda i, o: ["trace", i, "-o", o]),
             ("merge", lambda i, o: ["trace", i, base, "-o", o]),
             ("mark-trace", lambda i, o: ["explain", i, "--mark-trace", o]),
             ("diff --report", lambda i, o: ["diff", base, i, "--report", o])]
    for name, argv in cases:
        for link in ("same", "symlink", "hardlink", "dot-path"):
            d = tempfile.mkdtemp(dir=r.work)
            src = os.path.join(d, "in.json")
            shutil.copy(base, src)
            before = open(src, "rb").read()
            out = {"same": src, "dot-path": os.path.join(d, ".", "in.json"),
                   "symlink": os.path.join(d, "link.json"),
                   "hardlink": os.path.join(d, "hard.json")}[link]
            if link == "symlink":
                os.symlink(src, out)
            elif link == "hardlink":
                os.link(src, out)
            rc, _, err = r.xprof(argv(src, out))
            lost = open(src, "rb").read() != before
            r.judge("output names an input", f"{name} {link}", rc, err,
                    r.refused(rc, err), lost)


def attack_settings(r):
    script = os.path.join(r.work, "job.py")
    for name in SETTING_NAMES:
        for value in BAD_VALUES:
            d = tempfile.mkdtemp(dir=r.work)
            prof = os.path.join(d, "p.json")
            rc, _, err = r.xprof(["run", "-o", prof, script], timeout=120,
                                 env={"XPROF_" + name: value}, cwd=d)
            lost = rc == 0 and not os.path.exists(prof)
            ok = (rc == 0 and os.path.exists(prof)) or r.refused(rc, err)
            r.judge("malformed setting", f"XPROF_{name}={value!r}", rc, err, ok, lost)


def _gzip_variants(base, work):
    raw = open(base, "rb").read()
    # pad with many more events so the body is well past the first MiB compressed
    doc = json.loads(raw)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    pad = [{"name": f"pad{i}", "ph": "X", "ts": i, "dur": 1, "pid": 0, "tid": 0,
            "args": {"k": os.urandom(24).hex()}} for i in range(60000)]
    big = json.dumps({"traceEvents": events + pad}).encode()
    data = gzip.compress(big)
    out = {}
    for label, blob in {"cut at half": data[:len(data) // 2],
                        "cut after 1 MiB": data[:(1 << 20) + 100],
                        "bytes flipped mid-body": data[:len(data) // 2] + bytes(
                            b ^ 0xFF for b in data[len(data) // 2:len(data) // 2 + 64])
                        + data[len(data) // 2 + 64:],
                        "garbage after the header": data[:10] + os.urandom(4096),
                        "trailer cut": data[:-4]}.items():
        p = os.path.join(work, re.sub(r"\W+", "_", label) + ".json.gz")
        with open(p, "wb") as f:
            f.write(blob)
        out[label] = p
    return out


def attack_gzip(r, base):
    for label, path in _gzip_variants(base, r.work).items():
        for argv in (["stats", path], ["explain", path], ["report", path, "-o",
                     os.path.join(r.work, "g.html")], ["trace", path, "-o",
                     os.path.join(r.work, "g.json")], ["validate", path],
                     ["diff", base, path]):
            rc, _, err = r.xprof(argv)
            r.judge("corrupt gzip", f"{argv[0]} {label}", rc, err, r.refused(rc, err))


def _huge_variants(base):
    doc = json.load(open(base))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    deps = [i for i, e in enumerate(events) if isinstance(e.get("args"), dict)
            and isinstance(e["args"].get("dep"), list)]
    waits = [i for i, e in enumerate(events) if isinstance(e.get("args"), dict)
             and "var" in e["args"]]
    for v in HUGE:
        for where, idx in (("dependency record", deps), ("sync wait", waits)):
            if not idx:
                continue
            copy = json.loads(json.dumps(doc))
            evs = copy["traceEvents"] if isinstance(copy, dict) else copy
            for n, i in enumerate(idx):
                args = evs[i]["args"]
                if where == "dependency record":
                    dep = args["dep"]
                    dep[n % len(dep)] = v
                else:
                    args["var"] = v if not isinstance(args["var"], list) else [v]
            yield f"{where} {v}", copy


def attack_huge_ints(r, base):
    for label, doc in _huge_variants(base):
        p = os.path.join(r.work, "huge.json")
        with open(p, "w") as f:
            json.dump(doc, f)
        for argv in (["stats", p], ["explain", p], ["explain", p, "--format", "json"],
                     ["explain", p, "--mark-trace", os.path.join(r.work, "m.json")],
                     ["report", p, "-o", os.path.join(r.work, "h.html")],
                     ["diff", base, p]):
            rc, _, err = r.xprof(argv)
            r.judge("integers beyond 2^63", f"{argv[0]} {' '.join(argv[2:3])} {label}",
                    rc, err, rc == 0)


def attack_huge_name(r, base):
    doc = json.load(open(base))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    events.append({"name": "<b>x</b>" * (10_000_000 // 8), "cat": "operator", "ph": "X",
                   "ts": 1, "dur": 5, "pid": 0, "tid": 0})
    p = os.path.join(r.work, "name.json")
    with open(p, "w") as f:
        json.dump(doc, f)
    page = os.path.join(r.work, "name.html")
    rc, _, err = r.xprof(["report", p, "-o", page])
    size = os.path.getsize(page) if os.path.exists(page) else 0
    r.judge("10 MB event name", f"report page {size} bytes", rc, err,
            rc == 0 and 0 < size < 2_000_000)


def _status(port, request):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        head = s.recv(4096).split(b"\r\n", 1)[0]
    return int(head.split()[1]) if head else 0


def attack_view(r, base):
    proc = subprocess.Popen([r.python, "-m", "xprof.mxcli", "view", "--no-browser", base],
                            env=r.env(), text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        err = proc.stderr.read()
        r.judge("view server", "start", proc.wait(), err, False)
        return
    port = int(m.group(1))
    checks = []
    for path in (b"/localtrace", b"/", b"/file_info"):
        checks.append((f"foreign Host {path.decode()}", 403, b"GET " + path +
                       b" HTTP/1.1\r\nHost: evil.example:%d\r\n\r\n" % port))
    checks.append(("no token /localtrace", 403,
                   b"GET /localtrace HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port))
    for path in (b"/%00", b"/a%00b.js", b"/x/%00/y"):
        checks.append((f"NUL in {path.decode()}", 400, b"GET " + path +
                       b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port))
    for what, want, req in checks:
        try:
            got = _status(port, req)
        except OSError as e:
            got = repr(e)
        r.judge("view server", f"{what}: {got}", 0, "", got == want, lost=(
            want == 403 and got == 200))
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = None
    r.judge("view server", "stderr after the requests", rc, proc.stderr.read(), True)


def attack_sigterm(r):
    script = os.path.join(r.work, "stuck.py")
    with open(script, "w") as f:
        f.write(HANG_SCRIPT)
    prof = os.path.join(r.work, "stuck.json")
    proc = subprocess.Popen([r.python, "-m", "xprof.mxcli", "run", "-o", prof, script],
                            env=r.env(), cwd=r.work, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()   # "pushed": the op is stuck and the script waits for it
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = None
    took = time.monotonic() - t0
    err = proc.stderr.read()
    r.judge("SIGTERM, op never returns", f"exit after {took:.1f} s", rc, err,
            took < 5 and os.path.exists(prof), lost=not os.path.exists(prof))


# -- issue #40's rows ----------------------------------------------------------------------
DUMPS = r"""
import json, sys
import xprof.runtime as mx
P = mx.profiler
how = sys.argv[1]
P.set_config(profile_all=True, aggregate_stats=True, continuous_dump=how == "guide",
             filename="p.json")
P.set_state("run")
x = mx.nd.ones((20, 20))
for _ in range(20):
    x = mx.nd.dot(x, x) * 0.01
x.wait_to_read()
P.set_state("stop")
P.dump()
first = len(json.load(open("p.json"))["traceEvents"])
if how == "twice":
    P.dump()
elif how == "reset":
    P.dumps(reset=True)
    P.dump()
else:   # the guide's cells 8 and 9
    P.set_state("run")
    P.set_state("stop")
    assert "dot" in P.dumps(), "dumps() lost the finished session's table"
    P.dump(finished=False)
print(first, len(json.load(open("p.json"))["traceEvents"]))
"""

FAILS = "import sys\nimport xprof.runtime as mx\nraise SystemExit('bad arguments: %r' % sys.argv[1:])\n"

RANK_JOB = r"""
import os, signal, sys, time
import xprof.runtime as mx
how, where = sys.argv[1], sys.argv[2]
rank = int(os.environ["RANK"])
def fail():
    if how == "raise":
        raise RuntimeError("rank 1 gives up")
    if how == "exit":
        sys.exit(3)
    if how == "hang":
        time.sleep(600)
    os.kill(os.getpid(), signal.SIGKILL)
if rank == 1 and where in ("nokv", "before"):
    fail()
kv = mx.kv.create("dist_sync") if where != "nokv" else None
if kv is not None:
    kv.init(0, mx.nd.zeros((100,)))
t0, step = time.monotonic(), 0
while time.monotonic() - t0 < 25:
    g = mx.nd.ones((100,))
    if kv is not None:
        kv.pushpull(0, g)
    g.wait_to_read()
    time.sleep(0.01)
    step += 1
    if rank == 1 and step == 3 and where == "kv":
        fail()
"""

FIT_JOB = r"""
import numpy as np
import xprof.runtime as mx
class Loss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])
    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise ValueError("backward is broken")
@mx.operator.register("BadLoss")
class LossProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)
    def list_arguments(self):
        return ["data", "label"]
    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []
    def create_operator(self, ctx, shapes, dtypes):
        return Loss()
X = np.random.rand(100, 5).astype("float32")
Y = np.random.randint(0, 3, 100).astype("float32")
out = mx.sym.Custom(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3),
                    mx.sym.Variable("softmax_label"), op_type="BadLoss")
mx.mod.Module(out).fit(mx.io.NDArrayIter(X, Y, batch_size=10), num_epoch=2)
print("fit returned")
"""

LOADER_JOB = r"""
import numpy as np
from xprof.runtime import gluon
class DS(gluon.data.Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return np.array([lambda: i], dtype=object)
list(gluon.data.DataLoader(DS(), batch_size=4, num_workers=2))
"""


def _python(r, body, args=(), env=None, timeout=120, cwd=None, preexec=None):
    d = cwd or tempfile.mkdtemp(dir=r.work)
    script = os.path.join(d, "s.py")
    with open(script, "w") as f:
        f.write(body)
    try:
        p = subprocess.run([r.python, script, *args], capture_output=True, text=True,
                           timeout=timeout, env=r.env(env), cwd=d, errors="replace",
                           preexec_fn=preexec)
        return p.returncode, p.stdout, p.stderr, d
    except subprocess.TimeoutExpired:
        return None, "", "", d


def attack_dumps(r):
    """A later dump never removes events written before, and the file stays JSON."""
    for how in ("twice", "reset", "guide"):
        for _ in range(3):
            rc, out, err, _ = _python(r, DUMPS, [how])
            try:
                first, last = map(int, out.split()[-2:])
            except ValueError:
                first = last = 0
            r.judge("a later dump", how, rc, err, rc == 0 and last >= first > 1,
                    lost=rc == 0 and last < first)


def attack_failed_run(r):
    """A failed run beside a good profile writes <name>.failed.json."""
    for args in ([], ["--x"], ["-q"]):
        d = tempfile.mkdtemp(dir=r.work)
        shutil.copy(os.path.join(r.work, "base.json"), os.path.join(d, "good.json"))
        before = open(os.path.join(d, "good.json"), "rb").read()
        with open(os.path.join(d, "fails.py"), "w") as f:
            f.write(FAILS)
        rc, _, err = r.xprof(["run", *[a for a in args if a == "-q"], "-o", "good.json",
                              "fails.py", *[a for a in args if a != "-q"]], cwd=d)
        lost = open(os.path.join(d, "good.json"), "rb").read() != before
        ok = rc == 1 and os.path.exists(os.path.join(d, "good.failed.json")) and \
            "good.json is unchanged" in err
        r.judge("failed run over a profile", " ".join(args) or "plain", rc, err, ok, lost)


def attack_settings_python(r):
    """Malformed values under plain python: one line, no traceback; unknown names: one
    warning naming the closest."""
    for name in SETTING_NAMES:
        for value in ("abc", "9" * 40):
            rc, _, err, _ = _python(r, "import xprof.runtime\n", env={"XPROF_" + name: value})
            lines = [ln for ln in err.splitlines() if ln.strip()]
            ok = rc == 0 and not lines or (rc == 1 and len(lines) == 1
                                           and lines[0].startswith("xprof: error: "))
            r.judge("malformed setting, python", f"XPROF_{name}={value!r}", rc, err, ok)
    for var, closest in (("XPROF_ENGIN_TYPE", "XPROF_ENGINE_TYPE"),
                         ("XPROF_CPU_WORKER_NTHREAD", "XPROF_CPU_WORKER_NTHREADS"),
                         ("XPROF_NOSUCHSETTING", "")):
        rc, out, err, _ = _python(r, "import xprof.runtime as mx\nprint(mx.engine.engine_type())\n",
                                  env={var: "NaiveEngine"})
        warned = [ln for ln in err.splitlines() if ln.startswith("xprof: warning: ")]
        r.judge("unknown setting", var, rc, err,
                rc == 0 and len(warned) == 1 and var in warned[0] and closest in warned[0])


def attack_ranks(r, quick=False):
    """A failing rank ends the job named, every other rank's trace written, nothing left
    behind; a rank hung before its kvstore with the launcher killed."""
    hows = ("raise", "exit", "SIGKILL")
    for nproc in (2, 3):
        for where in ("kv", "nokv", "before"):
            for how in hows:
                d = tempfile.mkdtemp(dir=r.work)
                with open(os.path.join(d, "job.py"), "w") as f:
                    f.write(RANK_JOB)
                t0 = time.monotonic()
                rc, _, err = r.xprof(["run", "--nproc", str(nproc), "-q", "-o", "p.json",
                                      "job.py", how, where], cwd=d, timeout=120)
                took = time.monotonic() - t0
                named = f"xprof: rank 1 failed (" in err
                traces = [os.path.exists(os.path.join(d, f"p.rank{k}.json"))
                          for k in range(nproc) if k != 1]
                r.judge("rank fails", f"{nproc} ranks, {how} {where}: {took:.1f} s", rc,
                        _without_script_tracebacks(err, "job.py"),
                        rc not in (None, 0) and named and took < 20 and all(traces),
                        lost=not all(traces))
    for where in ("kv", "before"):
        d = tempfile.mkdtemp(dir=r.work)
        with open(os.path.join(d, "job.py"), "w") as f:
            f.write(RANK_JOB)
        job = subprocess.Popen([r.python, "-m", "xprof.mxcli", "run", "--nproc", "2", "-q",
                                "-o", "p.json", "job.py", "hang", where], cwd=d, env=r.env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(6)    # the ranks started (and, "before", rank 0 waits in MPI's start)
        job.kill()
        job.wait()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _job_processes(d):
            time.sleep(0.2)
        left = _job_processes(d)
        traces = [os.path.exists(os.path.join(d, f"p.rank{k}.json")) for k in (0, 1)]
        r.judge("launcher killed", where, 0 if not left else None, "",
                not left and all(traces), lost=not all(traces))
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _without_script_tracebacks(err, script):
    """``err`` without the tracebacks that run through ``script`` (the job's own errors,
    printed as Python prints them: a rank's exception, or the error another rank's
    failure raised at its kvstore wait); any other traceback stays and counts."""
    blocks = err.split("Traceback (most recent call last)")
    kept = [blocks[0]] + [b for b in blocks[1:] if f'{script}", line' not in b]
    return "Traceback (most recent call last)".join(kept)


def _job_processes(folder):
    mark = folder.encode()
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read()
                with open(f"/proc/{entry}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if mark in cmd and state != "Z":
                out.append(int(entry))
    try:   # (ranks run in the job's folder: their cwd names it)
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in out and int(entry) != os.getpid():
                try:
                    if os.readlink(f"/proc/{entry}/cwd") == folder:
                        out.append(int(entry))
                except OSError:
                    pass
    except OSError:
        pass
    return out


def _peak_kb(r, argv, limit_kb=None):
    """``xprof ARGV``'s exit, stderr, stdout size and peak memory (kB), in a child that
    measures its own child."""
    code = ("import resource, subprocess, sys\n"
            "lim = int(sys.argv[1])\n"
            "def pre():\n"
            "    if lim:\n"
            "        resource.setrlimit(resource.RLIMIT_AS, (lim * 1024, lim * 1024))\n"
            "p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,"
            " preexec_fn=pre)\n"
            "sys.stderr.buffer.write(p.stderr)\n"
            "print(p.returncode, len(p.stdout), "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    try:
        p = subprocess.run([r.python, "-c", code, str(limit_kb or 0), r.python, "-m",
                            "xprof.mxcli", *argv], capture_output=True, text=True,
                           timeout=600, env=r.env(), cwd=r.work, errors="replace")
        rc, size, peak = map(int, p.stdout.split())
        return rc, p.stderr, size, peak
    except (subprocess.TimeoutExpired, ValueError):
        return None, "", 0, 0


def attack_long_names(r, base):
    doc = json.load(open(base))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    for mb in (1, 10):
        copy = list(events) + [{"name": "x" * (mb * 1_000_000), "cat": "operator", "ph": "X",
                                "ts": 1, "dur": 5, "pid": 0, "tid": 0}]
        p = os.path.join(r.work, f"name{mb}.json")
        with open(p, "w") as f:
            json.dump({"traceEvents": copy}, f)
        for argv in (["stats", p], ["stats", p, "--flat"], ["diff", base, p], ["diff", p, p],
                     ["explain", p]):
            rc, err, size, peak = _peak_kb(r, argv)
            r.judge("long name", f"{argv[0]} {mb} MB: {size // 1000} kB out, "
                                 f"{peak // 1000} MB peak", rc, err,
                    rc == 0 and size < 3 * mb * 1_000_000 and peak < 1_000_000)


def attack_memory_limit(r):
    big = os.path.join(r.work, "big.json")
    events = [{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "p"}}]
    events += [{"name": f"op{i % 500}", "cat": "operator", "ph": "X", "ts": i * 10, "dur": 5,
                "pid": 0, "tid": i % 4, "args": {"dep": [i, i, 0, i + 1]}}
               for i in range(400_000)]
    with open(big, "w") as f:
        json.dump({"traceEvents": events}, f)
    for argv in (["explain", big], ["trace", big, "-o", os.path.join(r.work, "b2.json")],
                 ["report", big, "-o", os.path.join(r.work, "b2.html")], ["diff", big, big],
                 ["stats", big]):
        for limit in (400_000, 1_000_000):
            rc, err, _, _ = _peak_kb(r, argv, limit)
            r.judge("memory limit", f"{argv[0]} at {limit // 1000} MB", rc, err,
                    rc == 0 or r.refused(rc, err))


def attack_gate_and_readers(r, base):
    rc, _, err = r.xprof(["diff", base, base, "--fail-on", "op:no_such_op:10%"])
    r.judge("diff gate", "--fail-on op:NAME matching nothing", rc, err, r.refused(rc, err))
    big = os.path.join(r.work, "big.json")
    if not os.path.exists(big):
        return
    for _ in range(3):   # the reader of A killed mid-read
        proc = subprocess.Popen([r.python, "-m", "xprof.mxcli", "diff", big, big,
                                 "--fail-on", "10%"], env=r.env(), cwd=r.work, text=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        child = None
        deadline = time.monotonic() + 60
        while child is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
                    kids = f.read().split()
                child = int(kids[0]) if kids else None
            except OSError:
                pass
            time.sleep(0.05)
        time.sleep(0.3)
        if child is not None:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        try:
            rc = proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        err = proc.stderr.read()
        r.judge("diff gate", "its reader killed", rc, err,
                r.refused(rc, err) or (rc == 0 and child is None))


def attack_disk_full(r):
    def limited():
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
    for own in (False, True):
        d = tempfile.mkdtemp(dir=r.work)
        body = ("import xprof.runtime as mx\n"
                + ("mx.profiler.set_config(filename='own.json')\nmx.profiler.set_state('run')\n"
                   if own else "")
                + "x = mx.nd.ones((3, 3))\nfor _ in range(30):\n    x = x + 1\nx.wait_to_read()\n")
        with open(os.path.join(d, "s.py"), "w") as f:
            f.write(body)
        try:
            p = subprocess.run([r.python, "-m", "xprof.mxcli", "run", "-o", "out.json", "s.py"],
                               capture_output=True, text=True, timeout=120, env=r.env(), cwd=d,
                               preexec_fn=limited, errors="replace")
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = None, ""
        want = "own.json" if own else "out.json"
        r.judge("full disk", f"the {'script' if own else '-o'} file", rc, err,
                r.refused(rc, err) and want in err)


def attack_signals(r):
    stuck = os.path.join(r.work, "stuck.py")
    with open(stuck, "w") as f:
        f.write(HANG_SCRIPT)
    base = os.path.join(r.work, "base.json")
    for sig, n, baseline in ((signal.SIGTERM, 1, True), (signal.SIGTERM, 2, True),
                             (signal.SIGINT, 1, False), (signal.SIGINT, 1, True)):
        d = tempfile.mkdtemp(dir=r.work)
        prof = os.path.join(d, "s.json")
        argv = ["run", "-o", prof] + (["--baseline", base] if baseline else []) + [stuck]
        proc = subprocess.Popen([r.python, "-m", "xprof.mxcli", *argv], env=r.env(), cwd=d,
                                text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.readline()
        t0 = time.monotonic()
        for _ in range(n):
            proc.send_signal(sig)
            time.sleep(0.3)
        try:
            _, err = proc.communicate(timeout=60)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            rc = None
        took = time.monotonic() - t0
        if sig == signal.SIGINT and "\nKeyboardInterrupt" in err:   # the script's own, as
            err = err.replace("Traceback (most recent call last)", "")  # python prints it
        ok = took < 5 and os.path.exists(prof) and (not baseline or "diff of" in err)
        r.judge("one signal ends a run", f"{signal.Signals(sig).name} x{n}"
                f"{' --baseline' if baseline else ''}: {took:.1f} s", rc, err, ok,
                lost=not os.path.exists(prof))


def attack_errors_surface(r):
    rc, out, err, _ = _python(r, FIT_JOB)
    r.judge("errors surface", "custom op backward under Module.fit", rc if rc != 1 else 0,
            "", rc == 1 and "fit returned" not in out and "backward is broken" in err)
    rc, out, err, _ = _python(r, LOADER_JOB)
    r.judge("errors surface", "unpicklable DataLoader sample", rc if rc != 1 else 0, "",
            rc == 1 and "do not pickle" in err)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--only", default=None, help="comma-separated kinds (see main)")
    ap.add_argument("--show-failures", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="xprof-attacks-")
    r = Runner(args.python, work, args.show_failures)
    base = make_trace(r)
    kinds = {"output": lambda: attack_output_is_input(r, base),
             "settings": lambda: attack_settings(r),
             "gzip": lambda: attack_gzip(r, base),
             "huge-ints": lambda: attack_huge_ints(r, base),
             "huge-name": lambda: attack_huge_name(r, base),
             "view": lambda: attack_view(r, base),
             "sigterm": lambda: attack_sigterm(r),
             # issue #40's rows
             "dumps": lambda: attack_dumps(r),
             "failed-run": lambda: attack_failed_run(r),
             "settings-python": lambda: attack_settings_python(r),
             "ranks": lambda: attack_ranks(r),
             "long-names": lambda: attack_long_names(r, base),
             "memory-limit": lambda: attack_memory_limit(r),
             "gate": lambda: attack_gate_and_readers(r, base),
             "disk-full": lambda: attack_disk_full(r),
             "signals": lambda: attack_signals(r),
             "errors": lambda: attack_errors_surface(r)}
    t0 = time.monotonic()
    only = None if args.only is None else set(args.only.split(","))
    for name, fn in kinds.items():
        if only is None or name in only:
            fn()
    total = Counter()
    print(f"attacks against {args.python} ({time.monotonic() - t0:.0f} s)")
    print(f"  {'kind':28s} {'runs':>5s} {'ok':>5s} {'traceback':>9s} {'loss':>5s} "
          f"{'hang':>5s} {'wrong':>5s}")
    for kind, c in r.counts.items():
        total.update(c)
        print(f"  {kind:28s} {sum(c.values()):5d} {c['ok']:5d} {c['traceback']:9d} "
              f"{c['loss']:5d} {c['hang']:5d} {c['wrong']:5d}")
    print(f"  {'total':28s} {sum(total.values()):5d} {total['ok']:5d} "
          f"{total['traceback']:9d} {total['loss']:5d} {total['hang']:5d} "
          f"{total['wrong']:5d}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--only", default=None)
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
             "sigterm": lambda: attack_sigterm(r)}
    t0 = time.monotonic()
    for name, fn in kinds.items():
        if args.only in (None, name):
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

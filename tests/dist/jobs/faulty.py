"""Rank 1 fails while the other ranks would go on working for minutes (ARGS: OUT HOW
[WHERE]). HOW: raise, exit (``sys.exit(3)``), SIGTERM, SIGKILL, hang (sleeps for ten minutes), done (``sys.exit(0)``); none: no failure.
WHERE: ``kv`` (default), at its third ``dist_sync`` step; ``nokv``, at once, in a job
with no kvstore; ``before``, at once, before making the kvstore the others make (they
are then starting MPI, which needs every rank). Each rank writes its pid and its
parent's (its keeper's under mpiexec) to OUT/pid<rank> first."""
import os
import signal
import sys
import time

import xprof.runtime as mx

out_dir, how = sys.argv[1], sys.argv[2]
where = sys.argv[3] if len(sys.argv) > 3 else "kv"
rank = int(os.environ["RANK"])
pid_file = os.path.join(out_dir, f"pid{rank}")
with open(pid_file + ".tmp", "w") as f:   # whole when it appears: written, then renamed
    f.write(f"{os.getpid()} {os.getppid()}")
os.replace(pid_file + ".tmp", pid_file)


def fail():
    if how == "raise":
        raise RuntimeError("rank 1 gives up")
    if how == "exit":
        sys.exit(3)
    if how == "hang":
        time.sleep(600)
    if how == "done":
        sys.exit(0)
    os.kill(os.getpid(), getattr(signal, how))
    time.sleep(60)   # the signal ends it


if rank == 1 and how != "none" and where in ("nokv", "before"):
    fail()
kv = mx.kv.create("dist_sync") if where != "nokv" else None
if kv is not None:
    kv.init(0, mx.nd.zeros((1000,)))
start = time.monotonic()
step = 0
while time.monotonic() - start < 300:
    g = mx.nd.ones((1000,))
    if kv is not None:
        kv.pushpull(0, g)
    else:
        g = g * 2
        time.sleep(0.01)
    g.wait_to_read()
    step += 1
    if rank == 1 and step == 3 and how != "none" and where == "kv":
        fail()

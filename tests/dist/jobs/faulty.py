"""Rank 1 fails at its third step (ARGS: OUT HOW, HOW one of raise, exit, SIGTERM,
SIGKILL; none: no failure) while the other ranks would go on pushing for minutes. Each
rank writes its pid and its parent's (its keeper's under mpiexec) to OUT/pid<rank>
first."""
import os
import signal
import sys
import time

import xprof.runtime as mx

out_dir, how = sys.argv[1], sys.argv[2]
kv = mx.kv.create("dist_sync")
pid_file = os.path.join(out_dir, f"pid{kv.rank}")
with open(pid_file + ".tmp", "w") as f:   # whole when it appears: written, then renamed
    f.write(f"{os.getpid()} {os.getppid()}")
os.replace(pid_file + ".tmp", pid_file)
kv.init(0, mx.nd.zeros((1000,)))
start = time.monotonic()
step = 0
while time.monotonic() - start < 300:
    g = mx.nd.ones((1000,))
    kv.pushpull(0, g)
    g.wait_to_read()
    step += 1
    if kv.rank == 1 and step == 3 and how != "none":
        if how == "raise":
            raise RuntimeError("rank 1 gives up")
        if how == "exit":
            sys.exit(5)
        os.kill(os.getpid(), getattr(signal, how))
        time.sleep(60)   # the signal ends it

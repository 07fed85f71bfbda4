"""Pushes are engine ops: rank 1 arrives 1 s late, yet rank 0's pushpull returns at once
and rank 0 computes meanwhile; the result is right once waited for. Writes
OUT/overlap<rank>.json: how long the pushpull call took and how long the wait."""
import json
import os
import sys
import time

import numpy as np

import xprof.runtime as mx

out_dir = sys.argv[1]
kv = mx.kv.create("dist_sync")
kv.init("g", mx.nd.zeros((1000,)))
kv.barrier()
if kv.rank == 1:
    time.sleep(1.0)
g = mx.nd.ones((1000,)) * (kv.rank + 1)
t0 = time.monotonic()
kv.pushpull("g", g)
call = time.monotonic() - t0
busy = mx.nd.dot(mx.nd.ones((200, 200)), mx.nd.ones((200, 200))).asnumpy()   # meanwhile
t1 = time.monotonic()
np.testing.assert_array_equal(g.asnumpy(), 3)
with open(os.path.join(out_dir, f"overlap{kv.rank}.json"), "w") as f:
    json.dump({"call_s": call, "wait_s": time.monotonic() - t1}, f)

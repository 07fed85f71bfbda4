"""dist_async: every rank pushes its gradient STEPS times with no barrier between; the
server applies each push as it arrives (MXNet's 'test' optimizer: weight += grad). After
a barrier every rank pulls the same, final value. Writes OUT/async<rank>.json.
``late``: rank 0 sets its optimizer a second after the others (their pushes must still
all be applied)."""
import json
import os
import sys
import time

import xprof.runtime as mx

out_dir, steps = sys.argv[1], 20
kv = mx.kv.create("dist_async")
r, n = kv.rank, kv.num_workers
kv.init("w", mx.nd.ones((3,)) * (r + 10))          # rank 0's value
if r == 0 and sys.argv[2:] == ["late"]:
    time.sleep(1.0)
kv.set_optimizer(mx.optimizer.create("test", rescale_grad=1.0))
try:
    kv.push("w", mx.nd.ones((4,)))
except ValueError as e:
    assert "has shape" in str(e)
for _ in range(steps):
    kv.push("w", mx.nd.ones((3,)) * (r + 1))
kv.barrier()
out = mx.nd.zeros((3,))
kv.pull("w", out=out)
with open(os.path.join(out_dir, f"async{r}.json"), "w") as f:
    json.dump({"final": out.asnumpy().tolist(), "workers": n, "steps": steps}, f)

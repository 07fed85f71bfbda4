"""Sums across ranks: init from rank 0, several values per key, str and int keys, lists,
pushpull, broadcast, a key above MXNET_KVSTORE_BIGARRAY_BOUND, barrier. Each rank
checks its results and writes them to OUT/result<rank>.json."""
import json
import os
import sys

import numpy as np

import xprof.runtime as mx

out_dir = sys.argv[1]
kv = mx.kv.create(os.environ.get("KV_TYPE", "dist_sync"))
r, n = kv.rank, kv.num_workers
assert (r, n) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
total = n * (n + 1) / 2          # sum over ranks of (rank + 1)
shape = (2, 3)

kv.init("a", mx.nd.ones(shape) * (r + 10))            # rank 0's value wins
kv.init(["b", "c"], [mx.nd.zeros(shape), mx.nd.zeros((5,))])
out = mx.nd.zeros(shape)
kv.pull("a", out=out)
np.testing.assert_array_equal(out.asnumpy(), 10)

kv.push("a", [mx.nd.ones(shape) * (r + 1)] * 3)       # three "devices" per rank
kv.pull("a", out=out)
np.testing.assert_array_equal(out.asnumpy(), 3 * total)

kv.push(["b", "c"], [mx.nd.ones(shape) * (r + 1), mx.nd.ones((5,)) * 2])
b, c = mx.nd.zeros(shape), mx.nd.zeros((5,))
kv.pull(["b", "c"], out=[b, c])
np.testing.assert_array_equal(b.asnumpy(), total)
np.testing.assert_array_equal(c.asnumpy(), 2 * n)

g = mx.nd.ones(shape) * (r + 1)
kv.pushpull("b", g)                                    # out defaults to the value
np.testing.assert_array_equal(g.asnumpy(), total)
outs = [mx.nd.zeros((5,)) for _ in range(2)]
kv.broadcast("d", mx.nd.ones((5,)) * (r + 7), out=outs)
for o in outs:
    np.testing.assert_array_equal(o.asnumpy(), 7)

big = mx.nd.arange(0, 2500).reshape((50, 50)) * (r + 1)   # 2500 elements: chunked
kv.init("big", mx.nd.zeros((50, 50)))
kv.pushpull("big", big)
np.testing.assert_array_equal(big.asnumpy(), np.arange(2500).reshape(50, 50) * total)

kv2 = mx.kv.create("dist_sync")                         # int keys, a second store
kv2.init(3, mx.nd.ones((4,), dtype="float16"))
h = mx.nd.ones((4,), dtype="float16") * 0.5
kv2.pushpull(3, h)
np.testing.assert_array_equal(h.asnumpy(), 0.5 * n)
kv.barrier()

with open(os.path.join(out_dir, f"result{r}.json"), "w") as f:
    json.dump({"rank": r, "workers": n, "b": b.asnumpy().tolist(), "type": kv.type}, f)

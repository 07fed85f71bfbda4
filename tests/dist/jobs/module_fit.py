"""Module.fit(kvstore=dist_sync) on each rank's own data, then the store's optimizer
states saved and loaded back. Writes OUT/module<rank>.npy (the fitted weight)."""
import os
import sys

import numpy as np

import xprof.runtime as mx

out_dir = sys.argv[1]
kv = mx.kv.create("dist_sync")
rng = np.random.RandomState(kv.rank)
X = rng.rand(32, 4).astype("float32")
Y = (rng.rand(32) > 0.5).astype("float32")
data = mx.sym.Variable("data")
net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"),
                           name="softmax")
mod = mx.mod.Module(net, context=mx.cpu())
mod.fit(mx.io.NDArrayIter(X, Y, batch_size=8), num_epoch=2, kvstore=kv, optimizer="sgd",
        optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
        initializer=mx.init.Constant(0.1))
weight = mod.get_params()[0]["fc_weight"].asnumpy()
states = os.path.join(out_dir, f"opt{kv.rank}.states")
kv.save_optimizer_states(states)
kv.load_optimizer_states(states)
assert os.path.getsize(states) > 0
np.save(os.path.join(out_dir, f"module{kv.rank}.npy"), weight)

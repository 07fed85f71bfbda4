"""A Gluon Trainer on a dist kvstore: each rank trains on its own data; after the steps
every rank holds the same parameters, equal to one process training on the sum of the
ranks' gradients. Writes OUT/params<rank>.npy (and the single-process reference, made on
rank 0, to OUT/reference.npy). ARGS: OUT KVSTORE UPDATE_ON_KVSTORE(1/0/none)."""
import os
import sys

import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd, gluon

out_dir, kind, on_kv = sys.argv[1], sys.argv[2], sys.argv[3]
on_kv = None if on_kv == "none" else bool(int(on_kv))
steps, batch = 3, 4
opt = {"learning_rate": 0.5, "momentum": 0.9}


def data(rank):
    rng = np.random.RandomState(100 + rank)
    return [(mx.nd.array(rng.rand(batch, 5)), mx.nd.array(rng.rand(batch, 2)))
            for _ in range(steps)]


def new_net():
    net = gluon.nn.Dense(2, in_units=5)
    net.initialize(mx.init.Constant(0.1))
    return net


def flat(net):
    return np.concatenate([p.data().asnumpy().ravel()
                           for p in net.collect_params().values()])


loss_fn = gluon.loss.L2Loss()
net = new_net()
kv = mx.kv.create(kind)
trainer = gluon.Trainer(net.collect_params(), "sgd", opt, kvstore=kv,
                        update_on_kvstore=on_kv)
for x, y in data(kv.rank):
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(batch)
np.save(os.path.join(out_dir, f"params{kv.rank}.npy"), flat(net))

if kv.rank == 0:   # the same steps in one process, on every rank's gradients summed
    ref = new_net()
    ref_trainer = gluon.Trainer(ref.collect_params(), "sgd", opt, kvstore=None)
    per_rank = [data(r) for r in range(kv.num_workers)]
    for step in range(steps):
        grads = None
        for r in range(kv.num_workers):
            x, y = per_rank[r][step]
            with autograd.record():
                loss = loss_fn(ref(x), y)
            loss.backward()
            g = [p.grad().asnumpy().copy() for p in ref.collect_params().values()]
            grads = g if grads is None else [a + b for a, b in zip(grads, g)]
        for p, g in zip(ref.collect_params().values(), grads):
            p.grad()[:] = g
        ref_trainer.step(batch)
    np.save(os.path.join(out_dir, "reference.npy"), flat(ref))

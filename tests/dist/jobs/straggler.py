"""A few training steps of a small Gluon network on dist_sync, each rank computing while
its gradients are communicated; rank SLOW (ARGS: OUT SLOW) sleeps 1 s before its
backward pass at step 2 (index 1), so every other rank waits for it there."""
import sys
import time

import xprof.runtime as mx
from xprof.runtime import autograd, gluon

slow = int(sys.argv[2])
net = gluon.nn.HybridSequential()
net.add(gluon.nn.Dense(64, in_units=32), gluon.nn.Dense(64), gluon.nn.Dense(8))
net.initialize(mx.init.Constant(0.01))
kv = mx.kv.create("dist_sync")
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.0001}, kvstore=kv)
x, y = mx.nd.ones((16, 32)), mx.nd.ones((16, 8))
for step in range(4):
    with autograd.record():
        loss = ((net(x) - y) ** 2).sum()
    if step == 1 and kv.rank == slow:
        time.sleep(1.0)
    loss.backward()
    trainer.step(16)
    mx.nd.dot(mx.nd.ones((300, 300)), mx.nd.ones((300, 300))).wait_to_read()
mx.nd.waitall()

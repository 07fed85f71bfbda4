"""Custom-operator jobs no analysis was tuned on: the known answers of ``explain``,
``diff`` and the call breakdown (tests/cli/test_custom_op_answers.py).

    python tests/jobs/custom_answers.py --job repro [--sync]
    python tests/jobs/custom_answers.py --job reads_first
    python tests/jobs/custom_answers.py --job ahead [--ahead 5]
    python tests/jobs/custom_answers.py --job train [--heavy-sorts 8] [--steps 12]

* ``repro``: ten chained calls of ``Heavy``, whose ``forward`` runs a pure-Python loop
  (``--sync``: after reading its input with ``asnumpy`` first). Nothing else costs time.
* ``reads_first``: ``ReadsFirst.forward`` reads its input (``asnumpy``), then runs numpy
  on the copy, then assigns; chained like ``repro``.
* ``ahead``: a loop that pushes ``Step`` calls and waits only for the result of the
  call ``--ahead`` steps back (``wait_to_read``), so the engine always holds that many
  queued steps: a call's wait for its inputs is backlog, not its producer.
* ``train``: a Gluon MLP with three custom operators, trained with SGD and pushed ahead
  (one ``waitall`` every 4 steps): ``NumpyHeavy`` (reads its input, then a loop of
  ``--heavy-sorts`` ``np.sort`` calls per forward, about 1 ms each), ``ReadScale`` (reads its input, then
  numpy) and ``Clip`` (sub-operators only). Halving ``--heavy-sorts`` is the
  before/after pair of the diff.

The work of each loop is a fixed count of iterations, not a calibrated time: the work of
the before/after pair halves exactly however loaded the machine is (a time calibrated at
start-up on a loaded machine once made the "halved" run the slower one).

Every custom op times its ``forward`` with ``perf_counter`` inside it; the job prints the
truth as one JSON line: ``{"wall_ms", "ops": {op: {"calls", "forward_ms"}}, ...}`` with
``wall_ms`` the loop's own clock (and ``each_ms``, every call's time).
"""
import argparse
import json
import time

import numpy as np

import xprof.runtime as mx
from xprof.runtime import autograd, gluon
from xprof.runtime.gluon import nn

ops = {}


def _timed(name, t0):
    dt = (time.perf_counter() - t0) * 1000
    entry = ops.setdefault(name, {"calls": 0, "forward_ms": 0.0, "each_ms": []})
    entry["calls"] += 1
    entry["forward_ms"] += dt
    entry["each_ms"].append(dt)


def python_loop(n):
    s = 0.0
    for i in range(n):
        s += i * 0.5
    return s


BUF = np.random.default_rng(0).random(20000)


def sort_loop(k):
    x = BUF
    for _ in range(k):
        x = np.sort(BUF)
    return x


class _Prop(mx.operator.CustomOpProp):
    op = None

    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, shapes, dtypes):
        return self.op()


def register(name, op):
    prop = type(name + "Prop", (_Prop,), {"op": op})
    mx.operator.register(name)(prop)


class _Identity(mx.operator.CustomOp):
    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


# -- repro -------------------------------------------------------------------------------
class Heavy(_Identity):
    sync = False
    n = 200000

    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        if self.sync:
            in_data[0].asnumpy()          # a read of the input first
        python_loop(self.n)
        self.assign(out_data[0], req[0], in_data[0] * 1.0)
        _timed("Heavy", t0)


class ReadsFirst(_Identity):
    k = 1

    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        x = in_data[0].asnumpy()
        sort_loop(self.k)
        self.assign(out_data[0], req[0], mx.nd.array(np.tanh(x) * 0 + x))
        _timed("ReadsFirst", t0)


STEP_ENDS = []       # each Step call's end by its own clock, in call order
STEP_PUSHES = []     # each Step call's push by the loop's clock


class Step(_Identity):
    n = 1

    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        python_loop(self.n)
        self.assign(out_data[0], req[0], in_data[0] + 1)
        _timed("Step", t0)
        STEP_ENDS.append(time.perf_counter())


class NumpyHeavy(_Identity):
    k = 1

    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        in_data[0].asnumpy()                # reads its input first (a sync inside it)
        sort_loop(self.k)
        self.assign(out_data[0], req[0], in_data[0])
        _timed("NumpyHeavy", t0)


class ReadScale(_Identity):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        x = in_data[0].asnumpy()
        self.assign(out_data[0], req[0], mx.nd.array(x * 0.5))
        _timed("ReadScale", t0)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 0.5)


class Clip(_Identity):
    def forward(self, is_train, req, in_data, out_data, aux):
        t0 = time.perf_counter()
        self.assign(out_data[0], req[0], mx.nd.clip(in_data[0], -10.0, 10.0))
        _timed("Clip", t0)


for _op in (Heavy, ReadsFirst, Step, NumpyHeavy, ReadScale, Clip):
    register(_op.__name__, _op)


def chain(op_type, calls=10):
    x = mx.nd.ones((64, 64))
    for _ in range(calls):
        x = mx.nd.Custom(x + 1, op_type=op_type)
    mx.nd.waitall()


def ahead(steps, depth):
    x = mx.nd.ones((32, 32))
    outs = []
    for i in range(steps):
        x = mx.nd.Custom(x, op_type="Step")
        STEP_PUSHES.append(time.perf_counter())     # once the push has returned
        outs.append(x)
        if i >= depth:
            outs[i - depth].wait_to_read()
    mx.nd.waitall()


def in_flight():
    """The median over the Step calls of how many earlier calls had not yet ended their
    ``forward`` (their own clock) once the call's push returned (the loop's clock). The
    profile counts a call in flight until its output is ready, a little after its
    ``forward`` ends (its output's copy), so at each push it counts this many or one more
    (the calls are chained: one at most is between the two), and its median too. Which
    one depends on scheduling: a main thread that gets the GIL back late pushes after
    one more call has ended."""
    counts = sorted(sum(1 for end in STEP_ENDS[:i] if end > push)
                    for i, push in enumerate(STEP_PUSHES))
    n = len(counts)
    return (counts[(n - 1) // 2] + counts[n // 2]) / 2 if n else None


class CustomLayer(gluon.HybridBlock):
    def __init__(self, op_type, **kw):
        super().__init__(**kw)
        self.op_type = op_type

    def hybrid_forward(self, F, x):
        return F.Custom(x, op_type=self.op_type)


def train(steps, sync_every):
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.normal(size=(64, 128)).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 10, size=64).astype(np.float32))
    net = nn.HybridSequential(prefix="net0_")
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu", in_units=128))
        net.add(CustomLayer("NumpyHeavy"))
        net.add(nn.Dense(128, activation="relu", in_units=256))
        net.add(CustomLayer("ReadScale"))
        net.add(CustomLayer("Clip"))
        net.add(nn.Dense(10, in_units=128))
    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    for i in range(steps):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])
        if (i + 1) % sync_every == 0:
            mx.nd.waitall()
    mx.nd.waitall()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", choices=("repro", "reads_first", "ahead", "train"),
                    required=True)
    ap.add_argument("--sync", action="store_true")
    ap.add_argument("--ahead", type=int, default=5)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--heavy-sorts", type=int, default=8)
    args = ap.parse_args()
    Heavy.sync = args.sync
    Heavy.n = 200000                 # ~10 ms of Python, as in the repro
    ReadsFirst.k = 6                 # ~6 ms of np.sort
    Step.n = 60000                   # ~3 ms of Python
    NumpyHeavy.k = args.heavy_sorts
    mx.nd.waitall()
    t0 = time.perf_counter()
    if args.job == "repro":
        chain("Heavy")
    elif args.job == "reads_first":
        chain("ReadsFirst")
    elif args.job == "ahead":
        ahead(args.steps * 2, args.ahead)
    else:
        train(args.steps, 4)
    wall = (time.perf_counter() - t0) * 1000
    print(json.dumps({"wall_ms": wall, "ops": ops, "ahead": args.ahead,
                      "in_flight": in_flight()}))


if __name__ == "__main__":
    main()

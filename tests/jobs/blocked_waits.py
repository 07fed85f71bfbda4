"""A main thread blocked at sync points, and a custom op blocked inside its ``forward``:
the known answers of ``explain``'s blocked time.

    python tests/jobs/blocked_waits.py [--mode waitall|custom] [--rounds 3] [--size 768]
        [--step-sync]

``waitall``: each round pushes a chain of matrix products (``--size`` square, seconds of
arithmetic the engine runs on its workers) and blocks in ``mx.nd.waitall()``.
``custom``: each round calls a custom operator (``Waiter``) whose ``forward`` pushes the
same chain as sub-operators and blocks in ``wait_to_read()`` on its result before it
writes its output; the main thread then blocks in ``asnumpy()``.

Ground truth, measured with ``perf_counter`` around each wait and printed as one JSON
line on stdout: ``{"main_blocked_s": ..., "forward_blocked_s": ..., "wall_s": ...}``
(the main thread's time in ``waitall``/``asnumpy``; the custom op's time in
``wait_to_read`` inside ``forward``).
"""
import argparse
import json
import time

import numpy as np

import xprof.runtime as mx

CHAIN = 4          # products per round
FORWARD_BLOCKED = [0.0]


def chain(x):
    for _ in range(CHAIN):
        x = mx.nd.dot(x, x) / x.shape[0]
    return x


class Waiter(mx.operator.CustomOp):
    """out = the chain of products of x, waited for inside ``forward``."""

    def forward(self, is_train, req, in_data, out_data, aux):
        y = chain(in_data[0])
        t0 = time.perf_counter()
        y.wait_to_read()
        FORWARD_BLOCKED[0] += time.perf_counter() - t0
        self.assign(out_data[0], req[0], y)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("Waiter")
class WaiterProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Waiter()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("waitall", "custom"), default="waitall")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", type=int, default=768)
    ap.add_argument("--step-sync", action="store_true",
                    help="end each round with mx.nd.waitall() (a step boundary)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.uniform(size=(args.size, args.size)).astype(np.float32))
    mx.nd.waitall()
    main_blocked = 0.0
    w0 = time.perf_counter()
    for _ in range(args.rounds):
        if args.mode == "waitall":
            chain(x)
            t0 = time.perf_counter()
            mx.nd.waitall()
        else:
            y = mx.nd.Custom(x, op_type="Waiter")
            t0 = time.perf_counter()
            y.asnumpy()
        main_blocked += time.perf_counter() - t0
        if args.step_sync:
            mx.nd.waitall()
    print(json.dumps({"main_blocked_s": main_blocked, "forward_blocked_s": FORWARD_BLOCKED[0],
                      "wall_s": time.perf_counter() - w0}))


if __name__ == "__main__":
    main()

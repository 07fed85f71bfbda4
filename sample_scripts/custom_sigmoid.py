"""A custom sigmoid whose forward computes with numpy and creates an NDArray, trained
through ``mx.autograd``; profiled with ``profile_all``.

``forward`` reads its input as numpy (a sync point inside the operator), computes the
sigmoid with numpy, and creates NDArrays (``mx.nd.array`` of the result and an
``mx.nd.zeros`` accumulator): the operators it launches appear as
``MySigmoid::_zeros``, ``MySigmoid::broadcast_add`` ... in category ``Custom Operator``,
next to ``MySigmoid::pure_python``. ``backward`` runs as ``_backward_MySigmoid::...``.

    python sample_scripts/custom_sigmoid.py [--size 256] [--steps 3]
        [--output custom_sigmoid.json]
"""
import argparse

import numpy as np

import xprof.runtime as mx


class MySigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = 1.0 / (1.0 + np.exp(-x))
        acc = mx.nd.zeros(x.shape)                  # an NDArray created in forward
        self.assign(out_data[0], req[0], acc + mx.nd.array(y))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))


@mx.operator.register("MySigmoid")
class MySigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return MySigmoid()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="vector length (default 256)")
    parser.add_argument("--steps", type=int, default=3, help="gradient steps (default 3)")
    parser.add_argument("--output", default="custom_sigmoid.json",
                        help="trace file (default custom_sigmoid.json)")
    args = parser.parse_args(argv)

    x = mx.nd.random.uniform(-2, 2, shape=(args.size,))
    x.attach_grad()
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    mx.profiler.set_state("run")
    error = 0.0
    for _ in range(args.steps):
        with mx.autograd.record():
            y = mx.nd.Custom(x, op_type="MySigmoid")
        y.backward()
        s = y.asnumpy()
        error = max(error, float(np.abs(x.grad.asnumpy() - s * (1 - s)).max()))
        x -= 0.1 * x.grad                           # gradient step on x itself
    mx.nd.waitall()
    mx.profiler.set_state("stop")

    print(f"max |autograd gradient - sigmoid'(x)| over {args.steps} steps: {error:.2e}")
    print(mx.profiler.dumps())
    mx.profiler.dump()
    print(f"trace written to {args.output}")


if __name__ == "__main__":
    main()

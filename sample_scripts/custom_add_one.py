"""Profile a custom operator: the MyAddOne example of MXNet's profiling guide.

A custom operator's Python ``forward`` runs on a custom-operator worker thread; the
operators it calls run on the engine's workers. In the profile this shows as
(category ``Custom Operator``):

* ``MyAddOne::pure_python`` - the Python ``forward`` itself, on ``custom op worker N``;
* ``MyAddOne::_plus_scalar`` and ``MyAddOne::CopyCPU2CPU`` - the operators it launched
  (``in_data[0] + 1``, and ``assign`` copying the result into the output), with flow
  arrows from the Python slice to each of them.

The same operator runs imperatively (``mx.nd.Custom``) and in a bound symbol
(``mx.sym.Custom``), forward and backward (``_backward_MyAddOne::...``).

    python sample_scripts/custom_add_one.py [--size 500] [--output custom_add_one.json]
"""
import argparse

import xprof.runtime as mx
from xprof.runtime import profiler


class MyAddOne(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + 1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("MyAddOne")
class CustomAddOneProp(mx.operator.CustomOpProp):
    def __init__(self):
        super(CustomAddOneProp, self).__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        # inputs, outputs, aux
        return [in_shape[0]], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return MyAddOne()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=500, help="matrix size (default 500)")
    parser.add_argument("--output", default="custom_add_one.json",
                        help="trace file (default custom_add_one.json)")
    args = parser.parse_args(argv)

    inp = mx.nd.zeros(shape=(args.size, args.size))
    profiler.set_config(profile_all=True, aggregate_stats=True, filename=args.output)
    profiler.set_state("run")

    # imperative
    w = mx.nd.Custom(inp, op_type="MyAddOne")
    mx.nd.waitall()

    # symbolic: the same operator as a node of a bound graph, forward and backward
    data = mx.sym.Variable("data")
    net = mx.sym.Custom(data=data, op_type="MyAddOne", name="addone")
    exe = net.bind(mx.cpu(), {"data": inp},
                   args_grad={"data": mx.nd.zeros((args.size, args.size))})
    out = exe.forward(is_train=True)[0]
    exe.backward(mx.nd.ones((args.size, args.size)))
    mx.nd.waitall()

    profiler.set_state("stop")
    print(f"imperative output mean {w.mean().asscalar():.3f}, "
          f"symbolic output mean {out.mean().asscalar():.3f}, "
          f"gradient mean {exe.grad_dict['data'].mean().asscalar():.3f}")
    print("the script's own profile (mx.profiler.dumps(), its window only):")
    print(profiler.dumps())
    profiler.dump()
    print(f"trace written to {args.output}")


if __name__ == "__main__":
    main()

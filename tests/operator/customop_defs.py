"""The custom operators the tests use (a plain module, imported by conftest.py and the
tests; unique name so that it never collides with another directory's helpers)."""
import warnings

import numpy as np

import xprof.runtime as mx


# -- the operators ------------------------------------------------------------------------
class MyAddOne(mx.operator.CustomOp):
    """MXNet's profiling-guide example."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + 1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


class MyAddOneProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return [in_shape[0]], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return MyAddOne()


class MySigmoid(mx.operator.CustomOp):
    """Forward computes with numpy and creates an NDArray (``mx.nd.zeros``)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        acc = mx.nd.zeros(x.shape)
        self.assign(out_data[0], req[0], acc + mx.nd.array(1.0 / (1.0 + np.exp(-x))))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))


class MySigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, shapes, dtypes):
        return MySigmoid()


class AddSub(mx.operator.CustomOp):
    """Two inputs, two outputs: (lhs + rhs, lhs - rhs)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + in_data[1])
        self.assign(out_data[1], req[1], in_data[0] - in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] + out_grad[1])
        self.assign(in_grad[1], req[1], out_grad[0] - out_grad[1])


class AddSubProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["lhs", "rhs"]

    def list_outputs(self):
        return ["sum", "diff"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return AddSub()


class Scale(mx.operator.CustomOp):
    def __init__(self, factor, req_override):
        self.factor = factor
        self.req_override = req_override

    def forward(self, is_train, req, in_data, out_data, aux):
        r = self.req_override or req[0]
        self.assign(out_data[0], r, in_data[0] * self.factor)


class ScaleProp(mx.operator.CustomOpProp):
    """Keyword arguments of mx.nd.Custom arrive here as strings."""

    received = []

    def __init__(self, factor="1", req=""):
        super().__init__()
        ScaleProp.received.append({"factor": factor, "req": req})
        self.factor = float(factor)
        self.req = req

    def create_operator(self, ctx, shapes, dtypes):
        return Scale(self.factor, self.req)


class Inner(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + 1)


class InnerProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Inner()


class Outer(mx.operator.CustomOp):
    """Calls another custom operator from its forward: (Inner(x) * 2)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        y = mx.nd.Custom(in_data[0], op_type="Inner")
        self.assign(out_data[0], req[0], y * 2)


class OuterProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Outer()


class FailingForward(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        (in_data[0] + 1).wait_to_read()
        user_code_that_fails(in_data[0])


def user_code_that_fails(x):
    raise RuntimeError("custom forward failed on purpose")


class FailingProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return FailingForward()


class NeverAssigns(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        in_data[0] + 1   # computes, but never writes out_data


class NeverAssignsProp(mx.operator.CustomOpProp):
    def list_outputs(self):
        return ["result"]

    def create_operator(self, ctx, shapes, dtypes):
        return NeverAssigns()


OPS = {
    "MyAddOne": MyAddOneProp,
    "MySigmoid": MySigmoidProp,
    "AddSub": AddSubProp,
    "Scale": ScaleProp,
    "Inner": InnerProp,
    "Outer": OuterProp,
    "FailingForward": FailingProp,
    "NeverAssigns": NeverAssignsProp,
    # names that look like the profiler's own: classified by the call, not the name
    "Custom": MyAddOneProp,
    "A::B": MyAddOneProp,
}


def register_all():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, prop in OPS.items():
            mx.operator.register(name)(prop)


class Gated(mx.operator.CustomOp):
    """Forward signals ``GATE['entered']``, then waits for ``GATE['open']``."""

    def forward(self, is_train, req, in_data, out_data, aux):
        GATE["entered"].set()
        assert GATE["open"].wait(60), "test never opened the gate"
        self.assign(out_data[0], req[0], in_data[0])


class GatedProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return Gated()


GATE = {}
OPS["Gated"] = GatedProp

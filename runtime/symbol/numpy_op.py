"""``mx.operator.NumpyOp`` / ``PythonOp``: MXNet 1.x's deprecated Python operators on
numpy arrays, made graph nodes through the custom-operator machinery (``get_symbol`` is
a ``Custom`` node of a prop registered for the op). Lives in the Symbol layer;
``mx.operator`` resolves the names lazily (``operator.LAZY_NAMES``)."""
import warnings

import numpy as np

from .. import symbol
from ..ndarray import ndarray as _nd
from ..operator import CustomOp, CustomOpProp, _registry, register

__all__ = ["PythonOp", "NumpyOp"]


class PythonOp:
    """The base of MXNet's old Python operators: one input and one output of its shape
    by default, ``forward`` copying it, ``backward`` passing the gradient through."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        raise NotImplementedError("PythonOp.get_symbol")

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = out_grad[0]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_


class NumpyOp(PythonOp):
    """``forward``/``backward`` on numpy arrays written in place (deprecated in MXNet for
    ``CustomOp``); ``get_symbol`` makes the graph node, here a custom operator that
    hands the op numpy copies and stores what it wrote."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp", stacklevel=2)

    def get_symbol(self, *args, **kwargs):
        op_type = f"_numpy_op_{id(self)}"
        if op_type not in _registry:
            register(op_type)(_numpy_prop(self))
        return symbol.Custom(*args, op_type=op_type, **kwargs)


def _numpy_prop(numpy_op):
    class Op(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            outs = [np.empty(o.shape, o.dtype) for o in out_data]
            numpy_op.forward(in_data=[x.asnumpy() for x in in_data], out_data=outs)
            for dst, r, v in zip(out_data, req, outs):
                self.assign(dst, r, _nd.from_numpy(v))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            grads = [np.zeros(g.shape, g.dtype) for g in in_grad]
            numpy_op.backward(out_grad=[g.asnumpy() for g in out_grad],
                              in_data=[x.asnumpy() for x in in_data],
                              out_data=[o.asnumpy() for o in out_data], in_grad=grads)
            for dst, r, v in zip(in_grad, req, grads):
                self.assign(dst, r, _nd.from_numpy(v))

    class Prop(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=numpy_op.need_top_grad())

        def list_arguments(self):
            return numpy_op.list_arguments()

        def list_outputs(self):
            return numpy_op.list_outputs()

        def infer_shape(self, in_shape):
            ins, outs = numpy_op.infer_shape(in_shape)
            return ins, outs, []

        def create_operator(self, ctx, shapes, dtypes):
            return Op()
    return Prop

"""A one-line custom operator for the observer tests (registered on import)."""
import xprof.runtime as mx


class _PlusOne(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + 1)


@mx.operator.register("ObsPlusOne")
class _PlusOneProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _PlusOne()


register_plus_one = _PlusOneProp

"""The dense part of MXNet 1.9.1's dist_sync_kvstore.py ``--type default_cpu``, run as
MXNet wrote it: the file's ``init_kv`` also stores row_sparse keys (xprof refuses sparse
storage), so this driver stores its dense keys (the same calls, on the file's own key
lists), sets the file's optimizer, and runs the file's own ``check_default_keys``
(nested in ``test_sync_push_pull``, next to the row_sparse checks) for both dtypes."""
import sys
import types

import dist_sync_kvstore as t

kv, mx = t.kv, t.mx
kv.init(t.keys_shape, [mx.nd.ones(t.shape)] * len(t.keys_shape))
kv.init(t.keys_big_shape, [mx.nd.ones(t.big_shape)] * len(t.keys_big_shape))
kv.init(t.fp16_keys_shape, [mx.nd.ones(t.shape, dtype='float16')] * len(t.keys_shape))
kv.init(t.fp16_keys_big_shape,
        [mx.nd.ones(t.big_shape, dtype='float16')] * len(t.keys_big_shape))
t.set_optimizer(use_multiprecision="--no-multiprecision" not in sys.argv)

code = next(c for c in t.test_sync_push_pull.__code__.co_consts
            if isinstance(c, types.CodeType) and c.co_name == "check_default_keys")
check_default_keys = types.FunctionType(code, vars(t))
for dtype in ['float16', 'float32']:
    check_default_keys(dtype, 7)
print('worker ' + str(kv.rank) + ' is done with the dense push/pull tests')

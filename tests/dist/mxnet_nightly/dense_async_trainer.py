"""The dense part of MXNet 1.9.1's dist_async_kvstore.py: its own
``check_trainer_kv_update`` (nested in ``test_gluon_trainer_type``, next to the
row_sparse cases xprof refuses) for a dense weight and update_on_kvstore False, True,
None, as the file calls it."""
import types

import dist_async_kvstore as t

code = next(c for c in t.test_gluon_trainer_type.__code__.co_consts
            if isinstance(c, types.CodeType) and c.co_name == "check_trainer_kv_update")
check_trainer_kv_update = types.FunctionType(code, vars(t))
for update_on_kv in (False, True, None):
    check_trainer_kv_update('default', update_on_kv)
print('worker ' + str(t.my_rank) + ' passed the dense test_gluon_trainer_type')

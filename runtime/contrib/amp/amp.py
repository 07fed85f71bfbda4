"""``mx.contrib.amp.amp``: MXNet's automatic mixed precision entry points.

AMP rewrites graphs to float16/bfloat16 for GPUs (and oneDNN); xprof's engine computes
on CPU with numpy and has no such rewriting, so every entry point raises
``NotImplementedError`` naming itself. The module imports, so that scripts and tests
that only import it (MXNet's ``tests/python/train/test_bucketing.py``) run.
"""
__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model",
           "convert_hybrid_block", "convert_symbol", "convert_bucketing_module",
           "list_lp16_ops", "list_fp32_ops"]


def _refuse(name):
    def refused(*args, **kwargs):
        raise NotImplementedError(f"mx.contrib.amp.{name}: automatic mixed precision is "
                                  "not supported by xprof (it computes in the dtypes you "
                                  "give; cast explicitly with astype / mx.sym.Cast)")
    refused.__name__ = name
    refused.__qualname__ = name
    return refused


for _name in __all__:
    globals()[_name] = _refuse(_name)
del _name

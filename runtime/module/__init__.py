"""``mx.mod`` / ``mx.module``: MXNet 1.x's Module API over xprof's symbol executor.

``Module`` binds a symbol (one executor per context, :mod:`.executor_group`), fills its
parameters with an initializer, trains with an optimizer through the kvstore, and
reads and writes MXNet's checkpoint files; ``BucketingModule`` keeps one Module per
bucket key over shared parameters; ``SequentialModule`` chains modules. ``BaseModule``
holds the loops (``fit``, ``score``, ``predict``). Every computation is the executor's
symbolic ops, profiled like any other (see docs/architecture.md, "A Module.fit step").
"""
from .base_module import BaseModule
from .bucketing_module import BucketingModule
from .executor_group import DataParallelExecutorGroup
from .module import Module
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule",
           "DataParallelExecutorGroup"]

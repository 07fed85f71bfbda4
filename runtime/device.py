"""``mx.device``: MXNet 2's name for contexts (``Device`` is ``Context``)."""
from .context import Context as Device, cpu, cpu_pinned, current_context as current_device, gpu, num_gpus

__all__ = ["Device", "cpu", "gpu", "cpu_pinned", "current_device", "num_gpus"]

"""Devices: ``mx.cpu(i)``, ``mx.gpu(i)``, ``Context`` and the current-context stack.

There are no GPUs here; ``mx.gpu(i)`` can be named (scripts mention it) but allocating on
it raises a clear error, and ``num_gpus()`` is 0.
"""
import threading

from ._current import class_attribute_meta

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus"]

_DEVICE_TYPES = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}

# Memory profiling logs a device as a small number (its log is a flat list of ints):
# device_names[number] is the device's name ("cpu/0").
device_names = []
_device_numbers = {}
_numbers_lock = threading.Lock()


def _device_number(key):
    with _numbers_lock:
        if key not in _device_numbers:
            device_names.append(key)
            _device_numbers[key] = len(device_names) - 1
        return _device_numbers[key]


def _set_default(ctx):
    """Assigning ``Context.default_ctx`` changes this thread's context only: inside a
    ``with ctx:`` block until the block ends, else from then on (MXNet 1.9.1)."""
    stack = getattr(Context._stack, "items", None)
    if stack:
        stack[-1] = ctx
    else:
        Context._default_ctx.value = ctx


class Context(metaclass=class_attribute_meta(
        "default_ctx", lambda: current_context(), _set_default,
        "Context.default_ctx: this thread's current context")):
    """A device: ``device_type`` ('cpu', 'gpu', ...) and ``device_id``."""

    _stack = threading.local()          # this thread's ``with ctx:`` blocks
    _default_ctx = threading.local()    # this thread's context outside them (``value``)
    devtype2str = {v: k for k, v in _DEVICE_TYPES.items()}
    devstr2type = dict(_DEVICE_TYPES)

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if device_type not in _DEVICE_TYPES:
            raise ValueError(f"device type {device_type!r} is not known; use one of "
                             + ", ".join(_DEVICE_TYPES))
        if not isinstance(device_id, int) or device_id < 0:
            raise ValueError(f"device id {device_id!r} must be a non-negative integer")
        self.device_type = device_type
        self.device_id = device_id
        self.dev_key = f"{device_type}/{device_id}"  # memory profiling's device name
        self.dev_num = _device_number(self.dev_key)

    @property
    def device_typeid(self):
        return _DEVICE_TYPES[self.device_type]

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self):
        stack = getattr(Context._stack, "items", None)
        if stack is None:
            stack = Context._stack.items = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        Context._stack.items.pop()
        return False

    def check_available(self):
        """Raise if arrays cannot live on this device."""
        if self.device_type == "gpu" and not _gpu_as_label():
            raise ValueError(f"device {self} is not available: this machine has no GPU "
                             "(num_gpus() == 0); use mx.cpu(), or XPROF_GPU_AS_LABEL=1 to "
                             "keep gpu(i) arrays in host memory, as cpu(i) ones")

    def empty_cache(self):
        """MXNet API: there is no caching allocator, so nothing to release."""


def _gpu_as_label():
    """``XPROF_GPU_AS_LABEL=1``: ``mx.gpu(i)`` is a label, as ``mx.cpu(i)`` is (arrays in
    host memory), so scripts written for GPUs (MXNet's multi-device tests) run as is."""
    from . import _env
    return _env.get_bool("GPU_AS_LABEL", False)


_CPU0 = Context("cpu", 0)


def cpu(device_id=0):
    return _CPU0 if device_id == 0 else Context("cpu", device_id)


def gpu(device_id=0):
    return Context("gpu", device_id)


def cpu_pinned(device_id=0):
    return Context("cpu_pinned", device_id)


def current_context():
    stack = getattr(Context._stack, "items", None)
    if stack:
        return stack[-1]
    return getattr(Context._default_ctx, "value", None) or _CPU0


def num_gpus():
    return 0

"""Process-level settings of native libraries: OpenBLAS's thread count and glibc's
malloc thresholds, changed at run time. Nothing here runs unless called.

OpenBLAS threads. The engine runs kernels on several worker threads; an OpenBLAS call
that also spreads over every core oversubscribes the machine, and OpenBLAS threads spin
while waiting: on a loaded 2-core machine a CNN training step measured 5-10x slower with
OpenBLAS's default thread count than with 1 thread. ``OPENBLAS_NUM_THREADS`` only works
if set before numpy is first imported; :func:`set_num_threads` changes the count of an
already loaded OpenBLAS through its C API (found in the process's mapped libraries,
Linux only).

malloc. Kernels return fresh arrays; large ones are mmapped (or come from the top of the
heap) and handed back to the OS when freed, so each training step page-faults its
working set in again: ~400-1600 minor faults, a few ms, per step of the CNN at batch 64
imperatively (a bound executor keeps its buffers and faults none). :func:`tune_malloc`
raises glibc's mmap and trim thresholds so freed memory is reused instead.
"""
import ctypes
import os

__all__ = ["set_num_threads", "get_num_threads", "openblas_libraries", "tune_malloc"]

_SETTERS = ("openblas_set_num_threads", "openblas_set_num_threads64_",
            "scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads")
_GETTERS = ("openblas_get_num_threads", "openblas_get_num_threads64_",
            "scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads")


def openblas_libraries():
    """Paths of the OpenBLAS libraries mapped into this process."""
    import numpy  # noqa: F401 - make sure numpy's BLAS is loaded
    paths = []
    try:
        with open(f"/proc/{os.getpid()}/maps") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6:
                    path = parts[-1]
                    name = os.path.basename(path).lower()
                    if "openblas" in name and ".so" in name and path not in paths:
                        paths.append(path)
    except OSError:
        pass
    return paths


def _functions(names):
    out = []
    for path in openblas_libraries():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                out.append(fn)
                break
    return out


def set_num_threads(n):
    """Set every loaded OpenBLAS to ``n`` threads; return how many libraries changed."""
    n = int(n)
    if n < 1:
        raise ValueError(f"BLAS thread count {n} must be positive")
    fns = _functions(_SETTERS)
    for fn in fns:
        fn.argtypes = [ctypes.c_int]
        fn.restype = None
        fn(n)
    return len(fns)


def get_num_threads():
    """The thread count of the first loaded OpenBLAS, or None if none is found."""
    for fn in _functions(_GETTERS):
        fn.restype = ctypes.c_int
        return int(fn())
    return None


_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune_malloc(mmap_threshold=64 << 20, trim_threshold=1 << 30):
    """Keep freed memory for reuse (glibc only): blocks below ``mmap_threshold`` come
    from the heap, and the heap is not trimmed until ``trim_threshold`` bytes are free
    at its top. Returns False where glibc's ``mallopt`` is not available."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
    ok &= mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)) == 1
    return bool(ok)

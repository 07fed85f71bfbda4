"""Environment variables: every setting is read as ``XPROF_<NAME>``, then ``MXNET_<NAME>``.

MXNet scripts set ``MXNET_*`` names; accepting them as aliases lets such a script run
unchanged, while ``XPROF_*`` wins when both are set.
"""
import os

__all__ = ["get", "get_int", "get_bool", "SETTINGS", "SettingError", "check_all",
           "check_at_import", "unknown"]


class SettingError(ValueError):
    """A malformed ``XPROF_*``/``MXNET_*`` value (one line: name, value, what is allowed)."""


def get(name, default=None):
    """The value of ``XPROF_<name>`` or its alias ``MXNET_<name>``, else ``default``."""
    for prefix in ("XPROF_", "MXNET_"):
        value = os.environ.get(prefix + name)
        if value is not None and value != "":
            return value
    return default


def get_int(name, default):
    value = get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"XPROF_{name}={value!r} is not an integer") from None


def get_bool(name, default):
    value = get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"XPROF_{name}={value!r} is not a boolean; use 1/0, true/false, on/off")


# -- every setting xprof reads, checked at start --------------------------------------------
# A malformed value used to surface only where it was read (an exit timeout at the end of
# the run, after the script, with no profile written). ``check_all`` reads them all at
# ``import xprof.runtime`` and before ``xprof run`` starts the script, so a bad value is
# one line naming the variable, the value and what is allowed, before any work.
_BOOLS = "1/0, true/false, yes/no, on/off"


# Integer settings are bounded above too: a 40-digit thread count used to pass the check
# and then fail as an OverflowError (thread pool) or an unwritable profile (its settings
# are recorded in the trace, whose integers are 64-bit).
_INT_MAX = 2 ** 31 - 1


def _int_range(low, high=_INT_MAX):
    def check(value):
        try:
            n = int(value)
        except ValueError:
            n = None
        if n is None or not low <= n <= high:
            return f"an integer from {low} to {high}"
        return None
    return check


def _number_range(low, high):
    def check(value):
        try:
            x = float(value)
        except ValueError:
            x = None
        if x is None or not low <= x <= high:
            return f"a number from {low:g} to {high:g}"
        return None
    return check


def _bool(value):
    if value.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return None
    return _BOOLS


def _one_of(*choices):
    def check(value):
        return None if value in choices else "one of " + ", ".join(choices)
    return check


def _mode_list(value):
    from .profiler.config import MODE_NAMES
    parts = [p.strip().lower() for p in value.split(",")]
    if all(p == "all" or p in MODE_NAMES for p in parts):
        return None
    return "a comma-separated list of " + ", ".join(MODE_NAMES) + " (or all)"


def _any(value):
    return None


SETTINGS = {
    "ENGINE_TYPE": _one_of("ThreadedEngine", "NaiveEngine", "ThreadedEnginePerDevice",
                           "ThreadedEnginePooled"),
    "CPU_WORKER_NTHREADS": _int_range(1, 1024),
    "ENGINE_INLINE_THRESHOLD": _int_range(0),
    "ENGINE_EXIT_TIMEOUT": _int_range(0),
    "BLAS_NUM_THREADS": _int_range(0, 1024),
    "GC_TUNING": _bool,
    "MALLOC_TUNING": _bool,
    "EXEC_BULK_EXEC_INFERENCE": _bool,
    "EXEC_BULK_EXEC_TRAIN": _bool,
    "EXEC_BULK_EXEC_MAX_NODE_INFERENCE": _int_range(0),
    "EXEC_BULK_EXEC_MAX_NODE_TRAIN": _int_range(0),
    "EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD": _int_range(0),
    "EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD": _int_range(0),
    "CUSTOM_OP_NUM_THREADS": _int_range(1, 65536),
    "CUSTOM_OP_MAX_IN_FLIGHT": _int_range(1),
    "PROFILER_AUTOSTART": _bool,
    "PROFILER_FILENAME": _any,
    "PROFILER_MODE": _mode_list,
    "PROFILER_AGGREGATE_STATS": _bool,
    "PROFILER_MEMORY_PREFIX": _any,
    "PROFILER_SAMPLE_INTERVAL_MS": _number_range(0, 60_000),
    "PROFILER_SAMPLE_ALL_THREADS": _bool,
    "PROFILER_SAMPLE_NATIVE": _bool,
    "UPDATE_ON_KVSTORE": _one_of("0", "1"),   # MXNet reads it as an integer
    "OPTIMIZER_AGGREGATION_SIZE": _int_range(0),   # weights per multi_sgd_update (SGD: 4)
    "EXEC_INPLACE_GRAD_SUM_CAP": _int_range(1),    # contributions summed as a _grad_add chain
    "RUN_LAUNCHER_PID": _int_range(1),     # set by xprof run --nproc for its ranks
    "KVSTORE_BIGARRAY_BOUND": _int_range(1),   # elements per chunk of a big dist key
    "GPU_AS_LABEL": _bool,   # mx.gpu(i) arrays in host memory, as mx.cpu(i) ones
    "RUN_MPIEXEC": _any,   # xprof run --nproc: the mpiexec to start ranks with; none: own
    "RUN_JOB_DIR": _any,   # set by xprof run --nproc: its job folder (xprof.traces.jobdir)
}


# XPROF_* variables read by xprof's own test suite and CI (tests/*/conftest.py, .ci/run),
# never by the runtime: known, so not warned about.
TOOLING = ("REQUIRE_DIST", "REQUIRE_BROWSER", "REQUIRE_NATIVE", "TEST_ARTIFACTS", "CHROMIUM",
           "TEST_EXAMPLES", "TEST_HANG_LIMIT")


def unknown(environ=None):
    """One line per set ``XPROF_*`` variable that is no setting, naming the closest
    known one (a misspelled setting is otherwise ignored without a word). ``MXNET_*``
    names are MXNet's: many mean nothing here, none is warned about."""
    import difflib

    environ = os.environ if environ is None else environ
    known = ["XPROF_" + n for n in list(SETTINGS) + list(TOOLING)]
    lines = []
    for var in sorted(environ):
        if var.startswith("XPROF_") and var not in known:
            closest = difflib.get_close_matches(var, known, n=1, cutoff=0.0)[0]
            lines.append(f"xprof: warning: {var} is not an xprof setting and is ignored; "
                         f"the closest one is {closest} (docs/settings.md lists them)")
    return lines


def check_at_import():
    """``import xprof.runtime``: warn once about unknown ``XPROF_*`` variables (not in
    the ranks ``xprof run --nproc`` starts: their launcher did), then check every
    setting (:func:`check_all`). A malformed value not caught by the importing code
    ends a plain ``python`` run with that one line, not a traceback through the
    import machinery (the exception stays catchable, a ``ValueError``)."""
    import sys

    if not (os.environ.get("XPROF_RUN_LAUNCHER_PID") or os.environ.get("XPROF_RUN_JOB_DIR")):
        for line in unknown():
            print(line, file=sys.stderr)
    try:
        check_all()
    except SettingError as e:
        previous, bad = sys.excepthook, e

        def one_line(kind, value, tb):
            if value is bad:
                print(f"xprof: error: {bad}", file=sys.stderr)
            else:
                previous(kind, value, tb)
        sys.excepthook = one_line
        raise


def check_all(environ=None):
    """Raise :class:`SettingError` (one line) for the first set ``XPROF_*``/``MXNET_*`` value of
    :data:`SETTINGS` that is malformed: the variable, its value, what is allowed."""
    environ = os.environ if environ is None else environ
    for name, check in SETTINGS.items():
        for prefix in ("XPROF_", "MXNET_"):
            value = environ.get(prefix + name)
            if value is None or value == "":
                continue
            allowed = check(value)
            if allowed is not None:
                raise SettingError(f"{prefix}{name}={value!r} is not allowed: use {allowed}")

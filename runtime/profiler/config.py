"""Profiler configuration: the keys ``set_config`` accepts, their defaults and checks.

As in MXNet, every ``set_config`` call starts from the defaults and applies the keys it
is given. Modes form a bitmask: symbolic 1, imperative 2, api 4, memory 8; the default
mode is all four, as MXNet 1.9.1's (``continuous_dump`` stays off by default: xprof
writes the whole trace at ``dump()``/exit).
"""
import os

MODE_SYMBOLIC, MODE_IMPERATIVE, MODE_API, MODE_MEMORY = 1, 2, 4, 8
MODE_ALL = 15
MODE_NAMES = {"symbolic": MODE_SYMBOLIC, "imperative": MODE_IMPERATIVE, "api": MODE_API,
              "memory": MODE_MEMORY}

_BOOL_KEYS = ("profile_all", "profile_symbolic", "profile_imperative", "profile_memory",
              "profile_api", "continuous_dump", "aggregate_stats")
DEFAULTS = {
    "filename": "profile.json",
    "profile_all": False,
    "profile_symbolic": True,
    "profile_imperative": True,       # MXNet 1.9.1: true (c_api_profile.cc)
    "profile_memory": True,
    "profile_api": True,
    "continuous_dump": False,
    "dump_period": 1.0,
    "aggregate_stats": False,
    "profile_process": "worker",
    "gpu_memory_profile_filename_prefix": None,
    "memory_profile_filename_prefix": None,
}


def _as_bool(key, value):
    if isinstance(value, bool):
        return value
    if type(value).__name__ in ("bool", "bool_") and type(value).__module__ == "numpy":
        return bool(value)
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    raise ValueError(f"set_config: {key}={value!r} is not allowed; use True or False")


def parse(kwargs):
    """Validated config dict from ``set_config`` keyword arguments."""
    cfg = dict(DEFAULTS)
    for key, value in kwargs.items():
        if key not in DEFAULTS:
            raise ValueError(f"set_config: unknown key {key!r}; allowed keys: "
                             + ", ".join(sorted(DEFAULTS)))
        if isinstance(value, os.PathLike) and (key == "filename"
                                               or key.endswith("filename_prefix")):
            value = os.fspath(value)   # MXNet takes str(value): a pathlib.Path works
        if key in _BOOL_KEYS:
            value = _as_bool(key, value)
        elif key == "filename":
            if not isinstance(value, str) or not value:
                raise ValueError(f"set_config: filename={value!r} is not allowed; "
                                 "use a non-empty path string")
        elif key == "dump_period":
            try:
                value = float(value)
            except (TypeError, ValueError):
                value = -1.0
            if not value > 0 or value != value or value == float("inf"):
                raise ValueError(f"set_config: dump_period={kwargs[key]!r} is not allowed; "
                                 "use a positive number of seconds")
        elif key == "profile_process":
            if value == "server":
                raise ValueError("set_config: profile_process='server' is not available: "
                                 "xprof has no parameter server; use 'worker'")
            if value != "worker":
                raise ValueError(f"set_config: profile_process={value!r} is not allowed; "
                                 "use 'worker'")
        elif key.endswith("filename_prefix"):
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"set_config: {key}={value!r} is not allowed; use a "
                                 "non-empty path prefix string or None")
        cfg[key] = value
    return cfg


def mode_of(cfg):
    if cfg["profile_all"]:
        return MODE_ALL
    mode = 0
    if cfg["profile_symbolic"]:
        mode |= MODE_SYMBOLIC
    if cfg["profile_imperative"]:
        mode |= MODE_IMPERATIVE
    if cfg["profile_api"]:
        mode |= MODE_API
    if cfg["profile_memory"]:
        mode |= MODE_MEMORY
    return mode


def parse_mode_list(text):
    """``'symbolic,imperative'`` -> bitmask; used by ``xprof run --mode``."""
    mode = 0
    for part in text.split(","):
        part = part.strip().lower()
        if part == "all":
            mode |= MODE_ALL
            continue
        if part not in MODE_NAMES:
            raise ValueError(f"mode {part!r} is not known; use a comma-separated list of "
                             + ", ".join(MODE_NAMES) + " (or all)")
        mode |= MODE_NAMES[part]
    return mode


def kwargs_for_mode(mode):
    """``set_config`` keywords that select exactly ``mode``."""
    return {"profile_symbolic": bool(mode & MODE_SYMBOLIC),
            "profile_imperative": bool(mode & MODE_IMPERATIVE),
            "profile_api": bool(mode & MODE_API),
            "profile_memory": bool(mode & MODE_MEMORY)}

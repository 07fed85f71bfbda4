"""Environment variables: every setting is read as ``XPROF_<NAME>``, then ``MXNET_<NAME>``.

MXNet scripts set ``MXNET_*`` names; accepting them as aliases lets such a script run
unchanged, while ``XPROF_*`` wins when both are set.
"""
import os

__all__ = ["get", "get_int", "get_bool"]


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

"""Living beside openxla's ``xprof`` (Google's XProf, ``pip install xprof``).

Both projects install under the ``xprof`` import name and both ship an ``xprof``
console script. Ours puts nothing in a folder of theirs (this CLI is ``xprof.mxcli``;
``xprof.runtime``, ``xprof.traces``), ships no ``xprof/__init__.py``, and has a second
script, ``xprof-mx``, and ``python -m xprof.mxcli``, which always reach this tool. pip
lets the last install own ``bin/xprof`` without a word (pypa/pip#4625), so ``xprof
--help`` says, when the other package is installed, how to reach each.
"""
from __future__ import annotations

OTHER = "xprof"     # openxla's distribution name (ours is "xprof-mx")


def other_version():
    """The installed version of openxla's ``xprof``, or None."""
    from importlib import metadata

    try:
        return metadata.version(OTHER)
    except metadata.PackageNotFoundError:
        return None
    except Exception:   # noqa: BLE001 - broken metadata: say nothing
        return None


def help_line():
    """One line for ``xprof --help`` when openxla's ``xprof`` is installed beside."""
    v = other_version()
    if v is None:
        return None
    return (f"note: openxla's xprof {v} is installed too: this profiler is always "
            f"`xprof-mx` (or `python -m xprof.mxcli`); Google's XProf is "
            f"`python -m xprof.cli.xprof_cli`, and `xprof` is the one installed last.")

"""xprof's version, from the installed package's metadata: one lookup for the runtime
(``mx.__version__``, the trace's ``otherData``) and the command line (``--version``),
which must not import the runtime to learn it (that would boot the engine)."""


def version():
    """The installed ``xprof-mx`` version, or ``"unknown (not installed)"`` when running
    from a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError, version as _metadata_version
    try:
        return _metadata_version("xprof-mx")
    except PackageNotFoundError:
        return "unknown (not installed)"

"""The one error type commands raise for bad input; main.py prints it as one line, exit 2."""
from __future__ import annotations

import click


class XprofError(click.ClickException):
    """A user-facing error: names the bad value and what is allowed; no traceback."""

    exit_code = 2


def fail(message):
    raise XprofError(message)

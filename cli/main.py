"""The ``xprof`` command group: it only assembles the commands.

Errors of every command, click's own usage errors included, are printed as
one line (``xprof: error: ...``) on stderr with exit status 2 and no
traceback; that is done once here, in :meth:`_Group.main`.
"""
from __future__ import annotations

import os
import sys

import click

from xprof.mxcli.analysis import BadInput
from xprof.mxcli import diff as _diff
from xprof.mxcli import explain as _explain
from xprof.mxcli import stats as _stats
from xprof.mxcli import report as _report
from xprof.mxcli import trace as _trace
from xprof.mxcli import validate as _validate
from xprof.mxcli import view as _view


# click >= 8.2 raises this for a bare `xprof`; its message is the whole help text.
_NoArgsIsHelp = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _broken_pool():
    """``BrokenProcessPool`` when a reader used a process pool (its module imported),
    else no exception class: importing it at start-up costs every command
    multiprocessing, subprocess and logging (1-2 MB of peak memory)."""
    module = sys.modules.get("concurrent.futures.process")
    return getattr(module, "BrokenProcessPool", ()) if module is not None else ()


def _running(args):
    """`` in xprof COMMAND`` for a message, from the command line."""
    argv = sys.argv[1:] if args is None else list(args)
    command = next((a for a in argv if not a.startswith("-")), None)
    return f" in xprof {command}" if command else ""


class _Group(click.Group):
    def format_help(self, ctx, formatter):
        super().format_help(ctx, formatter)
        from xprof.mxcli.coexist import help_line   # openxla's xprof beside: how to reach each
        line = help_line()
        if line:   # (one line, unwrapped: a user greps for it)
            formatter.write_paragraph()
            formatter.write(line + "\n")

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name or "xprof", complete_var,
                              standalone_mode=False, **extra)
        except _NoArgsIsHelp as exc:  # bare `xprof`: the help, as a usage error (exit 2)
            click.echo(exc.format_message(), err=True)
            rv = exc.exit_code
        except click.ClickException as exc:  # usage errors and XprofError
            message = " ".join(exc.format_message().split())
            click.echo(f"xprof: error: {message}", err=True)
            rv = exc.exit_code
        except BadInput as exc:   # an analysis's (analysis/__init__.py): the same line
            click.echo(f"xprof: error: {' '.join(str(exc).split())}", err=True)
            rv = 2
        except click.exceptions.Abort:
            click.echo("xprof: aborted", err=True)
            rv = 1
        except BrokenPipeError:  # e.g. `xprof stats | head`: stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            rv = 1
        except MemoryError:   # (the stack is gone: there is memory to say so)
            click.echo(f"xprof: error: out of memory{_running(args)}: the input needs "
                       f"more memory than this process may use", err=True)
            rv = 2
        except _broken_pool():   # a reader process killed (the OOM killer, a signal)
            click.echo(f"xprof: error: a reader process{_running(args)} ended before it "
                       f"finished (killed, or out of memory)", err=True)
            rv = 2   # never 1: that is xprof diff's "regression"
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def _print_version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    # From the installed metadata: importing xprof.runtime would boot the engine (and,
    # with XPROF_PROFILER_AUTOSTART set, start profiling the CLI itself).
    from xprof.traces.version import version

    click.echo(f"xprof {version()}")
    ctx.exit(0)


@click.group("xprof", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Print the version and exit.")
def main():
    """xprof: profile with the xprof engine, and read traces.

    \b
    Example:
      xprof run train.py
      xprof validate profile.json
      xprof stats profile.json --top 10
      xprof trace profile.json -o clean.json.gz
      xprof explain profile.json
      xprof view profile.json
      xprof report profile.json -o report.html
      xprof diff before.json after.json
    """


main.add_command(_validate.validate)
main.add_command(_stats.stats)
main.add_command(_trace.trace)
main.add_command(_explain.explain)
main.add_command(_view.view)
main.add_command(_report.report)
main.add_command(_diff.diff_cmd)

from xprof.mxcli import run as _run  # noqa: E402

main.add_command(_run.run)

# `--version` on every command too (`xprof stats --version`), not only on the group.
for _command in main.commands.values():
    _command.params.append(click.Option(
        ["--version"], is_flag=True, expose_value=False, is_eager=True,
        callback=_print_version, help="Print the version and exit."))

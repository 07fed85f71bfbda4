"""``xprof run``: run a Python script (or module) with the engine and profiler booted.

The script runs in this process as ``__main__``, exactly as ``python SCRIPT ARGS`` would
(same ``sys.argv``, ``sys.path[0]`` and working directory). Bulk execution is turned off
(so every operator is its own event) unless ``--bulk``; profiling starts before the first
line with every mode and aggregate statistics on. Whatever way the script ends, the trace
is written complete and ``xprof run`` exits with the script's own exit code.
"""
import os
import runpy
import signal
import sys
import traceback

import click


def _configure_env(bulk):
    value = "1" if bulk else "0"
    for name in ("EXEC_BULK_EXEC_INFERENCE", "EXEC_BULK_EXEC_TRAIN"):
        os.environ["XPROF_" + name] = value


def _trimmed_traceback(exc):
    """Print ``exc`` as Python would, without xprof's and runpy's own frames."""
    tb = exc.__traceback__
    here = {os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>"}
    while tb is not None and (tb.tb_frame.f_code.co_filename in here
                              or os.path.abspath(tb.tb_frame.f_code.co_filename) in here):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)


def _run_target(module, target, args):
    """Run the script or module; return its exit code."""
    if module:
        sys.argv = [module] + list(args)
        sys.path.insert(0, os.getcwd())
        runner = lambda: runpy.run_module(module, run_name="__main__", alter_sys=True)  # noqa: E731
    else:
        sys.argv = [target] + list(args)
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runner = lambda: runpy.run_path(target, run_name="__main__")  # noqa: E731
    try:
        runner()
        return 0
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        _trimmed_traceback(e)
        return 130
    except BaseException as e:  # noqa: BLE001 - reported like Python does
        _trimmed_traceback(e)
        return 1


def _finish(profiler_session, engine):
    """Drain the engine and write the trace if the script did not already."""
    try:
        engine.get().wait_all()
    except BaseException as e:  # noqa: BLE001 - an op error the script never synced on
        print(f"xprof: an operation failed after the script's last sync point: "
              f"{type(e).__name__}: {e}", file=sys.stderr)
    if profiler_session.state() == "run" or profiler_session.undumped_events():
        return profiler_session.dump(finished=True)
    return None


@click.command("run", context_settings={"ignore_unknown_options": True,
                                         "allow_interspersed_args": False})
@click.option("-m", "module", metavar="MODULE", default=None,
              help="Run a library module as a script (like python -m).")
@click.option("-o", "--output", default="profile.json", show_default=True,
              type=click.Path(dir_okay=False), help="Where to write the Chrome trace.")
@click.option("--mode", default="symbolic,imperative,api,memory", show_default=True,
              help="Profiling modes, comma-separated: symbolic, imperative, api, memory.")
@click.option("--bulk", is_flag=True, help="Keep bulk execution on (coarser events).")
@click.option("--stats", "show_stats", is_flag=True,
              help="Print the full aggregate tables at the end.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing of xprof's own.")
@click.argument("script_and_args", nargs=-1, type=click.UNPROCESSED)
def run(module, output, mode, bulk, show_stats, quiet, script_and_args):
    """Run SCRIPT with the xprof engine and profiler booted; leave a Chrome trace.

    \b
    Example:
      xprof run sample_scripts/custom_add_one.py
      xprof run -o step.json --stats train.py --epochs 1
      xprof run -m mypackage.train
    """
    from .errors import fail

    if module is None:
        if not script_and_args:
            fail("no script given; usage: xprof run [OPTIONS] SCRIPT [ARGS]... "
                 "(or -m MODULE)")
        target, args = script_and_args[0], script_and_args[1:]
        if not os.path.isfile(target):
            fail(f"script {target!r} does not exist or is not a file")
    else:
        target, args = None, script_and_args
    from xprof.runtime.profiler import config as _config
    try:
        mode_bits = _config.parse_mode_list(mode)
    except ValueError as e:
        fail(f"--mode: {e}")
    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        fail(f"--output {output!r}: folder {out_dir!r} does not exist")

    _configure_env(bulk)
    import xprof.runtime as mx
    from xprof.runtime import engine
    from xprof.runtime.profiler import session

    output = os.path.abspath(output)
    session.set_config(filename=output, aggregate_stats=True,
                       **_config.kwargs_for_mode(mode_bits))
    session.set_state("run")
    session.clear_script_configured()
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        pass  # KeyboardInterrupt is caught in _run_target
    code = _run_target(module, target, args)
    path = _finish(session, engine)
    if quiet:
        sys.exit(code)
    if session.script_configured():
        cfg = session.get_config()
        click.echo(f"xprof: the script configured the profiler itself; its settings were "
                   f"kept (trace file {cfg['filename']!r})", err=True)
        path = path or cfg["filename"]
    _report(path or output, show_stats)
    del mx
    sys.exit(code)


def _report(path, show_stats):
    from .summary import print_summary
    print_summary(path, show_stats)

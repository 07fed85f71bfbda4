"""``xprof run``: run a Python script (or module) with the engine and profiler booted.

The script runs in this process as ``__main__``, exactly as ``python SCRIPT ARGS`` would
(same ``sys.argv``, ``sys.path[0]`` and working directory). Bulk execution is turned off
(so every operator is its own event) unless ``--bulk``; profiling starts before the first
line with every mode and aggregate statistics on. Whatever way the script ends, the trace
is written complete and ``xprof run`` exits with the script's own exit code.
"""
import os
import runpy
import sys
import traceback

import click


_BULK_VARS = ("XPROF_EXEC_BULK_EXEC_INFERENCE", "XPROF_EXEC_BULK_EXEC_TRAIN")
# the line sampler's settings (runtime/profiler/sampler.py), read when recording starts
_SAMPLE_VARS = ("XPROF_PROFILER_SAMPLE_INTERVAL_MS", "XPROF_PROFILER_SAMPLE_ALL_THREADS")


def _configure_env(bulk, sample_interval=None, sample_all_threads=False):
    value = "1" if bulk else "0"
    for name in _BULK_VARS:
        os.environ[name] = value
    if sample_interval is not None:
        os.environ[_SAMPLE_VARS[0]] = f"{sample_interval:g}"
    if sample_all_threads:
        os.environ[_SAMPLE_VARS[1]] = "1"


def _save_process_state():
    """What running a script changes in this process (``sys.argv``, ``sys.path``, the
    bulk variables), so that an in-process caller (click's CliRunner, a notebook) gets
    it back unchanged: later code in that process must see bulk execution's defaults."""
    return list(sys.argv), list(sys.path), {k: os.environ.get(k)
                                            for k in _BULK_VARS + _SAMPLE_VARS}


def _restore_process_state(saved):
    argv, path, env = saved
    sys.argv[:] = argv
    sys.path[:] = path
    for key, value in env.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _trimmed_traceback(exc):
    """Print ``exc`` as Python would, without xprof's and runpy's own frames (nor, for
    a signal's exception, those of the handler that raised it)."""
    from xprof.runtime.engine import signals

    tb = exc.__traceback__
    here = {os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>"}
    while tb is not None and (tb.tb_frame.f_code.co_filename in here
                              or os.path.abspath(tb.tb_frame.f_code.co_filename) in here):
        tb = tb.tb_next
    shown = traceback.TracebackException(type(exc), exc, tb)
    while shown.stack and shown.stack[-1].filename == signals.__file__:
        shown.stack.pop()
    sys.stderr.write("".join(shown.format()))


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
        from xprof.runtime.engine import signals
        signals.ended_by_interrupt()   # the exit drain: a second, not 30
        return 130
    except BaseException as e:  # noqa: BLE001 - reported like Python does
        _trimmed_traceback(e)
        return 1


def _check_module(module):
    """``-m NAME`` that cannot be found (as ``python -m`` looks: the current folder first):
    one-line error before anything runs, so a failed run writes no profile. The module
    is found without importing anything: each package's folder is searched for the next
    name (importing ``a`` to find ``a.b`` would run ``a`` before the profiler starts)."""
    from importlib.machinery import PathFinder

    from xprof.mxcli.errors import fail

    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        fail(f"-m {module!r}: not a module name (dotted Python identifiers)")
    path = None
    for depth, part in enumerate(parts):
        name = ".".join(parts[:depth + 1])
        spec = _find_spec(name, part, path, PathFinder)
        if spec is None:
            where = "the current folder or sys.path" if depth == 0 else f"package {parts[depth - 1]!r}"
            fail(f"-m {module!r}: no module named {name!r} in {where}")
        path = spec.submodule_search_locations
        if path is None and depth < len(parts) - 1:
            fail(f"-m {module!r}: {name!r} is a module, not a package")
    if path is not None and _find_spec(module + ".__main__", "__main__", path, PathFinder) is None:
        fail(f"-m {module!r}: {module!r} is a package without a __main__ module; it cannot "
             f"be run directly")


def _find_spec(name, last, path, finder):
    """The spec of ``name`` (a top-level name by every finder, frozen ones too; a
    submodule in its package's folders ``path``), importing nothing; None if not found."""
    import importlib.util

    try:
        if name == last:
            sys.path.insert(0, os.getcwd())
            try:
                return importlib.util.find_spec(name)  # top level: locates, does not execute
            finally:
                sys.path.pop(0)
        return finder.find_spec(name, list(path))
    except (ImportError, ValueError, OSError):
        return None


def _check_script(target):
    """Read and compile SCRIPT before the profiler starts: a script that cannot run (a
    syntax error, unreadable) gives one line and exit 2, and the previous profile stays."""
    from xprof.mxcli.errors import fail

    try:
        with open(target, "rb") as f:
            source = f.read()
    except OSError as e:
        fail(f"script {target!r} cannot be read ({e.strerror or e})")
    try:
        compile(source, target, "exec", dont_inherit=True)
    except SyntaxError as e:
        where = f"line {e.lineno}" + (f", column {e.offset}" if e.offset else "")
        text = f": {e.text.strip()!r}" if e.text and e.text.strip() else ""
        fail(f"script {target!r} does not compile: {type(e).__name__}: {e.msg} ({where}){text}; "
             f"nothing was run or written")
    except ValueError as e:   # null bytes
        fail(f"script {target!r} does not compile: {e}; nothing was run or written")


def _check_writable(output, out_dir):
    """Fail now, in one line, rather than with a traceback once the script has run."""
    import tempfile

    from xprof.mxcli.errors import fail

    try:
        fd, probe = tempfile.mkstemp(prefix=".xprof-", suffix=".tmp", dir=out_dir)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        fail(f"--output {output!r}: cannot write in {out_dir!r} ({e.strerror or e})")


def _finish(profiler_session, engine, stop, output=None):
    """Drain the engine, then write what is left: the script's own session (as its exit
    would) and the run's complete profile, to ``output`` (default: the one
    ``start_for_cli`` was given). Returns {path: what it holds}.
    The drain is
    bounded (``XPROF_ENGINE_EXIT_TIMEOUT``, or a signal: ``stop``): then the trace holds
    what was recorded and the message names what was still running."""
    report = engine.drain(stop=stop)
    if report:
        print(f"xprof: {report}; the trace holds what was recorded", file=sys.stderr)
    else:
        try:
            engine.get().wait_all()
        except Exception as e:  # noqa: BLE001 - an op error the script never synced on
            print(f"xprof: an operation failed after the script's last sync point: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
    from xprof.mxcli.render.progress import delayed_status
    from xprof.mxcli.render import plural

    label = f"xprof: writing the profile ({plural(profiler_session.event_count(), 'event')})"
    try:
        with delayed_status(label):
            return profiler_session.finish_cli_run(output)
    except OSError as e:  # e.g. the folder is gone: xprof's own error, one line, exit 2
        from xprof.mxcli.errors import fail

        profiler_session.abandon()   # (nothing left for the exit to try again)
        target = e.filename or output or profiler_session.get_config().get("filename")
        fail(f"could not write the profile {target!r}: {e.strerror or e}; "
             f"the previous file (if any) is unchanged")


class _RunCommand(click.Command):
    """As with ``python -m MODULE ARGS``, everything after ``-m MODULE`` is the module's
    (``xprof run -m pkg.train --help`` passes ``--help`` on), like everything after
    SCRIPT already is (``allow_interspersed_args=False``)."""

    def parse_args(self, ctx, args):
        takes_value = {opt for p in self.params if isinstance(p, click.Option)
                       and not p.is_flag for opt in p.opts}
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--" or not arg.startswith("-") or arg == "-":
                break   # SCRIPT (or an explicit end of options): click handles the rest
            if arg == "-m" and i + 1 < len(args):
                args = list(args[:i + 2]) + ["--"] + list(args[i + 2:])
                break
            if arg.startswith("-m") and len(arg) > 2:   # -mMODULE
                args = list(args[:i + 1]) + ["--"] + list(args[i + 1:])
                break
            i += 2 if arg in takes_value else 1
        return super().parse_args(ctx, args)


@click.command("run", cls=_RunCommand,
               context_settings={"ignore_unknown_options": True,
                                 "allow_interspersed_args": False})
@click.option("-m", "module", metavar="MODULE", default=None,
              help="Run a library module as a script (like python -m).")
@click.option("-o", "--output", default="profile.json", show_default=True,
              type=click.Path(dir_okay=False), help="Where to write the Chrome trace.")
@click.option("--mode", default="symbolic,imperative,api,memory", show_default=True,
              help="Profiling modes, comma-separated: symbolic, imperative, api, memory.")
@click.option("--bulk", is_flag=True, help="Keep bulk execution on (coarser events).")
@click.option("--sample-interval", type=click.FloatRange(min=0, max=60_000), default=None,
              metavar="MS",
              help="Sample the Python stacks of custom operators' code every MS ms "
                   "(xprof stats --lines); 0: off. Default: "
                   "XPROF_PROFILER_SAMPLE_INTERVAL_MS, else 1.")
@click.option("--sample-all-threads", is_flag=True,
              help="Also sample the script's other threads (not only custom-op code).")
@click.option("--stats", "show_stats", is_flag=True,
              help="Print the full aggregate tables at the end.")
@click.option("--report", "write_html", is_flag=True,
              help="Also write the HTML report (xprof report) next to the trace.")
@click.option("--open", "open_view", is_flag=True,
              help="Then open the trace in the Perfetto UI (xprof view; Ctrl-C ends it).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing of xprof's own.")
@click.option("--baseline", type=click.Path(dir_okay=False), default=None, metavar="A.json",
              help="At the end, print xprof diff of this earlier profile against this run's.")
@click.option("--slow", "slow_specs", multiple=True, metavar="SPEC",
              help="Really slow the matching ops, to check an xprof explain --what-if "
                   "prediction: OP=2x, OP=+2ms, layer:NAME=2x, custom:TYPE=2x (factors "
                   ">= 1; repeatable). Each slowed event is marked (args.slowed_ns); a "
                   "SPEC that slows nothing ends the run with exit 2.")
@click.option("--slow-alternate", "slow_alternate", is_flag=True,
              help="With --slow: slow every other step only (a step ends where the "
                   "script's waitall returns; the first is not slowed), so one run "
                   "measures the change between its own steps.")
@click.option("--timeout", "job_timeout", type=click.FloatRange(min=0, min_open=True),
              default=None, metavar="SECONDS",
              help="With --nproc: stop the job (every rank) after this long; exit 124.")
@click.option("--end-grace", type=click.FloatRange(min=0), default=60.0, show_default=True,
              metavar="SECONDS",
              help="With --nproc: once one rank has ended well, how long the others may "
                   "still run before the job stops them (a failed rank: 3 s).")
@click.option("--nproc", type=click.IntRange(min=1), default=None, metavar="N",
              help="Start N copies as one job (RANK, WORLD_SIZE, LOCAL_RANK set); "
                   "each writes its own file, e.g. profile.rank0.json.")
@click.option("--hostfile", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="FILE", help="With --nproc: the machines to start the ranks on "
                                   "(mpiexec's hostfile; needs xprof-mx[dist]).")
@click.argument("script_and_args", nargs=-1, type=click.UNPROCESSED,
                metavar="SCRIPT [ARGS]...")
def run(module, output, mode, bulk, sample_interval, sample_all_threads, show_stats,
        write_html, open_view, quiet, baseline, slow_specs, slow_alternate, job_timeout,
        end_grace, nproc, hostfile, script_and_args):
    """Run SCRIPT with the xprof engine and profiler booted; leave a Chrome trace.

    \b
    Example:
      xprof run sample_scripts/custom_add_one.py
      xprof run -o step.json --stats train.py --epochs 1
      xprof run -m mypackage.train
      xprof run --nproc 4 train.py
      xprof run --baseline before.json train.py   # then the diff against it
      xprof run --slow 'FullyConnected=2x' -o slow.json train.py
    """
    from xprof.traces import whatif as _grammar

    from xprof.mxcli.errors import fail

    for text in slow_specs:   # checked before anything runs
        try:
            _grammar.parse_slow(text)
        except ValueError as e:
            fail(str(e))
    if slow_alternate and not slow_specs:
        fail("--slow-alternate alternates the steps --slow slows; give --slow SPEC too")

    if module is None:
        if not script_and_args:
            fail("no script given; usage: xprof run [OPTIONS] SCRIPT [ARGS]... "
                 "(or -m MODULE)")
        target, args = script_and_args[0], script_and_args[1:]
        if not os.path.isfile(target):
            fail(f"script {target!r} does not exist or is not a file")
        _check_script(target)
    else:
        target, args = None, script_and_args
        _check_module(module)
    try:   # importing the runtime checks every XPROF_*/MXNET_* setting (runtime/_env.py)
        from xprof.runtime.profiler import config as _config
    except ValueError as e:   # _env.SettingError
        fail(str(e))
    try:
        mode_bits = _config.parse_mode_list(mode)
    except ValueError as e:
        fail(f"--mode: {e}")
    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        fail(f"--output {output!r}: folder {out_dir!r} does not exist")
    if baseline is not None:
        if not os.path.isfile(baseline):
            fail(f"--baseline {baseline!r} does not exist or is not a file")
        from xprof.mxcli.errors import refuse_overwrite
        refuse_overwrite("--output", output, [baseline])   # the run would replace it
        if nproc is not None:
            fail(f"--baseline compares one run; --nproc {nproc} writes {nproc}: diff a "
                 f"rank's file with xprof diff")
    _check_writable(output, out_dir)
    if nproc is not None and open_view:
        fail(f"--open views the trace of one run; --nproc {nproc} writes {nproc} "
             f"(one per rank): view one with xprof view, or first merge them with "
             f"xprof trace <rank files> -o merged.json")
    if nproc is not None:
        from xprof.mxcli.runner.launch import copy_arguments, mpiexec, run_copies, run_mpi
        ctx = click.get_current_context()
        argv = copy_arguments(ctx, {"nproc", "open_view", "job_timeout", "hostfile",
                                    "end_grace"})
        exe = mpiexec()
        if exe is not None:
            sys.exit(run_mpi(exe, nproc, argv, output, quiet, job_timeout, hostfile,
                             end_grace))
        if hostfile is not None:
            fail("--hostfile starts the ranks through mpiexec, which is not installed: "
                 "pip install 'xprof-mx[dist]'")
        sys.exit(run_copies(nproc, argv, output, quiet, job_timeout, end_grace))
    if hostfile is not None:
        fail("--hostfile places the ranks of a job; it goes with --nproc")
    if job_timeout is not None:
        fail(f"--timeout {job_timeout:g} bounds a job of ranks; it goes with --nproc")

    from xprof.mxcli.runner.keeper import keep_rank
    from xprof.mxcli.runner.launch import die_with_launcher, rank_env_from_mpi
    keep_rank()           # a rank of mpiexec: from here on, the child of its keeper
    die_with_launcher()   # a rank of --nproc: ends with its launcher
    rank_env_from_mpi()   # a rank of mpiexec: RANK & co as under xprof's own launcher
    saved = _save_process_state()
    _configure_env(bulk, sample_interval, sample_all_threads)
    try:
        import xprof.runtime as mx
        from xprof.runtime import engine
        from xprof.runtime.profiler import session

        from xprof.runtime.profiler import ranks
        output = ranks.filename_for_rank(os.path.abspath(output), ranks.rank())
        from xprof.runtime import slow
        slow.install(slow_specs, alternate_steps=slow_alternate)
        saved_config = session.get_config()
        session.start_for_cli(output, aggregate_stats=True,
                              **_config.kwargs_for_mode(mode_bits))
        code = _run_target(module, target, args)   # Ctrl-C in it: KeyboardInterrupt
        kept = None
        if code != 0:
            _tell_other_ranks(code)
            if os.path.exists(output):   # a failed run never replaces a profile
                kept, output = output, ranks.failed_filename(output)
        with engine.signals.stop_on_signal() as stop:   # now a signal ends the drain
            files = _finish(session, engine, stop, output)
            _trace_written()
    finally:
        _restore_process_state(saved)
    unmatched = []
    if slow_specs:
        from xprof.runtime import slow
        unmatched = slow.unmatched()
        slow.install(())
    if kept is not None:
        click.echo(f"xprof: the script failed (exit code {code}): its profile is "
                   f"{_shown(output)}; {_shown(kept)} is unchanged", err=True)
    if not quiet:
        if session.script_configured():
            click.echo("xprof: the script configured the profiler itself; recording "
                       "followed its own calls", err=True)
        _report(output, files, show_stats)
    if baseline is not None:
        _diff_against(baseline, output)
    if write_html or open_view or not quiet:
        _after_run(output, write_html, open_view, quiet)
    if session.state() == "stop":
        # in-process callers (CliRunner) get the profiler configured as before the run
        session.set_config(**saved_config)
        session.clear_script_configured()
    del mx
    if unmatched and code == 0:
        fail(f"--slow {unmatched[0]!r} slowed no op of this run (the trace names its ops: "
             f"xprof stats {output}; a custom op is custom:TYPE)")
    sys.exit(code)


def _tell_other_ranks(code):
    """A rank whose script failed: tell the launcher (the job folder: this rank is
    where the failure started, unless another rank's failure stopped it) and, in an MPI
    job, the other ranks, so they stop within seconds instead of waiting for it in a
    collective (``runtime/dist/faults``)."""
    from xprof.runtime.engine import signals
    from xprof.runtime.profiler import ranks
    from xprof.traces import jobdir

    faults = sys.modules.get("xprof.runtime.dist.faults")
    how = f"exit code {code}"
    if signals.terminated:   # SIGTERM became SystemExit(128 + 15)
        how = f"stopped by SIGTERM, {how}"
    folder = jobdir.current()
    if folder and ranks.rank() is not None and (faults is None or faults.healthy()):
        jobdir.failed(folder, ranks.rank(), how)
    if faults is not None:
        faults.announce(how)


def _trace_written():
    """A rank of an MPI job that failed: the other ranks may exit now (see
    ``runtime/dist/faults.finished``)."""
    faults = sys.modules.get("xprof.runtime.dist.faults")
    if faults is not None:
        faults.finished()


def _diff_against(baseline, output):
    """``--baseline``: the diff of the earlier profile against this run's, on stderr
    (the run's stdout is the script's)."""
    from xprof.mxcli.analysis.diff import diff
    from xprof.mxcli.streaming.pair import load_pair
    from xprof.mxcli.errors import XprofError
    from xprof.mxcli.render import diff_table

    try:
        doc = diff(*load_pair(baseline, output))
    except XprofError as e:
        click.echo(f"xprof: no diff against {baseline}: {e.format_message()}", err=True)
        return
    click.echo(f"xprof: diff of {baseline} (A) against this run (B):", err=True)
    diff_table(doc, sys.stderr)


def _shown(path):
    """``path`` relative to the current folder when it is inside it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _after_run(path, write_html, open_view, quiet):
    """The report (``--report``), the command that views the trace, the view (``--open``)."""
    import shlex

    from xprof.mxcli.errors import XprofError

    if write_html:
        from xprof.mxcli.render.html.output import default_output, write_report
        try:
            out = default_output(path)
            write_report(path, out)
            if not quiet:
                click.echo(f"xprof: report written to {_shown(out)}", err=True)
        except XprofError as e:
            click.echo(f"xprof: no report: {e.format_message()}", err=True)
    if not quiet:
        click.echo(f"xprof: view it with: xprof view {shlex.quote(_shown(path))}", err=True)
    if open_view:
        from xprof.mxcli.serve.perfetto import serve
        try:
            serve(path, echo=lambda line: click.echo(line, err=True))
        except XprofError as e:
            click.echo(f"xprof: cannot open the view: {e.format_message()}", err=True)


def _report(output, files, show_stats):
    from xprof.mxcli.render.summary import print_summary
    print_summary(output, show_stats, files)

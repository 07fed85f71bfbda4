"""``xprof run --nproc N``: start N profiled copies of a script as one job.

Each copy is ``xprof run`` itself (same options, without ``--nproc``) in a child
process with the variables a torchrun-style launcher sets: ``RANK`` and
``LOCAL_RANK`` (0..N-1), ``WORLD_SIZE`` and ``LOCAL_WORLD_SIZE`` (N). The profiler
of each copy sees its rank and writes its own file (``profile.rank{R}.json`` for
``-o profile.json``; see ``runtime/profiler/ranks.py``), so no two copies write one
file. SIGINT and SIGTERM are passed on to every copy; the job's exit code is the
first non-zero exit code in rank order (0 when every copy succeeded).
"""
import os
import signal
import subprocess
import sys

import click

_RANK_ENV = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE")


def copy_arguments(ctx, leave_out):
    """The command line of ``xprof run`` that ``ctx`` parsed, without the options
    named in ``leave_out``: every option whose value is not its default, then the
    script (or ``-m MODULE``) and its arguments."""
    argv = []
    module = None
    rest = ()
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if isinstance(param, click.Argument):
            rest = value
            continue
        if param.name in leave_out or value is None or value == param.default:
            continue
        if param.name == "module":
            module = value
        elif param.is_flag:
            if value:
                argv.append(param.opts[0])
            elif param.secondary_opts:
                argv.append(param.secondary_opts[0])
        elif param.multiple:
            for v in value:
                argv += [param.opts[0], str(v)]
        else:
            argv += [param.opts[0], str(value)]
    if module is not None:
        argv += ["-m", module]
    return argv + list(rest)


def run_copies(nproc, argv, output, quiet):
    """Run ``xprof run ARGV`` ``nproc`` times at once, ranked; return the exit code."""
    from xprof.runtime.profiler import ranks

    procs = []
    for r in range(nproc):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(nproc),
                   LOCAL_WORLD_SIZE=str(nproc))
        procs.append(subprocess.Popen([sys.executable, "-m", "xprof.cli", "run", *argv],
                                      env=env))

    def forward(signum, frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        codes = [p.wait() for p in procs]
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    files = [ranks.filename_for_rank(output, r) for r in range(nproc)]
    present = [f for f in files if os.path.exists(f)]
    if not quiet:
        click.echo(f"xprof: {nproc} processes ran; profiles: {', '.join(present) or 'none'}"
                   + (f"; one timeline: xprof trace {' '.join(present)} -o merged.json"
                      if len(present) > 1 else ""), err=True)
    return next((c for c in codes if c != 0), 0)

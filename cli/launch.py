"""``xprof run --nproc N``: start N profiled copies of a script as one job.

Each copy is ``xprof run`` itself (same options, without ``--nproc``) in a child
process with the variables a torchrun-style launcher sets: ``RANK`` and
``LOCAL_RANK`` (0..N-1), ``WORLD_SIZE`` and ``LOCAL_WORLD_SIZE`` (N). The profiler
of each copy sees its rank and writes its own file (``profile.rank{R}.json`` for
``-o profile.json``; see ``runtime/profiler/ranks.py``), so no two copies write one
file. SIGINT and SIGTERM are passed on to every copy. A rank that fails ends the job
(the others stopped, then killed after a grace period), ``--timeout`` bounds it, a copy
dies with its launcher; the job's exit code is the failed rank's (see
:func:`run_copies`).
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


FAIL_GRACE = 3.0   # s the other ranks may finish on their own after one failed
KILL_GRACE = 5.0   # s between SIGTERM and SIGKILL when the job is stopped
LAUNCHER_ENV = "XPROF_RUN_LAUNCHER_PID"   # a copy dies with the launcher of this pid


def die_with_launcher():
    """In a copy: ask the kernel for SIGTERM when the launcher that started it dies
    (Linux ``PR_SET_PDEATHSIG``), so a killed launcher leaves no orphan ranks; if it is
    already gone, stop now."""
    pid = os.environ.get(LAUNCHER_ENV)
    if not pid or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, ValueError):
        return
    if os.getppid() != int(pid):   # the launcher died before the request: it will not come
        os.kill(os.getpid(), signal.SIGTERM)


def _how(code):
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit code {code}"


def run_copies(nproc, argv, output, quiet, timeout=None):
    """Run ``xprof run ARGV`` ``nproc`` times at once, ranked; return the exit code.

    A rank that fails ends the job: the others get :data:`FAIL_GRACE` seconds to end on
    their own, then SIGTERM (each writes its profile), then SIGKILL after
    :data:`KILL_GRACE`; the exit code is the failed rank's (128 + the signal's number
    for a signal) and one line says which rank failed and how. ``timeout``: the job's
    whole time, after which it is stopped the same way (exit code 124). SIGINT and
    SIGTERM are passed on to every rank. Each rank dies with the launcher."""
    import time

    from xprof.runtime.profiler import ranks

    procs = []
    for r in range(nproc):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(nproc),
                   LOCAL_WORLD_SIZE=str(nproc), **{LAUNCHER_ENV: str(os.getpid())})
        procs.append(subprocess.Popen([sys.executable, "-m", "xprof.cli", "run", *argv],
                                      env=env))

    def forward(signum, frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    start = time.monotonic()
    failed = timed_out = None
    stop_at = kill_at = None
    try:
        while [p.poll() for p in procs].count(None):   # every rank polled, each round
            now = time.monotonic()
            if failed is None:
                for r, p in enumerate(procs):
                    if p.returncode not in (None, 0):
                        failed = (r, p.returncode)
                        click.echo(f"xprof: rank {r} failed ({_how(p.returncode)}); "
                                   f"stopping the other ranks", err=True)
                        stop_at = min(stop_at or now + FAIL_GRACE, now + FAIL_GRACE)
                        break
            if timeout is not None and timed_out is None and now - start > timeout:
                timed_out = True
                click.echo(f"xprof: the job ran past --timeout {timeout:g} s; stopping "
                           f"its ranks", err=True)
                stop_at = now
            if stop_at is not None and now >= stop_at and kill_at is None:
                forward(signal.SIGTERM, None)
                kill_at = now + KILL_GRACE
            if kill_at is not None and now >= kill_at:
                for p in procs:
                    if p.poll() is None:
                        p.kill()
            time.sleep(0.05)
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
    if timed_out:
        return 124
    code = failed[1] if failed is not None else next((c for c in codes if c != 0), 0)
    return 128 - code if code < 0 else code

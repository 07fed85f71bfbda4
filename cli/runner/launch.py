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

With the ``xprof-mx[dist]`` extra installed (mpi4py and an ``mpiexec``), the copies are
started by ``mpiexec`` instead (:func:`run_mpi`), so they form one MPI job and the
distributed kvstores can talk; ``--hostfile`` then spreads them over machines. The
ranks then see their rank from MPI's variables (``PMI_RANK``), and a failing rank tells
the others itself (``runtime/dist/faults.py``).
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


_MPI_ENV = (("RANK", ("PMI_RANK", "OMPI_COMM_WORLD_RANK")),
            ("WORLD_SIZE", ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")),
            ("LOCAL_RANK", ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK")),
            ("LOCAL_WORLD_SIZE", ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")))


def rank_env_from_mpi():
    """In a rank started by ``mpiexec``: set the torchrun-style variables (``RANK``,
    ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``) from MPI's, unless set, so a
    script reads its rank the same way whichever launcher started it."""
    for name, sources in _MPI_ENV:
        if name in os.environ:
            continue
        value = next((os.environ[s] for s in sources if s in os.environ), None)
        if value is not None:
            os.environ[name] = value


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
    from xprof.mxcli.runner.keeper import how_it_ended
    return how_it_ended(code)


def mpiexec():
    """The ``mpiexec`` that starts the ranks: ``XPROF_RUN_MPIEXEC`` when set (a path, or
    ``none`` for xprof's own launcher), else the dist extra's (next to this Python
    first, then on PATH); None when mpi4py or an ``mpiexec`` is missing (found without
    starting MPI here)."""
    import importlib.util
    import shutil

    from xprof.runtime import _env

    chosen = _env.get("RUN_MPIEXEC")
    if chosen is not None:
        return None if chosen.lower() == "none" else chosen
    if importlib.util.find_spec("mpi4py") is None:
        return None
    here = os.path.dirname(sys.executable)
    return shutil.which("mpiexec", path=here) or shutil.which("mpiexec")


def _mpiexec_command(exe, nproc, hostfile):
    """The launch line for MPICH's Hydra (the extra's) or Open MPI's ``mpiexec``."""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    if "Open MPI" in out.stdout + out.stderr or "OpenRTE" in out.stdout + out.stderr:
        cmd = [exe, "-n", str(nproc), "--oversubscribe", "--allow-run-as-root"]
        return cmd + (["--hostfile", hostfile] if hostfile else [])
    # Hydra: a rank that dies (its keeper exits unfinalized) must not take the others
    # down: they are told by SIGUSR1 and stop themselves, writing their traces
    cmd = [exe, "-disable-auto-cleanup", "-n", str(nproc)]
    return cmd + (["-f", hostfile] if hostfile else [])


def run_mpi(exe, nproc, argv, output, quiet, timeout=None, hostfile=None):
    """Run ``xprof run ARGV`` as ``nproc`` MPI ranks through ``mpiexec``; its exit code.

    ``mpiexec`` runs in a session of its own: SIGINT and SIGTERM are passed on to it
    (Hydra passes them to every rank, which writes its profile), ``timeout`` stops it
    the same way (exit code 124), and :data:`KILL_GRACE` seconds after a stop whatever
    is left of the session on this machine is killed; it gets SIGTERM if the launcher
    dies. A rank's failure is the ranks'
    own business (they stop each other, ``runtime/dist/faults.py``); ``mpiexec`` exits
    with the failed rank's code."""
    import time

    cmd = _mpiexec_command(exe, nproc, hostfile) + [sys.executable, "-m", "xprof.mxcli",
                                                     "run", *argv]
    env = {k: v for k, v in os.environ.items() if k not in _RANK_ENV + (LAUNCHER_ENV,)}
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            preexec_fn=_term_with_parent)

    start = time.monotonic()
    timed_out = False
    kill_at = None

    def forward(signum, frame):
        """Pass the signal on; ranks still running :data:`KILL_GRACE` s later are
        killed (a rank stuck where no signal is handled must not keep the job)."""
        nonlocal kill_at
        if proc.poll() is None:
            proc.send_signal(signum)
        if kill_at is None:
            kill_at = time.monotonic() + KILL_GRACE

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while proc.poll() is None:
            now = time.monotonic()
            if timeout is not None and not timed_out and now - start > timeout:
                timed_out = True
                click.echo(f"xprof: the job ran past --timeout {timeout:g} s; stopping "
                           f"its ranks", err=True)
                forward(signal.SIGTERM, None)
            if kill_at is not None and now >= kill_at:
                _killpg(proc.pid)
            time.sleep(0.05)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _kill_session(proc, KILL_GRACE if kill_at is None else
                      max(0.0, kill_at - time.monotonic()))
    _summary(nproc, output, quiet)
    if timed_out:
        return 124
    code = proc.returncode
    return 128 - code if code < 0 else code


def _term_with_parent():
    """In ``mpiexec``, before it starts: SIGTERM when this launcher dies (Linux
    ``PR_SET_PDEATHSIG``); Hydra passes it on to every rank, so a killed launcher
    leaves nothing behind."""
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))


def _kill_session(proc, grace=0.0):
    """Kill what is left of ``mpiexec``'s session (its proxies and ranks on this
    machine) once it is gone, after up to ``grace`` seconds for the ranks to end on
    their own: Hydra may exit before the ranks it signalled have written their
    traces."""
    import time

    if proc.poll() is None:   # the launcher itself is ending (an exception): now
        _killpg(proc.pid)
    proc.wait()
    deadline = time.monotonic() + grace
    while _session_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    _killpg(proc.pid)


def _killpg(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _session_alive(sid):
    """Whether a process of session ``sid`` is still running (Linux's /proc; elsewhere
    False: the session is killed at once)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:   # state, ..., session
            return True
    return False


def _summary(nproc, output, quiet):
    """One line: the profiles the ranks wrote and how to merge them."""
    from xprof.runtime.profiler import ranks

    files = [ranks.filename_for_rank(output, r) for r in range(nproc)]
    present = [f for f in files if os.path.exists(f)]
    if not quiet:
        click.echo(f"xprof: {nproc} processes ran; profiles: {', '.join(present) or 'none'}"
                   + (f"; one timeline: xprof trace {' '.join(present)} -o merged.json"
                      if len(present) > 1 else ""), err=True)


def run_copies(nproc, argv, output, quiet, timeout=None):
    """Run ``xprof run ARGV`` ``nproc`` times at once, ranked; return the exit code.

    A rank that fails ends the job: the others get :data:`FAIL_GRACE` seconds to end on
    their own, then SIGTERM (each writes its profile), then SIGKILL after
    :data:`KILL_GRACE`; the exit code is the failed rank's (128 + the signal's number
    for a signal) and one line says which rank failed and how. ``timeout``: the job's
    whole time, after which it is stopped the same way (exit code 124). SIGINT and
    SIGTERM are passed on to every rank. Each rank dies with the launcher."""
    import time

    procs = []
    for r in range(nproc):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(nproc),
                   LOCAL_WORLD_SIZE=str(nproc), **{LAUNCHER_ENV: str(os.getpid())})
        procs.append(subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", *argv],
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
    _summary(nproc, output, quiet)
    if timed_out:
        return 124
    code = failed[1] if failed is not None else next((c for c in codes if c != 0), 0)
    return 128 - code if code < 0 else code

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
import time

import click

from xprof.traces import jobdir

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
END_GRACE = 60.0   # s the others may still run after one ended well (--end-grace)
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


def run_mpi(exe, nproc, argv, output, quiet, timeout=None, hostfile=None,
            end_grace=END_GRACE):
    """Run ``xprof run ARGV`` as ``nproc`` MPI ranks through ``mpiexec``; its exit code.

    ``mpiexec`` runs in a session of its own: SIGINT and SIGTERM are passed on to it
    (Hydra passes them to every rank, which writes its profile), and it gets SIGTERM if
    the launcher dies. The ranks' keepers tell the launcher each rank's process id and
    how it ended, and a failing rank says so first (the job folder,
    ``xprof.traces.jobdir``), so the job ends as :func:`run_copies`' does, with or
    without a kvstore: one line names the failed rank, the others get
    :data:`FAIL_GRACE` seconds (with a kvstore they stop each other,
    ``runtime/dist/faults.py``), then SIGTERM, each writing its profile; ``timeout`` and
    ``end_grace`` bound the job the same way; :data:`KILL_GRACE` seconds after a stop
    whatever is left of the session on this machine is killed. The exit code is the
    failed rank's."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="xprof-job-")
    jobdir.launching(folder, os.getpid())
    cmd = _mpiexec_command(exe, nproc, hostfile) + [sys.executable, "-m", "xprof.mxcli",
                                                     "run", *argv]
    env = {k: v for k, v in os.environ.items() if k not in _RANK_ENV + (LAUNCHER_ENV,)}
    env[jobdir.ENV] = folder
    started = time.time()
    proc = subprocess.Popen(cmd, env=env, start_new_session=True,
                            preexec_fn=_term_with_parent)
    ranks = _MpiRanks(proc, folder, nproc)
    try:
        verdict = _watch(ranks, timeout, end_grace)
    finally:
        _kill_session(proc, KILL_GRACE if ranks.kill_at is None else
                      max(0.0, ranks.kill_at - time.monotonic()))
        codes = jobdir.read(folder)["end"]
        shutil.rmtree(folder, ignore_errors=True)
    _summary(nproc, output, quiet, started)
    return _job_code(verdict, codes, proc.returncode)


class _MpiRanks:
    """The ranks of an ``mpiexec`` job as the launcher sees them: through the job
    folder (how each ended, which failed first, their process ids) and ``mpiexec``."""

    def __init__(self, proc, folder, nproc):
        self.proc, self.folder, self.nproc = proc, folder, nproc
        self.kill_at = None
        self.state = jobdir.read(folder)

    def running(self):
        self.state = jobdir.read(self.folder)
        return self.proc.poll() is None

    def ended(self):
        return self.state["end"]

    def notes(self):
        return self.state["failed"]

    def times(self):
        return self.state["at"]

    def signal(self, signum):
        """A signal of the user's: to ``mpiexec``, which passes it to every rank."""
        if self.proc.poll() is None:
            self.proc.send_signal(signum)

    def stop(self):
        """SIGTERM to each rank still running (its own process: its keeper ignores it),
        and to ``mpiexec`` for ranks this machine does not see."""
        ended = self.state["end"]
        for rank, pid in self.state["pid"].items():
            if rank not in ended:
                _kill(pid, signal.SIGTERM)
        if len(self.state["pid"]) < self.nproc:
            self.signal(signal.SIGTERM)

    def kill(self):
        _killpg(self.proc.pid)


class _Copies:
    """The ranks of :func:`run_copies`: child processes of the launcher."""

    def __init__(self, procs):
        self.procs = procs
        self.kill_at = None

    def running(self):
        return [p.poll() for p in self.procs].count(None) > 0   # every rank polled

    def ended(self):
        return {r: p.returncode for r, p in enumerate(self.procs) if p.returncode is not None}

    def notes(self):
        return {}

    def times(self):
        return {}

    def signal(self, signum):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signum)

    def stop(self):
        self.signal(signal.SIGTERM)

    def kill(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()


def _watch(ranks, timeout, end_grace):
    """Wait for the job's end, stopping it when one rank failed (after
    :data:`FAIL_GRACE`), when it ran past ``timeout``, or when the others still run
    ``end_grace`` seconds after a rank ended well: SIGTERM, then SIGKILL after
    :data:`KILL_GRACE`. SIGINT and SIGTERM are passed on. Returns ``("failed", rank,
    how)``, ``("stopped", why)`` or None (the job ended by itself)."""
    verdict = None
    stop_at = None
    first_end = None
    signalled = []

    def forward(signum, frame):
        signalled.append(signum)
        ranks.signal(signum)
        if ranks.kill_at is None:
            ranks.kill_at = time.monotonic() + KILL_GRACE

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    start = time.monotonic()
    stopped = False
    try:
        while ranks.running():
            now = time.monotonic()
            ended = ranks.ended()
            if verdict is None and not signalled:
                failed = _first_failure(ranks.notes(), ended, ranks.times())
                if failed is not None:
                    verdict = ("failed", *failed)
                    click.echo(f"xprof: rank {failed[0]} failed ({failed[1]}); stopping the "
                               f"other ranks", err=True)
                    stop_at = now + FAIL_GRACE
                elif timeout is not None and now - start > timeout:
                    verdict = ("stopped", "timeout")
                    click.echo(f"xprof: the job ran past --timeout {timeout:g} s; stopping "
                               f"its ranks", err=True)
                    stop_at = now
                elif ended and first_end is None:
                    first_end = now
                elif first_end is not None and now - first_end > end_grace:
                    verdict = ("stopped", "end grace")
                    done = ", ".join(map(str, sorted(ended)))
                    click.echo(f"xprof: rank{'s' if len(ended) > 1 else ''} {done} ended "
                               f"{end_grace:g} s ago and the others still run; stopping "
                               f"them (--end-grace)", err=True)
                    stop_at = now
            if stop_at is not None and now >= stop_at and not stopped:
                stopped = True
                ranks.stop()
                ranks.kill_at = ranks.kill_at or now + KILL_GRACE
            if ranks.kill_at is not None and now >= ranks.kill_at:
                ranks.kill()
            time.sleep(0.05)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if verdict is None and not signalled:   # ended before a look found it failing
        failed = _first_failure(ranks.notes(), ranks.ended(), ranks.times())
        if failed is not None:
            verdict = ("failed", *failed)
            click.echo(f"xprof: rank {failed[0]} failed ({failed[1]})", err=True)
    return verdict


def _first_failure(notes, ended, at=None):
    """``(rank, how)`` of the rank a failure started from: of those that said they failed
    (``notes``) or ended badly, the first (``at``: when each was written, the job
    folder's; a rank stopped by another's end writes after it), the lowest rank among
    equals; a rank's own word says best how."""
    at = at or {}
    failed = {r: (at.get(("failed", r), 0), notes[r]) for r in notes}
    for r, c in ended.items():
        if c != 0 and r not in failed:
            failed[r] = (at.get(("end", r), 0), _how(c))
    if not failed:
        return None
    rank = min(failed, key=lambda r: (failed[r][0], r))
    return rank, failed[rank][1]


def _job_code(verdict, codes, fallback):
    """The job's exit code: 124 when stopped (timeout or end grace), the failed rank's
    (128 + N for signal N), else the first non-zero one."""
    if verdict is not None and verdict[0] == "stopped":
        return 124
    if verdict is not None and verdict[1] in codes:
        code = codes[verdict[1]]
    else:
        code = next((c for c in codes.values() if c != 0), fallback or 0)
    if code == 0 and verdict is not None:
        code = 1
    return 128 - code if code < 0 else code


def _kill(pid, signum):
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


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


def _summary(nproc, output, quiet, started):
    """One line: the profiles the ranks wrote (a failed rank's beside an earlier one,
    ``ranks.failed_filename``), which ranks wrote none, and how to merge them."""
    from xprof.runtime.profiler import ranks

    present, missing = [], []
    for r in range(nproc):
        name = ranks.filename_for_rank(output, r)
        written = [f for f in (name, ranks.failed_filename(name))
                   if os.path.exists(f) and os.path.getmtime(f) >= started - 1]
        if written:
            present.append(max(written, key=os.path.getmtime))
        else:
            missing.append(r)
    if not quiet or missing:
        line = f"xprof: {nproc} processes ran; profiles: {', '.join(present) or 'none'}"
        if missing:
            line += f"; no profile from rank{'s' if len(missing) > 1 else ''} " + \
                ", ".join(map(str, missing))
        if len(present) > 1 and not quiet:
            line += f"; one timeline: xprof trace {' '.join(present)} -o merged.json"
        click.echo(line, err=True)


def run_copies(nproc, argv, output, quiet, timeout=None, end_grace=END_GRACE):
    """Run ``xprof run ARGV`` ``nproc`` times at once, ranked; return the exit code.

    A rank that fails ends the job: the others get :data:`FAIL_GRACE` seconds to end on
    their own, then SIGTERM (each writes its profile), then SIGKILL after
    :data:`KILL_GRACE`; the exit code is the failed rank's (128 + the signal's number
    for a signal) and one line says which rank failed and how. ``timeout``: the job's
    whole time, after which it is stopped the same way (exit code 124); ``end_grace``:
    how long the others may still run once one rank has ended well (then the same).
    SIGINT and SIGTERM are passed on to every rank. Each rank dies with the launcher."""
    procs = []
    started = time.time()
    for r in range(nproc):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(nproc),
                   LOCAL_WORLD_SIZE=str(nproc), **{LAUNCHER_ENV: str(os.getpid())})
        procs.append(subprocess.Popen([sys.executable, "-m", "xprof.mxcli", "run", *argv],
                                      env=env))
    ranks = _Copies(procs)
    try:
        verdict = _watch(ranks, timeout, end_grace)
        codes = {r: p.wait() for r, p in enumerate(procs)}
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    _summary(nproc, output, quiet, started)
    return _job_code(verdict, codes, 0)

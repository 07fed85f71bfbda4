"""``xprof run --nproc``'s job folder: how a job's processes tell each other how its ranks
end, on this machine.

Under ``mpiexec`` the launcher sees only ``mpiexec``, which says nothing of which rank
failed, and a rank still starting MPI cannot hear anything over MPI. So the launcher
makes a folder for the job and names it in ``XPROF_RUN_JOB_DIR``; every rank's keeper
(``cli/runner/keeper.py``) and every rank write small files there, each whole when it appears
(written, then renamed):

- ``launcher.pid``: the launcher's process id: a keeper whose launcher is gone (killed
  by SIGKILL: it could tell no one) stops its rank;
- ``rank<R>.pid``: the rank's process id (its keeper writes it when it starts the rank),
  so the launcher can stop the rank itself;
- ``rank<R>.failed``: the rank's script failed (written by the rank itself before it
  tells anyone, so it names the rank the failure started from, not one stopped by it):
  how, e.g. ``exit code 3``;
- ``rank<R>.end``: the rank ended, with this exit code (negative: killed by that
  signal), written by its keeper.

The launcher reads them to name the failed rank and stop the others
(``cli/runner/launch.py``); a rank about to start MPI reads them to learn that a rank has
already ended, so MPI can never start (``runtime/dist/mpi.py``). Standard library only:
the keeper writes before anything else is imported.
"""
import os

ENV = "XPROF_RUN_JOB_DIR"


def current():
    """The job folder this process belongs to, or None."""
    return os.environ.get(ENV) or None


def _write(folder, name, text):
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(folder, name))
    except OSError:   # the launcher is gone with its folder: nobody to tell
        pass


def launching(folder, pid):
    """The launcher's process id, for the keepers: a rank whose launcher is gone stops."""
    _write(folder, "launcher.pid", str(pid))


def launcher(folder):
    """The launcher's process id, or None (no such file: another machine's folder)."""
    try:
        with open(os.path.join(folder, "launcher.pid")) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def started(folder, rank, pid):
    _write(folder, f"rank{rank}.pid", str(pid))


def failed(folder, rank, how):
    _write(folder, f"rank{rank}.failed", how)


def ended(folder, rank, code):
    _write(folder, f"rank{rank}.end", str(code))


def read(folder):
    """``{"pid": {rank: pid}, "failed": {rank: how}, "end": {rank: code}, "at": {(kind,
    rank): ns}}``: ``at``, when each file was written (which failure came first)."""
    out = {"pid": {}, "failed": {}, "end": {}, "at": {}}
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for name in names:
        stem, dot, kind = name.partition(".")
        if not dot or kind not in out or not stem.startswith("rank") \
                or not stem[4:].isdigit():
            continue
        try:
            with open(os.path.join(folder, name)) as f:
                text = f.read()
                at = os.fstat(f.fileno()).st_mtime_ns
            out[kind][int(stem[4:])] = text if kind == "failed" else int(text)
            out["at"][(kind, int(stem[4:]))] = at
        except (OSError, ValueError):
            continue
    return out

"""Which process of a launched job this is, and what that changes in its profile.

A job started by a launcher (``mpirun``, ``torchrun``-style launchers, ``xprof run
--nproc N``) runs several copies of one script that would all write the same
``profile.json``. Each copy knows its rank from the environment: ``RANK`` (with
``WORLD_SIZE``, ``LOCAL_RANK``: torchrun, ``xprof run --nproc``), or Open MPI's
``OMPI_COMM_WORLD_RANK`` / ``OMPI_COMM_WORLD_SIZE``, or MPICH/Slurm's ``PMI_RANK`` /
``PMI_SIZE``. A ranked process writes ``<stem>.rank<R><ext>`` (``profile.rank1.json``)
instead of the configured file name, unless that name says where the rank goes
(``{rank}``: ``filename="trace-{rank}.json"``), so no two processes write one file;
its process track is named ``rank R: ...`` and the trace's ``otherData`` holds
``rank`` and ``world_size``.
"""
import os

from xprof.traces.rules import rank_label

__all__ = ["rank", "world_size", "filename_for_rank", "process_label"]

_RANK_VARS = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK")
_SIZE_VARS = ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


def _first_int(names, environ):
    for name in names:
        value = environ.get(name)
        if value is not None and value.strip().isdigit():
            return int(value)
    return None


def rank(environ=None):
    """This process's rank in its job, or None when it was not launched as one."""
    return _first_int(_RANK_VARS, os.environ if environ is None else environ)


def world_size(environ=None):
    """The job's number of processes (None when not known)."""
    return _first_int(_SIZE_VARS, os.environ if environ is None else environ)


def filename_for_rank(filename, r):
    """The file a process of rank ``r`` writes for the configured ``filename``
    (``filename`` itself when ``r`` is None; ``{rank}`` is then 0). A name that is
    already rank ``r``'s is kept."""
    if "{rank}" in filename:
        return filename.replace("{rank}", str(r or 0))
    if r is None:
        return filename
    folder, base = os.path.split(filename)
    stem, ext = base, ""
    for suffix in (".json.gz", ".json", ".gz"):
        if base.endswith(suffix) and len(base) > len(suffix):
            stem, ext = base[:-len(suffix)], suffix
            break
    else:
        stem, ext = os.path.splitext(base)
    if stem.endswith(f".rank{r}"):
        return filename      # already this rank's (idempotent)
    return os.path.join(folder, f"{stem}.rank{r}{ext}")


def process_label(r):
    """The prefix of a ranked process's name in its trace (``rank 1``: the readers'
    rule, ``xprof.traces.rules.rank_label``)."""
    return rank_label(r)


def failed_filename(path):
    """Where a failed run's profile goes when ``path`` already holds one (``xprof run``
    never replaces a profile with a failed run's): ``good.json`` -> ``good.failed.json``
    (``a.json.gz`` -> ``a.failed.json.gz``, ``p.rank1.json`` -> ``p.rank1.failed.json``)."""
    folder, name = os.path.split(path)
    stem, ext = os.path.splitext(name)
    if ext == ".gz" and stem.endswith(".json"):
        stem, ext = stem[:-len(".json")], ".json.gz"
    return os.path.join(folder, f"{stem}.failed{ext}")

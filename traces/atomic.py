"""Write a file so that it is never seen half-written: temp file in the same folder, then
rename. A reader (or a crash, or a failed run) finds either the old complete file or
the new one; the temp file of a writer that was killed mid-write (SIGKILL, a crash) is
removed by the next write to the same path."""
import os
import tempfile


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates files readable by their owner only; a written file gets the permissions
# an ordinary open() would give it, as MXNet's files have.
FILE_MODE = 0o666 & ~_umask()


# A temp file is named ``.xprof-<pid>-<target name>.<random>.tmp``: the next write to
# the same path knows which leftovers are its own and whether their writer still runs.
_PREFIX, _SUFFIX = ".xprof-", ".tmp"
_TAG_CHARS = 100   # of the target's name (a file name has at most 255 bytes)


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True   # someone else's process, or not knowable: leave its file alone
    return True


def remove_stale(folder, tag):
    """Remove temp files for the target named ``tag`` in ``folder`` that a writer left
    behind when it was killed mid-write (its process no longer exists)."""
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
                continue
            pid, _, rest = name[len(_PREFIX):-len(_SUFFIX)].partition("-")
            if not pid.isdigit() or rest.rpartition(".")[0] != tag or _alive(int(pid)):
                continue
            try:
                os.unlink(entry.path)
            except OSError:
                pass   # removed by another writer meanwhile, or not ours to remove


def write_atomic(path, data, compress=False, durable=False, keep=None):
    """Write ``data`` (bytes, or an iterable of byte chunks) to ``path`` atomically.

    ``compress``: gzip it (deterministic: no time stamp in the header). ``durable``:
    fsync before the rename, so the new file survives a machine crash too. ``keep(tmp)``,
    called once everything is written, may refuse the new file: it is then removed and
    the old one stays. Returns whether ``path`` was replaced.
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    tag = name[:_TAG_CHARS]
    remove_stale(folder, tag)
    fd, tmp = tempfile.mkstemp(prefix=f"{_PREFIX}{os.getpid()}-{tag}.", suffix=_SUFFIX,
                               dir=folder)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as raw:
            sink = raw
            if compress:
                import gzip
                sink = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0)
            for chunk in ((data,) if isinstance(data, (bytes, bytearray, memoryview))
                          else data):
                sink.write(chunk)
            if compress:
                sink.close()
            if durable:
                raw.flush()
                os.fsync(raw.fileno())
        if keep is not None and not keep(tmp):
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
        return True
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename in (None, tmp):
            # a full disk while writing names no file, a failed rename the temp one:
            # the error names the file that was being written
            raise OSError(exc.errno, exc.strerror, path) from exc
        raise

"""Write a file so that it is never seen half-written: temp file in the same folder, then
rename. A reader (or a crash, or a failed run) finds either the old complete file or
the new one."""
import os
import tempfile


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates files readable by their owner only; a written file gets the permissions
# an ordinary open() would give it, as MXNet's files have.
FILE_MODE = 0o666 & ~_umask()


def write_atomic(path, data, compress=False, durable=False, keep=None):
    """Write ``data`` (bytes, or an iterable of byte chunks) to ``path`` atomically.

    ``compress``: gzip it (deterministic: no time stamp in the header). ``durable``:
    fsync before the rename, so the new file survives a machine crash too. ``keep(tmp)``,
    called once everything is written, may refuse the new file: it is then removed and
    the old one stays. Returns whether ``path`` was replaced.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".xprof-", suffix=".tmp", dir=folder)
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
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

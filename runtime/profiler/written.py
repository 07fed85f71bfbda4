"""A dump never removes events it wrote before: the file finished sessions were dumped
to, and how a later dump to it goes on from them.

A finished ``dump()`` releases the session's records. MXNet's next ``dump()`` to the
same file writes nothing (``dump()``, ``dumps(reset=True)``, ``dump()``) or appends a
second closing block that no reader parses (the profiler guide's ``set_state('run')``,
``set_state('stop')``, ``dump(finished=False)``). Here the next dump writes the earlier
sessions' events again, read back from the file (it is still the one written last, so
they are exactly those events; nothing is kept in memory), then its own after them on
the file's time base, as one valid trace (:class:`.chrome.Continued` numbers ids past
theirs). ``set_config`` starts a new profile, as MXNet's does (which removes the file);
a file removed or replaced by anyone else starts afresh too.
"""
import os

from .chrome import Continued


class WrittenFile:
    """The file the last finished session was dumped to: its path and stamp as that
    dump left it, the earlier events' length and numbering (:class:`.chrome.Continued`),
    and its first session's time zero and wall-clock start."""

    def __init__(self):
        self.forget()

    def forget(self):
        self.path = self.stamp = self.kept = self.base_ns = self.start_wall = None

    def continued(self, path):
        """The :class:`.chrome.Continued` a dump to ``path`` goes on from (the earlier
        sessions' events read back), or None when there is none to keep."""
        if self.kept is None:
            return None
        start, end = self.kept.span
        events = None
        if path == self.path and _stamp(path) == self.stamp:
            try:
                with open(path, "rb") as f:
                    f.seek(start)
                    events = f.read(end - start)
            except OSError:
                events = None
        if events is None or len(events) != end - start:
            self.forget()
            return None
        return self.kept.copy(events)

    def wrote(self, path):
        """A dump has replaced ``path``, going on from the earlier sessions' events."""
        self.stamp = _stamp(path)

    def finished(self, path, after, base_ns, start_wall):
        """A finished dump wrote ``path``: its events are the ones to keep now (``after``,
        the :class:`.chrome.Continued` its encoding advanced), on the time base
        ``base_ns`` (the file's first session's)."""
        if self.kept is None or path != self.path:
            self.base_ns, self.start_wall = base_ns, start_wall
        self.path, self.kept, self.stamp = path, after, _stamp(path)


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns

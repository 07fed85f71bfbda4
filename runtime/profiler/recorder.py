"""Raw event recording: per-thread buffers stamped with ``perf_counter_ns``.

Recording must cost about a microsecond, so nothing is formatted here: each thread
appends to its own lists (no lock: only its owner appends), and the dump turns them into
Chrome trace events later. A buffer is registered once, when its thread first records,
with a small integer thread id and a human name for the trace.

What a record holds (plain slices as flat integers ``key, t0, t1`` in ``slices``,
every other kind as a tuple in ``events``) is defined in :mod:`.records`; who records
is the observer's business (:mod:`.observer`). Here: the buffers, their registration,
slice keys, snapshots. One ``list.extend`` of a 3-tuple records one slice (atomic under
the GIL, so a reader always sees whole records); integers are never walked by the
garbage collector, and the readers turn the list into numpy columns at once.
"""
import collections
import itertools
import threading
import weakref

from xprof.traces.names import INPUT_DIMS

from . import records
from .records import AB, AE, C, I, SUB, XA  # noqa: F401 - old spellings


class ThreadBuffer:
    """One thread's events (or, with ``track`` False, process-wide events such as
    counter samples, which get no thread track in the trace)."""

    __slots__ = ("tid", "name", "events", "slices", "packed", "converted", "ops",
                 "sort_index", "track", "thread", "process", "lines", "sampled")

    def __init__(self, tid, name, sort_index, track=True, thread=None):
        self.tid = tid
        self.name = name
        self.sort_index = sort_index
        self.events = []
        self.slices = []
        self.packed = []        # packed calls' values (records.call_here), for snapshot()
        self.converted = None   # slices already read as an int64 table (columns.table)
        self.ops = None         # op records already read as columns (deps.table)
        self.track = track
        self.thread = None if thread is None else weakref.ref(thread)   # the recorder
        self.process = None     # another process's track group (process_tracks.Process)
        self.lines = None       # its Python-line samples' buffer (:func:`lines_buffer`)
        self.sampled = None     # a lines buffer: the buffer whose thread it samples

    def released(self):
        """May this buffer go: its thread has ended and it holds no event (they were
        written by a finished dump, or it never recorded any)?"""
        if self.thread is None or self.events or self.slices or self.packed:
            return False
        thread = self.thread()
        return thread is None or not thread.is_alive()


_key_lock = threading.Lock()
_next_key = itertools.count().__next__   # keys are unique across categories
_ids_by_cat = {}


def key_ids(cat):
    """name -> key for category ``cat`` (the same dict for every caller). A missing name
    gets the next key on first use, inside the subscript (a ``defaultdict`` whose
    factory is C: atomic under the GIL), so a hot path looks its key up with one
    subscript, ``ids[name]``, at the speed of a plain dict (a dict subclass with
    ``__missing__`` routes every subscript through a Python-level slot)."""
    ids = _ids_by_cat.get(cat)
    if ids is None:
        with _key_lock:
            ids = _ids_by_cat.setdefault(cat, collections.defaultdict(_next_key))
    return ids


# (name, args signature) -> key of an operator slice that carries attributes: its input
# shapes (a tuple of shape tuples) or its attrs dict's items (:class:`OpArgs`). The
# attributes are part of the key, so the per-event record stays integers
# (``shaped_key_args`` gives the trace encoder each key's args)
shaped_keys = collections.defaultdict(_next_key)
SHAPED_CAT = "operator"


class OpArgs(tuple):
    """An op's attrs dict as a part of a slice key: its items, in order (values are
    strings or tuples of shapes, so the whole is hashable)."""

    __slots__ = ()


def sig_args(sig):
    """The trace ``args`` of a key's signature: a dict (``Input Dims`` of a shapes-only
    signature)."""
    return dict(sig) if type(sig) is OpArgs else {INPUT_DIMS: sig}


def shaped_key_sigs():
    """key -> signature (input shapes, or :class:`OpArgs`) of every such key given out."""
    return {key: sig for (_, sig), key in shaped_keys.copy().items()}


def shaped_key_args():
    """key -> trace args (a dict) of every key with attributes given out."""
    return {key: sig_args(sig) for (_, sig), key in shaped_keys.copy().items()}


def key_table():
    """key -> (name, cat) of every key given out so far, as a list indexed by key.
    Read it after taking a snapshot: every key the snapshot's slices use is in it."""
    pairs = [(key, name, cat) for cat, ids in list(_ids_by_cat.items())
             for name, key in ids.copy().items()]
    pairs += [(key, name, SHAPED_CAT) for (name, _), key in shaped_keys.copy().items()]
    table = [None] * (max((p[0] for p in pairs), default=-1) + 1)
    for key, name, cat in pairs:
        table[key] = (name, cat)
    return table


_tids = itertools.count()
buffers = []            # every ThreadBuffer ever registered, in tid order
_buffers_lock = threading.Lock()


# Where the tracks of threads with a declared role sort (engine/base.py: thread roles).
ROLE_ORDER = {"engine worker": 100, "custom op worker": 200}


def _describe(thread):
    """Name and sort position of a thread's track in the trace: the main thread first,
    then the threads whose creator declared their role (``thread.xprof_role``, a
    ``(role, index)`` pair) by role and index, then the others by name."""
    if thread is threading.main_thread():
        return "main thread", 0
    role = getattr(thread, "xprof_role", None)
    if role is not None:
        kind, index = role
        return f"{kind} {index}", ROLE_ORDER.get(kind, 1000) + index
    return thread.name, 1000


def register_thread(thread=None):
    thread = thread or threading.current_thread()
    name, sort_index = _describe(thread)
    return register_buffer(name, sort_index, thread=thread)


_sweep = [64]   # registering this many buffers releases the ended threads' empty ones


def register_buffer(name, sort_index=1000, track=True, thread=None):
    """A new buffer; ``track=False`` for events that belong to no thread. ``thread``:
    the thread that records into it, whose end lets :func:`release_ended` drop it."""
    with _buffers_lock:
        buf = ThreadBuffer(next(_tids), name, sort_index, track, thread)
        if sort_index == 1000:
            buf.sort_index = 1000 + buf.tid
        buffers.append(buf)
        if len(buffers) >= _sweep[0]:   # amortized: the sweep is O(buffers)
            _release_ended_locked()
    return buf


def release_ended():
    """Drop the buffers of threads that have ended once they hold no event (a finished
    dump wrote them): a program that keeps starting short-lived threads does not keep
    a buffer for each. Buffers with events stay until a dump has them."""
    with _buffers_lock:
        _release_ended_locked()


def _release_ended_locked():
    buffers[:] = [b for b in buffers if not b.released()]
    _sweep[0] = max(64, 2 * len(buffers))


def lines_buffer(buf):
    """The buffer holding the Python-line samples of ``buf``'s thread
    (:mod:`.sampler`): its own track in the trace, next to the thread's, because the
    folded samples nest among themselves but would cross the thread's own slices (an
    API call inside ``forward``). Made on first use; ended with the thread."""
    lines = buf.lines
    if lines is None:
        with _lines_lock:   # (the thread itself and the sampler may both ask first)
            lines = buf.lines
            if lines is None:
                thread = buf.thread() if buf.thread is not None else None
                lines = register_buffer("python lines: " + buf.name, buf.sort_index,
                                        thread=thread)
                lines.sampled = buf
                buf.lines = lines
    return lines


_lines_lock = threading.Lock()


class _Local(threading.local):
    """The calling thread's buffer, with ``add`` (its ``events.append``), ``add_slice``
    (its ``slices.extend``) and ``pack`` (its ``packed.extend``) bound once: the
    cheapest way to record (one thread-local read and one C call); ``tid``, its track
    (an op's pusher, stamped by the engine at every queued push)."""

    def __init__(self):
        self.buf = register_thread()
        self.tid = self.buf.tid
        self.add = self.buf.events.append
        self.add_slice = self.buf.slices.extend
        self.pack = self.buf.packed.extend


local = _Local()


def events():
    """The calling thread's event list (registers the thread on first use)."""
    return local.buf.events


def current_buffer():
    return local.buf


def snapshot():
    """(buffer, events count, slices length) for every buffer: a consistent prefix to
    read without locks. The packed calls recorded so far are unpacked into their
    buffers' events first (:func:`unpack`), so a snapshot holds the record kinds
    readers know."""
    with _buffers_lock:
        bufs = list(buffers)
        for b in bufs:
            if b.packed:
                unpack(b)
    return [(b, len(b.events), len(b.slices)) for b in bufs]


def unpack(buf):
    """Move ``buf``'s packed calls into its events as the records they stand for
    (:func:`.records.unpack_calls`). Called with the buffers' lock held, so two
    snapshots never take the same calls; the owner thread only extends the list
    meanwhile, one whole call at a time, past the ones taken."""
    packed = buf.packed
    k = len(packed)
    values = packed[:k]
    del packed[:k]
    buf.events.extend(records.unpack_calls(values, buf.tid))


def count(snap):
    """How many events a snapshot (or a difference of two) holds."""
    return sum(n + m // 3 for _, n, m in snap)


def clear(upto=None):
    """Drop the events in the snapshot ``upto`` (default: everything recorded so far)."""
    for buf, n, m in (upto if upto is not None else snapshot()):
        del buf.events[:n]
        del buf.slices[:m]
        buf.converted = buf.ops = None
    release_ended()

"""The engine interface: variables, operations, and the narrow API every engine implements.

An engine knows nothing about arrays. It orders functions by the variables they read and
write (a read waits for earlier writes; a write waits for earlier reads and writes), runs
them, keeps an exception raised by a function on the variables it writes, and re-raises it
at the next sync point that touches them. Everything else in the runtime goes through
:meth:`Engine.push`, :meth:`Engine.wait_for_var` and :meth:`Engine.wait_all`.

Op flags. Every op carries one integer, ``mode``: the profiler mode bit of the path that
pushed it (``MODE_SYMBOLIC``, ``MODE_IMPERATIVE``) or the named flags of engine
bookkeeping: ``ALWAYS_RUN`` (runs even if an input failed, so a custom operator's
completion is signalled; never profiled alone: a bookkeeping op that also carries a
mode bit, as a hybridized block's ``_share``, is profiled with that mode), ``ASYNC``
(set by :meth:`Engine.push_async`: the op ends when its ``on_complete`` is called) and
``STAMPED`` (``push_async(..., stamped=True)``: its function is given the op's profiling
stamps). ``MODE_INTERNAL`` is ``ALWAYS_RUN``.

Profiling: the engine records through one port, the profiler's observer
(:mod:`xprof.runtime.profiler.observer`), and costs one attribute check when profiling is
off. While profiling, the profiler sets ``engine.observer`` and ``engine.profile_mask``
(the op modes it wants). For each op whose mode is in the mask, on the thread that ran
it, the engine stamps ``perf_counter_ns`` around the function and tells the observer:

  ``observer.op_dep(name, t0, t1, t_push, t_ready, pusher, reads, writes, attrs)``
                                            every op with its dependency record: the
                                            push and ready stamps and the pushing
                                            thread's track stamped on the ``Opr`` while
                                            profiling (``observer.pushed_by()``, inlined, at the
                                            push; ``t_ready`` when its last dependency is
                                            released), None for an op run at once where
                                            it was pushed; its variables; its attrs
                                            (None, its input shapes as a tuple, or a
                                            dict such as ``{"name": "conv0"}``);
  ``observer.op_with(name, tag, attrs, t_push, t0, t1, t_ready, reads, writes)``
                                            a sub-operator of the custom-operator call
                                            ``tag`` (pushed at ``t_push``), with its
                                            dependency record too;
  ``observer.sub_here(name, tag, t0, t1, reads, writes)``
                                            the same for a sub-operator run at once
                                            on the thread that pushed it, the thread
                                            whose tag it is (never waited, pushed at
                                            its start);
  ``observer.sync(name, t0, var=None)``      a sync point (``WaitForVar`` for ``var``,
                                            ``WaitForAll``) that blocked from ``t0``.

What the observer records, and how, is the profiler's business.

Thread roles: a thread the runtime starts for a role of its own (an engine worker, a
custom-op worker) carries ``thread.xprof_role = (role, index)``, set by its creator
before it starts; the profiler names and orders tracks by it, never by parsing names.
"""
import collections
import threading
from time import perf_counter_ns

# Op modes: the profiler's mode bits. An op carries the bit of the path that pushed it.
MODE_SYMBOLIC = 1
MODE_IMPERATIVE = 2
# Named op flags (never in a profile mask, so such ops are never profiled).
ALWAYS_RUN = 4     # engine bookkeeping: runs even if an input failed
ASYNC = 8          # completes when fn's on_complete(exc=None) is called (push_async)
STAMPED = 16       # an ASYNC op whose fn is called fn(on_complete, stamps, *args)
NO_STAMPS = (0, 0, None)   # the stamps of an op the engine did not stamp (see push_async)
MODE_INTERNAL = ALWAYS_RUN


class Var:
    """A unit of data the engine orders operations on (an array's memory, typically).

    ``queue`` holds the not-yet-granted requests ``(op_or_waiter, kind)`` in push order;
    ``readers`` counts granted, unfinished reads; ``writer`` is set while a write runs.
    ``exc`` is the exception left by the last write that failed (None once a later write
    succeeds).
    """

    __slots__ = ("queue", "readers", "writer", "exc", "__weakref__")

    def __init__(self):
        self.queue = None
        self.readers = 0
        self.writer = False
        self.exc = None


class Opr:
    """One pushed operation: ``fn(*args)`` plus what the engine and profiler need.

    ``tag`` is the pushing thread's attribution tag (set by a custom operator around its
    Python code, see :func:`attribution`); ``t_push`` is set only while profiling.
    """

    __slots__ = ("fn", "args", "reads", "writes", "name", "prio", "mode", "wait",
                 "tag", "t_push", "attrs", "heavy", "t_ready", "pusher")

    def __init__(self, fn, args, reads, writes, name, prio, mode, tag, attrs):
        self.fn = fn
        self.args = args
        self.reads = reads
        self.writes = writes
        self.name = name
        self.prio = prio
        self.mode = mode
        self.tag = tag
        self.t_push = 0
        self.t_ready = 0    # when every dependency was satisfied (profiling only)
        self.pusher = None  # the pushing thread's track (profiling only)
        self.attrs = attrs
        self.wait = 0
        self.heavy = False  # cost at or above the engine's inline threshold


class _ThreadState(threading.local):
    """Per-thread engine state. ``tag``: attribution tag stamped on every op this
    thread pushes; while it is set, no op runs inline on this thread (an op's time
    would fold into the tagged code's): one field for both, so that setting a tag is
    one thread-local write (each costs ~600 instructions)."""

    tag = None
    on_block = None  # callable(bool) told when this thread starts/stops blocking
    defer_wake = False  # batch worker wake-ups until flush_wakes() (custom-op threads)


thread_state = _ThreadState()

# One entry per attribution tag set on any thread and not yet restored (by
# :class:`attribution`, and by ``operator.create_operator`` inline). While it is empty no
# thread has a tag, and a push skips reading ``thread_state.tag``: a thread-local read
# costs ~790 instructions, 2.7% of an ``x + 1`` under NaiveEngine (callgrind). An entry
# is pushed before the tag is set and popped after it is restored, so a reader on any
# thread that finds it empty also finds no tag on its own thread (nor one to save). A
# deque: its append and pop are atomic under the GIL and, unlike a list's, never
# reallocate (a list going from one entry to none and back measured ~800 instructions
# per custom-op call).
tags_set = collections.deque()
# its append and pop bound once: ``tags_set.append(None)`` in ``operator.create_operator``
# measured ~450 instructions more than a call of the bound method (callgrind)
tag_entry, tag_exit = tags_set.append, tags_set.pop


def role_thread(target, role, index, args=()):
    """A daemon thread the runtime starts for a role of its own (``"engine worker"``,
    ``"custom op worker"``): named ``xprof <role> <index>`` and carrying
    ``xprof_role = (role, index)``, by which the profiler names and orders its track."""
    t = threading.Thread(target=target, args=args, name=f"xprof {role} {index}", daemon=True)
    t.xprof_role = (role, index)
    return t


class attribution:
    """Context manager: ops pushed by this thread inside it carry ``tag`` and are never
    run inline on this thread (so their time is never folded into the caller's: the
    engine runs ops inline only on a thread without a tag)."""

    __slots__ = ("tag", "_saved")

    def __init__(self, tag):
        self.tag = tag

    def __enter__(self):
        st = thread_state
        self._saved = st.tag if tags_set else None   # (no tag anywhere: no read)
        tag_entry(None)
        st.tag = self.tag
        return self

    def __exit__(self, *exc):
        thread_state.tag = self._saved
        tag_exit()
        return False


class Engine:
    """Interface shared by :class:`ThreadedEngine` and :class:`NaiveEngine`."""

    name = "Engine"
    synchronous = False   # True: every op has run when push returns (NaiveEngine)

    def __init__(self):
        self.observer = None
        self.profile_mask = 0
        self.slow = None   # xprof run --slow (runtime/slow.py): ops given extra time

    def new_variable(self):
        return Var()

    def push(self, fn, args, reads, writes, name, prio=0, mode=MODE_IMPERATIVE,
             cost=0, attrs=None):
        """Schedule ``fn(*args)`` after the ops it depends on; return at once."""
        raise NotImplementedError

    def push_async(self, fn, args, reads, writes, name, prio=0, mode=MODE_INTERNAL, cost=0,
                   stamped=False):
        """Like push, but the op ends when ``fn(on_complete, *args)`` calls
        ``on_complete(exc=None)``, possibly later and from another thread.
        ``stamped=True``: the function is called ``fn(on_complete, stamps, *args)``, with
        ``stamps = (t_push, t_ready, pusher)`` the profiling stamps the engine put on the
        op (:data:`NO_STAMPS`: none), so that it can record the op's own push and ready
        times (a custom-operator call's, a collective's): an argument, so the engine's
        bookkeeping is never read through the callback."""
        raise NotImplementedError

    def wait_for_var(self, var):
        """Block until every write pushed to ``var`` so far is done; raise its error."""
        raise NotImplementedError

    def wait_all(self):
        """Block until every pushed op is done; raise the first unreported error."""
        raise NotImplementedError

    def quiesce(self, timeout):
        """Wait up to ``timeout`` seconds for every pushed op to finish, reporting no
        error (errors stay for the next sync point); whether none is left. Before a
        fork (engine/__init__.py). An engine that runs ops as they are pushed has
        nothing to wait for."""
        return True

    def flush_wakes(self):
        """Wake workers for work made ready by this thread while it deferred wake-ups."""

    def wait_idle(self, timeout, stop=None):
        """Wait up to ``timeout`` seconds for every pushed op to finish (their errors
        stay for the sync points), and only until ``stop.signum`` is set; return True
        if none is left."""
        raise NotImplementedError

    def running(self):
        """``(names, others)``: names of the ops running or ready to run, and how many
        more are pending (waiting for inputs)."""
        raise NotImplementedError

    def shutdown(self, timeout=None):
        """Stop accepting work; used at interpreter exit."""

    # -- shared by both engines -----------------------------------------------------
    def _call(self, fn, args, reads, mode, name, tag, attrs, t_push, writes=(), op=None):
        """Run ``fn(*args)`` unless an input (in ``reads``) carries an error; time it for
        the observer when profiling wants this op's mode (``t_push`` None: pushed and
        run at once). Return the error, or None; raise an interrupt (an exception that
        is not an ``Exception``) raised on a thread that is not an engine worker."""
        if not mode & ALWAYS_RUN:  # bookkeeping ops inspect their inputs' errors
            for v in reads:
                if v.exc is not None:
                    return v.exc
        observer = self.observer
        exc = None
        if observer is None or not mode & self.profile_mask:
            try:
                fn(*args)
            except BaseException as e:  # noqa: BLE001 - kept for the sync point
                exc = e
        elif tag is None and self.slow is None:
            # every engine op's one record, its dependencies (and its attrs): an op that
            # waited in the engine (``op``) has its push/ready stamps, pusher and
            # variables; one run at once was pushed here, just now (no stamps). One C
            # call where _oprecord is built (observer.run_op).
            exc = observer.run_op(fn, args, name, t_push, op, reads, writes, attrs)
        else:   # a custom operator's sub-operator (``tag``), or xprof run --slow
            t0 = perf_counter_ns()
            try:
                fn(*args)
            except BaseException as e:  # noqa: BLE001
                exc = e
            if self.slow is not None:   # xprof run --slow: this op made slower
                self._slowed(name, tag, attrs, t0, observer)
            if op is not None:   # (a sub-operator's push is its start)
                if tag is None:
                    observer.op_dep(name, t0, perf_counter_ns(), t_push, op.t_ready,
                                    op.pusher, op.reads, op.writes, attrs)
                else:
                    observer.op_with(name, tag, attrs, t_push, t0, perf_counter_ns(),
                                     op.t_ready, op.reads, op.writes)
            elif tag is None:
                observer.op_dep(name, t0, perf_counter_ns(), t_push, None, None, reads,
                                writes, attrs)
            else:   # (on the thread whose tag it is: NaiveEngine)
                observer.sub_here(name, tag, t0, perf_counter_ns(), reads, writes)
        if exc is not None:
            if not isinstance(exc, Exception) and \
                    threading.get_ident() not in self.worker_idents:
                # KeyboardInterrupt, SystemExit on the pushing thread: not the op's error
                # but the program's; the caller releases the op's variables and lets it
                # go on (an engine worker keeps it for the sync point: it must survive)
                raise exc
            exc._xprof_reported = False
        return exc

    def _slowed(self, name, tag, attrs, t0, observer):
        """``xprof run --slow``: give the op that ran from ``t0`` the extra time its spec
        asks for, in a timed wait on this thread, and mark it for the trace."""
        slow = self.slow
        extra = slow.op_extra(name, tag, attrs, perf_counter_ns() - t0)
        if extra:
            slow.spin(extra)
            observer.slowed[t0] = extra

    # -- deferred errors: an op's exception waits for the next sync point -----------------
    def _keep_error(self, exc):
        """List ``exc`` (an op's error, kept on the variables it writes) for ``wait_all``,
        once; called with the engine's lock held where it has one."""
        if not getattr(exc, "_xprof_listed", False):
            exc._xprof_listed = True
            self._errors.append(exc)

    @staticmethod
    def _raise_first_unreported(errors):
        """At ``wait_all``: raise the first listed error no sync point has raised yet
        (``wait_for_var`` marks the ones it raised)."""
        for exc in errors:
            if not exc._xprof_reported:
                exc._xprof_reported = True
                raise exc

    @staticmethod
    def _dedupe(reads, writes):
        """Writes win over reads of the same variable; a variable is written once.
        Compared by identity: arrays are variables and their ``==`` is elementwise."""
        if len(writes) > 1:
            seen = set()
            unique = []
            for v in writes:
                if id(v) not in seen:
                    seen.add(id(v))
                    unique.append(v)
            writes = unique
        if writes and reads:
            written = {id(v) for v in writes}
            reads = [v for v in reads if id(v) not in written]
        return reads, writes

"""The Python-line sampler: which lines of a custom operator's code its time goes to.

While the profiler records, a daemon thread wakes every ``XPROF_PROFILER_SAMPLE_INTERVAL_MS``
(default 1 ms; 0: off) and reads the stacks of the threads that run custom-operator code
(``forward``, ``backward``, ``create_operator``). Each sample is tagged with the call the thread runs at that moment: the observer tells
:data:`running` when a call's Python code starts and ends on a thread
(``observer.call_begins``/``call_ends``, ``setup_begins``/``setup_ends``). With
``XPROF_PROFILER_SAMPLE_ALL_THREADS`` (``xprof run --sample-all-threads``) the
script's other threads are sampled too, tagged with no call.

Why a sampler thread (measured in docs/lines.md): it costs the
sampled thread nothing (no hook runs on it, no line event, nothing while it is in
numpy), and a custom op's worker is known at every instant. Its limit is the GIL: a
thread running pure Python lets the sampler in only at the switch interval, so
a call's entry lowers ``sys.setswitchinterval`` to a quarter of the sample interval,
and the last call's exit restores it. The Python loop, with no call running for
:data:`IDLE_TICKS` ticks, ticks :data:`SLOW_FACTOR` times slower until a tick finds a
call (a call never wakes it: that would be a GIL hand-off at every call's start); the
C loop's idle ticks take no GIL at all. Outside
custom-op Python the process runs with Python's own switch interval and few sampler
wake-ups. ``sys.monitoring`` (3.12+)
or a C hook would see every line, at a cost on every line of the sampled threads.

The loop runs in C when ``_linesampler`` was built (setup.py; optional, as it needs a C
compiler at install): it waits without the GIL and a tick runs no bytecode, holding the
GIL only to read the stacks. Under ThreadedEngine a Python tick made the sampled call
pay for the sampler's Python (x1.08-1.11 on a 2 ms ``forward``); the C tick x1.00-1.03
(docs/lines.md, "The tick in C"). The C loop reads ``running``'s size without the
GIL and asks for the GIL only when a call runs: a sampler already waiting for it with
Python's 5 ms switch interval when a call begins would sample that call late or not
at all. ``XPROF_PROFILER_SAMPLE_NATIVE=0`` runs the Python
loop (one ``sys._current_frames()`` a tick), as does ``--sample-all-threads`` (its
thread list comes from :mod:`threading`). Both make the same records, and both drop a
call's sample that finds the thread outside the user's function (:data:`OWN_FOLDER`).

Recording stays cheap: one tuple per sample (:func:`.records.line_sample`), code
objects and line numbers, appended to the sampled thread's lines buffer
(:func:`.recorder.lines_buffer`); folding and names are the dump's
(:mod:`.linefold`). A sample's weight is the time since the sampler's previous
tick: summed per call it estimates the time the call spent on each stack, whatever
the achieved rate.
"""
import itertools
import os
import sys
import threading
from time import perf_counter_ns

from .. import _env
from . import linefold, recorder as R, records
from .flags import flags

try:
    from . import _linesampler as _native
except ImportError:   # not built (no C compiler at install): the Python loop runs
    _native = None

_line_sample = records.line_sample

CATEGORY = "python_line"
SETUP_SUFFIX = linefold.SETUP_SUFFIX   # the call name of a creation's samples
IDLE_TICKS = 20         # ticks with no call running before the sampler ticks slowly
SLOW_FACTOR = 10        # ... every this many intervals
MAX_DEPTH = 64          # frames kept per sample, from the leaf
_SWITCH_FRACTION = 4    # the switch interval while sampling: the sample interval / this

# thread ident -> [call number, op name, call start, lines buffer's append, outer entry,
# sampled] of the custom-op call whose Python code the thread runs now (the outer entry:
# the call it interrupted, for a call run inline inside another one under NaiveEngine;
# sampled: a sample of it was recorded, so its end is recorded too)
running = {}
_numbers = itertools.count(1).__next__
# code objects a sample's stack stops at (excluded): the frames that call the user's
# forward/backward/create_operator (operator.py registers them)
stop_codes = set()
# a call's sample whose outermost frame (under the stop code) is in this folder, xprof's
# runtime, or that met no stop code, finds the thread outside the user's function (in
# the call's entry or exit): it is dropped, not counted for an xprof line of the op
OWN_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def settings():
    """``(interval_ns, all_threads, native)`` from the environment (read at each start);
    ``native``: the C loop runs (built, wanted, and not sampling all threads)."""
    ms = _env.get("PROFILER_SAMPLE_INTERVAL_MS")
    try:
        interval = float(ms) if ms is not None else 1.0
    except ValueError:
        interval = 1.0
    all_threads = _env.get_bool("PROFILER_SAMPLE_ALL_THREADS", False)
    native = (_native is not None and not all_threads
              and _env.get_bool("PROFILER_SAMPLE_NATIVE", True))
    return int(max(interval, 0.0) * 1e6), all_threads, native


def enter(call_name, t_start):
    """The calling thread starts a custom-op call's Python code (``call_name``: its op
    name); returns the entry to pass to :func:`leave`. Only while sampling."""
    me = threading.get_ident()
    outer = running.get(me)
    entry = [_numbers(), call_name, t_start,
             R.lines_buffer(R.local.buf).events.append, outer, False]
    running[me] = entry
    if sampler.thread is None:   # the session's first call: the thread starts now
        sampler.launch()
    if not sampler.lowered:
        sampler.lower()
    return entry


def leave(entry, t_end):
    """The call of ``entry`` returned on the calling thread at ``t_end``. A sampled call
    records its end, a sample without a stack: the time from its last sample to its end
    counts for that sample's line (linefold.py)."""
    me = threading.get_ident()
    number, name, t_start, add, outer, sampled = entry
    if sampled:
        add(_line_sample(name, CATEGORY, t_end, 0, number, t_start, None))
    if outer is None:
        running.pop(me, None)
        if not running and not sampler.all_threads:   # no custom-op Python left
            sampler.restore()
    else:
        running[me] = outer


class Sampler:
    """The sampler thread and its switch-interval change; :data:`sampler` follows the
    profiler state (:func:`follow`)."""

    def __init__(self):
        self.thread = None
        self.armed = False    # recording with sampling on (the thread starts at a call)
        self.native = False   # the C loop runs
        self._launching = threading.Lock()
        self.stop_event = None
        self.stop_lock = None   # the C loop's (None: the Python loop runs)
        self.saved_switch = None
        self.switch = sys.getswitchinterval()   # while sampling
        self.interval_ns = 0
        self.all_threads = False
        self.ticks = 0        # this session: ticks taken, samples recorded
        self.samples = 0
        self.gaps = self.gap_ns = 0   # ticks after a tick, and their summed gaps
        self.lowered = False  # the switch interval is ``switch`` (a call runs)

    @property
    def on(self):
        return self.armed

    def start(self):
        """Sampling armed: the thread itself starts at the first custom-op call's entry
        (:meth:`launch`), so a program running no custom-op Python (a CNN, an MLP) has no
        sampler thread and no wake-ups (issue #42: ~22 a step on the CNN, in every
        mode); with ``--sample-all-threads`` it starts now."""
        interval, all_threads, native = settings()
        if interval <= 0 or self.armed:
            return
        self.interval_ns, self.all_threads, self.native = interval, all_threads, native
        self.saved_switch = sys.getswitchinterval()
        self.switch = min(self.saved_switch, interval / 1e9 / _SWITCH_FRACTION)
        self.armed = True
        flags.lines = True
        if all_threads:   # the script's threads are sampled all along
            self.launch()
            self.lower()

    def launch(self):
        """The sampler thread starts (once per session; any thread may ask)."""
        with self._launching:
            if self.thread is not None or not self.armed:
                return
            self.stop_lock = _native.new_stop_lock() if self.native else None
            self.stop_event = threading.Event()
            self.thread = threading.Thread(target=self._loop, args=(self.stop_event,),
                                           name="xprof line sampler", daemon=True)
            self.thread.start()

    def stop(self):
        if not self.armed:
            return
        flags.lines = False
        with self._launching:
            self.armed = False
            thread = self.thread
        if thread is not None:
            self.stop_event.set()
            if self.stop_lock is not None:
                _native.stop(self.stop_lock)
            if thread is not threading.current_thread():
                thread.join()
            self.thread = None
        self.restore()

    def lower(self):
        """The switch interval while custom-op Python runs (a call entered)."""
        if self.thread is not None:
            self.lowered = True
            sys.setswitchinterval(self.switch)

    def restore(self):
        """Python's own switch interval back."""
        if self.lowered:
            self.lowered = False
            sys.setswitchinterval(self.saved_switch)

    def reset(self):
        """A new session: the counts start again."""
        self.ticks = self.samples = 0
        self.gaps = self.gap_ns = 0

    def info(self):
        """What the trace's ``otherData.python_lines`` says of this session's sampling."""
        return {"interval_ms": self.interval_ns / 1e6, "all_threads": self.all_threads,
                "ticks": self.ticks, "samples": self.samples,
                "achieved_interval_ms": round(self.gap_ns / self.gaps / 1e6, 4)
                if self.gaps else None,
                "switch_interval_ms": round(self.switch * 1e3, 4),
                "loop": "native" if self.native else "python"}

    def _loop(self, stop):
        try:
            if self.stop_lock is None:
                self._ticks(stop)
            else:   # the same ticks in C (_linesampler.c follows _ticks)
                _native.run(self, running, stop_codes, OWN_FOLDER, _line_sample, CATEGORY,
                            self.interval_ns, MAX_DEPTH,
                            self.stop_lock)
        finally:   # (an error here must not leave the process's switch interval lowered)
            self.restore()

    def _ticks(self, stop):
        """The Python loop (the C loop in _linesampler.c mirrors it: keep in step)."""
        current_frames = sys._current_frames
        clock = perf_counter_ns
        me = threading.get_ident()
        stops = stop_codes
        others = {}   # ident -> (thread, lines buffer's append), --sample-all-threads
        prev = clock()
        seen = 0
        fresh = True
        quiet = 0   # ticks in a row with no call running
        fast = step = self.interval_ns
        slow = fast * SLOW_FACTOR
        due = prev + step   # ticks on a fixed schedule: a late wake-up shortens the next wait
        while not stop.wait(max(due - clock(), 0) / 1e9):
            # (no call running: no stacks to read; the tick keeps the schedule)
            frames = current_frames() if running or self.all_threads else {}
            t = clock()
            due += step
            if due <= t:   # more than a tick late (the GIL was held): the next one from now
                due = t + step
            # the weight: since the previous tick (a slow one, for the first tick of
            # calls after a quiet time: the fold clips it at the call's start)
            w = t - prev
            if fresh:   # (the achieved interval counts the gaps between fast ticks only)
                fresh = False
            else:
                self.gaps += 1
                self.gap_ns += w
            prev = t
            self.ticks += 1
            n = 0
            for ident, entry in list(running.items()):
                f = frames.get(ident)
                if f is None:
                    continue
                number, name, t0, add, _, _ = entry
                stack = []
                while f is not None and f.f_code not in stops and len(stack) < 2 * MAX_DEPTH:
                    stack += (f.f_code, f.f_lineno)
                    f = f.f_back
                if f is None or not stack or stack[-2].co_filename.startswith(OWN_FOLDER):
                    continue   # not in the user's code: the call's bookkeeping, before or after it
                entry[5] = True
                add(_line_sample(name, CATEGORY, t, w, number, t0, tuple(stack)))
                n += 1
            if self.all_threads:
                if len(frames) != seen:   # a thread started or ended: look again
                    others = _script_threads(me, others)
                    seen = len(frames)
                for ident, (_, add) in others.items():
                    if ident in running:
                        continue
                    f = frames.get(ident)
                    if f is None:
                        continue
                    stack = []
                    while f is not None and len(stack) < 2 * MAX_DEPTH:
                        stack += (f.f_code, f.f_lineno)
                        f = f.f_back
                    add(_line_sample(None, CATEGORY, t, w, 0, 0, tuple(stack)))
                    n += 1
            self.samples += n
            if n or self.all_threads:
                quiet = 0
                if not self.lowered:   # (a call entered as the last tick restored it)
                    self.lower()
                if step != fast:   # calls run: tick at the interval again
                    step, fresh, due = fast, True, t + fast
                continue
            if self.lowered and not running:
                self.restore()
            quiet += 1
            if quiet == IDLE_TICKS and step == fast:   # quiet: tick slowly, never wake it
                step, due = slow, t + slow


def _script_threads(me, known):
    """ident -> (thread, its lines buffer's append) of the script's threads: every live
    thread but xprof's own (engine and custom-op workers, this sampler, the flusher...)."""
    out = {}
    for thread in threading.enumerate():
        ident = thread.ident
        if ident is None or ident == me or thread.name.startswith("xprof "):
            continue
        entry = known.get(ident)
        if entry is None or entry[0] is not thread:
            buf = _buffer_of(thread)
            entry = (thread, R.lines_buffer(buf).events.append)
        out[ident] = entry
    return out


def _buffer_of(thread):
    """The recorder buffer of ``thread`` (registered here if it never recorded)."""
    for buf in list(R.buffers):
        if buf.thread is not None and buf.thread() is thread and buf.sampled is None:
            return buf
    return R.register_thread(thread)


sampler = Sampler()


def _forked_child():
    """A forked child (a DataLoader worker) has no sampler thread: forget it, and give
    the child Python's switch interval back."""
    if sampler.armed:
        sampler.thread = None
        sampler.armed = False
        sampler.stop_lock = None
        flags.lines = False
        sampler.restore()
    running.clear()


os.register_at_fork(after_in_child=_forked_child)


def follow(st, change, **_):
    """Profiler-state listener: sample while recording."""
    if change == "finishing":   # the last snapshot comes next: no sample after it
        sampler.stop()
    elif st.recording:
        if change in ("run", "resume", "config"):
            if change == "run":
                sampler.reset()
            sampler.start()
    else:
        sampler.stop()

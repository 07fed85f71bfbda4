"""The profiling session: state (run/stop/pause), engine hooks, dump, dumps, autostart.

One profiler per process, as in MXNet. Turning it on installs an observer on the engine
(ops are timed on the thread that ran them) and sets the flags the NDArray layer checks
on its hot path (``flags.api``, ``flags.mem``); turning it off removes them, so profiling
off costs one attribute check per op.
"""
import atexit
import datetime
import os
import signal
import sys
import threading
import time
from time import perf_counter_ns

import numpy as np
import orjson
from xprof.shared.atomic import write_atomic

from .. import _env
from .. import engine as _engine_mod
from ..engine import signals as _signals
from . import chrome, columns, config, memory, observer as _observer_mod, ranks, recorder as R, records
from xprof.shared import stats as _stats


flags = _observer_mod.flags

_lock = threading.RLock()
_cfg = config.parse({})
_mode = config.mode_of(_cfg)
_state = "stop"
_paused = False
_base_ns = perf_counter_ns()
_start_wall = time.time()
_stats_mark = {}           # buffer -> (events, slices) indices where statistics start
_retained = None           # the session ended by dump(finished=True): ([(events,
                           # slices)], base) until dumps() aggregates it, then a Stats
_dumped_upto = None        # buffer -> (events, slices) lengths written by the last dump
_flusher = None
_script_configured = False  # set_config/set_state called by user code (xprof run reports it)
_ever_ran = False


_observer = _observer_mod.observer


def _apply():
    """Point the engine and the hot-path flags at the current state and mode."""
    on = _state == "run" and not _paused
    eng = _engine_mod.get()
    mask = (_mode & 3) if on else 0
    eng.profile_mask = _observer.mask = mask
    eng.observer = _observer if mask else None
    flags.api = on and bool(_mode & config.MODE_API)
    flags.mem = on and bool(_mode & config.MODE_MEMORY)
    flags.recording = on
    memory.keep_rows = flags.mem and bool(_memory_prefix())


_engine_mod.on_engine_change(lambda eng: _apply())


def _memory_prefix():
    return _cfg["memory_profile_filename_prefix"] or _cfg["gpu_memory_profile_filename_prefix"]


def _check_process(profile_process, func):
    if profile_process != "worker":
        try:
            config.parse({"profile_process": profile_process})
        except ValueError as e:   # name the function the user called
            raise ValueError(str(e).replace("set_config:", func + ":", 1)) from None


# -- public API -----------------------------------------------------------------------
def set_config(**kwargs):
    """Configure the profiler (see :mod:`.config` for keys); applies immediately."""
    global _cfg, _mode, _script_configured, _retained
    cfg = config.parse(kwargs)
    with _lock:
        if _handover_file is not None and _hand_over():
            # the script's own profile starts now, as its autostarted one would
            set_config(**kwargs)
            set_state("run")
            return
        if _state != "run":
            _retained = None   # a new profile: the finished one's statistics are done
        _cfg = cfg
        _mode = config.mode_of(cfg)
        _script_configured = True
        _apply()
        if _state == "run":
            _start_flusher()


def get_config():
    return dict(_cfg)


def get_mode():
    return _mode


def set_state(state="stop", profile_process="worker"):
    """``'run'`` starts recording, ``'stop'`` stops it (events are kept until dumped)."""
    global _state, _paused, _script_configured, _ever_ran, _retained
    _check_process(profile_process, "set_state")
    if state not in ("run", "stop"):
        raise ValueError(f"set_state: state={state!r} is not allowed; use 'run' or 'stop'")
    with _lock:
        if _handover_file is not None:
            _hand_over()
        _script_configured = True
        if state == _state:
            return
        _state = state
        _paused = False
        if state == "run":
            _ever_ran = True
            _retained = None   # a new session: the finished one's statistics are done
            _install_signal_handler()
            _start_flusher()
        else:
            _stop_flusher()
        _apply()


def state():
    return _state


def pause(profile_process="worker"):
    """Stop recording without ending the session (``resume`` continues)."""
    global _paused
    _check_process(profile_process, "pause")
    with _lock:
        _paused = True
        _apply()


def resume(profile_process="worker"):
    global _paused
    _check_process(profile_process, "resume")
    with _lock:
        _paused = False
        _apply()


def is_recording():
    return flags.recording


def dump(finished=True, profile_process="worker"):
    """Write the Chrome trace to the configured file (atomically).

    ``finished=True`` ends the session: profiling stops and the recorded events are
    released, so a later ``set_config``/``set_state('run')`` starts a fresh profile.
    ``finished=False`` writes what was recorded so far and keeps profiling.
    """
    _check_process(profile_process, "dump")
    _check_flag("dump", "finished", finished)
    with _lock:
        path = _write_trace()
        if finished:
            _finish()
    return path


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Aggregate statistics of the events recorded since the last reset, as a string.

    No side effect on the trace file; ``reset=True`` restarts the statistics only.
    As in MXNet, statistics outlive ``dump(finished=True)``: ``dump()`` then ``dumps()``
    reports the session just written, until the next ``set_config`` or ``set_state('run')``.
    """
    global _retained
    if format not in ("table", "json"):
        raise ValueError(f"dumps: format={format!r} is not allowed; use 'table' or 'json'")
    _stats.check_sort(sort_by)
    _check_flag("dumps", "ascending", ascending)
    _check_flag("dumps", "reset", reset)
    with _lock:
        memory.fold()
        snap = R.snapshot()
        st = aggregate(snap, _stats_mark)
        if _retained is not None:
            if not isinstance(_retained, _stats.Stats):   # aggregated on first use
                _retained = aggregate_lists(*_retained)
            st = _stats.Stats().merge(_retained).merge(st)
        if reset:   # (rebuilt: no mark keeps a released buffer alive)
            _stats_mark.clear()
            for buf, n, m in snap:
                _stats_mark[buf] = (n, m)
            _retained = None
    if format == "json":
        return orjson.dumps(_stats.to_json_obj(st, sort_by, ascending),
                            option=orjson.OPT_INDENT_2).decode()
    return _stats.render_text(st, sort_by, ascending)


# -- internals ------------------------------------------------------------------------
def _check_flag(func, key, value):
    if not isinstance(value, bool) and not (type(value) is int and value in (0, 1)):
        raise ValueError(f"{func}: {key}={value!r} is not allowed; use True or False")


def aggregate(snap, marks=None):
    """Stats from raw events (the same aggregator ``xprof stats`` uses on files)."""
    return aggregate_lists(_since(snap, marks or {}), _base_ns)


def _since(snap, marks):
    """``[(event tuples, slice rows)]`` of each buffer from its mark to the snapshot."""
    parts = []
    for buf, n, m in snap:
        e0, s0 = marks.get(buf, (0, 0))
        if n > e0 or m > s0:   # (a finished session keeps these: none for idle threads)
            parts.append((buf.events[e0:n], columns.table(buf, m)[s0 // 3:]))
    return parts


def _folded(parts):
    """``parts`` (see :func:`_since`) as one ``(event tuples, slice rows)`` part."""
    if len(parts) <= 1:
        return parts
    return [([ev for events, _ in parts for ev in events],
             np.concatenate([rows for _, rows in parts]))]


def aggregate_lists(parts, base_ns):
    """Stats of ``[(event tuples, (key, t0, t1) rows)]``, skipping events that began
    before ``base_ns`` (an op still running when an earlier session ended; see
    chrome.encode). Durations stay integer nanoseconds, as ``xprof stats`` reads them
    back from the trace's ``e-3`` microseconds, so both print the same numbers."""
    st = _stats.Stats()
    add_time_ns, add_counter = st.add_time_ns, st.add_counter
    open_async = {}
    mem_cat = memory.CAT
    rows = [r for _, r in parts]
    key, _, dur = columns.split(np.concatenate(rows) if rows else columns.NO_ROWS, base_ns)
    keys = R.key_table()
    for k, count, total, lo, hi in columns.summarize(key, dur):
        name, cat = keys[k]
        st.add_times_ns(cat, name, count, total, lo, hi)
    rule = {code: kind.stats for code, kind in records.KINDS.items()}
    KIND, NAME, CAT, T = records.KIND, records.NAME, records.CAT, records.T
    SPAN, SAMPLE, OPEN, CLOSE = records.SPAN, records.SAMPLE, records.OPEN, records.CLOSE
    for events, _ in parts:
        for ev in events:
            if ev[T] < base_ns:
                continue
            how = rule[ev[KIND]]
            if how == SPAN:         # (..., t0, t1, ...)
                add_time_ns(ev[CAT], ev[NAME], ev[T + 1] - ev[T])
            elif how == SAMPLE:     # (..., t, value)
                add_counter(ev[CAT], ev[NAME], ev[T + 1], ev[CAT] == mem_cat)
            elif how == OPEN:       # (..., t, id)
                open_async[(ev[CAT], ev[NAME], ev[T + 1])] = ev[T]
            elif how == CLOSE:
                t0 = open_async.pop((ev[CAT], ev[NAME], ev[T + 1]), None)
                if t0 is not None:
                    add_time_ns(ev[CAT], ev[NAME], ev[T] - t0)
    return st


def _other_data():
    data = {"xprof_version": _version(), "command": " ".join(sys.argv),
            "start_time": datetime.datetime.fromtimestamp(
                _start_wall, datetime.timezone.utc).isoformat(),
            "clock": "perf_counter_ns", "os_pid": os.getpid(),
            "engine": _engine_mod.engine_type()}
    rank = ranks.rank()
    if rank is not None:
        data["rank"] = rank
        data["world_size"] = ranks.world_size()
    return data


def _version():
    from .. import __version__
    return __version__


def _process_name():
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    name = f"xprof: {script} (pid {os.getpid()})"
    rank = ranks.rank()
    return name if rank is None else f"{ranks.process_label(rank)}: {name}"


def _write_trace():
    global _dumped_upto
    if _mode & config.MODE_MEMORY:   # not from a past session's arrays when memory is off
        memory.sample_all()
    snap = R.snapshot()
    data = chrome.encode(snap, _base_ns, _process_name(), _other_data())
    path = ranks.filename_for_rank(_cfg["filename"], ranks.rank())
    write_atomic(path, data)
    prefix = _memory_prefix()
    if prefix and memory.rows:
        memory.write_csv(prefix, os.getpid())
    _dumped_upto = {buf: (n, m) for buf, n, m in snap}
    return path


def _finish():
    """End the session after a finished dump: stop and release recorded events (their
    aggregate statistics are kept for ``dumps``)."""
    global _state, _paused, _base_ns, _start_wall, _dumped_upto, _retained
    _state = "stop"
    _paused = False
    _stop_flusher()
    _apply()
    snap = [(buf, n, m) for buf, (n, m) in (_dumped_upto or {}).items()]
    # Keep the finished session's events (not their statistics: most programs never
    # call dumps() after dump(), so aggregating here would be wasted time), folded into
    # one part: no list and table per thread (10,000 short-lived threads).
    _retained = (_folded(_since(snap, _stats_mark)), _base_ns)
    R.clear(snap)
    _stats_mark.clear()
    memory.reset()
    _dumped_upto = None
    _base_ns = perf_counter_ns()
    _start_wall = time.time()


def undumped_events():
    """How many recorded events the last dump did not include."""
    upto = _dumped_upto or {}
    left = []
    for buf, n, m in R.snapshot():
        n0, m0 = upto.get(buf, (0, 0))
        left.append((buf, n - n0, m - m0))
    return R.count(left)


def event_count():
    return R.count(R.snapshot())


# -- continuous dump ---------------------------------------------------------------------
class _Flusher(threading.Thread):
    def __init__(self, period):
        super().__init__(name="xprof profile flusher", daemon=True)
        self.period = period
        self.stop_event = threading.Event()

    def run(self):
        while not self.stop_event.wait(self.period):
            with _lock:
                if _state == "run" and not self.stop_event.is_set():
                    try:
                        _write_trace()
                    except OSError as e:  # keep profiling; report once
                        print(f"xprof: continuous dump failed: {e}", file=sys.stderr)
                        return


def _start_flusher():
    global _flusher
    _stop_flusher()
    if _cfg["continuous_dump"]:
        _flusher = _Flusher(_cfg["dump_period"])
        _flusher.start()


def _stop_flusher():
    # Called with _lock held. No join: a flusher that woke up is blocked on _lock and
    # would time the join out (a 5 s stall in dump/set_state); it re-checks its stop
    # event under the lock, so once the event is set it never writes again.
    global _flusher
    if _flusher is not None:
        _flusher.stop_event.set()
        _flusher = None


# -- exit paths: normal exit, sys.exit, uncaught exception, SIGTERM ----------------------
def _at_exit():
    if not _ever_ran:
        return
    if _state != "run" and undumped_events() == 0:
        return
    report = _engine_mod.drain()   # bounded; a second Ctrl-C or SIGTERM ends it
    if report:
        print(f"xprof: {report}; the profile holds what was recorded", file=sys.stderr)
    try:
        with _lock:
            _write_trace()
            _finish()
    except Exception as e:  # noqa: BLE001 - never turn exit into a crash
        print(f"xprof: could not write the profile at exit: {e}", file=sys.stderr)


atexit.register(_at_exit)


def _on_sigterm(signum, frame):
    # Turn SIGTERM into SystemExit so that atexit handlers (and the dump) run, at a point
    # where the exception cannot wedge the engine (see engine/signals.py).
    _signals.raise_at_safe_point(frame, lambda: SystemExit(128 + signum))


def _install_signal_handler():
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        pass


# -- autostart -------------------------------------------------------------------------
def autostart_from_env():
    """``XPROF_PROFILER_AUTOSTART=1``: profile from import, dump at exit."""
    global _script_configured
    if not _env.get_bool("PROFILER_AUTOSTART", False):
        return False
    kwargs = {"filename": _env.get("PROFILER_FILENAME", "profile.json")}
    mode = _env.get("PROFILER_MODE")
    if mode:
        kwargs.update(config.kwargs_for_mode(config.parse_mode_list(mode)))
    if _env.get_bool("PROFILER_AGGREGATE_STATS", False):
        kwargs["aggregate_stats"] = True
    set_config(**kwargs)
    set_state("run")
    _script_configured = False
    return True


_handover_file = None   # the trace file of a session started by `xprof run`
_handed_over = None


def start_for_cli(filename, **kwargs):
    """``xprof run``: profile from the first line of the script into ``filename``. If
    the script then configures the profiler itself, its calls win: what was recorded
    so far is written to ``filename`` and the script's own session starts clean."""
    global _handover_file, _handed_over, _script_configured
    set_config(filename=filename, **kwargs)
    set_state("run")
    _script_configured = False
    _handover_file = filename
    _handed_over = None


def _hand_over():
    """End the CLI's session at the script's first profiler call; True if it was
    recording (the script's configuration then keeps recording, as autostart would)."""
    global _handover_file, _handed_over
    _handed_over, _handover_file = _handover_file, None
    was_running = _state == "run"
    if was_running or undumped_events():
        _write_trace()
        _finish()
    else:
        _handed_over = None
    return was_running


def handed_over():
    """The CLI's trace file if the script took the profiler over (else None)."""
    return _handed_over


def end_cli_session():
    global _handover_file
    _handover_file = None


def script_configured():
    return _script_configured


def clear_script_configured():
    global _script_configured
    _script_configured = False




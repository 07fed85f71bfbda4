"""The profiler's public API (MXNet 1.x shapes): set_config/set_state/pause/resume,
dump/dumps, and the dump orchestration behind them.

One profiler per process, as in MXNet: its state is one object (:data:`.state.state`);
each call here changes it under its lock and announces the change, and the concerns that
follow it react (:mod:`.state`: engine observer and hot-path flags; :mod:`.flusher`:
continuous dump; :mod:`.exits`: exit and SIGTERM; :mod:`.handover`: ``xprof run``).
Profiling off costs one attribute check per op.
"""
import datetime
import os
import sys
import time
from time import perf_counter_ns

import orjson

from xprof.traces import latency as _latency, stats as _stats
from xprof.traces.atomic import write_atomic
from xprof.traces.version import version as _shared_version

from .. import _env, engine as _engine_mod
from . import aggregate as _agg, chrome, columns, config, deps, exits, memory, ranks, recorder as R
from .flusher import ContinuousDump
from .handover import Handover
from .observer import flags  # noqa: F401 - the hot-path switches, re-exported
from .state import state as _st




def _check_process(profile_process, func):
    if profile_process != "worker":
        try:
            config.parse({"profile_process": profile_process})
        except ValueError as e:   # name the function the user called
            raise ValueError(str(e).replace("set_config:", func + ":", 1)) from None


def _script_call():
    """A profiler call by user code: the first one under ``xprof run`` hands over."""
    if not _st.script_configured:
        _st.notify("script")
    _st.script_configured = True


# -- public API -----------------------------------------------------------------------
def set_config(**kwargs):
    """Configure the profiler (see :mod:`.config` for keys); applies immediately."""
    cfg = config.parse(kwargs)
    with _st.lock:
        _script_call()
        if not cfg["aggregate_stats"]:   # as MXNet's SetConfig: kept only when asked for
            _st.retained = []
        _st.written.forget()   # a new profile (MXNet removes the file; its next dump replaces it)
        _st.cfg = cfg
        _st.mode = config.mode_of(cfg)
        _st.notify("config")


def get_config():
    return dict(_st.cfg)


def get_mode():
    return _st.mode


def set_state(state="stop", profile_process="worker"):
    """``'run'`` starts recording, ``'stop'`` stops it (events are kept until dumped)."""
    _check_process(profile_process, "set_state")
    if state not in ("run", "stop"):
        raise ValueError(f"set_state: state={state!r} is not allowed; use 'run' or 'stop'")
    with _st.lock:
        _script_call()
        if state == _st.state:
            return
        _st.state = state
        _st.paused = False
        if state == "run":
            _st.ever_ran = True
        _st.notify(state)


def state():
    return _st.state


def pause(profile_process="worker"):
    """Stop recording without ending the session (``resume`` continues)."""
    _check_process(profile_process, "pause")
    with _st.lock:
        _st.paused = True
        _st.notify("pause")


def resume(profile_process="worker"):
    _check_process(profile_process, "resume")
    with _st.lock:
        _st.paused = False
        _st.notify("resume")


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
    with _st.lock:
        if finished:
            _st.notify("finishing")
        path = _write_trace()
        if finished:
            _finish()
    return path


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """Aggregate statistics of the events recorded since the last reset, as a string.

    No side effect on the trace file; ``reset=True`` restarts the statistics only.
    As in MXNet, statistics outlive ``dump(finished=True)`` and the sessions that
    follow: they are kept until ``dumps(reset=True)`` (or a ``set_config`` without
    ``aggregate_stats=True``), so ``dump()``, ``set_state('run')``,
    ``set_state('stop')``, ``dumps()`` still reports the finished session.
    """
    if format not in ("table", "json"):
        raise ValueError(f"dumps: format={format!r} is not allowed; use 'table' or 'json'")
    _stats.check_sort(sort_by)
    _check_flag("dumps", "ascending", ascending)
    _check_flag("dumps", "reset", reset)
    with _st.lock, columns.gc_paused():
        memory.fold()
        snap = R.snapshot()
        parts = _agg.since(snap, _st.stats_mark)
        st = _agg.aggregate_lists(parts, _st.base_ns)
        values = deps.latency_values(parts, _st.base_ns)
        if _st.retained:
            kept, kept_values = _retained()
            st = _stats.Stats().merge(kept).merge(st)
            values = deps.join_latency_values([kept_values, values])
        section = deps.latency_section(values)
        if reset:   # (rebuilt: no mark keeps a released buffer alive)
            _st.stats_mark.clear()
            for buf, n, m in snap:
                _st.stats_mark[buf] = (n, m)
            _st.retained = []
    if format == "json":
        doc = _stats.to_json_obj(st, sort_by, ascending)
        if section:   # the Operator Latency section, before Unit (as xprof stats puts it)
            unit = doc.pop("Unit")
            doc[_latency.SECTION] = section
            doc["Unit"] = unit
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode()
    text = _stats.render_text(st, sort_by, ascending)
    return text + "\n" + _latency.render_text(section) if section else text


# -- internals ------------------------------------------------------------------------
def _retained():
    """``(Stats, latency values)`` of the finished sessions kept for ``dumps()``,
    aggregated on first use (most programs never call ``dumps()`` after ``dump()``) and
    kept as one entry: the statistics per name, the latency values per op (percentiles
    need every value)."""
    if len(_st.retained) > 1 or not isinstance(_st.retained[0][0], _stats.Stats):
        st, values = _stats.Stats(), []
        for entry in _st.retained:
            if isinstance(entry[0], _stats.Stats):
                st.merge(entry[0])
                values.append(entry[1])
            else:
                st.merge(_agg.aggregate_lists(*entry))
                values.append(deps.latency_values(*entry))
        _st.retained = [(st, deps.join_latency_values(values))]
    return _st.retained[0]


def _check_flag(func, key, value):
    if not isinstance(value, bool) and not (type(value) is int and value in (0, 1)):
        raise ValueError(f"{func}: {key}={value!r} is not allowed; use True or False")


def aggregate(snap, marks=None):
    """Stats from raw events (the same aggregator ``xprof stats`` uses on files)."""
    return _agg.aggregate(snap, marks, _st.base_ns)


def _other_data(start_wall=None):
    data = {"xprof_version": _version(), "command": " ".join(sys.argv),
            "start_time": datetime.datetime.fromtimestamp(
                _st.start_wall if start_wall is None else start_wall,
                datetime.timezone.utc).isoformat(),
            "clock": "perf_counter_ns", "os_pid": os.getpid(),
            "engine": _engine_mod.engine_type(), "settings": _settings()}
    rank = ranks.rank()
    if rank is not None:
        data["rank"] = rank
        data["world_size"] = ranks.world_size()
    from .. import slow
    if slow.specs:   # xprof run --slow: what was slowed, per spec
        data["slowed"] = slow.summary()
    return data


def _settings():
    """The engine settings this run used, as ``xprof explain``'s findings quote them
    (a finding proposes a change only knowing the current value): the engine's worker
    count (ThreadedEngine), the custom-op pool's bound, the machine's cores."""
    eng = _engine_mod.get()
    out = {"cpu_count": os.cpu_count()}
    workers = getattr(eng, "num_workers", None)
    if workers is not None:
        out["XPROF_CPU_WORKER_NTHREADS"] = workers
    # the pool's own bound when custom operators were loaded (imported lazily: not
    # loaded for a job without them), else the value it would take
    op_mod = sys.modules.get(__name__.rsplit(".", 2)[0] + ".operator")
    out["XPROF_CUSTOM_OP_NUM_THREADS"] = (op_mod._pool.max_threads if op_mod is not None
                                          else _env.get_int("CUSTOM_OP_NUM_THREADS", 256))
    return out


def _version():
    return _shared_version()


def _process_name():
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    name = f"xprof: {script} (pid {os.getpid()})"
    rank = ranks.rank()
    return name if rank is None else f"{ranks.process_label(rank)}: {name}"


def encode(snap, base_ns, start_wall=None, after=None):
    """The trace document of ``snap`` with this process's name and metadata (after the
    events of ``after``, a :class:`.chrome.Continued`, when given)."""
    return chrome.encode(snap, base_ns, _process_name(), _other_data(start_wall), after)


def _write_trace(path=None):
    """Write the session so far (to the configured file, or ``path``). When a finished
    session was written to the same file before, its events are written again first
    and this session's follow on the file's time base (:mod:`.written`: a dump never
    removes events it wrote)."""
    if _st.mode & config.MODE_MEMORY:   # not from a past session's arrays when memory is off
        memory.sample_all()
    snap = R.snapshot()
    path = path or ranks.filename_for_rank(_st.cfg["filename"], ranks.rank())
    written = _st.written
    after = written.continued(path)
    if after is None:
        after = chrome.Continued()
        write_atomic(path, encode(snap, _st.base_ns, after=after))
    else:
        write_atomic(path, encode(snap, written.base_ns, written.start_wall, after))
        written.wrote(path)
    prefix = _st.memory_prefix()
    if prefix and memory.rows:
        memory.write_csv(prefix, os.getpid())
    _st.dumped_upto = {buf: (n, m) for buf, n, m in snap}
    _st.dumped = (path, after)
    _st.notify("dumped", path=path)
    return path


def _finish():
    """End the session after a finished dump: what the dump wrote is released (the next
    dump to the same file writes it again, :mod:`.written`)."""
    path, after = _st.dumped
    _st.written.finished(path, after, _st.base_ns, _st.start_wall)
    end_session([(buf, n, m) for buf, (n, m) in (_st.dumped_upto or {}).items()])


def end_session(snap, keep_stats=True):
    """Stop and release the records in ``snap`` (listeners see them first, change
    ``"finish"``); their statistics are kept for ``dumps`` unless ``keep_stats`` is
    False (``xprof run``'s own session, ended when the script takes over: the script
    sees the statistics it would under ``python``). Called with the lock held."""
    _st.state = "stop"
    _st.paused = False
    _st.notify("finish", snap=snap)
    # Keep the finished session's events (not their statistics: most programs never
    # call dumps() after dump(), so aggregating here would be wasted time), folded into
    # one part: no list and table per thread (10,000 short-lived threads).
    if keep_stats:
        _st.retained.append((_agg.folded(_agg.since(snap, _st.stats_mark)), _st.base_ns))
    R.clear(snap)
    _st.stats_mark.clear()
    memory.reset()
    _st.dumped_upto = None
    _st.base_ns = perf_counter_ns()
    _st.start_wall = time.time()


def undumped_events():
    """How many recorded events the last dump did not include."""
    upto = _st.dumped_upto or {}
    left = []
    for buf, n, m in R.snapshot():
        n0, m0 = upto.get(buf, (0, 0))
        left.append((buf, n - n0, m - m0))
    return R.count(left)


def event_count():
    """Events recorded so far, the memory counters of the allocations logged since the
    last fold included (folded now, as a dump would)."""
    with _st.lock:
        memory.fold()
        return R.count(R.snapshot())


def _write_and_finish(path=None):
    _st.notify("finishing")
    _write_trace(path)
    _finish()


handover = Handover(lambda snap: end_session(snap, keep_stats=False))
_st.subscribe(ContinuousDump(_write_trace))
_st.subscribe(handover)
exits.install(_st, _write_and_finish, undumped_events)


# -- starting points: the environment (autostart) and `xprof run` ----------------------
def autostart_from_env():
    """``XPROF_PROFILER_AUTOSTART=1``: profile from import, dump at exit."""
    from .. import _env
    if not _env.get_bool("PROFILER_AUTOSTART", False):
        return False
    kwargs = {"filename": _env.get("PROFILER_FILENAME", "profile.json")}
    mode = _env.get("PROFILER_MODE")
    if mode:
        kwargs.update(config.kwargs_for_mode(config.parse_mode_list(mode)))
    if _env.get_bool("PROFILER_AGGREGATE_STATS", False):
        kwargs["aggregate_stats"] = True
    _start_unclaimed(kwargs)
    return True


def _start_unclaimed(kwargs):
    """Configure and run, as the profiler's own start (not a call of the script's).
    ``XPROF_PROFILER_MEMORY_PREFIX``: also log every allocation, written as
    ``<prefix>-pid_<pid>.csv`` with the trace (the report's allocations)."""
    from .. import _env
    prefix = _env.get("PROFILER_MEMORY_PREFIX")
    if prefix and not kwargs.get("memory_profile_filename_prefix"):
        kwargs = dict(kwargs, memory_profile_filename_prefix=prefix)
    with _st.lock:
        _st.script_configured = True    # no hand-over for our own calls
        set_config(**kwargs)
        set_state("run")
        _st.script_configured = False


def start_for_cli(filename, **kwargs):
    """``xprof run``: profile from the first line of the script into ``filename`` (the
    run's complete profile, see :mod:`.handover`)."""
    with _st.lock:
        handover.end()
        _start_unclaimed(dict(kwargs, filename=filename))
        handover.start(_st, filename)


def finish_cli_run(output=None):
    """``xprof run``, after the script: write what the script's own session left (as its
    exit would under ``python``), then the run's complete profile to the ``-o`` file
    (or to ``output``: a failed run's, beside a profile it must not replace).
    Returns ``{path: what it holds}`` for every file written during the run."""
    with _st.lock:
        if handover.output is None:
            return {}
        output = output or handover.output
        try:
            if handover.took_over:
                if _st.ever_ran and (_st.state == "run" or undumped_events()):
                    _write_and_finish()   # the script's file, as its atexit would
                snap = handover.run_snapshot()
                write_atomic(output, encode(snap, handover.base_ns))
                files = dict(handover.files)
                files[output] = ("the whole run: xprof's autostart until the script took "
                                 "over the profiler (what ran before the script's own "
                                 f"profiling), then {_sessions(handover.sessions)} of the "
                                 "script's, marked where it took over")
            else:
                if _st.state == "run" or undumped_events():
                    _write_and_finish(output)
                files = {output: "the whole run"}
        finally:
            handover.end()
    return files


def abandon():
    """Stop and drop what is recorded, unwritten: ``xprof run`` could not write the
    profile and said so; the exit must not try (and fail, and say so) again."""
    with _st.lock:
        _st.notify("finishing")
        end_session(R.snapshot(), keep_stats=False)
        handover.end()


def _sessions(n):
    return "1 session" if n == 1 else f"{n} sessions"


def script_configured():
    return _st.script_configured


def clear_script_configured():
    _st.script_configured = False

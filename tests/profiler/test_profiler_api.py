"""mx.profiler API: configuration keys and their checks, states, pause/resume, modes."""
import json
import os

import pytest

import xprof.runtime as mx
from xprof.runtime.profiler import config as pconfig

import proftools as pt

P = mx.profiler


# -- set_config ----------------------------------------------------------------------------
def test_defaults_mode_is_every_kind_as_mxnet_1_9(prof):
    P.set_config()
    assert P.get_mode() == P.MODE_SYMBOLIC | P.MODE_IMPERATIVE | P.MODE_API | P.MODE_MEMORY \
        == 15
    assert P.get_config()["filename"] == "profile.json"
    assert (P.MODE_SYMBOLIC, P.MODE_IMPERATIVE, P.MODE_API, P.MODE_MEMORY) == (1, 2, 4, 8)


@pytest.mark.parametrize("kwargs, mode", [
    ({"profile_all": True}, 15),
    ({"profile_imperative": True}, 15),
    ({"profile_symbolic": False}, 14),
    ({"profile_api": False, "profile_memory": False}, 3),
    ({"profile_imperative": False}, 13),
    ({"profile_symbolic": False, "profile_api": False, "profile_memory": False,
      "profile_imperative": True}, 2),
])
def test_mode_bits(prof, kwargs, mode):
    P.set_config(**kwargs)
    assert P.get_mode() == mode


def test_every_known_key_is_accepted(prof, tmp_path):
    P.set_config(filename=str(tmp_path / "p.json"), profile_all=False, profile_symbolic=True,
                 profile_imperative=True, profile_memory=True, profile_api=True,
                 continuous_dump=False, dump_period=0.5, aggregate_stats=True,
                 profile_process="worker",
                 gpu_memory_profile_filename_prefix=str(tmp_path / "g"),
                 memory_profile_filename_prefix=str(tmp_path / "m"))
    cfg = P.get_config()
    assert cfg["dump_period"] == 0.5 and cfg["aggregate_stats"] is True


def test_set_config_starts_from_defaults_each_call(prof):
    P.set_config(profile_imperative=False, profile_api=False)
    P.set_config(filename="x.json")
    assert P.get_mode() == 15
    assert P.get_config()["profile_api"] is True


@pytest.mark.parametrize("kwargs, must_mention", [
    ({"no_such_key": 1}, ["no_such_key", "filename", "profile_all", "dump_period"]),
    ({"profile_all": "maybe"}, ["profile_all", "True", "False"]),
    ({"profile_imperative": 2}, ["profile_imperative", "True", "False"]),
    ({"profile_memory": None}, ["profile_memory"]),
    ({"continuous_dump": []}, ["continuous_dump"]),
    ({"aggregate_stats": "yes"}, ["aggregate_stats"]),
    ({"dump_period": 0}, ["dump_period", "positive"]),
    ({"dump_period": -1.5}, ["dump_period", "positive"]),
    ({"dump_period": "soon"}, ["dump_period", "positive"]),
    ({"dump_period": float("nan")}, ["dump_period"]),
    ({"dump_period": float("inf")}, ["dump_period"]),
    ({"filename": ""}, ["filename"]),
    ({"filename": 42}, ["filename"]),
    ({"profile_process": "server"}, ["server", "worker"]),
    ({"profile_process": "scheduler"}, ["profile_process", "worker"]),
    ({"memory_profile_filename_prefix": ""}, ["memory_profile_filename_prefix"]),
    ({"gpu_memory_profile_filename_prefix": 7}, ["gpu_memory_profile_filename_prefix"]),
])
def test_set_config_bad_values(prof, kwargs, must_mention):
    before = P.get_config()
    with pytest.raises(ValueError) as info:
        P.set_config(**kwargs)
    msg = str(info.value)
    for word in must_mention:
        assert word in msg, (word, msg)
    assert P.get_config() == before, "a rejected set_config must not change the config"


def test_bool_strings_and_ints_are_accepted(prof):
    P.set_config(profile_imperative="true", profile_api=0, profile_memory="False")
    assert P.get_mode() == P.MODE_SYMBOLIC | P.MODE_IMPERATIVE


@pytest.mark.parametrize("call, must_mention", [
    (lambda: P.set_state("running"), ["running", "run", "stop"]),
    (lambda: P.set_state("run", profile_process="server"), ["server"]),
    (lambda: P.pause(profile_process="server"), ["server"]),
    (lambda: P.resume(profile_process="server"), ["server"]),
    (lambda: P.dump(profile_process="server"), ["server"]),
    (lambda: P.dumps(format="xml"), ["xml", "table", "json"]),
    (lambda: P.dumps(sort_by="name"), ["name", "total", "avg", "min", "max", "count"]),
    (lambda: P.dumps(ascending="yes"), ["ascending", "True", "False"]),
    (lambda: P.dumps(reset="yes"), ["reset", "True", "False"]),
    (lambda: P.dump(finished="yes"), ["finished", "True", "False"]),
    (lambda: P.profiler_set_config(mode="everything"), ["everything", "symbolic", "all"]),
])
def test_bad_arguments(prof, call, must_mention):
    with pytest.raises(ValueError) as info:
        call()
    for word in must_mention:
        assert word in str(info.value), (word, str(info.value))
    assert P.state() == "stop"


def test_parse_mode_list():
    assert pconfig.parse_mode_list("symbolic,imperative") == 3
    assert pconfig.parse_mode_list("all") == 15
    with pytest.raises(ValueError, match="bogus"):
        pconfig.parse_mode_list("api,bogus")


# -- states --------------------------------------------------------------------------------
def test_state_transitions(prof):
    assert P.state() == "stop" and not P.is_recording()
    prof.start(profile_all=True)
    assert P.state() == "run" and P.is_recording()
    P.pause()
    assert P.state() == "run" and not P.is_recording()
    P.resume()
    assert P.is_recording()
    P.set_state("run")  # idempotent
    P.set_state("stop")
    assert not P.is_recording()


def test_nothing_recorded_while_stopped(prof):
    x = mx.nd.ones((4,))
    (x + 1).wait_to_read()
    prof.start(profile_all=True)
    prof.stop()
    (x * 2).wait_to_read()
    P.dump(finished=True)
    names = {e["name"] for e in pt.events(pt.load(prof.path), "X")}
    assert "_plus_scalar" not in names and "_mul_scalar" not in names


def test_pause_resume_excludes_events(prof):
    prof.start(profile_all=True)
    x = mx.nd.ones((3, 3))
    x.sqrt().wait_to_read()
    P.pause()
    dom = P.Domain("paused")
    for _ in range(3):
        x.exp().wait_to_read()
    P.Marker(dom, "hidden-marker").mark()
    dom.new_counter("hidden-counter", 5)
    with P.Event("hidden-event"):
        pass
    mx.nd.waitall()
    P.resume()
    x.log().wait_to_read()
    doc = prof.finish()
    names = {e.get("name") for e in doc["traceEvents"]}
    assert {"sqrt", "log"} <= names
    for hidden in ("exp", "hidden-marker", "hidden-counter", "hidden-event"):
        assert hidden not in names, hidden


def test_pause_excludes_from_dumps_too(prof):
    prof.start(profile_all=True)
    x = mx.nd.ones((2,))
    P.pause()
    (x + 1).wait_to_read()
    P.resume()
    (x + 1).wait_to_read()
    (x + 1).wait_to_read()
    prof.stop()
    st = prof.stats()
    assert st["Time"]["operator"]["_plus_scalar"]["Count"] == 2
    assert st["Time"]["API"]["_plus_scalar"]["Count"] == 2


# -- modes really filter --------------------------------------------------------------------
def _cats(doc):
    return {e.get("cat") for e in doc["traceEvents"] if e["ph"] in ("X", "C")}


def test_default_mode_records_everything_as_mxnet_1_9(prof):
    # MXNet 1.9.1's set_config defaults: profile_symbolic, _imperative, _memory and _api
    # all true (src/c_api/c_api_profile.cc)
    prof.start()
    (mx.nd.ones((8,)) + 1).wait_to_read()
    doc = prof.finish()
    assert _cats(doc) == {"API", "Device Storage", "operator"}
    assert mx.profiler.get_config()["profile_imperative"] is True


def test_imperative_only(prof):
    prof.start(profile_imperative=True, profile_symbolic=False, profile_api=False,
               profile_memory=False)
    (mx.nd.ones((8,)) + 1).wait_to_read()
    doc = prof.finish()
    assert _cats(doc) == {"operator"}
    assert pt.name_counts(doc)[("operator", "_plus_scalar")] == 1


def test_api_only(prof):
    prof.start(profile_symbolic=False, profile_imperative=False, profile_memory=False)
    (mx.nd.ones((8,)) + 1).wait_to_read()
    doc = prof.finish()
    assert _cats(doc) == {"API"}
    api = {e["name"] for e in pt.events(doc, "X")}
    assert {"_ones", "_plus_scalar", "wait_to_read"} <= api


def test_memory_only(prof):
    prof.start(profile_symbolic=False, profile_imperative=False, profile_api=False)
    keep = [mx.nd.ones((16,)) for _ in range(3)]
    mx.nd.waitall()
    doc = prof.finish()
    assert _cats(doc) == {"Device Storage"}
    assert all(e["name"] == "Memory: cpu/0" for e in pt.events(doc, "C"))
    del keep


def test_no_memory_counters_when_memory_is_off_after_a_memory_session(prof):
    # A memory session leaves tracked arrays alive; the next session without memory
    # profiling must still contain no Device Storage counter.
    prof.start(profile_all=True)
    keep = mx.nd.ones((32,))
    keep.wait_to_read()
    prof.finish()
    prof.start(profile_imperative=True, profile_symbolic=False, profile_api=False,
               profile_memory=False)
    (keep + 1).wait_to_read()
    doc = prof.finish()
    assert "Device Storage" not in _cats(doc)
    del keep


def _bound_executor():
    x = mx.sym.Variable("x")
    y = mx.sym.exp(mx.sym.sqrt(x))
    return y.bind(mx.cpu(), {"x": mx.nd.ones((4, 4))})


@pytest.mark.parametrize("symbolic, imperative", [(True, False), (False, True), (True, True)])
def test_symbolic_and_imperative_filters(prof, symbolic, imperative):
    ex = _bound_executor()
    mx.nd.waitall()
    prof.start(profile_symbolic=symbolic, profile_imperative=imperative, profile_api=False,
               profile_memory=False)
    ex.forward()[0].wait_to_read()
    mx.nd.ones((4,)).tanh().wait_to_read()
    doc = prof.finish()
    names = " ".join(e["name"] for e in pt.events(doc, "X"))
    assert ("sqrt" in names) == symbolic, names
    assert ("tanh" in names) == imperative, names


# -- sessions ------------------------------------------------------------------------------
def test_reconfigure_after_finished_dump(prof, tmp_path):
    first, second = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    prof.start(profile_all=True, filename=first)
    mx.nd.ones((2,)).sqrt().wait_to_read()
    prof.stop()
    P.dump(finished=True)
    assert P.state() == "stop"
    prof.start(profile_imperative=True, profile_api=False, profile_memory=False,
               filename=second)
    mx.nd.ones((2,)).exp().wait_to_read()
    prof.stop()
    assert P.dump(finished=True) == second
    a, b = pt.load(first), pt.load(second)
    assert "sqrt" in {e["name"] for e in pt.events(a, "X")}
    names_b = {e["name"] for e in pt.events(b, "X")}
    assert "exp" in names_b and "sqrt" not in names_b, "events leaked into the next session"


def test_dump_finished_false_keeps_profiling(prof):
    prof.start(profile_all=True)
    mx.nd.ones((2,)).sqrt().wait_to_read()
    P.dump(finished=False)
    assert P.state() == "run" and P.is_recording()
    first = pt.load(prof.path)
    mx.nd.ones((2,)).exp().wait_to_read()
    doc = prof.finish()
    assert "exp" not in {e["name"] for e in pt.events(first, "X")}
    names = {e["name"] for e in pt.events(doc, "X")}
    assert {"sqrt", "exp"} <= names


def test_dumps_has_no_side_effect_on_trace_file(prof):
    prof.start(profile_all=True)
    mx.nd.ones((2,)).sqrt().wait_to_read()
    prof.stop()
    for fmt in ("table", "json"):
        P.dumps(format=fmt)
    assert not os.path.exists(prof.path)
    P.dump(finished=False)
    with open(prof.path, "rb") as f:
        before = f.read()
    P.dumps(reset=True)
    P.dumps(format="json")
    with open(prof.path, "rb") as f:
        assert f.read() == before


def test_deprecated_entry_points(prof, tmp_path):
    path = str(tmp_path / "old.json")
    P.profiler_set_config(mode="all", filename=path)
    assert P.get_mode() == 15
    P.profiler_set_state("run")
    mx.nd.ones((2,)).sqrt().wait_to_read()
    mx.nd.waitall()
    P.profiler_set_state("stop")
    P.dump_profile()
    assert "sqrt" in {e["name"] for e in pt.events(pt.load(path), "X")}


def test_dump_returns_path_and_writes_valid_json(prof):
    prof.start(profile_all=True)
    mx.nd.ones((2,)).sqrt().wait_to_read()
    prof.stop()
    assert P.dump() == prof.path
    with open(prof.path) as f:
        pt.check_document(json.load(f))

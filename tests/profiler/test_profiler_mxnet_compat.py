"""MXNet-shaped details of ``mx.profiler``: argument types MXNet accepts (it passes
``str(value)`` to C), MXNet's ``scope``/``set_kvstore_handle``, errors that name the
function called, and trace files with ordinary permissions."""
import json
import os
import pathlib

import numpy as np
import pytest

import xprof.runtime as mx

import proftools as pt


def test_filename_and_prefix_may_be_paths(prof, tmp_path):
    path = tmp_path / "as_path.json"
    mx.profiler.set_config(profile_all=True, filename=path,
                           gpu_memory_profile_filename_prefix=tmp_path / "mem")
    assert mx.profiler.get_config()["filename"] == str(path)
    mx.profiler.set_state("run")
    (mx.nd.ones((4,)) + 1).wait_to_read()
    mx.profiler.set_state("stop")
    assert mx.profiler.dump() == str(path)
    assert json.loads(path.read_text())["traceEvents"]
    assert [p for p in os.listdir(tmp_path) if p.startswith("mem-pid_")]


def test_numpy_bools_are_flags(prof):
    mx.profiler.set_config(profile_all=np.True_, aggregate_stats=np.bool_(False))
    assert mx.profiler.get_mode() == mx.profiler.MODE_ALL
    assert mx.profiler.get_config()["aggregate_stats"] is False


def test_counter_takes_numpy_numbers(prof):
    prof.start(profile_all=True, aggregate_stats=True)
    c = mx.profiler.Domain("numbers").new_counter("c", np.int64(3))
    c += np.int32(2)
    c.increment(np.float64(0.5))
    c.decrement(np.int64(1))
    assert c.value == 4.5
    prof.stop()
    ctr = prof.stats()["Counter"]["numbers"]["c"]
    assert ctr["Count"] == 4 and ctr["Max"] == 5.5
    for bad in ("3", np.True_, None, [1]):
        with pytest.raises(ValueError, match="counter value"):
            c.set_value(bad)


def test_scope_function_names_allocations(prof, tmp_path):
    prof.start(profile_memory=True, memory_profile_filename_prefix=str(tmp_path / "m"))
    with mx.profiler.scope("block1") as name:
        assert name == "block1:"
        with mx.profiler.scope("fc:") as inner:
            assert inner == "fc:"
            a = mx.nd.zeros((8,))
    a.wait_to_read()
    prof.finish()
    csv = next(p for p in os.listdir(tmp_path) if p.startswith("m-pid_"))
    text = (tmp_path / csv).read_text()
    assert "block1:fc:_zeros,32,cpu/0" in text, text


def test_set_kvstore_handle_exists():
    assert mx.profiler.set_kvstore_handle(None) is None


@pytest.mark.parametrize("call,func", [
    (lambda: mx.profiler.set_state("run", profile_process="server"), "set_state"),
    (lambda: mx.profiler.pause(profile_process="server"), "pause"),
    (lambda: mx.profiler.resume("nope"), "resume"),
    (lambda: mx.profiler.dump(True, "server"), "dump"),
])
def test_profile_process_errors_name_the_function(prof, call, func):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(func + ": profile_process=") and "'worker'" in msg, msg
    assert "\n" not in msg


def test_trace_and_csv_get_ordinary_permissions(prof, tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    prof.start(profile_all=True, memory_profile_filename_prefix=str(tmp_path / "m"))
    mx.nd.ones((4,)).wait_to_read()
    path = mx.profiler.dump()
    csv = next(p for p in os.listdir(tmp_path) if p.startswith("m-pid_"))
    for p in (pathlib.Path(path), tmp_path / csv):
        assert os.stat(p).st_mode & 0o777 == 0o666 & ~mask, (p, oct(os.stat(p).st_mode))
    pt.check_document(pt.load(path))


def test_array_creation_without_an_engine_op_is_an_api_event(prof):
    prof.start(profile_api=True, profile_imperative=True, aggregate_stats=True)
    mx.nd.empty((2,))
    mx.nd.array([1, 2])
    prof.stop()
    st = prof.stats()
    assert st["Time"]["API"]["empty"]["Count"] == 1
    assert st["Time"]["API"]["array"]["Count"] == 1
    assert "operator" not in st["Time"]       # neither pushes an engine op


def test_memory_csv_has_mxnets_file_name_and_every_device(prof, tmp_path):
    """MXNet writes ``<prefix>-pid_<pid>.csv``, one file for all devices."""
    import csv
    prefix = str(tmp_path / "gpu_memory_profile")
    prof.start(profile_memory=True, gpu_memory_profile_filename_prefix=prefix)
    with mx.profiler.Scope("tensordot"):
        a = mx.nd.zeros((4, 4))
        b = mx.nd.zeros((2,), ctx=mx.cpu(1))
    mx.nd.waitall()
    prof.finish()
    assert [p for p in os.listdir(tmp_path) if p.endswith(".csv")] == \
        [f"gpu_memory_profile-pid_{os.getpid()}.csv"]
    with open(f"{prefix}-pid_{os.getpid()}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    got = {(r["Attribute Name"], r["Requested Size"], r["Device"]) for r in rows}
    assert got == {("tensordot:_zeros", "64", "cpu/0"), ("tensordot:_zeros", "8", "cpu/1")}
    del a, b


def test_device_unused_in_this_session_has_no_memory_counter(prof):
    prof.start(profile_memory=True)
    b = mx.nd.zeros((2,), ctx=mx.cpu(2))
    b.wait_to_read()
    del b
    assert any(e["name"] == "Memory: cpu/2" for e in pt.events(prof.finish(), "C"))
    prof.start(profile_memory=True)                # cpu(2) holds nothing now
    mx.nd.zeros((3,)).wait_to_read()
    names = {e["name"] for e in pt.events(prof.finish(), "C", "Device Storage")}
    assert names == {"Memory: cpu/0"}, names

"""Memory profiling: the ``Memory: cpu/0`` counter and the per-allocation CSV."""
import csv
import glob
import os

import numpy as np

import xprof.runtime as mx

from xprof.runtime.profiler import memory

import proftools as pt

P = mx.profiler


def _mem_values(doc):
    return [e["args"]["Memory: cpu/0"] for e in pt.events(doc, "C")
            if e["name"] == "Memory: cpu/0"]


def test_memory_counter_tracks_allocations(prof):
    mx.nd.waitall()
    base = memory.total("cpu/0")
    prof.start(profile_memory=True, profile_api=False, profile_symbolic=False)
    keep = [mx.nd.zeros((10, 10)), mx.nd.zeros((5,), dtype="float64"), mx.nd.ones((3, 3))]
    mx.nd.waitall()
    doc = prof.finish()
    values = _mem_values(doc)
    events = [e for e in pt.events(doc, "C") if e["name"] == "Memory: cpu/0"]
    assert all(e["cat"] == "Device Storage" for e in events)
    steps = np.diff([base] + values).tolist()
    assert steps == [400, 40, 36, 0], "three allocations, then the sample at dump time"
    assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)
    del keep


def test_memory_counter_is_not_negative_and_frees_are_counted(prof, on_engine):
    on_engine("NaiveEngine")
    before = mx.nd.ones((1000,))  # allocated before profiling: never subtracted
    before.wait_to_read()
    prof.start(profile_memory=True, profile_api=False, profile_symbolic=False)
    a = mx.nd.ones((100,))
    del a
    b = mx.nd.ones((50,))
    del before
    P.dump(finished=False)
    doc = pt.load(prof.path)
    values = _mem_values(doc)
    assert min(values) >= 0
    assert values[-1] - values[0] == 200 - 400, values
    del b
    prof.finish()


def test_memory_csv(prof, tmp_path):
    prefix = str(tmp_path / "memprof")
    prof.start(profile_all=True, memory_profile_filename_prefix=prefix)
    with P.Scope("layer1"):
        a = mx.nd.zeros((2, 3))
        with P.Scope("inner"):
            b = a + 1
        with P.Scope("flat", append_mode=False):
            c = mx.nd.ones((4,), dtype="float64")
    d = mx.nd.ones((5,))
    mx.nd.waitall()
    prof.finish()
    (path,) = glob.glob(prefix + "*.csv")
    assert os.path.basename(path) == f"memprof-pid_{os.getpid()}.csv"   # MXNet's name
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["Attribute Name", "Requested Size", "Device", "Actual Size", "Reuse?"]
    body = rows[1:]
    assert len(body) == 4, "one row per allocation"
    assert body[0] == ["layer1:_zeros", "24", "cpu/0", "24", "false"]
    assert body[1] == ["layer1:inner:_plus_scalar", "24", "cpu/0", "24", "false"]
    assert body[2] == ["flat:_ones", "32", "cpu/0", "32", "false"]
    assert body[3] == ["<unk>:_ones", "20", "cpu/0", "20", "false"]
    del a, b, c, d


def test_gpu_prefix_alias_and_no_csv_without_prefix(prof, tmp_path):
    prefix = str(tmp_path / "gpu")
    prof.start(profile_all=True, gpu_memory_profile_filename_prefix=prefix)
    x = mx.nd.zeros((7,))
    mx.nd.waitall()
    prof.finish()
    (path,) = glob.glob(prefix + "*.csv")
    with open(path) as f:
        assert "<unk>:_zeros,28,cpu/0,28,false" in f.read()
    # a new session without a prefix writes no CSV and keeps no rows
    prof.start(profile_all=True)
    y = mx.nd.zeros((7,))
    mx.nd.waitall()
    prof.finish()
    assert glob.glob(str(tmp_path / "*.csv")) == [path]
    del x, y


def test_memory_csv_only_while_memory_profiling(prof, tmp_path):
    prefix = str(tmp_path / "off")
    prof.start(profile_imperative=True, profile_memory=False,
               memory_profile_filename_prefix=prefix)
    x = mx.nd.zeros((7,))
    mx.nd.waitall()
    prof.finish()
    assert glob.glob(prefix + "*") == []
    del x

"""Memory profiling: the ``Memory: cpu/0`` counter and the per-allocation CSV."""
import csv
import glob
import os

import numpy as np
from hypothesis import given, settings, strategies as st

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


def _reference_fold(entries, totals, last):
    """The fold's rule, one entry at a time: a sample at each allocation whose
    footprint differs from the device's last sample."""
    samples = []
    for device, nbytes, t in entries:
        totals[device] = totals.get(device, 0) + nbytes
        if t >= 0 and totals[device] != last.get(device):
            last[device] = totals[device]
            samples.append((device, t, totals[device]))
    return samples


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0, 1]), st.integers(0, 3), st.booleans()),
                max_size=40),
       st.integers(0, 4))
def test_numpy_fold_matches_the_one_by_one_rule(steps, split):
    """Allocations and releases on two devices, folded in two batches (as a dump in
    the middle would), give the samples and totals of the sequential rule."""
    devices = [mx.cpu(5), mx.cpu(6)]
    names = [d.dev_key for d in devices]
    entries, live, t = [], {0: [], 1: []}, 1000
    for dev, size, release in steps:
        if release and live[dev]:
            entries.append((names[dev], -live[dev].pop(), -1))
        else:
            live[dev].append(8 * size)
            t += 1
            entries.append((names[dev], 8 * size, t))
    saved = (dict(memory.totals), dict(memory._last_sample), len(memory.samples.events))
    memory.fold()
    start = len(memory.samples.events)
    try:
        for name in names:
            memory.totals.pop(name, None)
            memory._last_sample.pop(name, None)
        num = {name: d.dev_num for name, d in zip(names, devices)}
        cut = min(split * 10, len(entries))
        for batch in (entries[:cut], entries[cut:]):
            for name, nbytes, when in batch:
                memory.log.extend((num[name], nbytes, when))
            memory.fold()
        got = [(e[1].split(": ")[1], e[3], e[4]) for e in memory.samples.events[start:]]
        totals = {}
        want = _reference_fold(entries, totals, {})
        for name in names:   # each device's samples in order (devices may interleave)
            assert [g for g in got if g[0] == name] == [w for w in want if w[0] == name]
        assert len(got) == len(want)
        assert {n: memory.totals[n] for n in totals} == totals
    finally:
        del memory.samples.events[start:]
        for name in names:
            memory.totals.pop(name, None)
            memory._last_sample.pop(name, None)
        memory.totals.update(saved[0])
        memory._last_sample.update(saved[1])

"""The streaming reader: forms, gzip, truncation, and chunk boundaries anywhere."""
from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import read_events
from xprof.traces.tracefile import TraceError, TraceReader

TRICKY = ['},{', '"},{"', '\\"},{\\"', 'é€😀', '\\', ']', '{"a":1}', 'x' * 300, '', ',{']


def _events(n, seed=0):
    out = []
    for i in range(n):
        name = TRICKY[(i + seed) % len(TRICKY)] + str(i)
        ev = {"name": name, "ph": "X", "ts": i * 1.5, "dur": 1, "pid": 0, "tid": 1}
        if i % 3 == 0:
            ev["args"] = {"nested": {"list": [1, {"s": "},{"}, [2, 3]]}, "q": 'a"b'}
        out.append(ev)
    return out


def _read(path, chunk):
    reader = TraceReader(path, chunk_size=chunk)
    return list(reader), reader


@pytest.mark.parametrize("chunk", [4096, 65536])
@pytest.mark.parametrize("pretty", [False, True])
def test_50k_events_across_chunk_boundaries(tmp_path, chunk, pretty):
    events = _events(50_000)
    path = tmp_path / "t.json"
    doc = {"otherData": {"v": 1}, "traceEvents": events, "displayTimeUnit": "ns"}
    path.write_text(json.dumps(doc, indent=1 if pretty else None, ensure_ascii=pretty))
    got, reader = _read(path, chunk)
    assert got == events
    assert reader.form == "object" and not reader.truncated
    assert reader.top == {"otherData": {"v": 1}, "displayTimeUnit": "ns"}


@pytest.mark.parametrize("chunk", [1, 2, 7, 13, 100])
def test_tiny_chunks(tmp_path, chunk):
    events = _events(300, seed=3)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events, "meta_after": [1, 2, "x"]}, ensure_ascii=False))
    got, reader = _read(path, chunk)
    assert got == events
    assert reader.top == {"meta_after": [1, 2, "x"]}


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.text(alphabet=st.sampled_from(list('ab{},[]":\\é ')), max_size=12), min_size=1,
                      max_size=30),
       chunk=st.integers(min_value=1, max_value=200), indent=st.sampled_from([None, 0, 2]))
def test_any_strings_any_chunk(tmp_path_factory, names, chunk, indent):
    events = [{"name": n, "ph": "i", "ts": i, "pid": 0, "tid": 0, "args": {"k": n}} for i, n in enumerate(names)]
    path = tmp_path_factory.mktemp("h") / "t.json"
    path.write_text(json.dumps(events, indent=indent, ensure_ascii=False))
    got, reader = _read(path, chunk)
    assert got == events and reader.form == "array"


def test_gzip_detected_by_magic_bytes_not_name(tmp_path):
    events = _events(1000)
    path = tmp_path / "trace.json"  # no .gz suffix on purpose
    with gzip.open(path, "wt") as f:
        json.dump({"traceEvents": events}, f)
    got, _ = _read(path, 777)
    assert got == events


def test_array_form_and_truncated_array(tmp_path):
    events = _events(200)
    text = json.dumps(events)
    path = tmp_path / "a.json"
    path.write_text(text)
    got, reader = _read(path, 64)
    assert got == events and reader.form == "array" and not reader.truncated
    for cut in (len(text) - 1, len(text) - 40, text.rindex("},") + 2):
        path.write_text(text[:cut])
        got, reader = _read(path, 64)
        assert reader.truncated
        assert got == events[:len(got)] and len(got) >= 195


def test_truncated_object_is_corrupt(tmp_path):
    text = json.dumps({"traceEvents": _events(100), "displayTimeUnit": "ms"})
    path = tmp_path / "o.json"
    for cut in (len(text) - 1, len(text) // 2, 20):
        path.write_text(text[:cut])
        with pytest.raises(TraceError) as err:
            _read(path, 128)
        assert err.value.kind == "corrupt"
        assert "truncated" in str(err.value)


@pytest.mark.parametrize("text,kind", [
    ("", "not_json"),
    ("   ", "not_json"),
    ("hello", "not_json"),
    ("42", "not_json"),
    ('{"foo": 1}', "not_trace"),
    ('{"traceEvents": {"a": 1}}', "not_trace"),
    ('[{"a":1} {"b":2}]', "corrupt"),
    ('[{"a":1},]', "corrupt"),
    ('[{"a":NaN}]', "corrupt"),
    ('{"traceEvents":[]} trailing', "corrupt"),
])
def test_unreadable_inputs(tmp_path, text, kind):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(TraceError) as err:
        _read(path, 5)
    assert err.value.kind == kind


def test_missing_file(tmp_path):
    with pytest.raises(TraceError) as err:
        _read(tmp_path / "nope.json", 10)
    assert err.value.kind == "missing"


def test_bom_and_empty_arrays(tmp_path):
    path = tmp_path / "b.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"traceEvents": []}')
    assert _read(path, 3)[0] == []
    path.write_text("[]")
    assert _read(path, 1)[0] == []


def test_big_int_flag_and_exact_values(tmp_path):
    small = [{"ph": "i", "ts": 1, "pid": 0, "tid": 0}]
    big = [{"ph": "i", "ts": 1, "pid": 0, "tid": 0, "id": 2 ** 70}]
    for events, flag in ((small, False), (big, True)):
        path = tmp_path / "f.json"
        path.write_text(json.dumps(events * 3))
        reader = TraceReader(path, chunk_size=1 << 20)
        batches = list(reader.batches())
        assert any(f for _, f in batches) == flag
        got = [e for b, _ in batches for e in b]
        assert got == events * 3  # 2**70 stays an exact int, not a float
        assert all(type(e.get("id", 0)) is int for e in got)


def test_read_events_returns_everything(tmp_path):
    events = _events(10)
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"traceEvents": events, "otherData": {"x": 1}}))
    got, reader = read_events(path)
    assert got == events and reader.top == {"otherData": {"x": 1}}

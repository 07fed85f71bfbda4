"""The per-event rules every reader shares (``xprof.traces.rules``), one by one."""
from __future__ import annotations

from xprof.traces.rules import (OpenSlices, TIME_MAX_US, end_ns, id_key, ns, thread_key,
                                to_ns, usable_dur, usable_time)


def test_ids_are_keys_by_python_equality_and_lists_by_their_repr():
    assert thread_key(1, True) == thread_key(1.0, 1) == (1, 1)
    assert thread_key(1, "1") != thread_key(1, 1)
    # a list is keyed by its repr, but never equals the string that reads the same
    assert id_key([1, 2]) == id_key([1, 2])
    assert id_key([1, 2]) != "[1, 2]" and str(id_key([1, 2])) == "[1, 2]"
    assert hash(id_key({"a": [1]})) == hash(id_key({"a": [1]}))


def test_usable_times_are_numbers_whose_ns_fit_int64():
    assert usable_time(0) and usable_time(-5.5) and usable_time(TIME_MAX_US * 0.999)
    assert not usable_time(TIME_MAX_US) and not usable_time(float("nan"))
    assert not usable_time(True) and not usable_time("1") and not usable_time(None)
    assert usable_dur(0) and not usable_dur(-1e-9) and not usable_dur(float("inf"))


def test_microseconds_become_ns_by_one_rounding_half_to_even():
    assert ns(1.0005) == 1000 and ns(1.0015) == 1002      # 1000.5 -> 1000, 1001.5 -> 1002
    # an integer time is exact, even where float64 ns would round (epoch microseconds)
    assert ns(1795996628459005) == 1795996628459005000
    # the end is start + duration, each rounded once, not the rounding of the float sum
    assert end_ns(1.0005, 3.0005) == 4000 and round((1.0005 + 3.0005) * 1000) == 4001
    us = [1.0005, 1.0015, 3.0005, 12.345 + 1.2, -2.5e-3]
    assert to_ns(us).tolist() == [ns(u) for u in us]
    assert to_ns([1e300, float("nan")]).tolist() == [2 ** 62, 0]   # clipped, never wraps


def test_an_end_closes_the_last_open_begin_of_its_thread():
    open_ = OpenSlices()
    open_.begin((0, 1), "outer")
    open_.begin((0, 1), "inner")
    open_.begin((0, 2), "other")
    assert open_.end((0, 3)) is None
    assert open_.top((0, 1)) == "inner"
    assert open_.end((0, True)) == "inner"   # tid true is thread 1
    assert open_.end((0, 1)) == "outer"
    assert open_.end((0, 1)) is None
    assert list(open_.left_open()) == [((0, 2), "other")]

"""Slice keys: a (name, category) pair gets one key, the same from every thread, and
``key_table`` maps every key given out back to its pair."""
import sys

from threadtools import run_in_threads
from xprof.runtime.profiler import recorder as R


def test_one_key_per_name_and_category():
    a, b = R.key_ids("keys test A"), R.key_ids("keys test B")
    assert R.key_ids("keys test A") is a
    ka, kb = a["same name"], b["same name"]
    assert ka != kb and a["same name"] == ka
    table = R.key_table()
    assert table[ka] == ("same name", "keys test A")
    assert table[kb] == ("same name", "keys test B")


def test_threads_interning_the_same_names_agree():
    """Eight threads intern 300 new names each in two categories, in different orders,
    with thread switches forced often: every name has one key, keys are unique, and the
    table maps each back."""
    names = [f"concurrent {i}" for i in range(300)]
    got = [None] * 8
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        def work(i):
            order = names if i % 2 else names[::-1]
            got[i] = [(R.key_ids("keys test C")[n], R.key_ids("keys test D")[n])
                      for n in order]
        assert run_in_threads(work, 8, timeout=60) == []
    finally:
        sys.setswitchinterval(old)
    forward = got[1]
    for i, keys in enumerate(got):
        assert (keys if i % 2 else keys[::-1]) == forward
    flat = [k for pair in forward for k in pair]
    assert len(set(flat)) == len(flat)
    table = R.key_table()
    for n, (kc, kd) in zip(names, forward):
        assert table[kc] == (n, "keys test C") and table[kd] == (n, "keys test D")

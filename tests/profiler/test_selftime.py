"""Self time (runtime/profiler/selftime.py): the time of a slice's direct children."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from xprof.traces import selftime as T



def test_direct_children_only_and_any_input_order():
    # a [0,100) > b [10,60) > c [20,30); d [70,90) inside a; e [200,210) alone
    starts = [70, 20, 0, 200, 10]
    ends = [90, 30, 100, 210, 60]
    inner = T.inner_ns(starts, ends).tolist()
    assert inner == [0, 0, 50 + 20, 0, 10]    # aligned with the input


def test_siblings_touching_and_equal_starts():
    # parent [0,10); children [0,5) and [5,10) (equal boundaries: siblings, not nested)
    assert T.inner_ns([0, 0, 5], [10, 5, 10]).tolist() == [10, 0, 0]
    # two slices with the same start and end: the first in input order is the parent
    assert T.inner_ns([0, 0], [4, 4]).tolist() == [4, 0]


def test_child_overlapping_its_parent_end_counts_its_inside_part():
    # [8,15) and [9,12) both start inside [0,10) and end after it: 2 + 1 ns inside it
    assert T.inner_ns([0, 8, 9], [10, 15, 12]).tolist() == [3, 0, 0]
    assert T.inner_ns([0, 8], [10, 15]).tolist() == [2, 0]


def test_flat_thread_has_no_inner_time():
    assert T.inner_ns([0, 5, 10], [5, 10, 20]).tolist() == [0, 0, 0]
    assert T.inner_ns([], []).tolist() == []


def test_inner_by_row_sums_rows():
    rows = ["outer", "inner", "outer", "inner"]
    assert T.inner_by_row(rows, [0, 1, 10, 11], [5, 3, 20, 19]) == {"outer": 2 + 8}


def _laminar(spans):
    """``(start, end)`` of ``(start, duration)`` spans, each cut to fit inside the
    innermost slice open at its start: a laminar (properly nested) family."""
    laminar = []
    stack = []
    for s, e in sorted((s, s + d) for s, d in spans):
        while stack and stack[-1][1] <= s:
            stack.pop()
        if stack:
            e = min(e, stack[-1][1])
        laminar.append((s, e))
        stack.append((s, e))
    return laminar


@given(st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 50)), max_size=40))
def test_properly_nested_self_times_add_up_to_the_union(spans):
    """For laminar (properly nested) sets, the self times add up to the covered length."""
    laminar = _laminar(spans)
    starts = np.array([s for s, _ in laminar], dtype=np.int64)
    ends = np.array([e for _, e in laminar], dtype=np.int64)
    self_ns = (ends - starts) - T.inner_ns(starts, ends)
    assert (self_ns >= 0).all()
    covered = set()
    for s, e in laminar:
        covered.update(range(s, e))
    assert int(self_ns.sum()) == len(covered)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 25)), max_size=50),
       st.booleans())
def test_vectorized_nesting_equals_the_stack_walk(spans, nest):
    """Pointer jumping (``_parents``) gives what the viewers' stack walk gives, for
    properly nested sets (its own path) and for any set (overlaps fall back)."""
    if nest:
        spans = [(s, e - s) for s, e in _laminar(spans)]
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([s + d for s, d in spans], dtype=np.int64)
    order = np.lexsort((np.arange(len(starts)), starts - ends, starts))
    want = np.zeros(len(starts), dtype=np.int64)
    if len(starts):
        want[order] = T._inner_walk(starts[order], ends[order], (ends - starts)[order], 1)
    assert T.inner_ns(starts, ends).tolist() == want.tolist()

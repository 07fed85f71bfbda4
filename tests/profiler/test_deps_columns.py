"""``deps.OpTable.with_vars``: the pusher and variable columns of op records, whichever
path reads them (no pusher named or some; every op with the same number of reads and
writes or not), equal a plain loop over the records."""
from hypothesis import given, settings, strategies as st

from xprof.runtime.profiler import deps, records

ids = st.lists(st.integers(1, 2**47), max_size=4).map(tuple)
ops = st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 300)), ids, ids), max_size=25)


def _expected(items):
    pusher, counts, flat, signs = [], [], [], []
    for who, reads, writes in items:
        pusher.append(-1 if who is None else who)
        counts.append(len(reads) + len(writes))
        flat += list(reads) + list(writes)
        signs += [1] * len(reads) + [-1] * len(writes)
    return pusher, counts, flat, signs


def _field(ids, i, single):
    """How the observer records ``ids``: one variable as its id itself (``"int"``), as a
    1-tuple (``"tuple"``, as older records and other writers do), or each way in turn."""
    if len(ids) != 1 or single == "tuple" or (single == "mixed" and i % 2):
        return ids
    return ids[0]


@settings(max_examples=160, deadline=None)
@given(ops, st.booleans(), st.integers(0, 3), st.sampled_from(["int", "tuple", "mixed"]))
def test_pusher_and_variable_columns_match_a_plain_loop(items, uniform, arity, single):
    if uniform:   # the shorter paths: no pusher, the same arity everywhere
        items = [(None, r[:arity] + (7,) * (arity - len(r[:arity])), w[:1] + (9,) * (1 - len(w[:1])))
                 for _, r, w in items]
    events = [records.op_dep("op", records.OPERATOR, 10 * i, 10 * i + 5, 0, None, who,
                             _field(reads, i, single), _field(writes, i, single), 0)
              for i, (who, reads, writes) in enumerate(items)]
    t = deps.OpTable.of(events).with_vars()
    pusher, counts, flat, signs = _expected(items)
    assert t.pusher.tolist() == pusher and t.counts.tolist() == counts
    assert t.ids.tolist() == flat and t.signs.tolist() == signs

"""depgraph: MXNet's variable rule replayed over recorded ops, binding predecessors."""
from deptrace import meta, op

from xprof.mxcli.analysis.depgraph import Graph
from xprof.traces.model import from_events


def _graph(events):
    tl = from_events(meta() + events)
    g = Graph(tl)
    name = {tl.names[tl.name[r]]: i for i, r in enumerate(g.slice.tolist())}
    return g, name


def _pred(g, name, of):
    p = int(g.pred[name[of]])
    return None if p < 0 else next(k for k, v in name.items() if v == p)


def test_read_after_write_waits_for_the_last_write():
    g, n = _graph([op("w1", 1, 0, 0, 1, 5, writes=[1]),
                   op("w2", 1, 1, 5, 6, 9, writes=[1]),
                   op("r", 2, 2, 9, 10, 12, reads=[1])])
    assert _pred(g, n, "r") == "w2"
    assert _pred(g, n, "w2") == "w1"     # write after write
    assert _pred(g, n, "w1") is None


def test_write_after_reads_binds_to_the_read_that_finished_last():
    g, n = _graph([op("w", 1, 0, 0, 1, 2, writes=[1]),
                   op("r_long", 1, 1, 2, 3, 50, reads=[1]),
                   op("r_short", 2, 2, 2, 3, 10, reads=[1]),
                   op("w_again", 2, 3, 50, 51, 52, writes=[1])])
    assert _pred(g, n, "w_again") == "r_long"
    assert _pred(g, n, "r_short") == "w"


def test_pushed_later_is_not_a_predecessor():
    # r is pushed before w2: it reads w1's value, whatever ran first
    g, n = _graph([op("w1", 1, 0, 0, 1, 2, writes=[1]),
                   op("r", 2, 1, 2, 30, 31, reads=[1]),
                   op("w2", 1, 2, 31, 32, 33, writes=[1])])
    assert _pred(g, n, "r") == "w1"
    assert _pred(g, n, "w2") == "r"      # it had to wait for r's read


def test_several_inputs_bind_to_the_latest():
    g, n = _graph([op("a", 1, 0, 0, 1, 100, writes=[1]),
                   op("b", 2, 0.5, 0.5, 1, 20, writes=[2]),
                   op("c", 2, 2, 100, 101, 102, reads=[1, 2], writes=[3])])
    assert _pred(g, n, "c") == "a"


def test_a_call_completes_with_the_children_its_thread_pushed():
    g, n = _graph([op("call", 3, 0, 0, 10, 20, reads=[1], writes=[2], cat="Custom Operator"),
                   op("sub1", 1, 12, 12, 13, 40, writes=[7], pusher=3),
                   op("sub2", 2, 18, 40, 41, 60, reads=[7], writes=[8], pusher=3)])
    call = n["call"]
    assert g.parent[n["sub1"]] == call and g.parent[n["sub2"]] == call
    assert g.done[call] == 60_000 and g.target(call) == n["sub2"]
    assert _pred(g, n, "sub2") == "sub1"

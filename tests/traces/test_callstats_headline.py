"""``callstats.headline``: the part that dominates a call's latency, in a user's words."""
from xprof.traces import callstats as C


def row(lat=10.0, queued=0.0, inputs=0.0, pool=0.0, python=0.0, blocked=0.0, tail=0.0,
        sub=0.0, setup=0.0):
    return {"Count": 2, "Latency": {"Total": 2 * lat, "Avg": lat}, "Queued": queued,
            "Inputs": inputs, "Pool": pool, "Python": python, "Blocked": blocked,
            "Tail": tail, "Sub-operators": sub, "Setup": setup}


def test_inputs_name_the_op_that_wrote_them():
    r = row(queued=8.0, inputs=7.8, pool=0.2, python=1.0, tail=1.0)
    assert C.headline(r, "FullyConnected") == \
        "78% of its latency waits for its inputs to be written (by FullyConnected)"
    assert C.headline(r) == "78% of its latency waits for its inputs to be written"


def test_each_part_in_words():
    assert C.headline(row(queued=6, pool=6, inputs=0, python=4)) == \
        "60% of its latency waits for a free custom-operator thread"
    assert C.headline(row(python=9, tail=1)) == "90% of its latency runs its Python code"
    assert C.headline(row(python=1, blocked=9)).startswith(
        "90% of its latency waits at sync points in its Python code")
    # the writer is named only when inputs dominate
    assert C.headline(row(python=2, tail=8), "dot") == \
        "80% of its latency waits for its sub-operators after its Python code returned"


def test_queued_whole_when_the_trace_does_not_split_it():
    r = row(queued=9.0, python=1.0)
    r["Inputs"] = r["Pool"] = r["Setup"] = None     # a trace written before the split
    assert C.dominant(r) == ("Queued", 9.0)
    assert C.headline(r, "dot").startswith("90% of its latency waits before its Python "
                                           "code starts (for its inputs or for a")


def test_without_a_latency_says_what_is_known():
    r = {"Count": 1, "Latency": dict.fromkeys(("Total", "Avg")), "Queued": None,
         "Python": 1.227, "Blocked": None, "Tail": None, "Sub-operators": 0.039}
    assert C.dominant(r) is None
    assert C.headline(r) == ("latency unknown (no call spans in this trace): Python 1.2270 ms,"
                             " sub-operators 0.0390 ms per call")

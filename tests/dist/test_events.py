"""How a collective is profiled (runtime/dist/events.py): MXNet's event names, Kineto's
argument names, the phases inside each collective, on the comm thread."""
from __future__ import annotations

from dist_helpers import events, run_job, trace

KINETO = {"Collective name", "In msg nelems", "Out msg nelems", "In msg size",
          "Out msg size", "dtype", "Group size", "Process Group Ranks", "Rank", "Seq"}


def test_collectives_carry_mxnet_names_and_kineto_args(tmp_path):
    res = run_job(tmp_path, "sums.py", 2)
    assert res.returncode == 0, res.stderr
    waits = {}
    for rank in (0, 1):
        doc = trace(tmp_path, rank)
        pushes = events(doc, "KVStoreDistDefaultPush")
        assert len(pushes) == 3                   # "a", then "b" and "c"
        pushpulls = events(doc, "KVStoreDistDefaultStoragePushPull")
        inits = [e for e in events(doc, "KVStoreDistDefaultStoragePull")
                 if e["args"].get("Collective name") == "broadcast"]
        assert len(pushpulls) == 3 and len(inits) == 6   # a b c d big, 3 (second store)
        assert len(events(doc, "KVStoreReduce")) == 1     # the 3 values of "a"
        a = next(e for e in pushes if e["args"]["Key"] == "a")
        assert KINETO <= set(a["args"])
        assert a["args"]["Collective name"] == "allreduce"
        assert (a["args"]["In msg nelems"], a["args"]["In msg size"]) == (6, 24)
        assert (a["args"]["dtype"], a["args"]["Group size"], a["args"]["Rank"]) == \
            ("float32", 2, rank)
        assert a["args"]["Process Group Ranks"] == "[0, 1]"
        assert a["args"]["Last to arrive"] in (0, 1)
        seqs = [e["args"]["Seq"] for e in pushes + pushpulls + inits]
        assert len(set(seqs)) == len(seqs)        # one sequence number per collective
        # the phases nest inside their collective, on the same (comm) thread; the rank
        # that entered last did not wait for the others
        waited = 0
        for e in pushes + pushpulls:
            inside = [p for p in doc["traceEvents"] if p.get("cat") == "communication"
                      and p["tid"] == e["tid"] and e["ts"] <= p["ts"] <= e["ts"] + e["dur"]]
            names = [p["name"] for p in sorted(inside, key=lambda p: p["ts"])]
            assert names in (["wait for ranks", "transfer"], ["transfer"]), names
            waited += names[0] == "wait for ranks"
        waits[rank] = waited
    assert sum(waits.values()) > 0      # some rank waited for the other, some time
    d0, d1 = trace(tmp_path, 0), trace(tmp_path, 1)
    # the same collective has the same sequence number on both ranks
    assert [(e["args"]["Key"], e["args"]["Seq"]) for e in
            events(d0, "KVStoreDistDefaultPush")] == \
        [(e["args"]["Key"], e["args"]["Seq"]) for e in events(d1, "KVStoreDistDefaultPush")]

"""Peak memory of MXNet 1.9.1's example/rnn/bucketing/lstm_bucketing.py (its default
network: 2 LSTM layers of 200, embeddings of 200, batch 32, buckets 10-60) on a
Sherlock-Holmes-sized synthetic text (vocabulary ``--vocab``, default 10,000 words), one
epoch, under ``xprof run``: the peak RSS of the process and the peak of the trace's
``Memory: cpu/0`` counter. Memory, not time: the figures do not depend on the machine's
load. ``--python`` runs another installation (e.g. main's venv) for a before/after
comparison on the same files.

    python benchmarks/bench_bucketing_memory.py [--python PY] [--vocab N] [--sentences N]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "..", "tests", "programs")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--vocab", type=int, default=10000)
    ap.add_argument("--sentences", type=int, default=640)
    args = ap.parse_args(argv)
    sys.path.insert(0, PROGRAMS)
    import examples
    import programdata
    work = tempfile.mkdtemp(prefix="bucketmem-")
    folder, script = examples.prepare("lstm_bucketing", work)
    programdata.write_sentences(os.path.join(folder, "data"), args.sentences,
                                args.sentences // 5, vocab=args.vocab, seed=1)
    trace = os.path.join(folder, "mem.json")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    res = subprocess.run([args.python, "-m", "xprof.mxcli", "run", "-q", "-o", trace, script,
                          "--num-epochs", "1", "--disp-batches", "1000"], cwd=folder,
                         capture_output=True, text=True)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if res.returncode != 0:
        print(res.stderr[-2000:])
        return 1
    events = json.load(open(trace))["traceEvents"]
    counter = max((v for e in events if e.get("ph") == "C"
                   and e.get("name", "").startswith("Memory") for v in e["args"].values()),
                  default=0)
    print(f"{args.python}: peak RSS {rss / 1024:.0f} MB (children's maximum: "
          f"{'this run' if rss > before else 'an earlier child'}), trace memory counter "
          f"peak {counter / 2**20:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

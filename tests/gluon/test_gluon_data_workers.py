"""DataLoader workers (``num_workers > 0``): processes and threads give the batches the
calling thread would, in order; errors, timeouts and dead workers are reported, never
hung on; workers never outlive the training process.

Every wait is bounded: loaders use a small ``timeout`` and subprocesses a time limit,
and ``bounded`` turns a hang into a failure with every thread's stack."""
import faulthandler
import multiprocessing
import os
import signal
import sys
import textwrap
import time

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import gluon

MODES = [pytest.param(dict(num_workers=0), id="same-thread"),
         pytest.param(dict(num_workers=2), id="2-processes"),
         pytest.param(dict(num_workers=2, thread_pool=True), id="2-threads"),
         pytest.param(dict(num_workers=3, prefetch=0), id="3-processes-no-prefetch")]
WORKERS = [pytest.param(False, id="processes"), pytest.param(True, id="threads")]


@pytest.fixture(autouse=True)
def bounded():
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def _values(batch):
    if isinstance(batch, (list, tuple)):
        return [_values(b) for b in batch]
    if isinstance(batch, mx.nd.NDArray):
        return ("nd", np.dtype(batch.dtype).name, batch.asnumpy().tolist())
    return batch


class Squares(gluon.data.Dataset):
    """Sample i: (an NDArray made in ``__getitem__``, a numpy label); no batch fast
    path, so ``__getitem__`` and batchify really run where the loader runs them."""

    def __init__(self, n=23):
        self._n = n

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        x = mx.nd.array(np.full((2, 3), i, np.float32)) * i     # an engine op
        return x, np.int32(i)


class Failing(gluon.data.Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        if i == 9:
            raise KeyError(f"sample {i} is broken")
        return np.float32(i)


@pytest.mark.parametrize("options", MODES)
def test_batches_equal_same_thread_batches(options):
    ref = [_values(b) for b in gluon.data.DataLoader(Squares(), batch_size=4)]
    loader = gluon.data.DataLoader(Squares(), batch_size=4, timeout=30, **options)
    for _ in range(2):                                   # workers serve several epochs
        assert [_values(b) for b in loader] == ref
    assert len(ref) == 6 and ref[0][1] == ("nd", "int32", [0, 1, 2, 3])


@pytest.mark.parametrize("thread_pool", WORKERS)
def test_shuffled_order_is_the_samplers(thread_pool):
    ds = gluon.data.ArrayDataset(np.arange(60, dtype=np.int64))

    def epoch(**kw):
        np.random.seed(5)
        loader = gluon.data.DataLoader(ds, batch_size=7, shuffle=True, **kw)
        return [b.asnumpy().tolist() for b in loader]
    assert epoch(num_workers=2, thread_pool=thread_pool, timeout=30) == epoch()


@pytest.mark.parametrize("thread_pool", WORKERS)
def test_custom_batchify_and_plain_values_cross_over(thread_pool):
    loader = gluon.data.DataLoader(
        gluon.data.SimpleDataset(list(range(10))), batch_size=3, num_workers=2,
        thread_pool=thread_pool, timeout=30,
        batchify_fn=lambda s: {"n": len(s), "sum": sum(s), "arr": np.asarray(s)})
    got = list(loader)
    assert [(b["n"], b["sum"]) for b in got] == [(3, 3), (3, 12), (3, 21), (1, 9)]
    assert isinstance(got[0]["arr"], np.ndarray)


def test_process_batches_are_rebuilt_as_ndarrays():
    loader = gluon.data.DataLoader(Squares(8), batch_size=4, num_workers=2, timeout=30)
    data, label = next(iter(loader))
    assert isinstance(data, mx.nd.NDArray) and data.shape == (4, 2, 3)
    assert data.context == mx.cpu()
    data += 1                                           # an ordinary, writable array
    np.testing.assert_array_equal(data.asnumpy()[:, 0, 0], [1, 2, 5, 10])


@pytest.mark.parametrize("options", MODES)
def test_pin_memory_gives_cpu_pinned_batches(options):
    loader = gluon.data.DataLoader(Squares(6), batch_size=3, pin_memory=True,
                                   pin_device_id=1, timeout=30, **options)
    data, label = next(iter(loader))
    assert data.context == mx.cpu_pinned(1) and label.context == mx.cpu_pinned(1)
    assert _values(data) == _values(next(iter(gluon.data.DataLoader(Squares(6),
                                                                     batch_size=3)))[0])


@pytest.mark.parametrize("bad,match", [(dict(timeout=0), "timeout=0"),
                                       (dict(timeout=-1.5), "timeout=-1.5"),
                                       (dict(timeout="soon"), "timeout='soon'"),
                                       (dict(num_workers=1.5), "num_workers=1.5"),
                                       (dict(prefetch="x"), "prefetch='x'")])
def test_bad_options_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        gluon.data.DataLoader(Squares(), batch_size=2, **bad)


def test_negative_workers_mean_none_as_in_mxnet():
    loader = gluon.data.DataLoader(Squares(4), batch_size=2, num_workers=-3)
    assert len(list(loader)) == 2 and loader._workers is None


@pytest.mark.parametrize("thread_pool", WORKERS)
def test_worker_exception_reaches_the_loop_with_its_traceback(thread_pool):
    loader = gluon.data.DataLoader(Failing(), batch_size=4, num_workers=2,
                                   thread_pool=thread_pool, timeout=30)
    got = []
    with pytest.raises(KeyError, match="sample 9 is broken") as e:
        for b in loader:
            got.append(b.asnumpy().tolist())
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7]]
    if not thread_pool:
        note = "\n".join(e.value.__notes__)
        assert "raised in DataLoader worker 0 (pid " in note and "batch 2" in note
        assert "__getitem__" in note and "Traceback" in note
    # the workers are fine: the next epoch gets the same batches, then the same error
    with pytest.raises(KeyError):
        list(loader)


class Slow(gluon.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(3 if i == 2 else 0)   # the workload itself: one slow sample
        return np.float32(i)


@pytest.mark.parametrize("thread_pool", WORKERS)
def test_timeout_names_the_worker_and_batch(thread_pool):
    loader = gluon.data.DataLoader(Slow(), batch_size=1, num_workers=2,
                                   thread_pool=thread_pool, timeout=0.5)
    it = iter(loader)
    assert [next(it).asnumpy().tolist(), next(it).asnumpy().tolist()] == [[0], [1]]
    with pytest.raises(multiprocessing.TimeoutError, match=r"DataLoader worker 0 .*"
                       r"batch 2 within timeout=0.5 s") as e:
        next(it)
    assert isinstance(e.value, TimeoutError)


class Suicidal(gluon.data.Dataset):
    """Sample 5 kills its worker process the first time it is loaded."""

    def __init__(self, marker):
        self._marker = marker

    def __len__(self):
        return 12

    def __getitem__(self, i):
        if i == 5 and not os.path.exists(self._marker):
            open(self._marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return np.float32(i)


def test_killed_worker_is_an_error_naming_it_and_the_loader_recovers(tmp_path):
    # prefetch=0: one batch in flight, so batches 0 and 1 are surely delivered first
    loader = gluon.data.DataLoader(Suicidal(str(tmp_path / "died")), batch_size=2,
                                   num_workers=2, prefetch=0, timeout=30)
    got = []
    t0 = time.monotonic()
    before = set(multiprocessing.active_children())
    with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid \d+\) was killed "
                       r"by signal 9 \(SIGKILL\) before delivering batch 2"):
        for b in loader:
            got.append(b.asnumpy().tolist())
    assert time.monotonic() - t0 < 25          # reported, not found by the timeout
    assert got == [[0, 1], [2, 3]]
    assert set(multiprocessing.active_children()) <= before   # the other one stopped too
    assert [b.asnumpy().tolist() for b in loader] == [[2 * i, 2 * i + 1] for i in range(6)]


@pytest.mark.parametrize("thread_pool", WORKERS)
def test_leaving_early_and_interleaved_iterators_keep_batches_apart(thread_pool):
    loader = gluon.data.DataLoader(gluon.data.SimpleDataset(list(range(40))), batch_size=2,
                                   num_workers=2, thread_pool=thread_pool, timeout=30,
                                   batchify_fn=list)
    for b in loader:
        if b == [4, 5]:
            break                                         # answers left in the workers
    a, b = iter(loader), iter(loader)
    assert [next(a), next(a), next(b), next(a), next(b)] == \
        [[0, 1], [2, 3], [0, 1], [4, 5], [2, 3]]
    assert list(loader) == [[2 * i, 2 * i + 1] for i in range(20)]
    assert list(b)[0] == [4, 5]


# -- no worker outlives the training process ----------------------------------------------
_SCRIPT = textwrap.dedent("""
    import multiprocessing, os, signal, sys, time
    import numpy as np
    import xprof.runtime as mx
    from xprof.runtime import gluon

    class Endless(gluon.data.Dataset):
        def __len__(self):
            return 10_000
        def __getitem__(self, i):
            return np.float32(i)

    loader = gluon.data.DataLoader(Endless(), batch_size=2, num_workers=2, timeout=30)
    for i, batch in enumerate(loader):
        if i == 3:
            print(" ".join(str(p.pid) for p in multiprocessing.active_children()),
                  flush=True)
            how = sys.argv[1]
            if how == "break":
                break
            if how == "raise":
                raise RuntimeError("the training loop failed")
            os.kill(os.getpid(), getattr(signal, how))
            time.sleep(30)
    """)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["break", "raise", "SIGTERM", "SIGKILL"])
def test_no_orphan_workers(run_python, how):
    proc = run_python(_SCRIPT.replace("sys.argv[1]", repr(how)), timeout=60)
    pids = [int(p) for p in proc.stdout.split()]
    assert len(pids) == 2, proc.stdout + proc.stderr
    expected = {"break": 0, "raise": 1, "SIGTERM": -signal.SIGTERM,
                "SIGKILL": -signal.SIGKILL}[how]
    assert proc.returncode == expected, proc.stderr
    deadline = time.monotonic() + 10
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)                               # polling for the exits, bounded
    assert not any(map(_alive, pids)), f"workers {pids} outlived the process ({how})"



class EngineSeen(gluon.data.Dataset):
    """Whether the NDArray layer pushes to the engine of the process it runs in. A forked
    worker that kept pushing to the engine inherited from its parent blocked forever
    whenever a parent thread held that engine's lock at the fork (found as a 1-in-3
    hang of the sample script)."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        from xprof.runtime import engine
        from xprof.runtime.ndarray import ndarray
        a = mx.nd.ones((200, 200)) * (i + 1)          # an op too big to run inline
        total = mx.nd.dot(a, a).asnumpy()[0, 0]
        return np.float32(total if ndarray.engine_push.__self__ is engine.get() else -1)


def test_worker_processes_push_to_their_own_engine():
    loader = gluon.data.DataLoader(EngineSeen(), batch_size=2, num_workers=2, timeout=30)
    got = [b.asnumpy().tolist() for b in loader]
    assert got == [[200.0, 800.0], [1800.0, 3200.0]]


class _Unpicklable(gluon.data.Dataset):
    """Samples holding a function: they batch (an object array) but cannot be pickled."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return np.array([lambda: i], dtype=object)


def test_a_sample_that_does_not_pickle_is_named_as_such():
    """#40.13: a worker's batch that cannot be pickled used to surface as an unrelated
    error; it says what is wrong and what to do."""
    loader = gluon.data.DataLoader(_Unpicklable(), batch_size=4, num_workers=2)
    with pytest.raises(TypeError, match=r"DataLoader: a batch cannot leave its worker "
                                        r"process: its samples do not pickle") as info:
        list(loader)
    assert "num_workers=0" in str(info.value)
    assert len(list(gluon.data.DataLoader(_Unpicklable(), batch_size=4))) == 2   # in-process

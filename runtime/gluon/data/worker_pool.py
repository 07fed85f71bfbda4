"""A DataLoader's workers, seen from the training process: hand out, collect, stop.

Batch ``seq`` of an iteration goes to worker ``seq % num_workers`` (round robin), and
each worker answers its tasks in the order it got them, so the batch order is the
sampler's whatever the workers' speeds, and which worker made which batch is known in
advance. Every task carries a tag ``(epoch, seq)``: an iteration left early leaves
answers behind in the workers' queues, and the next iteration recognizes and drops them.

``ProcessWorkers`` forks ``num_workers`` processes (:mod:`.worker_main`), each with its
own task pipe and result pipe. Waiting for a batch waits on that worker's result pipe
*and* on its process sentinel, so a worker that dies is reported at once, naming it,
and never hangs the loop; ``timeout`` bounds the wait for one batch. Workers are
daemonic processes (stopped when the training process exits, even by an exception) and
leave by themselves when their parent is gone (SIGTERM, SIGKILL).

``ThreadWorkers`` (``thread_pool=True``) runs the same scheme on threads of this process.
"""
import fcntl
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import threading
import time

from ... import ndarray as _nd_mod
from ...profiler import process_tracks
from ...profiler.observer import flags as _flags
from . import transit, worker_main
from .batching import load_batch

__all__ = ["ProcessWorkers", "ThreadWorkers", "WorkerTimeout"]

_STOP_GRACE_S = 2.0   # how long stopping waits for workers to leave before killing them


class WorkerTimeout(multiprocessing.TimeoutError, TimeoutError):
    """A worker took longer than the DataLoader's ``timeout`` for one batch (catchable
    as ``multiprocessing.TimeoutError``, as in MXNet, or as ``TimeoutError``)."""


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _profiling_mode():
    """What a worker should record for its next batch: this process's profiler mode
    while it records, else 0."""
    if not _flags.recording:
        return 0
    from ...profiler import session
    return session.get_mode()


def _enlarge(conn):
    """Let a result pipe hold a whole batch of up to 1 MiB (Linux; 64 KiB by default),
    so that reading it is one copy, not a ping-pong of 64 KiB writes and reads."""
    try:
        fcntl.fcntl(conn.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    except (AttributeError, OSError):
        pass


def _exit_reason(code):
    if code is None:
        return "is not responding"
    if code < 0:
        try:
            return f"was killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class _Workers:
    """Tags, round-robin hand-out and the answers kept for other live iterations;
    subclasses move tasks and answers (``_send``, ``_next_answer``)."""

    def __init__(self, num_workers, dataset, batchify_fn):
        self.num_workers = num_workers
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._next_epoch = 0
        self._live = set()
        self._kept = {}        # tag -> (ok, payload) read while waiting for another tag
        self.broken = False    # a worker died: these workers serve no more iterations

    def open_epoch(self):
        epoch = self._next_epoch
        self._next_epoch += 1
        self._live.add(epoch)
        return epoch

    def close_epoch(self, epoch):
        self._live.discard(epoch)
        for tag in [t for t in self._kept if t[0] == epoch]:
            del self._kept[tag]

    def worker_of(self, seq):
        return seq % self.num_workers

    def submit(self, epoch, seq, indices):
        self._send(self.worker_of(seq), (epoch, seq), indices)

    def receive(self, epoch, seq, timeout):
        """Batch ``seq`` of iteration ``epoch`` (its payload), raising the worker's
        exception, ``WorkerTimeout`` after ``timeout`` seconds, or ``RuntimeError``
        naming the worker if it died."""
        tag = (epoch, seq)
        k = self.worker_of(seq)
        deadline = time.monotonic() + timeout
        while tag not in self._kept:
            answer = self._next_answer(k, seq, deadline)
            if answer is None:
                raise WorkerTimeout(
                    f"{self.describe(k)} did not deliver batch {seq} within "
                    f"timeout={timeout} s; a slow dataset or transform needs a larger "
                    "timeout")
            got, ok, payload = answer
            if got[0] in self._live:
                self._kept[got] = (ok, payload)
        ok, payload = self._kept.pop(tag)
        if not ok:
            raise self._error(k, seq, payload)
        return payload


class ThreadWorkers(_Workers):
    """Worker threads named ``DataLoader worker K``; batches stay NDArrays."""

    def start(self):
        n = self.num_workers
        self._tasks = [queue.SimpleQueue() for _ in range(n)]
        self._answers = [queue.SimpleQueue() for _ in range(n)]
        self._threads = [threading.Thread(target=self._loop, args=(k,), daemon=True,
                                          name=f"DataLoader worker {k}") for k in range(n)]
        for t in self._threads:
            t.start()

    def _loop(self, k):
        tasks, answers = self._tasks[k], self._answers[k]
        while True:
            task = tasks.get()
            if task is None:
                return
            tag, indices = task
            try:
                answers.put((tag, True, load_batch(self._dataset, self._batchify_fn,
                                                    indices)))
            except Exception as e:  # noqa: BLE001 - every error goes to the loop
                answers.put((tag, False, e))

    def describe(self, k):
        return f"DataLoader worker {k} (thread)"

    def _send(self, k, tag, indices):
        self._tasks[k].put((tag, indices))

    def _next_answer(self, k, seq, deadline):
        try:
            return self._answers[k].get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def _error(self, k, seq, exc):
        return exc

    def stop(self):
        for q in self._tasks:
            q.put(None)
        for t in self._threads:
            t.join(_STOP_GRACE_S)


class ProcessWorkers(_Workers):
    """Forked worker processes named ``DataLoader worker K``; batches come back as
    numpy data and are rebuilt as NDArrays on ``ctx`` (:mod:`.transit`)."""

    def __init__(self, num_workers, dataset, batchify_fn, ctx=None):
        super().__init__(num_workers, dataset, batchify_fn)
        self._ctx = ctx
        self._procs = []
        self._tasks = []
        self._results = []
        self._stopped = False
        self._tracks = {}

    def start(self):
        # Nothing may run on the engine's threads while forking (MXNet waits too): a
        # lock held by one of them would stay held in the child.
        _nd_mod.waitall()
        mp = _context()
        parent = os.getpid()
        try:
            for k in range(self.num_workers):
                task_r, task_w = mp.Pipe(duplex=False)
                result_r, result_w = mp.Pipe(duplex=False)
                _enlarge(result_w)
                proc = mp.Process(target=worker_main.run, name=f"DataLoader worker {k}",
                                  args=(self._dataset, self._batchify_fn, task_r,
                                        result_w, parent), daemon=True)
                proc.start()
                task_r.close()
                result_w.close()
                self._procs.append(proc)
                self._tasks.append(task_w)
                self._results.append(result_r)
        except BaseException:
            self.stop()
            raise

    def describe(self, k):
        return f"DataLoader worker {k} (pid {self._procs[k].pid})"

    def _track(self, k):
        """Worker ``k``'s process track group in this process's profile."""
        track = self._tracks.get(k)
        if track is None:
            track = self._tracks[k] = process_tracks.Process(
                f"DataLoader worker {k}", f"pid {self._procs[k].pid}")
        return track

    def _send(self, k, tag, indices):
        try:
            self._tasks[k].send((tag, indices, _profiling_mode()))
        except (BrokenPipeError, ConnectionResetError, OSError):
            raise self._died(k, tag[1]) from None

    def _next_answer(self, k, seq, deadline):
        conn, proc = self._results[k], self._procs[k]
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready = multiprocessing.connection.wait([conn, proc.sentinel], left)
            if conn in ready or (ready and conn.poll(0)):
                try:
                    got, ok, payload, events = transit.decode(conn.recv_bytes())
                except (EOFError, OSError):
                    raise self._died(k, seq) from None
                if events is not None:
                    self._track(k).ingest(events)
                if ok:
                    payload = transit.decode_batch(payload, self._ctx)
                return got, ok, payload
            if ready:
                raise self._died(k, seq)

    def _died(self, k, seq):
        proc = self._procs[k]
        proc.join(_STOP_GRACE_S)
        self.broken = True
        message = (f"{self.describe(k)} {_exit_reason(proc.exitcode)} before delivering "
                   f"batch {seq}")
        self.stop()
        return RuntimeError(message)

    def _error(self, k, seq, payload):
        return transit.decode_error(payload, f"{self.describe(k)} loading batch {seq}")

    def stop(self):
        """Stop every worker: their result pipes are closed (a worker blocked sending
        an answer nobody will read gets EPIPE and leaves), they are asked to leave, and
        those still there after the grace period are terminated, then killed.
        Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        for conn in self._results:
            conn.close()
        for conn in self._tasks:
            try:
                conn.send(None)
            except OSError:
                pass
            conn.close()
        deadline = time.monotonic() + _STOP_GRACE_S
        for proc in self._procs:
            proc.join(max(0.0, deadline - time.monotonic()))
        for proc in self._procs:
            if proc.exitcode is None:
                proc.terminate()
                proc.join(_STOP_GRACE_S)
            if proc.exitcode is None:
                proc.kill()
                proc.join()

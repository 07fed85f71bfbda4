"""What runs inside a DataLoader worker process (forked from the training process).

The worker takes tasks ``(tag, indices, mode)`` from its task pipe, one at a time, in the
order they were sent, loads each batch with :func:`.batching.load_batch` and sends it
back on its own result pipe (:mod:`.transit`). A sender thread writes the answers, so
the worker goes on with its next task while the training loop has not read the last
one yet (a pipe holds 1 MiB at most: writing from the loading thread would stall it
after one batch, and prefetching would not happen). ``None`` on the task pipe, or the
pipe's end, stops it. It also stops by itself when its parent is gone (checked every
``PARENT_CHECK_S`` while idle), so a parent killed by a signal leaves no worker behind.

Profiling: ``mode`` is what the parent was recording when it sent the task (its
profiler mode bits, 0 when off). The worker records the same while loading the batch,
and every answer carries the events recorded since the previous one (a flush,
:mod:`...profiler.process_tracks`): a worker killed mid-run loses only what it
recorded after its last answer.
"""
import os
import queue
import signal
import threading

from ...profiler import process_tracks
from . import transit
from .batching import load_batch

PARENT_CHECK_S = 0.25
SENDER_GRACE_S = 5.0   # how long a leaving worker lets its sender finish writing


def _detach_from_parent():
    """Signals and recording as a fresh worker needs them.

    SIGINT is ignored (Ctrl-C goes to the training loop, which then stops the workers,
    as in MXNet), SIGTERM gets its default action (the parent's handler, which turns it
    into an exit that dumps a profile, is not the worker's), and the profiling flags
    copied from the parent are turned off: the parent's recording is not this
    process's (the engine was renewed at fork, without an observer)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    process_tracks.begin_child()


def _send_loop(outbox, results):
    while True:
        message = outbox.get()
        if message is None:
            return
        try:
            results.send_bytes(message)
        except OSError:        # the parent closed its end: nobody reads any more
            return


def run(dataset, batchify_fn, tasks, results, parent_pid):
    """The worker's loop (the target of its ``multiprocessing.Process``)."""
    _detach_from_parent()
    outbox = queue.SimpleQueue()
    sender = threading.Thread(target=_send_loop, args=(outbox, results),
                              name="DataLoader worker sender", daemon=True)
    sender.start()
    try:
        _serve(dataset, batchify_fn, tasks, outbox, parent_pid)
    finally:
        outbox.put(None)
        sender.join(SENDER_GRACE_S)


def _serve(dataset, batchify_fn, tasks, outbox, parent_pid):
    recording = 0
    while True:
        if not tasks.poll(PARENT_CHECK_S):
            if os.getppid() != parent_pid:
                return
            continue
        try:
            task = tasks.recv()
        except EOFError:
            return
        if task is None:
            return
        tag, indices, mode = task
        if mode != recording:
            process_tracks.set_mode(mode)
        try:
            batch = load_batch(dataset, batchify_fn, indices)
            events = process_tracks.flush() if mode or recording else None
            message = transit.encode_batch(tag, batch, events)
        except Exception as e:  # noqa: BLE001 - every error goes back to the parent
            events = process_tracks.flush() if mode or recording else None
            message = transit.encode_error(tag, e, events)
        recording = mode
        outbox.put(message)

"""Memory profiling: per-device allocated bytes and a per-allocation CSV.

Arrays allocated while memory profiling is on are counted: the NDArray layer extends
:data:`log` with ``device, nbytes, t_ns`` when it allocates one and ``device, -nbytes, -1``
when that array is released (from ``__del__``, on any thread), ``device`` being the
context's ``dev_num``. ``list.extend`` of a tuple is atomic, so the hot path takes no
lock and formats nothing, and the log, plain integers, is folded with numpy. Arrays
allocated before profiling are never subtracted, so the counter never goes negative.
:func:`fold` turns the log into running totals and ``Memory: cpu/0`` counter samples,
in the order things happened: one sample at each allocation whose resulting footprint
differs from the last sample (so peaks are exact, and a steady-state loop that frees and
reallocates the same sizes costs no events), and one more at every dump. The CSV has one
row per allocation: attribute name (the enclosing ``Scope`` and the array's role),
requested bytes, device, actual bytes, reuse.
"""
import threading
from itertools import repeat
from time import perf_counter_ns

import numpy as np

from .. import context as _context
from . import recorder as R, records

CAT = records.DEVICE_STORAGE
_lock = threading.Lock()     # serializes folding (the log itself needs no lock)
log = []             # flat: allocations device, nbytes, t_ns; releases device, -nbytes, -1
totals = {}          # device name -> bytes held by tracked arrays, as of the last fold
_last_sample = {}    # device name -> last sampled value
rows = []            # CSV rows, only while a prefix is configured
# Counter samples are process-wide, so they live in a buffer of their own rather than
# in the buffer of whichever thread happens to fold.
samples = R.register_buffer("memory counters", track=False)


class _ScopeStack(threading.local):
    names = ()


scope_stack = _ScopeStack()


def current_scope():
    names = scope_stack.names
    return names[-1] if names else "<unk>"


def counter_name(device):
    return "Memory: " + device


def add_row(nbytes, device, role):
    rows.append((current_scope() + ":" + role, nbytes, device, nbytes, "false"))


def fold():
    """Apply the logged allocations and releases to the totals, sampling the counter at
    each allocation that changed a device's footprint. Entries appended meanwhile by
    other threads stay in the log for the next fold."""
    with _lock:
        n = len(log)
        if not n:
            return
        entries = np.fromiter(log[:n], dtype=np.int64, count=n).reshape(-1, 3)
        del log[:n]
        devices = entries[:, 0]
        if devices.min() == devices.max():   # one device (the usual case)
            _fold_device(_context.device_names[int(devices[0])], entries)
            return
        for num in np.unique(devices).tolist():
            _fold_device(_context.device_names[num], entries[devices == num])


def _fold_device(device, rows):
    running = totals.get(device, 0) + np.cumsum(rows[:, 1])
    totals[device] = int(running[-1])
    allocs = rows[:, 2] >= 0
    values, times = running[allocs], rows[allocs, 2]
    if not len(values):
        return
    # the last sample always equals the footprint after the latest allocation (it was
    # sampled there, or did not differ), so an allocation is sampled when its footprint
    # differs from the one after the allocation before it
    last = _last_sample.get(device)
    changed = np.r_[last is None or values[0] != last, values[1:] != values[:-1]]
    values, times = values[changed].tolist(), times[changed].tolist()
    if values:
        _last_sample[device] = values[-1]
        samples.events.extend(map(records.counter, repeat(counter_name(device)), repeat(CAT),
                                  times, values))


def total(device):
    """Bytes currently allocated on ``device`` by tracked arrays."""
    fold()
    return totals.get(device, 0)


def sample_all():
    """Fold the log, then one counter sample per device with its current value (at
    dump time)."""
    fold()
    t = perf_counter_ns()
    with _lock:
        for device, total in totals.items():
            if not total and device not in _last_sample:
                continue   # nothing held, nothing allocated this session: not in use
            _last_sample[device] = total
            samples.events.append(records.counter(counter_name(device), CAT, t, total))


def reset():
    fold()
    with _lock:
        _last_sample.clear()
    rows.clear()


def write_csv(prefix, pid):
    """Write the rows as ``<prefix>-pid_<pid>.csv`` (MXNet's file name: one file, every
    device, told apart by the Device column); return ``[path]``."""
    import csv
    import io

    from xprof.traces.atomic import write_atomic

    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(["Attribute Name", "Requested Size", "Device", "Actual Size", "Reuse?"])
    w.writerows(list(rows))
    path = f"{prefix}-pid_{pid}.csv"
    write_atomic(path, text.getvalue().encode())
    return [path]

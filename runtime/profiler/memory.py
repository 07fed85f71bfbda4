"""Memory profiling: per-device allocated bytes and a per-allocation CSV.

Arrays allocated while memory profiling is on are counted: the NDArray layer appends
``(device, nbytes, t_ns)`` to :data:`log` when it allocates one and ``(device, -nbytes)``
when that array is released (from ``__del__``, on any thread). ``list.append`` is atomic,
so the hot path takes no lock and formats nothing; arrays allocated before profiling are
never subtracted, so the counter never goes negative. :func:`fold` turns the log into
running totals and ``Memory: cpu/0`` counter samples, in the order things happened: one
sample at each allocation whose resulting footprint differs from the last sample (so
peaks are exact, and a steady-state loop that frees and reallocates the same sizes costs
no events), and one more at every dump. The CSV has one row per allocation: attribute
name (the enclosing ``Scope`` and the array's role), requested bytes, device, actual
bytes, reuse.
"""
import threading
from time import perf_counter_ns

from . import recorder as R

CAT = "Device Storage"
_lock = threading.Lock()     # serializes folding (the log itself needs no lock)
log = []             # allocations (device, nbytes, t_ns) and releases (device, -nbytes)
totals = {}          # device name -> bytes held by tracked arrays, as of the last fold
_last_sample = {}    # device name -> last sampled value
rows = []            # CSV rows, only while a prefix is configured
keep_rows = False
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
        entries = log[:n]
        del log[:n]
        append = samples.events.append
        C = R.C
        get, last = totals.get, _last_sample.get
        for e in entries:
            device = e[0]
            total = totals[device] = get(device, 0) + e[1]
            if len(e) == 3 and total != last(device):
                _last_sample[device] = total
                append((C, counter_name(device), CAT, e[2], total))


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
            samples.events.append((R.C, counter_name(device), CAT, t, total))


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

    from .chrome import write_atomic

    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(["Attribute Name", "Requested Size", "Device", "Actual Size", "Reuse?"])
    w.writerows(list(rows))
    path = f"{prefix}-pid_{pid}.csv"
    write_atomic(path, text.getvalue().encode())
    return [path]

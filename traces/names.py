"""Category and event names the runtime records under and the readers look for.

A category is a trace event's ``cat`` (MXNet calls it the domain). Profiles written by
MXNet 1.x use the same strings, so the readers treat both alike.
"""

OPERATOR = "operator"                  # engine ops (imperative and symbolic)
CUSTOM_OPERATOR = "Custom Operator"    # a custom operator's Python slice and sub-operators
API = "API"                            # mx.nd calls and sync points
EVENT = "Event"                        # mx.profiler.Event
DEVICE_STORAGE = "Device Storage"      # memory counters ("Memory: cpu/0")
XPROF = "xprof"                        # xprof's own markers (see HANDOVER)
COMMUNICATION = "communication"        # a kvstore collective's phases (runtime/dist/events.py)

# The distributed kvstores' operator events: MXNet's names (its KVStoreDist), one per
# kind of call; their args use Kineto's names (COLLECTIVE_ARGS) so HTA reads them too.
KVSTORE_EVENTS = ("KVStoreDistDefaultPush", "KVStoreDistDefaultStoragePull",
                  "KVStoreDistDefaultStoragePushPull", "KVStoreReduce")
COLLECTIVE_NAME = "Collective name"

PURE_PYTHON = "pure_python"            # ``<op_type>::pure_python``: a call's Python code
PYTHON_LINE = "python_line"            # the line sampler's slices (docs/lines.md): no work slices

# ``xprof run``: the instant where the script's own profiler configuration took over
# from xprof's autostart (category XPROF).
HANDOVER = "script took over the profiler"

# Categories whose slices are operators (the end-of-run summary's top list).
OPERATOR_CATEGORIES = (OPERATOR, CUSTOM_OPERATOR)

# The args key of an operator slice's input shapes (PyTorch's name for it, so
# ``xprof stats --group-by shape`` reads both): a list of shapes, each a list of ints.
INPUT_DIMS = "Input Dims"

# Characters of a name any output shows (tables, pages): a 10 MB event name costs 1 kB,
# not a column padded to its width on every row (a 1 MB name once made `xprof stats`
# print 527 MB). JSON and CSV outputs keep names whole: they grow with them, no more.
NAME_LIMIT = 1000


def bounded(name, n=NAME_LIMIT):
    """``name`` cut to ``n`` characters (with an ellipsis)."""
    name = str(name)
    return name if len(name) <= n else name[:n - 1] + "\u2026"

"""Aggregate oneDNN (DNNL, MKL-DNN) verbose logs into Stats.

Why: with ``DNNL_VERBOSE=1`` / ``ONEDNN_VERBOSE=1`` a framework prints one
line per primitive execution (and, at level 2, per primitive creation);
summing them per primitive kind and implementation answers "which kernel did
my convolution use and how long did it take" without a trace.

Formats understood (detected by content, not by file name):

* oneDNN 1.x/2.x: ``dnnl_verbose,exec,cpu,convolution,jit:avx2,...,time``
  with ``dnnl_verbose,info,prim_template:operation,engine,primitive,...``;
* oneDNN 3.x: ``onednn_verbose[,v1][,timestamp],primitive,exec,cpu,...``
  with ``onednn_verbose,v1,primitive,info,template:operation,...``;
* MKL-DNN 0.x: ``mkldnn_verbose,exec,convolution,jit:avx2,...`` (no engine).

Columns are located with the log's own template line when it has one; the
fallback is the layout all versions share: operation, engine, primitive,
implementation, ..., time last.  Times are milliseconds in the log.  Rows go
to domain ``oneDNN exec`` or ``oneDNN create`` (cache hits and misses alike)
and are named ``<primitive> (<implementation>)``; graph-API lines use the
partition kind and backend implementation.  Other lines (info, errors,
program output mixed into the log) are skipped.
"""
from __future__ import annotations

import io

from xprof.traces.stats import Stats

PREFIXES = ("dnnl_verbose,", "onednn_verbose,", "mkldnn_verbose,")
_PREFIXES_B = tuple(p.encode() for p in PREFIXES)
EXEC_DOMAIN = "oneDNN exec"
CREATE_DOMAIN = "oneDNN create"
_COMPONENTS = ("primitive", "graph", "common", "ukernel")
_FALLBACK = ["operation", "engine", "primitive", "implementation", "prop_kind",
             "memory_descriptors", "attributes", "auxiliary", "problem_desc", "exec_time"]
_ENGINES = ("cpu", "gpu")


def looks_like_onednn(head):
    """True if any of the first lines of ``head`` (bytes) is a oneDNN verbose line."""
    for line in head.splitlines()[:200]:
        if line.lstrip().startswith(_PREFIXES_B):
            return True
    return False


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _split(line):
    """(prefix, component, fields from the operation on) of one verbose line."""
    fields = line.rstrip("\r\n").split(",")
    rest = fields[1:]
    if rest and rest[0][:1] == "v" and rest[0][1:].isdigit():
        rest = rest[1:]
    timestamp = rest and _is_number(rest[0])
    if timestamp:
        rest = rest[1:]
    component = "primitive"
    if rest and rest[0] in _COMPONENTS:
        component, rest = rest[0], rest[1:]
    return fields[0], component, rest


class OneDNNLog:
    """Stateful parser: template lines seen so far shape the lines that follow."""

    def __init__(self):
        self.stats = Stats()
        self.lines = 0
        self._templates = {}  # (prefix, component) -> column names starting at "operation"

    def feed_line(self, line):
        if not line.startswith(PREFIXES):
            return
        prefix, component, rest = _split(line)
        if not rest:
            return
        op = rest[0]
        if op == "info":
            self._maybe_template((prefix, component), rest[1:])
            return
        if op == "exec":
            domain = EXEC_DOMAIN
        elif op.startswith("create"):
            domain = CREATE_DOMAIN
        else:
            return
        record = self._record(prefix, component, rest)
        if record is not None:
            name, ms = record
            self.lines += 1
            self.stats.add_time(domain, name, ms * 1000.0)

    def _maybe_template(self, key, fields):
        if not fields:
            return
        head = fields[0]
        for marker in ("prim_template:", "template:"):
            if head.startswith(marker):
                columns = [head[len(marker):]] + fields[1:]
                if "timestamp" in columns and columns.index("timestamp") < columns.index("operation"):
                    columns.remove("timestamp")
                if "operation" in columns:
                    self._templates[key] = columns[columns.index("operation"):]
                return

    def _record(self, prefix, component, rest):
        columns = self._templates.get((prefix, component))
        if columns is None:
            columns = _FALLBACK
            if component == "primitive" and len(rest) > 1 and rest[1] not in _ENGINES:
                columns = [c for c in _FALLBACK if c != "engine"]  # MKL-DNN 0.x
        kind_col = "primitive" if "primitive" in columns else "partition_kind"
        try:
            kind = rest[columns.index(kind_col)]
            impl = rest[columns.index("implementation")] if "implementation" in columns else ""
            # Fields such as attributes may contain commas in new versions; the
            # time is always the last column, so read it from the end.
            ms = float(rest[-1])
        except (ValueError, IndexError):
            return None
        name = f"{kind} ({impl})" if impl else kind
        return name, ms


def read_onednn(binary_file):
    """Aggregate a whole log from an open binary file (gzip already unwrapped)."""
    parser = OneDNNLog()
    text = io.TextIOWrapper(binary_file, encoding="utf-8", errors="replace", newline="")
    for line in text:
        parser.feed_line(line.lstrip())
    return parser

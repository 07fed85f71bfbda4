"""The one object that flows between the stages of ``xprof stats``.

Why a small class and not the JSON dict alone: renderers need both the
ordered JSON document (json, csv, rich) and the aggregate :class:`Stats`
(the plain-text table is the runtime's own ``render_text`` of it, so
``profiler.dumps()`` and ``xprof stats`` print the same text).
"""
from __future__ import annotations

from dataclasses import dataclass, field

# Sections of the JSON document in display order; ``Unit`` is not a section.
# A new section: add its name here, fill ``Report.doc[name]`` in a processor
# (or a collector, see sources.py) and give every renderer an entry for it.
SECTIONS = ("Time", "Memory", "Counter", "Operator Latency")


@dataclass
class Report:
    """What ``xprof stats`` knows about one file.

    ``stats``: the aggregate (durations in integer picoseconds); ``doc``: the
    ``to_json_obj`` document, ordered and filtered by the processors (every
    renderer shows exactly this); ``extra``: what extra collectors computed,
    keyed by collector name, for processors that turn it into sections; ``top``: a
    Chrome trace's other top-level keys (``otherData``, ``displayTimeUnit``, ...).
    """

    path: str
    stats: object
    doc: dict = field(default_factory=dict)
    sort_by: str = "total"
    ascending: bool = False
    truncated: bool = False
    extra: dict = field(default_factory=dict)
    top: dict = field(default_factory=dict)

    def sections(self):
        """``(name, {domain: {row name: row}})`` of the sections present, in display order."""
        return doc_sections(self.doc)


def doc_sections(doc):
    """The sections of a ``to_json_obj``-shaped document: known ones first, then the rest."""
    more = [k for k in doc if k not in SECTIONS and k != "Unit"]
    return [(name, doc[name]) for name in (*SECTIONS, *more) if name in doc]

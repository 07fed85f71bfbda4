"""What the runtime and the CLI agree on, in a package that imports no engine.

Installed as ``xprof.traces``. The runtime writes traces and the CLI reads them (and
traces of other tools); both need the same statistics model and sort keys
(:mod:`.stats`), the same category and event names (:mod:`.names`) and the same atomic
file writer (:mod:`.atomic`); every reader of a trace needs the same per-event rules
(:mod:`.rules`: keys, usable times, ns, B/E pairing; :mod:`.slices`: nesting, flow
binding). Importing ``xprof.runtime`` starts the engine's threads
and, with ``XPROF_PROFILER_AUTOSTART=1``, a profile of the importing process, so these
live here, where ``xprof stats`` imports them normally without booting anything:
stdlib, and numpy where a rule works on columns.
"""

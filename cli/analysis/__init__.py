"""Analyses of a trace's timeline (pure: numpy columns in, plain data out, no click).

``depgraph`` rebuilds the engine's dependency edges from the variables each op read and
wrote, ``critical_path`` walks back from the end of the profiled window through them,
``threads`` measures busy/idle time per thread, ``findings`` turns the figures into
advice, ``explain`` assembles the document ``xprof explain`` prints and ``mark`` writes
the marked copy of a trace.
"""


class BadInput(ValueError):
    """A question a trace cannot answer as it was asked (a domain it has not, a spec
    matching nothing): the message names the value and what is allowed. Analyses raise
    it instead of a CLI error (they import no click); ``xprof``'s main prints it as one
    line, exit 2, as it prints a command's own errors."""

"""Per-thread attributes of imperative engine ops (a Gluon layer's ``{"name": "conv0"}``),
and the cheap test that none is set anywhere.

A thread-local read costs ~790 instructions (callgrind), 2.7% of an ``x + 1``: the
hottest paths (``ndarray._scalar_op``, ``invoke``) read ``op_scope.attrs`` only while
:data:`op_scopes_set` is not empty, which is why the attributes are set through
:func:`set_op_attrs` and :func:`restore_op_attrs`, never by assignment alone.
"""
import collections
import threading


class _OpScope(threading.local):
    """Per-thread engine-op attributes for imperative calls: a Gluon layer sets
    ``attrs`` (``{"name": "conv0"}``) around its forward so its ops can be told apart
    in a profile. ``None`` is the default. Set it with :func:`set_op_attrs` (and
    :func:`restore_op_attrs`), never by assignment alone: the hot paths read it only
    while one is set on some thread (:data:`op_scopes_set`)."""

    attrs = None


op_scope = _OpScope()

# One entry per ``op_scope.attrs`` set on any thread and not yet restored (a deque:
# append and pop atomic under the GIL, and no reallocation as a list's). Empty: no
# thread has attributes, and ``x + 1`` and ``invoke`` skip the thread-local read (~790
# instructions, 2.7% of an ``x + 1``).
op_scopes_set = collections.deque()


def set_op_attrs(attrs):
    """Make ``attrs`` this thread's op attributes; return the ones it replaces (give
    them back to :func:`restore_op_attrs`). While set, ``op_scope.attrs`` may be
    reassigned on this thread (autograd does per gradient node)."""
    op_scopes_set.append(None)
    st = op_scope
    saved = st.attrs
    st.attrs = attrs
    return saved


def restore_op_attrs(saved):
    """Undo :func:`set_op_attrs`: ``saved`` are this thread's op attributes again."""
    op_scope.attrs = saved
    op_scopes_set.pop()

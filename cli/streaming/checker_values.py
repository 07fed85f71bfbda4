"""How the strict checker (:mod:`.checker`) names a thread and finds an integer beyond
2**53 (JSON's exact range) inside an event's values."""

_MAX_SAFE = 2 ** 53   # beyond it JSON readers (JavaScript) round an integer


def _thread_label(key):
    return f"pid {key[0]!r} tid {key[1]!r}"


def _find_big_int(value, path):
    """Path of the first integer beyond 2**53 inside value, or None (iterative: values may
    nest a thousand levels deep)."""
    stack = [(value, path)]
    while stack:
        value, path = stack.pop()
        t = type(value)
        if t is int:
            if abs(value) > _MAX_SAFE:
                return path
        elif t is dict:
            stack.extend(reversed([(v, f"{path}.{k}") for k, v in value.items()]))
        elif t is list:
            stack.extend(reversed([(v, f"{path}[{n}]") for n, v in enumerate(value)]))
    return None

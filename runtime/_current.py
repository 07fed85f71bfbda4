"""MXNet 1.9.1's per-thread "current" objects as class attributes
(``Context.default_ctx``, ``NameManager.current``, ``AttrScope.current``): a metaclass
property whose getter and setter are the module's own per-thread accessors."""

__all__ = ["class_attribute_meta"]


def class_attribute_meta(attr, get, put, doc):
    """A metaclass giving its classes the class attribute ``attr``: reading it calls
    ``get()``, assigning it calls ``put(value)`` (both for the calling thread)."""
    prop = property(lambda cls: get(), lambda cls, value: put(value), doc=doc)
    return type(f"_{attr}_meta", (type,), {attr: prop, "__doc__": doc})

"""``pretrained=True``: xprof has no network access, so weights come from a local file.

MXNet downloads pretrained weights into ``root`` (``$MXNET_HOME/models``, by default
``~/.mxnet/models``). Here a constructor given ``pretrained=True`` loads ``root`` itself
when it is a ``.params`` file (MXNet's format, written by ``save_parameters`` here or in
MXNet), or ``<root>/<name>.params`` (or MXNet's downloaded ``<root>/<name>-<hash>.params``)
when that file exists, and otherwise raises a ValueError saying how to load weights:
``net.load_parameters(path)``.
"""
import glob
import os

__all__ = ["load_pretrained"]


def load_pretrained(net, name, pretrained, root, ctx=None):
    """Load ``name``'s weights into ``net`` from ``root`` when ``pretrained``."""
    if not pretrained:
        return net
    if root is None:
        root = os.path.join(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")),
                            "models")
    root = os.path.expanduser(str(root))
    candidates = [root] if os.path.isfile(root) else \
        [os.path.join(root, name + ".params")] + \
        sorted(glob.glob(os.path.join(glob.escape(root), name + "-*.params")))
    for path in candidates:
        if os.path.isfile(path):
            net.load_parameters(path, ctx=ctx)
            return net
    where = f" (looked for {candidates[0]!r})"
    raise ValueError(
        f"{name}: pretrained=True needs the weights file, and xprof cannot download "
        f"weights{where}; build the model with pretrained=False and load a local file "
        f"with net.load_parameters(path), or pass root=<the .params file>")

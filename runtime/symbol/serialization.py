"""Symbol JSON: writing a graph as MXNet 1.x's symbol file format and reading one back
(files written by MXNet load here, and the other way round)."""
import ast
import json

from ..ops import registry as _registry
from ..util import is_np_shape
from .graph import _Node, _topo


def graph_json(outputs):
    """The JSON text of the graph whose output entries are ``outputs``."""
    order = _topo(outputs)
    index = {id(n): i for i, n in enumerate(order)}
    nodes = []
    for n in order:
        entry = {"op": "null" if n.op is None else n.op.name, "name": n.name}
        attrs = n.user_attrs()
        if attrs:
            entry["attrs"] = attrs
        entry["inputs"] = [[index[id(c)], i, 0] for c, i in n.inputs]
        if n.op is not None and n.n_args != len(n.inputs):
            entry["num_args_inputs"] = n.n_args
        nodes.append(entry)
    row_ptr = [0]
    for n in order:
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    doc = {"nodes": nodes,
           "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
           "node_row_ptr": row_ptr,
           "heads": [[index[id(n)], i, 0] for n, i in outputs],
           "attrs": {"mxnet_version": ["int", 10900]}}
    if is_np_shape():   # as MXNet 1.6+: a 0 in this file's shapes is a zero-size dim
        doc["attrs"]["is_np_shape"] = ["int", 1]
    return json.dumps(doc, indent=2)


def _parse_param(text):
    if not isinstance(text, str):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def graph_entries(json_str):
    """The output entries of the graph in ``tojson()`` output (or an MXNet 1.x symbol
    file's content)."""
    try:
        doc = json.loads(json_str)
        raw_nodes = doc["nodes"]
        heads = doc["heads"]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"load_json: not a symbol JSON document: {e}") from None
    nodes = []
    for i, rn in enumerate(raw_nodes):
        opname = rn.get("op", "null")
        name = rn.get("name") or f"node{i}"
        attrs = dict(rn.get("attrs") or rn.get("attr") or rn.get("param") or {})
        inputs = []
        for ref in rn.get("inputs", []):
            if not 0 <= ref[0] < i:
                raise ValueError(f"load_json: node {name!r} has input index {ref[0]} out "
                                 "of range")
            inputs.append((nodes[ref[0]], int(ref[1])))
        user = {k: v for k, v in attrs.items() if k.startswith("__") and k.endswith("__")}
        if opname == "null":
            nodes.append(_Node(None, name, attr=user))
        else:
            op = _registry.get(opname)
            params = op.params_from_text({k: v for k, v in attrs.items() if k not in user},
                                         _parse_param)
            n_args = rn.get("num_args_inputs", len(inputs) - len(op.list_aux(params)))
            nodes.append(_Node(op, name, params, inputs, n_args, user))
    return [(nodes[h[0]], int(h[1])) for h in heads]

"""The operator names a profile shows for ``mx.np``/``mx.npx`` calls, here and in MXNet 2.

Runs each call of :data:`CALLS` under the profiler (forward inside ``autograd.record``,
then ``backward`` on a float result) and reads the operator names of ``dumps()``; the
same script runs on MXNet 2 (``--mxnet``, in an interpreter with ``mxnet`` 2.0.0b1
installed), so the two lists come from the same calls. ``--compare`` writes the table of
docs/numpy-names.md from the two JSON files.

    python benchmarks/np_trace_names.py --json xprof.json
    /work/venv-mx2/bin/python benchmarks/np_trace_names.py --mxnet --json mxnet.json
    python benchmarks/np_trace_names.py --compare xprof.json mxnet.json > table.md
"""
import argparse
import json
import re
import sys
import warnings

# bookkeeping ops of either engine, not the call's own
IGNORED = {"DeleteVariable", "ResourceParallelRandomSetSeed", "WaitForVar", "SetValueOp",
           "_zeros", "ones_like", "_copyto", "_share"}

UNARY = ("abs", "negative", "square", "sqrt", "cbrt", "exp", "expm1", "log", "log2", "log10",
         "log1p", "sin", "cos", "tan", "arcsin", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "degrees", "radians", "reciprocal", "floor", "ceil", "trunc", "rint", "fix", "sign",
         "sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "all", "any",
         "cumsum", "transpose", "ravel", "squeeze", "flip", "sort", "argsort", "tril", "triu",
         "trace", "diagonal", "around", "isnan", "isinf", "isfinite", "logical_not", "copy",
         "zeros_like", "ones_like", "atleast_2d")
BINARY = ("add", "subtract", "multiply", "divide", "true_divide", "power", "mod", "maximum",
          "minimum", "hypot", "arctan2", "copysign", "logaddexp", "fmax", "fmin", "fmod",
          "floor_divide", "equal", "not_equal", "greater", "greater_equal", "less",
          "less_equal", "logical_and", "logical_or", "logical_xor", "dot", "matmul", "inner",
          "vdot")
CALLS = (
    ["x + 1", "1 + x", "x - 1", "1 - x", "x * 2", "x / 2", "2 / x", "x ** 2", "2 ** x",
     "x % 2", "x // 2", "x + y", "x - y", "x * y", "x / y", "x ** y", "x > 1", "x == y",
     "-x", "abs(x)", "x[0]", "x[:, 1]", "x[:, 1:3]", "x[::2]", "x[0, 1]", "x[idx]",
     "x[idx, idx]", "x[mask]", "x.T", "x.reshape(4, 3)", "x.astype('float64')",
     "x.sum()", "x.mean()", "x.copy()", "x @ y.T", "x.dot(y.T)", "x.clip(0, 1)",
     "i + 1", "i + 1.5", "i / 2"]
    + [f"np.{f}(x)" for f in UNARY] + [f"np.{f}(x, y)" for f in BINARY if f not in (
        "dot", "matmul", "inner", "vdot")]
    + ["np.dot(x, y.T)", "np.matmul(x, y.T)", "np.inner(x, y)", "np.vdot(x, y)",
       "np.tensordot(x, y.T, 1)", "np.outer(x[0], y[0])", "np.reshape(x, (4, 3))",
       "np.expand_dims(x, 0)", "np.swapaxes(x, 0, 1)", "np.concatenate([x, y])",
       "np.stack([x, y])", "np.split(x, 3)[0]", "np.tile(x, 2)", "np.repeat(x, 2)",
       "np.where(x > y, x, y)", "np.take(x, idx)", "np.broadcast_to(x, (2, 3, 4))",
       "np.clip(x, 0, 1)", "np.linalg.norm(x)", "np.zeros((2, 2))", "np.ones((2, 2))",
       "np.full((2, 2), 3.0)", "np.arange(5)", "np.eye(3)", "np.random.uniform(size=(2,))",
       "np.random.normal(size=(2,))", "np.random.gamma(2.0, size=(2,))",
       "npx.relu(x)", "npx.sigmoid(x)", "npx.softmax(x)", "npx.log_softmax(x)",
       "npx.reshape(x, (-1,))", "npx.activation(x, act_type='tanh')",
       "npx.fully_connected(x, y, num_hidden=3, no_bias=True)",
       "npx.convolution(c, w, kernel=(3, 3), num_filter=2, no_bias=True)",
       "npx.pooling(c, kernel=(2, 2), pool_type='max')", "npx.batch_flatten(c)",
       "npx.one_hot(idx, 3)", "npx.pick(x, idx)", "npx.topk(x, k=2)",
       "npx.layer_norm(x, g, b)", "npx.dropout(x, p=0.5)", "npx.stop_gradient(x)"])


def _names(mx, leaves=0):
    """The operator names in the profile (once each); ``leaves``: how many ``_copy`` ops
    are xprof's writes of leaf gradients into ``.grad`` (MXNet writes in place), left
    out."""
    text = mx.profiler.dumps(reset=True)
    part = re.split(r"\noperator\n=+\n", "\n" + text)
    if len(part) < 2:
        return []
    names = []
    for line in part[1].splitlines()[2:]:
        if not line.strip():
            break
        name, count = line.split()[:2]
        if name == "_copy":
            if int(count) <= leaves:
                continue
        if name not in IGNORED:
            names.append(name)
    return sorted(names)


def measure(use_mxnet):
    warnings.filterwarnings("ignore")
    if use_mxnet:
        import mxnet as mx
        from mxnet import autograd, np, npx
    else:
        import xprof.runtime as mx
        from xprof.runtime import autograd, np, npx
    import numpy as onp
    npx.set_np()
    mx.profiler.set_config(profile_all=True, aggregate_stats=True,
                           filename="/dev/null" if not use_mxnet else "np_names.json")
    out = {}
    rng = onp.random.default_rng(0)
    for call in CALLS:
        env = {"np": np, "npx": npx, "mx": mx}
        env.update(
            x=np.array(rng.uniform(0.5, 1.5, (3, 4)).astype("float32")),
            y=np.array(rng.uniform(0.5, 1.5, (3, 4)).astype("float32")),
            i=np.array([1, 2], dtype="int32"), idx=np.array([0, 2], dtype="int64"),
            mask=np.array([True, False, True]),
            c=np.array(rng.uniform(size=(1, 1, 5, 5)).astype("float32")),
            w=np.array(rng.uniform(size=(2, 1, 3, 3)).astype("float32")),
            g=np.ones((4,)), b=np.zeros((4,)))
        for k in ("x", "y"):
            env[k].attach_grad()
        mx.nd.waitall()
        _names(mx)
        row = {}
        try:
            mx.profiler.set_state("run")
            with autograd.record():
                result = eval(call, env)
            result = result[0] if isinstance(result, (list, tuple)) else result
            mx.nd.waitall()
            mx.profiler.set_state("stop")
            row["forward"] = _names(mx)
            if getattr(result, "dtype", None) is not None and onp.dtype(result.dtype).kind == "f":
                mx.profiler.set_state("run")
                result.backward()
                mx.nd.waitall()
                mx.profiler.set_state("stop")
                leaves = 0 if use_mxnet else sum(getattr(env[k], "_fresh", False)
                                                 for k in ("x", "y"))
                row["backward"] = [n for n in _names(mx, leaves)
                                   if n not in ("add_n", "_grad_add")]
        except Exception as e:  # noqa: BLE001 - a call one side lacks
            mx.profiler.set_state("stop")
            _names(mx)
            row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:80]
        out[call] = row
    return out


def compare(mine, theirs):
    rows = ["| call | xprof (forward / backward) | MXNet 2.0.0b1 (forward / backward) | same |",
            "| --- | --- | --- | --- |"]
    same = total = 0
    for call, row in mine.items():
        other = theirs.get(call, {})

        def cell(r):
            if "error" in r:
                return f"error: {r['error']}"
            return " ".join(r.get("forward", [])) + " / " + " ".join(r.get("backward", []))
        a, b = cell(row), cell(other)
        ok = "error" not in other and a == b
        if "error" not in other:
            total += 1
            same += ok
        rows.append(f"| `{call}` | {a} | {b} | {'yes' if ok else 'no'} |")
    rows.append("")
    rows.append(f"{same} of {total} calls MXNet 2.0.0b1 runs show the same operator names.")
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mxnet", action="store_true", help="measure MXNet 2 (import mxnet)")
    ap.add_argument("--json", help="write the names here")
    ap.add_argument("--compare", nargs=2, metavar=("XPROF_JSON", "MXNET_JSON"))
    args = ap.parse_args(argv)
    if args.compare:
        mine, theirs = (json.load(open(p)) for p in args.compare)
        print(compare(mine, theirs))
        return 0
    result = measure(args.mxnet)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    else:
        json.dump(result, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""mx.np calls are profiled under MXNet 2's operator names (measured on MXNet 2.0.0b1 with
benchmarks/np_trace_names.py), through the one recording path: the same record kinds
as mx.nd's ops, dependency records included."""
import json

import xprof.runtime as mx
from xprof.runtime import autograd, np, npx


def _profile(tmp_path, body):
    path = tmp_path / "np.json"
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=str(path))
    mx.profiler.set_state("run")
    try:
        body()
        mx.nd.waitall()
    finally:
        mx.profiler.set_state("stop")
    mx.profiler.dump()
    return json.loads(path.read_text())["traceEvents"]


def test_forward_and_backward_names(tmp_path):
    def body():
        x = np.ones((2, 3))
        w = np.ones((4, 3))
        x.attach_grad()
        with autograd.record():
            y = (x + 1) * x
            z = npx.reshape(y, (-1,)).mean() + npx.fully_connected(
                x, w, num_hidden=4, no_bias=True).sum()
        z.backward()
        c = npx.convolution(np.ones((1, 1, 4, 4)), np.ones((2, 1, 3, 3)), kernel=(3, 3),
                            num_filter=2, no_bias=True)
        npx.pooling(c, kernel=(2, 2), pool_type="max")
    names = {e["name"] for e in _profile(tmp_path, body) if e.get("ph") == "X"}
    for want in ("_npi_add_scalar", "_npi_multiply", "_npx_reshape", "_npi_mean", "_npi_sum",
                 "_npi_add", "FullyConnected", "Convolution", "Pooling",
                 "_backward_np_mean", "_backward_npi_sum", "_backward_npi_broadcast_mul",
                 "_backward_reshape", "_backward_FullyConnected"):
        assert want in names, want


def test_np_ops_carry_dependency_records_like_nd_ops(tmp_path):
    def body():
        a = np.ones((8, 8)) + 1
        b = mx.nd.ones((8, 8)) + 1
        (a * 2).wait_to_read()
        (b * 2).wait_to_read()
    events = _profile(tmp_path, body)
    ops = {e["name"]: e for e in events if e.get("ph") == "X" and e["cat"] == "operator"}
    np_op, nd_op = ops["_npi_multiply_scalar"], ops["_mul_scalar"]
    assert "dep" in np_op["args"] and set(np_op["args"]) == set(nd_op["args"])


def test_names_of_the_operators_mxnet_2_added(tmp_path):
    """MXNet 2.0.0b1's profiler names for the functions official NumPy computed in 1.x
    and the npx additions (measured with its profiler, forward and backward)."""
    def body():
        a = np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 4.0]])
        a.attach_grad()
        with autograd.record():
            parts = [np.einsum("ij,jk->ik", a, a), np.pad(a, 1), np.diff(a),
                     np.ediff1d(a), np.nan_to_num(a), np.diagflat(a), np.polyval(a[0], a),
                     np.linalg.svd(a)[1], np.linalg.cholesky(a), np.linalg.solve(a, a),
                     np.linalg.tensorinv(a, 1), np.roll(a, 1),
                     npx.index_update(a, np.array([[0], [1]]), np.array([1.0])),
                     npx.index_add(a, np.array([[0], [1]]), np.array([1.0])),
                     npx.round_ste(a)]
            total = sum(p.sum() for p in parts)
        total.backward()
        npx.constraint_check(np.array([True], dtype=bool), "ok")
    names = {e["name"] for e in _profile(tmp_path, body) if e.get("ph") == "X"}
    for want in ("_npi_einsum", "_backward_npi_einsum", "_npi_pad", "_npi_diff",
                 "_backward_npi_diff", "_npi_ediff1d", "_npi_backward_ediff1d",
                 "_npi_nan_to_num", "_npi_backward_nan_to_num", "_npi_diagflat",
                 "_backward_npi_diagflat", "_npi_polyval", "_npi_backward_polyval",
                 "_npi_svd", "_backward_npi_svd", "_npi_cholesky", "_backward_linalg_potrf",
                 "_npi_solve", "_backward_npi_solve", "_npi_tensorinv",
                 "_backward_npi_tensorinv", "_npi_roll", "_npx_index_update",
                 "_backward_index_update_val", "_npx_index_add", "_backward_index_add_val",
                 "_contrib_round_ste", "_backward_round_ste", "_npx_constraint_check"):
        assert want in names, want
    assert not any(n.startswith("_np_fallback_") for n in names), names

"""One definition serves mx.nd and mx.sym: every public operator name of one namespace
exists in the other (aliases and the Python-level functions of ops/python_level.py
included), Symbol and NDArray share the fluent methods, and the helpers pick the
operator MXNet picks."""
import types

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.ops import python_level, registry

# Names only one namespace has, on purpose (array creation and I/O are NDArray's; graph
# construction and loading are Symbol's; MXNet's legacy NDArray-only functions).
ND_ONLY = {"array", "empty", "arange", "from_numpy", "waitall", "save", "load",
           "load_frombuffer", "concatenate", "choose_element_0index",
           "fill_element_0index", "onehot_encode", "invoke", "push_op", "new_array",
           "current_context", "normal", "uniform", "random_normal", "random_uniform",
           "Custom",
           # NDArray's Python-level helpers (ndarray/helpers.py): memory exchange and
           # array-only conveniences; MXNet's mx.sym.eye/linspace are not written yet
           "CachedOp", "from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write",
           "moveaxis", "eye", "linspace",
           # MXNet 1.x's legacy random_* names (ndarray/random.py)
           "random_poisson", "random_exponential", "random_gamma",
           "random_negative_binomial", "random_generalized_negative_binomial",
           "random_randint"}
SYM_ONLY = {"Variable", "var", "Group", "load_json", "make_function", "reset_names",
            "Custom"}


def _public_functions(module):
    return {k for k, v in vars(module).items()
            if callable(v) and not k.startswith("_") and not isinstance(v, type)
            and not isinstance(v, types.ModuleType)}


def test_every_nd_operator_has_its_sym_counterpart_and_back():
    nd, sym = _public_functions(mx.nd), _public_functions(mx.sym)
    assert sorted(nd - sym - ND_ONLY) == []
    assert sorted(sym - nd - SYM_ONLY) == []


@pytest.mark.parametrize("space", ["contrib", "linalg", "image"])
def test_sub_namespaces_match(space):
    nd, sym = getattr(mx.nd, space), getattr(mx.sym, space)
    assert _public_functions(nd) == _public_functions(sym)
    prefix = f"_{space}_"
    ops = {n[len(prefix):] for n in registry.registry if n.startswith(prefix)}
    assert ops <= _public_functions(nd)


def test_every_registered_name_is_a_function_of_both():
    for name in registry.registry:
        if name.startswith(("_contrib_", "_linalg_", "_image_")):
            continue
        assert callable(getattr(mx.nd, name)), name
        assert callable(getattr(mx.sym, name)), name


def test_helpers_call_registered_operators():
    for name, names, _ in [(n, None, None) for n in python_level.HELPERS]:
        assert callable(getattr(mx.nd, name)) and callable(getattr(mx.sym, name))
    import inspect
    src = inspect.getsource(python_level)
    for opname in ("_maximum_scalar", "broadcast_hypot", "_rmod_scalar", "_logical_xor",
                   "broadcast_logical_or", "_split_v2", "_contrib_boolean_mask"):
        assert opname in src and opname in registry.registry, opname


def test_alias_is_the_same_definition_profiled_under_its_own_name():
    assert registry.get("flatten") is registry.get("Flatten")
    assert registry.get("broadcast_plus") is registry.get("broadcast_add")
    assert registry.get("concat").name == "Concat"          # MXNet 1.9.1's names
    assert registry.get("reshape").name == "Reshape"
    assert "flatten" not in registry.canonical() and "Flatten" in registry.canonical()
    # an unnamed node is named after the name it was called by, as in MXNet
    assert mx.sym.flatten(mx.sym.var("x")).name.startswith("flatten")
    assert mx.sym.reshape(mx.sym.var("x"), shape=(2,)).tojson().count('"op": "Reshape"') == 1
    with pytest.raises(ValueError, match="already registered"):
        registry.alias("flatten", "relu")


def test_fluent_methods_are_the_same_on_ndarray_and_symbol():
    for name in python_level.FLUENT:
        if hasattr(mx.nd, name):
            assert hasattr(mx.nd.NDArray, name), name
            assert hasattr(mx.sym.Symbol, name), name
    x = mx.sym.var("x")
    ex = x.slice(begin=(1, 0), end=(3, 2)).take(mx.sym.var("i")).bind(
        mx.cpu(), {"x": mx.nd.array(np.arange(12).reshape(4, 3)), "i": mx.nd.array([1, 0])})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), [[6, 7], [3, 4]])
    # positional parameters, as MXNet's generated signature
    ex = x.slice_axis(1, 0, 2).bind(mx.cpu(), {"x": mx.nd.ones((2, 3))})
    assert ex.forward()[0].shape == (2, 2)


def _eval(sym, **arrays):
    return sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in arrays.items()}).forward()[0]


@pytest.mark.parametrize("fname, py", [
    ("maximum", np.maximum), ("minimum", np.minimum), ("power", np.power),
    ("hypot", np.hypot), ("modulo", np.mod), ("subtract", np.subtract),
    ("greater", lambda a, b: (a > b) * 1.0), ("logical_xor", lambda a, b: np.logical_xor(a, b) * 1.0)])
def test_binary_helpers_on_arrays_numbers_and_symbols(fname, py):
    a = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.5]], dtype=np.float32)
    b = np.array([[2.0, 2.0, -1.0], [1.0, 3.0, 2.5]], dtype=np.float32)
    if fname == "logical_xor":
        a, b = (a > 0) * 1.0, (b > 0) * 1.0
    if fname == "power":
        a = np.abs(a) + 0.5
    nd_fn, sym_fn = getattr(mx.nd, fname), getattr(mx.sym, fname)
    np.testing.assert_allclose(nd_fn(mx.nd.array(a), mx.nd.array(b)).asnumpy(), py(a, b),
                               rtol=1e-6)
    np.testing.assert_allclose(nd_fn(mx.nd.array(a), 2.0).asnumpy(), py(a, np.float32(2)),
                               rtol=1e-6)
    np.testing.assert_allclose(nd_fn(3.0, mx.nd.array(b)).asnumpy(), py(np.float32(3), b),
                               rtol=1e-6)
    # broadcasting arrays
    np.testing.assert_allclose(nd_fn(mx.nd.array(a), mx.nd.array(b[:1])).asnumpy(),
                               py(a, b[:1]), rtol=1e-6)
    x, y = mx.sym.var("x"), mx.sym.var("y")
    np.testing.assert_allclose(_eval(sym_fn(x, y), x=a, y=b).asnumpy(), py(a, b), rtol=1e-6)
    np.testing.assert_allclose(_eval(sym_fn(3.0, y), y=b).asnumpy(), py(np.float32(3), b),
                               rtol=1e-6)


def test_numbers_give_numbers_and_bad_types_are_refused():
    assert mx.nd.maximum(2, 5) == 5 and mx.sym.pow(2, 3) == 8
    with pytest.raises(ValueError, match="NDArray"):
        mx.nd.maximum("a", mx.nd.ones(1))


def test_modulo_follows_the_divisors_sign_and_its_gradient():
    a = mx.nd.array([-3.0, 3.0, 5.5, 1.0])
    b = mx.nd.array([2.0, -2.0, 2.0, 0.0])
    np.testing.assert_array_equal(mx.nd.modulo(a, b).asnumpy(), [1, -1, 1.5, 0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        out = mx.nd.modulo(a, b)
    out.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(b.grad.asnumpy(), [2, 2, -2, -0.0])


def test_split_v2_sections_and_indices():
    x = np.arange(12.0).reshape(6, 2)
    parts = mx.nd.split_v2(mx.nd.array(x), 3)
    assert [p.shape for p in parts] == [(2, 2)] * 3
    parts = mx.nd.split_v2(mx.nd.array(x), (1, 4))
    for got, want in zip(parts, np.split(x, (1, 4))):
        np.testing.assert_array_equal(got.asnumpy(), want)

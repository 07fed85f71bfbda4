"""MXNet 1.x's binary NDArray format (runtime/ndarray/serialization.py): nd.save/nd.load,
Gluon .params, pickling. Expected bytes are written out from the format's layout."""
import pickle
import struct

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import gluon
from xprof.runtime.ndarray import serialization as ser


def _v2(shape, dev, flag, payload):
    return (struct.pack("<IiI", 0xF993FAC9, 0, len(shape)) + struct.pack(f"<{len(shape)}q", *shape)
            + struct.pack("<iii", dev, 0, flag) + payload)


def test_one_array_layout_and_a_gpu_state_loads_on_the_cpu():
    x = mx.nd.array([[1, 2, 3]], dtype="float64")
    assert ser.array_bytes(x) == _v2((1, 3), 1, 1, np.array([1, 2, 3], "<f8").tobytes())
    state = {"handle": bytearray(_v2((1,), 2, 0, b"\0\0\0\0"))}    # saved on gpu(0)
    a = mx.nd.arange(1)
    a.__setstate__(state)
    assert a.context == mx.cpu() and a.asnumpy().tolist() == [0.0]


def test_file_layout_names_and_round_trip(tmp_path):
    f = tmp_path / "x.params"
    mx.nd.save(str(f), {"w": mx.nd.ones((2,), dtype="int32")})
    blob = f.read_bytes()
    assert blob[:24] == struct.pack("<QQQ", 0x112, 0, 1)
    assert blob.endswith(struct.pack("<Q", 1) + struct.pack("<Q", 1) + b"w")
    assert mx.nd.load(str(f))["w"].asnumpy().tolist() == [1, 1]
    assert mx.nd.load(str(f))["w"].dtype == np.int32
    mx.nd.save(str(f), [mx.nd.zeros((2, 2)), mx.nd.array([5.0])])
    loaded = mx.nd.load(str(f))
    assert isinstance(loaded, list) and loaded[1].asnumpy().tolist() == [5.0]


def test_legacy_v1_arrays_and_bad_files(tmp_path):
    legacy = (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<II", 1, 3)
              + struct.pack("<iii", 1, 0, 0) + np.arange(3, dtype="<f4").tobytes()
              + struct.pack("<Q", 0))
    assert mx.nd.load_frombuffer(legacy)[0].asnumpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="truncated"):
        mx.nd.load_frombuffer(legacy[:-12])
    with pytest.raises(ValueError, match="not an MXNet NDArray file"):
        mx.nd.load_frombuffer(b"\0" * 32)
    sparse = struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", 0xF993FAC9, 2, 1)
    with pytest.raises(NotImplementedError, match="csr"):
        mx.nd.load_frombuffer(sparse)


def test_pickle_and_gluon_params_use_the_format(tmp_path):
    x = mx.nd.array(np.arange(6.0).reshape(2, 3))
    y = pickle.loads(pickle.dumps(x))
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    net = gluon.nn.Dense(3, in_units=2)
    net.initialize()
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    assert set(mx.nd.load(path)) == {"weight", "bias"}
    other = gluon.nn.Dense(3, in_units=2)
    other.load_parameters(path)
    np.testing.assert_array_equal(other.weight.data().asnumpy(), net.weight.data().asnumpy())

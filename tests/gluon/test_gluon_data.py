"""Datasets, DataLoader, transforms and the MNIST idx reader."""
import os
import struct

import numpy as np
import pytest
from gluonhelpers import mnist_dir

import xprof.runtime as mx
from xprof.runtime import gluon
from xprof.runtime.gluon.data import vision
from xprof.runtime.gluon.data.vision import transforms


def _batches(loader):
    return [[a.asnumpy() for a in b] if isinstance(b, list) else b.asnumpy() for b in loader]


# -- datasets and loader ------------------------------------------------------------------
def test_array_dataset_items_and_batches():
    x = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.int32)
    ds = gluon.data.ArrayDataset(x, y)
    assert len(ds) == 10
    xi, yi = ds[4]
    np.testing.assert_array_equal(xi, x[4])
    assert yi == 4
    batches = _batches(gluon.data.DataLoader(ds, batch_size=4))
    assert [b[0].shape for b in batches] == [(4, 3), (4, 3), (2, 3)]
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), y)
    assert batches[0][1].dtype == np.int32
    nd_ds = gluon.data.ArrayDataset(mx.nd.array(x))
    item = nd_ds[2]
    assert isinstance(item, mx.nd.NDArray) and item.shape == (3,)
    (only,) = [b for b in gluon.data.DataLoader(nd_ds, batch_size=10)]
    assert isinstance(only, mx.nd.NDArray) and only.shape == (10, 3)
    with pytest.raises(ValueError, match="same length"):
        gluon.data.ArrayDataset(x, y[:3])


@pytest.mark.parametrize("last_batch,sizes", [("keep", [4, 4, 2]), ("discard", [4, 4])])
def test_last_batch_keep_and_discard(last_batch, sizes):
    ds = gluon.data.ArrayDataset(np.arange(10))
    loader = gluon.data.DataLoader(ds, batch_size=4, last_batch=last_batch)
    assert [b.shape[0] for b in loader] == sizes
    assert len(loader) == len(sizes)


def test_last_batch_rollover_carries_samples_to_next_epoch():
    ds = gluon.data.ArrayDataset(np.arange(10))
    loader = gluon.data.DataLoader(ds, batch_size=4, last_batch="rollover")
    first = [b.asnumpy().tolist() for b in loader]
    assert first == [[0, 1, 2, 3], [4, 5, 6, 7]]
    second = [b.asnumpy().tolist() for b in loader]
    assert second[0] == [8, 9, 0, 1]
    assert len(second) == 3
    with pytest.raises(ValueError, match="last_batch"):
        gluon.data.DataLoader(ds, batch_size=4, last_batch="bogus")


def test_shuffle_is_a_seeded_permutation():
    ds = gluon.data.ArrayDataset(np.arange(50))

    def epoch(seed):
        np.random.seed(seed)
        return np.concatenate([b.asnumpy() for b in
                               gluon.data.DataLoader(ds, batch_size=8, shuffle=True)])
    a, b, c = epoch(1), epoch(1), epoch(2)
    np.testing.assert_array_equal(a, b)
    assert sorted(a.tolist()) == list(range(50))
    assert a.tolist() != list(range(50)) and a.tolist() != c.tolist()


def test_transform_first_and_custom_batchify():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.arange(4)
    ds = gluon.data.ArrayDataset(x, y).transform_first(lambda a: a * 2)
    xi, yi = ds[1]
    np.testing.assert_array_equal(xi, x[1] * 2)
    assert yi == 1
    data, label = next(iter(gluon.data.DataLoader(ds, batch_size=4)))
    np.testing.assert_array_equal(data.asnumpy(), x * 2)
    loader = gluon.data.DataLoader(ds, batch_size=2, batchify_fn=lambda s: len(s))
    assert list(loader) == [2, 2]
    whole = ds.transform(lambda a, b: (a.sum(), b), lazy=False)
    assert whole[3] == (x[3].sum() * 2, 3)


# -- transforms ----------------------------------------------------------------------------
def test_to_tensor_normalize_compose():
    img = np.arange(2 * 3 * 2, dtype=np.uint8).reshape(2, 3, 2) * 20      # HWC
    t = transforms.ToTensor()(mx.nd.array(img, dtype=np.uint8))
    assert isinstance(t, mx.nd.NDArray) and t.shape == (2, 2, 3)
    assert t.dtype == np.float32
    np.testing.assert_allclose(t.asnumpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    batch = transforms.ToTensor()(np.stack([img, img]))                    # NHWC numpy
    assert batch.shape == (2, 2, 2, 3)
    comp = transforms.Compose([transforms.ToTensor(),
                               transforms.Normalize(mean=(0.5, 0.25), std=(0.5, 2.0))])
    out = comp(img)
    ref = (img.transpose(2, 0, 1) / 255.0 - np.array([0.5, 0.25])[:, None, None]) \
        / np.array([0.5, 2.0])[:, None, None]
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    with pytest.raises(ValueError, match="channels"):
        transforms.Normalize(mean=(0.1, 0.2, 0.3))(out)


def test_batched_transform_equals_per_sample():
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, size=(7, 5, 4, 1)).astype(np.uint8)
    labels = np.arange(7)
    ds = gluon.data.ArrayDataset(imgs, labels).transform_first(transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize(0.1, 0.3)]))
    fast = next(iter(gluon.data.DataLoader(ds, batch_size=7)))[0].asnumpy()
    slow = np.stack([np.asarray(ds[i][0]) for i in range(7)])
    np.testing.assert_allclose(fast, slow, rtol=1e-6)
    assert fast.shape == (7, 1, 5, 4)


# -- MNIST ------------------------------------------------------------------------------------
@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_idx_files(tmp_path, gz):
    images, labels = mnist_dir(str(tmp_path), 6, gz)
    ds = vision.MNIST(root=str(tmp_path), train=True)
    assert len(ds) == 6
    img, lab = ds[3]
    assert isinstance(img, mx.nd.NDArray) and img.shape == (28, 28, 1)
    assert img.dtype == np.uint8
    np.testing.assert_array_equal(img.asnumpy()[:, :, 0], images[3])
    assert lab == labels[3] and lab.dtype == np.int32
    loader = gluon.data.DataLoader(ds.transform_first(transforms.ToTensor()), batch_size=4)
    data, label = next(iter(loader))
    assert data.shape == (4, 1, 28, 28) and data.dtype == np.float32
    np.testing.assert_allclose(data.asnumpy()[:, 0], images[:4] / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(label.asnumpy(), labels[:4])


def test_mnist_test_split_and_transform_argument(tmp_path):
    images, labels = mnist_dir(str(tmp_path), 3, True, train=False)
    ds = vision.MNIST(root=str(tmp_path), train=False,
                      transform=lambda d, l: (d.asnumpy().sum(), int(l) + 100))
    assert ds[1] == (int(images[1].sum()), int(labels[1]) + 100)
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte"):
        vision.MNIST(root=str(tmp_path), train=True)


def test_mnist_missing_files_error_names_folder_and_files(tmp_path):
    with pytest.raises(ValueError) as e:
        vision.MNIST(root=str(tmp_path))
    msg = str(e.value)
    assert str(tmp_path) in msg
    assert "train-images-idx3-ubyte" in msg and "train-labels-idx1-ubyte" in msg
    assert isinstance(e.value, FileNotFoundError)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        vision.MNIST(root=str(tmp_path / "nowhere"))


def test_mnist_rejects_corrupt_files(tmp_path):
    root = str(tmp_path)
    mnist_dir(root, 4, False)
    with open(os.path.join(root, "train-labels-idx1-ubyte"), "wb") as f:
        f.write(b"\x00\x00\x08\x01" + struct.pack(">I", 5) + bytes(5))    # 5 labels
    with pytest.raises(ValueError, match="labels"):
        vision.MNIST(root=root)
    with open(os.path.join(root, "train-images-idx3-ubyte"), "wb") as f:
        f.write(b"PK\x03\x04garbage")
    with pytest.raises(ValueError, match="not an idx file"):
        vision.MNIST(root=root)


@pytest.mark.parametrize("auto_reload", [True, False])
def test_auto_reload_is_accepted_and_epochs_repeat(auto_reload):
    data = gluon.data.ArrayDataset(np.arange(6, dtype=np.float32))
    loader = gluon.data.DataLoader(data, batch_size=2, num_workers=2, thread_pool=True,
                                   auto_reload=auto_reload)
    for _ in range(2):
        assert [b.asnumpy().tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]

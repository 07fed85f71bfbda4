"""mx.io (runtime/io): NDArrayIter's last-batch handling, shuffling and names; CSVIter and
MNISTIter on local files; DataBatch/DataDesc."""
import gzip
import struct

import numpy as np
import pytest

import xprof.runtime as mx


def _labels(it):
    return [b.label[0].asnumpy().ravel().tolist() for b in it]


def test_last_batch_pad_discard_roll_over():
    data = np.arange(10, dtype=np.float32).reshape(10, 1)
    pad = mx.io.NDArrayIter(data, data.ravel(), batch_size=4, last_batch_handle="pad")
    batches = list(pad)
    assert [b.pad for b in batches] == [0, 0, 2]
    assert batches[-1].data[0].asnumpy().ravel().tolist() == [8, 9, 0, 1]
    assert len(list(mx.io.NDArrayIter(data, batch_size=4, last_batch_handle="discard"))) == 2
    roll = mx.io.NDArrayIter(data, data.ravel(), batch_size=4, last_batch_handle="roll_over")
    assert _labels(roll) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    roll.reset()
    assert _labels(roll)[0] == [8, 9, 0, 1]          # the remainder leads the next epoch
    big = mx.io.NDArrayIter(np.arange(3), batch_size=7)
    assert big.next().data[0].asnumpy().tolist() == [0, 1, 2, 0, 1, 2, 0]
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.io.NDArrayIter(data, last_batch_handle="keep")


def test_names_provide_data_and_shuffle():
    x = np.random.rand(6, 2, 3).astype(np.float32)
    it = mx.io.NDArrayIter({"b": x, "a": x[:, :1]}, np.arange(6), batch_size=2, shuffle=True)
    assert [d.name for d in it.provide_data] == ["a", "b"]
    assert it.provide_data[1].shape == (2, 2, 3) and it.provide_label[0].name == "softmax_label"
    seen = [b.data[1].asnumpy() for b in it]
    order = it.idx
    np.testing.assert_array_equal(np.concatenate(seen), x[order])
    two = mx.io.NDArrayIter([x, x], batch_size=3)
    assert [d.name for d in two.provide_data] == ["_0_data", "_1_data"]
    assert str(mx.io.DataBatch([mx.nd.ones((2, 3))])) == \
        "DataBatch: data shapes: [(2, 3)] label shapes: None"


def test_csv_and_mnist_iters_read_local_files(tmp_path):
    csv = tmp_path / "d.csv"
    np.savetxt(csv, np.arange(12).reshape(3, 4), delimiter=",")
    it = mx.io.CSVIter(data_csv=str(csv), data_shape=(2, 2), batch_size=2)
    assert it.next().data[0].shape == (2, 2, 2)
    assert it.getdata().shape == (2, 2, 2)
    images = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    with gzip.open(tmp_path / "img.gz", "wb") as f:
        f.write(struct.pack(">BBBBIII", 0, 0, 8, 3, 2, 28, 28) + images.tobytes())
    with open(tmp_path / "lab", "wb") as f:
        f.write(struct.pack(">BBBBI", 0, 0, 8, 1, 2) + bytes([3, 7]))
    mn = mx.io.MNISTIter(image=str(tmp_path / "img.gz"), label=str(tmp_path / "lab"),
                         batch_size=2, flat=True, shuffle=False)
    b = mn.next()
    assert b.data[0].shape == (2, 784) and b.label[0].asnumpy().tolist() == [3, 7]
    # MXNet's C++ iterator scales by 1/256
    np.testing.assert_allclose(b.data[0].asnumpy()[1], images[1].ravel() / 256.0, rtol=1e-6)
    # shuffled once by default (as MXNet's); a partial last batch is dropped
    one = mx.io.MNISTIter(image=str(tmp_path / "img.gz"), label=str(tmp_path / "lab"),
                          batch_size=1, seed=3)
    assert sorted(int(x.label[0].asscalar()) for x in one) == [3, 7]
    assert list(mx.io.MNISTIter(image=str(tmp_path / "img.gz"),
                                label=str(tmp_path / "lab"), batch_size=3)) == []
    with pytest.raises(ValueError, match="not an idx file"):
        mx.io.MNISTIter(image=str(csv), label=str(tmp_path / "lab"))
    with pytest.raises(NotImplementedError, match="RecordIO"):
        mx.io.ImageRecordIter(path_imgrec="x.rec")


def test_batches_own_their_values_and_record_one_array_event_each(prof):
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    label = np.arange(6, dtype=np.int32)
    it = mx.io.NDArrayIter(data, label, batch_size=4)   # 2 batches, the last padded
    prof.start(profile_api=True, profile_imperative=True, aggregate_stats=True)
    batches = list(it)
    prof.stop()
    assert prof.stats()["Time"]["API"]["array"]["Count"] == 4     # data + label, twice
    data[:] = -1                                                  # the source changes...
    np.testing.assert_array_equal(batches[0].data[0].asnumpy(),   # ...the batch does not
                                  np.arange(8, dtype=np.float32).reshape(4, 2))
    assert batches[1].label[0].dtype == np.int32
    assert batches[1].label[0].asnumpy().tolist() == [4, 5, 0, 1]


def test_prefetching_iter_zips_renames_and_reports_errors():
    a = mx.io.NDArrayIter(np.arange(8, dtype=np.float32).reshape(4, 2), np.arange(4),
                          batch_size=2)
    b = mx.io.NDArrayIter(np.ones((4, 3), np.float32), np.zeros(4), batch_size=2)
    it = mx.io.PrefetchingIter([a, b], rename_data=[{"data": "a"}, {"data": "b"}])
    assert [d.name for d in it.provide_data] == ["a", "b"]
    batches = list(it)
    assert len(batches) == 2 and len(batches[0].data) == 2
    np.testing.assert_array_equal(batches[1].data[0].asnumpy(), [[4, 5], [6, 7]])
    it.reset()
    assert len(list(it)) == 2

    class Broken(mx.io.DataIter):
        provide_data = [mx.io.DataDesc("data", (2, 2))]
        provide_label = []

        def next(self):
            raise ValueError("the disk is gone")

    with pytest.raises(ValueError, match="the disk is gone"):
        mx.io.PrefetchingIter(Broken()).next()


def test_dataloader_iter_pads_the_last_batch():
    from xprof.runtime.contrib.io import DataLoaderIter
    ds = mx.gluon.data.ArrayDataset(np.arange(10, dtype=np.float32).reshape(5, 2),
                                    np.arange(5, dtype=np.float32))
    it = DataLoaderIter(mx.gluon.data.DataLoader(ds, batch_size=2), dtype="float16")
    assert it.provide_data[0].shape == (2, 2) and it.provide_label[0].name == "softmax_label"
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]
    assert batches[2].data[0].shape == (2, 2) and batches[2].data[0].dtype == np.float16
    np.testing.assert_array_equal(batches[2].data[0].asnumpy()[0], [8, 9])


def _write_idx(path, arr, gz):
    with (gzip.open if gz else open)(path, "wb") as f:
        f.write(struct.pack(">BBBB", 0, 0, 8, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape))
        f.write(arr.astype(np.uint8).tobytes())


def test_get_mnist_and_its_iterator_read_the_local_files(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    (tmp_path / "data").mkdir()
    for split, n in (("train", 300), ("t10k", 100)):
        images, labels = rng.integers(0, 256, (n, 28, 28)), rng.integers(0, 10, n)
        for gz, where in ((True, tmp_path), (False, tmp_path / "data")):   # as MXNet has them
            name = where / (f"{split}-images-idx3-ubyte" + (".gz" if gz else ""))
            _write_idx(name, images, gz)
            _write_idx(where / (f"{split}-labels-idx1-ubyte" + (".gz" if gz else "")), labels, gz)
    monkeypatch.chdir(tmp_path)
    m = mx.test_utils.get_mnist()
    assert m["train_data"].shape == (300, 1, 28, 28) and m["train_label"].dtype == np.int8
    assert m["test_data"].max() <= 1.0
    train, val = mx.test_utils.get_mnist_iterator(batch_size=100, input_shape=(784,))
    assert train.provide_data[0].shape == (100, 784) and len(list(val)) == 1
    with pytest.raises(RuntimeError, match="does not download"):
        mx.test_utils.download("http://example.com/missing.bin")

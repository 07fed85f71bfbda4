"""``mx.image``: decoding (Pillow) and OpenCV's resampling and borders against values
MXNet 2.0.0b1 computed (``_cvimresize``, ``_cvcopyMakeBorder``, ``imdecode`` of the
RecordIO fixture's images, recorded once), the crops, the augmenters, ``ImageIter``
over RecordIO files and image lists, and the operator names a profile shows."""
import io
import json
import os
import random

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime.ops import cvimage

PIL = pytest.importorskip("PIL.Image")
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "recordio")
SRC = (np.arange(5 * 7 * 2).reshape(5, 7, 2) * 37 % 251).astype(np.uint8)

# MXNet 2.0.0b1: mx.nd._internal._cvimresize(SRC, w, h, interp)[..., 0]
MXNET_RESIZE = {
    (0, 3, 2): [[0, 148, 45], [32, 180, 77]],
    (1, 3, 2): [[61, 234, 156], [101, 23, 175]],
    (2, 3, 2): [[53, 255, 161], [96, 24, 186]],
    (3, 3, 2): [[66, 142, 153], [104, 94, 148]],
    (4, 3, 2): [[61, 255, 174], [86, 34, 181]],
    (0, 4, 8): [[0, 74, 222, 119], [0, 74, 222, 119], [16, 90, 238, 135], [16, 90, 238, 135],
                [32, 106, 3, 151], [48, 122, 19, 167], [48, 122, 19, 167], [64, 138, 35, 183]],
    (1, 4, 8): [[28, 157, 67, 165], [35, 164, 74, 172], [45, 172, 82, 182], [55, 163, 72, 192],
                [65, 163, 73, 202], [75, 173, 83, 212], [85, 183, 93, 134], [92, 190, 100, 72]],
    (2, 4, 8): [[20, 161, 57, 170], [27, 171, 67, 177], [39, 179, 75, 189], [48, 169, 65, 198],
                [59, 169, 65, 217], [68, 181, 77, 224], [80, 192, 89, 138], [87, 200, 96, 61]],
    (3, 4, 8): [[32, 137, 96, 161], [38, 144, 102, 168], [48, 153, 112, 177], [60, 166, 67, 190],
                [67, 172, 59, 196], [80, 185, 72, 209], [89, 195, 81, 133], [96, 201, 88, 82]],
    (4, 4, 8): [[22, 163, 58, 180], [31, 174, 69, 190], [40, 181, 76, 197], [42, 169, 64, 193],
                [47, 165, 61, 217], [58, 179, 75, 222], [70, 193, 84, 136], [77, 198, 86, 57]],
}
# MXNet 2.0.0b1: _cvcopyMakeBorder(SRC, 1, 2, 3, 1, type=t, value=7)[:2, :, 0]
MXNET_BORDER = {
    0: [[7] * 11, [7, 7, 7, 0, 74, 148, 222, 45, 119, 193, 7]],
    1: [[0, 0, 0, 0, 74, 148, 222, 45, 119, 193, 193], [0, 0, 0, 0, 74, 148, 222, 45, 119,
                                                        193, 193]],
    2: [[148, 74, 0, 0, 74, 148, 222, 45, 119, 193, 193], [148, 74, 0, 0, 74, 148, 222, 45,
                                                           119, 193, 193]],
    3: [[109, 183, 6, 64, 138, 212, 35, 109, 183, 6, 64], [45, 119, 193, 0, 74, 148, 222, 45,
                                                           119, 193, 0]],
    4: [[238, 164, 90, 16, 90, 164, 238, 61, 135, 209, 135], [222, 148, 74, 0, 74, 148, 222,
                                                              45, 119, 193, 119]],
}
# MXNet 2.0.0b1 on images.rec: key -> (shape, pixel sum, first 3 pixels, grey sum)
MXNET_DECODED = {
    10: ((20, 24, 3), 192778, [[232, 160, 184], [233, 159, 186], [235, 155, 192]], 53041),
    11: ((24, 24, 3), 193671, [[117, 124, 47], [118, 121, 50], [120, 115, 59]], 67247),
    12: ((28, 24, 3), 286097, [[78, 68, 193], [85, 66, 191], [98, 64, 184]], 101013),
    13: ((9, 11, 3), 45785, [[8, 159, 242], [21, 155, 232], [48, 150, 232]], 15774),
}


@pytest.mark.parametrize("key", sorted(MXNET_RESIZE))
def test_imresize_matches_opencv_through_mxnet(key):
    interp, w, h = key
    got = mx.image.imresize(mx.nd.array(SRC, dtype="uint8"), w, h, interp=interp)
    assert got.shape == (h, w, 2) and got.dtype == np.uint8
    # OpenCV computes uint8 resizes in fixed point: a unit of rounding apart at most
    diff = np.abs(got.asnumpy()[..., 0].astype(int) - np.array(MXNET_RESIZE[key]))
    assert diff.max() <= 1, diff


@pytest.mark.parametrize("kind", sorted(MXNET_BORDER))
def test_copy_make_border_numbers_borders_as_opencv(kind):
    out = mx.image.copyMakeBorder(mx.nd.array(SRC, dtype="uint8"), 1, 2, 3, 1, type=kind,
                                  value=7)
    assert out.shape == (8, 11, 2)
    np.testing.assert_array_equal(out.asnumpy()[:2, :, 0], MXNET_BORDER[kind])


def test_decoding_the_recordio_fixture_gives_mxnets_pixels():
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(FIXTURES, "images.idx"),
                                        os.path.join(FIXTURES, "images.rec"), "r")
    for key, (shape, total, first, grey) in MXNET_DECODED.items():
        _, payload = mx.recordio.unpack(rec.read_idx(key))
        img = mx.image.imdecode(payload)
        assert type(img) is mx.nd.NDArray and img.dtype == np.uint8 and img.shape == shape
        values = img.asnumpy()
        # libjpeg builds may differ by a unit here and there: the sums within 0.5%
        assert abs(int(values.astype(np.int64).sum()) - total) <= total * 0.005
        assert np.abs(values[0, :3].astype(int) - first).max() <= 2
        g = mx.image.imdecode(payload, flag=0).asnumpy()
        assert g.shape == shape[:2] + (1,)
        assert abs(int(g.astype(np.int64).sum()) - grey) <= grey * 0.005
        np.testing.assert_array_equal(mx.image.imdecode(payload, to_rgb=False).asnumpy(),
                                      values[:, :, ::-1])


def _png(img):
    buf = io.BytesIO()
    PIL.fromarray(img).save(buf, format="PNG")
    return buf.getvalue()


def test_imread_and_imdecode_are_mxnets_operators(tmp_path):
    img = np.random.default_rng(2).integers(0, 256, (4, 6, 3), dtype=np.uint8)
    path = tmp_path / "a.png"
    path.write_bytes(_png(img))
    a = mx.image.imread(str(path))
    np.testing.assert_array_equal(a.asnumpy(), img)
    np.testing.assert_array_equal(mx.image.imdecode(np.frombuffer(_png(img), np.uint8))
                                  .asnumpy(), img)
    assert mx.img is mx.image
    with mx.util.np_array(True), mx.util.np_shape(True):
        assert isinstance(mx.image.imread(str(path)), mx.np.ndarray)
    trace = tmp_path / "t.json"
    mx.profiler.set_config(profile_all=True, filename=str(trace))
    mx.profiler.set_state("run")
    x = mx.image.imdecode(_png(img))
    y = mx.image.imresize(mx.image.imread(str(path)), 3, 2)
    mx.image.copyMakeBorder(y, 1, 1, 1, 1).wait_to_read()
    x.wait_to_read()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    names = {e["name"] for e in json.loads(trace.read_text())["traceEvents"]
             if e.get("ph") == "X" and e.get("cat") == "operator"}
    assert {"Imdecode", "Imread", "_cvimresize", "_cvcopyMakeBorder"} <= names, names


def test_bad_input_is_named(tmp_path):
    path = tmp_path / "x.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0 not really")
    with pytest.raises(ValueError, match=r"x\.jpg.*not an image"):
        mx.image.imread(str(path))
    with pytest.raises(ValueError, match="buf must be bytes"):
        mx.image.imdecode("a str")
    with pytest.raises(ValueError, match="flag=2"):
        mx.image.imdecode(_png(SRC[..., :1].repeat(3, 2)), flag=2)
    with pytest.raises(mx.MXNetError, match="interp=7"):
        mx.image.imresize(mx.nd.array(SRC), 3, 3, interp=7).wait_to_read()


def test_crops_and_resize_short_as_mxnet():
    img = mx.nd.array(np.arange(4 * 6 * 3).reshape(4, 6, 3), dtype="uint8")
    out, box = mx.image.center_crop(img, (2, 2))
    assert box == (2, 1, 2, 2)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[1:3, 2:4])
    assert mx.image.resize_short(img, 8).shape == (8, 12, 3)
    big, box = mx.image.center_crop(img, (8, 8))          # smaller image: 4x4 region, up
    assert big.shape == (8, 8, 3) and box == (1, 0, 4, 4)
    random.seed(3)
    crop, (x0, y0, w, h) = mx.image.random_size_crop(img, (5, 5), 0.3, (0.75, 1.33))
    assert crop.shape == (5, 5, 3) and 0 <= x0 <= 6 - w and 0 <= y0 <= 4 - h
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)


def test_create_augmenter_gives_mxnets_list_and_dumps():
    augs = mx.image.CreateAugmenter((3, 8, 8), resize=10, rand_crop=True, rand_resize=True,
                                    rand_mirror=True, mean=True, std=True, brightness=0.1,
                                    contrast=0.1, saturation=0.1, hue=0.1, pca_noise=0.1,
                                    rand_gray=0.1)
    assert [type(a).__name__ for a in augs] == [
        "ResizeAug", "RandomSizedCropAug", "HorizontalFlipAug", "CastAug", "ColorJitterAug",
        "HueJitterAug", "LightingAug", "RandomGrayAug", "ColorNormalizeAug"]
    assert json.loads(augs[0].dumps()) == ["resizeaug", {"size": 10, "interp": 2}]
    random.seed(0)
    np.random.seed(0)
    img = mx.nd.array(np.random.default_rng(0).integers(0, 256, (12, 16, 3)), dtype="uint8")
    for aug in augs:
        img = aug(img)
    assert img.shape == (8, 8, 3) and img.dtype == np.float32
    assert np.isfinite(img.asnumpy()).all()
    with pytest.raises(ValueError, match="rand_resize needs rand_crop"):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)


def _write_images(folder, n):
    rng = np.random.default_rng(5)
    lines = []
    for i in range(n):
        name = f"{i}.png"
        (folder / name).write_bytes(_png(rng.integers(0, 256, (10, 12, 3), dtype=np.uint8)))
        lines.append(f"{i}\t{i % 3}\t{name}\n")
    (folder / "list.lst").write_text("".join(lines))


def test_image_iter_over_an_image_list_pads_discards_and_rolls_over(tmp_path):
    _write_images(tmp_path, 5)
    kw = dict(batch_size=2, data_shape=(3, 6, 6), path_imglist=str(tmp_path / "list.lst"),
              path_root=str(tmp_path))
    batches = list(mx.image.ImageIter(**kw))
    assert [b.pad for b in batches] == [0, 0, 1]
    assert batches[0].data[0].shape == (2, 3, 6, 6)
    np.testing.assert_array_equal(batches[2].label[0].asnumpy(), [1, 0])   # 5th, then 1st
    assert len(list(mx.image.ImageIter(last_batch_handle="discard", **kw))) == 2
    it = mx.image.ImageIter(last_batch_handle="roll_over", **kw)
    assert len(list(it)) == 2
    it.reset()
    first = it.next()
    # the rolled-over image first, then the epoch's first; MXNet reports the pad the
    # cached part had
    np.testing.assert_array_equal(first.label[0].asnumpy(), [1, 0])
    assert first.pad == 1
    listed = mx.image.ImageIter(2, (3, 6, 6), imglist=[[1.0, "0.png"], [2.0, "1.png"]],
                                path_root=str(tmp_path))
    np.testing.assert_array_equal(listed.next().label[0].asnumpy(), [1, 2])


def test_image_iter_reads_mxnets_recordio_in_order_and_shuffled():
    rec, idx = os.path.join(FIXTURES, "images.rec"), os.path.join(FIXTURES, "images.idx")
    it = mx.image.ImageIter(4, (3, 8, 8), path_imgrec=rec, label_width=3)
    batch = it.next()
    assert batch.data[0].shape == (4, 3, 8, 8) and batch.pad == 0
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [[0] * 3, [1] * 3,
                                                             [1.5, 2.5, 3.5], [3] * 3])
    random.seed(1)
    shuffled = mx.image.ImageIter(2, (3, 8, 8), path_imgrec=rec, path_imgidx=idx,
                                  shuffle=True, label_width=3)
    seen = sorted(float(row[2]) for b in shuffled for row in b.label[0].asnumpy())
    assert seen == [0, 1, 3, 3.5]

"""``gluon.data.vision``: ``ImageFolderDataset`` and the image transforms MXNet 2's crash
course uses (``Resize``, ``CenterCrop``, ``RandomFlipLeftRight``, ``RandomColorJitter``),
against numpy references of MXNet's formulas."""
import struct
import zlib

import numpy as np
import pytest

import xprof.runtime as mx
from xprof.runtime import gluon
from xprof.runtime.gluon.data.vision import transforms


def png_file(path, img):
    h, w, _ = img.shape

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, -1)], axis=1)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2,
                                                                       0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows.tobytes())) + chunk(b"IEND", b""))


def test_image_folder_dataset(tmp_path):
    rng = np.random.default_rng(0)
    images = {}
    for cls in ("dog", "cat"):
        (tmp_path / cls).mkdir()
        for i in range(2):
            img = rng.integers(0, 256, (3, 4, 3), dtype=np.uint8)
            png_file(tmp_path / cls / f"{i}.PNG", img)
            images[(cls, i)] = img
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    with pytest.warns(UserWarning, match="notes.txt"):
        ds = gluon.data.vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"] and len(ds) == 4
    img, label = ds[2]
    assert label == 1 and img.dtype == np.uint8
    np.testing.assert_array_equal(img.asnumpy(), images[("dog", 0)])
    with pytest.warns(UserWarning, match="notes.txt"):
        grey = gluon.data.vision.ImageFolderDataset(str(tmp_path), flag=0)[0][0]
    assert grey.shape == (3, 4, 1)
    loader = gluon.data.DataLoader(ds.transform_first(transforms.ToTensor()), batch_size=4)
    data, labels = next(iter(loader))
    assert data.shape == (4, 3, 3, 4) and list(labels.asnumpy()) == [0, 0, 1, 1]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        gluon.data.vision.ImageFolderDataset(str(tmp_path / "nope"))


def test_resize_and_center_crop_shapes():
    img = mx.nd.array(np.zeros((48, 72, 3)), dtype="uint8")
    assert transforms.Resize(224, keep_ratio=True)(img).shape == (224, 336, 3)
    assert transforms.Resize(32)(img).shape == (32, 32, 3)
    assert transforms.Resize((40, 20))(img).shape == (20, 40, 3)          # (w, h)
    assert transforms.CenterCrop(16)(img).shape == (16, 16, 3)
    assert transforms.CenterCrop((100, 60))(img).shape == (60, 100, 3)    # resized up
    batch = np.zeros((2, 48, 72, 3), np.uint8)
    assert transforms.Resize(24, keep_ratio=True)(batch).shape == (2, 24, 36, 3)
    with pytest.raises(ValueError, match="size"):
        transforms.Resize(0)


def test_center_crop_takes_the_middle():
    img = np.arange(5 * 7 * 3, dtype=np.uint8).reshape(5, 7, 3)
    np.testing.assert_array_equal(transforms.CenterCrop((3, 1))(img), img[2:3, 2:5])


def test_random_flip():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    np.testing.assert_array_equal(transforms.RandomFlipLeftRight(p=1)(img), img[:, ::-1])
    np.testing.assert_array_equal(transforms.RandomFlipLeftRight(p=0)(img), img)
    np.testing.assert_array_equal(transforms.RandomFlipTopBottom(p=1)(img), img[::-1])


def _gray(v):
    return v @ np.array([0.299, 0.587, 0.114], np.float32)


def test_colour_jitters_follow_mxnets_formulas():
    img = np.random.default_rng(3).uniform(0, 200, (4, 5, 3)).astype(np.float32)
    np.random.seed(5)
    a = 1 + np.random.uniform(-0.3, 0.3)
    np.random.seed(5)
    np.testing.assert_allclose(transforms.RandomBrightness(0.3)(img), img * a, rtol=1e-5)
    np.random.seed(5)
    np.testing.assert_allclose(transforms.RandomContrast(0.3)(img),
                               img * a + _gray(img).mean() * (1 - a), rtol=1e-5)
    np.random.seed(5)
    np.testing.assert_allclose(transforms.RandomSaturation(0.3)(img),
                               img * a + _gray(img)[..., None] * (1 - a), rtol=1e-5)
    np.random.seed(5)
    hue = transforms.RandomHue(0.0)(img)   # no rotation: the same image, up to MXNet's
    np.testing.assert_allclose(hue, img, rtol=0, atol=0.5)   # 3-digit YIQ matrices
    u8 = np.full((2, 2, 3), 250, np.uint8)
    out = transforms.RandomColorJitter(brightness=0.5, contrast=0.5)(u8)
    assert out.dtype == np.uint8                         # rounded and clipped back
    with pytest.raises(ValueError, match="contrast"):
        transforms.RandomColorJitter(contrast=-1)


def test_the_crash_course_pipeline():
    t = transforms.Compose([
        transforms.Resize(size=224, keep_ratio=True), transforms.CenterCrop(128),
        transforms.RandomFlipLeftRight(), transforms.RandomColorJitter(contrast=0.05),
        transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406],
                                                    [0.229, 0.224, 0.225])])
    out = t(mx.nd.array(np.full((48, 72, 3), 128), dtype="uint8"))
    assert out.shape == (3, 128, 128) and out.dtype == np.float32

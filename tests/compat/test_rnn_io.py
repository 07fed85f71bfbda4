"""mx.rnn.BucketSentenceIter / encode_sentences (runtime/rnn/io.py): known answers."""
import numpy as np
import pytest

import xprof.runtime as mx


def test_sentences_go_to_the_smallest_bucket_labels_shift_by_one():
    sents = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [1] * 12, [2, 2, 2], [3, 3, 3, 3, 3]]
    it = mx.rnn.BucketSentenceIter(sents, 2, buckets=[3, 5, 8, 10], invalid_label=-1)
    assert it.buckets == [3, 5]                     # 8 and 10 got nothing: dropped
    assert it.default_bucket_key == 5
    assert it.provide_data[0].shape == (2, 5) and it.provide_label[0].name == "softmax_label"
    batches = list(it)
    assert sorted(b.bucket_key for b in batches) == [3, 5]
    for b in batches:
        data, label = b.data[0].asnumpy(), b.label[0].asnumpy()
        assert data.shape == (2, b.bucket_key) == b.provide_data[0].shape
        np.testing.assert_array_equal(label[:, :-1], data[:, 1:])
        assert (label[:, -1] == -1).all()
    rows = {tuple(r) for b in batches if b.bucket_key == 5 for r in b.data[0].asnumpy()}
    assert rows == {(6, 7, 8, 9, -1), (3, 3, 3, 3, 3)}
    it.reset()
    assert len(list(it)) == 2


def test_tn_layout_transposes_and_bad_layout():
    it = mx.rnn.BucketSentenceIter([[1, 2], [3, 4], [5, 6, 7]], 2, buckets=[2, 3],
                                   layout="TN")
    b = next(iter(it))
    assert b.data[0].shape == (2, 2) and it.provide_data[0].shape == (3, 2)   # (T, N)
    assert {tuple(col) for col in b.data[0].asnumpy().T} == {(1, 2), (3, 4)}   # T by N
    with pytest.raises(ValueError, match="layout"):
        mx.rnn.BucketSentenceIter([[1, 2]], 1, buckets=[2], layout="NTC")


def test_encode_sentences_numbers_new_tokens():
    coded, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c"]], invalid_label=-1)
    assert coded == [[0, 1], [1, 2]] and vocab["c"] == 2 and vocab["\n"] == -1
    with pytest.raises(ValueError, match="'z'"):
        mx.rnn.encode_sentences([["z"]], vocab={"a": 0})

"""``mx.rnn.BucketSentenceIter`` and ``encode_sentences``: batches of token sequences
for bucketing language models (MXNet 1.x's ``mx.rnn.io``).

Each sentence goes to the smallest bucket (sequence length) that holds it, padded with
``invalid_label``; sentences longer than the largest bucket are dropped (and counted),
buckets that end up empty are removed. A batch is ``batch_size`` sentences of one
bucket, its label the sentence shifted left by one token; ``bucket_key`` is the
bucket's length, so a ``BucketingModule`` binds one module per length.
"""
import bisect
import logging
import random

import numpy as np

from ..io import DataBatch, DataDesc, DataIter
from ..ndarray import ndarray as _nd

__all__ = ["BucketSentenceIter", "encode_sentences"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n",
                     start_label=0, unknown_token=None):
    """Sentences of tokens as lists of ints, and the vocabulary ``{token: int}`` (new
    tokens numbered from ``start_label`` when ``vocab`` is None)."""
    grow = vocab is None
    if grow:
        vocab = {invalid_key: invalid_label}
        idx = start_label
    out = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                if grow:
                    if idx == invalid_label:
                        idx += 1
                    vocab[word] = idx
                    idx += 1
                elif unknown_token is not None:
                    word = unknown_token
                else:
                    raise ValueError(f"encode_sentences: token {word!r} is not in the "
                                     "vocabulary (pass unknown_token to map it)")
            coded.append(vocab[word])
        out.append(coded)
    return out, vocab


class BucketSentenceIter(DataIter):
    """Bucketed batches of encoded sentences (see the module docstring)."""

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1,
                 data_name="data", label_name="softmax_label", dtype="float32",
                 layout="NT"):
        super().__init__(batch_size)
        if layout not in ("NT", "TN"):
            raise ValueError(f"BucketSentenceIter: layout={layout!r} must be 'NT' or 'TN'")
        lengths = [len(s) for s in sentences]
        if not buckets:
            counts = np.bincount(lengths) if lengths else []
            buckets = [n for n, c in enumerate(counts) if c >= batch_size]
        buckets = sorted(buckets)
        if not buckets:
            raise ValueError("BucketSentenceIter: no bucket (no sentence length occurs "
                             f"{batch_size} times; give buckets=)")
        rows = [[] for _ in buckets]
        ndiscard = 0
        for sent in sentences:
            b = bisect.bisect_left(buckets, len(sent))
            if b == len(buckets):
                ndiscard += 1
                continue
            row = np.full((buckets[b],), invalid_label, dtype=dtype)
            row[:len(sent)] = sent
            rows[b].append(row)
        if ndiscard:
            logging.warning("BucketSentenceIter: discarded %d sentences longer than the "
                            "largest bucket", ndiscard)
        kept = [i for i, r in enumerate(rows) if r]
        self.buckets = [buckets[i] for i in kept]
        self.data = [np.asarray(rows[i], dtype=dtype) for i in kept]
        self.batch_size = batch_size
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.layout = layout
        self.major_axis = layout.find("N")
        self.default_bucket_key = max(self.buckets)
        shape = (batch_size, self.default_bucket_key) if self.major_axis == 0 else \
            (self.default_bucket_key, batch_size)
        self.provide_data = [DataDesc(data_name, shape, layout=layout)]
        self.provide_label = [DataDesc(label_name, shape, layout=layout)]
        self.idx = [(i, j) for i, buck in enumerate(self.data)
                    for j in range(0, len(buck) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.nddata, self.ndlabel = [], []
        self.reset()

    def reset(self):
        """Shuffle the batches and the sentences inside each bucket."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata, self.ndlabel = [], []
        for buck in self.data:
            label = np.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(_nd.from_numpy(buck))
            self.ndlabel.append(_nd.from_numpy(label))

    def next(self):
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(self.data_name, data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(self.label_name, label.shape,
                                                 layout=self.layout)])

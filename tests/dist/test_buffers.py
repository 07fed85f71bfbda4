"""runtime/dist/buffers.py: a collective's result buffer is reused only when nothing
else holds it (no array, no view), and each key keeps at most two."""
from __future__ import annotations

import numpy as np

from xprof.runtime.dist.buffers import BufferPool


def test_a_buffer_is_reused_only_once_nothing_holds_it():
    pool = BufferPool()
    a = pool.take("k", 8, np.float32)
    b = pool.take("k", 8, np.float32)          # a is held (here): a second buffer
    assert b is not a
    view = b.reshape(2, 4)
    del b
    c = pool.take("k", 8, np.float32)
    assert c is not view.base                  # a view holds its buffer
    del view, c
    assert pool.take("k", 8, np.float32) is not a   # a still held by the test
    free = id(a)
    del a
    assert id(pool.take("k", 8, np.float32)) == free


def test_each_key_keeps_at_most_two_and_keys_shapes_dtypes_apart():
    pool = BufferPool()
    held = [pool.take("k", 4, np.float32) for _ in range(3)]   # the third is unpooled
    assert len({id(h) for h in held}) == 3
    del held
    first = pool.take("k", 4, np.float32)
    assert pool.take("k", 4, np.float64).dtype == np.float64
    assert pool.take("j", 4, np.float32) is not first
    assert pool.take("k", 5, np.float32).size == 5

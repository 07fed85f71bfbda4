"""mx.engine.bulk / set_bulk_size: MXNet's imperative bulk size, kept per thread and
restored; imperative ops stay one engine op (and one profile event) each."""
import threading

import numpy as np
import pytest

import xprof.runtime as mx


def test_bulk_sets_and_restores_the_size_and_results_are_unchanged():
    assert mx.engine.set_bulk_size(0) == 0
    with mx.engine.bulk(10):
        assert mx.engine.set_bulk_size(10) == 10
        x = mx.nd.ones((10,))
        x *= 2
        x += 1
        seen = []
        t = threading.Thread(target=lambda: seen.append(mx.engine.set_bulk_size(0)))
        t.start()
        t.join()
        assert seen == [0]                       # per thread
    assert mx.engine.set_bulk_size(0) == 0       # restored
    np.testing.assert_array_equal(x.asnumpy(), np.full(10, 3.0))


def test_bad_bulk_size_is_refused():
    with pytest.raises(ValueError, match="size=-1"):
        mx.engine.bulk(-1)
    with pytest.raises(ValueError, match="size='4'"):
        mx.engine.set_bulk_size("4")

"""The estimator of ``benchmarks/bench_real_overhead.py``'s steps design, on known rows:
each profiled block's median over the mean of its unprofiled neighbours' medians."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_real_overhead import BLOCK, block_ratios  # noqa: E402


def _rows(blocks):
    """[profiled, cpu, wall, block] rows of the counted steps of ``blocks`` (lists of
    per-step CPU ms), blocks alternating unprofiled / profiled from an unprofiled one."""
    return [[b % 2 == 1, cpu, 2 * cpu, b] for b, steps in enumerate(blocks) for cpu in steps]


def test_each_profiled_block_is_over_its_two_unprofiled_neighbours():
    # a machine slowing down across the run: the neighbours' mean follows it
    blocks = [[10, 10], [11.55, 11.55], [11, 11], [13.2, 13.2], [13, 13]]
    assert block_ratios(_rows(blocks)) == pytest.approx([1.1, 1.1])
    assert block_ratios(_rows(blocks), col=2) == pytest.approx([1.1, 1.1])


def test_a_blocks_figure_is_the_median_of_its_steps_and_an_unclosed_block_is_dropped():
    blocks = [[10, 10, 50], [12, 12, 12], [10, 10, 10], [99, 99]]   # (no block after the last)
    assert block_ratios(_rows(blocks)) == pytest.approx([1.2])
    assert BLOCK >= 2   # (a block's first step is not counted: at least one counted)

"""``xprof diff``'s significance test on synthetic samples with known answers.

A row is significant when the bootstrap interval of its median ratio B/A lies outside
the 10% noise floor (``cli/analysis/diff.py``). Known answers: samples of one
distribution are never significant (over many seeds); a 1.5x shift is, in both
directions; a 5% shift is not, however tight (it is under the floor); a 1.3x shift with
5 noisy calls is not (the runs' own variation explains it); fewer than 5 calls never
are; the answer does not depend on the order of the calls.
"""
import numpy as np
import pytest

from xprof.mxcli.analysis.diff import FLOOR, MIN_CALLS, parse_gate, significance


def lognormal(rng, n, median, sigma=0.2):
    return median * np.exp(rng.normal(0, sigma, n))


def test_one_distribution_is_never_significant():
    flagged = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        a, b = lognormal(rng, 200, 1e6), lognormal(rng, 200, 1e6)
        flagged += significance(a, b)[2]
    assert flagged == 0


@pytest.mark.parametrize("factor", [1.5, 1 / 1.5, 4.0])
def test_a_large_shift_is_significant(factor):
    rng = np.random.default_rng(1)
    a = lognormal(rng, 50, 1e6)
    b = lognormal(rng, 50, 1e6 * factor)
    ratio, (lo, hi), sig = significance(a, b)
    assert sig and lo <= ratio <= hi
    assert abs(np.log(ratio / factor)) < 0.15


def test_a_shift_under_the_floor_is_not_significant_however_tight():
    rng = np.random.default_rng(2)
    a = lognormal(rng, 500, 1e6, sigma=0.01)
    b = lognormal(rng, 500, 1.05e6, sigma=0.01)
    ratio, _, sig = significance(a, b)
    assert 1.03 < ratio < 1 + FLOOR and not sig     # real, but under the floor


def test_few_noisy_calls_do_not_make_a_shift_significant():
    rng = np.random.default_rng(3)
    a = lognormal(rng, MIN_CALLS, 1e6, sigma=0.6)
    b = lognormal(rng, MIN_CALLS, 1.3e6, sigma=0.6)
    assert not significance(a, b)[2]


def test_fewer_than_min_calls_are_never_significant():
    assert significance([1e6] * (MIN_CALLS - 1), [9e6] * (MIN_CALLS - 1)) == (9.0, (None, None),
                                                                            False)


def test_the_answer_does_not_depend_on_call_order():
    rng = np.random.default_rng(4)
    a, b = lognormal(rng, 80, 1e6), lognormal(rng, 80, 1.4e6)
    assert significance(a, b) == significance(a[::-1], rng.permutation(b))


@pytest.mark.parametrize("spec, parsed", [("10%", ("any", None, 0.10)),
                                          ("wall:5%", ("wall", None, 0.05)),
                                          ("op:FullyConnected:12.5%",
                                           ("op", "FullyConnected", 0.125))])
def test_gate_specs(spec, parsed):
    kind, name, frac = parse_gate(spec)
    assert (kind, name) == parsed[:2] and frac == pytest.approx(parsed[2])


@pytest.mark.parametrize("spec", ["10", "wall:", "op:x", "fast", "10%%", "wall:-5%"])
def test_bad_gate_specs_are_refused_with_the_forms(spec):
    with pytest.raises(ValueError, match="P%"):
        parse_gate(spec)


def test_a_run_wide_drift_flags_no_row_but_a_row_of_its_own_is_flagged():
    """Ten rows, every one 1.3x slower in B (the machine), one of them 3x: the drift is
    1.3, only the 3x row is significant (against 1 alone, all ten would be)."""
    from xprof.mxcli.analysis.diff import run_drift

    rng = np.random.default_rng(5)
    pairs = []
    for k in range(10):
        a = lognormal(rng, 40, 1e6 * (k + 1), sigma=0.05)
        factor = 3.0 if k == 4 else 1.3
        pairs.append((a, lognormal(rng, 40, 1e6 * (k + 1) * factor, sigma=0.05)))
    drift = run_drift(pairs)
    assert drift == pytest.approx(1.3, rel=0.05)
    flagged = [k for k, (a, b) in enumerate(pairs) if significance(a, b, drift=drift)[2]]
    assert flagged == [4]
    assert all(significance(a, b)[2] for a, b in pairs)   # without the drift: every row

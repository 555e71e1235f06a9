"""Tests for evalgate_lib.statistics.paired_tests, with expected values worked out by hand."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from evalgate_lib.statistics.paired_tests import (
    DEFAULT_SEED,
    BootstrapResult,
    compare_metric,
    mcnemar_exact,
    mcnemar_interval,
    paired_bootstrap_ci,
)

# Continuous per-question scores: diffs = candidate - baseline =
# [0.2, -0.1, 0.3, 0.0, 0.4, 0.1, -0.2, 0.3] → sum 1.0 → delta 1.0 / 8 = 0.125.
BASE = [0.1, 0.5, 0.2, 0.7, 0.3, 0.6, 0.9, 0.4]
CAND = [0.3, 0.4, 0.5, 0.7, 0.7, 0.7, 0.7, 0.7]


def test_identical_values_give_zero_delta_and_degenerate_interval() -> None:
    values = [0.2, 0.9, 0.5, 1.0, 0.0]
    result = paired_bootstrap_ci(values, list(values))
    assert result.delta == 0.0
    assert (result.low, result.high) == (0.0, 0.0)
    assert result.n == 5
    assert result.n_resamples == 10000
    assert result.seed == DEFAULT_SEED


def test_known_example_delta_and_interval() -> None:
    result = paired_bootstrap_ci(BASE, CAND, seed=7)
    assert result.delta == pytest.approx(0.125)
    # The resampled mean difference lies between min diff (-0.2) and max diff (0.4).
    assert -0.2 <= result.low <= result.delta <= result.high <= 0.4
    assert result.low < result.high


def test_interval_is_reproducible_for_a_seed_and_changes_with_it() -> None:
    first = paired_bootstrap_ci(BASE, CAND, seed=7)
    again = paired_bootstrap_ci(BASE, CAND, seed=7)
    other = paired_bootstrap_ci(BASE, CAND, seed=8)
    assert first == again
    assert other.delta == first.delta
    assert (other.low, other.high) != (first.low, first.high)


def test_two_point_example_interval_is_exact() -> None:
    # diffs [0, 1]: a resample mean is 0 (p=1/4), 0.5 (p=1/2) or 1 (p=1/4). With 10,000
    # resamples about 2,500 are 0 and 2,500 are 1, far more than the 250 in each 2.5 % tail,
    # so the 95 % percentile interval is exactly [0, 1].
    result = paired_bootstrap_ci([0.0, 0.0], [0.0, 1.0])
    assert result.delta == 0.5
    assert (result.low, result.high) == (0.0, 1.0)


def test_single_pair_interval_is_the_difference() -> None:
    result = paired_bootstrap_ci([0.25], [0.75])
    assert (result.delta, result.low, result.high, result.n) == (0.5, 0.5, 0.5, 1)


def test_nan_and_none_pairs_are_dropped() -> None:
    # Pairs 2 (None) and 4 (NaN) are dropped → remaining diffs [1, 0, 1] → delta 2/3.
    baseline = [0.0, None, 1.0, 0.0, 0.5]
    candidate = [1.0, 0.3, 1.0, 1.0, math.nan]
    result = paired_bootstrap_ci(baseline, candidate)
    assert result.n == 3
    assert result.delta == pytest.approx(2 / 3)
    assert result == paired_bootstrap_ci([0.0, 1.0, 0.0], [1.0, 1.0, 1.0])


def test_no_complete_pair_gives_nan() -> None:
    result = paired_bootstrap_ci([None, 1.0], [0.5, None])
    assert result.n == 0
    assert math.isnan(result.delta) and math.isnan(result.low) and math.isnan(result.high)


def test_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap_ci([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="equal lengths"):
        mcnemar_exact([True], [True, False])


def test_bad_parameters_are_errors() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0], [1.0], n_resamples=0)
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0], [1.0], confidence=1.0)


def test_confidence_level_widens_interval() -> None:
    narrow = paired_bootstrap_ci(BASE, CAND, confidence=0.5)
    wide = paired_bootstrap_ci(BASE, CAND, confidence=0.99)
    assert wide.low <= narrow.low <= narrow.high <= wide.high


def test_bootstrap_is_fast_enough() -> None:
    rng = np.random.default_rng(0)
    baseline = rng.random(100).tolist()
    candidate = rng.random(100).tolist()
    start = time.perf_counter()
    paired_bootstrap_ci(baseline, candidate, n_resamples=10000)
    assert time.perf_counter() - start < 0.5


def test_large_input_is_batched_deterministically() -> None:
    # 5,000 pairs x 1,000 resamples exceeds one batch; the result must still be reproducible.
    rng = np.random.default_rng(1)
    baseline = rng.random(5000).tolist()
    candidate = rng.random(5000).tolist()
    a = paired_bootstrap_ci(baseline, candidate, n_resamples=1000)
    b = paired_bootstrap_ci(baseline, candidate, n_resamples=1000)
    assert a == b
    assert a.low < a.delta < a.high


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 0, 1.0),
        (1, 9, 22 / 1024),  # 2 * P(X <= 1; n=10, p=1/2) = 2 * (1 + 10) / 1024
        (9, 1, 22 / 1024),  # symmetric
        (5, 5, 1.0),
        (0, 3, 0.25),  # 2 * (1/2)^3
    ],
)
def test_mcnemar_known_tables(b: int, c: int, expected: float) -> None:
    # Build paired outcomes with b regressions, c improvements and some concordant pairs.
    baseline = [True] * b + [False] * c + [True, False, True]
    candidate = [False] * b + [True] * c + [True, False, True]
    result = mcnemar_exact(baseline, candidate)
    assert (result.b, result.c, result.n_discordant) == (b, c, b + c)
    assert result.p_value == pytest.approx(expected, abs=1e-12)


def test_mcnemar_drops_missing_and_rejects_non_binary() -> None:
    result = mcnemar_exact([True, None, False, 1], [False, True, True, 0.0])
    assert (result.b, result.c) == (2, 1)
    with pytest.raises(ValueError, match="not a binary outcome"):
        mcnemar_exact([0.5], [1])


def test_compare_metric_binary_row() -> None:
    # b=1, c=9 plus 2 concordant trues: baseline 3/12 true, candidate 11/12 true, delta 8/12.
    baseline = [True] + [False] * 9 + [True, True]
    candidate = [False] + [True] * 9 + [True, True]
    row = compare_metric("correct", baseline, candidate, binary=True)
    assert row["metric"] == "correct"
    assert row["n"] == 12
    assert row["baseline"] == round(3 / 12, 6)
    assert row["candidate"] == round(11 / 12, 6)
    assert row["delta"] == round(8 / 12, 6)
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]
    assert row["confidence"] == 0.95
    assert (row["b"], row["c"], row["p_value"]) == (1, 9, round(22 / 1024, 6))
    # the exact McNemar interval: 10 of 12 pairs discordant, Clopper-Pearson of 9/10 mapped by 10/12
    assert row["interval"] == "exact McNemar (Clopper-Pearson)"
    assert (row["ci_low"], row["ci_high"]) == mcnemar_interval(1, 9, 12)
    keys = {"metric", "baseline", "candidate", "delta", "ci_low", "ci_high", "confidence", "n", "interval"}
    assert set(row) == keys | {"b", "c", "p_value"}
    json.dumps(row)  # JSON-friendly


def test_compare_metric_continuous_row_with_missing_values() -> None:
    baseline = [0.5, None, 0.25, 1.0]
    candidate = [0.75, 0.5, 0.25, None]
    row = compare_metric("groundedness", baseline, candidate, binary=False)
    # Only pairs 0 and 2 are complete: baseline mean 0.375, candidate mean 0.5, delta 0.125.
    assert (row["n"], row["baseline"], row["candidate"], row["delta"]) == (2, 0.375, 0.5, 0.125)
    assert "p_value" not in row
    assert row == compare_metric("groundedness", baseline, candidate, binary=False)


def test_compare_metric_without_pairs_is_json_null() -> None:
    row = compare_metric("groundedness", [None], [None], binary=False)
    assert row["n"] == 0
    assert row["delta"] is None and row["ci_low"] is None and row["baseline"] is None
    assert json.loads(json.dumps(row))["ci_high"] is None


def test_a_yes_no_metric_without_pairs_has_no_mcnemar_p() -> None:
    """No complete pair (retrieval metrics of logs without doc ids): no test was made, so p is None, not 1."""
    row = compare_metric("recall@1", [None, None], [None, None], binary=True)
    assert (row["n"], row["delta"], row["ci_low"], row["p_value"]) == (0, None, None, None)
    assert (row["b"], row["c"]) == (0, 0)
    assert compare_metric("recall@1", [True, None], [True, False], binary=True)["p_value"] == 1.0  # one pair, b = c


def test_result_type() -> None:
    assert isinstance(paired_bootstrap_ci([1.0], [1.0]), BootstrapResult)


def test_mcnemar_interval_by_hand() -> None:
    # 6 of 10 pairs moved, all up: Clopper-Pearson lower bound of 6/6 solves pi^6 = 0.025, pi = 0.025^(1/6) = 0.540742;
    # mapped through the discordant share 6/10: 0.6 * (2 * 0.540742 - 1) = 0.048890; upper 0.6 * (2 * 1 - 1) = 0.6.
    # McNemar p = 2 * 0.5^6 = 0.03125 < 0.05, and the interval excludes 0.
    low, high = mcnemar_interval(0, 6, 10)
    assert low == pytest.approx(0.6 * (2 * 0.025 ** (1 / 6) - 1), abs=1e-6) and low == pytest.approx(0.04889, abs=1e-5)
    assert high == 0.6
    # 5 of 10, all up: 0.025^(1/5) = 0.478176 -> 0.5 * (2 * 0.478176 - 1) = -0.021824; p = 0.0625, 0 inside.
    low, high = mcnemar_interval(0, 5, 10)
    assert low == pytest.approx(-0.021824, abs=1e-6) and high == 0.5
    # one pair, one regression: the upper bound of 0/1 solves (1 - pi) = 0.025: [-1, 2 * 0.975 - 1] = [-1, 0.95]
    assert mcnemar_interval(1, 0, 1) == (-1.0, pytest.approx(0.95))
    assert mcnemar_interval(0, 0, 7) == (0.0, 0.0)  # nothing moved
    with pytest.raises(ValueError, match="b \\+ c <= n"):
        mcnemar_interval(3, 3, 5)


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_mcnemar_interval_excludes_zero_exactly_when_mcnemar_p_is_below_alpha(confidence: float) -> None:
    """Over every (b, c, n) with n up to 24: the interval excludes 0 iff McNemar's exact p < 1 - confidence,
    holds the observed delta, and stays inside [-1, 1] (the p-value recomputed with SciPy, not taken from the code)."""
    from scipy.stats import binomtest

    alpha = round(1 - confidence, 12)
    checked = 0
    for n in range(1, 25):
        for b in range(n + 1):
            for c in range(n + 1 - b):
                low, high = mcnemar_interval(b, c, n, confidence)
                p = 1.0 if b + c == 0 else round(min(1.0, binomtest(c, b + c, 0.5).pvalue), 6)
                assert (low > 0 or high < 0) == (p < alpha), (b, c, n, low, high, p)
                assert -1.0 <= low <= (c - b) / n + 1e-6 and (c - b) / n - 1e-6 <= high <= 1.0
                checked += 1
    assert checked == sum((n + 1) * (n + 2) // 2 for n in range(1, 25))

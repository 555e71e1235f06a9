"""The bootstrap of a plan's corrected delta: its interval and p read the same replicates, so they agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalgate_lib.statistics.label_bootstrap import bootstrap_interval, bootstrap_replicates, plan_figure
from evalgate_lib.statistics.label_estimates import StratumValues, corrected_delta, paired_values

TWENTY = [-0.1] + [round(0.1 * i, 1) for i in range(1, 20)]  # one replicate at or below 0, nineteen above


def test_interval_and_p_by_hand() -> None:
    # 90 %: k = ceil(0.1 * 20 / 2) = 1, the extremes; p = 2 * min(1, 19) / 20 = 0.1, not below 0.1: 0 inside
    wide = bootstrap_interval(TWENTY, 0.9)
    assert (wide.ci_low, wide.ci_high, wide.p_value) == (-0.1, 1.9, 0.1)
    # 80 %: k = 2, the second smallest (0.1) and second largest (1.8); p = 0.1 < 0.2: 0 outside
    narrow = bootstrap_interval(TWENTY, 0.8)
    assert (narrow.ci_low, narrow.ci_high, narrow.p_value) == (0.1, 1.8, 0.1)
    assert bootstrap_interval(TWENTY, 0.8, scale=10).ci_high == 18.0  # a count: the rate times its population


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_interval_excludes_zero_exactly_when_p_is_below_alpha(confidence: float) -> None:
    rng = np.random.default_rng(1)
    for shift in np.linspace(-0.3, 0.3, 25):
        values = np.sort(np.round(rng.normal(shift, 0.1, 400), 2))
        fig = bootstrap_interval(values, confidence)
        assert (fig.ci_low > 0 or fig.ci_high < 0) == (fig.p_value < round(1 - confidence, 9))


def test_a_census_stratum_of_equal_values_has_no_spread() -> None:
    # every question labelled, every value 1: each replicate is 1
    reps = bootstrap_replicates([StratumValues((1.0, 1.0, 1.0), ((1.0, 1.0), (1.0, 1.0), (1.0, 1.0)))], power=1.0)
    assert reps is not None and set(reps.tolist()) == {1.0}


def test_labels_alone_weight_the_labelled_questions_by_the_stratum() -> None:
    # λ = 0: N_h / m_h * Σ y = 4 / 2 * 2 over 4 members = 1, whatever the resample
    stratum = StratumValues((1.0, 0.0, 0.0, 1.0), ((1.0, 1.0), (0.0, 1.0)))
    reps = bootstrap_replicates([stratum], power=0.0)
    assert reps is not None and set(reps.tolist()) == {1.0}


def test_a_stratum_with_one_label_and_unlabelled_questions_cannot_be_resampled() -> None:
    assert bootstrap_replicates([StratumValues((1.0, 0.0, 1.0), ((1.0, 1.0),))], power=1.0) is None


def test_centred_on_the_estimate_at_its_weight() -> None:
    """The replicates' median sits near the PPI++ estimate they are drawn for (the same λ, the same design)."""
    rng = np.random.default_rng(3)
    judge = {c: rng.random(40) < p for c, p in (("base", 0.75), ("cand", 0.6))}
    truth = {c: np.where(rng.random(40) < 0.1, ~judge[c], judge[c]) for c in judge}  # the judge errs on ~10 %
    labelled = rng.permutation(40)[:12]

    def strata(c: str) -> list[StratumValues]:
        pairs = tuple((float(judge[c][i]), float(truth[c][i])) for i in labelled)
        return [StratumValues(tuple(float(v) for v in judge[c]), pairs)]

    est = corrected_delta(strata("base"), strata("cand"))
    reps = bootstrap_replicates(paired_values(strata("base"), strata("cand")), est.power)
    assert reps is not None and abs(float(np.median(reps)) - est.estimate) < 0.05


def test_plan_figure_is_the_hull_and_the_larger_p() -> None:
    # bootstrap at 80 %: [0.1, 1.8], p 0.1; t: 0.5 ± z(0.9) · 0.2 = [0.243690, 0.756310], p = 2 · sf(2.5) = 0.012419
    # both ends kept inside a delta's range [-1, 1]: the bootstrap's 1.8 prints as 1.0
    fig = plan_figure(TWENTY, 0.5, 0.2, math.inf, 0.8)
    assert (fig.ci_low, fig.ci_high) == (0.1, 1.0) and fig.p_value == 0.1
    wide = plan_figure(TWENTY, 0.5, 1.0, math.inf, 0.8)  # t: 0.5 ± 1.281552 = [-0.781552, 1.0] (kept in [-1, 1])
    assert (wide.ci_low, wide.ci_high) == (-0.781552, 1.0) and wide.p_value == pytest.approx(0.617075, abs=1e-6)
    alone = plan_figure(TWENTY, 0.5, None, math.inf, 0.8)  # no t: the bootstrap's [0.1, 1.8], kept in range
    assert (alone.ci_low, alone.ci_high, alone.p_value) == (0.1, 1.0, bootstrap_interval(TWENTY, 0.8).p_value)
    counted = plan_figure(TWENTY, 0.5, None, math.inf, 0.8, scale=2)  # a count of 2 answers: [0.2, 3.6] → [0.2, 2]
    assert (counted.ci_low, counted.ci_high) == (0.2, 2)


def test_p_against_a_limit_reads_the_same_replicates() -> None:
    """Issue 53: the gate tests a plan's delta against the rule's limit, not 0, with the same hull."""
    # TWENTY against 0.25: #{θ* ≤ 0.25} = 3 (-0.1, 0.1, 0.2), #{θ* ≥ 0.25} = 17: p = 2 · 3 / 20 = 0.3
    assert bootstrap_interval(TWENTY, 0.8, null=0.25).p_value == 0.3
    # against 0.05 (between -0.1 and 0.1): 1 at or below, p = 2 · 1 / 20 = 0.1 < 0.2, and [0.1, 1.8] excludes 0.05
    assert bootstrap_interval(TWENTY, 0.8, null=0.05).p_value == 0.1
    # against 0.3: the bootstrap's p = 2 · 4 / 20 = 0.4 (-0.1, 0.1, 0.2, 0.3 at or below); the t side, 0.5 with
    # se 0.2: 2 · sf(1.0) = 0.317311, with se 0.5: 2 · sf(0.4) = 0.689157; the hull's p is the larger
    fig = plan_figure(TWENTY, 0.5, 0.2, math.inf, 0.8, null=0.3)
    assert fig.p_value == 0.4 and (fig.ci_low, fig.ci_high) == (0.1, 1.0)
    assert plan_figure(TWENTY, 0.5, 0.5, math.inf, 0.8, null=0.3).p_value == pytest.approx(0.689157, abs=1e-6)

"""The stratified prediction-powered estimates, on hand-computed values (no model, no file).

Design used throughout, two strata of unequal inclusion probability:

* stratum A (a census, inclusion probability 1): 2 questions, both labelled;
* stratum B (inclusion probability 1/2): 4 questions, 2 labelled.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import t as student_t

from evalgate_lib.statistics.label_estimates import StratumValues, corrected_delta, corrected_rate


def t975(df: float) -> float:
    """Student's t quantile at 0.975 (the interval's; degrees of freedom computed by hand in each test)."""
    return float(student_t.ppf(0.975, df))


# judge f over every question; the labelled questions' (f, y)
A = StratumValues(judge=(1.0, 0.0), labelled=((1.0, 0.0), (0.0, 0.0)))
B = StratumValues(judge=(1.0, 1.0, 0.0, 1.0), labelled=((1.0, 1.0), (0.0, 1.0)))


def test_two_strata_unequal_probabilities_by_hand() -> None:
    # Σf = 4; rectifier: A (weight 1) −1 + 0 = −1; B (weight 4/2 = 2) 2·(0 + 1) = 2; θ = (4 + 1)/6 = 5/6
    # label variance: A is a census (0); B: y − f = (0, 1), s² = 0.5, 4²·(1 − 2/4)·0.5/2 = 2; / 6² = 1/18
    # second moment: Σf² = 4, rectifier of y² − f²: A −1, B 2·1 = 2, so E[y²] = 5/6 and
    #   S² = (5/6 − 25/36)·6/5 = 1/6, question variance = S²/6 = 1/36
    # degrees of freedom (Satterthwaite): label sampling alone m_B − 1 = 1; with question sampling (df N − 1 = 5)
    #   (1/18 + 1/36)² / ((1/18)²/1 + (1/36)²/5) = 45/21
    est = corrected_rate([A, B], tuned=False)
    assert est.estimate == round(5 / 6, 6)
    assert est.label_se == round(math.sqrt(1 / 18), 6)
    assert est.question_se == round(1 / 6, 6)
    se = math.sqrt(1 / 18 + 1 / 36)
    # a rate's interval stays in [0, 1]: 5/6 ± 4.04·0.289 would be [-0.33, 2.00]
    assert est.ci_low == max(0.0, round(5 / 6 - t975(45 / 21) * se, 6)) == 0.0
    assert est.ci_high == min(1.0, round(5 / 6 + t975(45 / 21) * se, 6)) == 1.0
    assert est.label_low == max(0.0, round(5 / 6 - t975(1) * math.sqrt(1 / 18), 6))
    assert est.judge_only == round(4 / 6, 6)
    # labels alone: A 0 + 0, B 2·(1 + 1) = 4, so 4/6; B's labels are both 1, sample variance 0, but B holds
    # questions not drawn: the floor q(1 − q), q = 0.5/(2 + 1) = 1/6, is 5/36 (the mean-square floor
    # (2 + 0.5)/3 − 1 is below 0): label variance 4²·(1/2)·(5/36)/2 / 6² = 5/324, question 1/36 = 9/324;
    # df (14/324)² / ((5/324)²/1 + (9/324)²/5) = 196/41.2
    assert est.labels_only == round(4 / 6, 6)
    assert est.labels_only_label_se == round(math.sqrt(5 / 324), 6)
    assert est.labels_only_low == round(4 / 6 - t975(196 / 41.2) * math.sqrt(14 / 324), 6)
    assert (est.n_labelled, est.n_population, est.census) == (4, 6, False)


def test_a_census_has_no_label_sampling_error_and_is_the_labels_mean() -> None:
    full = StratumValues(judge=(1.0, 0.0, 1.0), labelled=((1.0, 1.0), (0.0, 0.0), (1.0, 0.0)))
    est = corrected_rate([full])
    assert est.estimate == round(1 / 3, 6) == est.labels_only  # the labels (1, 0, 0), whatever the judge said
    assert est.label_se == 0.0 and est.census
    # S² of y = (1, 0, 0) is 1/3, so the question variance is 1/9
    assert est.question_se == round(1 / 3, 6)


def test_paired_delta_by_hand() -> None:
    # candidate: A judge (1, 1), labels (1, 0); B judge (1, 0, 0, 1), labelled (1, 1), (0, 0)
    cand_a = StratumValues(judge=(1.0, 1.0), labelled=((1.0, 1.0), (1.0, 0.0)))
    cand_b = StratumValues(judge=(1.0, 0.0, 0.0, 1.0), labelled=((1.0, 1.0), (0.0, 0.0)))
    # per-question differences (cand − base): judge A (0, 1), B (0, −1, 0, 0): Σ = 0
    #   labelled A: f (0, 1), y (1, 0), d = y − f = (1, −1); B: f (0, 0), y (0, −1), d = (0, −1)
    #   rectifier: A 1·0 = 0; B 2·(−1) = −2 → delta = −2/6 = −1/3
    #   label variance: A census; B s² of (0, −1) = 0.5: 16·(1/2)·0.5/2 = 2, / 36 = 1/18
    #   second moment: Σf² = 2; y² − f²: A (1, −1) → 0, B (0, 1) → 2; E[y²] = 4/6,
    #   S² = (4/6 − 1/9)·6/5 = 2/3, question variance 1/9
    est = corrected_delta([A, B], [cand_a, cand_b], tuned=False)
    assert est.estimate == round(-1 / 3, 6)
    assert est.label_se == round(math.sqrt(1 / 18), 6)
    assert est.question_se == round(1 / 3, 6)
    # df: (1/18 + 1/9)² / ((1/18)²/1 + (1/9)²/5) = 5
    se = math.sqrt(1 / 18 + 1 / 9)
    assert est.ci_low == max(-1.0, round(-1 / 3 - t975(5) * se, 6)) == -1.0  # a delta of rates stays in [-1, 1]
    assert est.ci_high == round(-1 / 3 + t975(5) * se, 6)
    assert est.p_value == round(2 * float(student_t.sf((1 / 3) / se, 5)), 6)
    assert est.judge_only == 0.0
    # the delta is the rate estimate of the differences: its point is the difference of the two rates
    base, cand = corrected_rate([A, B], tuned=False), corrected_rate([cand_a, cand_b], tuned=False)
    assert est.estimate == round(cand.estimate - base.estimate, 6)


def test_paired_delta_label_variance_uses_differences() -> None:
    base = StratumValues(judge=(0.0, 0.0, 0.0, 0.0), labelled=((0.0, 0.0), (0.0, 1.0)))
    cand = StratumValues(judge=(1.0, 1.0, 1.0, 1.0), labelled=((1.0, 1.0), (1.0, 1.0)))
    # differences: f = 1 everywhere; labelled y = (1, 0); d = (0, −1): rectifier 2·(−1) = −2; θ = (4 − 2)/4 = 0.5
    # label variance: s² of d = 0.5, 16·(1/2)·0.5/2 = 2, /16 = 1/8
    est = corrected_delta([base], [cand])
    assert est.estimate == 0.5
    assert est.label_se == round(math.sqrt(1 / 8), 6)


def test_questions_outside_the_population_count_in_their_stratum_only() -> None:
    # stratum of 4 with one no-answer question (None); 2 labelled, one of them the no-answer question
    s = StratumValues(judge=(1.0, None, 0.0, 1.0), labelled=((1.0, 0.0), (None, None)))
    # population N = 3; Σf = 2; d over the 2 labelled: (−1, 0 outside): rectifier 4/2·(−1) = −2; θ = 0
    # label variance: s² of (−1, 0) = 0.5; 16·0.5·0.5/2 = 2; / 3² = 2/9
    est = corrected_rate([s], tuned=False)
    assert est.estimate == 0.0
    assert est.label_se == round(math.sqrt(2 / 9), 6)
    assert (est.n_labelled, est.n_population) == (1, 3)


def test_the_variance_floor_when_every_sampled_label_agrees_with_the_judge() -> None:
    # 10 questions, 4 labelled, judge right on all 4 (y − f = 0): the sample variance is 0, the floor
    # (0 + 0.5)/(4 + 1) − 0 = 0.1: label variance 10²·(1 − 4/10)·0.1/4 / 10² = 0.015
    s = StratumValues(judge=(1.0,) * 10, labelled=((1.0, 1.0),) * 4)
    est = corrected_rate([s], tuned=False)
    assert est.estimate == 1.0
    assert est.label_se == round(math.sqrt(0.015), 6)
    # the judge wrong on all 4 the same way (y − f = 1 each): the mean-square floor (4 + 0.5)/5 − 1 is below 0;
    # the step floor q(1 − q), q = 0.5/5, is 0.09: label variance 10²·0.6·0.09/4 / 10² = 0.0135
    s = StratumValues(judge=(0.0,) * 10, labelled=((0.0, 1.0),) * 4)
    assert corrected_rate([s], tuned=False).label_se == round(math.sqrt(0.0135), 6)


def test_no_floor_where_every_unlabelled_question_is_outside_the_population() -> None:
    # refusal accuracy's view of a plan: stratum A holds 6 answerable questions (outside the population, None),
    # 2 labelled; stratum B the 5 no-answer questions, 3 labelled, the judge right on all 3 (y − f = 0).
    # A's unlabelled questions add 0, known without a label: no floor there, its variance is the sample's, 0.
    # B holds 2 unlabelled no-answer questions: floored, (0 + 0.5)/(3 + 1) − 0 = 1/8 (the step floor
    # q(1 − q), q = 1/8, is 7/64, smaller): label variance 5²·(1 − 3/5)·(1/8)/3 / 5² = 1/60.
    # Floored as before, A would add 6²·(1 − 2/6)·(0.5/3)/2 / 5² = 2/25 and more than double the variance.
    a = StratumValues(judge=(None,) * 6, labelled=((None, None),) * 2)
    b = StratumValues(judge=(1.0,) * 5, labelled=((1.0, 1.0),) * 3)
    est = corrected_rate([a, b], tuned=False)
    assert est.estimate == 1.0
    assert est.label_se == round(math.sqrt(1 / 60), 6)
    # every no-answer question labelled too (B a census, A's labelled ones none of the population): no label variance
    b_all = StratumValues(judge=(1.0,) * 5, labelled=((1.0, 1.0),) * 5)
    assert corrected_rate([a, b_all], tuned=False).label_se == 0.0
    # a stratum mixing both keeps its floor: one unlabelled question is of the population
    mixed = StratumValues(judge=(None, None, 1.0, 1.0), labelled=((None, None), (1.0, 1.0)))
    # (0 + 0.5)/3 − 0 = 1/6 (the step floor 5/36 is smaller); 4²·(1 − 2/4)·(1/6)/2 / 2² = 1/6 (population N = 2)
    assert corrected_rate([mixed], tuned=False).label_se == round(math.sqrt(1 / 6), 6)


def test_power_tuning_weighs_the_judge_by_its_covariance_with_the_labels() -> None:
    from evalgate_lib.statistics.label_estimates import POWER_GRID, power_tuning

    # one stratum of 4, 3 labelled: f (1, 0, 1), y (1, 0, 0): cov = 1/3·... sample cov(f, y) = 1/6, var(f) = 1/3
    s = StratumValues(judge=(1.0, 0.0, 1.0, 0.0), labelled=((1.0, 1.0), (0.0, 0.0), (1.0, 0.0)))
    assert power_tuning([s]) == pytest.approx(0.5)
    # at weight λ: (λ·Σf + 4/3·Σ(y − λf))/4 = (2λ + 4/3·(1 − 2λ))/4 = 1/3 − λ/6
    plain = corrected_rate([s], tuned=False)
    assert plain.estimate == round(1 / 3 - 1 / 6, 6) and plain.power == 1.0
    tuned = corrected_rate([s])  # the default: the narrowest interval of λ in {0, 0.05, ..., 1} and PPI++'s λ
    assert tuned.power in {*POWER_GRID, 0.5}
    assert tuned.estimate == pytest.approx(1 / 3 - tuned.power / 6, abs=1e-6)
    width = tuned.ci_high - tuned.ci_low
    assert width <= plain.ci_high - plain.ci_low + 1e-9
    assert width <= tuned.labels_only_high - tuned.labels_only_low + 1e-9  # never wider than the labels alone (λ = 0)
    assert tuned.labels_only == round(4 / 3 * 1 / 4, 6)  # labels alone: 4/3·(1 + 0 + 0)/4


def test_the_corrected_interval_is_never_wider_than_labels_alone_and_stays_in_range() -> None:
    """Why 6 and 9: over random plans, the corrected interval is at most the labels-only width, inside [-1, 1]."""
    rng = np.random.default_rng(47)
    for _ in range(300):
        n, m = int(rng.integers(6, 30)), 0
        m = int(rng.integers(2, n + 1))
        f = rng.integers(-1, 2, size=n).astype(float)
        y = np.where(rng.random(n) < 0.7, f, rng.integers(-1, 2, size=n)).astype(float)
        drawn = rng.permutation(n)[:m]
        est = corrected_rate([StratumValues(tuple(f), tuple((f[i], y[i]) for i in drawn))])
        if est.ci_low is None:
            continue
        est = corrected_delta(
            [StratumValues(tuple(0.0 for _ in f), tuple((0.0, 0.0) for _ in drawn))],
            [StratumValues(tuple(f), tuple((f[i], y[i]) for i in drawn))],
        )
        assert est.ci_high - est.ci_low <= est.labels_only_high - est.labels_only_low + 1e-6
        assert -1.0 <= est.ci_low <= est.ci_high <= 1.0


def test_one_label_in_a_sampled_stratum_gives_no_interval() -> None:
    est = corrected_rate([StratumValues(judge=(1.0, 0.0, 1.0), labelled=((1.0, 1.0),))])
    assert est.estimate == round(2 / 3, 6) and est.ci_low is None and est.p_value is None


@pytest.mark.parametrize(
    "strata, message",
    [
        ([StratumValues(judge=(1.0,), labelled=())], "no labelled question"),
        ([StratumValues(judge=(1.0,), labelled=((1.0, 1.0), (1.0, 1.0)))], "2 labelled questions of 1"),
        ([StratumValues(judge=(1.0,), labelled=((1.0, None),))], "disagree on membership"),
        ([StratumValues(judge=(None,), labelled=((None, None),))], "no question of the population"),
    ],
)
def test_refused_inputs(strata: list[StratumValues], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        corrected_rate(strata)


def _ppi_py():  # noqa: ANN202 - the module
    """ppi_py from ``<venv>/ppi-py``, where scripts/install.sh puts it off sys.path (its wheel ships a ``tests``
    package that would shadow this repository's); added to sys.path only for the import."""
    folder = Path(sys.prefix) / "ppi-py"
    if not (folder / "ppi_py").is_dir():
        pytest.skip(f"ppi-python is not installed in {folder} (scripts/install.sh puts it there)")
    sys.path.append(str(folder))
    try:
        return importlib.import_module("ppi_py")
    finally:
        sys.path.remove(str(folder))


def test_agrees_with_ppi_py_on_the_point_estimate() -> None:
    """ppi_py (the method's authors' package) computes the same point estimate; its interval answers
    another design (labelled and unlabelled sets drawn independently), documented in docs/methodology.md."""
    ppi_py = _ppi_py()
    rng = np.random.default_rng(5)
    f = rng.integers(0, 2, size=60).astype(float)
    y = np.where(rng.random(60) < 0.8, f, 1 - f)
    # a uniform sample: one stratum
    idx = rng.permutation(60)[:15]
    est = corrected_rate([StratumValues(tuple(f), tuple((f[i], y[i]) for i in idx))], tuned=False)
    theirs = ppi_py.ppi_mean_pointestimate(y[idx], f[idx], f, lam=1)
    assert est.estimate == pytest.approx(float(np.squeeze(theirs)), abs=1e-6)
    # two strata, inverse-inclusion-probability weights (ppi_py normalises w to sum to n, a weighted mean)
    first, second = np.arange(20), np.arange(20, 60)
    take_a, take_b = first[rng.permutation(20)[:10]], second[rng.permutation(40)[:5]]
    strata = [
        StratumValues(tuple(f[first]), tuple((f[i], y[i]) for i in take_a)),
        StratumValues(tuple(f[second]), tuple((f[i], y[i]) for i in take_b)),
    ]
    sample = np.concatenate([take_a, take_b])
    weights = np.array([20 / 10] * 10 + [40 / 5] * 5)
    theirs = ppi_py.ppi_mean_pointestimate(y[sample], f[sample], f, lam=1, w=weights)
    assert corrected_rate(strata, tuned=False).estimate == pytest.approx(float(np.squeeze(theirs)), abs=1e-6)

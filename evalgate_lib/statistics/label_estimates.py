"""Rates and paired deltas corrected by a reviewer's labels drawn by a stratified sampling plan.

The judge gives a verdict ``f`` on every one of the N questions of a population (the answerable
questions, for accuracy on answerable questions); a reviewer labels a few, drawn by a plan
(:mod:`evalgate_lib.statistics.sampling_plan`) in strata with known inclusion probabilities, and
gives the reference ``y`` on those. The estimate of the mean of ``y`` over the N questions is the
prediction-powered (Angelopoulos et al. 2023) estimate with inverse-inclusion-probability
(Horvitz–Thompson) weights, which survey sampling calls the *difference estimator*; with PPI++'s
judge weight λ (Angelopoulos, Duchi and Zrnic 2023)::

    θ̂(λ) = ( λ Σ_pop f  +  Σ_h (N_h / m_h) Σ_{labelled in h} (y − λ f) ) / N

``h`` is a stratum of the plan, ``N_h`` **every** question of the stratum and ``m_h`` **every**
labelled question of it, whatever their type: the plan drew its questions from the whole stratum,
so each label stands for ``N_h / m_h`` questions of it. A labelled question outside the population
contributes 0 to the sums (``y − λ f`` is taken as 0 there); the total is divided by N, the size of
the population. (Counting ``N_h`` and ``m_h`` over the population's questions alone is another
estimator, which the plan's inclusion probabilities do not describe.)

For any fixed λ the estimate is unbiased for the all-labels value, because the labelled questions
of each stratum are a simple random sample of it. λ = 0 is the labels alone (the *classical*
estimate), λ = 1 plain PPI. The weight used is the one that gives the **narrowest interval** among
λ ∈ {0, 0.05, …, 1} and PPI++'s closed-form λ (:func:`power_tuning`); because λ = 0 is among them,
the corrected interval is never wider than the labels-only interval of the same plan. Choosing λ
on the labels costs coverage in principle; ``bench/label_budget.py`` measures it.

Two variances, both estimated, add up in the interval:

* **label sampling** (which questions were labelled; zero for a fully labelled stratum)::

      V_label(λ) = Σ_h N_h² (1 − m_h / N_h) s_h² / m_h  /  N²     (s_h²: sample variance of y − λ f in h)

  the stratified-sampling variance without replacement (a census stratum contributes nothing; the
  imputed term λ Σ f has no sampling error: it is known for every question); ``s_h²`` is floored
  for a stratum whose labels all agree with the judge and which holds an unlabelled question of the
  population (:func:`_spread`; outside the population every value is 0, known without a label);
* **question sampling** (the gold questions are a sample of the questions the system will meet),
  ``V_question = S_y² / N``, with the variance of ``y`` over the N questions estimated by the
  difference estimator (its mean and second moment, λ = 1): the noise McNemar's test measures
  for the judge's own delta. It does not depend on λ.

The 95 % interval is ``θ̂ ± t · sqrt(V_label + V_question)``, Student's t with Satterthwaite's degrees
of freedom (each stratum's term with ``m_h − 1``, the question term with ``N − 1``), kept inside the
figure's range ([0, 1] for a rate, [−1, 1] for a delta of rates); its two-sided t p-value against 0
is reported with it. This is the corrected *estimate*: whether a plan's labels decide a gate rule is
:mod:`evalgate_lib.statistics.label_bounds`' exact test, which holds its level at any budget.

A *paired* delta is the same estimate on per-question differences ``y = y_cand − y_base`` and
``f = f_cand − f_base``: the plan draws both configs' answers of a question together, so the
question is the sampling unit and the pairing is kept (the variance of the difference, not the
sum of two variances).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from scipy.stats import norm
from scipy.stats import t as student_t

from evalgate_lib.statistics.paired_tests import DEFAULT_CONFIDENCE

#: Whether the judge's weight λ is tuned by default (the narrowest interval of λ ∈ [0, 1]), or 1 (plain PPI).
POWER_TUNED = True

#: One labelled question: (judge's value, reviewer's value); both ``None`` outside the population.
LabelledValue = tuple[float | None, float | None]


@dataclass(frozen=True)
class StratumValues:
    """One stratum of a plan, for one estimate.

    ``judge``: the judge's value of every question of the stratum (``N_h`` of them), ``None`` for a
    question outside the estimate's population. ``labelled``: ``(judge, reviewer)`` of the ``m_h``
    questions labelled under the plan, which must be a simple random sample of the stratum (the
    plan's drawing order, labelled from its start).
    """

    judge: tuple[float | None, ...]
    labelled: tuple[LabelledValue, ...]


@dataclass(frozen=True)
class CorrectedEstimate:
    """A rate (or a paired delta) corrected by labels, with the two figures it is built from.

    ``judge_only``: the judge's verdicts alone over the population (biased by its errors);
    ``labels_only``: the labels alone, weighted by the plan (unbiased, noisier) with its own interval
    (``labels_only_low``/``labels_only_high``, the *classical* interval at the same budget).
    ``labels_only_label_se`` its label-sampling part alone. ``label_se`` and ``question_se`` are the two
    standard errors (see the module docstring);
    ``label_low``/``label_high`` the interval from label sampling alone: how far the estimate may be
    from the all-labels value on these very questions. ``census``: every question of the
    population is labelled (``label_se`` is 0). Intervals are ``None`` when a stratum has a single
    label and more than one question (no variance from one value). Floats rounded to 6 places.
    """

    estimate: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    label_se: float | None
    question_se: float | None
    label_low: float | None
    label_high: float | None
    judge_only: float
    labels_only: float
    labels_only_low: float | None
    labels_only_high: float | None
    labels_only_label_se: float | None
    labels_only_label_half: float | None
    n_labelled: int
    n_population: int
    census: bool
    power: float = 1.0
    confidence: float = DEFAULT_CONFIDENCE
    #: The t interval's standard error (label and question sampling, floored) and Satterthwaite's degrees of
    #: freedom: what the gate widens a plan's bootstrap interval with (``label_bootstrap.plan_figure``).
    total_se: float | None = None
    total_df: float = math.inf


def _round(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 6)


def _check(strata: Sequence[StratumValues]) -> None:
    for i, stratum in enumerate(strata):
        n_h, m_h = len(stratum.judge), len(stratum.labelled)
        if m_h > n_h:
            raise ValueError(f"stratum {i}: {m_h} labelled questions of {n_h}")
        for j, (f, y) in enumerate(stratum.labelled):
            if (f is None) != (y is None):
                raise ValueError(
                    f"stratum {i}, labelled question {j}: judge {f!r} and reviewer {y!r} disagree on membership"
                )
        if m_h == 0 and any(f is not None for f in stratum.judge):
            raise ValueError(f"stratum {i}: no labelled question, so its judge's error cannot be measured")


@dataclass(frozen=True)
class _Total:
    """A weighted total over the labelled questions, its stratified variance, and the variance's degrees of freedom.

    ``df_terms`` is ``Σ_h a_h² / (m_h − 1)`` over the sampled strata (``a_h`` a stratum's variance
    term): Satterthwaite's degrees of freedom of the variance are ``variance² / df_terms``.
    """

    total: float
    variance: float | None
    df_terms: float


def _weighted_total(strata: Sequence[StratumValues], value: Callable[[float, float], float]) -> _Total:
    """Σ_h (N_h/m_h) Σ_labelled z and its stratified variance, for z = ``value(f, y)`` (0 outside the population)."""
    total, variance, df_terms = 0.0, 0.0, 0.0
    defined = True
    for stratum in strata:
        n_h, m_h = len(stratum.judge), len(stratum.labelled)
        if m_h == 0:
            continue
        z = [0.0 if f is None or y is None else value(f, y) for f, y in stratum.labelled]
        total += n_h / m_h * sum(z)
        if m_h < n_h:
            if m_h < 2:
                defined = False
                continue
            # an unlabelled question of the population: a value the labels may not have met (else each is 0, known)
            unseen = sum(f is not None for f in stratum.judge) > sum(f is not None for f, _ in stratum.labelled)
            term = n_h * n_h * (1.0 - m_h / n_h) * _spread(z, unseen) / m_h
            variance += term
            df_terms += term * term / (m_h - 1)
    return _Total(total, variance if defined else None, df_terms)


def _degrees(parts: Sequence[tuple[float, float]]) -> float:
    """Satterthwaite's degrees of freedom of a sum of variances, each given as ``(variance, Σ a² / df)``."""
    variance = sum(v for v, _ in parts)
    terms = sum(t for _, t in parts)
    return math.inf if terms <= 0 else variance * variance / terms


def power_tuning(strata: Sequence[StratumValues]) -> float:
    """PPI++'s λ for a stratified design: the weight of the judge that minimises the label-sampling variance.

    ``λ = Σ_h c_h cov_h(y, f) / Σ_h c_h var_h(f)`` with ``c_h = N_h² (1 − m_h/N_h) / m_h`` and the
    labelled questions' sample (co)variances (0 outside the population), clipped to [0, 1]; 1 (plain
    PPI) when no sampled stratum has two labels or the judge is constant on them.
    """
    num = den = 0.0
    for stratum in strata:
        n_h, m_h = len(stratum.judge), len(stratum.labelled)
        if m_h < 2 or m_h >= n_h:
            continue
        pairs = [(0.0, 0.0) if f is None or y is None else (f, y) for f, y in stratum.labelled]
        mf = sum(f for f, _ in pairs) / m_h
        my = sum(y for _, y in pairs) / m_h
        c = n_h * n_h * (1.0 - m_h / n_h) / m_h
        num += c * sum((f - mf) * (y - my) for f, y in pairs) / (m_h - 1)
        den += c * sum((f - mf) ** 2 for f, _ in pairs) / (m_h - 1)
    return 1.0 if den <= 0 else min(1.0, max(0.0, num / den))


#: Pseudo-count of the variance floor (Jeffreys' prior on the rate of non-zero values: half an observation).
FLOOR_PSEUDO_COUNT = 0.5


def _spread(z: Sequence[float], unseen: bool = True) -> float:
    """A stratum's variance of ``z``: the sample variance, floored for a few labels that all agree.

    When every labelled question of a stratum gives the same value (the judge right on all of them,
    ``y − f`` all 0; or, for the labels alone, every label 1), the sample variance is 0 although the
    stratum may hold other values it did not draw, and a zero-width interval would miss. Two floors,
    each half a pseudo-observation (Jeffreys' prior): the smoothed mean square
    ``(Σ z² + 0.5) / (m + 1) − mean²`` (a rare non-zero value), and ``q (1 − q)`` with
    ``q = 0.5 / (m + 1)``, the variance of a value one step away from the rest whatever the rest is
    (the metrics here move in steps of 1). Both are negligible once the sample varies.

    ``unseen`` False: the stratum holds no unlabelled question of the population (every one of them is
    labelled, or it has none, as a stratum of answerable questions has for refusal accuracy). Its
    unlabelled questions then add exactly 0 to the estimate, a value known without a label, so there is
    no value the sample could have missed and no floor: the sample variance alone (0 when the labels all
    agree). A floor there would widen the interval by the judge's errors on questions the rule does not
    count.
    """
    m = len(z)
    mean = sum(z) / m
    sample = sum((v - mean) ** 2 for v in z) / (m - 1)
    if not unseen:
        return sample
    smoothed = (sum(v * v for v in z) + FLOOR_PSEUDO_COUNT) / (m + 1) - mean * mean
    q = FLOOR_PSEUDO_COUNT / (m + 1)
    return max(sample, smoothed, q * (1 - q))


def _interval(
    estimate: float, se: float | None, confidence: float, df: float, bounds: tuple[float, float] = (-math.inf, math.inf)
) -> tuple[float | None, float | None]:
    """``estimate ± t · se``, Student's t with ``df`` degrees of freedom (the normal quantile for ``df`` = ∞), kept
    inside ``bounds``, the range the figure can take (a rate never leaves [0, 1], a delta of rates [−1, 1])."""
    if se is None:
        return None, None
    half = _quantile(confidence, df) * se
    return _round(max(bounds[0], estimate - half)), _round(min(bounds[1], estimate + half))


def _quantile(confidence: float, df: float) -> float:
    q = (1.0 + confidence) / 2.0
    return float(norm.ppf(q)) if math.isinf(df) else float(student_t.ppf(q, df))


@dataclass(frozen=True)
class _Fit:
    """The estimate at one judge weight λ, with its variance parts and interval half-widths."""

    power: float
    estimate: float
    label_var: float | None
    label_df: float
    total_se: float | None
    total_df: float

    def width(self, confidence: float, bounds: tuple[float, float]) -> float:
        """The width of its interval as published (kept inside ``bounds``); infinite when undefined."""
        if self.total_se is None:
            return math.inf
        low, high = _interval(self.estimate, self.total_se, confidence, self.total_df, bounds)
        return high - low  # type: ignore[operator]  # as published: rounded, so "never wider" holds in print


#: The judge weights tried by the width-minimising power tuning (with PPI++'s closed-form λ): 0 (labels alone) … 1.
POWER_GRID = tuple(i / 20 for i in range(21))


def _estimate(
    strata: Sequence[StratumValues], confidence: float, tuned: bool, bounds: tuple[float, float]
) -> CorrectedEstimate:
    """The difference estimator of the module docstring on already-paired values (the one implementation)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    _check(strata)
    judged = [f for s in strata for f in s.judge if f is not None]
    n_pop = len(judged)
    if n_pop == 0:
        raise ValueError("no question of the population in any stratum")
    judge_total = float(sum(judged))
    scale = 1.0 / (n_pop * n_pop)
    # question sampling, the same for every λ: the variance of y over the N questions, its mean and second
    # moment each estimated by the difference estimator (λ = 1, unbiased whatever the judge)
    mean = (judge_total + _weighted_total(strata, lambda f, y: y - f).total) / n_pop
    second = _weighted_total(strata, lambda f, y: y * y - f * f)
    square = (sum(f * f for f in judged) + second.total) / n_pop
    spread = max(0.0, square - mean * mean) * n_pop / (n_pop - 1) if n_pop > 1 else None
    question_var = None if spread is None else spread / n_pop
    question_part = None if question_var is None else (question_var, question_var**2 / (n_pop - 1))

    def fit(lam: float) -> _Fit:
        rect = _weighted_total(strata, lambda f, y: y - lam * f)
        label_part = None if rect.variance is None else (rect.variance * scale, rect.df_terms * scale * scale)
        parts = None if label_part is None or question_part is None else [label_part, question_part]
        return _Fit(
            lam,
            (lam * judge_total + rect.total) / n_pop,
            None if label_part is None else label_part[0],
            math.inf if label_part is None else _degrees([label_part]),
            None if parts is None else math.sqrt(label_part[0] + question_part[0]),  # type: ignore[index]
            math.inf if parts is None else _degrees(parts),
        )

    labels = fit(0.0)
    chosen = fit(1.0)
    if tuned:
        tried = [fit(lam) for lam in sorted({*POWER_GRID, power_tuning(strata)})]
        defined = [f for f in tried if f.total_se is not None]
        if defined:  # the narrowest interval; λ = 0 (the labels alone) is among them, so never wider than it
            chosen = min(defined, key=lambda f: (round(f.width(confidence, bounds), 9), -f.power))
    p_value = None
    if chosen.total_se is not None:
        if chosen.total_se == 0:
            p_value = 1.0 if chosen.estimate == 0 else 0.0
        else:
            tail = norm.sf if math.isinf(chosen.total_df) else (lambda x: student_t.sf(x, chosen.total_df))
            p_value = float(2.0 * tail(abs(chosen.estimate) / chosen.total_se))
    ci_low, ci_high = _interval(chosen.estimate, chosen.total_se, confidence, chosen.total_df, bounds)
    label_se = None if chosen.label_var is None else math.sqrt(chosen.label_var)
    label_low, label_high = _interval(chosen.estimate, label_se, confidence, chosen.label_df, bounds)
    lo_low, lo_high = _interval(labels.estimate, labels.total_se, confidence, labels.total_df, bounds)
    labels_label_se = None if labels.label_var is None else math.sqrt(labels.label_var)
    n_labelled = sum(1 for s in strata for f, _ in s.labelled if f is not None)
    return CorrectedEstimate(
        estimate=_round(chosen.estimate),  # type: ignore[arg-type]
        ci_low=ci_low,
        ci_high=ci_high,
        p_value=_round(p_value),
        label_se=_round(label_se),
        question_se=_round(None if question_var is None else math.sqrt(question_var)),
        label_low=label_low,
        label_high=label_high,
        judge_only=_round(judge_total / n_pop),  # type: ignore[arg-type]
        labels_only=_round(labels.estimate),  # type: ignore[arg-type]
        labels_only_low=lo_low,
        labels_only_high=lo_high,
        labels_only_label_se=_round(labels_label_se),
        labels_only_label_half=None
        if labels_label_se is None
        else _round(_quantile(confidence, labels.label_df) * labels_label_se),
        n_labelled=n_labelled,
        n_population=n_pop,
        census=n_labelled == n_pop,
        power=_round(chosen.power),  # type: ignore[arg-type]
        confidence=confidence,
        total_se=chosen.total_se,
        total_df=chosen.total_df,
    )


def corrected_rate(
    strata: Sequence[StratumValues], confidence: float = DEFAULT_CONFIDENCE, tuned: bool = POWER_TUNED
) -> CorrectedEstimate:
    """One config's rate over its population, corrected by the plan's labels (module docstring).

    Each value is 0/1 (the interval is kept inside [0, 1]). Raises ``ValueError`` for a stratum with
    no label, more labels than questions, or no question at all.
    """
    return _estimate(strata, confidence, tuned, (0.0, 1.0))


def _difference(base: float | None, cand: float | None) -> float | None:
    return None if base is None or cand is None else cand - base


def corrected_delta(
    baseline: Sequence[StratumValues],
    candidate: Sequence[StratumValues],
    confidence: float = DEFAULT_CONFIDENCE,
    tuned: bool = POWER_TUNED,
) -> CorrectedEstimate:
    """The paired delta candidate − baseline over the same questions, corrected by the plan's labels.

    ``baseline`` and ``candidate`` hold the same strata with the same questions in the same order
    (the plan labels both answers of a question together): the estimate is :func:`corrected_rate`
    of the per-question differences, so its variance is the paired one.
    """
    return _estimate(paired_values(baseline, candidate), confidence, tuned, (-1.0, 1.0))


def known_zero(stratum: StratumValues) -> StratumValues:
    """A stratum of paired differences known to be 0 without a label: every population question counted as labelled
    with ``(f, y) = (0, 0)``, a census of zeros.

    The plan's stratum ``same`` (:mod:`~evalgate_lib.statistics.sampling_plan`): both configs gave the same answer
    over the same passages, so the labels' difference ``y`` is 0, and the judge's verdicts are equal, so ``f`` is 0.
    Why this is the estimate labelling them would give: in :func:`_estimate`, such a stratum adds ``λ Σ f = 0`` to
    the imputed term and ``(N_h / m_h) Σ (y − λ f) = 0`` to the rectifier whatever λ and whether all or some of it is
    labelled; a census stratum has no label-sampling variance, and a labelled stratum of zeros has a floored
    variance that only widens the interval; its questions add 0 to the mean and second moment of ``y`` and count in
    N, as they would labelled. Raises ``ValueError`` if a judge difference is not 0 (the stratum's premise).
    """
    if any(f not in (None, 0.0) for f in stratum.judge):
        raise ValueError("a known-zero stratum holds a question whose judge verdicts differ")
    return StratumValues(stratum.judge, tuple((f, f) for f in stratum.judge))


def corrected_paired(
    paired: Sequence[StratumValues], confidence: float = DEFAULT_CONFIDENCE, tuned: bool = POWER_TUNED
) -> CorrectedEstimate:
    """:func:`corrected_delta` on already-paired differences (:func:`paired_values`, with :func:`known_zero` strata)."""
    return _estimate(paired, confidence, tuned, (-1.0, 1.0))


def paired_values(baseline: Sequence[StratumValues], candidate: Sequence[StratumValues]) -> list[StratumValues]:
    """Per-question differences candidate − baseline of two configs' strata (the same questions in the same order).

    What a paired delta is estimated from: the question, not the answer, is the sampling unit.
    """
    if len(baseline) != len(candidate):
        raise ValueError(f"paired strata: baseline has {len(baseline)}, candidate {len(candidate)}")
    paired = []
    for i, (b, c) in enumerate(zip(baseline, candidate, strict=True)):
        if len(b.judge) != len(c.judge) or len(b.labelled) != len(c.labelled):
            raise ValueError(f"stratum {i}: baseline and candidate do not hold the same questions")
        paired.append(
            StratumValues(
                judge=tuple(_difference(x, y) for x, y in zip(b.judge, c.judge, strict=True)),
                labelled=tuple(
                    (_difference(bf, cf), _difference(by, cy))
                    for (bf, by), (cf, cy) in zip(b.labelled, c.labelled, strict=True)
                ),
            )
        )
    return paired

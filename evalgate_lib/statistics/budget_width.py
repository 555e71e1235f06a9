"""How wide a plan's corrected interval will be at a label budget, and the budget a target width needs.

``evalgate sample`` draws a plan before any label exists, so the width it can promise is a forecast
from what the run already holds: the judge's per-question deltas of a metric stand in for the
labels' (a reviewer who agreed with the judge everywhere would see them), plus an allowance for the
judge's errors (each answer the judge gets wrong moves the label's delta by one). The forecast is for
the labels *alone* (λ = 0 of the prediction-powered estimate): the judge-corrected interval the gate
decides on is narrower when the judge is good, so the figure is what a budget at least buys.

With ``N`` questions of the metric's population, ``m`` of them labelled, and ``S²`` the variance of a
question's delta, the labels-only estimate of the delta has variance (stratified sampling without
replacement, plus the question sampling a census keeps)::

    V(m) = S² / N  +  (1 − m / N) · S² / m

so the half-width is ``z · sqrt(V(m))``; ``m = N`` leaves the question-sampling floor ``z · S / sqrt(N)``,
which no budget goes below. ``S²`` is the judge's deltas' variance plus ``2 e`` (two answers per
question, each wrong with probability ``e``, :data:`JUDGE_ERROR`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from scipy.stats import norm

#: The share of answers the judge gets wrong, assumed for the forecast (the shipped sets' correctness verdicts
#: disagree with the reviewers' on about 3 % of answers, hallucination flags on about 15 %: docs/judge.md).
JUDGE_ERROR = 0.05


@dataclass(frozen=True)
class WidthForecast:
    """The forecast half-width of a delta's interval at ``labelled`` of ``questions``, and the question floor."""

    questions: int
    labelled: int
    half_width: float
    floor: float
    variance: float


def _variance(deltas: Sequence[float], judge_error: float) -> float:
    n = len(deltas)
    mean = sum(deltas) / n
    spread = sum((d - mean) ** 2 for d in deltas) / (n - 1) if n > 1 else 0.0
    return spread + 2.0 * judge_error


def forecast(deltas: Sequence[float], labelled: int, confidence: float = 0.95,
             judge_error: float = JUDGE_ERROR) -> WidthForecast:  # fmt: skip
    """The half-width (module docstring) of the delta over ``deltas`` (the judge's, one per population question)
    with ``labelled`` of them labelled. Raises ``ValueError`` for no question or ``labelled`` outside 1 … N."""
    n = len(deltas)
    if n == 0 or not 1 <= labelled <= n:
        raise ValueError(f"need 1 <= labelled <= questions, got {labelled} of {n}")
    s2 = _variance(deltas, judge_error)
    z = float(norm.ppf(0.5 + confidence / 2.0))
    variance = s2 / n + (1.0 - labelled / n) * s2 / labelled
    return WidthForecast(n, labelled, round(z * math.sqrt(variance), 6), round(z * math.sqrt(s2 / n), 6), variance)


def labels_for_width(deltas: Sequence[float], half_width: float, confidence: float = 0.95,
                     judge_error: float = JUDGE_ERROR) -> int | None:  # fmt: skip
    """The fewest labelled questions of the population whose forecast half-width is at most ``half_width``;
    ``None`` when even every question labelled leaves more (the question-sampling floor)."""
    n = len(deltas)
    for m in range(1, n + 1):
        if forecast(deltas, m, confidence, judge_error).half_width <= half_width + 1e-12:
            return m
    return None


def labels_to_decide(deltas: Sequence[float], estimate: float, limit: float, drop: bool,
                     confidence: float = 0.95, judge_error: float = JUDGE_ERROR) -> int | None:  # fmt: skip
    """The fewest labelled questions of the population at which a rule on ``estimate`` (a rate's delta) would be
    decided, were the estimate to hold: the forecast interval wholly within the limit (PASS) or wholly past 0
    with the estimate past the limit (FAIL). ``limit`` is the rule's bound as a positive share; ``drop``: a
    ``max_drop`` rule. ``None`` when even every question labelled would leave it undecided."""
    breach = estimate < -limit if drop else estimate > limit
    for m in range(1, len(deltas) + 1):
        half = forecast(deltas, m, confidence, judge_error).half_width
        if breach and (estimate + half < 0 if drop else estimate - half > 0):
            return m
        if not breach and (estimate - half >= -limit if drop else estimate + half <= limit):
            return m
    return None

"""The interval and p of a plan's corrected delta: a stratified percentile bootstrap of the prediction-powered estimate.

A plan's labels decide a gate rule on the prediction-powered (PPI++) estimate of
:mod:`evalgate_lib.statistics.label_estimates`: the judge's verdicts on *every* answer, corrected by
the labels' rectifier ``y − λ f`` in each stratum. That estimate is unbiased at any budget, but its t
interval does not hold its level at the budgets teams use (a few labels per stratum: the rectifier is
a handful of 0s and ±1s, far from normal). The census bound (:mod:`evalgate_lib.statistics.label_bounds`)
does hold it, but ignores the judge on the unlabelled answers, so it almost never decides.

This module gives the estimate its interval by the bootstrap that matches the design: in each stratum
the labelled questions are resampled with replacement among the labelled ones and the unlabelled
questions among the unlabelled ones (the two samples of PPI, drawn independently; a question keeps
its membership of the population, so a rate's denominator is resampled too), and the estimate is
recomputed at the plan's λ. Resampling the unlabelled questions carries the *question* sampling (the
noise McNemar's test measures for a census), the labelled ones the *label* sampling as well.

The interval is the percentile interval of the replicates at ``1 − α``, and the p-value the
two-sided bootstrap p, ``2 · min(#{θ* ≤ 0}, #{θ* ≥ 0}) / B``; both read the same sorted replicates, so
the interval excludes 0 exactly when p < α (:func:`bootstrap_interval`); computed at a rule's limit instead of 0,
the same p says whether the interval clears the limit, which is what the gate decides on. Coverage and level at the
shipped budgets are measured by ``bench/gate_labels.py`` (docs/benchmark.md): the gate does not
take the bootstrap's level on trust.

A stratum with one labelled question and unlabelled ones has no spread to resample: the bootstrap
is then undefined (``None``) and the gate falls back to the census bound.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from evalgate_lib.statistics.label_estimates import StratumValues
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED

#: Replicates of the bootstrap: α·B/2 is a whole number for α = 0.05 and 0.01, and the decision is seeded.
REPLICATES = 4000
#: How the interval is made, as the gate and the corrected table name it.
BOOTSTRAP_INTERVAL = "hull of the stratified percentile bootstrap and the floored t interval of the PPI++ estimate"


@dataclass(frozen=True)
class _Stratum:
    """One stratum as arrays: the labelled questions' judge value, reference, membership; the unlabelled ones'."""

    size: int
    lab_f: np.ndarray
    lab_y: np.ndarray
    lab_in: np.ndarray
    unl_f: np.ndarray
    unl_in: np.ndarray


def _arrays(stratum: StratumValues) -> _Stratum:
    """Split a stratum into its labelled questions and the rest (its judge values less the labelled ones')."""
    rest = Counter(stratum.judge)
    rest.subtract(f for f, _ in stratum.labelled)
    if any(v < 0 for v in rest.values()):
        raise ValueError("a labelled question's judge value is not among its stratum's")
    unlabelled = [f for f, k in rest.items() for _ in range(k)]
    return _Stratum(
        len(stratum.judge),
        np.array([0.0 if f is None else f for f, _ in stratum.labelled]),
        np.array([0.0 if y is None else y for _, y in stratum.labelled]),
        np.array([f is not None for f, _ in stratum.labelled], dtype=float),
        np.array([0.0 if f is None else f for f in unlabelled]),
        np.array([f is not None for f in unlabelled], dtype=float),
    )


def bootstrap_replicates(
    strata: Sequence[StratumValues], power: float, replicates: int = REPLICATES, seed: int = DEFAULT_SEED
) -> np.ndarray | None:
    """The sorted bootstrap replicates of the estimate at judge weight ``power`` (module docstring), or ``None``.

    ``strata`` are a paired delta's per-question differences
    (:func:`~evalgate_lib.statistics.label_estimates.paired_values`) or one config's values.
    ``None`` when a stratum with unlabelled questions has fewer than two labelled ones.
    """
    rng = np.random.default_rng(seed)
    parts = [_arrays(s) for s in strata]
    totals = np.zeros(replicates)
    members = np.zeros(replicates)
    for s in parts:
        m = s.lab_f.size
        if m == 0:
            if s.unl_in.any():
                return None
            continue
        if m < 2 and s.unl_f.size:
            return None
        pick = rng.integers(0, m, size=(replicates, m))
        rectifier = (s.lab_y - power * s.lab_f) * s.lab_in
        totals += power * s.lab_f[pick].sum(axis=1) + s.size / m * rectifier[pick].sum(axis=1)
        members += s.lab_in[pick].sum(axis=1)
        if s.unl_f.size:
            other = rng.integers(0, s.unl_f.size, size=(replicates, s.unl_f.size))
            totals += power * s.unl_f[other].sum(axis=1)
            members += s.unl_in[other].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(members > 0, totals / np.maximum(members, 1), np.nan)
    values = values[~np.isnan(values)]
    return np.sort(values) if values.size else None


@dataclass(frozen=True)
class BootstrapFigure:
    """The interval at ``confidence`` and the two-sided p of sorted replicates (in the metric's unit)."""

    ci_low: float
    ci_high: float
    p_value: float
    confidence: float
    replicates: int


def bootstrap_interval(replicates: Sequence[float], confidence: float, scale: float = 1.0,
                       null: float = 0.0) -> BootstrapFigure:  # fmt: skip
    """The percentile interval and the bootstrap p against ``null`` of sorted ``replicates``, each times ``scale``.

    With ``k = ⌈α·B/2⌉`` the interval is the k-th smallest and the k-th largest replicate; its lower end
    is above ``null`` exactly when fewer than ``α·B/2`` replicates are ≤ ``null``, which is exactly when
    ``p = 2 · #{θ* ≤ null} / B`` is below α (and the mirror): the interval and p cannot disagree. ``null``
    is in the replicates' unit (a rate): 0 tests "no change", a rule's limit tests the limit.
    """
    values = np.asarray(replicates, dtype=float)
    count = values.size
    if count == 0:
        raise ValueError("no replicate")
    alpha = 1.0 - confidence
    k = max(1, math.ceil(round(alpha * count / 2.0, 9)))
    low, high = float(values[k - 1]), float(values[count - k])
    at_most, at_least = int((values <= null).sum()), int((values >= null).sum())
    p = min(1.0, 2.0 * min(at_most, at_least) / count)
    return BootstrapFigure(round(low * scale, 6), round(high * scale, 6), round(p, 6), confidence, count)


def plan_figure(replicates: Sequence[float], estimate: float, total_se: float | None, total_df: float,
                confidence: float, scale: float = 1.0, null: float = 0.0) -> BootstrapFigure:  # fmt: skip
    """The interval and p a plan's labels decide a rule on: the hull of the bootstrap percentile interval and the
    estimate's t interval (its variance floored: :func:`~evalgate_lib.statistics.label_estimates._spread`), and the
    larger of their two p-values.

    Why both: the bootstrap follows the rectifier's shape (a handful of 0s and ±1s, far from normal), which the t
    interval misses; the t interval's variance floor allows for the judge's errors the labelled sample did not
    meet (a stratum whose labels all agree with the judge has no spread to resample, and the bootstrap would be a
    point there). Measured on pairs where the judge is wrong (``bench/gate_labels.py``, FAIL the mirror of PASS),
    the bootstrap alone FAILs a pair whose all-labels delta is within its limit in 7 % of plans at 20 % labelled
    and covers a pair's all-labels delta in as few as 74 %; the hull: at most 5 %, at least 90 %. The hull excludes
    0 exactly when both intervals do, which is exactly when both p-values (so the larger) are below α: the
    interval and the p printed cannot disagree. ``null`` (a rate) is what the p tests: 0, or the gate rule's limit,
    which the hull lies wholly past exactly when that p is below α and the estimate is past it. ``total_se``
    ``None`` (a stratum with one label): the bootstrap's alone. Both ends are kept inside the figure's range,
    [−1, 1] times ``scale`` (a delta of rates; a replicate of the difference estimator can leave it: −1.038 was
    printed), as the t side always was; a limit inside the range is cleared exactly as before.
    """
    boot = bootstrap_interval(replicates, confidence, scale, null)
    if total_se is None:
        return dataclasses.replace(boot, ci_low=max(boot.ci_low, -scale), ci_high=min(boot.ci_high, scale))
    half = _t_quantile(confidence, total_df) * total_se
    low, high = max(-1.0, estimate - half), min(1.0, estimate + half)
    gap = abs(estimate - null)
    if total_se == 0:
        p_t = 1.0 if gap == 0 else 0.0
    else:
        p_t = float(2.0 * (norm.sf(gap / total_se) if math.isinf(total_df)
                           else student_t.sf(gap / total_se, total_df)))  # fmt: skip
    return BootstrapFigure(
        round(max(min(boot.ci_low, low * scale), -scale), 6), round(min(max(boot.ci_high, high * scale), scale), 6),
        round(max(boot.p_value, p_t), 6), confidence, boot.replicates,
    )  # fmt: skip


def _t_quantile(confidence: float, df: float) -> float:
    q = 0.5 + confidence / 2.0
    return float(norm.ppf(q)) if math.isinf(df) else float(student_t.ppf(q, df))

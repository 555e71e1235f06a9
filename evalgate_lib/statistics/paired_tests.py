"""Paired statistics for a before/after comparison over the same questions.

Both configurations answer the *same* gold questions, so every question yields a
pair (baseline value, candidate value). Treating the two columns as independent
samples would throw that pairing away and overstate the noise; the tests here
work on the per-question differences instead:

* :func:`paired_bootstrap_ci` — percentile bootstrap interval of the mean paired
  difference (any numeric metric: correctness, coverage, groundedness, ...);
* :func:`mcnemar_exact` — exact McNemar test for a binary metric (only the
  discordant questions, where the two configs disagree, carry information);
* :func:`mcnemar_interval` — the interval of a binary metric's delta that inverts that very test, so
  it excludes 0 exactly when McNemar's p is below its level;
* :func:`compare_metric` — a metric's delta with its interval (the exact McNemar interval for a yes/no
  metric, the percentile bootstrap for a score) and, for a yes/no metric, McNemar's p, packed into a
  JSON-friendly dict for the report.

Everything is a pure function of its inputs and a seed, so a rerun reproduces
the same numbers byte for byte.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy.stats import beta, binomtest, norm

DEFAULT_SEED = 20261202
DEFAULT_RESAMPLES = 10000
DEFAULT_CONFIDENCE = 0.95

#: How each kind of interval is named in ``summary.json``, the outputs and the docs.
PERCENTILE_BOOTSTRAP = "percentile bootstrap"
EXACT_MCNEMAR = "exact McNemar (Clopper-Pearson)"

# Upper bound on the number of index draws materialised at once. The batch size
# depends only on the number of pairs, so the random stream (and the result) is a
# function of (data, n_resamples, seed) alone.
_MAX_DRAWS_PER_BATCH = 2_000_000


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile bootstrap interval for ``mean(candidate) - mean(baseline)``.

    ``n`` counts the complete pairs actually used (pairs with a missing side are
    dropped). When ``n == 0`` the delta and both bounds are NaN: there is nothing
    to compare, and a NaN is harder to mistake for "no change" than a 0 would be.
    """

    delta: float
    low: float
    high: float
    n: int
    n_resamples: int
    seed: int
    confidence: float = DEFAULT_CONFIDENCE


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on paired binary outcomes.

    ``b``: baseline true and candidate false (regressions);
    ``c``: baseline false and candidate true (improvements).
    """

    b: int
    c: int
    n_discordant: int
    p_value: float


def _paired_arrays(
    baseline: Sequence[float | None], candidate: Sequence[float | None]
) -> tuple[np.ndarray, np.ndarray]:
    """Float arrays of the complete pairs.

    ``None`` and NaN mark a missing value and the whole pair is dropped. This is
    needed because some metrics are undefined for some answers — groundedness is
    ``null`` for a refusal (nothing is claimed) — and a config that refuses more
    must not be compared on questions where only the other one has a value.
    """
    if len(baseline) != len(candidate):
        raise ValueError(
            f"paired comparison needs equal lengths: baseline has {len(baseline)} values, "
            f"candidate has {len(candidate)}"
        )
    base = np.array([math.nan if v is None else v for v in baseline], dtype=float)
    cand = np.array([math.nan if v is None else v for v in candidate], dtype=float)
    keep = ~(np.isnan(base) | np.isnan(cand))
    return base[keep], cand[keep]


def paired_bootstrap_ci(
    baseline: Sequence[float | None],
    candidate: Sequence[float | None],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> BootstrapResult:
    """Percentile bootstrap CI of the mean paired difference ``candidate - baseline``.

    Implemented directly with numpy rather than with ``scipy.stats.bootstrap``:
    the textbook paired percentile bootstrap is a few visible lines, and the
    random stream stays under our control (scipy's generator keyword changed from
    ``random_state`` to ``rng`` in 1.15, and how it consumes the stream is an
    implementation detail), so a rerun is byte-identical across scipy versions.

    Method: drop incomplete pairs (see :func:`_paired_arrays`); draw
    ``n_resamples`` index vectors of length ``n`` with replacement from
    ``numpy.random.default_rng(seed)`` (one ``integers`` call per batch, batches
    sized from ``n`` only); take the mean difference of each resample; the
    interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
    percentiles of those means (numpy's default linear interpolation). The result
    is deterministic for fixed inputs, ``n_resamples`` and ``seed``.

    Raises ``ValueError`` for unequal lengths, ``n_resamples < 1`` or a confidence
    outside (0, 1).
    """
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    base, cand = _paired_arrays(baseline, candidate)
    n = int(base.size)
    if n == 0:
        return BootstrapResult(math.nan, math.nan, math.nan, 0, n_resamples, seed, confidence)

    diffs = cand - base
    rng = np.random.default_rng(seed)
    batch = max(1, _MAX_DRAWS_PER_BATCH // n)
    means = np.empty(n_resamples, dtype=float)
    for start in range(0, n_resamples, batch):
        rows = min(batch, n_resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        means[start : start + rows] = diffs[idx].mean(axis=1)

    alpha = 1.0 - confidence
    low, high = np.percentile(means, [100.0 * alpha / 2.0, 100.0 * (1.0 - alpha / 2.0)])
    delta = float(cand.mean() - base.mean())
    return BootstrapResult(delta, float(low), float(high), n, n_resamples, seed, confidence)


def _as_binary(values: Sequence[bool | float | None], side: str) -> list[bool | None]:
    """Booleans with ``None`` for missing (``None`` or NaN); anything but 0/1 is an error."""
    out: list[bool | None] = []
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out.append(None)
        elif v in (0, 1):  # True/False, 0/1 and 0.0/1.0
            out.append(bool(v))
        else:
            raise ValueError(f"{side}[{i}] = {v!r} is not a binary outcome (expected bool, 0 or 1)")
    return out


def mcnemar_exact(baseline: Sequence[bool | None], candidate: Sequence[bool | None]) -> McNemarResult:
    """Exact two-sided McNemar test: ``binomtest(c, b + c, 0.5)``.

    Under "no difference between configs" a discordant question is equally
    likely to be a regression (``b``) or an improvement (``c``), so ``c`` is
    Binomial(b + c, 1/2). The exact test is used because evaluation sets are small
    and the chi-square approximation is poor with few discordant pairs.
    ``p_value`` is 1.0 when there are no discordant pairs. Pairs with a missing
    side (``None``/NaN, e.g. ``retrieval_hit`` of a no-answer question) are
    dropped, as in :func:`paired_bootstrap_ci`.
    """
    if len(baseline) != len(candidate):
        raise ValueError(
            f"paired comparison needs equal lengths: baseline has {len(baseline)} values, "
            f"candidate has {len(candidate)}"
        )
    b = c = 0
    for x, y in zip(_as_binary(baseline, "baseline"), _as_binary(candidate, "candidate"), strict=True):
        if x is None or y is None:
            continue
        if x and not y:
            b += 1
        elif y and not x:
            c += 1
    n_discordant = b + c
    p_value = 1.0 if n_discordant == 0 else float(binomtest(c, n_discordant, 0.5).pvalue)
    return McNemarResult(b, c, n_discordant, min(1.0, p_value))


@functools.lru_cache(maxsize=65536)
def mcnemar_p(b: int, c: int) -> float:
    """McNemar's exact two-sided p of ``b`` regressions and ``c`` improvements, rounded as every output holds it.

    ``binomtest(c, b + c, 0.5)``: under "no difference" a discordant question is a regression or an
    improvement with probability 1/2 each. 1.0 when nothing moved. Rounded to 6 places, the figure
    ``summary.json`` records and the gate compares with its ``alpha``.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b}, c={c}")
    if b + c == 0:
        return 1.0
    return round(min(1.0, float(binomtest(c, b + c, 0.5).pvalue)), 6)


def _round_bound(x: float) -> float:
    """Round a bound to 6 places without ever rounding a non-zero bound to 0 (its side of 0 is the verdict)."""
    r = round(x, 6)
    return math.copysign(1e-6, x) if r == 0 and x != 0 else r + 0.0


def mcnemar_interval(b: int, c: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The interval of a paired yes/no delta ``(c - b) / n`` that inverts McNemar's exact test.

    Derivation. Of ``n`` pairs, ``d = b + c`` are discordant; given ``d``, the improvements ``c`` are
    Binomial(``d``, π) with π the share of improvements among discordant questions, and the delta of
    the rates is ``Δ = (d / n)(2π − 1)``. McNemar's exact test is the binomial test of π = 1/2, and
    its two-sided p (for a distribution symmetric about ``d/2``) is twice the smaller tail. The
    Clopper-Pearson interval ``[π_L, π_U]`` at ``confidence`` = 1 − α is equal-tailed (each bound puts
    α/2 in one tail), so it excludes 1/2 exactly when one tail at 1/2 is below α/2, that is exactly
    when McNemar's p < α. Mapped through the observed discordant share,
    ``[(d/n)(2π_L − 1), (d/n)(2π_U − 1)]`` excludes 0 exactly when McNemar's p < α, holds the
    observed delta, and never leaves ``[−d/n, d/n]`` ⊆ [−1, 1]. No pair moved (``d = 0``): [0, 0].

    The bounds are rounded to 6 places without crossing 0, and where the beta quantile's last bit
    would contradict the (rounded) p-value the gate reads, the bound is set to that side of 0: the
    equivalence holds as published, not only in exact arithmetic. Multiply by ``n`` for a count.
    Raises ``ValueError`` for negative counts, ``b + c > n`` or a confidence outside (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if b < 0 or c < 0 or b + c > n:
        raise ValueError(f"need 0 <= b, c and b + c <= n, got b={b}, c={c}, n={n}")
    d = b + c
    if d == 0:
        return 0.0, 0.0
    alpha = round(1.0 - confidence, 12)  # 1 - 0.95 is 0.05000000000000004 in floating point
    pi_low = 0.0 if c == 0 else float(beta.ppf(alpha / 2.0, c, d - c + 1))
    pi_high = 1.0 if c == d else float(beta.ppf(1.0 - alpha / 2.0, c + 1, d - c))
    share = d / n
    low, high = share * (2.0 * pi_low - 1.0), share * (2.0 * pi_high - 1.0)
    if mcnemar_p(b, c) < alpha:  # the test rejects: the interval lies on the side the delta is on
        if c > b and low <= 0:
            low = math.ulp(0.0)
        elif b > c and high >= 0:
            high = -math.ulp(0.0)
    else:  # the test does not reject: the interval holds 0
        low, high = min(low, 0.0), max(high, 0.0)
    return _round_bound(low), _round_bound(high)


TANGO = "Tango's score interval (paired difference)"


def _tango_z(b: int, c: int, n: int, delta0: float) -> float:
    """Tango's score statistic for H0: (c − b) / n = ``delta0``, with the restricted maximum-likelihood nuisance."""
    # Tango (1998) with X1 = candidate, X2 = baseline: n12 = c (only the candidate yes), n21 = b
    a_ = 2.0 * n
    b_ = -c - b + (2.0 * n - c + b) * delta0
    c_ = -b * delta0 * (1.0 - delta0)
    p21 = (math.sqrt(max(0.0, b_ * b_ - 4.0 * a_ * c_)) - b_) / (2.0 * a_)
    variance = n * (2.0 * p21 + delta0 * (1.0 - delta0))
    if variance <= 0:
        return 0.0 if c - b == n * delta0 else math.copysign(math.inf, c - b - n * delta0)
    return (c - b - n * delta0) / math.sqrt(variance)


def tango_interval(b: int, c: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Tango's score interval of a paired yes/no delta ``(c − b) / n``: what shows a rule within its limit.

    The set of ``δ0`` whose score test (Tango 1998, *Statistics in Medicine* 17:891) does not reject at
    1 − ``confidence``: ``|Z(δ0)| ≤ z``, ``Z = (c − b − n δ0) / sqrt(n (2 p̃21 + δ0 (1 − δ0)))`` with
    ``p̃21`` the maximum-likelihood share of baseline-only yes answers under ``δ0``. Unlike the exact
    McNemar interval (:func:`mcnemar_interval`), which is conditional on the observed discordant share,
    it does not shrink to a point when nothing moved: 0 of 20 pairs moved gives ±0.161 at 95 %, which is
    exactly what 20 questions can and cannot show (the recommended interval for non-inferiority of
    paired proportions; at ``δ0 = 0`` its statistic is McNemar's ``(c − b) / sqrt(b + c)``). Bounds by
    bisection to 1e-9, rounded to 6 places; multiply by ``n`` for a count.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    if b < 0 or c < 0 or b + c > n or n < 1:
        raise ValueError(f"need 0 <= b, c, b + c <= n and n >= 1, got b={b}, c={c}, n={n}")
    z = float(norm.ppf(0.5 + confidence / 2.0))
    point = (c - b) / n

    def solve(target: float, low: float, high: float) -> float:
        # Z falls as δ0 rises: find δ0 in [low, high] with Z(δ0) = target
        for _ in range(100):
            mid = (low + high) / 2.0
            if _tango_z(b, c, n, mid) > target:
                low = mid
            else:
                high = mid
            if high - low < 1e-10:
                break
        return (low + high) / 2.0

    edge = 1.0 - 1e-12
    lower = -1.0 if _tango_z(b, c, n, -edge) <= z else solve(z, -edge, point)
    upper = 1.0 if _tango_z(b, c, n, edge) >= -z else solve(-z, point, edge)
    return round(lower, 6), round(upper, 6)


def tango_p(b: int, c: int, n: int, delta0: float) -> float:
    """The two-sided p of Tango's score test of H0: (c − b) / n = ``delta0``: ``2 · P(N(0, 1) > |Z(δ0)|)``.

    The test :func:`tango_interval` inverts: ``δ0`` lies outside the interval at 1 − α exactly when this p is
    below α. The gate tests a rule's limit with it (``delta0`` = the limit as a rate), so its p says how surely
    the candidate lies on one side of the limit, not of 0. At ``δ0 = 0`` it is McNemar's asymptotic p,
    ``Z = (c − b) / sqrt(b + c)``. Rounded to 6 places.
    """
    if b < 0 or c < 0 or b + c > n or n < 1:
        raise ValueError(f"need 0 <= b, c, b + c <= n and n >= 1, got b={b}, c={c}, n={n}")
    if not -1.0 <= delta0 <= 1.0:
        raise ValueError(f"delta0 must lie in [-1, 1], got {delta0}")
    z = _tango_z(b, c, n, delta0)
    return round(min(1.0, 2.0 * float(norm.sf(abs(z)))), 6)


def _round(x: float) -> float | None:
    """Round to 6 places for byte-identical output; NaN becomes ``None`` (valid JSON)."""
    return None if math.isnan(x) else round(x, 6)


def compare_metric(
    name: str,
    baseline_values: Sequence[float | bool | None],
    candidate_values: Sequence[float | bool | None],
    binary: bool,
    seed: int = DEFAULT_SEED,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    scale: int | None = None,
) -> dict[str, Any]:
    """One report row comparing a metric between the two configs.

    Keys: ``metric, baseline, candidate, delta, ci_low, ci_high, confidence, n, interval`` and, when
    ``binary``, ``b, c, p_value``. ``baseline``/``candidate`` are the means over the complete pairs
    (the same ``n`` questions as the interval), so ``delta`` is ``candidate - baseline`` up to rounding.

    The interval comes from the procedure that decides the delta: for a yes/no metric the exact
    McNemar interval (:func:`mcnemar_interval`: it excludes 0 exactly when ``p_value`` < 1 −
    ``confidence``), for a score the percentile bootstrap (:func:`paired_bootstrap_ci`), whose
    interval the gate reads itself; ``interval`` names which. ``scale`` (a count metric: its number of
    questions) gives the delta as the integer ``c - b`` and the interval in answers. Floats are rounded
    to 6 places; undefined values (no complete pair) are ``None``, McNemar's ``p_value`` among them: a metric
    measured on no question has no test, and a p of 1 beside an "n/a" delta would read as "no change".
    """
    base, cand = _paired_arrays(
        [None if v is None else float(v) for v in baseline_values],
        [None if v is None else float(v) for v in candidate_values],
    )
    n = int(base.size)
    row: dict[str, Any] = {
        "metric": name,
        "baseline": _round(float(base.mean())) if n else None,
        "candidate": _round(float(cand.mean())) if n else None,
        "delta": _round(float(cand.mean() - base.mean())) if n else None,
        "ci_low": None,
        "ci_high": None,
        "confidence": confidence,
        "n": n,
        "interval": EXACT_MCNEMAR if binary else PERCENTILE_BOOTSTRAP,
    }
    factor = 1 if scale is None else scale
    if binary:
        test = mcnemar_exact(baseline_values, candidate_values)  # type: ignore[arg-type]
        # no complete pair (a retrieval metric of logs without doc ids): no test was made, so no p (not p = 1)
        row.update({"b": test.b, "c": test.c, "p_value": mcnemar_p(test.b, test.c) if n else None})
        if n:
            low, high = mcnemar_interval(test.b, test.c, n, confidence)
            row["ci_low"], row["ci_high"] = _round_bound(low * factor), _round_bound(high * factor)
            if scale is not None:
                row["delta"] = test.c - test.b
        return row
    boot = paired_bootstrap_ci(base, cand, n_resamples=n_resamples, confidence=confidence, seed=seed)
    row["ci_low"], row["ci_high"] = _round(boot.low * factor), _round(boot.high * factor)
    if scale is not None and n:
        row["delta"] = _round(boot.delta * factor)
    return row

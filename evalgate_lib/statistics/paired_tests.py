"""Paired statistics for a before/after comparison over the same questions.

Both configurations answer the *same* gold questions, so every question yields a
pair (baseline value, candidate value). Treating the two columns as independent
samples would throw that pairing away and overstate the noise; the tests here
work on the per-question differences instead:

* :func:`paired_bootstrap_ci` — percentile bootstrap interval of the mean paired
  difference (any numeric metric: correctness, coverage, groundedness, ...);
* :func:`mcnemar_exact` — exact McNemar test for a binary metric (only the
  discordant questions, where the two configs disagree, carry information);
* :func:`compare_metric` — both, packed into a JSON-friendly dict for the report.

Everything is a pure function of its inputs and a seed, so a rerun reproduces
the same numbers byte for byte.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy.stats import binomtest

DEFAULT_SEED = 20261202
DEFAULT_RESAMPLES = 10000
DEFAULT_CONFIDENCE = 0.95

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
) -> dict[str, Any]:
    """One report row comparing a metric between the two configs.

    Keys: ``metric, baseline, candidate, delta, ci_low, ci_high, confidence, n``
    and, when ``binary``, ``b, c, p_value``. ``baseline``/``candidate`` are the
    means over the complete pairs (the same ``n`` questions as the interval), so
    ``delta`` is ``candidate - baseline`` up to rounding. Floats are rounded to 6 places;
    undefined values (no complete pair) are ``None``.
    """
    base, cand = _paired_arrays(
        [None if v is None else float(v) for v in baseline_values],
        [None if v is None else float(v) for v in candidate_values],
    )
    boot = paired_bootstrap_ci(base, cand, n_resamples=n_resamples, confidence=confidence, seed=seed)
    row: dict[str, Any] = {
        "metric": name,
        "baseline": _round(float(base.mean())) if base.size else None,
        "candidate": _round(float(cand.mean())) if cand.size else None,
        "delta": _round(boot.delta),
        "ci_low": _round(boot.low),
        "ci_high": _round(boot.high),
        "confidence": confidence,
        "n": boot.n,
    }
    if binary:
        test = mcnemar_exact(baseline_values, candidate_values)  # type: ignore[arg-type]
        row.update({"b": test.b, "c": test.c, "p_value": _round(test.p_value)})
    return row

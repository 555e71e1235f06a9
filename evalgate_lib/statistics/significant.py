"""Which deltas are beyond noise: the one rule behind every "significant" mark in the report.

``summary.json`` already holds, per metric, the 95% paired-bootstrap interval of the delta and,
for yes/no metrics, McNemar's exact p. A reader should not have to scan seventeen intervals to
find the one that excludes 0, so the report marks it; the rule that decides the mark lives
here, once, so the headline table, the first screen and any script agree on it.

A delta is marked when **either** test says it is beyond noise, and the mark says which:
its interval excludes 0, or McNemar's p is below ``alpha``. The two can disagree near the
edge (an interval of [+1, +25] with p = 0.053), and the gate in ``significant`` mode only
trusts McNemar for yes/no metrics, so the mark names its evidence instead of hiding one test.
"""

from __future__ import annotations

from typing import Any, Mapping

from evalgate_lib.statistics.metrics import METRICS

#: The level below which McNemar's p marks a delta significant (the interval is a 95% one).
SIGNIFICANCE_ALPHA = 0.05

#: Evidence names: the bootstrap interval excludes 0; McNemar's exact p is below alpha.
INTERVAL = "interval"
MCNEMAR = "mcnemar"


def significance_evidence(stat: Mapping[str, Any], alpha: float = SIGNIFICANCE_ALPHA) -> tuple[str, ...]:
    """Why one metric's delta is beyond noise: a subset of (:data:`INTERVAL`, :data:`MCNEMAR`), empty if within noise.

    ``stat`` is one entry of ``summary["significance"]`` (``ci_low``, ``ci_high`` and, for
    yes/no metrics, ``p_value``). An interval touching 0 (``[-0.11, 0.0]``) does not exclude it.
    """
    evidence = []
    low, high = stat.get("ci_low"), stat.get("ci_high")
    if low is not None and high is not None and (low > 0 or high < 0):
        evidence.append(INTERVAL)
    p = stat.get("p_value")
    if p is not None and p < alpha:
        evidence.append(MCNEMAR)
    return tuple(evidence)


def significant_metrics(summary: Mapping[str, Any], alpha: float = SIGNIFICANCE_ALPHA) -> dict[str, tuple[str, ...]]:
    """Every metric whose delta is beyond noise, in :data:`~evalgate_lib.statistics.metrics.METRICS` order."""
    sig = summary.get("significance") or {}
    out = {}
    for metric in METRICS:
        evidence = significance_evidence(sig.get(metric.key) or {}, alpha)
        if evidence:
            out[metric.key] = evidence
    return out

"""Which deltas are beyond noise: the one rule behind every "significant" mark in the report.

``summary.json`` already holds, per metric, the 95% paired-bootstrap interval of the delta and,
for yes/no metrics, McNemar's exact p. A reader should not have to scan seventeen intervals to
find the one that excludes 0, so the report marks it; the rule that decides the mark lives
here, once, so the headline table, the first screen and any script agree on it.

One test decides per metric, the same one the gate uses in ``significant`` mode, so the
report can never call a delta significant that the gate calls noise: a yes/no metric
(correct, hit, each flag) is beyond noise when McNemar's exact p is below ``alpha``; a score
(groundedness, MRR) when its paired-bootstrap interval excludes 0. (The two tests can
disagree near the edge, an interval of [+1, +25] with p = 0.053: the yes/no metric's is the
exact test on its discordant pairs, and it decides.)
"""

from __future__ import annotations

from typing import Any, Mapping

from evalgate_lib.statistics.metrics import METRICS, Summary

#: The level below which McNemar's p marks a delta significant (the interval is a 95% one).
SIGNIFICANCE_ALPHA = 0.05

#: Evidence names: the bootstrap interval excludes 0; McNemar's exact p is below alpha.
INTERVAL = "interval"
MCNEMAR = "mcnemar"


def significance_evidence(stat: Mapping[str, Any], alpha: float = SIGNIFICANCE_ALPHA) -> tuple[str, ...]:
    """Why one metric's delta is beyond noise: ``(MCNEMAR,)``, ``(INTERVAL,)`` or ``()`` (within noise).

    ``stat`` is one entry of ``summary["significance"]`` (``ci_low``, ``ci_high`` and, for
    yes/no metrics, ``p_value``). A yes/no metric is decided by McNemar's p alone; a score by
    its interval alone. An interval touching 0 (``[-0.11, 0.0]``) does not exclude it.
    """
    p = stat.get("p_value")
    if p is not None:
        return (MCNEMAR,) if p < alpha else ()
    low, high = stat.get("ci_low"), stat.get("ci_high")
    if low is not None and high is not None and (low > 0 or high < 0):
        return (INTERVAL,)
    return ()


def with_adjusted_p(stat: Mapping[str, Any], adjusted_p: Mapping[str, float | None] | None, key: str) -> dict[str, Any]:
    """One metric's significance entry with its p-value replaced by the Holm-adjusted one, when there is one.

    For the *significant* marks of a candidate that is one of several: they then follow the
    test the gate decides on. The entry's own numbers are not changed anywhere else.
    """
    if adjusted_p is None or stat.get("p_value") is None or adjusted_p.get(key) is None:
        return dict(stat)
    return {**stat, "p_value": adjusted_p[key]}


def significant_metrics(
    summary: Summary, alpha: float = SIGNIFICANCE_ALPHA, adjusted_p: Mapping[str, float | None] | None = None
) -> dict[str, tuple[str, ...]]:
    """Every metric whose delta is beyond noise, in :data:`~evalgate_lib.statistics.metrics.METRICS` order.

    ``adjusted_p`` (one candidate of several: each yes/no metric's Holm-adjusted p, as the gate
    decides on) replaces McNemar's p, so the marks and the gate still agree.
    """
    sig = summary.significance
    out = {}
    for metric in METRICS:
        evidence = significance_evidence(with_adjusted_p(sig.get(metric.key) or {}, adjusted_p, metric.key), alpha)
        if evidence:
            out[metric.key] = evidence
    return out

"""Aggregate metrics per configuration, the deltas, and whether each delta beats noise.

Every metric is defined once, in :data:`METRICS`, as a per-question value and
the questions it is averaged over. The summary (a mean or a count), the delta
(candidate − baseline) and the paired significance (a seeded bootstrap interval
on the per-question differences; McNemar's exact test for yes/no metrics) all
come from that one definition, so a reader can recompute any number from
``results.jsonl`` with a one-line pandas expression.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from evalgate_lib.statistics.significance import DEFAULT_SEED, compare_metric

Row = dict[str, Any]


def _rm(key: str) -> Callable[[Row], Any]:
    return lambda r: (r.get("retrieval_metrics") or {}).get(key)


def _get(key: str) -> Callable[[Row], Any]:
    return lambda r: r[key]


def _flag(name: str) -> Callable[[Row], Any]:
    return lambda r: r["flags"][name]


def _normalised_correct(r: Row) -> Any:
    return (r.get("matching") or {}).get("normalised", {}).get("correct")


@dataclass(frozen=True)
class Metric:
    """One published metric.

    ``population`` is which questions it is averaged over (``answerable``,
    ``no_answer`` or ``all``); ``kind`` is ``rate`` (a share, shown in %),
    ``score`` (a mean in [0, 1]) or ``count`` (a number of flagged questions).
    """

    key: str
    label: str
    kind: str
    population: str
    value: Callable[[Row], Any]
    binary: bool


METRICS: tuple[Metric, ...] = (
    Metric("retrieval_recall", "retrieval recall@top-k (doc)", "rate", "answerable", _get("retrieval_hit"), True),
    Metric("recall@1", "recall@1 (doc)", "rate", "answerable", _rm("recall@1"), True),
    Metric("recall@3", "recall@3 (doc)", "rate", "answerable", _rm("recall@3"), True),
    Metric("recall@5", "recall@5 (doc)", "rate", "answerable", _rm("recall@5"), True),
    Metric("recall@10", "recall@10 (doc)", "rate", "answerable", _rm("recall@10"), True),
    Metric("mrr", "MRR (doc)", "score", "answerable", _rm("reciprocal_rank"), False),
    Metric("evidence_hit", "evidence chunk in context", "rate", "answerable", _rm("evidence_hit"), True),
    Metric("evidence_mrr", "MRR (evidence chunk)", "score", "answerable", _rm("evidence_reciprocal_rank"), False),
    Metric("accuracy_answerable", "accuracy on answerable", "rate", "answerable", _get("correct"), True),
    Metric("accuracy_normalised", "accuracy, normalised match", "rate", "answerable", _normalised_correct, True),
    Metric("refusal_accuracy", "refusal accuracy on no-answer", "rate", "no_answer", _get("correct"), True),
    Metric("accuracy_overall", "accuracy overall", "rate", "all", _get("correct"), True),
    Metric("mean_groundedness", "mean groundedness", "score", "all", _get("groundedness"), False),
    Metric("wrong", "wrong", "count", "all", _flag("wrong"), True),
    Metric("hallucination", "hallucination flags", "count", "all", _flag("hallucination"), True),
    Metric("grounded_but_wrong", "grounded-but-wrong flags", "count", "all", _flag("grounded_but_wrong"), True),
    Metric("review", "review queue", "count", "all", _flag("review"), True),
)
METRIC_KEYS = tuple(m.key for m in METRICS)


def _population(rows: Sequence[Row], population: str) -> list[Row]:
    return [r for r in rows if population == "all" or r["type"] == population]


def _aggregate(metric: Metric, rows: Sequence[Row]) -> float | int | None:
    values = [metric.value(r) for r in _population(rows, metric.population)]
    kept = [float(v) for v in values if v is not None]
    if metric.kind == "count":
        return int(sum(kept))
    return round(sum(kept) / len(kept), 6) if kept else None


def summarise(rows: Sequence[Row]) -> dict[str, Any]:
    """Metrics of one configuration's rows."""
    summary: dict[str, Any] = {
        "questions": len(rows),
        "answerable": sum(1 for r in rows if r["type"] == "answerable"),
        "no_answer": sum(1 for r in rows if r["type"] == "no_answer"),
    }
    summary.update({m.key: _aggregate(m, rows) for m in METRICS})
    return summary


def significance(rows: Sequence[Row], baseline: str, candidate: str, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Paired bootstrap CI (and McNemar for yes/no metrics) of every delta, pairing rows by question id.

    For count metrics the interval is scaled to a count (per-question mean
    difference × number of questions), so it reads in the same unit as the delta.
    """
    by_config = {name: {r["question_id"]: r for r in rows if r["config"] == name} for name in (baseline, candidate)}
    shared_ids = [q for q in by_config[baseline] if q in by_config[candidate]]
    out: dict[str, Any] = {}
    for metric in METRICS:
        pairs = [
            (by_config[baseline][q], by_config[candidate][q])
            for q in shared_ids
            if metric.population == "all" or by_config[baseline][q]["type"] == metric.population
        ]
        result = compare_metric(
            metric.key, [metric.value(b) for b, _ in pairs], [metric.value(c) for _, c in pairs], metric.binary, seed
        )
        if metric.kind == "count":
            scale = len(pairs)
            for key in ("ci_low", "ci_high", "delta"):
                if result[key] is not None:
                    result[key] = round(result[key] * scale, 6)
        out[metric.key] = result
    return out


def compare(rows: Sequence[Row], baseline: str, candidate: str, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Summaries of both configurations, ``delta = candidate - baseline`` and its significance."""
    base = summarise([r for r in rows if r["config"] == baseline])
    cand = summarise([r for r in rows if r["config"] == candidate])
    delta = {
        m.key: (None if base[m.key] is None or cand[m.key] is None else round(cand[m.key] - base[m.key], 6))
        for m in METRICS
    }
    return {
        "baseline": baseline,
        "candidate": candidate,
        "configs": {baseline: base, candidate: cand},
        "delta": delta,
        "significance": significance(rows, baseline, candidate, seed),
        "bootstrap": {"seed": seed, "confidence": 0.95, "pairing": "question_id"},
    }


def format_value(value: float | int | None, kind: str, signed: bool = False) -> str:
    """A metric value as the table and the report print it."""
    if value is None:
        return "n/a"
    if kind == "count":
        return f"{value:+g}" if signed else f"{value:g}"
    if kind == "rate":
        return f"{value * 100:+.1f} pts" if signed else f"{value * 100:.1f}%"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def format_interval(sig: dict[str, Any], kind: str) -> str:
    """``[low, high]`` of the bootstrap interval in the metric's unit."""
    if sig.get("ci_low") is None:
        return "n/a"
    if kind == "rate":
        return f"[{sig['ci_low'] * 100:+.1f}, {sig['ci_high'] * 100:+.1f}]"
    if kind == "count":
        return f"[{sig['ci_low']:+.1f}, {sig['ci_high']:+.1f}]"
    return f"[{sig['ci_low']:+.3f}, {sig['ci_high']:+.3f}]"


def format_table(comparison: dict[str, Any]) -> str:
    """The summary table the command prints: both configs, the delta, its 95% CI and McNemar p."""
    base, cand = comparison["baseline"], comparison["candidate"]
    b, c, d = comparison["configs"][base], comparison["configs"][cand], comparison["delta"]
    sig = comparison.get("significance", {})
    header = ("metric", base, cand, "delta", "95% CI (paired bootstrap)", "McNemar p")
    lines = [header]
    for m in METRICS:
        s = sig.get(m.key, {})
        p = s.get("p_value")
        lines.append(
            (
                m.label,
                format_value(b[m.key], m.kind),
                format_value(c[m.key], m.kind),
                format_value(d[m.key], m.kind, signed=True),
                format_interval(s, m.kind) if s else "n/a",
                "" if p is None else f"{p:.3f}",
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = [
        "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
        for row in lines
    ]
    out.insert(1, "  ".join("-" * w for w in widths))
    counts = f"questions: {b['questions']} ({b['answerable']} answerable, {b['no_answer']} no-answer)"
    return "\n".join(out + [counts])

"""Aggregate metrics per configuration, and the candidate-minus-baseline deltas.

Every metric is a plain mean or count over the published rows, so a reader can
recompute it from ``results.jsonl`` with a one-line pandas expression.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from evalgate_lib.flags import FLAG_NAMES

#: (key, label, kind) in display order; kind is "rate", "score" or "count".
METRICS: tuple[tuple[str, str, str], ...] = (
    ("retrieval_recall", "retrieval recall (answerable)", "rate"),
    ("accuracy_answerable", "accuracy on answerable", "rate"),
    ("refusal_accuracy", "refusal accuracy on no-answer", "rate"),
    ("accuracy_overall", "accuracy overall", "rate"),
    ("mean_groundedness", "mean groundedness", "score"),
    ("wrong", "wrong", "count"),
    ("hallucination", "hallucination flags", "count"),
    ("grounded_but_wrong", "grounded-but-wrong flags", "count"),
    ("review", "review queue", "count"),
)


def _mean(values: Iterable[float | bool | None]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return round(sum(kept) / len(kept), 6) if kept else None


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Metrics of one configuration's rows."""
    answerable = [r for r in rows if r["type"] == "answerable"]
    no_answer = [r for r in rows if r["type"] == "no_answer"]
    summary: dict[str, Any] = {
        "questions": len(rows),
        "answerable": len(answerable),
        "no_answer": len(no_answer),
        "retrieval_recall": _mean(r["retrieval_hit"] for r in answerable),
        "accuracy_answerable": _mean(r["correct"] for r in answerable),
        "refusal_accuracy": _mean(r["correct"] for r in no_answer),
        "accuracy_overall": _mean(r["correct"] for r in rows),
        "mean_groundedness": _mean(r["groundedness"] for r in rows),
    }
    for flag in FLAG_NAMES:
        summary[flag] = sum(1 for r in rows if r["flags"][flag])
    return summary


def compare(rows: Sequence[dict[str, Any]], baseline: str, candidate: str) -> dict[str, Any]:
    """Summaries of both configurations and ``delta = candidate - baseline`` for every metric."""
    base = summarise([r for r in rows if r["config"] == baseline])
    cand = summarise([r for r in rows if r["config"] == candidate])
    delta = {
        key: (None if base[key] is None or cand[key] is None else round(cand[key] - base[key], 6))
        for key, _, _ in METRICS
    }
    return {"baseline": baseline, "candidate": candidate, "configs": {baseline: base, candidate: cand}, "delta": delta}


def _fmt(value: float | int | None, kind: str, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    if kind == "count":
        return f"{value:+d}" if signed else f"{value:d}"
    if kind == "rate":
        return f"{value * 100:+.1f} pts" if signed else f"{value * 100:.1f}%"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def format_table(comparison: dict[str, Any]) -> str:
    """The summary table the command prints: one row per metric, both configs and the delta."""
    base, cand = comparison["baseline"], comparison["candidate"]
    b, c, d = comparison["configs"][base], comparison["configs"][cand], comparison["delta"]
    header = ("metric", base, cand, "delta")
    lines = [header] + [
        (label, _fmt(b[key], kind), _fmt(c[key], kind), _fmt(d[key], kind, signed=True)) for key, label, kind in METRICS
    ]
    widths = [max(len(row[i]) for row in lines) for i in range(4)]
    out = [
        "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
        for row in lines
    ]
    out.insert(1, "  ".join("-" * w for w in widths))
    counts = f"questions: {b['questions']} ({b['answerable']} answerable, {b['no_answer']} no-answer)"
    return "\n".join(out + [counts])

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
from typing import Any, Callable, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.judging.rows import RECALL_KS, ResultRow, RetrievalScores
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED, compare_metric


def _retrieval(pick: Callable[[RetrievalScores], Any]) -> Callable[[ResultRow], Any]:
    return lambda r: None if r.retrieval_metrics is None else pick(r.retrieval_metrics)


def _get(name: str) -> Callable[[ResultRow], Any]:
    return lambda r: getattr(r, name)


def _flag(name: str) -> Callable[[ResultRow], Any]:
    return lambda r: r.flags.fired(name)


def _normalised_correct(r: ResultRow) -> Any:
    return None if r.matching.normalised is None else r.matching.normalised.correct


def _recall(k: int) -> Callable[[ResultRow], Any]:
    return _retrieval(lambda m: m.recall[k])


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
    value: Callable[[ResultRow], Any]
    binary: bool


METRICS: tuple[Metric, ...] = (
    Metric("retrieval_recall", "retrieval recall@top-k (doc)", "rate", "answerable", _get("retrieval_hit"), True),
    *(Metric(f"recall@{k}", f"recall@{k} (doc)", "rate", "answerable", _recall(k), True) for k in RECALL_KS),
    Metric("mrr", "MRR (doc)", "score", "answerable", _retrieval(lambda m: m.reciprocal_rank), False),
    Metric(
        "evidence_hit", "evidence chunk in context", "rate", "answerable", _retrieval(lambda m: m.evidence_hit), True
    ),
    Metric(
        "evidence_mrr",
        "MRR (evidence chunk)",
        "score",
        "answerable",
        _retrieval(lambda m: m.evidence_reciprocal_rank),
        False,
    ),
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


def in_population(row: ResultRow, population: str) -> bool:
    """Whether ``row`` counts towards a metric averaged over ``population``."""
    return population == "all" or row.type == population


def aggregate(kind: str, values: Sequence[Any]) -> float | int | None:
    """The one aggregation behind every summary figure: a count of true values, or a mean.

    ``None`` values (a metric undefined for that question, e.g. groundedness of a plain
    refusal) are left out. A count sums the values; a rate or score is their mean, rounded
    to 6 places, and ``None`` when no value is defined. MRR is this mean over
    per-question reciprocal ranks.
    """
    kept = [float(v) for v in values if v is not None]
    if kind == "count":
        return int(sum(kept))
    return round(sum(kept) / len(kept), 6) if kept else None


def _aggregate(metric: Metric, rows: Sequence[ResultRow]) -> float | int | None:
    return aggregate(metric.kind, [metric.value(r) for r in rows if in_population(r, metric.population)])


def summarise(rows: Sequence[ResultRow]) -> dict[str, Any]:
    """Metrics of one configuration's rows."""
    summary: dict[str, Any] = {
        "questions": len(rows),
        "answerable": sum(1 for r in rows if r.type == "answerable"),
        "no_answer": sum(1 for r in rows if r.type == "no_answer"),
    }
    summary.update({m.key: _aggregate(m, rows) for m in METRICS})
    return summary


def significance(rows: Sequence[ResultRow], baseline: str, candidate: str, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Paired bootstrap CI (and McNemar for yes/no metrics) of every delta, pairing rows by question id.

    For count metrics the interval is scaled to a count (per-question mean
    difference × number of questions), so it reads in the same unit as the delta.
    """
    by_config = {name: {r.question_id: r for r in rows if r.config == name} for name in (baseline, candidate)}
    shared_ids = [q for q in by_config[baseline] if q in by_config[candidate]]
    out: dict[str, Any] = {}
    for metric in METRICS:
        pairs = [
            (by_config[baseline][q], by_config[candidate][q])
            for q in shared_ids
            if in_population(by_config[baseline][q], metric.population)
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


#: The counts every config's summary carries before its metrics.
COUNT_KEYS = ("questions", "answerable", "no_answer")


@dataclass(frozen=True)
class Summary:
    """``summary.json``, typed: both configs' metrics, ``delta = candidate - baseline`` and its significance.

    Made by :func:`compare` only, written with :meth:`to_json` and read back with
    :meth:`from_json`, which refuses a summary missing any key a reader needs (a gate
    reading ``{}`` must say so, not crash or pass). The inner mappings stay plain
    dicts keyed by metric (``configs[name][key]``, ``delta[key]``, ``significance[key]``),
    the shape :data:`METRICS` defines.
    """

    baseline: str
    candidate: str
    configs: dict[str, dict[str, Any]]
    delta: dict[str, float | int | None]
    significance: dict[str, dict[str, Any]]
    bootstrap: dict[str, Any]

    @property
    def baseline_metrics(self) -> dict[str, Any]:
        return self.configs[self.baseline]

    @property
    def candidate_metrics(self) -> dict[str, Any]:
        return self.configs[self.candidate]

    def questions_per_config(self) -> dict[str, int]:
        """How many questions each config answered, baseline first."""
        return {name: int(self.configs[name]["questions"]) for name in (self.baseline, self.candidate)}

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` object (written with sorted keys, so byte-identical across reruns)."""
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "configs": self.configs,
            "delta": self.delta,
            "significance": self.significance,
            "bootstrap": self.bootstrap,
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "summary.json") -> Summary:
        """Read a ``summary.json`` object back, naming (in ``source``) the first key it lacks."""
        if not isinstance(data, dict):
            raise InputError(f"{source}: not a JSON object (got {type(data).__name__})")
        for key in ("baseline", "candidate", "configs", "delta", "significance", "bootstrap"):
            if key not in data:
                raise InputError(f"{source}: missing key {key!r}")
        names = (data["baseline"], data["candidate"])
        for name in names:
            stats = data["configs"].get(name) if isinstance(data["configs"], dict) else None
            if not isinstance(stats, dict):
                raise InputError(f"{source}: missing key 'configs.{name}'")
            _require(stats, (*COUNT_KEYS, *METRIC_KEYS), f"configs.{name}", source)
        _require(data["delta"], METRIC_KEYS, "delta", source)
        _require(data["significance"], METRIC_KEYS, "significance", source)
        return cls(
            baseline=str(names[0]),
            candidate=str(names[1]),
            configs={str(n): dict(data["configs"][n]) for n in names},
            delta=dict(data["delta"]),
            significance={k: dict(v) for k, v in data["significance"].items()},
            bootstrap=dict(data["bootstrap"]),
        )


def _require(section: Any, keys: Sequence[str], where: str, source: str) -> None:
    if not isinstance(section, dict):
        raise InputError(f"{source}: {where!r} is not a JSON object")
    for key in keys:
        if key not in section:
            raise InputError(f"{source}: missing key '{where}.{key}'")


def compare(rows: Sequence[ResultRow], baseline: str, candidate: str, seed: int = DEFAULT_SEED) -> Summary:
    """Summaries of both configurations, ``delta = candidate - baseline`` and its significance.

    The one place a :class:`Summary` is made.
    """
    base = summarise([r for r in rows if r.config == baseline])
    cand = summarise([r for r in rows if r.config == candidate])
    delta = {
        m.key: (None if base[m.key] is None or cand[m.key] is None else round(cand[m.key] - base[m.key], 6))
        for m in METRICS
    }
    return Summary(
        baseline=baseline,
        candidate=candidate,
        configs={baseline: base, candidate: cand},
        delta=delta,
        significance=significance(rows, baseline, candidate, seed),
        bootstrap={"seed": seed, "confidence": 0.95, "pairing": "question_id"},
    )


def format_value(value: float | int | None, kind: str, signed: bool = False) -> str:
    """A metric value as the table and the report print it."""
    if value is None:
        return "n/a"
    if kind == "count":
        return f"{value:+g}" if signed else f"{value:g}"
    if kind == "rate":
        return f"{value * 100:+.1f} pts" if signed else f"{value * 100:.1f}%"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def format_interval(sig: Mapping[str, Any], kind: str) -> str:
    """``[low, high]`` of the bootstrap interval in the metric's unit."""
    if sig.get("ci_low") is None:
        return "n/a"
    if kind == "rate":
        return f"[{sig['ci_low'] * 100:+.1f}, {sig['ci_high'] * 100:+.1f}]"
    if kind == "count":
        return f"[{sig['ci_low']:+.1f}, {sig['ci_high']:+.1f}]"
    return f"[{sig['ci_low']:+.3f}, {sig['ci_high']:+.3f}]"


def format_table(summary: Summary) -> str:
    """The summary table the command prints: both configs, the delta, its 95% CI and McNemar p."""
    base, cand = summary.baseline, summary.candidate
    b, c, d = summary.baseline_metrics, summary.candidate_metrics, summary.delta
    sig = summary.significance
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

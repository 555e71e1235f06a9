"""Aggregate metrics per configuration, the deltas, and whether each delta beats noise.

Every metric is defined once, in :data:`METRICS`, as a per-question value and
the questions it is averaged over. The summary (a mean or a count), the delta
(candidate − baseline) and the paired significance (for yes/no metrics McNemar's exact
test and the interval that inverts it; for scores a seeded percentile-bootstrap interval
on the per-question differences) all come from that one definition, so a reader can
recompute any number from ``results.jsonl`` with a one-line pandas expression.

Rank metrics are measured at the depth the rows hold and no deeper (:func:`ranking_depths`):
a run ranks 10 chunks deep (or top-k, if deeper), an answer log holds the passages it logged.
recall@k beyond that depth is *not measurable* (``None``), and MRR is MRR@depth, named so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.judging.rows import RECALL_KS, ResultRow, RetrievalScores
from evalgate_lib.retrieval.metrics import hit_at_k, reciprocal_rank
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED, EXACT_MCNEMAR, PERCENTILE_BOOTSTRAP, compare_metric


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


def _within(rank: int | None, depth: int | None) -> int | None:
    """A rank as a ranking ``depth`` deep sees it: beyond the depth, not found."""
    return rank if depth is None or rank is None or rank <= depth else None


def _at_depth(metric: Metric, depth: int | None) -> Callable[[ResultRow], Any]:
    """A rank metric's per-question value at ``depth`` (``None``: the value the row holds).

    recall@k beyond the depth is not measurable (``None`` for every question); MRR and evidence MRR
    are recomputed from the row's rank (:func:`~evalgate_lib.retrieval.metrics.reciprocal_rank`) with
    ranks beyond the depth counted as not found, so both configs are measured equally deep.
    """
    if depth is None:
        return metric.value
    if metric.key.startswith("recall@"):
        k = int(metric.key.split("@")[1])
        if k > depth:
            return lambda r: None
        return _retrieval(lambda m: hit_at_k(_within(m.gold_rank, depth), k))
    if metric.key == "mrr":
        return _retrieval(lambda m: reciprocal_rank(_within(m.gold_rank, depth)))
    if metric.key == "evidence_mrr":
        return _retrieval(
            lambda m: None if m.evidence_reciprocal_rank is None else reciprocal_rank(_within(m.evidence_rank, depth))
        )
    return metric.value


@dataclass(frozen=True)
class Metric:
    """One published metric.

    ``population`` is which questions it is averaged over (``answerable``,
    ``no_answer`` or ``all``); ``kind`` is ``rate`` (a share, shown in %),
    ``score`` (a mean in [0, 1]) or ``count`` (a number of flagged questions).
    ``rising_is_worse`` marks a rate that measures a fault (answers with an unsupported claim): every view
    colours its rise as worse, as it does a flag count's (:attr:`lower_is_better`).
    """

    key: str
    label: str
    kind: str
    population: str
    value: Callable[[ResultRow], Any]
    binary: bool
    rising_is_worse: bool = False

    @property
    def lower_is_better(self) -> bool:
        """A fall is an improvement: a flag count, or a rate of faults."""
        return self.rising_is_worse or self.kind == "count"


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
    Metric(
        "unsupported_claim",
        "answers with an unsupported claim",
        "rate",
        "all",
        _flag("unsupported_claim"),
        True,
        rising_is_worse=True,
    ),
    Metric("wrong", "wrong", "count", "all", _flag("wrong"), True),
    Metric("hallucination", "hallucination flags", "count", "all", _flag("hallucination"), True),
    Metric("grounded_but_wrong", "grounded-but-wrong flags", "count", "all", _flag("grounded_but_wrong"), True),
    Metric("review", "review queue", "count", "all", _flag("review"), True),
)
METRIC_KEYS = tuple(m.key for m in METRICS)
_BY_KEY = {m.key: m for m in METRICS}


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


def _aggregate(metric: Metric, rows: Sequence[ResultRow], depth: int | None = None) -> float | int | None:
    value = _at_depth(metric, depth)
    return aggregate(metric.kind, [value(r) for r in rows if in_population(r, metric.population)])


def summarise(rows: Sequence[ResultRow], depth: int | None = None) -> dict[str, Any]:
    """Metrics of one configuration's rows, rank metrics at ``depth`` (``None``: as the rows hold them)."""
    summary: dict[str, Any] = {
        "questions": len(rows),
        "answerable": sum(1 for r in rows if r.type == "answerable"),
        "no_answer": sum(1 for r in rows if r.type == "no_answer"),
    }
    summary.update({m.key: _aggregate(m, rows, depth) for m in METRICS})
    return summary


#: How deep a run ranks chunks for its rank metrics whatever top-k the prompt uses (``run.pipeline`` ranks so).
RUN_RANKING_DEPTH = 10


def ranking_depths(
    rows: Sequence[ResultRow], configs: Sequence[str], top_k: int | None, logged: bool = False
) -> dict[str, int] | None:
    """How deep each config's rank metrics can look: what a run ranked, or what an answer log holds.

    ``logged`` (answer logs, ``evalgate score``): the deepest rank of any passage the config's log
    gives (its rows' ``retrieved``); a log of 4 passages per question cannot say whether the gold
    article was 5th or 11th, so its recall@5 and recall@10 are not measurable. Otherwise ``top_k``
    (a run): ``max(top_k, 10)``, the ranking ``run.pipeline`` computes whatever the prompt's top-k;
    ``None`` when neither is known (rows as they are).
    """
    if logged:
        # a log with no passage at all retrieved nothing at any depth: its rank metrics are misses, as the rows say
        deepest = {c: max((p.rank for r in rows if r.config == c for p in r.retrieved), default=0) for c in configs}
        return {c: d if d else RUN_RANKING_DEPTH for c, d in deepest.items()}
    if top_k is not None:
        return {c: max(top_k, RUN_RANKING_DEPTH) for c in configs}
    return None


def compared_depth(depths: Mapping[str, int] | None, baseline: str, candidate: str) -> int | None:
    """The depth both configs are measured at: the shallower one's (``None``: no depths given, the rows' own)."""
    if not depths:
        return None
    return min(int(depths[baseline]), int(depths[candidate]))


def not_measurable(depth: int | None) -> list[str]:
    """The rank metrics a ranking ``depth`` deep cannot measure (recall@k for k > depth)."""
    return [] if depth is None else [f"recall@{k}" for k in RECALL_KS if k > depth]


def significance(
    rows: Sequence[ResultRow], baseline: str, candidate: str, seed: int = DEFAULT_SEED, depth: int | None = None
) -> dict[str, Any]:
    """Every delta's interval (and McNemar's p for yes/no metrics), pairing rows by question id.

    The interval is the exact McNemar interval for a yes/no metric and the percentile bootstrap for a
    score (:func:`~evalgate_lib.statistics.paired_tests.compare_metric`). A count metric's delta is
    the integer ``c - b`` and its interval is in answers, the unit of the delta.
    """
    by_config = {name: {r.question_id: r for r in rows if r.config == name} for name in (baseline, candidate)}
    shared_ids = [q for q in by_config[baseline] if q in by_config[candidate]]
    out: dict[str, Any] = {}
    for metric in METRICS:
        value = _at_depth(metric, depth)
        pairs = [
            (by_config[baseline][q], by_config[candidate][q])
            for q in shared_ids
            if in_population(by_config[baseline][q], metric.population)
        ]
        out[metric.key] = compare_metric(
            metric.key,
            [value(b) for b, _ in pairs],
            [value(c) for _, c in pairs],
            metric.binary,
            seed,
            scale=len(pairs) if metric.kind == "count" else None,
        )
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
    #: How deep each config's rank metrics look (:func:`ranking_depths`); both are measured at the shallower.
    ranking_depth: dict[str, int] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        """The depth both configs' rank metrics are measured at (MRR is MRR@depth); a run's 10 when not recorded."""
        depths = [int(self.ranking_depth[c]) for c in (self.baseline, self.candidate) if c in self.ranking_depth]
        return min(depths) if depths else RUN_RANKING_DEPTH

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
            "ranking_depth": self.ranking_depth,
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "summary.json") -> Summary:
        """Read a ``summary.json`` object back, naming (in ``source``) the first key it lacks."""
        if not isinstance(data, dict):
            raise InputError(f"{source}: not a JSON object (got {type(data).__name__})")
        for key in ("baseline", "candidate", "configs", "delta", "significance", "bootstrap"):
            if key not in data:
                raise InputError(f"{source}: missing key {key!r}")
        if "ranking_depth" not in data or not isinstance(data["bootstrap"], dict) or "method" not in data["bootstrap"]:
            raise InputError(
                f"{source}: written by an earlier EvalGate (no ranking depth or interval methods recorded: its "
                "intervals were made otherwise)"
            )
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
            ranking_depth={str(k): v for k, v in dict(data["ranking_depth"]).items()},
        )


def _require(section: Any, keys: Sequence[str], where: str, source: str) -> None:
    if not isinstance(section, dict):
        raise InputError(f"{source}: {where!r} is not a JSON object")
    for key in keys:
        if key not in section:
            raise InputError(f"{source}: missing key '{where}.{key}'")


#: What ``summary.json`` says of its intervals (``bootstrap``): how each kind is made.
INTERVALS = {
    "method": "percentile",
    "scores": PERCENTILE_BOOTSTRAP,
    "yes/no metrics": EXACT_MCNEMAR + ": excludes 0 exactly when McNemar's exact p < 0.05",
}


def compare(
    rows: Sequence[ResultRow],
    baseline: str,
    candidate: str,
    seed: int = DEFAULT_SEED,
    depths: Mapping[str, int] | None = None,
) -> Summary:
    """Summaries of both configurations, ``delta = candidate - baseline`` and its significance.

    The one place a :class:`Summary` is made. ``depths`` (:func:`ranking_depths`) is how deep each
    config's rank metrics can look; both are measured at the shallower depth. Without it the rows'
    own rank metrics are used as they are (a run's ten-deep ranking).
    """
    depth = compared_depth(depths, baseline, candidate)
    base = summarise([r for r in rows if r.config == baseline], depth)
    cand = summarise([r for r in rows if r.config == candidate], depth)
    delta = {
        m.key: (
            None
            if base[m.key] is None or cand[m.key] is None
            else (cand[m.key] - base[m.key] if m.kind == "count" else round(cand[m.key] - base[m.key], 6))
        )
        for m in METRICS
    }
    depth_of = dict(depths) if depths else {baseline: RUN_RANKING_DEPTH, candidate: RUN_RANKING_DEPTH}
    return Summary(
        baseline=baseline,
        candidate=candidate,
        configs={baseline: base, candidate: cand},
        delta=delta,
        significance=significance(rows, baseline, candidate, seed, depth),
        bootstrap={"seed": seed, "confidence": 0.95, "pairing": "question_id", **INTERVALS},
        ranking_depth={c: int(depth_of[c]) for c in (baseline, candidate)},
    )


def metric_label(key: str, depth: int | None = None) -> str:
    """A metric's printed name, its depth named where it has one: "MRR@4 (doc)" on logs of four passages."""
    label = _BY_KEY[key].label
    if depth is not None and key in ("mrr", "evidence_mrr"):
        return label.replace("MRR", f"MRR@{depth}", 1)
    return label


def format_value(value: float | int | None, kind: str, signed: bool = False) -> str:
    """A metric value as the table and the report print it."""
    if value is None:
        return "n/a"
    if kind == "count":
        return f"{value:+g}" if signed else f"{value:g}"
    if kind == "rate":
        return f"{value * 100:+.1f} pts" if signed else f"{value * 100:.1f}%"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def direction(value: float | int | None, kind: str, lower_is_better: bool | None = None) -> str:
    """Which way a delta moved as the table prints it: ``better``, ``worse`` or ``unchanged``.

    A rate or score rising is better, a flag count rising is worse, and so is a rate of faults
    (``lower_is_better``, :attr:`Metric.lower_is_better`; ``None``: as ``kind`` says). A delta that prints
    as zero (``+0.000``: a change in the fourth decimal) is ``unchanged``, so no view colours it as a move.
    """
    if value is None or not any(ch in "123456789" for ch in format_value(value, kind, signed=True)):
        return "unchanged"
    lower = kind == "count" if lower_is_better is None else lower_is_better
    return "better" if (value > 0) != lower else "worse"


def signed(value: float, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals, more where fewer would print a non-zero bound as ±0.

    An interval's side of 0 is a verdict: a lower bound of +0.004 points must not read "+0.0".
    """
    text = f"{value:+.{digits}f}"
    while value != 0 and float(text) == 0 and digits < 6:
        digits += 1
        text = f"{value:+.{digits}f}"
    return text


def format_interval(sig: Mapping[str, Any], kind: str) -> str:
    """``[low, high]`` of a delta's interval in the metric's unit (points for a rate, answers for a count)."""
    if sig.get("ci_low") is None:
        return "n/a"
    if kind == "rate":
        return f"[{signed(sig['ci_low'] * 100, 1)}, {signed(sig['ci_high'] * 100, 1)}]"
    if kind == "count":
        return f"[{signed(sig['ci_low'], 1)}, {signed(sig['ci_high'], 1)}]"
    return f"[{signed(sig['ci_low'], 3)}, {signed(sig['ci_high'], 3)}]"


def format_p(p: float | None, binary: bool) -> str:
    """McNemar's p as the table and the report print it: blank for a score (no McNemar test), ``n/a`` for a yes/no
    metric measured on no question (its delta is ``n/a`` too: no test was made)."""
    if p is None:
        return "n/a" if binary else ""
    return f"{p:.3f}"


def depth_note(summary: Summary) -> str | None:
    """The line that says which rank metrics the rows are too shallow for, or ``None`` when every one is measured."""
    missing = not_measurable(summary.depth)
    if not missing:
        return None
    return (
        f"{', '.join(missing)}: not measurable (the ranking holds {summary.depth} passage(s) per question: "
        f"whether the gold article came later is unknown); MRR is MRR@{summary.depth}"
    )


def format_table(summary: Summary) -> str:
    """The summary table the command prints: both configs, the delta, its 95% interval and McNemar's exact p.

    The interval is the exact McNemar one for a yes/no metric (it excludes 0 exactly when p < 0.05)
    and the percentile bootstrap for a score; a rank metric the rows are too shallow for reads
    "not measurable", and a line under the table says why.
    """
    base, cand = summary.baseline, summary.candidate
    b, c, d = summary.baseline_metrics, summary.candidate_metrics, summary.delta
    sig = summary.significance
    header = ("metric", base, cand, "delta", "95% CI", "McNemar p")
    lines = [header]
    shallow = set(not_measurable(summary.depth))
    for m in METRICS:
        s = sig.get(m.key, {})
        p = s.get("p_value")
        if m.key in shallow:
            lines.append((m.label, "not measurable", "not measurable", "", "", ""))
            continue
        lines.append(
            (
                metric_label(m.key, summary.depth),
                format_value(b[m.key], m.kind),
                format_value(c[m.key], m.kind),
                format_value(d[m.key], m.kind, signed=True),
                format_interval(s, m.kind) if s else "n/a",
                format_p(p, m.binary),
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = [
        "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
        for row in lines
    ]
    out.insert(1, "  ".join("-" * w for w in widths))
    counts = f"questions: {b['questions']} ({b['answerable']} answerable, {b['no_answer']} no-answer)"
    how = (
        "95% CI: yes/no metrics exact McNemar (Clopper-Pearson, excludes 0 exactly when McNemar p < 0.05); "
        "scores percentile bootstrap (10,000 resamples)"
    )
    note = depth_note(summary)
    return "\n".join(out + [counts, how] + ([note] if note else []))

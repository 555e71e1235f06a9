"""Several candidates against one baseline: each one's gate verdict, adjusted for how many were tried, and the leader.

Each candidate is its own pair with the baseline (its own :class:`~evalgate_lib.statistics.metrics.Summary`,
deltas and intervals, exactly as a two-config run computes them). What changes with several is the
significance: for each yes/no metric, the candidates' McNemar p-values form one family and are
adjusted with Holm's step-down method (:func:`~evalgate_lib.statistics.multiple_testing.holm_adjust`)
and shown beside them (:func:`holm_p_values`: the *significant* marks), and each yes/no rule's p against its
*limit* (:func:`~evalgate_lib.statistics.gate.judge_limit_p`, the test the gate decides by) forms another family,
adjusted the same way (:func:`holm_limit_p_values`): the gate decides every candidate on that adjusted
p. A score's bootstrap interval is not adjusted
(Holm adjusts p-values; the summary holds none for a score), and the verdict says so.

Which candidate leads (:func:`rank_candidates`) is decided by the thresholds file the team wrote:
passing candidates first, then the best delta on the file's first rule, then its second, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from evalgate_lib.statistics.gate import (
    GateConfig,
    RuleVerdict,
    format_verdict,
    judge,
    judge_limit_p,
    outcome_of,
)
from evalgate_lib.statistics.metrics import METRICS, Summary
from evalgate_lib.statistics.multiple_testing import holm_adjust

#: What the Holm family is, in the words the verdict and the report use.
HOLM_FAMILY = "McNemar p of each yes/no metric Holm-adjusted across the {n} candidates"

_SCORES = frozenset(m.key for m in METRICS if not m.binary)


@dataclass(frozen=True)
class CandidateVerdict:
    """One candidate's gate verdict within a family of candidates: its pair summary, rules and adjusted p-values."""

    summary: Summary
    verdicts: tuple[RuleVerdict, ...]
    #: Metric → Holm-adjusted McNemar p against no change (``None`` for a score, or a metric with no p-value).
    adjusted_p: dict[str, float | None]
    #: Rule's metric → Holm-adjusted p against the rule's limit, which decides it (``None``: a score, no p).
    adjusted_limit_p: dict[str, float | None] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.summary.candidate

    @property
    def failed(self) -> bool:
        return any(v.failed for v in self.verdicts)

    @property
    def inconclusive(self) -> bool:
        """No rule fails, but one is not shown within its limit (issue 53's third outcome)."""
        return not self.failed and any(v.inconclusive for v in self.verdicts)

    @property
    def outcome(self) -> str:
        """``FAIL``, ``INCONCLUSIVE`` or ``PASS``, as one pair's gate would say."""
        return outcome_of(self.failed, self.inconclusive)[0]


def family_outcome(judged: Sequence[CandidateVerdict], allow_inconclusive: bool = False) -> tuple[str, int]:
    """The family's verdict and exit code, as the text's last line says it: ``FAIL`` (exit 1) when a candidate fails;
    else ``INCONCLUSIVE`` when one is (exit 4, 0 with ``--allow-inconclusive``); else ``PASS`` (exit 0).

    One place for both, so ``--json`` writes what ``evalgate gate`` exits with (it wrote PASS and 0 for a family
    with an inconclusive candidate and no failing one, which exits 4)."""
    return outcome_of(any(c.failed for c in judged), any(c.inconclusive for c in judged), allow_inconclusive)


def holm_p_values(summaries: Sequence[Summary]) -> list[dict[str, float | None]]:
    """Per candidate (in the order given), each metric's McNemar p adjusted by Holm across the candidates.

    The family of a metric is the candidates whose summary has a p-value for it (a metric
    measured on no question has none and is left out, so ``m`` counts only tests made).
    Scores (no McNemar p) read ``None``.
    """
    out: list[dict[str, float | None]] = [{} for _ in summaries]
    for metric in METRICS:
        found = [(i, (s.significance.get(metric.key) or {}).get("p_value")) for i, s in enumerate(summaries)]
        present = [(i, p) for i, p in found if p is not None]
        adjusted = holm_adjust([p for _, p in present])
        for i, _ in found:
            out[i][metric.key] = None
        for (i, _), q in zip(present, adjusted, strict=True):
            out[i][metric.key] = q
    return out


def holm_limit_p_values(summaries: Sequence[Summary], gate: GateConfig) -> list[dict[str, float | None]]:
    """Per candidate (in the order given), each yes/no rule's p against its limit
    (:func:`~evalgate_lib.statistics.gate.judge_limit_p`) adjusted by Holm across the candidates, keyed by metric.

    The family of a rule is the candidates with a p for it; a score's rule, or one measured on no question, reads
    ``None``. Each p says how surely a candidate lies on one side of the limit (FAIL or PASS), so the adjustment
    bounds the chance that any candidate of the family is called either way wrongly at α.
    """
    out: list[dict[str, float | None]] = [{} for _ in summaries]
    for rule in gate.rules:
        found = [(i, judge_limit_p(s, rule)) for i, s in enumerate(summaries)]
        present = [(i, p) for i, p in found if p is not None]
        for i, _ in found:
            out[i][rule.metric] = None
        for (i, _), q in zip(present, holm_adjust([p for _, p in present]), strict=True):
            out[i][rule.metric] = q
    return out


def judge_candidates(summaries: Sequence[Summary], gate: GateConfig) -> list[CandidateVerdict]:
    """Every candidate's verdict under ``gate``, each yes/no rule decided on its Holm-adjusted p against its limit
    (given order)."""
    names = [s.candidate for s in summaries]
    if len(set(names)) != len(names) or len({s.baseline for s in summaries}) > 1:
        raise ValueError(f"candidates must be distinct and share one baseline, got {names}")
    family = len(summaries)
    return [
        CandidateVerdict(summary, tuple(judge(summary, gate, adjusted_p=adjusted, family=family,
                                              adjusted_limit_p=limits)), adjusted, limits)  # fmt: skip
        for summary, adjusted, limits in zip(summaries, holm_p_values(summaries),
                                             holm_limit_p_values(summaries, gate), strict=True)  # fmt: skip
    ]


def _rule_score(verdict: RuleVerdict) -> float:
    """A rule's delta turned so that larger is better (a drop rule wants a high delta, a rise rule a low one)."""
    if verdict.delta is None:
        return float("-inf")
    return float(verdict.delta) if verdict.rule.max_drop is not None else -float(verdict.delta)


def rank_candidates(judged: Sequence[CandidateVerdict]) -> list[CandidateVerdict]:
    """The candidates best first: the one the report leads with is the first.

    Passing candidates come before inconclusive ones, those before failing ones; among each, the better delta on the
    thresholds file's first rule wins, then on its second, and so on (a delta not measured
    ranks last); candidates still tied keep the order they were given in.
    """
    order = {id(c): i for i, c in enumerate(judged)}
    return sorted(judged, key=lambda c: (c.failed, c.inconclusive, [-_rule_score(v) for v in c.verdicts],
                                         order[id(c)]))  # fmt: skip


def format_candidates_verdict(
    judged: Sequence[CandidateVerdict],
    gate: GateConfig,
    questions_in_file: int | None = None,
    power: Sequence[str] = (),
) -> str:
    """The gate's verdict on several candidates: one block per candidate (given order), then the overall line.

    The overall line is ``FAIL`` when any candidate fails (every candidate a CI job names is gated,
    as every test of a suite is), naming the failing and the passing ones and the best that passes.
    ``power`` (:func:`evalgate_lib.statistics.power.format_powers`: which rules can fail on these
    questions, Holm-adjusted for the candidates) is one block before it.
    """
    n = len(judged)
    base = judged[0].summary.baseline
    head = f"gate ({gate.mode} mode): {n} candidates vs {base}; " + HOLM_FAMILY.format(n=n)
    if any(v.rule.metric in _SCORES for c in judged for v in c.verdicts):
        head += " (a score's 95% interval is not adjusted)"
    blocks = [format_verdict(c.summary, gate, list(c.verdicts), questions_in_file) for c in judged]
    ranked = rank_candidates(judged)
    passing = [c.name for c in ranked if c.outcome == "PASS"]
    failing = [c.name for c in judged if c.failed]
    unsure = [c.name for c in judged if c.inconclusive]
    best = f"; best that passes: {passing[0]}" if passing else ""
    said = f"; inconclusive: {', '.join(unsure)}" if unsure else ""
    if failing:
        tail = f"FAIL: {len(failing)} of {n} candidates regress ({', '.join(failing)}){said}"
        tail += f"; passing: {', '.join(passing)}{best}" if passing else "; none passes"
    elif unsure:
        tail = (
            f"INCONCLUSIVE: no candidate regresses, {len(unsure)} of {n} not shown within every limit "
            f"({', '.join(unsure)})"
        )
        tail += f"; passing: {', '.join(passing)}{best}" if passing else "; none passes"
    else:
        tail = f"PASS: all {n} candidates pass{best}"
    return "\n\n".join([head, *blocks, *(["\n".join(power)] if power else []), tail])


def format_holm_table(summaries: Sequence[Summary]) -> str:
    """Each yes/no metric's McNemar p and its Holm adjustment, a column per candidate (``evalgate run`` prints it)."""
    adjusted = holm_p_values(summaries)
    header = ("metric", *(s.candidate for s in summaries))
    lines = [header]
    for metric in METRICS:
        if not metric.binary:
            continue
        cells = []
        for summary, holm in zip(summaries, adjusted, strict=True):
            p, q = (summary.significance.get(metric.key) or {}).get("p_value"), holm.get(metric.key)
            cells.append("n/a" if p is None or q is None else f"{p:.3f} -> {q:.3f}")
        lines.append((metric.label, *cells))
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = [
        "  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
        for row in lines
    ]
    out.insert(1, "  ".join("-" * w for w in widths))
    title = (
        f"McNemar p -> Holm-adjusted p ({len(summaries)} candidates vs {summaries[0].baseline}, each metric a family)"
    )
    return "\n".join([title, *out])

"""The gate's decision, made once: every rule with the figure that decided it, and what the verdict rests on.

``evalgate gate`` (its text, ``--json``, ``--junit``, ``--markdown``) and the report's first screen all
render one :class:`GateDecision`; none of them judges a rule again. :func:`decide` makes it from the
run's summary (recomputed from its rows), the thresholds, the labels' correction if any, the Holm
adjustment of a candidate of several, and what the run layer knows of the folder (its signature line,
whether the run was partial).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from evalgate_lib.statistics.beyond_noise import significant_metrics
from evalgate_lib.statistics.budget_width import labels_to_decide
from evalgate_lib.statistics.gate import (
    EXIT_INCONCLUSIVE,
    GateConfig,
    RuleVerdict,
    basis_line,
    bound_text,
    decided_by,
    format_verdict,
    judge,
    judged_line,
    outcome_of,
)
from evalgate_lib.statistics.label_correction import LabelCorrection, format_correction
from evalgate_lib.statistics.metrics import METRICS, Summary
from evalgate_lib.statistics.power import (
    POPULATION_WORDS,
    RulePower,
    cannot_fail,
    decide_sentence,
    format_powers,
    power_sentence,
    summary_powers,
)

_METRICS = {m.key: m for m in METRICS}

#: The layout of ``gate --json``: bump when a key changes meaning.
DECISION_SCHEMA = 1


@dataclass(frozen=True)
class Partial:
    """A ``--limit`` run: how many of the gold file's questions it judged."""

    questions_run: int
    questions_in_file: int


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict on one candidate against its baseline, made once by :func:`decide`.

    ``rules``: each rule's :class:`~evalgate_lib.statistics.gate.RuleVerdict` (the deciding delta,
    its interval and p from one procedure, which delta decided, the judge's and the labels' figures
    beside it); ``powers``: each rule's :class:`~evalgate_lib.statistics.power.RulePower`, in the same
    order. ``correction``/``labels_refused``: the reviewer labels used, or why given labels could not
    correct. ``family``: the number of candidates tried against the baseline (p-values Holm-adjusted
    when more than one). ``signature``: what vouches for the results folder; ``partial``: a ``--limit`` run.
    ``significant``: the deltas beyond noise (the *significant* marks), from the same tests.
    """

    summary: Summary
    gate: GateConfig
    thresholds: str
    rules: tuple[RuleVerdict, ...]
    powers: tuple[RulePower, ...]
    correction: LabelCorrection | None = None
    labels_refused: str | None = None
    family: int = 1
    signature: str | None = None
    partial: Partial | None = None
    significant: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: ``--allow-inconclusive``: an INCONCLUSIVE verdict exits 0 (the behaviour before three outcomes).
    allow_inconclusive: bool = False
    #: How JUnit shows an INCONCLUSIVE rule: ``failure`` (default) or ``error`` (``--junit-inconclusive``).
    junit_inconclusive: str = "failure"

    @property
    def failed(self) -> list[RuleVerdict]:
        return [v for v in self.rules if v.failed]

    @property
    def inconclusive(self) -> list[RuleVerdict]:
        return [v for v in self.rules if v.inconclusive]

    @property
    def verdict(self) -> str:
        """FAIL when a rule fails; else INCONCLUSIVE when a rule is not shown within its limit; else PASS."""
        return outcome_of(self.failed, bool(self.inconclusive))[0]

    @property
    def exit_code(self) -> int:
        """What ``evalgate gate`` exits with: 1 on a regression, 4 when inconclusive (0 with
        ``--allow-inconclusive``), 0 on a PASS."""
        return outcome_of(self.failed, bool(self.inconclusive), self.allow_inconclusive)[1]

    @property
    def cannot_fail(self) -> list[str]:
        """The rules no change could fail at this size (metric keys, gate order)."""
        return [p.rule.metric for p in cannot_fail(self.powers)]

    def power_of(self, verdict: RuleVerdict) -> RulePower:
        return next(p for p in self.powers if p.rule == verdict.rule)

    def head(self) -> str:
        """ "gate (significant mode): candidate vs baseline"."""
        return f"gate ({self.gate.mode} mode): {self.summary.candidate} vs {self.summary.baseline}"

    def judged(self) -> str:
        """How many questions the verdict rests on, and whether the run was partial."""
        return judged_line(self.summary, None if self.partial is None else self.partial.questions_in_file)

    def basis(self) -> str:
        """What decided each rule, in :func:`~evalgate_lib.statistics.gate.decided_by`'s words, and the labels' line."""
        return basis_line(self.rules, None if self.correction is None else self.correction.line())

    def power_lines(self) -> list[str]:
        return format_powers(self.powers, self.gate.alpha, self.gate.mode)

    def tail(self) -> str:
        """The last line: ``PASS: …`` or ``FAIL: candidate regresses on …``."""
        failed = [v.rule.metric for v in self.failed]
        if failed:
            return f"FAIL: candidate regresses on {', '.join(failed)}"
        if self.inconclusive:
            names = ", ".join(v.rule.metric for v in self.inconclusive)
            exit_word = "exit 0: --allow-inconclusive" if self.allow_inconclusive else f"exit {EXIT_INCONCLUSIVE}"
            return (
                f"INCONCLUSIVE: no rule fails, but the data cannot show the candidate within the limit of {names} "
                f"(see each rule: what would decide it); {exit_word}"
            )
        tail = "PASS: no regression beyond thresholds"
        if self.cannot_fail:
            tail += f" (but {', '.join(self.cannot_fail)} could not fail on this gold set: see power above)"
        return tail

    def text(self) -> str:
        """The verdict ``evalgate gate`` prints: what was judged, which delta decided, each rule, power, PASS/FAIL,
        then every delta the labels correct."""
        out = format_verdict(
            self.summary,
            self.gate,
            list(self.rules),
            questions_in_file=None if self.partial is None else self.partial.questions_in_file,
            labels_line=None if self.correction is None else self.correction.line(),
            trust=self.signature,
            power=self.power_lines(),
            cannot_fail=self.cannot_fail,
            tail=self.tail(),
        )
        if self.labels_refused is not None:
            out += f"\nreviewer labels not used to correct the deltas: {self.labels_refused}"
        if self.correction is not None:
            out += "\n" + format_correction(self.correction, header=False)
        return out

    def to_json(self) -> dict[str, Any]:
        """``gate --json``: every figure of the decision, keyed by name (one object, no float residue)."""
        return {
            "schema": DECISION_SCHEMA,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "baseline": self.summary.baseline,
            "candidate": self.summary.candidate,
            "mode": self.gate.mode,
            "alpha": self.gate.alpha,
            "thresholds": self.thresholds,
            "questions": self.summary.questions_per_config(),
            "partial": None
            if self.partial is None
            else {"questions_run": self.partial.questions_run, "questions_in_file": self.partial.questions_in_file},
            "signature": self.signature,
            "family": self.family,
            "labels": None
            if self.correction is None
            else {
                "basis": self.correction.basis,
                "line": self.correction.line(),
                "labelled_answers": self.correction.labelled_answers,
                "answers": self.correction.answers,
                "plan_sha256": self.correction.plan_sha256,
                "notes": list(self.correction.notes),
            },
            "labels_refused": self.labels_refused,
            "rules": [_rule_json(v, self.power_of(v), self.gate) for v in self.rules],
            "cannot_fail": self.cannot_fail,
            "lines": self.text().splitlines(),
        }


def _figure(delta: Any, stat: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if stat is None:
        return None
    keys = ("ci_low", "ci_high", "confidence", "p_value", "raw_p_value", "test", "interval", "source", "b", "c", "n")
    return {"delta": delta, **{k: stat[k] for k in keys if k in stat}}


def _rule_json(v: RuleVerdict, power: RulePower, gate: GateConfig) -> dict[str, Any]:
    metric = _METRICS[v.rule.metric]
    corrected = v.corrected
    labels = v.labels
    return {
        "metric": v.rule.metric,
        "label": metric.label,
        "kind": metric.kind,
        "limit": {"max_drop": v.rule.max_drop}
        if v.rule.max_drop is not None
        else {"max_increase": v.rule.max_increase},
        "bound": bound_text(v.rule),
        "status": {"FAIL": "fail", "INCONCLUSIVE": "inconclusive"}.get(v.outcome, "ok"),
        "outcome": v.outcome,
        "margin": None if v.margin is None else dict(v.margin),
        "failed": v.failed,
        "breached": v.breached,
        "significant": v.significant,
        "decided_by": decided_by(v),
        "basis": v.basis,
        "decided": _figure(v.delta, v.stat),
        "judge": _figure(v.judge_delta, v.judge_stat),
        "corrected": None
        if corrected is None
        else {
            "census": corrected.census,
            "delta": corrected.delta,
            "ci_low": corrected.ci_low,
            "ci_high": corrected.ci_high,
            "p_value": corrected.p_value,
            "test": corrected.significance()["test"],
            "labelled": corrected.labelled,
            "questions": corrected.questions,
        },
        "labels_decision": None
        if labels is None
        else {
            "outcome": labels.outcome,
            "census_b": [labels.box.b_low, labels.box.b_high],
            "census_c": [labels.box.c_low, labels.box.c_high],
            "ci_low": labels.low,
            "ci_high": labels.high,
            "p_value_up_to": labels.p_value,
        },
        "note": v.note,
        "power": {
            "can_fail": power.can_fail,
            "smallest_change": power.smallest,
            "questions": power.questions,
            "sentence": power_sentence(power, gate.alpha, gate.mode),
        },
        "line": v.message,
    }


def _with_what_decides(verdict: RuleVerdict, gate: GateConfig) -> RuleVerdict:
    """An INCONCLUSIVE rule's line, ending with what would decide it: a larger gold set at the judge's shares
    (:func:`~evalgate_lib.statistics.power.decide_sentence`), and, when a plan's labels decided, more labels."""
    if not verdict.inconclusive:
        return verdict
    stat = verdict.judge_stat or {}
    if verdict.delta is None:
        words = POPULATION_WORDS[_METRICS[verdict.rule.metric].population]
        said = f"no {words[:-1] if words.endswith('s') else words} in this run: add some to the gold set to decide it"
    elif stat.get("b") is None or not stat.get("n"):
        said = "more questions would narrow its interval"
    else:
        said = decide_sentence(verdict.rule, int(stat["b"]), int(stat["c"]), int(stat["n"]), gate.alpha)
    if verdict.corrected is not None and not verdict.corrected.census:
        said += "; or " + _labels_sentence(verdict, gate.alpha)
    return replace(verdict, message=f"{verdict.message}; {said}")


def _labels_sentence(verdict: RuleVerdict, alpha: float) -> str:
    """How many labelled questions would decide a plan's rule, were its estimate to hold
    (:func:`~evalgate_lib.statistics.budget_width.labels_to_decide`, the judge's deltas as the labels' proxy)."""
    fixed = verdict.corrected
    deltas = [float(cand) - float(base) for s in fixed.strata for base, cand in s.judge]
    estimate = fixed.estimate.estimate if fixed.estimate is not None else None
    rule = verdict.rule
    if not deltas or estimate is None or _METRICS[rule.metric].kind != "rate":
        return "label more of the plan's answers (every one labelled: a census)"
    drop = rule.max_drop is not None
    limit = float(rule.max_drop if drop else rule.max_increase)  # type: ignore[arg-type]
    need = labels_to_decide(deltas, estimate, limit, drop, 1.0 - alpha)
    if need is None:
        return f"labelling all {len(deltas)} questions of its population would not decide it, were the estimate to hold"
    return (
        f"about {need} of its {len(deltas)} questions labelled (now {fixed.labelled}) would decide it, were the "
        "estimate to hold (a labels-only forecast: the judge narrows it)"
    )


def decide(
    summary: Summary,
    gate: GateConfig,
    thresholds: str,
    correction: LabelCorrection | None = None,
    labels_refused: str | None = None,
    adjusted_p: Mapping[str, float | None] | None = None,
    family: int = 1,
    signature: str | None = None,
    partial: Partial | None = None,
    adjusted_limit_p: Mapping[str, float | None] | None = None,
) -> GateDecision:
    """The gate's decision (:class:`GateDecision`): every rule judged once, with its power and what it rests on.

    ``summary`` is the run's, recomputed from its rows; ``thresholds`` the file's shareable path;
    ``correction`` the labels' (:func:`~evalgate_lib.statistics.label_correction.correct_with_labels`)
    or ``labels_refused`` the line saying why given labels could not correct; ``adjusted_p`` each
    metric's Holm-adjusted McNemar p when this candidate is one of ``family``, and ``adjusted_limit_p`` each rule's
    Holm-adjusted p against its limit, which decides it
    (:func:`~evalgate_lib.statistics.candidates.holm_limit_p_values`).
    """
    rules = judge(
        summary,
        gate,
        None if correction is None else correction.metrics,
        adjusted_p,
        family,
        None if correction is None else correction.not_corrected,
        adjusted_limit_p,
    )
    powers = summary_powers(gate, summary, family)
    rules = [_with_what_decides(v, gate) for v in rules]
    return GateDecision(
        summary=summary,
        gate=gate,
        thresholds=thresholds,
        rules=tuple(rules),
        powers=tuple(powers),
        correction=correction,
        labels_refused=labels_refused,
        family=family,
        signature=signature,
        partial=partial,
        significant=significant_metrics(summary, adjusted_p=adjusted_p),
    )

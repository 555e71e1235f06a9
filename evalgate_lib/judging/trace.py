"""The trace behind a verdict: each sentence's role, every rule tried in order, which one decided and why.

A row keeps, for every sentence, the rule that decided its verdict and every step tried before it, each
with its evidence (:class:`~evalgate_lib.judging.rules.Step`); for correctness the same. :func:`explain`
lays that out for a person — ``evalgate explain``, ``Results.explain()``, the explorer and the report's
"why" all show it — and :func:`replay` recomputes each verdict from the recorded evidence alone, with the
thresholds of the rule tables, so a test (and a reader) can check that the trace is enough to recompute
the verdict by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from evalgate_lib.judging.correctness import CLAIM_RULES
from evalgate_lib.judging.reading import ROLE_RULES, SENTENCE_RULES
from evalgate_lib.judging.rows import Judgement, Matching, SentenceVerdict
from evalgate_lib.judging.rules import ABSTAINS, Rule, Step, render
from evalgate_lib.judging.support import ROLE_REASONS, SUPPORT_RULES, words_outcome

#: What each role rule decides, by id (the reading's sentence rules and clause rules).
ROLE_TABLE: Mapping[str, str] = {
    **{rule_id: decides for rule_id, _, decides, _ in SENTENCE_RULES},
    **{rule.id: rule.decides for rule in ROLE_RULES},
    "role.frame": "a frame naming the context ('According to the docs,') is removed: what follows is the claim",
    "role.claim": "everything else is a claim about the world, judged against the context",
}


def rule_text(rule_id: str) -> str:
    """One sentence saying what the rule ``rule_id`` decides (any table: roles, support, correctness)."""
    for table in (SUPPORT_RULES, CLAIM_RULES):
        if rule_id in table:
            return table[rule_id].decides
    return ROLE_TABLE.get(rule_id, rule_id)


def rules() -> Mapping[str, Rule]:
    """Every rule with a reason template: the support and correctness tables together."""
    return {**SUPPORT_RULES, **CLAIM_RULES}


@dataclass(frozen=True)
class StepView:
    """One step as a person reads it: the rule, what it decides, what it concluded, its reason and evidence."""

    rule: str
    decides: str
    outcome: str
    reason: str
    evidence: Mapping[str, Any]


@dataclass(frozen=True)
class SentenceTrace:
    """One sentence: its text, role, the rule that gave the role or decided the verdict, its verdict and steps."""

    index: int
    text: str
    role: str
    verdict: str
    rule: str
    steps: tuple[StepView, ...]
    #: The span of the context the deciding rule read (its labels first), if any.
    span: str | None = None


@dataclass(frozen=True)
class Explanation:
    """Everything a person needs to recompute one answer's verdicts by hand."""

    config: str
    question_id: str
    question: str
    answer: str
    correct: str
    correctness_steps: tuple[StepView, ...]
    sentences: tuple[SentenceTrace, ...]
    flags: Mapping[str, tuple[str, ...]]

    def text(self) -> str:
        """The explanation as plain text (what ``evalgate explain`` prints)."""
        out = [
            f"{self.config} · {self.question_id}: {self.question}",
            "",
            "answer:",
            *(f"  {line}" for line in self.answer.splitlines()),
            "",
            f"correctness: {self.correct}",
        ]
        for step in self.correctness_steps:
            out.append(f"  {_step_line(step)}")
        for sentence in self.sentences:
            out += [
                "",
                f"sentence {sentence.index + 1} [{sentence.role}] {sentence.text}",
                f"  verdict: {sentence.verdict} (decided by {sentence.rule})",
            ]
            if sentence.span:
                out.append("  span: " + " / ".join(line.strip() for line in sentence.span.splitlines() if line.strip()))
            for step in sentence.steps:
                out.append(f"  {_step_line(step)}")
        if self.flags:
            out += ["", "flags:"] + [f"  {name}: {'; '.join(reasons)}" for name, reasons in self.flags.items()]
        return "\n".join(out) + "\n"


def _step_line(step: StepView) -> str:
    shown = "; ".join(f"{k}={_short(v)}" for k, v in step.evidence.items())
    head = f"{step.rule} → {step.outcome}"
    if step.outcome == ABSTAINS:
        return f"{head} ({step.decides})"
    return f"{head}: {step.reason}" + (f"  [{shown}]" if shown else "")


def _short(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value[:10]) + (" …" if len(value) > 10 else "") + "]"
    return str(value)


def _view(step: Step) -> StepView:
    return StepView(step.rule, rule_text(step.rule), step.outcome, render(rules(), step), dict(step.evidence))


def _sentence(index: int, verdict: SentenceVerdict) -> SentenceTrace:
    if verdict.steps:
        steps = tuple(_view(s) for s in verdict.steps)
    else:  # a sentence whose role claims nothing: its role's rule is its whole trace
        steps = (StepView(verdict.rule, rule_text(verdict.rule), "no claim", verdict.reason, {}),)
    return SentenceTrace(index, verdict.text, verdict.role, verdict.outcome, verdict.rule, steps, verdict.span)


def explain(judgement: Judgement, question: str, answer: str, config: str = "", question_id: str = "") -> Explanation:
    """The trace of one judged answer (module docstring)."""
    m = judgement.matching
    correct = ("correct" if judgement.correct else "wrong") + (", undecided" if m.undecided else "")
    return Explanation(
        config,
        question_id,
        question,
        answer,
        f"{correct} (rule {m.mode}, decided by {m.rule or m.mode})",
        tuple(_view(s) for s in m.steps),
        tuple(_sentence(i, s) for i, s in enumerate(judgement.sentences)),
        dict(judgement.flags.reasons),
    )


# --------------------------------------------------------------------------------------------- replay


@dataclass(frozen=True)
class Replayed:
    """A verdict recomputed from its trace: ``supported`` (its lean) and ``undecided``, or ``None`` for no claim."""

    supported: bool | None
    undecided: bool


def replay_correct(matching: Matching) -> bool:
    """The correctness verdict recomputed from its trace: the deciding (last) step's outcome."""
    return matching.steps[-1].outcome == "correct" if matching.steps else False


def replay(verdict: SentenceVerdict) -> Replayed:
    """Recompute one sentence verdict from its trace alone (no passage, no answer): the last step decides; an
    S.words step is recomputed from its word lists; an L.answer step turns an undecided lean to supported."""
    if not verdict.steps or verdict.steps[-1].outcome == "none" or verdict.role in ROLE_REASONS:
        return Replayed(None, False)
    deciding = [s for s in verdict.steps if s.outcome != ABSTAINS]
    last = deciding[-1]
    if last.rule == "L.answer":
        return Replayed(True, True)
    outcome = words_outcome(last.evidence) if last.rule == "S.words" else last.outcome
    if outcome == "undecided":
        return Replayed(bool(last.lean), True)
    return Replayed(outcome == "supported", False)

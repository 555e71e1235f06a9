"""The trace behind a verdict: each sentence's role, every rule tried in order, which one decided and why.

A row keeps, for every sentence, the rule that decided its verdict and every step tried before it, each
with its evidence (:class:`~evalgate_lib.judging.rules.Step`), the span of the context it was judged against
and that span's passage; for correctness the same; and the text of every passage the prompt showed.
:func:`explain` lays that out for a person — ``evalgate explain``, ``Results.explain()``, the explorer and the
report's "why" all show it — so a verdict can be recomputed from the row alone (``tests/test_trace.py`` does,
with a small function of its own that reads only the recorded evidence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from evalgate_lib.judging.correctness import CLAIM_RULES
from evalgate_lib.judging.reading import ROLE_RULES, SENTENCE_RULES
from evalgate_lib.judging.rows import Judgement, SentenceVerdict
from evalgate_lib.judging.rules import ABSTAINS, Rule, Step, render
from evalgate_lib.judging.support import SUPPORT_RULES

#: What each role rule decides, by id (the reading's sentence rules and clause rules).
ROLE_TABLE: Mapping[str, str] = {
    **{rule.id: rule.decides for rule in SENTENCE_RULES},
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
    #: The span of the context the deciding rule read (its labels first), if any, and its passage's number.
    span: str | None = None
    passage: int | None = None


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
    #: The passages the prompt showed, ``(title, text)`` in rank order: what every span is part of.
    passages: tuple[tuple[str, str], ...] = ()

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
                where = f" (passage [{sentence.passage}])" if sentence.passage else ""
                shown = " / ".join(line.strip() for line in sentence.span.splitlines() if line.strip())
                out.append(f"  span{where}: {shown}")
            for step in sentence.steps:
                out.append(f"  {_step_line(step)}")
        if self.flags:
            out += ["", "flags:"] + [f"  {name}: {'; '.join(reasons)}" for name, reasons in self.flags.items()]
        if self.passages:
            out += ["", "passages (as the prompt showed them):"]
            for number, (title, text) in enumerate(self.passages, 1):
                out.append(f"  [{number}] {title}")
                out += [f"      {line}" for line in text.splitlines()]
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
    return " / ".join(line.strip() for line in str(value).splitlines() if line.strip())


def _view(step: Step) -> StepView:
    return StepView(step.rule, rule_text(step.rule), step.outcome, render(rules(), step), dict(step.evidence))


def _sentence(index: int, verdict: SentenceVerdict) -> SentenceTrace:
    if verdict.steps:
        steps = tuple(_view(s) for s in verdict.steps)
    else:  # a sentence whose role claims nothing: its role's rule is its whole trace
        steps = (StepView(verdict.rule, rule_text(verdict.rule), "no claim", verdict.reason, {}),)
    return SentenceTrace(
        index, verdict.text, verdict.role, verdict.outcome, verdict.rule, steps, verdict.span, verdict.passage
    )


def explain(
    judgement: Judgement,
    question: str,
    answer: str,
    config: str = "",
    question_id: str = "",
    passages: Sequence[tuple[str, str]] = (),
) -> Explanation:
    """The trace of one judged answer (module docstring); ``passages`` are the ``(title, text)`` it was judged
    against, shown with it."""
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
        tuple((str(t), str(x)) for t, x in passages),
    )

"""The judge's rules as data: a stable id, what each decides, an example, and the reason it renders.

Support and correctness are each an ordered table of small named rules (:mod:`evalgate_lib.judging.support`,
:mod:`evalgate_lib.judging.correctness`); the reading's roles are a third (:mod:`evalgate_lib.judging.reading`).
Each rule, tried on a sentence or an answer, returns a :class:`Step`: the outcome it reached (or that it
abstains) and its **evidence** — which passage, which words it needed and which the span held, which values
or names are missing. A verdict's reason is *rendered* from its deciding step's rule and evidence
(:func:`render`), never read back: no rule looks at a reason string, so rewording one changes no verdict.

Every step a sentence went through is kept in the row (``steps``), so the verdict can be recomputed by hand:
``evalgate explain`` prints them, with the span and the passages each verdict was judged against.

A rule can be switched off by its id (the ``disabled`` argument of :func:`~evalgate_lib.judging.answer.judge_answer`):
``scripts/ablation.py`` re-judges every labelled set without each rule in turn, and the table it writes in
docs/judge.md says what each rule earns on the worst set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

#: What a step can conclude: a support outcome, a correctness outcome, or nothing (the rule does not apply).
Outcome = str
ABSTAINS = "abstains"


@dataclass(frozen=True)
class Step:
    """One rule tried: its id, what it concluded, the way an undecided outcome leans, and its evidence (JSON data)."""

    rule: str
    outcome: Outcome
    lean: bool | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @property
    def decides(self) -> bool:
        return self.outcome != ABSTAINS

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rule": self.rule, "outcome": self.outcome}
        if self.lean is not None:
            data["lean"] = self.lean
        if self.evidence:
            data["evidence"] = dict(self.evidence)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Step:
        return cls(str(data["rule"]), str(data["outcome"]), data.get("lean"), dict(data.get("evidence") or {}))


@dataclass(frozen=True)
class Example:
    """A rule's example: the text judged (a claim, an answer or a code line), what it is judged against, and the
    outcome the rule reaches on it. ``tests/test_rule_examples.py`` runs every rule's example through the judge and
    checks that this rule decides it, with this outcome."""

    text: str
    passages: tuple[tuple[str, str], ...] = ()
    question: str = ""
    accept: tuple[str, ...] = ()
    answerable: bool = True
    expected: str = ""

    def __str__(self) -> str:
        against = " / ".join(text for _, text in self.passages)
        shown = f"{self.text!r}"
        if self.accept:
            shown += f" for {' or '.join(repr(a) for a in self.accept)}"
        elif not self.answerable:
            shown += " (a no-answer question)"
        if against:
            shown += f" against {against!r}"
        return f"{shown} → {self.expected}" if self.expected else shown


@dataclass(frozen=True)
class Rule:
    """One named rule: its id, the one sentence saying what it decides, its check, its example, its reason template.

    ``check(case)`` returns the :class:`Step` the rule reaches on a case (a claim, an answer), or ``None`` when it
    does not apply; :func:`run_rules` tries a table's rules in order and stops at the first that decides.
    ``reason`` is a :meth:`str.format` template over the evidence keys of the steps it makes (lists are shown
    comma-separated); ``threshold`` names the module constant it compares with, if any.
    """

    id: str
    decides: str
    example: Example | str
    reason: str
    threshold: str = ""
    check: Callable[[Any], Step | None] | None = field(default=None, compare=False, repr=False)


def run_rules(table: Sequence[Rule], case: Any, disabled: frozenset[str] = frozenset()) -> tuple[Step, ...]:
    """The one loop every judgement runs: each rule of ``table`` in order (a rule in ``disabled`` is not tried: the
    ablation), every rule tried recorded as a step, the first that decides ending the loop. Nothing after it runs,
    so no later rule can overturn a decided verdict."""
    steps: list[Step] = []
    for rule in table:
        if rule.id in disabled or rule.check is None:
            continue
        step = rule.check(case)
        steps.append(step if step is not None else Step(rule.id, ABSTAINS))
        if step is not None and step.decides:
            break
    return tuple(steps)


def by_id(table: Sequence[Rule]) -> dict[str, Rule]:
    """A table's rules by id, in its order."""
    return {rule.id: rule for rule in table}


def _shown(value: Any) -> Any:
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [str(v) for v in value]
        return ", ".join(items[:8]) + (" …" if len(items) > 8 else "") if items else "—"
    if isinstance(value, float):
        return f"{value:.2f}"
    return value


class _Evidence(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return "?"


def render(rules: Mapping[str, Rule], step: Step) -> str:
    """The reason of ``step`` in words, from its rule's template and its evidence (never the other way round)."""
    rule = rules.get(step.rule)
    if rule is None:
        return step.rule
    shown = _Evidence({k: _shown(v) for k, v in step.evidence.items()})
    if "held" in step.evidence and "needed" in step.evidence:
        needed = list(step.evidence["needed"])
        held = [w for w in needed if w in set(step.evidence["held"])]
        shown["figure"] = f"{len(held)}/{len(needed)} words ({len(held) / len(needed):.2f})" if needed else "0/0 words"
        lacking = [w for w in needed if w not in set(held)]
        shown["lacking"] = f", lacking {_shown(lacking)}" if lacking else ""
    return rule.reason.format_map(shown)


def share(held: Any, needed: Any) -> float:
    """The share of ``needed`` that ``held`` holds (1.0 when nothing is needed): the figure the words rules compare."""
    needed = list(needed)
    if not needed:
        return 1.0
    kept = set(held)
    return sum(1 for w in needed if w in kept) / len(needed)

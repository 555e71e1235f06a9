"""What changed between the two configs, question by question: fixed, broken, or a flag changed.

A delta of "-6 points" says nothing about *which* questions moved. A reviewer needs the
list, and the list must be the same wherever it is shown (the report's "what changed"
view, ``evalgate diff``, a notebook), so one pure function, :func:`classify`, decides the
kind of change of one question and everything else reads its answer.

*Fixed* and *broken* are defined on the answer verdict (``correct``) alone, paired by
question id: they are exactly the discordant pairs that McNemar's test on "accuracy overall"
counts (``c`` and ``b`` in :mod:`evalgate_lib.statistics.paired_tests`), so the list behind the
p-value can be read one question at a time. *Flags* is a question whose verdict did not change
but whose set of fired flags did (a new hallucination, a question leaving the review queue).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow

FIXED = "fixed"
BROKEN = "broken"
FLAGS = "flags"
SAME = "same"

#: The kinds of change, in the order every view lists them (``same`` is no change).
CHANGE_KINDS = (FIXED, BROKEN, FLAGS)
ALL_KINDS = (*CHANGE_KINDS, SAME)


@dataclass(frozen=True)
class QuestionChange:
    """One question's two answers and what changed between them.

    ``kind`` is one of :data:`ALL_KINDS`; ``flags_gained`` / ``flags_lost`` name the flags
    (:data:`~evalgate_lib.judging.rows.FLAG_NAMES` order) the candidate carries and the baseline
    did not, and the reverse, whatever the kind.
    """

    question_id: str
    kind: str
    baseline: ResultRow
    candidate: ResultRow
    flags_gained: tuple[str, ...]
    flags_lost: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.kind != SAME

    @property
    def answer_changed(self) -> bool:
        return self.baseline.answer != self.candidate.answer

    def to_json(self) -> dict[str, Any]:
        """The change as ``evalgate diff --json`` writes it: both answers, verdicts and flags side by side."""

        def side(row: ResultRow) -> dict[str, Any]:
            return {
                "config": row.config,
                "answer": row.answer,
                "correct": row.correct,
                "flags": [name for name in FLAG_NAMES if row.flags.fired(name)],
            }

        return {
            "question_id": self.question_id,
            "question": self.baseline.question,
            "type": self.baseline.type,
            "change": self.kind,
            "flags_gained": list(self.flags_gained),
            "flags_lost": list(self.flags_lost),
            "answer_changed": self.answer_changed,
            "baseline": side(self.baseline),
            "candidate": side(self.candidate),
        }


def classify(baseline: ResultRow, candidate: ResultRow) -> QuestionChange:
    """The change from ``baseline``'s answer to ``candidate``'s answer of the same question.

    Wrong → correct is ``fixed``, correct → wrong is ``broken``; with the verdict unchanged, a
    different set of fired flags is ``flags``; otherwise ``same`` (even if the wording changed:
    the verdict and every flag say the two answers are equally good).
    """
    if baseline.question_id != candidate.question_id:
        raise ValueError(
            f"a change pairs two answers of one question, got {baseline.question_id!r} and {candidate.question_id!r}"
        )
    gained = tuple(n for n in FLAG_NAMES if candidate.flags.fired(n) and not baseline.flags.fired(n))
    lost = tuple(n for n in FLAG_NAMES if baseline.flags.fired(n) and not candidate.flags.fired(n))
    if candidate.correct and not baseline.correct:
        kind = FIXED
    elif baseline.correct and not candidate.correct:
        kind = BROKEN
    elif gained or lost:
        kind = FLAGS
    else:
        kind = SAME
    return QuestionChange(baseline.question_id, kind, baseline, candidate, gained, lost)


def question_changes(rows: Iterable[ResultRow], baseline: str, candidate: str) -> list[QuestionChange]:
    """:func:`classify` of every question both configs answered, paired by id, in the baseline's order.

    A question only one config answered has no pair and is left out, as the paired
    statistics leave it out.
    """
    listed = list(rows)
    cand = {r.question_id: r for r in listed if r.config == candidate}
    return [classify(r, cand[r.question_id]) for r in listed if r.config == baseline and r.question_id in cand]


def count_changes(changes: Iterable[QuestionChange]) -> dict[str, int]:
    """How many questions of each kind (every kind of :data:`ALL_KINDS`, zeros included)."""
    counted = Counter(c.kind for c in changes)
    return {kind: counted[kind] for kind in ALL_KINDS}


def flag_moves(changes: Sequence[QuestionChange], flag: str) -> dict[str, int]:
    """How one flag moved over the paired questions: how many answers carry it in each config, how many
    questions gained it and how many lost it (``candidate - baseline == gained - lost``).

    ``evalgate diff`` prints it for ``unsupported_claim``: a chatty candidate that stays right but adds claims
    the passages do not make changes no verdict, only this flag.
    """
    return {
        "questions": len(changes),
        "baseline": sum(1 for c in changes if c.baseline.flags.fired(flag)),
        "candidate": sum(1 for c in changes if c.candidate.flags.fired(flag)),
        "gained": sum(1 for c in changes if flag in c.flags_gained),
        "lost": sum(1 for c in changes if flag in c.flags_lost),
    }


def select_changes(changes: Sequence[QuestionChange], only: str | None = None) -> list[QuestionChange]:
    """The changed questions of kind ``only`` (one of :data:`CHANGE_KINDS`), or every changed one when ``None``."""
    if only is not None and only not in CHANGE_KINDS:
        raise ValueError(f"unknown kind of change {only!r}; choose one of {', '.join(CHANGE_KINDS)}")
    return [c for c in changes if c.changed and (only is None or c.kind == only)]

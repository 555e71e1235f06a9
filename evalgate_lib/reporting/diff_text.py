"""``evalgate diff`` output: the questions that changed between two configs, as text and as JSON.

The report's "what changed" view needs a browser; a reviewer in a terminal or a CI log needs
the same list. Both read :func:`evalgate_lib.statistics.changes.question_changes`, so the
terminal, the JSON file and the report can never disagree on which questions were fixed or
broken. The text keeps each answer to one line (cut with an ellipsis); the JSON holds the
answers in full.
"""

from __future__ import annotations

from typing import Any, Sequence

from evalgate_lib.reporting.explorer import FLAG_LABELS
from evalgate_lib.statistics.changes import (
    BROKEN,
    FIXED,
    FLAGS,
    SAME,
    QuestionChange,
    count_changes,
    flag_moves,
    select_changes,
)

#: The flag whose totals ``evalgate diff`` prints under the counts: it moves without any verdict moving.
UNSUPPORTED = "unsupported_claim"

#: ``--only`` value → how the heading names the kind.
KIND_TITLES = {
    FIXED: "fixed (wrong → correct)",
    BROKEN: "broken (correct → wrong)",
    FLAGS: "flag changed, same verdict",
}


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _side(correct: bool, flags: Sequence[str]) -> str:
    named = ", ".join(FLAG_LABELS[f] for f in flags)
    return ("correct" if correct else "wrong") + (f" [{named}]" if named else "")


def summary_line(changes: Sequence[QuestionChange]) -> str:
    """One line of counts: fixed and broken (McNemar's discordant pairs), flag changed, unchanged."""
    counts = count_changes(changes)
    base = changes[0].baseline.config if changes else "baseline"
    cand = changes[0].candidate.config if changes else "candidate"
    return (
        f"{cand} vs {base}: {len(changes)} questions; {counts[FIXED]} fixed, {counts[BROKEN]} broken "
        f"(the discordant pairs of McNemar's test on accuracy), {counts[FLAGS]} flag changed with the same "
        f"verdict, {counts[SAME]} unchanged"
    )


def unsupported_line(changes: Sequence[QuestionChange]) -> str:
    """One line on answers with an unsupported claim: both configs' totals, and how many questions gained or lost
    the flag (a right answer that adds a claim the passages do not make is not a "broken" question)."""
    moves = flag_moves(changes, UNSUPPORTED)
    base = changes[0].baseline.config if changes else "baseline"
    cand = changes[0].candidate.config if changes else "candidate"
    return (
        f"answers with an unsupported claim: {base} {moves['baseline']} → {cand} {moves['candidate']} of "
        f"{moves['questions']} ({moves['gained']} gained the flag, {moves['lost']} lost it)"
    )


def format_changes(changes: Sequence[QuestionChange], only: str | None = None, width: int = 110) -> str:
    """The text ``evalgate diff`` prints: the counts, then each changed question of kind ``only`` (all if ``None``)."""
    picked = select_changes(changes, only)
    title = KIND_TITLES[only] if only else "every changed question"
    lines = [summary_line(changes), unsupported_line(changes), f"showing {title}: {len(picked)}", ""]
    for c in picked:
        base, cand = c.to_json()["baseline"], c.to_json()["candidate"]
        delta = []
        if c.flags_gained:
            delta.append("+" + ", +".join(FLAG_LABELS[f] for f in c.flags_gained))
        if c.flags_lost:
            delta.append("-" + ", -".join(FLAG_LABELS[f] for f in c.flags_lost))
        lines.append(
            f"{c.question_id}  {c.kind:<6}  {c.baseline.config}: {_side(base['correct'], base['flags'])}  →  "
            f"{c.candidate.config}: {_side(cand['correct'], cand['flags'])}"
            + (f"  (flags {'; '.join(delta)})" if delta else "")
        )
        lines.append(f"    question:  {_one_line(c.baseline.question, width)}")
        lines.append(f"    {c.baseline.config + ':':<10} {_one_line(c.baseline.answer, width)}")
        lines.append(f"    {c.candidate.config + ':':<10} {_one_line(c.candidate.answer, width)}")
    return "\n".join(lines) + "\n"


def changes_json(changes: Sequence[QuestionChange], only: str | None = None) -> dict[str, Any]:
    """What ``evalgate diff --json`` writes: the counts over every question, and the changed questions selected."""
    return {
        "baseline": changes[0].baseline.config if changes else None,
        "candidate": changes[0].candidate.config if changes else None,
        "questions": len(changes),
        "counts": count_changes(changes),
        UNSUPPORTED: flag_moves(changes, UNSUPPORTED),
        "only": only,
        "changes": [c.to_json() for c in select_changes(changes, only)],
    }

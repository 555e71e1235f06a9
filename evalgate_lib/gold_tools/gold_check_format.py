"""Rendering a :class:`~evalgate_lib.gold_tools.gold_check.GoldCheck` for people (text) and for scripts (JSON).

Kept apart from the check so the check stays a pure function with typed results,
and so the text layout can change without touching what is checked.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from evalgate_lib.gold_tools.gold_check import (
    CODES,
    ERROR,
    WARNING,
    AcceptCheck,
    EvidenceCheck,
    GoldCheck,
    QuestionCheck,
)

#: How the check defines "occurs" for accept strings, printed above the report so nobody has to guess.
MATCHING_NOTE = (
    "accept strings: case-insensitive, on token boundaries (the judge's 'token' answer_matching rule, "
    "also the 'claim' rule's first test); "
    "evidence: substring of the article body, any run of whitespace matching any other"
)


def _short(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _accept_line(check: AcceptCheck, article: str | None) -> str:
    if check.first is not None:
        where = f"{check.in_article}× in {article} (first at {check.first.shown})"
    else:
        where = f"0× in {article}"
    others = len(check.other_articles)
    listed = f": {', '.join(check.other_articles[:5])}{', …' if others > 5 else ''}" if others else ""
    return f"  accept {check.text!r}: {where}; {others} other article(s){listed}"


def _evidence_line(number: int, check: EvidenceCheck) -> str:
    if check.first is None:
        return f"  evidence {number}: NOT FOUND {_short(check.text)!r}"
    times = f", {check.count}×" if check.count > 1 else ""
    return f"  evidence {number}: {check.first.shown}{times} {_short(check.text, 50)!r}"


def format_question(q: QuestionCheck) -> list[str]:
    """The lines for one question: header, each accept string, each evidence string, then its findings."""
    kind = f"article {q.article}" if q.answerable else "no answer"
    lines = [f"{q.id}  [{kind}]  {_short(q.question)}"]
    if not q.answerable and not q.accept:
        lines.append("  no accept strings (as a no-answer question needs: only a refusal is correct)")
    lines += [_accept_line(a, q.article) for a in q.accept]
    lines += [_evidence_line(n, e) for n, e in enumerate(q.evidence, start=1)]
    lines += [f"  {f.severity} {f.code} ({_short(f.subject, 40)!r}): {f.message}" for f in q.findings]
    return lines


def summary_line(check: GoldCheck) -> str:
    """One line: questions, accept and evidence strings, and findings by code (zeros shown, so nothing hides)."""
    answerable = sum(q.answerable for q in check.questions)
    accepts = sum(len(q.accept) for q in check.questions)
    evidence = sum(len(q.evidence) for q in check.questions)
    counts = check.counts()
    warnings = ", ".join(f"{code} {counts[code]}" for code, sev in CODES.items() if sev == WARNING)
    errors = ", ".join(f"{code} {counts[code]}" for code, sev in CODES.items() if sev == ERROR and counts[code])
    return (
        f"summary: {len(check.questions)} questions ({answerable} answerable, {len(check.questions) - answerable} "
        f"no-answer), {accepts} accept strings, {evidence} evidence strings, {check.articles} articles; "
        f"{len(check.warnings)} warnings ({warnings}); {len(check.errors)} errors{f' ({errors})' if errors else ''}"
    )


def format_check(check: GoldCheck, gold: str, corpus: str) -> str:
    """The full text report: a header naming the files and the matching rule, every question, the summary."""
    lines = [f"gold check: {gold} against {corpus}", f"matching: {MATCHING_NOTE}", ""]
    for q in check.questions:
        lines += format_question(q)
    lines += ["", summary_line(check)]
    return "\n".join(lines) + "\n"


def check_json(check: GoldCheck, gold: str, corpus: str) -> dict[str, Any]:
    """The check as plain JSON data: every field of the typed result, each finding with its severity."""
    questions = []
    for q in check.questions:
        data = dataclasses.asdict(q)
        data["findings"] = [{**dataclasses.asdict(f), "severity": f.severity} for f in q.findings]
        questions.append(data)
    return {
        "gold": gold,
        "corpus": corpus,
        "matching": MATCHING_NOTE,
        "articles": check.articles,
        "questions": questions,
        "counts": check.counts(),
        "warnings": len(check.warnings),
        "errors": len(check.errors),
    }

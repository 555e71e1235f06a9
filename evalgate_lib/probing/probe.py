"""A probe of the judge: every faithful answer edited one way at a time, judged, and counted per kind of edit.

For each base (:mod:`~evalgate_lib.probing.bases`) and each kind of :data:`~evalgate_lib.probing.edits.EDIT_KINDS`,
the edit is made (when the answer has a place for it) and the edited answer is judged by
:func:`~evalgate_lib.judging.answer.judge_answer` against the base's passages. An answer is **flagged** when the
judge holds at least one of its sentences unsupported (an undecided verdict at its lean), as the headline
unsupported-claim rate counts it. Per kind the probe reports how many edited answers it made and how many the
judge flagged: for a kind that makes the answer unsupported, the share flagged is the judge's **detection**;
for a kind that keeps it supported, its **false alarms**. One example per kind is kept: a miss (or a false
alarm) when there is one, else a catch, so a reader sees where the judge fails first.

A probe measures the judge on constructed edits, not on a team's model's answers: it says which kinds of error
the judge can see in *this* domain, before anyone trusts its verdicts there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import load_corpus
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.rows import Judgement
from evalgate_lib.probing.bases import PROBE_CHUNKING, PROBE_TOP_K, evidence_bases
from evalgate_lib.probing.edits import EDIT_KINDS, Base, Edit, EditKind

#: What every probe prints beside its figures.
CAVEAT = (
    "A probe measures the judge on constructed edits of faithful answers, not on your model's answers: "
    "it says which kinds of error the judge sees in this domain, and how often it flags a faithful answer."
)


@dataclass(frozen=True)
class Case:
    """One edited answer judged: the edit, whether the judge flagged it, and the rule and sentence behind that."""

    base: str
    edit: Edit
    flagged: bool
    rule: str
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "kind": self.edit.kind,
            "answer": self.edit.answer,
            "before": self.edit.before,
            "after": self.edit.after,
            "flagged": self.flagged,
            "rule": self.rule,
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class KindResult:
    """One kind's count: edited answers made, flagged, and the example shown."""

    kind: EditKind
    made: int
    flagged: int
    example: Case | None

    @property
    def rate(self) -> float | None:
        return flag_rate(self.flagged, self.made)


@dataclass(frozen=True)
class ProbeReport:
    """Every kind's result, the pooled detection and false-alarm rates, and balanced accuracy."""

    bases: int
    kinds: tuple[KindResult, ...]
    cases: tuple[Case, ...]

    @property
    def detection(self) -> float | None:
        """Share flagged of every edited answer whose edit makes it unsupported."""
        return flag_rate(
            sum(k.flagged for k in self.kinds if k.kind.unsupported),
            sum(k.made for k in self.kinds if k.kind.unsupported),
        )

    @property
    def false_alarms(self) -> float | None:
        """Share flagged of every answer whose edit keeps it supported (the unchanged answers included)."""
        return flag_rate(
            sum(k.flagged for k in self.kinds if not k.kind.unsupported),
            sum(k.made for k in self.kinds if not k.kind.unsupported),
        )

    @property
    def balanced_accuracy(self) -> float | None:
        return balanced_accuracy(self.detection, self.false_alarms)

    def to_json(self) -> dict[str, Any]:
        return {
            "bases": self.bases,
            "detection": self.detection,
            "false_alarms": self.false_alarms,
            "balanced_accuracy": self.balanced_accuracy,
            "kinds": [
                {
                    "kind": k.kind.id,
                    "title": k.kind.title,
                    "unsupported": k.kind.unsupported,
                    "made": k.made,
                    "flagged": k.flagged,
                    "rate": k.rate,
                    "example": None if k.example is None else k.example.to_json(),
                }
                for k in self.kinds
            ],
            "caveat": CAVEAT,
        }


def flag_rate(flagged: int, made: int) -> float | None:
    """The share of answers flagged (``None`` when none were made): a kind's detection or false-alarm rate."""
    return flagged / made if made else None


def balanced_accuracy(detection: float | None, false_alarms: float | None) -> float | None:
    """The mean of detection and of one minus the false-alarm rate: 0.5 is a judge that flags at random."""
    if detection is None or false_alarms is None:
        return None
    return (detection + 1.0 - false_alarms) / 2.0


def _judged(base: Base, answer: str) -> Judgement:
    return judge_answer(question=base.question, answer=answer, passages=base.passages, accept=base.accept)


def judge_case(base: Base, edit: Edit, judge: Callable[[Base, str], Judgement] = _judged) -> Case:
    """One edited answer judged: flagged when any sentence is held unsupported (at its lean)."""
    judgement = judge(base, edit.answer)
    unsupported = [s for s in judgement.sentences if s.supported is False]
    first = unsupported[0] if unsupported else None
    return Case(base.key, edit, bool(unsupported), first.rule if first else "", first.text if first else "")


def _example(kind: EditKind, cases: Sequence[Case]) -> Case | None:
    wrong = [c for c in cases if c.flagged != kind.unsupported]
    return (wrong or list(cases) or [None])[0]


def run_probe(
    bases: Sequence[Base],
    kinds: Sequence[EditKind] = EDIT_KINDS,
    judge: Callable[[Base, str], Judgement] = _judged,
) -> ProbeReport:
    """Every base edited by every kind that finds a place in it, judged and counted (module docstring)."""
    cases: list[Case] = []
    results = []
    for kind in kinds:
        edits = [(b, kind.apply(b)) for b in bases]
        made = [judge_case(b, e, judge) for b, e in edits if e is not None]
        cases.extend(made)
        results.append(KindResult(kind, len(made), sum(c.flagged for c in made), _example(kind, made)))
    return ProbeReport(len(bases), tuple(results), tuple(cases))


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f} %"


def _short(text: str, limit: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_probe(report: ProbeReport, title: str = "") -> str:
    """The probe as a terminal reads it: a table per kind, the pooled figures, an example per kind, the caveat."""
    lines = [title] if title else []
    lines.append(f"{report.bases} faithful answers, each edited one way at a time and judged:")
    lines.append("")
    width = max(len(k.kind.title) for k in report.kinds)
    lines.append(f"  {'edit':<{width}}  {'answers':>7}  {'flagged':>7}  reads as")
    for k in report.kinds:
        reads = "detection" if k.kind.unsupported else "false alarms"
        lines.append(f"  {k.kind.title:<{width}}  {k.made:>7}  {_percent(k.rate):>7}  {reads}")
    lines.append("")
    lines.append(
        f"  detection {_percent(report.detection)} · false alarms {_percent(report.false_alarms)} · balanced "
        f"accuracy {'—' if report.balanced_accuracy is None else f'{report.balanced_accuracy:.2f}'}"
    )
    lines.append("")
    lines.append("an example of each kind (a miss or a false alarm first):")
    for k in report.kinds:
        case = k.example
        if case is None:
            continue
        verdict = f"flagged by {case.rule}" if case.flagged else "not flagged"
        good = case.flagged == k.kind.unsupported
        mark = "ok  " if good else "MISS" if k.kind.unsupported else "FALSE"
        change = f"{case.edit.before!r} → {case.edit.after!r}" if case.edit.before or case.edit.after else "(as is)"
        lines.append(f"  [{mark}] {k.kind.title} ({case.base}): {_short(change, 80)}; {verdict}")
        lines.append(f"         {_short(case.sentence or case.edit.answer)}")
    lines.append("")
    lines.append(CAVEAT)
    return "\n".join(lines) + "\n"


def probe_corpus(
    corpus: str | Path,
    gold: str | Path,
    *,
    chunking: Mapping[str, object] = PROBE_CHUNKING,
    top_k: int = PROBE_TOP_K,
    limit: int | None = None,
) -> ProbeReport:
    """The probe of a team's own documents: a faithful answer per answerable gold question with evidence
    (:func:`~evalgate_lib.probing.bases.evidence_bases`), each edited one way at a time and judged (``limit``: the
    first ``limit`` of them). A gold set with no evidence to build from is an input error, never an empty table."""
    articles = load_corpus(corpus)
    questions = load_gold(gold)
    bases = evidence_bases(articles, questions, chunking=chunking, top_k=top_k, where=str(gold))
    if not bases:
        raise InputError(
            f"{gold}: no answerable question with evidence in its article: a probe builds its faithful answers from "
            "the gold evidence (add 'evidence' to the questions, docs/your-data.md)"
        )
    if limit is not None:
        if limit < 1:
            raise InputError(f"--limit must be at least 1, got {limit}")
        bases = bases[:limit]
    return run_probe(bases)

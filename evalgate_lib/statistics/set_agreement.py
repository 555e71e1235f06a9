"""Agreement with reviewers, set by set: what ``evalgate agreement --sets`` prints.

A judge can agree with reviewers on one kind of answer and not on another (the demo
model's pasted lists against a capable model's prose), so the figures are given per
labelled set and, inside a set, per generator style, and never pooled into one κ.
Every answer of a set is judged again from its strings (:func:`judge_answer`, the code
every run calls) by each judge asked for (a sentence scorer with a correctness rule),
so the default judge, today's ``span`` + ``token`` and EvalGate 0.1's ``lexical`` + ``raw``
are measured side by side on the same labels.

The review queue is measured as what it is for: the share of the judge's own errors
(an answer whose correctness or unsupported-claim verdict differs from the reviewer's)
that it holds, beside the share of all answers it holds (:func:`queue_capture`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from evalgate_lib.inputs.answer_logs import AnswerLog, LoggedAnswer, load_answer_log
from evalgate_lib.inputs.config import DEFAULT_ANSWER_MATCHING, DEFAULT_SENTENCE_SCORER
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.inputs.labelled_sets import LabelledSet
from evalgate_lib.inputs.labels import Label, load_labels, match_labels
from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.flags import review_priority as flag_priority
from evalgate_lib.judging.rows import Judgement
from evalgate_lib.statistics.agreement_measures import JudgementAgreement, interval_text, judgement_agreement
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED
from evalgate_lib.statistics.run_agreement import human_judgements, passes_agreement, split_passes


@dataclass(frozen=True)
class Judge:
    """One automatic judge: a display name, a sentence scorer and a correctness (matching) rule."""

    name: str
    scorer: str
    matching: str


#: The judges every set is measured with: the default, and EvalGate 0.1's lexical + raw as the floor to beat.
DEFAULT_JUDGES: tuple[Judge, ...] = (
    Judge(
        f"default ({DEFAULT_SENTENCE_SCORER} + {DEFAULT_ANSWER_MATCHING})",
        DEFAULT_SENTENCE_SCORER,
        DEFAULT_ANSWER_MATCHING,
    ),
    Judge("lexical + raw (EvalGate 0.1)", "lexical", "raw"),
)


@dataclass(frozen=True)
class QueueCapture:
    """How much of the judge's error a review queue holds: ``caught`` of ``errors``, in ``size`` of ``n`` answers."""

    n: int
    size: int
    errors: int
    caught: int

    @property
    def share(self) -> float | None:
        """Share of all answers in the queue."""
        return self.size / self.n if self.n else None

    @property
    def recall(self) -> float | None:
        """Share of the judge's errors that the queue holds (``None`` when it made none)."""
        return self.caught / self.errors if self.errors else None


#: Queue sizes (shares of all answers) at which the ranked review queue is measured.
QUEUE_SHARES = (0.1, 0.2, 0.35, 0.5)


def review_priority(judgement: Judgement) -> tuple:
    """How early a reviewer should read an answer: the review flag's own order
    (:func:`evalgate_lib.judging.flags.review_priority`, no gold), so the ranked queue and the flag never
    disagree about why an answer is there."""
    return flag_priority(judgement.flags, judgement.sentences, judgement.confidence)


def audit_priority(judgement: Judgement) -> tuple:
    """The audit order: where the judge is most likely wrong, read with the gold answer (never the review flag).

    First the correctness verdicts it left undecided, then wrong answers whose every claim is judged
    supported (the context misled, or the judge missed an unsupported claim), then the review order.
    """
    wrong_supported = (
        not judgement.correct and judgement.groundedness is not None and not judgement.unsupported_sentences
    )
    return (int(judgement.matching.undecided) + int(wrong_supported), *review_priority(judgement))


def ranked_capture(priorities: Sequence[tuple], error: Sequence[bool], share: float) -> QueueCapture:
    """The queue of the ``share`` of answers with the highest priority (ties: earlier answers first)."""
    size = round(share * len(priorities))
    order = sorted(range(len(priorities)), key=lambda i: (tuple(-x for x in priorities[i]), i))
    chosen = set(order[:size])
    return queue_capture([i in chosen for i in range(len(priorities))], error)


def queue_capture(in_queue: Sequence[bool], error: Sequence[bool]) -> QueueCapture:
    """Count the queue's size and the judge's errors it holds; both sequences are per answer, in one order."""
    if len(in_queue) != len(error):
        raise ValueError(f"queue_capture needs paired values: {len(in_queue)} queue marks, {len(error)} error marks")
    return QueueCapture(
        n=len(in_queue),
        size=sum(map(bool, in_queue)),
        errors=sum(map(bool, error)),
        caught=sum(1 for q, e in zip(in_queue, error, strict=True) if q and e),
    )


@dataclass(frozen=True)
class Selective:
    """A judgement measured at its coverage: agreement over the answers the judge decided, and how many it decided.

    Selective classifiers are reported this way (risk against coverage): ``decided`` is the κ (and
    friends) over the decided answers only, ``coverage`` their share of all answers, ``risk`` the
    disagreement rate among them, beside ``risk_all`` over every answer (undecided ones at their lean).
    """

    decided: JudgementAgreement
    n_decided: int
    n: int
    risk: float | None
    risk_all: float | None

    @property
    def coverage(self) -> float | None:
        return self.n_decided / self.n if self.n else None


def selective(
    name: str,
    auto: Sequence[bool],
    human: Sequence[bool],
    decided: Sequence[bool],
    scorer: str,
    seed: int,
    resamples: int,
) -> Selective:
    """Agreement over the decided answers (``decided[i]``), their count, and the disagreement rate with and without
    the undecided ones."""
    if not len(auto) == len(human) == len(decided):
        raise ValueError(f"selective needs paired values: {len(auto)}, {len(human)}, {len(decided)}")
    pick = [i for i, d in enumerate(decided) if d]
    kept_auto, kept_human = [auto[i] for i in pick], [human[i] for i in pick]

    def risk(a: Sequence[bool], h: Sequence[bool]) -> float | None:
        return sum(x != y for x, y in zip(a, h, strict=True)) / len(a) if a else None

    return Selective(
        judgement_agreement(name, kept_auto, kept_human, scorer=scorer, seed=seed, resamples=resamples),
        len(pick),
        len(auto),
        risk(kept_auto, kept_human),
        risk(auto, human),
    )


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge on one group of labelled answers: κ and friends per judgement, and its review queue."""

    judge: Judge
    correct: JudgementAgreement
    unsupported: JudgementAgreement
    hallucination: JudgementAgreement
    review: JudgementAgreement
    queue: QueueCapture
    #: The ranked queue (:func:`review_priority`) cut at each of :data:`QUEUE_SHARES`.
    curve: tuple[QueueCapture, ...] = ()
    #: The audit order (:func:`audit_priority`, which reads the gold answer) cut at each of :data:`QUEUE_SHARES`.
    audit: tuple[QueueCapture, ...] = ()
    #: Correctness and unsupported claim over the answers the judge decided (its coverage).
    correct_selective: Selective | None = None
    unsupported_selective: Selective | None = None


@dataclass(frozen=True)
class SetAgreement:
    """Every judge on one labelled set, overall and per configuration (generator style)."""

    labelled_set: LabelledSet
    labelled: int
    stale: int
    unknown: int
    overall: tuple[JudgeAgreement, ...]
    by_config: Mapping[str, tuple[JudgeAgreement, ...]]
    interrater: Mapping[str, dict[str, Any]]
    double_labelled: int


def judge_logged(answer: LoggedAnswer, question: GoldQuestion, judge: Judge) -> Judgement:
    """One logged answer judged from its strings by ``judge`` (its top passage's score as the retrieval similarity)."""
    top = answer.passages[0].score if answer.passages and answer.passages[0].score is not None else 1.0
    return judge_answer(
        question=question.question,
        answer=answer.answer,
        passages=[(p.title or p.doc_id or "", p.text) for p in answer.passages],
        accept=question.accept,
        answerable=question.answerable,
        top_similarity=top,
        matching=judge.matching,
        scorer=judge.scorer,
    )


def _measure_group(
    judged: Sequence[Judgement], labels: Sequence[Label], judge: Judge, seed: int, resamples: int
) -> JudgeAgreement:
    """One judge's agreement over one group of answers (its judgements and their pass-1 labels, in one order)."""
    human = [human_judgements(label) for label in labels]

    def agree(name: str, auto: list[bool], reference: list[bool]) -> JudgementAgreement:
        return judgement_agreement(name, auto, reference, scorer=judge.name, seed=seed, resamples=resamples)

    correct_auto = [j.correct for j in judged]
    unsupported_auto = [j.unsupported_claim for j in judged]
    errors = [
        j_correct != label.correct or j_unsupported != label.unsupported_claim
        for j_correct, j_unsupported, label in zip(correct_auto, unsupported_auto, labels, strict=True)
    ]
    correct_human = [label.correct for label in labels]
    unsupported_human = [h["unsupported sentence"] for h in human]
    return JudgeAgreement(
        judge=judge,
        correct=agree("correct", correct_auto, correct_human),
        unsupported=agree("unsupported claim", unsupported_auto, unsupported_human),
        hallucination=agree("hallucination", [j.hallucination for j in judged], [h["hallucination"] for h in human]),
        review=agree("review", [j.review for j in judged], [h["review"] for h in human]),
        queue=queue_capture([j.review for j in judged], errors),
        curve=tuple(ranked_capture([review_priority(j) for j in judged], errors, share) for share in QUEUE_SHARES),
        audit=tuple(ranked_capture([audit_priority(j) for j in judged], errors, share) for share in QUEUE_SHARES),
        correct_selective=selective(
            "correct", correct_auto, correct_human, [j.correct_decided for j in judged], judge.name, seed, resamples
        ),
        unsupported_selective=selective(
            "unsupported claim",
            unsupported_auto,
            unsupported_human,
            [j.unsupported_decided for j in judged],
            judge.name,
            seed,
            resamples,
        ),
    )


def measure_set(
    labelled_set: LabelledSet, judges: Sequence[Judge], seed: int = DEFAULT_SEED, resamples: int = 10000
) -> SetAgreement:
    """Every judge against the set's pass-1 labels, overall and per configuration; pass 2 against pass 1.

    Each answer is judged once per judge; the per-configuration figures regroup those judgements.
    """
    questions = load_gold(labelled_set.gold)
    by_id = {q.id: q for q in questions}
    ids = [q.id for q in questions]
    logs: dict[str, AnswerLog] = {config: load_answer_log(path, ids) for config, path in labelled_set.answers}
    answers = {(config, a.question_id): a for config, log in logs.items() for a in log.answers}
    match = match_labels(load_labels(labelled_set.labels), {key: a.answer for key, a in answers.items()})
    reference, second = split_passes(match.matched)
    keys = [key for key in answers if key in reference]  # log order: configs as listed, gold order inside
    labels = [reference[k] for k in keys]
    overall = []
    by_config: dict[str, list[JudgeAgreement]] = {config: [] for config in logs}
    for judge in judges:
        judged = [judge_logged(answers[k], by_id[k[1]], judge) for k in keys]
        overall.append(_measure_group(judged, labels, judge, seed, resamples))
        for config in logs:
            pick = [i for i, k in enumerate(keys) if k[0] == config]
            by_config[config].append(
                _measure_group([judged[i] for i in pick], [labels[i] for i in pick], judge, seed, resamples)
            )
    passes = passes_agreement(reference, second, seed, resamples)
    return SetAgreement(
        labelled_set,
        len(keys),
        len(match.stale),
        len(match.unknown),
        tuple(overall),
        {config: tuple(rows) for config, rows in by_config.items()},
        passes,
        len(second),
    )


def _kappa(result: JudgementAgreement) -> str:
    """κ with its interval to 2 places, as the report and the README print it (:func:`interval_text`)."""
    return interval_text(result.kappa, 2)


def _selective(result: Selective | None) -> str:
    if result is None or result.coverage is None:
        return "—"
    k = result.decided.kappa.value
    return f"{'—' if k is None else f'{k:.2f}'} ({result.coverage * 100:.0f}%)"


def _queue(q: QueueCapture) -> str:
    share = "—" if q.share is None else f"{q.share * 100:.0f}%"
    caught = "no errors" if q.recall is None else f"{q.caught}/{q.errors} = {q.recall * 100:.0f}%"
    return f"{q.size}/{q.n} = {share}; errors held {caught}"


def _curve(curve: Sequence[QueueCapture]) -> str:
    return " ".join(
        f"{share:.0%}:{'—' if c.recall is None else f'{c.recall * 100:.0f}%'}"
        for share, c in zip(QUEUE_SHARES, curve, strict=True)
    )


def _table(rows: Sequence[tuple[str, JudgeAgreement]]) -> list[str]:
    header = (
        "",
        "answers",
        "correct κ [95% CI]",
        "decided: κ (share)",
        "unsupported claim κ",
        "decided: κ (share)",
        "hallucination κ",
        "review flag: size; judge's errors held",
        "ranked queue: errors held at size",
        "audit order (reads gold)",
    )
    lines = [header] + [
        (
            label,
            str(r.correct.confusion.n),
            _kappa(r.correct),
            _selective(r.correct_selective),
            _kappa(r.unsupported),
            _selective(r.unsupported_selective),
            _kappa(r.hallucination),
            _queue(r.queue),
            _curve(r.curve),
            _curve(r.audit),
        )
        for label, r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in lines]


def format_set(result: SetAgreement) -> str:
    """The plain-text block of one set: bookkeeping, one row per judge, then the default judge per configuration."""
    s = result.labelled_set
    out = [
        f"set {s.name!r} ({'held out: measured, never tuned on; ' if s.held_out else ''}{s.generator} answers; "
        f"configurations {', '.join(c for c, _ in s.answers)}): "
        f"{result.labelled} labelled answers; stale {result.stale}; unknown {result.unknown}"
    ]
    out += _table([(r.judge.name, r) for r in result.overall])
    if len(result.by_config) > 1 and result.overall:
        first = result.overall[0].judge.name
        out.append(f"  per configuration, judge {first}:")
        out += _table([(f"{config}", rows[0]) for config, rows in result.by_config.items()])
    if result.interrater:
        parts = []
        for name, stats in result.interrater.items():
            parts.append(f"{name} κ {interval_text(stats['kappa'], 2)}")
        out.append(
            f"  agreement between labelling passes ({result.double_labelled} answers labelled twice): "
            + ", ".join(parts)
        )
    return "\n".join(out) + "\n"


def set_json(result: SetAgreement) -> dict[str, Any]:
    """One set's figures as plain JSON (``--json``)."""

    def judge_json(r: JudgeAgreement) -> dict[str, Any]:
        return {
            "judge": {"name": r.judge.name, "scorer": r.judge.scorer, "matching": r.judge.matching},
            "correct": r.correct.to_dict(),
            "unsupported_claim": r.unsupported.to_dict(),
            "hallucination": r.hallucination.to_dict(),
            "review": r.review.to_dict(),
            "queue": {"n": r.queue.n, "size": r.queue.size, "errors": r.queue.errors, "caught": r.queue.caught},
            "decided": {
                name: None
                if sel is None
                else {
                    "agreement": sel.decided.to_dict(),
                    "decided": sel.n_decided,
                    "n": sel.n,
                    "coverage": sel.coverage,
                    "risk": sel.risk,
                    "risk_all": sel.risk_all,
                }
                for name, sel in (("correct", r.correct_selective), ("unsupported_claim", r.unsupported_selective))
            },
            "ranked_queue": [
                {"share": share, "size": c.size, "errors": c.errors, "caught": c.caught}
                for share, c in zip(QUEUE_SHARES, r.curve, strict=True)
            ],
            "audit_order": [
                {"share": share, "size": c.size, "errors": c.errors, "caught": c.caught}
                for share, c in zip(QUEUE_SHARES, r.audit, strict=True)
            ],
        }

    s = result.labelled_set
    return {
        "set": s.name,
        "generator": s.generator,
        "held_out": s.held_out,
        "gold": s.gold.name,
        "labelled": result.labelled,
        "stale": result.stale,
        "unknown": result.unknown,
        "double_labelled": result.double_labelled,
        "judges": [judge_json(r) for r in result.overall],
        "by_config": {config: [judge_json(r) for r in rows] for config, rows in result.by_config.items()},
        "interrater": dict(result.interrater),
    }

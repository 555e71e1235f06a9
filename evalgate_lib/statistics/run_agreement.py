"""Every automatic judgement of a run against reviewers' labels: what ``evalgate agreement`` prints.

For each labelled answer the answer is judged again, from its strings alone, with every
sentence scorer asked for (:func:`evalgate_lib.judging.answer.judge_answer`, the code the
pipeline runs), so the 0.1 scorer (lexical) and a new one are measured side by side on the same
labels without generating anything. Labels whose answer hash no longer matches the run's
answer are *stale*: counted and listed, never used.

How a label maps onto each automatic judgement (the reviewer never sees EvalGate's verdicts;
these are derived from the reviewer's two verdicts, ``correct`` and ``unsupported_claim``):

=====================  ====================================  ==========================================
judgement              automatic                             human reference
=====================  ====================================  ==========================================
correct                the run's deciding verdict             ``correct``
correct (<mode>)       each matching rule's verdict           ``correct``
unsupported sentence   any sentence judged unsupported        ``unsupported_claim``
hallucination          the flag                               wrong and ``unsupported_claim``
grounded-but-wrong     the flag                               wrong, makes a claim (a sentence the
                                                              reviewer judged supported or not; without
                                                              per-sentence labels: not a refusal), and
                                                              claims nothing unsupported
review                 the flag                               "a reviewer should look": wrong or
                                                              ``unsupported_claim``
=====================  ====================================  ==========================================
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import Label, match_labels
from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.correctness import judge_correctness
from evalgate_lib.judging.rows import Judgement, ResultRow, row_passages
from evalgate_lib.statistics.agreement_measures import (
    CensusRate,
    JudgementAgreement,
    census_rate,
    format_agreement_table,
    interrater,
    interval_text,
    judgement_agreement,
)
from evalgate_lib.statistics.paired_tests import DEFAULT_SEED

#: The reference pass: agreement is measured against each answer's pass-1 label.
REFERENCE_PASS = 1


def makes_claim(label: Label) -> bool:
    """Whether the reviewer read a claim in the answer: a sentence labelled supported or not (``None``: not a
    claim); a label without per-sentence verdicts, an answer that is not a refusal."""
    if label.sentences is not None:
        return any(s.supported is not None for s in label.sentences)
    return not bool(label.refusal)


def human_judgements(label: Label) -> dict[str, bool]:
    """The reviewer's verdicts, mapped onto every automatic judgement (see the module table).

    Grounded-but-wrong is "wrong, something claimed, nothing unsupported" on both sides: the flag never
    fires on an answer that claims nothing, so neither does the reviewer's side.
    """
    wrong = not label.correct
    return {
        "unsupported sentence": label.unsupported_claim,
        "hallucination": wrong and label.unsupported_claim,
        "grounded-but-wrong": wrong and not label.unsupported_claim and makes_claim(label),
        "review": wrong or label.unsupported_claim,
    }


def auto_judgements(judgement: Judgement) -> dict[str, bool]:
    """EvalGate's verdicts on one answer under one scorer, keyed as :func:`human_judgements`."""
    return {
        "unsupported sentence": judgement.unsupported_claim,
        "hallucination": judgement.hallucination,
        "grounded-but-wrong": judgement.grounded_but_wrong,
        "review": judgement.review,
    }


def rejudge(row: ResultRow, scorer: str, matching: str) -> Judgement:
    """``row``'s answer judged again from strings alone with ``scorer`` and ``matching``.

    The passages are the texts the row itself carries (:func:`~evalgate_lib.judging.rows.row_passages`, schema 6):
    the text the answer was written and judged from, whether or not a knowledge base was given. Rebuilding them
    from the corpus by their spans failed on answers scored from logs without ``--corpus`` (no article to look up).
    """
    return judge_answer(
        question=row.question,
        answer=row.answer,
        passages=list(row_passages(row)),
        accept=row.accept,
        answerable=row.answerable,
        top_similarity=row.top_similarity,
        matching=matching,
        scorer=scorer,
    )


@dataclass(frozen=True)
class AgreementReport:
    """Agreement of every judgement under every scorer, corrected headline rates, and label bookkeeping."""

    labelled: int
    stale: int
    unknown: int
    correctness: tuple[JudgementAgreement, ...]
    by_scorer: Mapping[str, tuple[JudgementAgreement, ...]]
    census: Mapping[str, Mapping[str, CensusRate]]
    interrater: Mapping[str, dict] = field(default_factory=dict)
    double_labelled: int = 0
    #: How the labels were drawn, said aloud (:func:`sample_line`); the labels' own rates (``census``): a census only.
    sample: str = ""
    #: Every label read from the files (before the stale, unknown and unused ones are set aside).
    read: int = 0
    #: Which labels count and why (:meth:`~evalgate_lib.inputs.labels.LabelSelection.policy_line`).
    policy: str = ""

    @property
    def unused_passes(self) -> int:
        """Labels of a current answer that are neither its pass-1 label nor its second pass (a third pass, or a
        later pass of an answer with no pass-1 label): read, not used."""
        return self.read - self.labelled - self.double_labelled - self.stale - self.unknown

    def used_line(self) -> str:
        """How many labels were used and why the rest were not, in one line."""
        return (
            f"labels used: {self.labelled} answers (pass {REFERENCE_PASS}) and {self.double_labelled} second-pass "
            f"labels (agreement between passes), of {self.read} labels considered; not used: {self.stale} stale "
            f"(answer changed since it was labelled), {self.unknown} unknown (no such answer in the run), "
            f"{self.unused_passes} of a later pass only (no pass-1 label of the answer, or a third pass)"
        )


def usable_labels(
    rows: Sequence[ResultRow], labels: Sequence[Label], source: str = "the label files"
) -> tuple[dict[LabelledKey, Label], dict[LabelledKey, Label]]:
    """``(reference, second)`` labels of the run's current answers; an :class:`InputError` when there are none.

    With no pass-1 label of a current answer every figure would be over n = 0 labels; the
    message says how many labels were read from ``source``, why none applies (stale: the
    answer changed since it was labelled; unknown: no such answer in the run) and what to do.
    """
    match = match_labels(labels, {(r.config, r.question_id): r.answer for r in rows})
    reference, second = split_passes(match.matched)
    if not reference:
        parts = [f"{len(match.stale)} stale (answer changed since it was labelled)"]
        parts.append(f"{len(match.unknown)} unknown (no such config and question in the run)")
        other = len(labels) - len(match.stale) - len(match.unknown)
        if other:
            parts.append(f"{other} of a later labelling pass only")
        raise InputError(
            f"{len(labels)} label(s) read from {source}, none of a current answer of the run: {'; '.join(parts)}; "
            "label the run's current answers (notebook 06) or measure the results folder the labels were made on"
        )
    return reference, second


def _pairs(rows: Sequence[ResultRow], labels: Mapping[tuple[str, str], Label]) -> list[tuple[ResultRow, Label]]:
    return [(r, labels[(r.config, r.question_id)]) for r in rows if (r.config, r.question_id) in labels]


def measure(
    rows: Sequence[ResultRow],
    labels: Sequence[Label],
    scorers: Sequence[str],
    matchings: Sequence[str],
    matching: str,
    seed: int = DEFAULT_SEED,
    resamples: int = 10000,
    source: str = "the label files",
    policy: str = "",
) -> AgreementReport:
    """Agreement of the run's judgements with the labels, for each scorer and matching rule.

    ``matching`` is the rule that decides ``correct`` (the run's own); ``matchings`` every
    rule to report beside it. When every answer is labelled (a census), the headline rates are
    also given as the labels' own (:func:`census_rate`: no label-sampling error, the exact interval
    of the share); for any other labels the rates are not corrected here (``sample`` says how they
    were drawn; the gate corrects a plan's).
    """
    match = match_labels(labels, {(r.config, r.question_id): r.answer for r in rows})
    reference, second = usable_labels(rows, labels, source)
    pairs = _pairs(rows, reference)
    human_correct = [label.correct for _, label in pairs]

    def agree(name: str, auto: list[bool], human: list[bool], scorer: str = "") -> JudgementAgreement:
        return judgement_agreement(name, auto, human, scorer=scorer, seed=seed, resamples=resamples)

    correctness = [agree("correct", [r.correct for r, _ in pairs], human_correct, scorer=f"run: {matching}")]
    for mode in matchings:
        verdicts = [
            judge_correctness(r.answer, r.question, r.answerable, r.accept, mode).verdict.correct for r, _ in pairs
        ]
        correctness.append(agree(f"correct ({mode})", verdicts, human_correct))

    by_scorer: dict[str, tuple[JudgementAgreement, ...]] = {}
    census_rates: dict[str, dict[str, CensusRate]] = {}
    labelled_keys = {(r.config, r.question_id) for r, _ in pairs}
    census = len(labelled_keys) == len(rows)
    for scorer in scorers:
        judged = {(r.config, r.question_id): auto_judgements(rejudge(r, scorer, matching)) for r in rows}
        results = []
        for name in ("unsupported sentence", "hallucination", "grounded-but-wrong", "review"):
            auto = [judged[(r.config, r.question_id)][name] for r, _ in pairs]
            human = [human_judgements(label)[name] for _, label in pairs]
            results.append(agree(name, auto, human, scorer=scorer))
        by_scorer[scorer] = tuple(results)
        if not census:  # the labels' own rates are the rates only when every answer is labelled
            continue
        census_rates[scorer] = {
            name: census_rate([judged[k][name] for k in judged], [human_judgements(reference[k])[name] for k in judged])
            for name in ("unsupported sentence", "hallucination", "review")
        }
    rows_by_key = {(r.config, r.question_id): r for r in rows}
    correct_keys = [k for k in rows_by_key if k in labelled_keys]
    if census:
        census_rates["correctness"] = {
            "accuracy": census_rate(
                [rows_by_key[k].correct for k in correct_keys], [reference[k].correct for k in correct_keys]
            )
        }
    agreement_between_passes = passes_agreement(reference, second, seed, resamples)
    return AgreementReport(
        labelled=len(pairs),
        stale=len(match.stale),
        unknown=len(match.unknown),
        correctness=tuple(correctness),
        by_scorer=by_scorer,
        census=census_rates,
        interrater=agreement_between_passes,
        double_labelled=len(second),
        sample=sample_line(len(pairs), len(rows), [label for _, label in pairs], source),
        read=len(labels),
        policy=policy,
    )


def convenience_line(labelled: int, answers: int, source: str) -> str:
    """The one line that says labels made outside a plan are a convenience sample (and refuses them for correction)."""
    return (
        f"{source}: {labelled} of {answers} answers labelled outside a sampling plan: a convenience sample, used for "
        "agreement figures only, never for a corrected delta; draw a plan with 'evalgate sample --results DIR "
        "--budget N' and label its answers in notebook 06, or label every answer"
    )


def sample_line(labelled: int, answers: int, labels: Sequence[Label], source: str) -> str:
    """How the labels were drawn, in one line: a census, a plan's labels, or a convenience sample."""
    if labelled == answers:
        return f"labels: a census ({labelled} of {answers} answers labelled): the corrected rates are the labels' own"
    plans = sorted({label.plan_sha256 for label in labels if label.plan_sha256})
    if plans:
        return (
            f"labels: {labelled} of {answers} answers, drawn by plan {plans[0][:12]}…: agreement figures here; the "
            "corrected rates and deltas are in 'evalgate gate --labels FILE' and the report's first screen"
        )
    return convenience_line(labelled, answers, source)


_PASS_FIELDS: dict[str, Callable[[Label], bool]] = {
    "correct": lambda label: label.correct,
    "unsupported claim": lambda label: label.unsupported_claim,
}

LabelledKey = tuple[str, str]


def split_passes(
    matched: Mapping[LabelledKey, Sequence[Label]],
) -> tuple[dict[LabelledKey, Label], dict[LabelledKey, Label]]:
    """``(reference, second)``: each answer's pass-1 label, and its next pass where it has one.

    Two labels of one answer in one pass (two reviewers labelled it in the same pass) are refused,
    naming both: which one counted was decided by the sort order of the reviewers' names. A second
    reviewer's independent pass is ``pass: 2`` (what the shipped labelled sets hold); a policy that
    keeps one reviewer's labels is ``--reviewer NAME`` (:func:`~evalgate_lib.inputs.labels.load_label_files`).
    """
    reference: dict[LabelledKey, Label] = {}
    second: dict[LabelledKey, Label] = {}
    for key, found in matched.items():
        by_pass: dict[int, Label] = {}
        for label in found:
            other = by_pass.setdefault(label.pass_number, label)
            if other is not label:
                raise InputError(conflict_line(other, label))
        if REFERENCE_PASS in by_pass:
            reference[key] = by_pass[REFERENCE_PASS]
            if len(by_pass) > 1:
                second[key] = by_pass[min(p for p in by_pass if p != REFERENCE_PASS)]
    return reference, second


def conflict_line(first: Label, second: Label) -> str:
    """Two labels of one answer in one pass, named with where each was read and what each says."""

    def said(label: Label) -> str:
        verdict = "correct" if label.correct else "wrong"
        claim = ", unsupported claim" if label.unsupported_claim else ""
        return f"reviewer {label.reviewer!r} at {label.source or 'an unnamed file'} ({verdict}{claim})"

    return (
        f"two pass-{first.pass_number} labels of one answer (config {first.config!r}, question {first.question_id!r}): "
        f"{said(first)} and {said(second)}; one label per answer and pass counts: keep one, mark the other "
        "reviewer's as 'pass': 2 (an independent second pass), or choose whose labels count with --reviewer NAME"
    )


def passes_agreement(
    reference: Mapping[LabelledKey, Label], second: Mapping[LabelledKey, Label], seed: int, resamples: int
) -> dict[str, dict]:
    """Agreement and κ between the two labelling passes, per verdict (empty when nothing was labelled twice)."""
    keys = sorted(second)
    if not keys:
        return {}
    return {
        name: interrater(
            [pick(reference[k]) for k in keys], [pick(second[k]) for k in keys], seed=seed, resamples=resamples
        )
        for name, pick in _PASS_FIELDS.items()
    }


def _census_line(name: str, rate: CensusRate) -> str:
    return (
        f"  {name:<22} judge {rate.naive_auto_rate * 100:5.1f}%  labels {rate.estimate * 100:5.1f}% "
        f"[{rate.ci_low * 100:.1f}, {rate.ci_high * 100:.1f}] (all {rate.n_total} answers)"
    )


def format_report(report: AgreementReport) -> str:
    """The plain-text report: bookkeeping, correctness, each scorer's flags, corrected rates, inter-rater agreement."""
    out = [
        *([report.policy] if report.policy else []),
        report.used_line(),
        "",
        "correctness",
        format_agreement_table(report.correctness),
    ]
    for scorer, results in report.by_scorer.items():
        out += [f"sentence support and flags, scorer {scorer}", format_agreement_table(results)]
    out.append(report.sample)
    if report.census:
        out.append(
            "headline rates of the labels (a census: every answer labelled, so no label-sampling error; 95% "
            "Clopper-Pearson interval over the answers), beside the judge's"
        )
    for scorer, rates in report.census.items():
        out.append(f" {scorer}:")
        out += [_census_line(name, rate) for name, rate in rates.items()]
    if report.interrater:
        out += ["", f"agreement between labelling passes ({report.double_labelled} answers labelled twice)"]
        for name, stats in report.interrater.items():
            out.append(
                f"  {name:<18} agreement {interval_text(stats['agreement'])}  Cohen's κ {interval_text(stats['kappa'])}"
            )
    return "\n".join(out) + "\n"


def report_json(report: AgreementReport) -> dict:
    """The report as plain JSON (for ``--json`` and the HTML report's agreement section)."""
    return {
        "labelled": report.labelled,
        "read": report.read,
        "unused_passes": report.unused_passes,
        "policy": report.policy,
        "stale": report.stale,
        "unknown": report.unknown,
        "double_labelled": report.double_labelled,
        "correctness": [a.to_dict() for a in report.correctness],
        "by_scorer": {scorer: [a.to_dict() for a in results] for scorer, results in report.by_scorer.items()},
        "census": {
            group: {name: asdict(rate) for name, rate in rates.items()} for group, rates in report.census.items()
        },
        "interrater": report.interrater,
        "sample": report.sample,
    }

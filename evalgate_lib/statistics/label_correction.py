"""A run's before/after deltas corrected by reviewers' labels: what the gate decides on when it has labels.

Which labels may correct a delta, and how (docs/methodology.md, "Deltas corrected by labels"):

* **a census** — every answer of both configs has a current pass-1 label, with or without a plan:
  nothing was sampled, so the corrected delta *is* the labels' delta, with no label-sampling
  error; it is tested as the judge's own delta is (paired bootstrap interval, McNemar's exact p),
  the labels taking the place of the judge's verdicts;
* **a plan's labels** — labels whose ``plan_sha256`` is the plan's: the stratified
  prediction-powered estimate (:mod:`evalgate_lib.statistics.label_estimates`), with the interval and p
  of :func:`~evalgate_lib.statistics.label_bootstrap.plan_figure`, over the drawn
  questions labelled from the start of the plan's order (in every stratum; a label further on,
  past a question not yet labelled, waits until the gap is filled: it is counted, not used);
* **anything else is a convenience sample** — labels made outside a plan (in the explorer, the
  review queue first): used for agreement figures only, refused for correction with one line.

The metrics a label measures (:data:`CORRECTED`): accuracy on answerable questions, refusal
accuracy, overall accuracy, wrong and hallucination counts, and the unsupported-claim rate; every
other metric (retrieval recall, MRR, ...) involves no judgement and keeps its own delta.

Which kind of labels a correction rests on is part of it (:attr:`LabelCorrection.kinds`): blind
labels (the reviewer's own judgement, EvalGate's verdicts hidden until saved), audit labels (made
seeing the verdicts), labels revised after the verdicts appeared, or labels whose file does not
say (:func:`~evalgate_lib.inputs.labels.label_kind`); :meth:`LabelCorrection.line` names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import Label, describe_kinds, label_kinds, match_labels
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.statistics.label_bootstrap import BOOTSTRAP_INTERVAL, bootstrap_replicates, plan_figure
from evalgate_lib.statistics.label_bounds import PairStratum
from evalgate_lib.statistics.label_estimates import (
    CorrectedEstimate,
    StratumValues,
    corrected_paired,
    corrected_rate,
    known_zero,
    paired_values,
)
from evalgate_lib.statistics.metrics import in_population
from evalgate_lib.statistics.paired_tests import EXACT_MCNEMAR, compare_metric
from evalgate_lib.statistics.power import POPULATION_WORDS
from evalgate_lib.statistics.run_agreement import convenience_line, human_judgements, split_passes
from evalgate_lib.statistics.sampling_plan import SAME, LabelPlan

CENSUS, PLAN = "census", "plan"
#: The level of a plan's interval printed beside the figures (the gate reads the replicates at its own α).
BOOTSTRAP_ALPHA = 0.05


@dataclass(frozen=True)
class LabelledMetric:
    """A metric a reviewer's label measures: its population, the judge's value and the label's."""

    key: str
    label: str
    kind: str  # "rate" or "count"
    population: str
    judge: Callable[[ResultRow], bool]
    human: Callable[[Label], bool]


CORRECTED: tuple[LabelledMetric, ...] = (
    LabelledMetric("accuracy_answerable", "accuracy on answerable", "rate", "answerable",
                   lambda r: r.correct, lambda lb: lb.correct),
    LabelledMetric("refusal_accuracy", "refusal accuracy on no-answer", "rate", "no_answer",
                   lambda r: r.correct, lambda lb: lb.correct),
    LabelledMetric("accuracy_overall", "accuracy overall", "rate", "all", lambda r: r.correct, lambda lb: lb.correct),
    LabelledMetric("wrong", "wrong", "count", "all", lambda r: not r.correct, lambda lb: not lb.correct),
    LabelledMetric("hallucination", "hallucination flags", "count", "all",
                   lambda r: r.flags.hallucination, lambda lb: human_judgements(lb)["hallucination"]),
    LabelledMetric("unsupported_claim", "answers with an unsupported claim", "rate", "all",
                   lambda r: r.flags.unsupported_claim, lambda lb: lb.unsupported_claim),
)  # fmt: skip
CORRECTED_KEYS = tuple(m.key for m in CORRECTED)


@dataclass(frozen=True)
class CorrectedDelta:
    """One metric's delta corrected by labels, in the metric's unit (an integer for a count), beside the judge's.

    A census: ``delta`` is the labels' delta, ``ci_low``/``ci_high`` its exact McNemar interval and
    ``p_value`` McNemar's exact p on the labels (``b``, ``c`` of ``questions``). A plan: ``delta`` the
    stratified PPI++ estimate, ``ci_low``/``ci_high``/``p_value`` its 95 % stratified percentile
    bootstrap interval and p (``replicates``: the gate reads them at its own level; ``estimate`` keeps
    the t figures of the estimate for the narrowing plot, ``label_low``/``label_high`` the label
    sampling alone), and ``strata`` the judge's and the labels' verdict pairs per stratum, from which
    :func:`~evalgate_lib.statistics.label_bounds.decide_by_labels` decides a rule when the bootstrap
    cannot (a stratum with a single label).
    """

    metric: str
    label: str
    kind: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    judge_delta: float | None
    questions: int
    labelled: int
    label_low: float | None = None
    label_high: float | None = None
    estimate: CorrectedEstimate | None = None
    b: int | None = None
    c: int | None = None
    strata: tuple[PairStratum, ...] = ()
    #: A plan's sorted bootstrap replicates of the delta, as a rate (:mod:`~evalgate_lib.statistics.label_bootstrap`):
    #: the interval and p at any level; empty on a census, or when a stratum has too few labels to resample.
    replicates: tuple[float, ...] = ()

    @property
    def census(self) -> bool:
        return self.estimate is None

    def significance(self) -> dict[str, float | str | None]:
        """The interval and p-value, keyed as ``summary.json``'s ``significance`` entries, with ``test`` and
        ``interval`` naming how each is made (exact McNemar on a census; the t test of the estimate on a plan)."""
        if self.census:
            return {"ci_low": self.ci_low, "ci_high": self.ci_high, "p_value": self.p_value, "test": "McNemar",
                    "interval": EXACT_MCNEMAR, "b": self.b, "c": self.c, "n": self.questions}  # fmt: skip
        if not self.replicates:
            return {"ci_low": self.ci_low, "ci_high": self.ci_high, "p_value": self.p_value, "test": "t",
                    "interval": "t (stratified PPI++ estimate)"}  # fmt: skip
        return {"ci_low": self.ci_low, "ci_high": self.ci_high, "p_value": self.p_value, "test": "bootstrap",
                "interval": BOOTSTRAP_INTERVAL}  # fmt: skip


@dataclass(frozen=True)
class LabelCorrection:
    """Every labelled metric's corrected delta, how the labels were drawn, and what was left out."""

    basis: str
    metrics: Mapping[str, CorrectedDelta]
    labelled_answers: int
    answers: int
    plan_sha256: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: Metric → why the labels do not correct it (its population has no labelled question): the gate says so.
    not_corrected: Mapping[str, str] = field(default_factory=dict)
    #: The labels used, counted by how each was made (:func:`~evalgate_lib.inputs.labels.label_kinds`:
    #: ``blind``, ``audit``, ``verdicts seen``, ``unrecorded``): the gate names which kind it decided on.
    kinds: Mapping[str, int] = field(default_factory=dict)
    #: The plan file the labels were drawn by, as given or found in the results folder (a plan's basis only).
    plan_path: str | None = None
    #: Which labels count and why (:meth:`~evalgate_lib.inputs.labels.LabelSelection.policy_line`).
    policy: str = ""

    def kinds_line(self) -> str:
        """Which kind of labels the correction used, e.g. "labels used: 40 blind, 2 audit"."""
        return f"labels used: {describe_kinds(self.kinds)}"

    def line(self) -> str:
        """One line on what the correction rests on (the gate, ``diff`` and the report print it)."""
        if self.basis == CENSUS:
            return (
                f"deltas corrected by labels: a census ({self.labelled_answers} of {self.answers} answers labelled): "
                "the labels' delta, no label-sampling error, tested as the judge's (Tango's interval against each "
                "rule's limit; McNemar's exact p against no change); " + self.kinds_line()
            )
        named = f"{self.plan_path} (SHA-256 {(self.plan_sha256 or '')[:12]}…)" if self.plan_path else (
            f"{(self.plan_sha256 or '')[:12]}…"
        )  # fmt: skip
        return (
            f"deltas corrected by labels: {self.labelled_answers} of {self.answers} answers labelled under plan "
            f"{named} (the stratified PPI++ estimate: the judge's verdicts on every answer corrected by the "
            "labels; its interval the hull of a stratified bootstrap and a floored t interval, which decide each rule; "
            "where a stratum has a single label, the census bound, else the judge); " + self.kinds_line()
        )


def _scale(value: float | None, factor: int) -> float | None:
    """A rate as a count of ``factor`` questions (4 places: the 6-place rate times n would show its rounding)."""
    if value is None:
        return None
    return round(value * factor, 4 if factor > 1 else 6)


def _census(rows: Mapping[tuple[str, str], ResultRow], reference: Mapping[tuple[str, str], Label],
            questions: Sequence[str], baseline: str, candidate: str) -> dict[str, CorrectedDelta]:  # fmt: skip
    """The labels' own deltas: nothing was sampled, so each is tested exactly as the judge's (McNemar)."""
    out = {}
    for m in CORRECTED:
        ids = [q for q in questions if in_population(rows[(baseline, q)], m.population)]
        if not ids:
            continue
        human = {c: [m.human(reference[(c, q)]) for q in ids] for c in (baseline, candidate)}
        judge = {c: [m.judge(rows[(c, q)]) for q in ids] for c in (baseline, candidate)}
        count = m.kind == "count"
        stat = compare_metric(m.key, human[baseline], human[candidate], binary=True, scale=len(ids) if count else None)
        sums = {c: sum(human[c]) for c in (baseline, candidate)}
        judged = sum(judge[candidate]) - sum(judge[baseline])
        if count:  # integers: sums of labels, not rates times n
            values: tuple[float | None, ...] = (sums[baseline], sums[candidate], sums[candidate] - sums[baseline])
            judge_delta: float = judged
        else:
            values = (stat["baseline"], stat["candidate"], stat["delta"])
            judge_delta = round(judged / len(ids), 6)
        out[m.key] = CorrectedDelta(
            m.key, m.label, m.kind, *values, stat["ci_low"], stat["ci_high"], stat["p_value"],
            judge_delta, len(ids), len(ids), b=stat["b"], c=stat["c"],
        )  # fmt: skip
    return out


def _labelled_prefix(plan: LabelPlan, labelled: set[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """Per stratum, its drawn questions labelled (every config) from the start of its draw order, to the first gap."""
    out = {}
    for s in plan.strata:
        prefix = []
        for qid in s.drawn:
            if not all((c, qid) in labelled for c in plan.configs):
                break
            prefix.append(qid)
        out[s.name] = tuple(prefix)
    return out


def _plan_values(rows: Mapping[tuple[str, str], ResultRow], plan_labels: Mapping[tuple[str, str], Label],
                 plan: LabelPlan, prefix: Mapping[str, tuple[str, ...]], metric: LabelledMetric,
                 config: str) -> list[StratumValues]:  # fmt: skip
    strata = []
    for s in plan.strata:

        def judge(qid: str) -> float | None:
            row = rows[(config, qid)]
            return float(metric.judge(row)) if in_population(row, metric.population) else None

        def human(qid: str) -> float | None:
            row = rows[(config, qid)]
            return float(metric.human(plan_labels[(config, qid)])) if in_population(row, metric.population) else None

        strata.append(
            StratumValues(tuple(judge(q) for q in s.questions), tuple((judge(q), human(q)) for q in prefix[s.name]))
        )
    return strata


def _paired(plan: LabelPlan, base: Sequence[StratumValues], cand: Sequence[StratumValues]) -> list[StratumValues]:
    """The per-question differences the delta is estimated from; the plan's never-drawn stratum ``same`` a census
    of zeros (:func:`~evalgate_lib.statistics.label_estimates.known_zero`: its delta is known without a label)."""
    paired = paired_values(base, cand)
    return [known_zero(v) if s.name == SAME else v for s, v in zip(plan.strata, paired, strict=True)]


def _pair_strata(rows: Mapping[tuple[str, str], ResultRow], plan_labels: Mapping[tuple[str, str], Label],
                 plan: LabelPlan, prefix: Mapping[str, tuple[str, ...]], metric: LabelledMetric,
                 baseline: str, candidate: str) -> tuple[PairStratum, ...]:  # fmt: skip
    """Each stratum's population questions: the judge's (baseline, candidate) verdicts, the labels' where used."""
    out = []
    for s in plan.strata:
        used = set(prefix[s.name])
        ids = [q for q in s.questions if in_population(rows[(baseline, q)], metric.population)]
        judge = tuple((metric.judge(rows[(baseline, q)]), metric.judge(rows[(candidate, q)])) for q in ids)
        labels = tuple(
            (metric.human(plan_labels[(baseline, q)]), metric.human(plan_labels[(candidate, q)])) if q in used else None
            for q in ids
        )
        if s.name == SAME:  # concordant, as their labels would be: the census bound counts no change there
            labels = judge
        out.append(PairStratum(judge, labels))
    return tuple(out)


def _planned(rows: Mapping[tuple[str, str], ResultRow], plan_labels: Mapping[tuple[str, str], Label],
             plan: LabelPlan, prefix: Mapping[str, tuple[str, ...]], baseline: str,
             candidate: str) -> tuple[dict[str, CorrectedDelta], dict[str, str]]:  # fmt: skip
    """The stratified estimate of every labelled metric, and why for each metric the labels cannot correct."""
    out, notes = {}, {}
    for m in CORRECTED:
        base = _plan_values(rows, plan_labels, plan, prefix, m, baseline)
        cand = _plan_values(rows, plan_labels, plan, prefix, m, candidate)
        population = sum(f is not None for s in base for f in s.judge)
        if not population:
            continue  # no question of this population in the run (e.g. no no-answer question)
        labelled = sum(f is not None for s in base for f, _ in s.labelled)
        if not labelled:
            words = POPULATION_WORDS[m.population]
            notes[m.key] = f"not corrected: none of the {population} {words} was labelled under the plan"
            continue
        paired = _paired(plan, base, cand)
        d = corrected_paired(paired)
        # a rate needs labels in every stratum holding its population; stratum same has none (only its delta is known)
        skipped = any(
            s.name == SAME and any(f is not None for f in v.judge) for s, v in zip(plan.strata, base, strict=True)
        )
        b, c = (None, None) if skipped else (corrected_rate(base), corrected_rate(cand))
        factor = d.n_population if m.kind == "count" else 1
        strata = _pair_strata(rows, plan_labels, plan, prefix, m, baseline, candidate)
        low, high, p, replicates = d.ci_low, d.ci_high, d.p_value, ()
        drawn = bootstrap_replicates(paired, d.power)
        if drawn is not None:  # the one procedure: the estimate's bootstrap interval and p (module docstring)
            replicates = tuple(float(x) for x in drawn)
            fig = plan_figure(replicates, d.estimate, d.total_se, d.total_df, 1.0 - BOOTSTRAP_ALPHA)
            low, high, p = fig.ci_low, fig.ci_high, fig.p_value
        out[m.key] = CorrectedDelta(
            m.key, m.label, m.kind,
            None if b is None else _scale(b.estimate, factor), None if c is None else _scale(c.estimate, factor),
            _scale(d.estimate, factor), _scale(low, factor), _scale(high, factor), p, _scale(d.judge_only, factor),
            d.n_population, labelled, _scale(d.label_low, factor), _scale(d.label_high, factor), d,
            strata=strata, replicates=replicates,
        )  # fmt: skip
    return out, notes


def correct_with_labels(
    rows: Sequence[ResultRow],
    baseline: str,
    candidate: str,
    labels: Sequence[Label],
    source: str,
    plan: LabelPlan | None = None,
    plan_sha256: str | None = None,
    *,
    plan_path: str | None = None,
    policy: str = "",
) -> LabelCorrection:
    """The corrected deltas of every labelled metric (module docstring), or one :class:`InputError` line.

    ``plan``/``plan_sha256``: the plan the labels were drawn by, already checked against the
    results folder (:func:`~evalgate_lib.statistics.sampling_plan.check_plan`). Refused: labels of
    no current answer, a convenience sample, plan labels without their plan, a plan stratum with
    no label yet.
    """
    by_key = {(r.config, r.question_id): r for r in rows}
    questions = [r.question_id for r in rows if r.config == baseline and (candidate, r.question_id) in by_key]
    answers = 2 * len(questions)
    match = match_labels(labels, {(r.config, r.question_id): r.answer for r in rows})
    reference, _ = split_passes(match.matched)
    reference = {k: v for k, v in reference.items() if k[0] in (baseline, candidate)}
    stale = [f"{len(match.stale)} stale label(s) (answer changed since labelled) not used"] if match.stale else []
    if all((c, q) in reference for q in questions for c in (baseline, candidate)):
        used = [reference[(c, q)] for q in questions for c in (baseline, candidate)]
        return LabelCorrection(CENSUS, _census(by_key, reference, questions, baseline, candidate), answers, answers,
                               notes=tuple(stale), kinds=label_kinds(used), policy=policy)  # fmt: skip
    drawn_by = sorted({lb.plan_sha256 for lb in reference.values() if lb.plan_sha256})
    if plan is None or plan_sha256 is None:
        if drawn_by:
            raise InputError(
                f"{source}: labels drawn by plan {drawn_by[0][:12]}…, but no such plan was given; pass --plan FILE "
                "(evalgate sample writes label-plan.json in the results folder)"
            )
        raise InputError(convenience_line(len(reference), answers, source))
    plan_labels = {k: v for k, v in reference.items() if v.plan_sha256 == plan_sha256}
    if not plan_labels:
        raise InputError(
            f"{source}: no label of the plan {plan_sha256[:12]}… (labels record the plan they were drawn by as "
            "plan_sha256); "
            + (f"these labels name plan(s) {', '.join(d[:12] + '…' for d in drawn_by)}" if drawn_by
               else convenience_line(len(reference), answers, "they"))
        )  # fmt: skip
    prefix = _labelled_prefix(plan, set(plan_labels))
    for s in plan.strata:
        if s.drawn and not prefix[s.name]:
            raise InputError(
                f"{source}: no label yet at the start of the plan's stratum {s.name!r} (its first question: "
                f"{s.drawn[0]}); label the plan's answers in its order (notebook 06 opens on the next one)"
            )
    used = {(c, q) for qs in prefix.values() for q in qs for c in plan.configs}
    corrected, uncorrected = _planned(by_key, plan_labels, plan, prefix, baseline, candidate)
    notes = list(stale) + [f"{key}: {why}; its rule keeps the judge's delta" for key, why in uncorrected.items()]
    drawn = {q for s in plan.strata for q in s.drawn}
    undrawn = sorted({q for (_, q) in plan_labels if q not in drawn})
    if undrawn:
        count = sum(1 for (_, q) in plan_labels if q not in drawn)
        notes.append(
            f"{count} label(s) name this plan but are of question(s) it never drew ({', '.join(undrawn[:5])}"
            f"{' …' if len(undrawn) > 5 else ''}): never used for the corrected delta (labelled outside the plan's "
            "draw); agreement figures only"
        )
    waiting = len({k for k in plan_labels if k[1] in drawn} - used)
    if waiting:
        notes.append(f"{waiting} plan label(s) past an unlabelled question of their stratum wait for it (not used yet)")
    outside = len(reference) - len(plan_labels)
    if outside:
        notes.append(f"{outside} label(s) made outside this plan: agreement figures only")
    kinds = label_kinds(plan_labels[k] for k in sorted(used))
    return LabelCorrection(PLAN, corrected, len(used), answers, plan_sha256, tuple(notes), uncorrected, kinds,
                           plan_path, policy)  # fmt: skip


def format_correction(correction: LabelCorrection, header: bool = True) -> str:
    """The corrected deltas as text: one line per labelled metric, corrected beside the judge's.

    ``header``: start with :meth:`LabelCorrection.line` (the gate prints it in its verdict already).
    """
    from evalgate_lib.statistics.metrics import format_interval, format_value

    out = [correction.line()] if header else ["every delta the labels correct:"]
    out += [f"  {correction.policy}"] if correction.policy else []
    out += [f"  note: {n}" for n in correction.notes]
    for m in correction.metrics.values():
        interval = format_interval(m.significance(), m.kind)
        p = "" if m.p_value is None else f", {m.significance()['test']} p={m.p_value:.3f}"
        what = "the labels' delta" if m.census else "corrected estimate"
        out.append(
            f"  {m.label}: {what} {format_value(m.delta, m.kind, signed=True)} {interval}{p}; "
            f"judge-only {format_value(m.judge_delta, m.kind, signed=True)} ({m.labelled} of {m.questions} "
            "questions labelled)"
        )
    return "\n".join(out)


@dataclass(frozen=True)
class PlanProgress:
    """How far a plan's labelling has come: its answers with a current label made under it, of all it draws."""

    labelled: int
    answers: int
    strata: int

    def line(self) -> str:
        """ "3 of 40 plan answers labelled" (what the narrowing plot says from the first saved label on)."""
        return f"{self.labelled} of {self.answers} plan answers labelled"


def plan_progress(
    rows: Sequence[ResultRow], labels: Sequence[Label], plan: LabelPlan, plan_sha256: str
) -> PlanProgress:
    """The plan's answers (every config of each drawn question) that carry a current pass-1 label made under it.

    Counted the moment a label is saved, whether or not the corrected delta can use it yet (it needs,
    in the plan's order, every answer of a question and a labelled question in each stratum).
    """
    match = match_labels(labels, {(r.config, r.question_id): r.answer for r in rows})
    reference, _ = split_passes(match.matched)
    drawn = {q for s in plan.strata for q in s.drawn}
    planned = {(c, q) for q in drawn for c in plan.configs}
    labelled = sum(1 for key, lb in reference.items() if key in planned and lb.plan_sha256 == plan_sha256)
    return PlanProgress(labelled, len(planned), sum(1 for s in plan.strata if s.drawn))


@dataclass(frozen=True)
class NarrowingStep:
    """The corrected delta after the first ``questions`` of the plan's order are labelled (both answers each)."""

    questions: int
    delta: float
    ci_low: float | None
    ci_high: float | None
    judge_delta: float
    classical_low: float | None
    classical_high: float | None


def narrowing(
    rows: Sequence[ResultRow],
    baseline: str,
    candidate: str,
    labels: Sequence[Label],
    plan: LabelPlan,
    plan_sha256: str,
    metric: str = "accuracy_answerable",
) -> list[NarrowingStep]:
    """The corrected delta of ``metric`` (a rate) and its interval over the first k labelled questions of the
    plan's order, for every k at which each stratum drawn so far has a label (what notebook 06 plots)."""
    chosen = next((m for m in CORRECTED if m.key == metric), None)
    if chosen is None:
        raise InputError(f"no labelled metric {metric!r}; choose one of {', '.join(CORRECTED_KEYS)}")
    by_key = {(r.config, r.question_id): r for r in rows}
    match = match_labels(labels, {(r.config, r.question_id): r.answer for r in rows})
    reference, _ = split_passes(match.matched)
    plan_labels = {k: v for k, v in reference.items() if v.plan_sha256 == plan_sha256}
    order = plan.order()
    labelled = [q for q in order if all((c, q) in plan_labels for c in plan.configs)]
    done = order[: next((i for i, q in enumerate(order) if q not in set(labelled)), len(order))]
    steps = []
    for k in range(1, len(done) + 1):
        first = set(done[:k])
        prefix = {s.name: tuple(q for q in s.drawn if q in first) for s in plan.strata}
        if any(s.drawn and not prefix[s.name] for s in plan.strata):
            continue
        base = _plan_values(by_key, plan_labels, plan, prefix, chosen, baseline)
        cand = _plan_values(by_key, plan_labels, plan, prefix, chosen, candidate)
        try:
            d = corrected_paired(_paired(plan, base, cand))
        except ValueError:  # no question of the population labelled yet in some stratum
            continue
        steps.append(NarrowingStep(k, d.estimate, d.ci_low, d.ci_high, d.judge_only, d.labels_only_low,
                                   d.labels_only_high))  # fmt: skip
    return steps

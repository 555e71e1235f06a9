"""The public API: run a comparison, load its results, judge one answer, inspect the inputs.

Everything a notebook or a script needs is reachable from ``import evalgate_lib as eg``
(see ``__all__`` in the package); the modules below stay free to change. The objects
here are thin: they hold what a run wrote and hand it to the one function that makes
each view, so a notebook shows exactly what the report and the command line show.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from evalgate_lib.chunks.chunking import Chunk, chunk_corpus
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.config import RunConfig, check_fairness, load_config
from evalgate_lib.inputs.corpus import Article, load_corpus
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.inputs.structured import parse_json
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow, row_passages
from evalgate_lib.judging.trace import Explanation, explain
from evalgate_lib.reporting import changes_view, explorer, first_screen, plots, report_html
from evalgate_lib.run.candidates import (
    family_of,
    is_candidates_folder,
    read_candidates_folder,
    run_and_write_candidates,
)
from evalgate_lib.run.folder import read_results_folder, rerun_hint
from evalgate_lib.run.manifest import Manifest
from evalgate_lib.run.pipeline import RunOptions, select_questions
from evalgate_lib.run.results import has_results, run_and_write
from evalgate_lib.statistics.candidates import (
    CandidateVerdict,
    format_holm_table,
    holm_limit_p_values,
    holm_p_values,
    judge_candidates,
    rank_candidates,
)
from evalgate_lib.statistics.changes import QuestionChange, question_changes
from evalgate_lib.statistics.gate import GateConfig, load_gate
from evalgate_lib.statistics.metrics import Summary, format_table
from evalgate_lib.workbench.notebook_support import resolve_configs

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from evalgate_lib.run.skeleton import Skeleton
    from evalgate_lib.statistics.decision import GateDecision
    from evalgate_lib.statistics.label_correction import LabelCorrection
    from evalgate_lib.statistics.run_agreement import AgreementReport
    from evalgate_lib.statistics.sampling_plan import LabelPlan
    from evalgate_lib.statistics.set_agreement import SetAgreement

#: Reviewer label files as the notebooks' ``labels`` parameter takes them: one path, or a list (:func:`label_files`).
LabelFiles = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None

#: Where ``evalgate run`` writes by default, and where notebooks and ``load_results`` look first.
DEFAULT_RESULTS = Path("results/latest")


class ShownExplanation(Explanation):
    """An :class:`~evalgate_lib.judging.trace.Explanation` that a notebook shows as HTML (the explorer's view)."""

    def _repr_html_(self) -> str:
        from evalgate_lib.reporting.trace_view import TRACE_CSS, explanation_html

        return f"<style>{TRACE_CSS}</style>" + explanation_html(self)


@dataclass(frozen=True)
class Results:
    """A results folder, loaded and verified: typed rows, summary, manifest, run stats, and the views over them.

    ``rows`` are :class:`~evalgate_lib.judging.rows.ResultRow` objects; ``summary`` a
    :class:`~evalgate_lib.statistics.metrics.Summary`; ``manifest`` a
    :class:`~evalgate_lib.run.manifest.Manifest`; ``frame`` is the rows flattened into a pandas
    DataFrame (one line per answer) for ad-hoc analysis.
    """

    folder: Path
    rows: tuple[ResultRow, ...]
    summary: Summary
    manifest: Manifest
    run_stats: dict[str, Any] = field(default_factory=dict)

    @property
    def baseline(self) -> str:
        return self.summary.baseline

    @property
    def candidate(self) -> str:
        return self.summary.candidate

    @cached_property
    def frame(self) -> pd.DataFrame:
        """One line per answer: ids, verdicts, scores, flags, retrieval ranks and the answer text."""
        import pandas as pd

        records = []
        for r in self.rows:
            metrics = r.retrieval_metrics
            records.append(
                {
                    "config": r.config,
                    "question_id": r.question_id,
                    "type": r.type,
                    "correct": r.correct,
                    "refused": r.refused,
                    "matched": r.matched,
                    "retrieval_hit": r.retrieval_hit,
                    "gold_rank": None if metrics is None else metrics.gold_rank,
                    "evidence_hit": None if metrics is None else metrics.evidence_hit,
                    "top_similarity": r.top_similarity,
                    "groundedness": r.groundedness,
                    "confidence": r.confidence,
                    **{name: r.flags.fired(name) for name in FLAG_NAMES},
                    "unsupported_sentences": len(r.unsupported_sentences),
                    "question": r.question,
                    "answer": r.answer,
                }
            )
        return pd.DataFrame.from_records(records)

    def row(self, config: str, question_id: str) -> ResultRow:
        """The row of one (config, question)."""
        for r in self.rows:
            if r.config == config and r.question_id == question_id:
                return r
        raise InputError(f"{self.folder}: no row for config {config!r}, question {question_id!r}")

    def explain(self, question_id: str, config: str | None = None) -> list[Explanation]:
        """The trace behind the verdicts of one question's answers (one per config, or only ``config``'s): each
        sentence's role, every rule tried in order with its evidence, which one decided. ``.text()`` is what
        ``evalgate explain`` prints; in a notebook each shows as HTML."""
        rows = [r for r in self.rows if r.question_id == question_id and (config is None or r.config == config)]
        if not rows:
            known = ", ".join(dict.fromkeys(r.config for r in self.rows))
            what = f"question {question_id!r}" + (f" in config {config!r}" if config else "")
            raise InputError(f"{self.folder}: no row for {what} (configs: {known})")
        return [
            ShownExplanation(
                **vars(explain(r.judgement, r.question, r.answer, r.config, r.question_id, row_passages(r)))
            )
            for r in rows
        ]

    def table(self) -> str:
        """The summary table ``evalgate run`` prints."""
        return format_table(self.summary)

    @cached_property
    def family(self) -> Candidates | None:
        """The several-candidates run this pair is one of (its folder's parent lists it), verified; else ``None``.

        A candidate of several is judged with each yes/no metric's p Holm-adjusted for the number of
        candidates; the views below that show a verdict or a *significant* mark then use it.
        """
        parent = family_of(self.folder)
        return None if parent is None else load_candidates(parent)

    def adjusted_p(self) -> dict[str, float | None] | None:
        """Each yes/no metric's Holm-adjusted McNemar p when this pair is one of several candidates, else ``None``."""
        return None if self.family is None else self.family.holm_p_values()[self.candidate]

    def headline_html(self) -> str:
        """Both configs' metrics, the deltas, intervals and p-values as HTML (what the report shows)."""
        return report_html.headline_html(self.summary, adjusted_p=self.adjusted_p())

    def intro_html(self) -> str:
        """The report's opening: the verdict line and what was compared."""
        return report_html.report_intro_html(self.manifest, self.summary)

    def title_html(self) -> str:
        """The report's heading: "EvalGate report: <candidate> vs <baseline>", the names as the run gave them."""
        return report_html.report_title_html(self.summary)

    def source_line(self) -> str:
        """Where these answers come from, in one line a notebook prints (no absolute path of this machine).

        "8 answers from results/external: chatty vs careful (answers supplied by the team's pipeline,
        scored with evalgate score)".
        """
        from evalgate_lib.reporting.paths import shareable_path

        made = (
            f" ({report_html.EXTERNAL_ANSWERS}, scored with evalgate score)"
            if self.manifest.is_external
            else f" (run by EvalGate on the {self.manifest.backend_name or 'unknown'} backend)"
        )
        return f"{len(self.rows)} answers from {shareable_path(self.folder)}: {self.candidate} vs {self.baseline}{made}"

    def methodology_html(self) -> str:
        """How every number is made and its honest limits, with the run's thresholds."""
        return report_html.methodology_html(self.manifest, self.rows)

    def fairness_html(self) -> str:
        return report_html.fairness_html(self.manifest)

    def manifest_html(self) -> str:
        return report_html.manifest_html(self.manifest)

    def delta_frame(self) -> pd.DataFrame:
        return plots.delta_frame(self.summary)

    def delta_chart(self) -> Figure:
        return plots.delta_bar_chart(self.summary)

    def flag_counts(self) -> pd.DataFrame:
        """Answers per flag and config, labelled as the explorer labels them."""
        import pandas as pd

        labels = {key: label for label, key in explorer.FLAG_CHOICES.items() if key}
        return pd.DataFrame(explorer.flag_counts(self.rows)).rename(index=labels)

    def flagged(self, flag: str, config: str | None = None) -> list[ResultRow]:
        """Rows carrying ``flag`` (a key such as ``hallucination`` or a label such as ``Review queue``); the review
        queue in its reading order (open verdicts first, then the thinnest support), every other flag in row order."""
        return explorer.filter_rows(self.rows, config, flag)

    def describe(self, row: ResultRow, articles: Sequence[Article] | None = None) -> str:
        """HTML of one answer: question, answer, retrieved chunks, sentence verdicts, flags and their reasons."""
        return explorer.describe_row(row, explorer.chunk_texts(articles) if articles else None)

    def flagged_html(self, flag: str, config: str, articles: Sequence[Article] | None = None, shown: int = 2) -> str:
        """How many answers of ``config`` carry ``flag``, and :meth:`describe` of the first ``shown`` (escaped HTML)."""
        bodies = explorer.chunk_texts(articles) if articles else None
        return explorer.flagged_html(self.rows, config, flag, bodies, shown)

    def explorer(self, articles: Sequence[Article] | None = None, flag: str = "Hallucination") -> Any:
        """The ipywidgets flag explorer (needs a live kernel)."""
        from evalgate_lib.workbench.explorer_widget import flag_explorer

        return flag_explorer(self.rows, articles, flag=flag)

    def labelling(
        self,
        labels_path: str | Path,
        reviewer: str,
        pass_number: int = 1,
        plan: str | Path | None = None,
        mode: str = "blind",
    ) -> Any:
        """The labelling widget (notebook 06): mark each answer correct / wrong and each sentence supported or not.

        Nothing is preselected; an answer is saved atomically to ``labels_path`` once its verdict
        and every sentence are marked, and a new session resumes at the first answer ``reviewer``
        has not labelled. ``mode`` ``"blind"``: no EvalGate verdict, flag or support figure of an
        answer is shown until its label is saved, and each label's ``verdicts_hidden`` says what the
        session had shown; ``"audit"``: the verdicts are shown from the start, and every label records
        ``"mode": "audit"``. With ``plan`` (a file from :func:`draw_label_plan`, checked against this
        folder), it shows only the plan's answers, in the plan's order, opens on the next unlabelled
        one, every label records the plan's SHA-256, and the corrected delta's interval
        (:meth:`interval_narrowing`) is redrawn below after every save.

        Whether a label is blind is read from the record of what ``reviewer`` has been shown
        (``verdicts-seen.jsonl`` beside ``labels_path``), over every session; a saved label changes only on
        request and keeps the earlier one in its ``history``; another reviewer's label of an answer in
        ``pass_number`` stops the save with the choice to label it as the next free pass.
        """
        from evalgate_lib.inputs.labels import LabelStore
        from evalgate_lib.run.outputs import check_output, results_inputs
        from evalgate_lib.workbench.labelling import LabellingSession, labelling_widget

        # the label file is written: never over the run's files or the plan, never inside the results folder
        inputs = [*results_inputs(self.folder), ("sampling plan", None if plan is None else Path(plan))]
        check_output(labels_path, "labels_path", folder=False, inputs=inputs, results=[self.folder])
        rows, digest, progress = list(self.rows), None, None
        if plan is not None:
            drawn, digest = self.label_plan(plan)
            by_key = {(r.config, r.question_id): r for r in self.rows}
            rows = [by_key[(c, q)] for q in drawn.order() for c in drawn.configs]

            def progress() -> Axes:
                return self.interval_narrowing(labels_path, plan)

        session = LabellingSession(rows, LabelStore(labels_path), reviewer, pass_number, digest, mode)
        return labelling_widget(session, self.articles(), progress)

    def label_plan(self, path: str | Path | None = None) -> tuple[LabelPlan, str]:
        """The sampling plan at ``path`` (default: the last one drawn into this folder) and its SHA-256, checked
        against this folder: a plan drawn from another folder, before this one changed, or that does not hold
        the run's questions (edited) is refused with the command to draw one that does."""
        from evalgate_lib.statistics.sampling_plan import PLAN_FILE, check_plan, load_plan

        drawn = self.plan_files()
        file = Path(path) if path is not None else drawn[-1] if drawn else self.folder / PLAN_FILE
        plan, digest = load_plan(file)
        check_plan(plan, file, self._digests(), (self.baseline, self.candidate), self.rows, self.folder)
        return plan, digest

    def _digests(self) -> dict[str, str]:
        return {name: str(entry.get("sha256")) for name, entry in (self.manifest.files or {}).items()}

    def label_correction(
        self, labels: LabelFiles, plan: str | Path | None = None, reviewer: str | None = None
    ) -> LabelCorrection:
        """Every labelled metric's delta corrected by the labels in ``labels`` (a census, or a plan's labels).

        ``labels``: one label file's path, or a list of them (:func:`label_files`). ``plan`` defaults to
        the plan in this folder whose SHA-256 the labels record (``label-plan.json``, or a later draw beside
        it). A convenience sample (labels made outside a plan, not every answer) is refused with one line
        (:class:`InputError`); so is a plan drawn before the folder changed, and two labels of one answer in
        one pass unless ``reviewer`` says whose count. :attr:`LabelCorrection.kinds` says which kind of
        labels it used.
        """
        from evalgate_lib.inputs.labels import load_label_files
        from evalgate_lib.statistics.label_correction import correct_with_labels

        labels = label_files(labels)
        selection = load_label_files(labels, reviewer)
        loaded = list(selection.labels)
        source = ", ".join(map(str, labels))
        if not loaded:
            raise InputError(selection.nothing_read())
        if plan is not None:
            drawn, digest = self.label_plan(plan)
            return correct_with_labels(
                self.rows, self.baseline, self.candidate, loaded, source, drawn, digest,
                plan_path=str(plan), policy=selection.policy_line(),
            )  # fmt: skip
        found: tuple[LabelPlan | None, str | None] = (None, None)
        path: Path | None = None
        stale: InputError | None = None
        wanted = sorted({lb.plan_sha256 for lb in loaded if lb.plan_sha256})
        if wanted:
            try:
                path = self.plan_for(wanted)
                found = self.label_plan(path) if path is not None else found
            except InputError as exc:  # a census needs no plan: say this only if the labels need one
                stale = exc
        try:
            return correct_with_labels(
                self.rows, self.baseline, self.candidate, loaded, source, *found,
                plan_path=None if path is None else str(path), policy=selection.policy_line(),
            )  # fmt: skip
        except InputError:
            if stale is not None:
                raise stale from None
            raise

    def plan_files(self) -> list[Path]:
        """The sampling plans ``evalgate sample`` wrote into this folder, in the order they were drawn."""
        from evalgate_lib.statistics.sampling_plan import plan_files

        return plan_files(self.folder)

    def plan_for(self, digests: Sequence[str]) -> Path | None:
        """The plan of this folder whose SHA-256 is one of ``digests`` (what labels record), else the first drawn.

        The first drawn plan stands in when none matches, so the message that refuses it (drawn before the
        folder changed, or for other answers) is about the plan the folder holds, not about a missing file.
        """
        from evalgate_lib.statistics.sampling_plan import plan_digest

        files = self.plan_files()
        for file in files:
            if plan_digest(file) in digests:
                return file
        return files[0] if files else None

    def interval_narrowing(
        self, labels: LabelFiles, plan: str | Path | None = None, reviewer: str | None = None
    ) -> Axes:
        """How the corrected delta's interval narrows as the plan's labels come in (a matplotlib plot).

        One point per question labelled in the plan's order: the corrected accuracy delta and its
        95% interval over the first k labelled questions, beside the judge-only delta; its title counts
        the plan's answers labelled so far, each from the moment it is saved. A label file that does not
        exist yet (the labelling widget creates it on the first save) holds no label.
        """
        from evalgate_lib.inputs.labels import load_label_files
        from evalgate_lib.statistics.label_correction import narrowing, plan_progress

        drawn, digest = self.label_plan(plan)
        # a label file not written yet (nothing labelled so far) is an empty start, drawn as such
        loaded = list(load_label_files([path for path in label_files(labels) if path.exists()], reviewer).labels)
        steps = narrowing(self.rows, self.baseline, self.candidate, loaded, drawn, digest)
        return plots.interval_narrowing_plot(steps, progress=plan_progress(self.rows, loaded, drawn, digest))

    def agreement_report(
        self,
        labels: LabelFiles,
        scorers: Sequence[str] = ("lexical",),
        resamples: int = 10000,
        reviewer: str | None = None,
    ) -> AgreementReport:
        """Every judgement of this run against reviewers' labels, for the run's scorer and each of ``scorers``.

        ``reviewer``: only that reviewer's labels count (else two labels of one answer in one pass are refused).
        """
        from evalgate_lib.inputs.config import ANSWER_MATCHING
        from evalgate_lib.inputs.labels import load_label_files
        from evalgate_lib.statistics.run_agreement import measure

        labels = label_files(labels)
        selection = load_label_files(labels, reviewer)
        loaded = list(selection.labels)
        if not loaded:
            raise InputError(selection.nothing_read())

        run_scorer = self.manifest.sentence_scorer.split("@")[0]
        return measure(
            self.rows,
            loaded,
            scorers=list(dict.fromkeys([run_scorer, *scorers])),
            matchings=ANSWER_MATCHING,
            matching=self.manifest.answer_matching,
            resamples=resamples,
            source=", ".join(map(str, labels)),
            policy=selection.policy_line(),
        )

    def agreement(
        self, labels: LabelFiles, scorers: Sequence[str] = ("lexical",), reviewer: str | None = None
    ) -> dict[str, Any]:
        """:meth:`agreement_report` as plain JSON (what ``evalgate agreement --json`` writes)."""
        from evalgate_lib.statistics.run_agreement import report_json

        return report_json(self.agreement_report(labels, scorers, reviewer=reviewer))

    def agreement_html(self, labels: LabelFiles, reviewer: str | None = None) -> str:
        """:meth:`agreement` as the report's table, with who labelled and what they saw as the label files record it."""
        from evalgate_lib.inputs.labels import label_provenance, load_label_files, match_labels

        labels = label_files(labels)
        answers = {(r.config, r.question_id): r.answer for r in self.rows}
        loaded = load_label_files(labels, reviewer).labels
        used = [label for group in match_labels(loaded, answers).matched.values() for label in group]
        return report_html.agreement_html(self.agreement(labels, reviewer=reviewer), label_provenance(used))

    def examples(self, question_ids: Sequence[str] | str | None = None, n: int = 4) -> list[ResultRow]:
        """Answers worth a closer look: the given ids, else flagged answers alternating between configs.

        ``question_ids`` may be a list, or a string as papermill's ``-p`` passes one: a JSON list
        (``'["q001", "q045"]'``) or ids separated by commas (``q001,q045``). An id the run does not
        have is an error naming it, never a silently empty notebook.
        """
        wanted = question_id_list(question_ids)
        if wanted:
            known = {r.question_id for r in self.rows}
            unknown = [q for q in wanted if q not in known]
            if unknown:
                raise InputError(
                    f"question_ids: {', '.join(map(repr, unknown))} not in this run "
                    f"({len(known)} questions, e.g. {', '.join(sorted(known)[:3])})"
                )
        return plots.pick_examples(self.rows, question_ids=wanted, n=n)

    def sentence_heatmap(self, row: ResultRow) -> Axes:
        return plots.coverage_heatmap(row)

    def sentences_html(self, row: ResultRow) -> str:
        return plots.sentences_html(row)

    def example_html(self, row: ResultRow) -> str:
        """Which answer ``row`` is (config and question id), then :meth:`sentences_html` (escaped HTML)."""
        return plots.example_html(row)

    def support_matrix(self, rows: Sequence[ResultRow] | None = None, limit: int = 40) -> Axes:
        """Many answers at once: one heatmap line per answer, one cell per sentence.

        Without ``rows``: the first ``limit // 2`` answers of each config, alternating, and the
        title says how many of how many are drawn.
        """
        if rows is not None:
            return plots.coverage_matrix_heatmap(list(rows))
        configs = list(dict.fromkeys(r.config for r in self.rows))
        per = max(1, limit // max(1, len(configs)))
        by_config = [[r for r in self.rows if r.config == c and r.sentences][:per] for c in configs]
        picked = [r for group in zip(*by_config, strict=False) for r in group]
        total = {c: sum(1 for r in self.rows if r.config == c) for c in configs}
        shown = ", ".join(f"{c}: first {len(g)} of {total[c]}" for c, g in zip(configs, by_config, strict=True))
        return plots.coverage_matrix_heatmap(picked, title=f"answers drawn ({shown})")

    def model_calls_line(self) -> str:
        """The run's model calls and wall time in words (empty for answers scored from logs without stats)."""
        from evalgate_lib.run.results import format_model_calls

        return format_model_calls(self.run_stats) if self.run_stats.get("model_calls") else ""

    def support_distribution(self) -> Axes:
        return plots.coverage_distribution(self.rows)

    def sentence_frame(self) -> pd.DataFrame:
        return plots.sentence_coverages(self.rows)

    def results_table_html(self, labels: LabelFiles = (), reviewer: str | None = None) -> str:
        """Every answer of both configs as one filterable HTML table (the report's table).

        Each answer's details show the retrieved chunks' text (from the run's corpus; when that
        folder is gone, only their ids) and, with ``labels`` (reviewer label files), the
        reviewers' verdicts of that exact answer beside EvalGate's.
        """
        from evalgate_lib.inputs.labels import load_label_files

        try:
            bodies = explorer.chunk_texts(self.articles())
        except InputError:
            bodies = None
        loaded = list(load_label_files(label_files(labels), reviewer).labels)
        return report_html.results_table_html(self.rows, bodies=bodies, labels=loaded)

    def changes(self) -> list[QuestionChange]:
        """Per question, what changed from the baseline's answer to the candidate's: fixed, broken, flags or same."""
        return question_changes(self.rows, self.baseline, self.candidate)

    def changes_html(self) -> str:
        """The questions whose verdict or flags changed, both answers side by side (the report's "what changed")."""
        return changes_view.changes_html(self.changes())

    def gate_decision(
        self, thresholds: str | Path = "configs/gate.toml", labels: Sequence[str | Path] = (),
        plan: str | Path | None = None, strict_labels: bool = False, reviewer: str | None = None,
    ) -> GateDecision:  # fmt: skip
        """The gate's decision on this run under ``thresholds``: what ``evalgate gate`` prints and the report opens on.

        Made once (:func:`evalgate_lib.statistics.decision.decide`) and rendered by every view: the
        command line, ``gate --json``, ``--junit``, ``--markdown`` and the first screen. With ``labels``
        the rules a label measures are decided on the labels where they can decide; labels that cannot
        correct (a convenience sample, a stale plan) raise with one line when ``strict_labels`` (the
        gate), else leave the judge's verdict and the decision says why (the report). For one candidate
        of several, p-values are Holm-adjusted across the family (:attr:`family`).
        """
        from evalgate_lib.reporting.paths import shareable_path
        from evalgate_lib.run.folder import signature_line
        from evalgate_lib.statistics.decision import Partial, decide

        gate = load_gate(thresholds)
        correction, refused = None, None
        if labels:
            try:
                correction = self.label_correction(labels, plan, reviewer)
            except InputError as exc:
                if strict_labels:
                    raise
                refused = str(exc)
        gold = self.manifest.gold
        partial = (
            None
            if self.manifest.limit is None
            else Partial(int(gold.get("questions_run") or 0), int(gold.get("questions_in_file") or 0))
        )
        return decide(
            self.summary,
            gate,
            shareable_path(thresholds),
            correction,
            refused,
            self.adjusted_p(),
            1 if self.family is None else len(self.family.pairs),
            signature_line(self.folder),
            partial,
            None if self.family is None else self.family.holm_limit_p_values(gate)[self.candidate],
        )

    def first_screen_html(
        self, thresholds: str | Path = "configs/gate.toml", labels: LabelFiles = (),
        plan: str | Path | None = None, reviewer: str | None = None,
    ) -> str:  # fmt: skip
        """The gate's PASS / FAIL under ``thresholds`` with the rules that decided it, and what changed.

        The page renders :meth:`gate_decision` (the verdict ``evalgate gate --labels`` prints): decided on
        the labels where they can decide, each figure named as the judge's or the labels'; labels that
        cannot correct leave the judge's verdict, and the screen says why in one line. For one candidate
        of several, it opens on every candidate's verdict (:attr:`family`). ``reviewer``: only that
        reviewer's labels count (else two labels of one answer in one pass are refused).
        """
        decision = self.gate_decision(thresholds, labels, plan, reviewer=reviewer)
        leaderboard = ""
        if self.family is not None:
            leaderboard = first_screen.family_html(self.family.summaries(), decision.gate, self.candidate)
        return first_screen.first_screen_html(
            decision, first_screen.change_counts(self.rows, self.summary), leaderboard
        )

    def appendices_html(self, links: Sequence[str], skipped: Sequence[Sequence[str]] = ()) -> str:
        """The report's links to the executed notebooks beside it, then each notebook skipped and why (escaped)."""
        return report_html.appendix_links_html(links, skipped)

    def articles(self) -> list[Article]:
        """The knowledge base the run used (from the manifest's corpus path), as it was when the run read it.

        Empty for answers scored from logs without ``--corpus``: no knowledge base was given. A corpus
        changed since the run (its SHA-256 is not the manifest's) is refused with one line: the passages
        rebuilt from it by their spans would not be the text the answers were written and judged from
        (the report shows them), and nothing would say so.
        """
        from evalgate_lib.inputs.corpus import corpus_digest

        path = self.manifest.corpus.get("path")
        if path is None:
            return []
        articles = load_corpus(path)
        recorded = self.manifest.corpus.get("sha256")
        now = corpus_digest(articles)
        if recorded is not None and now != recorded:
            raise InputError(
                f"corpus {path} has changed since the run of {self.folder} (its SHA-256 is {now[:12]}…, the manifest "
                f"records {str(recorded)[:12]}…): the passages rebuilt from it would not be the text the answers were "
                f"judged on; {rerun_hint(self.folder, self.manifest)}"
            )
        return articles


def load_results(folder: str | Path = DEFAULT_RESULTS) -> Results:
    """Load a results folder written by ``evalgate run`` or ``evalgate score`` (default ``results/latest``).

    The one way to load a folder: it is verified first (files present, digests equal to the
    manifest's and the manifest's own, the signature with a signing key set, summary complete,
    row counts the manifest's, every summary figure the one its rows give), and a folder changed
    after its run, or written by an older EvalGate, is refused with one line naming the file.
    """
    loaded = read_results_folder(folder)
    return Results(loaded.folder, loaded.rows, loaded.summary, loaded.manifest, loaded.run_stats)


@dataclass(frozen=True)
class Candidates:
    """Several candidates against one baseline, loaded and verified: one :class:`Results` per pair, in run order.

    Each pair is a complete results folder (``folder/<candidate>/``); what the family adds is the
    adjustment of each yes/no metric's p-value for the number of candidates (Holm), the gate's
    verdict on every candidate and which one leads.
    """

    folder: Path
    baseline: str
    pairs: tuple[Results, ...]
    run_stats: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The candidates' names, in the order they were given."""
        return [p.candidate for p in self.pairs]

    def pair(self, name: str) -> Results:
        """The pair (baseline, ``name``): a :class:`Results` like any two-config run's."""
        for pair in self.pairs:
            if pair.candidate == name:
                return pair
        raise InputError(f"{self.folder}: no candidate {name!r}; candidates: {', '.join(self.names)}")

    def summaries(self) -> list[Summary]:
        return [p.summary for p in self.pairs]

    def holm_p_values(self) -> dict[str, dict[str, float | None]]:
        """Candidate → metric → McNemar p Holm-adjusted across the candidates (``None`` for a score)."""
        return dict(zip(self.names, holm_p_values(self.summaries()), strict=True))

    def holm_limit_p_values(self, gate: GateConfig) -> dict[str, dict[str, float | None]]:
        """Candidate → rule's metric → p against the rule's limit Holm-adjusted across the candidates: what decides
        each yes/no rule on the judge's delta (``None`` for a score)."""
        return dict(zip(self.names, holm_limit_p_values(self.summaries(), gate), strict=True))

    def verdicts(self, thresholds: str | Path = "configs/gate.toml") -> list[CandidateVerdict]:
        """Every candidate's gate verdict under ``thresholds``, in run order (what ``evalgate gate`` prints)."""
        return judge_candidates(self.summaries(), load_gate(thresholds))

    def lead(self, thresholds: str | Path = "configs/gate.toml") -> Results:
        """The pair the report leads with: the best candidate that passes (else the best one), as ranked by the gate."""
        return self.pair(rank_candidates(self.verdicts(thresholds))[0].name)

    def table(self) -> str:
        """What ``evalgate run`` prints for several candidates: each pair's table, then McNemar p against Holm's."""
        blocks = [f"{p.candidate} vs {self.baseline}\n{p.table()}" for p in self.pairs]
        return "\n\n".join([*blocks, format_holm_table(self.summaries())])

    def model_calls_line(self) -> str:
        """The whole run's model calls (the baseline generated once for every candidate) and wall time."""
        from evalgate_lib.run.results import format_model_calls

        return format_model_calls(self.run_stats) if self.run_stats.get("model_calls") else ""


def load_candidates(folder: str | Path = DEFAULT_RESULTS) -> Candidates:
    """Load a folder of several candidates written by ``evalgate run`` or ``evalgate score`` with several candidates.

    Verified first: the index (``candidates.json``), then every pair folder as :func:`load_results`
    checks one, its manifest's SHA-256 against the index's, and one shared baseline.
    """
    loaded = read_candidates_folder(folder)
    pairs = tuple(Results(p.folder, p.rows, p.summary, p.manifest, p.run_stats) for p in loaded.pairs)
    return Candidates(loaded.folder, loaded.baseline, pairs, loaded.run_stats)


def run_candidates(
    baseline: str | Path,
    candidates: Sequence[str | Path],
    options: RunOptions | None = None,
    out_dir: str | Path = DEFAULT_RESULTS,
) -> Candidates:
    """Run the baseline once and each candidate (every model call cached), write one pair folder each and
    the index, and load it back.

    One candidate is :func:`run_comparison`'s job (a pair folder, no index); this needs two or more.
    """
    if len(candidates) < 2:
        raise InputError(f"run_candidates needs two or more candidates, got {len(candidates)}: use run_comparison")
    run_and_write_candidates(baseline, candidates, options or RunOptions(), out_dir)
    return load_candidates(out_dir)


@dataclass(frozen=True)
class DrawnPlan:
    """A sampling plan written to ``path``, with the SHA-256 that labels made under it record."""

    plan: LabelPlan
    path: Path
    sha256: str

    def describe(self) -> str:
        """What ``evalgate sample`` prints: strata, draws, inclusion probabilities, the file."""
        from evalgate_lib.statistics.sampling_plan import format_plan

        return format_plan(self.plan, self.path, self.sha256)

    def describe_for_reviewer(self) -> str:
        """What notebook 06 prints to the reviewer: how many answers to label and the file, no stratum (a verdict)."""
        from evalgate_lib.statistics.sampling_plan import format_plan_for_reviewer

        return format_plan_for_reviewer(self.plan, self.path, self.sha256)


def draw_label_plan(
    results: str | Path | Results,
    budget: int,
    seed: int | None = None,
    review_share: float | None = None,
    out: str | Path | None = None,
) -> DrawnPlan:
    """Draw which answers to label (``budget`` answers; every config of a question together) and write the plan.

    The review queue's questions first, up to ``review_share`` of the budget, then a seeded
    uniform random sample of the rest (:mod:`evalgate_lib.statistics.sampling_plan`); written to
    ``out`` (default ``<results>/label-plan.json``, or beside the plans already drawn there:
    ``label-plan-2.json`` …). A plan is never written over anything: labels made under an earlier
    plan name it, and a file at ``out`` may be anything (rows, labels). The same plan drawn again
    (the same folder, budget, seed and share: notebook 06 run twice) is the one already there. Label its answers with
    ``results.labelling(..., plan=path)``; ``evalgate gate --labels FILE`` then decides on the
    corrected delta.
    """
    from evalgate_lib.statistics.paired_tests import DEFAULT_SEED
    from evalgate_lib.statistics.sampling_plan import (
        DEFAULT_REVIEW_SHARE,
        draw_plan,
        next_plan_path,
        plan_digest,
        plan_digest_of,
        plan_files,
        write_plan,
    )

    loaded = results if isinstance(results, Results) else load_results(results)
    plan = draw_plan(
        loaded.rows,
        (loaded.baseline, loaded.candidate),
        budget,
        str(loaded.folder),
        loaded._digests(),
        DEFAULT_SEED if seed is None else seed,
        DEFAULT_REVIEW_SHARE if review_share is None else review_share,
    )
    same = plan_digest_of(plan)
    for drawn in [Path(out)] if out is not None else plan_files(loaded.folder):
        if drawn.is_file() and plan_digest(drawn) == same:  # drawn before, identical: the same plan, not a second
            return DrawnPlan(plan, drawn, same)
    path = Path(out) if out is not None else next_plan_path(loaded.folder)
    if path.exists() or path.is_symlink():
        raise InputError(
            f"--out {path} exists: a plan is never written over a file (it may hold the run's rows, a reviewer's "
            f"labels, or a plan whose labels name it); name a new file, or drop --out to write it beside the "
            f"folder's plans ({next_plan_path(loaded.folder)})"
        )
    return DrawnPlan(plan, path, write_plan(plan, path))


def run_comparison(
    baseline: str | Path = "configs/baseline.toml",
    candidate: str | Path = "configs/candidate.toml",
    options: RunOptions | None = None,
    out_dir: str | Path = DEFAULT_RESULTS,
) -> Results:
    """Run both configurations (every model call cached), write the results folder and load it back."""
    run_and_write(baseline, candidate, options or RunOptions(), out_dir)
    return load_results(out_dir)


def results_or_run(
    results_dir: str | Path,
    baseline: str | Path,
    candidate: str | Path,
    options: RunOptions | None = None,
    run: bool = False,
) -> Results:
    """The results in ``results_dir``; with ``run=True`` the evaluation is (re)run into it first.

    A missing folder without ``run=True`` is an error that says how to make it, never a
    silent evaluation: a notebook opened to look at results must not start minutes of
    model calls.
    """
    if run:
        return run_comparison(baseline, candidate, options, results_dir)
    if not has_results(results_dir) and not is_candidates_folder(results_dir):  # (several: load_results says so)
        raise InputError(missing_results_message(results_dir))
    return load_results(results_dir)


#: Where ``evalgate score`` writes by default.
DEFAULT_SCORED = Path("results/external")


def missing_results_message(results_dir: str | Path) -> str:
    """What to do when a notebook's ``results_dir`` holds no results: either command that writes one.

    A folder of scored logs beside it (``evalgate score``'s default ``results/external``) is named, so
    a notebook executed as it is after ``evalgate score`` points to it, not only to ``evalgate run``.
    """
    folder = Path(results_dir)
    scored = folder.parent / DEFAULT_SCORED.name
    hint = (
        f"; {scored} holds answers scored with `evalgate score`: set results_dir = {str(scored)!r} to read them"
        if scored != folder and has_results(scored)
        else ""
    )
    return (
        f"{folder} holds no results: write them with `evalgate run --out {folder}` (EvalGate's own pipeline) or "
        f"`evalgate score BASELINE.jsonl CANDIDATE.jsonl --gold GOLD --out {folder}` (your pipeline's answer logs), "
        f"or set run = True in this notebook's parameters{hint}"
    )


@dataclass(frozen=True)
class Inputs:
    """The two configs, the knowledge base and the gold set, loaded and cross-checked, before any model call."""

    baseline: RunConfig
    candidate: RunConfig
    articles: tuple[Article, ...]
    questions: tuple[GoldQuestion, ...]

    @property
    def chunkings(self) -> dict[str, dict[str, Any]]:
        return {self.baseline.name: self.baseline.chunking, self.candidate.name: self.candidate.chunking}

    def chunks(self, config: str) -> list[Chunk]:
        """The chunks one config's chunker cuts from the knowledge base."""
        chosen = self.baseline if config == self.baseline.name else self.candidate
        return chunk_corpus(self.articles, chosen.chunking)

    def article_table(self) -> pd.DataFrame:
        return plots.article_table(self.articles)

    def chunk_summary(self) -> pd.DataFrame:
        return plots.chunk_summary(self.articles, self.chunkings)

    def chunk_table(self) -> pd.DataFrame:
        return plots.chunk_table(self.articles, self.chunkings)

    def chunk_length_histograms(self) -> Figure:
        return plots.chunk_length_histograms(self.articles, self.chunkings)

    def gold_composition(self) -> pd.DataFrame:
        return plots.gold_composition(self.questions)

    def summary_line(self) -> str:
        """Corpus and gold file in one line, as paths relative to the project (never this machine's absolute ones)."""
        from evalgate_lib.reporting.paths import shareable_path

        return (
            f"corpus {shareable_path(self.baseline.corpus)}: {len(self.articles)} articles; "
            f"gold {shareable_path(self.baseline.gold)}: {len(self.questions)} questions"
        )

    def missing_gold_articles(self) -> list[tuple[str, str]]:
        return plots.missing_gold_articles(self.questions, self.articles)

    def selected(self, limit: int | None) -> list[GoldQuestion]:
        """The questions a run with ``--limit`` would take."""
        return select_questions(self.questions, limit)


def load_inputs(baseline: str | Path, candidate: str | Path) -> Inputs:
    """Load both configs (refusing an unfair pair), the corpus and the gold file they name."""
    a, b = load_config(baseline), load_config(candidate)
    check_fairness(a, b)
    return Inputs(a, b, tuple(load_corpus(a.corpus)), tuple(load_gold(a.gold)))


#: The config pair to run, with notebook parameters (corpus, gold file, top-k) applied to both alike.
prepare_configs = resolve_configs


def retrieve(
    config: str | Path = "configs/baseline.toml",
    options: RunOptions | None = None,
    *,
    gold: str | Path | None = None,
    top_k: int | None = None,
    out: str | Path | None = None,
    force: bool = False,
) -> Skeleton:
    """EvalGate's chunker and retriever for ``config`` over a gold file: an answer-log skeleton (no generation).

    Every gold question (``options.limit``: the slice a run takes) with its top-k passages (text,
    ``doc_id``, title, cosine similarity, span) and an empty ``answer`` for your generator to fill in,
    in the format ``evalgate score`` reads. ``gold`` and ``top_k`` override the config's
    ``[shared]`` ones. With ``out``, the skeleton is written there (an existing file only with
    ``force``). ``Skeleton.lines`` are the lines as dicts.
    """
    from evalgate_lib.run.skeleton import retrieve_skeleton, write_skeleton

    skeleton = retrieve_skeleton(config, options, gold=gold, top_k=top_k)
    if out is not None:
        write_skeleton(skeleton, out, force=force)
    return skeleton


def labelled_set_agreement(sets_file: str | Path, resamples: int = 10000) -> list[SetAgreement]:
    """Every default judge on every labelled set of ``sets_file`` (``labels/sets.toml``), set by set.

    The figures ``evalgate agreement --sets`` prints and the report's per-set table shows:
    κ for correctness, unsupported claim and hallucination with bootstrap intervals, and the
    review queue's capture of the judge's errors, per set and per configuration, never pooled.
    """
    from evalgate_lib.inputs.labelled_sets import load_sets
    from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, measure_set

    return [measure_set(s, DEFAULT_JUDGES, resamples=resamples) for s in load_sets(sets_file)]


def labelled_set_agreement_html(sets_file: str | Path, resamples: int = 10000) -> str:
    """:func:`labelled_set_agreement` as the report's HTML table: the same resamples as ``evalgate agreement --sets``
    and :func:`labelled_set_agreement`, so every κ interval is the one the command line and the README print."""
    from evalgate_lib.statistics.set_agreement import set_json

    return report_html.sets_agreement_html([set_json(r) for r in labelled_set_agreement(sets_file, resamples)])


def label_files(value: LabelFiles) -> list[Path]:
    """Label files from a list of paths, or from one path as papermill's ``-p labels PATH`` passes it.

    A string names one file (``"../labels/nimbus.jsonl"``), or several as a JSON list
    (``'["a.jsonl", "b.jsonl"]'``); ``None`` and ``""`` name none. Anything else is refused with
    the value, never iterated character by character into paths.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if isinstance(value, str) and value.strip().startswith("["):
        from evalgate_lib.inputs.structured import parse_json

        try:
            value = parse_json(value, "labels")
        except json.JSONDecodeError as exc:
            raise InputError(f"labels: {value!r} is not a JSON list of label files ({exc.msg})") from None
    if isinstance(value, str | os.PathLike):
        return [Path(value)]
    if isinstance(value, Sequence) and all(isinstance(p, str | os.PathLike) and str(p).strip() for p in value):
        return [Path(p) for p in value]
    raise InputError(f"labels: {value!r} must be a label file's path or a list of them")


def question_id_list(value: Sequence[str] | str | None) -> list[str] | None:
    """Question ids from a list or from a papermill string (a JSON list, or ids separated by commas)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = parse_json(text, "question_ids")
            except json.JSONDecodeError as exc:
                raise InputError(f"question_ids: {value!r} is not a JSON list of ids ({exc.msg})") from None
            if not isinstance(parsed, list) or not all(isinstance(q, str) for q in parsed):
                raise InputError(f"question_ids: {value!r} must be a list of id strings")
            return parsed
        return [q.strip() for q in text.split(",") if q.strip()]
    ids = list(value)
    if not all(isinstance(q, str) for q in ids):
        raise InputError(f"question_ids: {ids!r} must be id strings")
    return ids

"""The public API: run a comparison, load its results, judge one answer, inspect the inputs.

Everything a notebook or a script needs is reachable from ``import evalgate_lib as eg``
(see ``__all__`` in the package); the modules below stay free to change. The objects
here are thin: they hold what a run wrote and hand it to the one function that makes
each view, so a notebook shows exactly what the report and the command line show.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from evalgate_lib.chunks.chunking import Chunk, chunk_corpus
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.config import RunConfig, check_fairness, load_config
from evalgate_lib.inputs.corpus import Article, load_corpus
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow
from evalgate_lib.reporting import changes_view, explorer, first_screen, plots, report_html
from evalgate_lib.run.folder import read_results_folder
from evalgate_lib.run.manifest import Manifest
from evalgate_lib.run.pipeline import RunOptions, select_questions
from evalgate_lib.run.results import has_results, run_and_write
from evalgate_lib.statistics.changes import QuestionChange, question_changes
from evalgate_lib.statistics.metrics import Summary, format_table
from evalgate_lib.workbench.notebook_support import resolve_configs

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from evalgate_lib.run.skeleton import Skeleton
    from evalgate_lib.statistics.run_agreement import AgreementReport
    from evalgate_lib.statistics.set_agreement import SetAgreement

#: Where ``evalgate run`` writes by default, and where notebooks and ``load_results`` look first.
DEFAULT_RESULTS = Path("results/latest")


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

    def table(self) -> str:
        """The summary table ``evalgate run`` prints."""
        return format_table(self.summary)

    def headline_html(self) -> str:
        """Both configs' metrics, the deltas, intervals and p-values as HTML (what the report shows)."""
        return report_html.headline_html(self.summary)

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
        return report_html.methodology_html(self.manifest)

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
        """Rows carrying ``flag`` (a key such as ``hallucination`` or a label such as ``Review queue``)."""
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

    def labelling(self, labels_path: str | Path, reviewer: str, pass_number: int = 1) -> Any:
        """The labelling widget: mark each answer correct / wrong and each sentence supported or not.

        Nothing is preselected; an answer is saved atomically to ``labels_path`` once its verdict
        and every sentence are marked, and a new session resumes at the first answer ``reviewer``
        has not labelled. It shows no EvalGate verdict.
        """
        from evalgate_lib.inputs.labels import LabelStore
        from evalgate_lib.workbench.labelling import LabellingSession, labelling_widget

        session = LabellingSession(self.rows, LabelStore(labels_path), reviewer, pass_number)
        return labelling_widget(session, self.articles())

    def agreement_report(
        self, labels: Sequence[str | Path], scorers: Sequence[str] = ("lexical", "span"), resamples: int = 10000
    ) -> AgreementReport:
        """Every judgement of this run against reviewers' labels, for the run's scorer and each of ``scorers``."""
        from evalgate_lib.inputs.config import ANSWER_MATCHING
        from evalgate_lib.inputs.labels import load_labels
        from evalgate_lib.statistics.run_agreement import measure

        loaded = [label for path in labels for label in load_labels(path)]
        if not loaded:
            raise InputError(f"no labels in {', '.join(map(str, labels))}")

        run_scorer = self.manifest.sentence_scorer.split("@")[0]
        return measure(
            self.rows,
            loaded,
            self.articles(),
            scorers=list(dict.fromkeys([run_scorer, *scorers])),
            matchings=ANSWER_MATCHING,
            matching=self.manifest.answer_matching,
            resamples=resamples,
            source=", ".join(map(str, labels)),
        )

    def agreement(self, labels: Sequence[str | Path], scorers: Sequence[str] = ("lexical", "span")) -> dict[str, Any]:
        """:meth:`agreement_report` as plain JSON (what ``evalgate agreement --json`` writes)."""
        from evalgate_lib.statistics.run_agreement import report_json

        return report_json(self.agreement_report(labels, scorers))

    def agreement_html(self, labels: Sequence[str | Path]) -> str:
        """:meth:`agreement` as the report's table, with who labelled and what they saw as the label files record it."""
        from evalgate_lib.inputs.labels import label_provenance, load_labels, match_labels

        answers = {(r.config, r.question_id): r.answer for r in self.rows}
        loaded = [label for path in labels for label in load_labels(path)]
        used = [label for group in match_labels(loaded, answers).matched.values() for label in group]
        return report_html.agreement_html(self.agreement(labels), label_provenance(used))

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

    def results_table_html(self, labels: Sequence[str | Path] = ()) -> str:
        """Every answer of both configs as one filterable HTML table (the report's table).

        Each answer's details show the retrieved chunks' text (from the run's corpus; when that
        folder is gone, only their ids) and, with ``labels`` (reviewer label files), the
        reviewers' verdicts of that exact answer beside EvalGate's.
        """
        from evalgate_lib.inputs.labels import load_labels

        try:
            bodies = explorer.chunk_texts(self.articles())
        except InputError:
            bodies = None
        loaded = [label for path in labels for label in load_labels(path)]
        return report_html.results_table_html(self.rows, bodies=bodies, labels=loaded)

    def changes(self) -> list[QuestionChange]:
        """Per question, what changed from the baseline's answer to the candidate's: fixed, broken, flags or same."""
        return question_changes(self.rows, self.baseline, self.candidate)

    def changes_html(self) -> str:
        """The questions whose verdict or flags changed, both answers side by side (the report's "what changed")."""
        return changes_view.changes_html(self.changes())

    def first_screen_html(self, thresholds: str | Path = "configs/gate.toml") -> str:
        """The gate's PASS / FAIL under ``thresholds`` with the rules that decided it, and what changed."""
        return first_screen.first_screen(self.summary, self.rows, thresholds)

    def appendices_html(self, links: Sequence[str], skipped: Sequence[Sequence[str]] = ()) -> str:
        """The report's links to the executed notebooks beside it, then each notebook skipped and why (escaped)."""
        return report_html.appendix_links_html(links, skipped)

    def articles(self) -> list[Article]:
        """The knowledge base the run used (from the manifest's corpus path).

        Empty for answers scored from logs without ``--corpus``: no knowledge base was given.
        """
        path = self.manifest.corpus.get("path")
        return [] if path is None else load_corpus(path)


def load_results(folder: str | Path = DEFAULT_RESULTS) -> Results:
    """Load a results folder written by ``evalgate run`` or ``evalgate score`` (default ``results/latest``).

    The one way to load a folder: it is verified first (files present, digests equal to the
    manifest's, summary complete, row counts the manifest's), and a folder changed after its
    run, or written by an older EvalGate, is refused with one line naming the file.
    """
    loaded = read_results_folder(folder)
    return Results(loaded.folder, loaded.rows, loaded.summary, loaded.manifest, loaded.run_stats)


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
    if not has_results(results_dir):
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


def labelled_set_agreement_html(sets_file: str | Path, resamples: int = 2000) -> str:
    """:func:`labelled_set_agreement` as the report's HTML table (fewer resamples: it renders in seconds)."""
    from evalgate_lib.statistics.set_agreement import set_json

    return report_html.sets_agreement_html([set_json(r) for r in labelled_set_agreement(sets_file, resamples)])


def question_id_list(value: Sequence[str] | str | None) -> list[str] | None:
    """Question ids from a list or from a papermill string (a JSON list, or ids separated by commas)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
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

"""Scoring answers a pipeline outside EvalGate produced (``evalgate score``).

The judges, flags, summary, significance tests, results folder, report and gate are
the ones ``evalgate run`` uses: each logged answer goes through the same
:func:`~evalgate_lib.judging.evaluation.score_answer` as an answer EvalGate generated,
with the logged passages standing for the retrieved chunks. What EvalGate cannot do
here is enforce the fairness contract (that the two pipelines differ only in chunking
and prompt): it did not run them. The manifest says so, and names the logs by hash.

Retrieval metrics need to know which document each passage came from: they are
computed when every passage of a log carries a ``doc_id``, and left empty (not zero)
otherwise. Evidence-level metrics also need the corpus (``corpus``), to place each
passage's text in its article: where its ``spans`` say (as ``evalgate retrieve`` logs them),
else found verbatim, else with whitespace ignored (any run of spaces and line breaks matching
any other), else as spans of one or more articles joined by short separators (a retriever
that merges chunks: :func:`~evalgate_lib.text.locate.assemble`; the row records each span and
each join). A passage placed in none of these ways is an error naming the log line: placed
nowhere, it would silently count as a retrieval miss.

An answer logged with ``passages: []`` is valid: the pipeline retrieved nothing. Its
retrieval metrics count it as a miss (no gold rank, no evidence in the context) and
``evalgate score`` says how many such answers each log holds.

A log may be a RAGAS / Hugging Face evaluation dataset as it is (JSON Lines, CSV, a ``datasets``
folder: :mod:`~evalgate_lib.inputs.foreign_logs`). With no gold file, the gold is the one the
baseline log's rows carry (question and reference), and the manifest's ``gold`` section names
that log (``from_answer_log``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.answer_logs import (
    AnswerLog,
    LoggedAnswer,
    check_doc_ids,
    describe,
    gold_from_logs,
    match_gold,
    read_answer_log,
)
from evalgate_lib.inputs.config import ANSWER_MATCHING, DEFAULT_ANSWER_MATCHING, DEFAULT_SENTENCE_SCORER
from evalgate_lib.inputs.corpus import Article, corpus_digest, scan_corpus
from evalgate_lib.inputs.foreign_logs import declined_references as declined_references_of
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.judging.evaluation import Retrieved, score_answer
from evalgate_lib.judging.rows import SCHEMA_VERSION, ResultRow
from evalgate_lib.judging.scorers import get_scorer, judging_manifest
from evalgate_lib.run.manifest import Manifest, corpus_section, gold_section, new_manifest
from evalgate_lib.run.pipeline import checked_evidence
from evalgate_lib.run.results import write_folder
from evalgate_lib.statistics.metrics import Summary, compare, ranking_depths
from evalgate_lib.text.locate import (
    MAX_JOIN,
    MIN_PIECE,
    Assembly,
    Piece,
    assemble,
    find_evidence,
    find_exact,
    find_loose,
)

#: What the manifest says about fairness when EvalGate did not run the pipelines.
DECLARED_FAIRNESS = (
    "declared by the user, not enforced: the answers come from a pipeline EvalGate did not run, "
    "so it cannot check that the two configurations differ only in chunking and prompt"
)


@dataclass
class ExternalRun:
    """Two answer logs, judged: the rows (baseline first) and what the manifest needs."""

    names: tuple[str, str]
    logs: tuple[AnswerLog, AnswerLog]
    #: The gold file, or the baseline's log when the gold came from its rows (``gold_from_log``).
    gold_path: Path
    questions: list[GoldQuestion]
    articles: list[Article] | None
    corpus_path: Path | None
    matching: str
    scorer: str
    rows: list[ResultRow] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    #: Files of the corpus folder that are not documents, with the reason each was skipped.
    skipped: tuple[tuple[str, str], ...] = ()
    #: True when no gold file was given: the gold is the one the baseline log's RAGAS / Hugging Face rows carry.
    gold_from_log: bool = False
    #: SHA-256 of the gold's source (the gold file, or the baseline's log).
    gold_sha256: str | None = None
    #: Question id → its reference, for the questions made no-answer because their reference declines.
    declined: dict[str, str] = field(default_factory=dict)
    #: Per log name: passages without a doc_id that the corpus placed (their article found from their text).
    located: dict[str, int] = field(default_factory=dict)


def reference_declines(reference: str, question: str) -> bool:
    """Whether a reference answer declines ("The documentation does not answer this."): the judge's own decline
    reading of an answer (:func:`~evalgate_lib.judging.reading.read_answer`, then
    :func:`~evalgate_lib.judging.correctness.declining`), so a reference is read as an answer is."""
    from evalgate_lib.judging.correctness import declining
    from evalgate_lib.judging.reading import read_answer

    return declining(read_answer(reference, question)).refused


#: What ``--declined-references`` may say: a reference that declines makes its question no-answer (the default),
#: or is an accept string like any other.
DECLINED_REFERENCES = ("no-answer", "answerable")


def _non_space(text: str) -> int:
    return len("".join(text.split()))


def _declared(answer: LoggedAnswer, rank: int, articles: Mapping[str, Article]) -> tuple[int, int] | Assembly:
    """A passage's own ``spans`` (as ``evalgate retrieve`` writes them), checked against its text in order.

    Each span's text (the article's, found exactly, else with whitespace ignored) must come next in
    the passage; what lies between is joining text, at most :data:`MAX_JOIN` non-space characters
    each. One span of the passage's own article with nothing around it is a plain span.
    """
    passage = answer.passages[rank - 1]
    where = f"{answer.where}: passage {rank}"
    text, at = passage.text, 0
    pieces: list[Piece] = []
    joins: list[str] = []
    for number, span in enumerate(passage.spans or (), 1):
        doc = span.doc_id or passage.doc_id or ""
        article = articles.get(doc)
        if article is None:
            raise InputError(f"{where}: span {number}: doc_id {doc!r} is not an article of the corpus")
        if span.end > len(article.body):
            raise InputError(
                f"{where}: span {number} [{span.start}, {span.end}) ends past article {doc!r} "
                f"({len(article.body)} characters; {article.path})"
            )
        own = article.body[span.start : span.end]
        found = find_evidence(text[at:], own)
        if found is None:
            after = f" after span {number - 1}" if number > 1 else ""
            raise InputError(
                f"{where}: span {number} ({doc!r} [{span.start}, {span.end}): {own[:40]!r}) is not in the "
                f"passage's 'text'{after}; log each span's text as the article has it, in the spans' order"
            )
        joins.append(text[at : at + found[0]])
        pieces.append(Piece(doc, span.start, span.end))
        at += found[1]
    joins.append(text[at:])
    for join in joins:
        if _non_space(join) > MAX_JOIN:
            raise InputError(
                f"{where}: {_non_space(join)} characters of its 'text' are in none of its spans "
                f"(at most {MAX_JOIN} may join them): {join.strip()[:60]!r}"
            )
    if len(pieces) == 1 and pieces[0].article_id == passage.doc_id and not "".join(joins).strip():
        return pieces[0].start, pieces[0].end
    return Assembly(tuple(pieces), tuple(joins))


def place_passage(
    answer: LoggedAnswer, rank: int, article: Article, articles: Mapping[str, Article] | None = None
) -> tuple[int, int] | Assembly:
    """Where passage ``rank`` of ``answer`` lies in the corpus: one span of ``article``, or an :class:`Assembly`.

    In order: the passage's own ``spans`` when it logs them (:func:`_declared`); its text found in
    ``article`` exactly, else with whitespace ignored; else its text read as spans of the corpus's
    articles (``articles``, its own first) joined by short separators
    (:func:`~evalgate_lib.text.locate.assemble`), for a retriever that merges chunks or returns
    paragraphs that are not adjacent. A passage placed in none of these ways is an error naming the
    log line, the passage and its ``doc_id``: placed nowhere, it would count as retrieving no
    evidence (a silent miss), and the agreement measures would rebuild its text from an empty span.
    So is a passage that is one span of another article: its ``doc_id`` is wrong.
    """
    articles = articles if articles is not None else {article.id: article}
    passage = answer.passages[rank - 1]
    if passage.spans is not None:
        return _declared(answer, rank, articles)
    text = passage.text
    span = find_evidence(article.body, text)
    if span is not None:
        return span
    others = [(a.id, a.body) for a in articles.values() if a.id != article.id]
    assembly = assemble(text, [(article.id, article.body), *others])
    if assembly is None:
        raise InputError(
            f"{answer.where}: passage {rank}: its 'text' is not in article {article.id!r} of the corpus "
            f"({article.path}), not even with whitespace ignored, nor made of spans of the corpus's articles "
            f"(pieces of at least {MIN_PIECE} characters, joined by at most {MAX_JOIN} other characters): "
            f"{text[:60]!r}; log the passage as the articles have it, give the right 'doc_id', "
            "or score without --corpus"
        )
    if assembly.articles != (article.id,) and len(assembly.articles) == 1 and not "".join(assembly.joins).strip():
        other = assembly.articles[0]
        raise InputError(
            f"{answer.where}: passage {rank}: its 'text' is in article {other!r}, not in its doc_id {article.id!r}: "
            f"give 'doc_id': {other!r}"
        )
    return assembly


def _placed(answer: LoggedAnswer, articles: dict[str, Article]) -> list[Retrieved]:
    """The logged passages as retrieved chunks, placed in their articles' text when the corpus has them.

    A passage's title is read one way whatever the log's shape (so one answer gets one verdict from RAGAS rows, a
    Hugging Face table, ``AnswerLogger`` lines or EvalGate's own): its article's title when the corpus places it,
    else the title it logs (only EvalGate's own lines can), else its ``doc_id``, else none."""
    retrieved = []
    for rank, passage in enumerate(answer.passages, 1):
        article = articles.get(passage.doc_id or "")
        start, end, assembly = -1, -1, None
        if article is not None:
            placed = place_passage(answer, rank, article, articles)
            if isinstance(placed, Assembly):
                assembly = placed
            else:
                start, end = placed
        title = article.title if article is not None else passage.title or passage.doc_id or ""
        chunk = Chunk(passage.doc_id or "", title, rank - 1, start, end, passage.text, assembly)
        # no score logged: read as a full match, so confidence is the groundedness alone
        similarity = passage.score if passage.score is not None else 1.0
        retrieved.append(Retrieved(rank, chunk, similarity))
    return retrieved


def locate_passages(log: AnswerLog, articles: Sequence[Article]) -> tuple[AnswerLog, int]:
    """``log`` with each passage that names no ``doc_id`` given the article whose text holds it (exactly, else with
    whitespace ignored; on several, the first in corpus order), as ``evalgate gold import`` finds a context's
    article: a RAGAS row's contexts then feed the retrieval metrics. Returns the log and how many were placed;
    a passage no article holds keeps no ``doc_id`` (the log then has no retrieval metrics)."""
    placed = 0
    answers = []
    for answer in log.answers:
        passages = []
        for passage in answer.passages:
            if passage.doc_id is None and passage.spans is None:
                host = next((a.id for a in articles if find_exact(a.body, passage.text)), None)
                host = host or next((a.id for a in articles if find_loose(a.body, passage.text)), None)
                if host is not None:
                    passage = replace(passage, doc_id=host)
                    placed += 1
            passages.append(passage)
        answers.append(replace(answer, passages=tuple(passages)))
    return replace(log, answers=tuple(answers)), placed


def score_log(
    name: str,
    log: AnswerLog,
    questions: Sequence[GoldQuestion],
    articles: dict[str, Article],
    evidence: dict[str, list[tuple[int, int]]],
    matching: str,
    scorer: str,
) -> list[ResultRow]:
    """One configuration's rows: every logged answer judged by the run's own judges, in gold order.

    A passage logged without a score counts as similarity 1.0, so confidence is the
    groundedness alone (the review queue still sees every unsupported sentence); the
    manifest records whether the log had scores. Without document ids,
    the retrieval metrics are ``None``: unknown, not zero.
    """
    judge = get_scorer(scorer)
    rows = []
    for question, answer in zip(questions, log.answers, strict=True):
        retrieved = _placed(answer, articles)
        row = score_answer(
            name,
            question,
            retrieved,
            answer.answer,
            answer.input_sha256,
            scorer=judge,
            evidence_spans=evidence.get(question.id),
            matching=matching,
        )
        if not log.has_doc_ids:
            row = replace(row, retrieval_metrics=None, retrieval_hit=None)
        rows.append(row)
    return rows


def score_answer_logs(
    baseline: str | Path,
    candidate: str | Path,
    gold: str | Path | None,
    *,
    names: tuple[str, str] | None = None,
    corpus: str | Path | None = None,
    matching: str = DEFAULT_ANSWER_MATCHING,
    scorer: str = DEFAULT_SENTENCE_SCORER,
    declined_references: str = "no-answer",
) -> ExternalRun:
    """Load and check both logs against the gold set (and the corpus, if given), then judge every answer.

    ``gold`` ``None``: the gold is the one the baseline log's RAGAS / Hugging Face rows carry
    (:func:`~evalgate_lib.inputs.answer_logs.gold_from_logs`); a reference that declines makes its question
    no-answer (:func:`reference_declines`) unless ``declined_references`` is ``"answerable"``. With ``corpus``, a
    passage without a ``doc_id`` is placed in the article that holds its text (:func:`locate_passages`).
    """
    started = time.perf_counter()
    if matching not in ANSWER_MATCHING:
        raise InputError(f"unknown answer matching {matching!r}; choose one of {', '.join(ANSWER_MATCHING)}")
    get_scorer(scorer)  # an unknown scorer name fails before any file is read
    paths = (Path(baseline), Path(candidate))
    names = names or (paths[0].stem, paths[1].stem)
    if names[0] == names[1]:
        raise InputError(f"both configurations would be named {names[0]!r}: pass --names BASELINE,CANDIDATE")
    if declined_references not in DECLINED_REFERENCES:
        raise InputError(f"--declined-references must be one of {', '.join(DECLINED_REFERENCES)}")
    declines = reference_declines if declined_references == "no-answer" else None
    files = (read_answer_log(paths[0]), read_answer_log(paths[1]))
    questions = load_gold(gold) if gold is not None else gold_from_logs(files, declines)
    gold_path = Path(gold) if gold is not None else paths[0]
    ids = [q.id for q in questions]
    texts = {q.id: q.question for q in questions}
    logs = (match_gold(files[0], ids, texts), match_gold(files[1], ids, texts))
    articles: list[Article] | None = None
    skipped: tuple[tuple[str, str], ...] = ()
    evidence: dict[str, list[tuple[int, int]]] = {}
    located: dict[str, int] = {}
    if corpus is not None:
        scan = scan_corpus(corpus)
        articles, skipped = list(scan.articles), scan.skipped
        evidence = checked_evidence(questions, articles, gold_path)
        placed = [locate_passages(log, articles) for log in logs]
        logs = (placed[0][0], placed[1][0])
        located = {name: count for name, (_, count) in zip(names, placed, strict=True)}
        for log in logs:
            check_doc_ids(log, [a.id for a in articles])
    by_id = {a.id: a for a in articles or ()}
    run = ExternalRun(
        names, logs, gold_path, questions, articles, None if corpus is None else Path(corpus), matching, scorer
    )
    run.skipped = skipped
    run.gold_from_log = gold is None
    run.gold_sha256 = files[0].sha256 if gold is None else None
    run.located = located
    if gold is None and files[0].foreign is not None:
        run.declined = declined_references_of(files[0].foreign, declines)
    for name, log in zip(names, logs, strict=True):
        run.rows.extend(score_log(name, log, questions, by_id, evidence, matching, scorer))
    run.stats = {
        "wall_seconds": round(time.perf_counter() - started, 3),
        "answers_scored": len(run.rows),
        # passages placed as spans of several articles or with joining text (text/locate.assemble)
        "passages_assembled": {
            name: sum(1 for r in run.rows if r.config == name for c in r.retrieved if c.assembly is not None)
            for name in names
        },
        # EvalGate called no model: the answers and passages came from the logs
        "model_calls": {"generate_calls": 0, "embed_calls": 0, "hits": 0, "corrupt_entries": 0},
    }
    return run


def external_manifest(run: ExternalRun) -> Manifest:
    """The manifest of a scored pair of logs: same layout as ``evalgate run``'s, with the pipeline marked external."""
    articles = run.articles
    return new_manifest(
        baseline=run.names[0],
        candidate=run.names[1],
        pipeline={"kind": "external", "fairness": DECLARED_FAIRNESS},
        configs={
            name: {"answer_log": dict(describe(log)), "path": str(log.path.resolve()), "sha256": log.sha256}
            for name, log in zip(run.names, run.logs, strict=True)
        },
        fairness={"differs": ["declared by the user"], "shared": {}, "enforced": False},
        corpus=corpus_section(
            None if run.corpus_path is None else str(run.corpus_path.resolve()),
            None if articles is None else corpus_digest(articles),
            None if articles is None else len(articles),
            run.skipped,
        ),
        gold=gold_section(
            run.gold_path,
            str(run.gold_path.resolve()),
            len(run.questions),
            [q.id for q in run.questions],
            sha256=run.gold_sha256,
            from_answer_log=run.gold_from_log,
        ),
        backend={"backend": "external"},
        judging=judging_manifest(run.scorer, run.matching, SCHEMA_VERSION),
        generation=None,
        top_k=None,
    )


def score_and_write(run: ExternalRun, out_dir: str | Path) -> tuple[Summary, Path]:
    """Summarise a scored pair of logs and write the results folder ``evalgate report`` and ``gate`` read.

    The folder is the one ``evalgate run`` writes, digests and all, so it is verified the same way.
    """
    summary = compare(run.rows, *run.names, depths=ranking_depths(run.rows, run.names, None, logged=True))
    return summary, write_folder(run.rows, summary, external_manifest(run), run.stats, out_dir)

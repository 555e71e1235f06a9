"""Turning the question sets teams already have (RAGAS, Hugging Face style) into EvalGate gold questions.

Column roles, each filled by the first of its names the file has (:data:`ROLES`):

* question ← ``question`` / ``user_input`` (RAGAS 0.2);
* accept ← ``ground_truth`` / ``reference`` (one string) / ``ground_truths`` (a list) / ``answer``.
  In RAGAS evaluation files ``answer`` is the *generated* answer under test, so it is
  used only when no reference column exists (question/answer pairs);
* evidence ← ``reference_contexts`` / ``contexts`` / ``retrieved_contexts``: with a corpus,
  each context is looked up (exactly, else ignoring whitespace) and the article holding
  most of them becomes the gold article, the article's own text the evidence;
* id ← ``id`` / ``question_id``, else ``q001``, ``q002``… by row position (stable on rerun);
* ``type`` (``answerable``/``no_answer``) or ``answerable`` (true/false), ``article``, ``note``.

Nothing is dropped silently: every other column is listed as not mapped, every row
that cannot become a valid gold question is listed with the reason, and every context
left out of the evidence is listed. An empty reference makes a question a no-answer
question only when a type column says so; otherwise the row is reported, because
"no reference" in another tool usually means "not written yet", not "the KB has no answer".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.foreign_rows import (
    FOREIGN_KEYS,
    QA_PAIR_ANSWER,
    Declines,
    assign,
    cell_answerable,
    cell_strings,
    cell_text,
    declining_reference,
    long_accepts,
    row_ids,
)
from evalgate_lib.inputs.gold import ANSWERABLE, NO_ANSWER, GoldQuestion
from evalgate_lib.inputs.tables import Row, Table
from evalgate_lib.text.locate import find_exact, find_loose
from evalgate_lib.text.matching import canonical

#: Role → accepted column names, in priority order: the first one present fills the role. The names are the
#: ones :data:`~evalgate_lib.inputs.foreign_rows.FOREIGN_KEYS` gives each meaning (``evalgate score`` reads
#: the same rows through it); ``answer`` is a reference only in a table without a reference column.
ROLES: dict[str, tuple[str, ...]] = {
    "question": FOREIGN_KEYS["question"],
    "accept": (*FOREIGN_KEYS["reference"], QA_PAIR_ANSWER),
    "evidence": (*FOREIGN_KEYS["reference_contexts"], *FOREIGN_KEYS["retrieved_contexts"]),
    "id": FOREIGN_KEYS["id"],
    "type": FOREIGN_KEYS["type"],
    "article": FOREIGN_KEYS["article"],
    "note": FOREIGN_KEYS["note"],
}


#: How a note about a context found only with whitespace ignored starts: many rows have one, so the report counts
#: them in one line instead of listing each above the notes that need a decision.
WHITESPACE_NOTE = "matches only if whitespace is ignored"


@dataclass(frozen=True)
class RowNote:
    """Something about one input row: where it is, the question id (if it got one), and what happened."""

    where: str
    id: str | None
    message: str


@dataclass(frozen=True)
class ImportResult:
    """The gold questions made from a table, and everything that could not be carried over."""

    source: str
    format: str
    rows: int
    columns: dict[str, str]
    unmapped: dict[str, str]
    questions: tuple[GoldQuestion, ...]
    skipped: tuple[RowNote, ...]
    notes: tuple[RowNote, ...]
    long_accepts: tuple[str, ...] = field(default=())
    corpus_checked: bool = True
    #: Ids of the questions made no-answer because their reference declines ("The documentation does not say.").
    declined: tuple[str, ...] = field(default=())


def map_columns(columns: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """``(role → column used, column not used → why)`` for a table's columns; a file without questions is refused."""
    used, passed_over = assign(columns, ROLES)
    unmapped: dict[str, str] = {}
    for other, why in passed_over.items():
        if other == QA_PAIR_ANSWER:
            why = f"in RAGAS files the generated answer under test, not a reference; {why}"
        unmapped[other] = why
    for column in columns:
        if column not in unmapped and column not in used.values():
            unmapped[column] = "no EvalGate gold field"
    if "question" not in used:
        raise InputError(f"no question column: expected one of {list(ROLES['question'])}, found {list(columns)}")
    return used, unmapped


def _hosts(context: str, articles: Sequence[Article]) -> tuple[dict[str, str], bool]:
    """``(article id → the article's own text of context, whether whitespace had to be ignored)``.

    Exact matches first; only when there is none anywhere, matches ignoring whitespace.
    """
    for find in (find_exact, find_loose):
        spans = {a.id: find(a.body, context) for a in articles}
        found = {aid: body_span for aid, body_span in spans.items() if body_span is not None}
        if found:
            bodies = {a.id: a.body for a in articles}
            return {aid: bodies[aid][start:end] for aid, (start, end) in found.items()}, find is find_loose
    return {}, False


def locate_contexts(
    contexts: Sequence[str], articles: Sequence[Article], article: str | None
) -> tuple[str | None, list[str], list[str]]:
    """``(gold article, evidence, notes)``: where the contexts are in the corpus.

    The gold article is ``article`` when given, else the one holding most contexts
    (on a tie, the one holding the highest-ranked context: contexts are in rank order; noted).
    Evidence is the gold article's own text of each context found there; every context left out
    gets a note.
    """
    located = [_hosts(text, articles) for text in contexts]
    hosts = [found for found, _ in located]
    notes: list[str] = []
    if article is None:
        counts = {a.id: sum(a.id in h for h in hosts) for a in articles}
        best = max(counts.values(), default=0)
        if best == 0:
            return None, [], notes
        tied = [a for a, n in counts.items() if n == best]
        ranked = [aid for found in hosts for aid in found if aid in tied]  # the tied articles by their first context
        article = ranked[0] if ranked else tied[0]
        if len(tied) > 1:
            notes.append(
                f"contexts are equally in {', '.join(tied)}; chose {article}, which holds the highest-ranked of them "
                "(set an 'article' column)"
            )
    evidence: list[str] = []
    for number, found in enumerate(hosts, start=1):
        if article in found:
            evidence.append(found[article])
            if located[number - 1][1]:
                notes.append(f"context {number} {WHITESPACE_NOTE}: the article's text is used")
        elif found:
            notes.append(f"context {number} is in {', '.join(found)}, not the gold article {article}: left out")
        else:
            notes.append(f"context {number} not found in the corpus (even ignoring whitespace): left out")
    return article, list(dict.fromkeys(evidence)), notes


@dataclass
class _Mapper:
    """State shared by the rows of one table: the column map, the corpus, and what has been reported."""

    table: Table
    columns: dict[str, str]
    articles: Sequence[Article] | None
    declines: Declines | None = None
    skipped: list[RowNote] = field(default_factory=list)
    notes: list[RowNote] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)

    def question(self, row: Row, qid: str) -> GoldQuestion | None:
        """The gold question for ``row``, or ``None`` after recording why it was skipped."""
        col = self.columns.get
        text = cell_text(row, col("question"))
        if text is None:
            return self._skip(row, qid, f"no question text in column {col('question')!r}")
        accept = cell_strings(row, col("accept"), self.table.format == "CSV")
        contexts = cell_strings(row, col("evidence"), self.table.format == "CSV")
        note = cell_text(row, col("note"))
        answerable = cell_answerable(row, col("type"))
        said = declining_reference(accept, text, self.declines) if answerable is None else None
        if said is not None:
            self.declined.append(qid)
            self._note(row, qid, f"no-answer: its reference declines ({said[:60]!r})")
            return GoldQuestion(qid, text, NO_ANSWER, None, (), None, note)
        if answerable is False:
            if accept:
                raise InputError(
                    f"{row.where}: column {col('type')!r} says the question has no answer, "
                    f"but column {col('accept')!r} gives {accept[0]!r}"
                )
            if contexts:
                self._note(row, qid, f"{len(contexts)} context(s) left out: a no-answer question has no evidence")
            return GoldQuestion(qid, text, NO_ANSWER, None, (), None, note)
        if not accept:
            where = f"column {col('accept')!r} is empty" if col("accept") else "no reference-answer column"
            return self._skip(
                row,
                qid,
                f"no reference answer ({where}); if the corpus holds no answer, say so in a 'type' column "
                "(no_answer) or an 'answerable' column (false)",
            )
        article, evidence = self._article_and_evidence(row, qid, contexts)
        if article is None:
            return None
        return GoldQuestion(qid, text, ANSWERABLE, article, tuple(accept), tuple(evidence) or None, note)

    def _article_and_evidence(self, row: Row, qid: str, contexts: list[str]) -> tuple[str | None, list[str]]:
        named = cell_text(row, self.columns.get("article"))
        named = None if named is None else canonical(named)  # ids compare in one Unicode spelling
        if self.articles is None:
            if named is None:
                why = "no gold article: give --corpus to find it from the contexts, or an 'article' column"
                self._skip(row, qid, why)
            return named, contexts
        if named is not None and named not in {a.id for a in self.articles}:
            self._skip(row, qid, f"article {named!r} is not in the corpus")
            return None, []
        article, evidence, notes = locate_contexts(contexts, self.articles, named)
        for message in notes:
            self._note(row, qid, message)
        if article is None:
            what = f"none of its {len(contexts)} context(s) is in the corpus" if contexts else "it has no contexts"
            self._skip(row, qid, f"no gold article: {what}; add an 'article' column")
        return article, evidence

    def _skip(self, row: Row, qid: str, message: str) -> None:
        self.skipped.append(RowNote(row.where, qid, message))

    def _note(self, row: Row, qid: str, message: str) -> None:
        self.notes.append(RowNote(row.where, qid, message))


def import_table(table: Table, articles: Sequence[Article] | None, declines: Declines | None = None) -> ImportResult:
    """Map every row of ``table`` onto the gold schema; with ``articles``, locate contexts in that corpus.

    ``declines`` (the judge's decline reading, passed in by the command): a row whose reference declines and
    whose type column says nothing is a no-answer question, listed in ``declined``.

    Pure (reads no file). Raises :class:`InputError` for malformed input (a cell of the
    wrong type, an unreadable list, duplicate ids, a type column contradicting a reference).
    """
    columns, unmapped = map_columns(table.columns)
    mapper = _Mapper(table, columns, articles, declines)
    questions = []
    for row, qid in zip(table.rows, row_ids(table, columns.get("id")), strict=True):
        question = mapper.question(row, qid)
        if question is not None:
            questions.append(question)
    return ImportResult(
        table.path,
        table.format,
        len(table.rows),
        columns,
        unmapped,
        tuple(questions),
        tuple(mapper.skipped),
        tuple(mapper.notes),
        long_accepts(questions),
        corpus_checked=articles is not None,
        declined=tuple(mapper.declined),
    )


def gold_record(question: GoldQuestion) -> dict[str, object]:
    """The gold-file JSON object of ``question``, keys in the order of gold/README.md (``note`` only when set)."""
    record: dict[str, object] = {
        "id": question.id,
        "question": question.question,
        "type": question.type,
        "article": question.article,
        "accept": list(question.accept),
        "evidence": list(question.evidence) if question.evidence is not None else None,
    }
    if question.note is not None:
        record["note"] = question.note
    return record

"""Answer logs in the ecosystem's shape: a RAGAS / Hugging Face evaluation dataset, read by ``evalgate score`` as it is.

A team that evaluates with RAGAS already has one row per question holding the question, the
contexts its retriever returned, its pipeline's response and the reference answer. Such a file
(JSON Lines, CSV, or a ``datasets`` folder) is read without reshaping:

* every row becomes an answer-log line in EvalGate's own format (:func:`read_rows`), which the
  one parser of answer-log lines then checks, so both shapes obey the same rules;
* the keys are looked up in :data:`~evalgate_lib.inputs.foreign_rows.FOREIGN_KEYS`, the mapping
  ``evalgate gold import`` reads too: question ← ``question``/``user_input``, answer ←
  ``response``/``answer``, passages ← ``contexts``/``retrieved_contexts`` (plain strings: such rows
  carry no document ids and no scores), id ← ``id``/``question_id``, else ``q001``, ``q002``… by
  row order (the ids ``gold import`` gives the same file);
* every other column is kept under the line's ``meta`` and named, never refused: these files
  carry whatever their generator adds (``synthesizer_name``, ``evolution_type``, ``metadata``).
  EvalGate's own format keeps its strict keys;
* with no gold file, the gold comes from the same rows (:func:`gold_questions`): the question,
  and the reference (``ground_truth``/``reference``/``ground_truths``) as the accept list. A row
  without a reference is refused, naming its place, unless a ``type`` (``no_answer``) or
  ``answerable`` (``false``) column marks it as a question the documents cannot answer: an
  empty reference in another tool usually means "not written yet", and reading it as "no
  answer exists" would make every answer to it a hallucination (``evalgate gold import`` reads
  it the same way).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.foreign_rows import (
    FOREIGN_KEYS,
    SHAPE_KEYS,
    Declines,
    assign,
    cell_answerable,
    cell_list,
    cell_strings,
    cell_text,
    declining_reference,
    row_ids,
)
from evalgate_lib.inputs.gold import ANSWERABLE, NO_ANSWER, GoldQuestion
from evalgate_lib.inputs.tables import Table

#: What ``evalgate score`` reads from a row, each under the names FOREIGN_KEYS gives the meaning.
LOG_ROLES: dict[str, tuple[str, ...]] = {
    "id": FOREIGN_KEYS["id"],
    "question": FOREIGN_KEYS["question"],
    "answer": FOREIGN_KEYS["response"],
    "passages": FOREIGN_KEYS["retrieved_contexts"],
}
#: What the gold takes from the rows when no gold file is given.
GOLD_ROLES: dict[str, tuple[str, ...]] = {
    "accept": FOREIGN_KEYS["reference"],
    "type": FOREIGN_KEYS["type"],
    "note": FOREIGN_KEYS["note"],
}
#: The roles a row must fill, and what each is for (said when a table lacks one).
_REQUIRED = {
    "question": "the question asked",
    "answer": "the pipeline's response, the answer EvalGate judges",
    "passages": "the contexts the pipeline retrieved, which EvalGate judges the answer's support against",
}
#: The shape's name in messages and in the manifest.
SHAPE = "RAGAS / Hugging Face rows"


def is_own_line(keys: Sequence[str] | Mapping[str, Any]) -> bool:
    """True for a line in EvalGate's own answer-log format: it has ``passages``, or no key only the ecosystem uses."""
    return "passages" in keys or not any(key in SHAPE_KEYS for key in keys)


@dataclass(frozen=True)
class ForeignLog:
    """A table of RAGAS / Hugging Face rows read as an answer log: how its columns mapped, and each row as a line."""

    table: Table
    #: Role → the column that fills it (the roles of :data:`LOG_ROLES` and :data:`GOLD_ROLES` the table has).
    columns: dict[str, str]
    #: Columns kept under each line's ``meta``, in the table's order.
    meta: tuple[str, ...]
    #: ``(where, line)`` in table order: each row as an answer-log line of EvalGate's own format.
    lines: tuple[tuple[str, dict[str, Any]], ...]

    @property
    def ids_from_row_order(self) -> bool:
        """True when the table has no id column, so each id is its row's position (``q001``…)."""
        return "id" not in self.columns

    def mapping(self, gold: Literal["source", "checked", "unused"]) -> str:
        """How the columns were read, in one line: each role's column, the id rule, what went under ``meta``.

        ``gold`` says what the gold columns (reference, type, note) were for: ``"source"``, the gold
        came from these rows; ``"checked"``, from another log's rows, these references were checked
        against it; ``"unused"``, a gold file was given.
        """
        shown = [f"{role} ← {column!r}" for role, column in self.columns.items() if role in LOG_ROLES]
        if self.ids_from_row_order:  # the source's ids are its rows' positions; another log's rows match them by text
            shown.append(
                "id ← the row order (q001, q002, …)" if gold == "source" else "id ← the gold question of the same text"
            )
        gold_columns = {role: column for role, column in self.columns.items() if role in GOLD_ROLES}
        if gold == "source":
            shown += [f"gold {role} ← {column!r}" for role, column in gold_columns.items()]
        elif gold == "checked" and "accept" in gold_columns:
            shown.append(f"{gold_columns['accept']!r} checked against the gold")
        kept = f"; kept under meta: {', '.join(map(repr, self.meta))}" if self.meta else ""
        unused = ""
        if gold == "unused" and gold_columns:
            unused = f"; not used (a gold file is given): {', '.join(map(repr, gold_columns.values()))}"
        return f"{SHAPE} ({self.table.format}, {len(self.table.rows)} rows): {', '.join(shown)}{kept}{unused}"


def _missing(table: Table, role: str, roles: Mapping[str, Sequence[str]], why: str) -> InputError:
    """The error for a table without a column of ``role``, naming a column that looks like a misspelt name of it."""
    names = roles[role]
    known = {name for named in roles.values() for name in named}
    others = [column for column in table.columns if column not in known]
    near = [(found, name) for name in names for found in difflib.get_close_matches(name, others, n=1, cutoff=0.75)]
    hint = f"; did you mean {near[0][1]!r} for {near[0][0]!r}?" if near else ""
    return InputError(
        f"{table.path}: no {role} column in {SHAPE}: expected one of {', '.join(map(repr, names))} ({why}); "
        f"found {', '.join(map(repr, table.columns))}{hint}"
    )


def read_rows(table: Table) -> ForeignLog:
    """Every row of ``table`` as an answer-log line; a missing column or a bad cell is one error naming its place."""
    roles = {**LOG_ROLES, **GOLD_ROLES}
    columns, _ = assign(table.columns, roles)
    for role, why in _REQUIRED.items():
        if role not in columns:
            raise _missing(table, role, roles, why)
    meta = tuple(c for c in table.columns if c not in columns.values())
    csv_text = table.format == "CSV"
    lines = []
    for row, qid in zip(table.rows, row_ids(table, columns.get("id")), strict=True):
        question, answer, passages = columns["question"], columns["answer"], columns["passages"]
        text = cell_text(row, question)
        if text is None:
            raise InputError(f"{row.where}: column {question!r}: no question text")
        value = row.values.get(answer)
        if not isinstance(value, str) or not value.strip():
            got = "is empty" if value is None or isinstance(value, str) else f"must be a string, got {value!r:.40}"
            raise InputError(
                f"{row.where}: column {answer!r} {got} (the answer to question {qid!r}); log what the pipeline "
                'returned (a refusal is a sentence such as "I don\'t know")'
            )
        contexts = cell_list(row, passages, csv_text)
        for number, context in enumerate(contexts, start=1):
            if not context.strip():
                raise InputError(f"{row.where}: column {passages!r}: context {number} is empty")
        line: dict[str, Any] = {"question_id": qid, "question": text, "answer": value, "passages": contexts}
        kept = {c: row.values[c] for c in meta if c in row.values}
        if kept:
            line["meta"] = kept
        lines.append((row.where, line))
    return ForeignLog(table, columns, meta, tuple(lines))


def declined_references(log: ForeignLog, declines: Declines | None) -> dict[str, str]:
    """Question id → its reference, for each row whose reference declines (:func:`declining_reference`) and whose
    type column does not say it is answerable: a question the documents cannot answer, as its reference says."""
    column, type_column = log.columns.get("accept"), log.columns.get("type")
    if column is None or declines is None:
        return {}
    found: dict[str, str] = {}
    for row, (_, line) in zip(log.table.rows, log.lines, strict=True):
        if cell_answerable(row, type_column) is True:
            continue
        said = declining_reference(cell_strings(row, column, log.table.format == "CSV"), line["question"], declines)
        if said is not None:
            found[line["question_id"]] = said
    return found


def gold_questions(log: ForeignLog, declines: Declines | None = None) -> list[GoldQuestion]:
    """The gold set the rows carry: each row's question, its reference as the accept list (no gold file given).

    A row whose reference declines (``declines``, the judge's decline reading; :func:`declined_references`) is a
    no-answer question. Without a gold article (the rows name none) the questions have no retrieval metrics
    unless the contexts are placed in a corpus.
    """
    if "accept" not in log.columns and "type" not in log.columns:
        raise InputError(
            f"{log.table.path}: no reference column ({', '.join(map(repr, GOLD_ROLES['accept']))}), so the rows hold "
            "no gold: pass --gold FILE (evalgate gold import writes one from a question set)"
        )
    csv_text = log.table.format == "CSV"
    accept_column, type_column = log.columns.get("accept"), log.columns.get("type")
    declined = declined_references(log, declines)
    questions = []
    for row, (where, line) in zip(log.table.rows, log.lines, strict=True):
        qid, text = line["question_id"], line["question"]
        accept = cell_strings(row, accept_column, csv_text)
        note = cell_text(row, log.columns.get("note"))
        if qid in declined:
            questions.append(GoldQuestion(qid, text, NO_ANSWER, None, (), None, note))
            continue
        if cell_answerable(row, type_column) is False:
            if accept:
                raise InputError(
                    f"{where}: column {type_column!r} says question {qid!r} has no answer, "
                    f"but column {accept_column!r} gives {accept[0]!r}"
                )
            questions.append(GoldQuestion(qid, text, NO_ANSWER, None, (), None, note))
            continue
        if not accept:
            empty = f"column {accept_column!r} is empty" if accept_column else "no reference column"
            raise InputError(
                f"{where}: no reference answer for question {qid!r} ({empty}); with no --gold the gold comes from "
                "these rows: give the reference, mark a question the documents cannot answer in a 'type' column "
                "(no_answer) or an 'answerable' column (false), or pass --gold FILE"
            )
        questions.append(GoldQuestion(qid, text, ANSWERABLE, None, tuple(accept), None, note))
    return questions


def check_same_references(
    log: ForeignLog, gold: Sequence[GoldQuestion], source: str, declines: Declines | None = None
) -> None:
    """Refuse a row whose reference differs from the gold's: the logs of one comparison answer one test set.

    ``gold`` came from the baseline's rows (``source``). A row without a reference is not compared,
    nor one that is not the gold question of its id (another id, another text: refused later, when
    the answers meet the gold, with the question's text in the message).
    """
    column = log.columns.get("accept")
    if column is None:
        return
    by_id = {q.id: q for q in gold}
    for row, (where, line) in zip(log.table.rows, log.lines, strict=True):
        accept = tuple(cell_strings(row, column, log.table.format == "CSV"))
        question = by_id.get(line["question_id"])
        if question is None or question.question.split() != line["question"].split():
            continue
        if not question.answerable and declining_reference(accept, question.question, declines) is not None:
            continue  # both say the documents do not answer it
        if accept and accept != question.accept:
            raise InputError(
                f"{where}: column {column!r}: question {question.id!r} has {_references(accept)} here, but "
                f"{_references(question.accept)} in the gold taken from {source}: the logs compared must hold the "
                "same test set (the same references, in the same order)"
            )


def _references(accept: Sequence[str]) -> str:
    """A row's references in words: every one of them (two lists differ as wholes), each cut at 60 characters."""
    if not accept:
        return "no reference (no answer)"
    shown = ", ".join(repr(a if len(a) <= 60 else a[:60] + "…") for a in accept[:5])
    more = f" and {len(accept) - 5} more" if len(accept) > 5 else ""
    return f"the reference {shown}" if len(accept) == 1 else f"{len(accept)} references ({shown}{more})"

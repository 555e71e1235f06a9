"""Rows in the ecosystem's shapes (RAGAS, Hugging Face): the one mapping of their keys onto EvalGate's meanings.

Two commands read such rows: ``evalgate gold import`` turns a question set into gold questions,
and ``evalgate score`` reads an evaluation dataset as an answer log (and, when no gold file is
given, its questions and references as the gold). Both look the keys up here
(:data:`FOREIGN_KEYS`), so a name RAGAS adds or renames is learnt once; each command then takes
the meanings it needs (:func:`assign`), and reads cells through the same functions.

The names, by RAGAS version:

==================  =======================================  =======================================
meaning             RAGAS 0.2+ (``SingleTurnSample``)        RAGAS 0.1 / Hugging Face sets
==================  =======================================  =======================================
question            ``user_input``                           ``question``
reference           ``reference``                            ``ground_truth``, ``ground_truths`` (list)
response            ``response``                             ``answer``
retrieved contexts  ``retrieved_contexts``                   ``contexts``
reference contexts  ``reference_contexts``
==================  =======================================  =======================================

plus ``id``/``question_id``, and the gold-set columns ``type``/``answerable``, ``article`` and
``note``. Where a table has two names of one meaning, the first listed is used and the other
is named as not used.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.gold import ANSWERABLE, NO_ANSWER, GoldQuestion
from evalgate_lib.inputs.tables import Row, Table, parse_list_cell
from evalgate_lib.text.tokens import tokenize

#: Each meaning → the names rows give it, in priority order: the first one a table has is used.
FOREIGN_KEYS: dict[str, tuple[str, ...]] = {
    "question": ("question", "user_input"),
    "reference": ("ground_truth", "reference", "ground_truths"),
    "response": ("response", "answer"),
    "retrieved_contexts": ("contexts", "retrieved_contexts"),
    "reference_contexts": ("reference_contexts",),
    "id": ("id", "question_id"),
    "type": ("type", "answerable"),
    "article": ("article",),
    "note": ("note",),
}
#: Names whose value is a list (in a CSV: a JSON or Python list literal, or one plain string).
LIST_KEYS = ("ground_truths", "reference_contexts", "contexts", "retrieved_contexts")
#: RAGAS 0.1's name of the response. In a table of plain question/answer pairs (no reference column) the
#: ``answer`` is the reference itself, which is how ``evalgate gold import`` reads it there.
QA_PAIR_ANSWER = "answer"
#: Names only the ecosystem's rows use (EvalGate's own answer-log lines never do): a row with one of them
#: and no ``passages`` is a row of that shape.
SHAPE_KEYS: tuple[str, ...] = tuple(
    name
    for meaning in ("question", "reference", "response", "retrieved_contexts", "reference_contexts")
    for name in FOREIGN_KEYS[meaning]
    if name not in ("question", "answer")
)
#: Whether a reference answer declines, given the reference and its question: the judge's own decline reading,
#: passed in by the layer that may call the judge (``run.external.reference_declines``).
Declines = Callable[[str, str], bool]
#: A reference (accept string) longer than this many tokens must appear verbatim in an answer to count: said so.
LONG_ACCEPT_TOKENS = 8
_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0")


def assign(columns: Sequence[str], roles: Mapping[str, Sequence[str]]) -> tuple[dict[str, str], dict[str, str]]:
    """``(role → the column that fills it, column passed over → why)``: each role takes the first of its names present.

    Columns no role names are not in either mapping: the caller says what happens to them.
    """
    used: dict[str, str] = {}
    passed_over: dict[str, str] = {}
    for role, names in roles.items():
        present = [name for name in names if name in columns and name not in used.values()]
        if present:
            used[role] = present[0]
            for other in present[1:]:
                passed_over[other] = f"{present[0]!r} is used for {role}"
    return used, passed_over


def cell_text(row: Row, column: str | None) -> str | None:
    """A single-string cell, stripped; ``None`` when absent or empty. Integers are accepted (numeric ids)."""
    if column is None:
        return None
    value = row.values.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{row.where}: column {column!r} must be a string, got {type(value).__name__}")
    return str(value).strip()


def cell_list(row: Row, column: str | None, csv_text: bool) -> list[str]:
    """A list cell (or one string) as it is, a list of strings: a CSV list literal parsed, absent or empty → ``[]``."""
    if column is None:
        return []
    value = row.values.get(column)
    where = f"{row.where}: column {column!r}"
    if isinstance(value, str) and csv_text and column in LIST_KEYS:
        text = value.strip()
        value = parse_list_cell(text, where) if text.startswith("[") else (value if text else None)
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, str) for item in items):
        raise InputError(f"{where}: must be a string or a list of strings, got {value!r:.80}")
    return items


def cell_strings(row: Row, column: str | None, csv_text: bool) -> list[str]:
    """:func:`cell_list` with every item stripped and empty items left out (accept strings, evidence)."""
    return [item.strip() for item in cell_list(row, column, csv_text) if item.strip()]


def cell_answerable(row: Row, column: str | None) -> bool | None:
    """``True``/``False`` when a type column says so, ``None`` when there is none or the cell is empty."""
    if column is None:
        return None
    value = row.values.get(column)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if column == "type" and text in (ANSWERABLE, NO_ANSWER):
        return text == ANSWERABLE
    if column == "answerable" and text in _TRUE + _FALSE:
        return text in _TRUE
    allowed = [ANSWERABLE, NO_ANSWER] if column == "type" else ["true", "false"]
    raise InputError(f"{row.where}: column {column!r} must be one of {allowed}, got {value!r}")


def row_ids(table: Table, column: str | None) -> list[str]:
    """Each row's id: its own, else ``q`` + its 1-based row position (zero-padded); duplicates are refused.

    Ids from the row position are stable as long as the rows keep their order, so ``evalgate gold
    import`` and ``evalgate score`` give one file's rows the same ids.
    """
    width = max(3, len(str(len(table.rows))))
    ids = [cell_text(row, column) or f"q{n:0{width}d}" for n, row in enumerate(table.rows, start=1)]
    seen: dict[str, str] = {}
    for qid, row in zip(ids, table.rows, strict=True):
        if qid in seen:
            raise InputError(f"{row.where}: question id {qid!r} is already used at {seen[qid]}")
        seen[qid] = row.where
    return ids


def long_accepts(questions: Sequence[GoldQuestion]) -> tuple[str, ...]:
    """Ids of the questions with an accept string longer than :data:`LONG_ACCEPT_TOKENS` tokens.

    RAGAS references are often whole sentences; the judge counts an answer correct when it states
    an accepted string (a short one may be said in other words), so a long one almost never
    matches. Both readers of such rows say which questions have one, rather than let every
    answer to them read as wrong without a word.
    """
    return tuple(q.id for q in questions if any(len(tokenize(a)) > LONG_ACCEPT_TOKENS for a in q.accept))


def declining_reference(accept: Sequence[str], question: str, declines: Declines | None) -> str | None:
    """The reference when a row's references all decline (``"The documentation does not answer this."``), else
    ``None``: such a row is a question the documents cannot answer, as the reference itself says."""
    if declines is None or not accept or not all(declines(reference, question) for reference in accept):
        return None
    return accept[0]

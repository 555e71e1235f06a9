"""Answer logs: the answers and passages of a pipeline EvalGate did not run (``evalgate score``).

A team with its own RAG service (LangChain, LlamaIndex, anything) writes one JSON Lines
file per configuration, one line per gold question::

    {"question_id": "q001", "answer": "...", "passages": [{"text": "...", "doc_id": "refunds", "score": 0.82}]}

``passages`` are the retrieved passages in rank order, exactly as the pipeline put them in
its prompt: each an object with ``text`` and, optionally, ``doc_id`` (the corpus article it
came from, which the retrieval metrics need), ``title`` and ``score`` (a cosine similarity in
[-1, 1], the production signal behind the confidence and the review queue), or a plain
string when only the text is known. A passage may also log its ``spans``: where its text lies in
the corpus (``[{"start": 120, "end": 980}]``, character offsets of the article body, several for a
passage the pipeline merged), as ``evalgate retrieve`` writes them. A line may log its
``question`` (checked against the gold question's text). ``meta`` may hold anything the pipeline
wants to keep (latency, model name); EvalGate does not read it. :func:`answer_log_line` writes a
line in this format (the skeleton ``evalgate retrieve`` writes, answers left empty).

Validation is strict and names ``file:line`` because a silently dropped line would make
the before/after number quietly wrong: malformed JSON, unknown keys, an empty answer, a
question id that is not in the gold set, the same id twice, and gold questions the log
does not answer are all errors.

A log may also be a RAGAS / Hugging Face evaluation dataset as it is (JSON Lines whose first
line has the ecosystem's keys, a CSV file, or a ``datasets`` folder): :mod:`~evalgate_lib.inputs.foreign_logs`
turns each of its rows into a line of this format, which :func:`parse_line` then checks like any
other, and can give the gold those rows carry (:func:`gold_from_logs`). :func:`read_answer_log`
reads either shape; :func:`match_gold` then checks the answers against a gold set.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Collection, Mapping, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.config import check_keys
from evalgate_lib.inputs.foreign_logs import (
    SHAPE,
    ForeignLog,
    check_same_references,
    gold_questions,
    is_own_line,
    read_rows,
)
from evalgate_lib.inputs.foreign_rows import Declines
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.inputs.jsonl import read_jsonl
from evalgate_lib.inputs.structured import MAX_ANSWER_CHARS
from evalgate_lib.inputs.tables import CSV_SUFFIXES, read_table, source_sha256, table_of_records
from evalgate_lib.text.matching import canonical

LINE_KEYS = ("question_id", "question", "answer", "passages", "meta")
PASSAGE_KEYS = ("text", "doc_id", "title", "score", "spans")
SPAN_KEYS = ("doc_id", "start", "end")


@dataclass(frozen=True)
class LoggedSpan:
    """Where (part of) a passage's text lies in the corpus: characters ``[start, end)`` of article ``doc_id``.

    ``doc_id`` ``None``: the passage's own ``doc_id``.
    """

    start: int
    end: int
    doc_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end} | ({} if self.doc_id is None else {"doc_id": self.doc_id})


@dataclass(frozen=True)
class LoggedPassage:
    """One passage the external pipeline retrieved, in rank order.

    ``spans``, when logged (``evalgate retrieve`` writes them), say where the passage's text lies in
    the corpus, in order: one span for a chunk, several for a passage a pipeline merged.
    """

    text: str
    doc_id: str | None = None
    title: str | None = None
    score: float | None = None
    spans: tuple[LoggedSpan, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The passage as an answer-log line holds it (keys left out when unset)."""
        data: dict[str, Any] = {"text": self.text}
        for key in ("doc_id", "title", "score"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.spans is not None:
            data["spans"] = [span.to_json() for span in self.spans]
        return data


@dataclass(frozen=True)
class LoggedAnswer:
    """One line of an answer log: the answer to one gold question and what it was built from."""

    question_id: str
    answer: str
    passages: tuple[LoggedPassage, ...]
    where: str
    #: The question's text when the line logs it (checked against the gold set's).
    question: str | None = None
    #: What the line logs under ``meta`` (kept, never judged); for a RAGAS / Hugging Face row, its other columns.
    meta: Any = field(default=None, hash=False)

    @property
    def input_sha256(self) -> str:
        """SHA-256 of what the answer was built from (question id and passages, canonical JSON).

        Stands where EvalGate's own rows hold the prompt's hash: the external prompt is
        unknown, but two logs that retrieved the same passages for a question share it.
        """
        payload = {
            "question_id": self.question_id,
            "passages": [[p.doc_id, p.title, p.text, p.score] for p in self.passages],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class LogFile:
    """An answer log as read, before it meets a gold set: its answers in file order, and its shape."""

    path: Path
    #: SHA-256 of the file (of a ``datasets`` folder's files: :func:`~evalgate_lib.inputs.tables.source_sha256`).
    sha256: str
    answers: tuple[LoggedAnswer, ...]
    #: How a RAGAS / Hugging Face table was read; ``None`` for EvalGate's own format.
    foreign: ForeignLog | None = None


@dataclass(frozen=True)
class AnswerLog:
    """A whole answer log, answers in gold order."""

    path: Path
    sha256: str
    answers: tuple[LoggedAnswer, ...]
    #: How a RAGAS / Hugging Face table was read; ``None`` for EvalGate's own format.
    foreign: ForeignLog | None = None

    @property
    def has_doc_ids(self) -> bool:
        """True when every passage names its document: only then are retrieval metrics computed."""
        return all(p.doc_id is not None for a in self.answers for p in a.passages)


def parse_passage(value: Any, where: str) -> LoggedPassage:
    """One passage: a string, or an object with ``text`` and optional ``doc_id``, ``title``, ``score``."""
    if isinstance(value, str):
        value = {"text": value}
    if not isinstance(value, dict):
        raise InputError(f"{where}: a passage must be a string or an object with 'text', got {type(value).__name__}")
    check_keys(value, PASSAGE_KEYS, where, "a passage")
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where}: a passage needs a non-empty 'text' string")
    for key in ("doc_id", "title"):
        if key in value and (not isinstance(value[key], str) or not value[key].strip()):
            raise InputError(f"{where}: a passage's {key!r} must be a non-empty string, got {value[key]!r}")
    spans = None if "spans" not in value else parse_spans(value["spans"], value.get("doc_id"), where)
    score = value.get("score")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise InputError(f"{where}: a passage's 'score' must be a number, got {score!r}")
        if not -1.0 <= score <= 1.0:
            raise InputError(
                f"{where}: a passage's 'score' must be a cosine similarity in [-1, 1], got {score!r} "
                "(it enters confidence = min(top similarity, groundedness)); put a score on another scale in 'meta'"
            )
        score = float(score)
    doc_id = None if value.get("doc_id") is None else canonical(value["doc_id"])  # one spelling of an id
    return LoggedPassage(text, doc_id, value.get("title"), score, spans)


def parse_spans(value: Any, doc_id: str | None, where: str) -> tuple[LoggedSpan, ...]:
    """A passage's ``spans``: a non-empty list of ``{"start", "end"}`` (and optional ``doc_id``) objects.

    Offsets are characters of the article body, ``0 <= start < end``; a span without ``doc_id`` is
    of the passage's own article, so the passage then needs one.
    """
    if not isinstance(value, list) or not value:
        raise InputError(f"{where}: a passage's 'spans' must be a non-empty list of {{'start', 'end'}} objects")
    spans = []
    for number, item in enumerate(value, 1):
        at = f"{where}: span {number}"
        if not isinstance(item, dict):
            raise InputError(f"{at}: must be an object with 'start' and 'end', got {type(item).__name__}")
        check_keys(item, SPAN_KEYS, at, "a span")
        start, end = item.get("start"), item.get("end")
        if any(isinstance(x, bool) or not isinstance(x, int) for x in (start, end)) or not 0 <= start < end:
            raise InputError(
                f"{at}: 'start' and 'end' must be character offsets with 0 <= start < end, got {start!r}, {end!r}"
            )
        span_doc = item.get("doc_id")
        if span_doc is not None and (not isinstance(span_doc, str) or not span_doc.strip()):
            raise InputError(f"{at}: 'doc_id' must be a non-empty string, got {span_doc!r}")
        if span_doc is None and doc_id is None:
            raise InputError(f"{at}: no 'doc_id' on the span or its passage: say which article it is of")
        spans.append(LoggedSpan(start, end, None if span_doc is None else canonical(span_doc)))
    return tuple(spans)


def parse_line(obj: Any, where: str) -> LoggedAnswer:
    """Validate one decoded line of an answer log; ``where`` is ``file:line``."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: each line must be a JSON object")
    check_keys(obj, LINE_KEYS, where, "an answer-log line")
    for key in ("question_id", "answer", "passages"):
        if key not in obj:
            raise InputError(f"{where}: missing key {key!r}")
    question_id, answer, passages = obj["question_id"], obj["answer"], obj["passages"]
    if not isinstance(question_id, str) or not question_id.strip():
        raise InputError(f"{where}: 'question_id' must be a non-empty string, got {question_id!r}")
    if "question" in obj and not isinstance(obj["question"], str):
        raise InputError(f"{where}: 'question' must be a string (the gold question's text), got {obj['question']!r}")
    if not isinstance(answer, str):
        raise InputError(f"{where}: 'answer' must be a string, got {type(answer).__name__}")
    if len(answer) > MAX_ANSWER_CHARS:
        raise InputError(
            f"{where}: an answer of {len(answer):,} characters; EvalGate judges answers of at most "
            f"{MAX_ANSWER_CHARS:,} (1 MiB): no generator's answer is that long, so the log is damaged or holds "
            "something else where the answer goes"
        )
    if not answer.strip():
        raise InputError(
            f"{where}: empty answer for question {question_id!r}; log what the pipeline returned "
            '(a refusal is a sentence such as "I don\'t know"): a skeleton from `evalgate retrieve` needs every '
            "answer filled in"
        )
    if not isinstance(passages, list):
        raise InputError(f"{where}: 'passages' must be a list (in rank order), got {type(passages).__name__}")
    parsed = tuple(parse_passage(p, f"{where}: passage {i}") for i, p in enumerate(passages, 1))
    return LoggedAnswer(canonical(question_id), answer, parsed, where, obj.get("question"), obj.get("meta"))


def read_answer_log(path: str | Path) -> LogFile:
    """Read one answer log in either shape, every line checked, answers in file order.

    A folder (a ``datasets`` folder) and a ``.csv`` file are RAGAS / Hugging Face tables; any other
    file is JSON Lines, in EvalGate's own format unless its first line has the ecosystem's keys
    (:func:`~evalgate_lib.inputs.foreign_logs.is_own_line`). A file holds one shape: a line of the
    other is refused, naming it.
    """
    file = Path(path)
    if file.is_dir() or file.suffix.lower() in CSV_SUFFIXES:
        return _foreign_file(file, read_rows(read_table(file)))
    records = [(where, obj) for _, where, obj in read_jsonl(file, "answer log")]
    own = not records or not isinstance(records[0][1], dict) or is_own_line(records[0][1])
    shapes = {True: "EvalGate's own answer-log format", False: f"the shape of {SHAPE}"}
    for where, obj in records[1:]:
        if isinstance(obj, dict) and is_own_line(obj) != own:
            raise InputError(
                f"{where}: a line in {shapes[not own]}, but the log's first line ({records[0][0]}) is in "
                f"{shapes[own]}: one log holds one shape"
            )
    if not own:
        return _foreign_file(file, read_rows(table_of_records(file, "JSONL", records)))
    answers = tuple(parse_line(obj, where) for where, obj in records)
    return LogFile(file, source_sha256(file), answers)


def _foreign_file(file: Path, foreign: ForeignLog) -> LogFile:
    answers = tuple(parse_line(line, where) for where, line in foreign.lines)
    return LogFile(file, source_sha256(file), answers, foreign)


def gold_from_logs(files: Sequence[LogFile], declines: Declines | None = None) -> list[GoldQuestion]:
    """The gold the first log's RAGAS / Hugging Face rows carry (no gold file given); the others must agree.

    Each other log in that shape must give every question it has a reference for the same
    reference: logs of one comparison answer one test set. A log in EvalGate's own format holds
    no references, so it cannot be the source. ``declines``: a reference that declines makes its question
    no-answer (:func:`~evalgate_lib.inputs.foreign_logs.gold_questions`).
    """
    first = files[0]
    if first.foreign is None:
        raise InputError(
            f"{first.path} is in EvalGate's own answer-log format, which holds no reference answers: pass --gold "
            f"FILE (only a log of {SHAPE} carries its gold)"
        )
    questions = gold_questions(first.foreign, declines)
    for other in files[1:]:
        if other.foreign is not None:
            check_same_references(other.foreign, questions, str(first.path), declines)
    return questions


def match_gold(log: LogFile, question_ids: Collection[str], questions: Mapping[str, str] | None = None) -> AnswerLog:
    """Check that ``log`` answers exactly the gold questions ``question_ids``; the answers in their order.

    Returns the answers in the order of ``question_ids``, so both configurations' rows line
    up whatever order the pipeline wrote them in. Rows of a RAGAS / Hugging Face table without an
    id column are matched by their question's text instead (:func:`_by_question_text`). With
    ``questions`` (id → the gold question's text), a line that logs its ``question`` must log that
    text (whitespace aside): a log written for another gold file, or shifted by a line, is refused.
    """
    by_id: dict[str, LoggedAnswer] = {}
    gold = set(question_ids)
    by_row = log.foreign is not None and log.foreign.ids_from_row_order
    order = " (its ids come from the row order: give the rows an 'id' column)" if by_row else ""
    answers = _by_question_text(log, questions) if by_row and questions else log.answers
    for answer in answers:
        where = answer.where
        if answer.question_id in by_id:
            raise InputError(
                f"{where}: question {answer.question_id!r} answered twice (first at {by_id[answer.question_id].where})"
            )
        if answer.question_id not in gold:
            near = difflib.get_close_matches(answer.question_id, sorted(gold), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise InputError(f"{where}: question id {answer.question_id!r} is not in the gold set{hint}{order}")
        gold_text = (questions or {}).get(answer.question_id)
        if answer.question is not None and gold_text is not None and answer.question.split() != gold_text.split():
            raise InputError(
                f"{where}: 'question' {answer.question[:60]!r} is not the text of gold question "
                f"{answer.question_id!r} ({gold_text[:60]!r}): was this log written for another gold file?{order}"
            )
        by_id[answer.question_id] = answer
    missing = [q for q in question_ids if q not in by_id]
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise InputError(f"{log.path}: no answer for {len(missing)} gold question(s): {shown}")
    return AnswerLog(log.path, log.sha256, tuple(by_id[q] for q in question_ids), log.foreign)


def _question_key(text: str) -> str:
    """A question's text as rows and gold are matched on it: NFC, runs of whitespace one space, ends stripped."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _by_question_text(log: LogFile, questions: Mapping[str, str]) -> tuple[LoggedAnswer, ...]:
    """The answers of rows without an id column, each given the id of the gold question with its text
    (:func:`_question_key`). A text several gold questions share (a test set that asks one question twice) is
    matched in order: its first row to the first of them, and so on, so the log the gold came from keeps its
    row-order ids. The first row whose text no gold question has left is an error naming it."""
    ids: dict[str, list[str]] = {}
    for qid, text in questions.items():
        ids.setdefault(_question_key(text), []).append(qid)
    used: dict[str, int] = {}
    matched = []
    for answer in log.answers:
        key = _question_key(answer.question or "")
        found, taken = ids.get(key, []), used.get(key, 0)
        if taken >= len(found):
            why = (
                "is the text of no gold question"
                if not found
                else f"is the text of {len(found)} gold question(s), and an earlier row already answers each"
            )
            raise InputError(
                f"{answer.where}: question {answer.question!r:.80} {why} (the rows have no id column, so each is "
                "matched to the gold question of the same text, Unicode NFC and whitespace aside); give the rows an "
                "'id' column, or fix the question's text"
            )
        used[key] = taken + 1
        matched.append(replace(answer, question_id=found[taken]))
    return tuple(matched)


def load_answer_log(
    path: str | Path, question_ids: Collection[str], questions: Mapping[str, str] | None = None
) -> AnswerLog:
    """Read one answer log (:func:`read_answer_log`), checked against the gold questions (:func:`match_gold`)."""
    return match_gold(read_answer_log(path), question_ids, questions)


def answer_log_line(
    question_id: str,
    question: str | None,
    answer: str,
    passages: Sequence[LoggedPassage],
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One answer-log line as :func:`parse_line` reads it (``evalgate retrieve`` writes its skeleton with it).

    ``answer`` may be empty here, for a skeleton the team's generator fills in; :func:`parse_line`
    refuses it until it is.
    """
    line: dict[str, Any] = {"question_id": question_id}
    if question is not None:
        line["question"] = question
    line["answer"] = answer
    line["passages"] = [p.to_json() for p in passages]
    if meta is not None:
        line["meta"] = dict(meta)
    return line


def check_doc_ids(log: AnswerLog, article_ids: Collection[str]) -> None:
    """Refuse a passage whose ``doc_id`` is not an article of the corpus (when a corpus is given)."""
    known = set(article_ids)
    for answer in log.answers:
        for rank, passage in enumerate(answer.passages, 1):
            if passage.doc_id is not None and passage.doc_id not in known:
                near = difflib.get_close_matches(passage.doc_id, sorted(known), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise InputError(
                    f"{answer.where}: passage {rank}: doc_id {passage.doc_id!r} is not an article of the corpus{hint}"
                )


def describe(log: AnswerLog) -> Mapping[str, Any]:
    """What the manifest records of one log: where it is, its hash, what it held (and how a table's columns mapped)."""
    passages = [p for a in log.answers for p in a.passages]
    described: dict[str, Any] = {
        "path": str(log.path.resolve()),
        "sha256": log.sha256,
        "answers": len(log.answers),
        "passages": len(passages),
        "doc_ids": log.has_doc_ids,
        "scores": bool(passages) and all(p.score is not None for p in passages),
    }
    if log.foreign is not None:
        described["shape"] = {
            "rows": SHAPE,
            "format": log.foreign.table.format,
            "columns": dict(log.foreign.columns),
            "ids": "row order" if log.foreign.ids_from_row_order else f"column {log.foreign.columns['id']!r}",
            "meta": list(log.foreign.meta),
        }
    return described

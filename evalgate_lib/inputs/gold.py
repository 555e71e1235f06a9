"""Loading and validating the gold question set (JSON Lines, schema in gold/README.md).

Validation is strict and names the line, because a silently skipped gold
question would make the before/after number quietly wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.jsonl import read_unique
from evalgate_lib.text.matching import canonical

ANSWERABLE = "answerable"
NO_ANSWER = "no_answer"
_KNOWN_KEYS = {"id", "question", "type", "article", "accept", "evidence", "note"}


@dataclass(frozen=True)
class GoldQuestion:
    """One gold question with its accepted answers and (optionally) evidence spans."""

    id: str
    question: str
    type: str
    article: str | None
    accept: tuple[str, ...]
    evidence: tuple[str, ...] | None = None
    note: str | None = None

    @property
    def answerable(self) -> bool:
        return self.type == ANSWERABLE


def _string_list(value: object, where: str, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{where}: '{field}' must be a list of non-empty strings")
    return tuple(value)


def parse_question(obj: object, where: str) -> GoldQuestion:
    """Validate one decoded JSON object; ``where`` is ``file:line`` for messages."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: each line must be a JSON object")
    unknown = set(obj) - _KNOWN_KEYS
    if unknown:
        raise InputError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_KNOWN_KEYS)}")
    for field in ("id", "question", "type"):
        if not isinstance(obj.get(field), str) or not obj[field].strip():
            raise InputError(f"{where}: '{field}' is required and must be a non-empty string")
    qtype = obj["type"]
    if qtype not in (ANSWERABLE, NO_ANSWER):
        raise InputError(f"{where}: 'type' must be '{ANSWERABLE}' or '{NO_ANSWER}', got {qtype!r}")
    article = obj.get("article")
    accept = _string_list(obj.get("accept", []), where, "accept")
    evidence = obj.get("evidence")
    if qtype == ANSWERABLE:
        if not isinstance(article, str) or not article:
            raise InputError(f"{where}: an answerable question needs its gold 'article' id")
        if not accept:
            raise InputError(f"{where}: an answerable question needs a non-empty 'accept' list")
    elif article is not None or accept:
        raise InputError(f"{where}: a no_answer question must have 'article': null and an empty 'accept' list")
    if evidence is not None:
        if qtype == NO_ANSWER:
            raise InputError(f"{where}: a no_answer question has no evidence")
        evidence = _string_list(evidence, where, "evidence")
    note = obj.get("note")
    article = None if article is None else canonical(article)  # ids compare in one Unicode spelling
    return GoldQuestion(canonical(obj["id"]), obj["question"], qtype, article, accept, evidence, note)


def load_gold(path: str | Path, article_ids: Iterable[str] | None = None) -> list[GoldQuestion]:
    """Load a gold file; with ``article_ids``, also refuse gold articles not in the corpus."""
    file = Path(path)
    questions = read_unique(file, "gold file", parse_question, lambda q: q.id, lambda qid: f"question id {qid!r}")
    if not questions:
        raise InputError(f"gold file {file} holds no questions")
    if article_ids is not None:
        check_articles(questions, article_ids, str(file))
    return questions


def check_articles(questions: Iterable[GoldQuestion], article_ids: Iterable[str], source: str) -> None:
    """Refuse gold questions whose article is not in the corpus, naming each one."""
    known = set(article_ids)
    missing = [f"{q.id} → {q.article!r}" for q in questions if q.article is not None and q.article not in known]
    if missing:
        raise InputError(f"{source}: unknown gold article id(s), not in the corpus: {', '.join(missing)}")

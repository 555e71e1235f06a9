"""Turning one answer into one published result row: scores, then flags.

:func:`score_answer` is pure: given the question, what was retrieved, the
context string the model saw and the answer it gave, it returns the row that
``results.jsonl`` holds. Nothing about the model or the cache enters here, so
the benchmark and the tests can score answers without a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from evalgate_lib.chunking import Chunk
from evalgate_lib.flags import flag_answer
from evalgate_lib.gold import GoldQuestion
from evalgate_lib.scoring import confidence, correctness, groundedness, retrieval_hit

#: Floats in result rows are rounded to this many places: enough to read, and
#: stable under the last-bit noise that would otherwise break byte-identical reruns.
DECIMALS = 6


@dataclass(frozen=True)
class Retrieved:
    """One retrieved chunk with its rank (1-based) and cosine similarity."""

    rank: int
    chunk: Chunk
    similarity: float


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), DECIMALS)


def score_answer(
    config: str,
    question: GoldQuestion,
    retrieved: Sequence[Retrieved],
    context: str,
    answer: str,
    prompt_sha256: str,
) -> dict[str, Any]:
    """The full result row for one (config, question); schema in docs/DESIGN.md."""
    top_similarity = _round(retrieved[0].similarity if retrieved else 0.0) or 0.0
    verdict = correctness(answer, question.answerable, question.accept)
    grounded = groundedness(answer, context)
    conf = confidence(top_similarity, grounded.score)
    flags = flag_answer(verdict.correct, grounded, conf)
    return {
        "config": config,
        "question_id": question.id,
        "question": question.question,
        "type": question.type,
        "gold_article": question.article,
        "accept": list(question.accept),
        "evidence": list(question.evidence) if question.evidence is not None else None,
        "answer": answer,
        "prompt_sha256": prompt_sha256,
        "retrieved": [
            {
                "rank": r.rank,
                "chunk_id": r.chunk.chunk_id,
                "article_id": r.chunk.article_id,
                "position": r.chunk.position,
                "start": r.chunk.start,
                "end": r.chunk.end,
                "similarity": _round(r.similarity),
            }
            for r in retrieved
        ],
        "top_similarity": top_similarity,
        "retrieval_hit": retrieval_hit([r.chunk.article_id for r in retrieved], question.article),
        "refused": verdict.refused,
        "correct": verdict.correct,
        "matched": verdict.matched,
        "sentences": [
            {
                "text": s.text,
                "coverage": _round(s.coverage),
                "supported": s.supported,
                "refusal": s.refusal,
                "tokens": list(s.tokens),
                "missing": list(s.missing),
            }
            for s in grounded.sentences
        ],
        "groundedness": _round(grounded.score),
        "confidence": _round(conf),
        "flags": flags.as_dict(),
    }

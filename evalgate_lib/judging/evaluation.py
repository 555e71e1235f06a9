"""Turning one answer into one published result row: scores, then flags.

:func:`score_answer` is pure: given the question, what was retrieved, the
context string the model saw and the answer it gave, it returns the row that
``results.jsonl`` holds. Nothing about the model or the cache enters here, so
the benchmark and the tests can score answers without a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.judging.flags import flag_answer
from evalgate_lib.judging.normalise import match_answer
from evalgate_lib.judging.scoring import Correctness, confidence, correctness, groundedness, retrieval_hit
from evalgate_lib.retrieval.metrics import evidence_coverage, first_relevant_rank

#: The cut-offs at which chunk-level recall is reported.
RECALL_KS = (1, 3, 5, 10)

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


def evidence_rank(ranking: Sequence[Retrieved], article: str, spans: Sequence[tuple[int, int]]) -> int | None:
    """Smallest k such that the top-k chunks hold every evidence span whole; ``None`` if no k does.

    That is :func:`evidence_hit` on the top k, computed in one pass: each span's
    first rank whose chunk (of the gold article) contains it, and the largest of those.
    """
    gold = [(r.rank, r.chunk.start, r.chunk.end) for r in ranking if r.chunk.article_id == article]
    firsts = []
    for start, end in spans:
        rank = next((rank for rank, c_start, c_end in gold if c_start <= start and end <= c_end), None)
        if rank is None:
            return None
        firsts.append(rank)
    return max(firsts) if firsts else None


def retrieval_metrics(
    question: GoldQuestion, ranking: Sequence[Retrieved], top_k: int, spans: Sequence[tuple[int, int]] | None
) -> dict[str, Any] | None:
    """Rank-aware retrieval metrics of one answerable question over the ranking (top 10 at least).

    Document level: the rank of the first chunk from the gold article, recall@k and
    reciprocal rank. Evidence level (when the gold set gives evidence spans): the
    first k at which the retrieved chunks hold every span whole, recall@k on that,
    whether the top-``top_k`` (the prompt's context) held it, and the share of
    evidence characters the context covered.
    """
    if question.article is None:
        return None
    doc_rank = first_relevant_rank([r.chunk.article_id for r in ranking], question.article)
    metrics: dict[str, Any] = {
        "gold_rank": doc_rank,
        "reciprocal_rank": _round(1.0 / doc_rank if doc_rank else 0.0),
        **{f"recall@{k}": doc_rank is not None and doc_rank <= k for k in RECALL_KS},
        "evidence_rank": None,
        "evidence_reciprocal_rank": None,
        **{f"evidence_recall@{k}": None for k in RECALL_KS},
        "evidence_hit": None,
        "evidence_coverage": None,
    }
    if spans:
        rank = evidence_rank(ranking, question.article, spans)
        context = [(r.chunk.article_id, r.chunk.start, r.chunk.end) for r in ranking[:top_k]]
        metrics.update(
            {
                "evidence_rank": rank,
                "evidence_reciprocal_rank": _round(1.0 / rank if rank else 0.0),
                **{f"evidence_recall@{k}": rank is not None and rank <= k for k in RECALL_KS},
                "evidence_hit": rank is not None and rank <= top_k,
                "evidence_coverage": _round(evidence_coverage(context, question.article, spans)),
            }
        )
    return metrics


def score_answer(
    config: str,
    question: GoldQuestion,
    retrieved: Sequence[Retrieved],
    context: str,
    answer: str,
    prompt_sha256: str,
    *,
    ranking: Sequence[Retrieved] | None = None,
    evidence_spans: Sequence[tuple[int, int]] | None = None,
    normalised_matching: bool = False,
) -> dict[str, Any]:
    """The full result row for one (config, question); schema in docs/DESIGN.md.

    ``retrieved`` is what went into the prompt (the top k); ``ranking`` is the
    longer list the rank metrics look at (defaults to ``retrieved``).
    ``normalised_matching`` makes the normalised verdict the headline one; both
    verdicts are always in the row, with the accept string each one matched.
    """
    top_similarity = _round(retrieved[0].similarity if retrieved else 0.0) or 0.0
    raw = correctness(answer, question.answerable, question.accept)
    normalised = match_answer(answer, question.accept, normalise=True) if question.answerable else None
    verdict = raw
    if normalised_matching and normalised is not None:
        verdict = Correctness(normalised.correct, raw.refused, normalised.matched)
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
        "retrieval_metrics": retrieval_metrics(question, ranking or retrieved, len(retrieved), evidence_spans),
        "refused": verdict.refused,
        "correct": verdict.correct,
        "matched": verdict.matched,
        "matching": {
            "mode": "normalised" if normalised_matching else "raw",
            "raw": {"correct": raw.correct, "matched": raw.matched},
            "normalised": None
            if normalised is None
            else {"correct": normalised.correct, "matched": normalised.matched},
        },
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

"""Turning one answer into one published result row: retrieval metrics, then the judgement.

:func:`score_answer` is pure: given the question, what was retrieved, the
answer and the judging settings, it returns the :class:`ResultRow` that
``results.jsonl`` holds. Nothing about the model or the cache enters here, so
the benchmark and the tests score answers without a model. The verdicts come
from :func:`evalgate_lib.judging.answer.judge_answer`, the same function the
public API offers for a single answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.inputs.config import DEFAULT_ANSWER_MATCHING
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.rows import RECALL_KS, ResultRow, RetrievalScores, RetrievedChunk, SentenceVerdict
from evalgate_lib.judging.sentence_scorers import SentenceScorer
from evalgate_lib.retrieval.metrics import (
    evidence_coverage,
    evidence_rank,
    first_relevant_rank,
    hit_at_k,
    reciprocal_rank,
)

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


def retrieval_scores(
    question: GoldQuestion, ranking: Sequence[Retrieved], top_k: int, spans: Sequence[tuple[int, int]] | None
) -> RetrievalScores | None:
    """Rank-aware retrieval metrics of one answerable question over the ranking (top 10 at least).

    Document level: the rank of the first chunk from the gold article, recall@k and
    reciprocal rank. Evidence level (when the gold set gives evidence spans): the
    first k at which the retrieved chunks hold every span whole, recall@k on that,
    whether the top-``top_k`` (the prompt's context) held it, and the share of
    evidence characters the context covered. Each figure is one function of
    :mod:`evalgate_lib.retrieval.metrics`; this only assembles and rounds them.
    """
    if question.article is None:
        return None
    # a passage made of spans of several articles (an answer log's) counts at its rank for each of them
    articles = [(k, a) for k, r in enumerate(ranking, 1) for a in r.chunk.articles]
    doc_rank = first_relevant_rank([a for _, a in articles], question.article, [k for k, _ in articles])
    scores = RetrievalScores(
        gold_rank=doc_rank,
        reciprocal_rank=_round(reciprocal_rank(doc_rank)) or 0.0,
        recall={k: hit_at_k(doc_rank, k) for k in RECALL_KS},
    )
    if not spans:
        return scores
    ranked = [(k, span) for k, r in enumerate(ranking, 1) for span in r.chunk.spans]
    rank = evidence_rank([s for _, s in ranked], question.article, spans, [k for k, _ in ranked])
    in_context = [s for k, s in ranked if k <= top_k]
    return replace(
        scores,
        evidence_rank=rank,
        evidence_reciprocal_rank=_round(reciprocal_rank(rank)),
        evidence_recall={k: hit_at_k(rank, k) for k in RECALL_KS},
        evidence_hit=hit_at_k(rank, top_k) if top_k >= 1 else False,  # top_k 0: nothing retrieved
        evidence_coverage=_round(evidence_coverage(in_context, question.article, spans)),
    )


def _rounded(verdict: SentenceVerdict) -> SentenceVerdict:
    return verdict if verdict.coverage is None else replace(verdict, coverage=_round(verdict.coverage))


def score_answer(
    config: str,
    question: GoldQuestion,
    retrieved: Sequence[Retrieved],
    answer: str,
    prompt_sha256: str,
    *,
    scorer: SentenceScorer,
    ranking: Sequence[Retrieved] | None = None,
    evidence_spans: Sequence[tuple[int, int]] | None = None,
    matching: str = DEFAULT_ANSWER_MATCHING,
) -> ResultRow:
    """The full result row for one (config, question); schema in docs/DESIGN.md.

    ``retrieved`` is what went into the prompt (the top k); ``ranking`` is the
    longer list the rank metrics look at (defaults to ``retrieved``). ``matching``
    picks the verdict that decides ``correct`` (both are always in the row).
    """
    top_similarity = _round(retrieved[0].similarity if retrieved else 0.0) or 0.0
    metrics = retrieval_scores(question, ranking or retrieved, len(retrieved), evidence_spans)
    judgement = judge_answer(
        question=question.question,
        answer=answer,
        passages=[(r.chunk.title, r.chunk.text) for r in retrieved],
        accept=question.accept,
        answerable=question.answerable,
        top_similarity=top_similarity,
        matching=matching,
        scorer=scorer,
    )
    return ResultRow(
        config=config,
        question_id=question.id,
        question=question.question,
        type=question.type,
        gold_article=question.article,
        accept=tuple(question.accept),
        evidence=None if question.evidence is None else tuple(question.evidence),
        answer=answer,
        prompt_sha256=prompt_sha256,
        retrieved=tuple(
            RetrievedChunk(
                r.rank,
                r.chunk.chunk_id,
                r.chunk.article_id,
                r.chunk.position,
                r.chunk.start,
                r.chunk.end,
                _round(r.similarity) or 0.0,
                r.chunk.assembly,
                r.chunk.text,
                r.chunk.title,
            )
            for r in retrieved
        ),
        top_similarity=top_similarity,
        retrieval_hit=None if metrics is None else hit_at_k(metrics.gold_rank, max(len(retrieved), 1)),
        retrieval_metrics=metrics,
        judgement=replace(
            judgement,
            sentences=tuple(_rounded(s) for s in judgement.sentences),
            groundedness=_round(judgement.groundedness),
            confidence=_round(judgement.confidence) or 0.0,
        ),
    )

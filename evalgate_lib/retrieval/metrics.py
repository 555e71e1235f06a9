"""Retrieval metrics as pure functions of ranked lists.

Two granularities, because they answer different questions:

* **article level** (:func:`first_relevant_rank`, :func:`hit_at_k`, :func:`reciprocal_rank`): did the
  retriever find the gold article at all, and how high? Cheap, needs only the
  ``article_id`` of each retrieved chunk in rank order.
* **evidence level** (:func:`evidence_rank`, :func:`evidence_coverage`): did the
  retrieved chunks contain the *passage* that holds the answer? An article can be
  retrieved through an irrelevant chunk; only evidence spans catch that. Spans
  are character offsets ``(start, end)``, end exclusive, in the gold article body
  (text after the front matter), the same coordinates as ``Chunk.start/end`` and
  the ``retrieved`` entries of a result row.
"""

from __future__ import annotations

from typing import Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.text.locate import find_evidence


def _ranks(entries: Sequence[object], ranks: Sequence[int] | None) -> Sequence[int]:
    """The rank of each entry: ``ranks`` when given (one per entry), else 1, 2, 3, …"""
    if ranks is None:
        return range(1, len(entries) + 1)
    if len(ranks) != len(entries):
        raise ValueError(f"{len(ranks)} ranks for {len(entries)} retrieved entries")
    return ranks


def first_relevant_rank(
    retrieved_articles: Sequence[str], gold_article: str, ranks: Sequence[int] | None = None
) -> int | None:
    """1-based rank of the first retrieved chunk from ``gold_article``; ``None`` if absent.

    Several chunks of one article may be retrieved; only the first counts, since
    the question is how soon the reader meets the right source. ``ranks`` gives each
    entry's rank when one passage stands for several entries (a logged passage made of
    spans of several articles: one entry per article, all at the passage's rank).
    """
    for rank, article in zip(_ranks(retrieved_articles, ranks), retrieved_articles, strict=True):
        if article == gold_article:
            return rank
    return None


def hit_at_k(rank: int | None, k: int) -> bool:
    """True when the first relevant item sits within the first ``k`` (``rank`` from :func:`first_relevant_rank`).

    With a single relevant item per question (the gold article, or the full set of
    evidence spans), recall@k is this hit indicator; averaged over questions it is the
    usual recall@k / hit-rate@k.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return rank is not None and rank <= k


def reciprocal_rank(rank: int | None) -> float:
    """``1 / rank``, or 0.0 when nothing relevant was retrieved (``rank`` is ``None``).

    MRR is the mean of this over questions; the one place that averages it is the
    summary (:mod:`evalgate_lib.statistics.metrics`).
    """
    if rank is None:
        return 0.0
    if rank < 1:
        raise ValueError(f"ranks are 1-based, got {rank}")
    return 1.0 / rank


def _check_span(start: int, end: int, what: str) -> None:
    if start < 0 or end <= start:
        raise ValueError(f"{what} ({start}, {end}) is not a non-empty span with 0 <= start < end")


def _gold_chunks(retrieved_spans: Sequence[tuple[str, int, int]], gold_article: str) -> list[tuple[int, int]]:
    chunks: list[tuple[int, int]] = []
    for article, start, end in retrieved_spans:
        if article == gold_article:
            if start < 0 or end < start:
                raise ValueError(f"retrieved chunk span ({start}, {end}) of {article!r} is invalid")
            chunks.append((start, end))
    return chunks


def _checked_evidence(evidence_spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    if len(evidence_spans) == 0:
        raise ValueError("evidence metrics need at least one evidence span")
    for start, end in evidence_spans:
        _check_span(start, end, "evidence span")
    return [(start, end) for start, end in evidence_spans]


def _merge(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of half-open intervals as sorted, disjoint, non-adjacent intervals."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def evidence_rank(
    ranked_spans: Sequence[tuple[str, int, int]],
    gold_article: str,
    evidence_spans: Sequence[tuple[int, int]],
    ranks: Sequence[int] | None = None,
) -> int | None:
    """Smallest k such that the top-k retrieved chunks hold every evidence span whole; ``None`` if no k does.

    ``ranked_spans`` are ``(article_id, start, end)`` of the retrieved chunks in rank
    order; chunks of other articles are ignored. The test is deliberately strict: a
    span that straddles two retrieved chunks is *not* held, because the model then
    sees the fact cut in two (possibly in different places of the context). Such a
    span still counts as fully covered in :func:`evidence_coverage`. A fact whose text
    is not contiguous in the article is given as two evidence spans (see the gold
    schema); each must then be inside some chunk, not necessarily the same one.
    "Evidence chunk in context" is ``hit_at_k(evidence_rank(...), top_k)``. ``ranks`` gives each
    span's rank when a passage holds several spans (as in :func:`first_relevant_rank`).
    """
    evidence = _checked_evidence(evidence_spans)
    firsts = []
    for start, end in evidence:
        rank = next(
            (
                rank
                for rank, (article, c_start, c_end) in zip(_ranks(ranked_spans, ranks), ranked_spans, strict=True)
                if article == gold_article and c_start <= start and end <= c_end
            ),
            None,
        )
        if rank is None:
            return None
        firsts.append(rank)
    return max(firsts)


def evidence_coverage(
    retrieved_spans: Sequence[tuple[str, int, int]],
    gold_article: str,
    evidence_spans: Sequence[tuple[int, int]],
) -> float:
    """Fraction of evidence characters covered by the union of retrieved gold-article chunks.

    Overlapping evidence spans are counted once (union), and chunks may overlap
    (sentence windows do), so both sides are merged first. 1.0 means the model
    saw all of the evidence text, even if split across chunks; a graded score is
    more informative than :func:`evidence_hit` when chunks cut facts in half.
    """
    evidence = _merge(_checked_evidence(evidence_spans))
    chunks = _merge(_gold_chunks(retrieved_spans, gold_article))
    total = sum(end - start for start, end in evidence)
    covered = 0
    for es, ee in evidence:
        for cs, ce in chunks:
            covered += max(0, min(ee, ce) - max(es, cs))
    return covered / total


def locate_evidence(body: str, evidence: Sequence[str], *, where: str = "") -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of each evidence string in ``body``, found by
    :func:`~evalgate_lib.text.locate.find_evidence` (exactly, else up to whitespace; the span is the body's own).

    The first occurrence is used; evidence strings should be long enough to be
    unique in their article. A missing or empty string raises :class:`InputError`
    naming the string (and ``where``, e.g. ``"gold/questions.jsonl:12 (q012)"``),
    because it means the gold file and the corpus disagree and every evidence
    metric for that question would be meaningless.
    """
    location = f" ({where})" if where else ""
    spans: list[tuple[int, int]] = []
    for text in evidence:
        if not text:
            raise InputError(f"empty evidence string{location}")
        span = find_evidence(body, text)
        if span is None:
            raise InputError(
                f"evidence string not found in the gold article body, even ignoring whitespace{location}: {text!r}"
            )
        spans.append(span)
    return spans

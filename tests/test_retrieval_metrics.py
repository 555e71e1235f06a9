"""Tests for evalgate_lib.retrieval.metrics, with hand-computed expected values."""

from __future__ import annotations

import pytest

from evalgate_lib.errors import InputError
from evalgate_lib.retrieval.metrics import (
    evidence_coverage,
    evidence_rank,
    first_relevant_rank,
    hit_at_k,
    locate_evidence,
    reciprocal_rank,
)
from evalgate_lib.statistics.metrics import aggregate
from evalgate_lib.text.locate import count_evidence, find_evidence

# Gold article "plans" first appears at rank 4 (and again at 7).
RANKED = ["billing", "security", "billing", "plans", "sso", "api", "plans", "faq", "limits", "export"]


def test_first_relevant_rank() -> None:
    assert first_relevant_rank(RANKED, "plans") == 4
    assert first_relevant_rank(RANKED, "billing") == 1
    assert first_relevant_rank(RANKED, "missing") is None
    assert first_relevant_rank([], "plans") is None


def recall_at_k(ranked: list[str], gold: str, k: int) -> bool:
    # recall@k of one question, as the pipeline computes it: the hit at k of the first relevant rank
    return hit_at_k(first_relevant_rank(ranked, gold), k)


def evidence_hit(chunks: list[tuple[str, int, int]], gold: str, spans: list[tuple[int, int]]) -> bool:
    # "every evidence span inside some retrieved chunk" = the evidence rank is within the retrieved list
    return hit_at_k(evidence_rank(chunks, gold, spans), max(len(chunks), 1))


@pytest.mark.parametrize(("k", "expected"), [(1, False), (3, False), (4, True), (5, True), (10, True)])
def test_recall_at_k(k: int, expected: bool) -> None:
    assert recall_at_k(RANKED, "plans", k) is expected
    assert hit_at_k(4, k) is expected


def test_recall_at_k_first_rank_and_absent() -> None:
    for k in (1, 3, 5, 10):
        assert recall_at_k(RANKED, "billing", k) is True
        assert recall_at_k(RANKED, "missing", k) is False
        assert hit_at_k(None, k) is False
    assert recall_at_k(["a", "b"], "b", 10) is True  # k beyond the list is fine


def test_recall_at_k_rejects_k_below_one() -> None:
    with pytest.raises(ValueError):
        hit_at_k(4, 0)
    with pytest.raises(ValueError):
        hit_at_k(None, 0)


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(first_relevant_rank(RANKED, "plans")) == 0.25
    assert reciprocal_rank(first_relevant_rank(RANKED, "security")) == 0.5
    assert reciprocal_rank(first_relevant_rank(RANKED, "missing")) == 0.0
    with pytest.raises(ValueError, match="1-based"):
        reciprocal_rank(0)


def test_mean_reciprocal_rank() -> None:
    # MRR is the summary's mean of per-question reciprocal ranks
    def mrr(ranks: list[int | None]) -> float | None:
        return aggregate("score", [reciprocal_rank(r) for r in ranks])

    assert mrr([1, 2, None, 4]) == pytest.approx(0.4375)  # (1 + .5 + 0 + .25) / 4
    assert mrr([None, None]) == 0.0
    assert mrr([]) is None  # the mean of nothing is undefined, not 0.0 ("retrieval always failed")
    with pytest.raises(ValueError, match="1-based"):
        mrr([0])


# Gold article "plans"; retrieved chunks: plans [0, 100), other [0, 500), plans [100, 200).
CHUNKS = [("plans", 0, 100), ("other", 0, 500), ("plans", 100, 200)]


def test_evidence_inside_one_chunk_is_a_hit() -> None:
    assert evidence_rank(CHUNKS, "plans", [(10, 40)]) == 1
    assert evidence_hit(CHUNKS, "plans", [(10, 40)]) is True
    assert evidence_coverage(CHUNKS, "plans", [(10, 40)]) == 1.0
    assert evidence_hit(CHUNKS, "plans", [(0, 100)]) is True  # end exclusive: exactly the chunk


def test_every_span_must_be_inside_some_chunk() -> None:
    assert evidence_hit(CHUNKS, "plans", [(10, 40), (150, 190)]) is True
    assert evidence_rank(CHUNKS, "plans", [(10, 40), (150, 190)]) == 3  # the second span first appears at rank 3
    assert hit_at_k(evidence_rank(CHUNKS, "plans", [(10, 40), (150, 190)]), 2) is False  # top 2 hold only one
    assert evidence_rank(CHUNKS, "plans", [(10, 40), (300, 320)]) is None
    # Second span (300, 320) is not retrieved: miss; coverage 30 of 50 characters.
    assert evidence_hit(CHUNKS, "plans", [(10, 40), (300, 320)]) is False
    assert evidence_coverage(CHUNKS, "plans", [(10, 40), (300, 320)]) == pytest.approx(30 / 50)


def test_span_straddling_two_chunks() -> None:
    # (90, 110) crosses the boundary at 100: inside no single chunk, but both halves retrieved.
    assert evidence_hit(CHUNKS, "plans", [(90, 110)]) is False
    assert evidence_rank(CHUNKS, "plans", [(90, 110)]) is None
    assert evidence_coverage(CHUNKS, "plans", [(90, 110)]) == 1.0
    # With only the first chunk retrieved, 10 of the 20 characters are covered.
    assert evidence_coverage([("plans", 0, 100)], "plans", [(90, 110)]) == 0.5


def test_other_articles_do_not_count() -> None:
    # "other" [0, 500) spans the same offsets but is a different article.
    assert evidence_hit([("other", 0, 500)], "plans", [(10, 40)]) is False
    assert evidence_coverage([("other", 0, 500)], "plans", [(10, 40)]) == 0.0
    assert evidence_coverage([], "plans", [(10, 40)]) == 0.0


def test_overlaps_are_counted_once() -> None:
    # Overlapping chunks [0, 60) and [40, 100); evidence [50, 70) and [60, 120) → union [50, 120),
    # 70 characters, of which [50, 100) = 50 are covered.
    chunks = [("plans", 0, 60), ("plans", 40, 100)]
    assert evidence_coverage(chunks, "plans", [(50, 70), (60, 120)]) == pytest.approx(50 / 70)
    assert evidence_hit(chunks, "plans", [(50, 70)]) is True  # inside [40, 100)
    assert evidence_rank(chunks, "plans", [(50, 70)]) == 2


def test_evidence_spans_are_validated() -> None:
    with pytest.raises(ValueError):
        evidence_rank(CHUNKS, "plans", [])
    with pytest.raises(ValueError):
        evidence_rank(CHUNKS, "plans", [(5, 5)])
    with pytest.raises(ValueError):
        evidence_coverage(CHUNKS, "plans", [(5, 5)])


def test_locate_evidence() -> None:
    body = "# Plans\nStarter includes 3 seats. Pro includes 10 seats."
    spans = locate_evidence(body, ["Starter includes 3 seats", "Pro includes 10 seats"])
    assert spans == [(8, 32), (34, 55)]
    assert [body[s:e] for s, e in spans] == ["Starter includes 3 seats", "Pro includes 10 seats"]


def test_locate_evidence_missing_string_names_it() -> None:
    with pytest.raises(InputError, match="Enterprise includes 50 seats") as info:
        locate_evidence("Starter includes 3 seats.", ["Enterprise includes 50 seats"], where="q007")
    assert "q007" in str(info.value)
    with pytest.raises(InputError, match="empty"):
        locate_evidence("abc", [""])


#: Issue 53: the SQLite page as a newer reading of its HTML lays it out, and the gold evidence as an earlier
#: reading wrote it (line breaks where the page now has spaces, an indented continuation line).
PAGE = (
    "## Foreign keys\n\nForeign key constraints are disabled by default (for backwards compatibility), so must be "
    "enabled."
)
OLD_EVIDENCE = "Foreign key constraints are disabled by default\n(for backwards compatibility),\n    so must be enabled"


def test_evidence_differing_only_in_line_breaks_is_found_and_mapped_to_the_body() -> None:
    """The run no longer stops: the span is the body's own text, 17 characters in ("## Foreign keys" and two line
    breaks), 97 characters long (the body's single spaces, not the evidence's 101 characters of breaks and indent)."""
    (span,) = locate_evidence(PAGE, [OLD_EVIDENCE], where="gold.jsonl: question q01")
    assert span == (17, 17 + 97) and len(OLD_EVIDENCE) == 101
    assert PAGE[span[0] : span[1]] == (
        "Foreign key constraints are disabled by default (for backwards compatibility), so must be enabled"
    )
    # the other way round too: the body breaks its lines where the evidence has single spaces
    broken = "Intro.\nForeign key constraints\n  are disabled\tby default."
    (span,) = locate_evidence(broken, ["constraints are disabled by default"])
    assert broken[span[0] : span[1]] == "constraints\n  are disabled\tby default"
    # words still have to match, in order and in case: a different word is not found
    with pytest.raises(InputError, match="even ignoring whitespace"):
        locate_evidence(PAGE, ["Foreign key constraints are enabled by default"], where="q01")


def test_find_evidence_prefers_the_exact_occurrence_and_counts_loosely() -> None:
    body = "a  b c. a b c."
    assert find_evidence(body, "a b c") == (8, 13)  # the exact one, though a loose one comes first
    assert find_evidence(body, "a\nb c.") == (0, 7)  # no exact one: the first loose one, the body's spelling
    assert find_evidence(body, " \n ") is None  # no words: nothing to find
    assert count_evidence(body, "a b c") == 2 and count_evidence(body, "a b d") == 0 and count_evidence(body, " ") == 0


def test_located_spans_feed_the_span_metrics() -> None:
    body = "A" * 95 + "Starter includes 3 seats" + "B" * 81  # evidence at [95, 119)
    spans = locate_evidence(body, ["Starter includes 3 seats"])
    assert spans == [(95, 119)]
    assert evidence_hit(CHUNKS, "plans", spans) is False
    assert evidence_coverage(CHUNKS, "plans", spans) == 1.0

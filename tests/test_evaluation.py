"""Tests for evalgate_lib.judging.evaluation.score_answer: whole result rows for hand-made answers, no model."""

from __future__ import annotations

import json

import pytest

from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.inputs.prompts import context_text, render_context
from evalgate_lib.judging.evaluation import Retrieved, score_answer
from evalgate_lib.judging.rows import FLAG_NAMES, Flags, ResultRow
from evalgate_lib.judging.sentence_scorers import LexicalCoverageScorer
from evalgate_lib.text.tokens import content_tokens

P1_TEXT = "Starter costs $36 per month with annual billing. Starter includes 3 seats in its flat price."
P1 = Chunk("plans-and-pricing-2026", "Nimbus plans", 2, 100, 100 + len(P1_TEXT), P1_TEXT)
P2_TEXT = "In 2024, Business cost $15 per user per month."
P2 = Chunk("plans-and-pricing-2024", "Legacy plans", 0, 0, len(P2_TEXT), P2_TEXT)

# Answers are scored against context_text() (titles and texts, without the "[1]" prompt labels),
# exactly as the pipeline calls score_answer. Content tokens for P1:
#   nimbus, plans, starter, costs, 36, month, annual, billing, includes, 3, seats, flat, price
CTX1 = context_text([(P1.title, P1.text)])
# For P2: legacy, plans, 2024, business, cost, 15, user, month
CTX2 = context_text([(P2.title, P2.text)])

PRICE = GoldQuestion(
    "q010", "How much is Starter per month, billed annually?", "answerable", "plans-and-pricing-2026", ("$36",)
)
SEATS = GoldQuestion(
    "q001",
    "How many seats does Starter include?",
    "answerable",
    "plans-and-pricing-2026",
    ("3 seats",),
    evidence=("Starter includes 3 seats",),
)
BUSINESS = GoldQuestion("q002", "What does Business cost?", "answerable", "plans-and-pricing-2026", ("$18",))
NO_ANSWER = GoldQuestion("q061", "Does Nimbus offer a lifetime licence?", "no_answer", None, ())


SCORER = LexicalCoverageScorer()
UNDER = "1 sentence(s) judged unsupported by the context"


def conf(text: str) -> str:
    return f"confidence {text} < 0.35 (confidence = min(top similarity, groundedness))"


def row(question: GoldQuestion, answer: str, sim: float = 0.8, chunk: Chunk = P1) -> ResultRow:
    # the answer is judged against the retrieved chunk's context_text() (CTX1 for P1, CTX2 for P2)
    return score_answer("baseline", question, [Retrieved(1, chunk, sim)], answer, "sha", scorer=SCORER, matching="raw")


def review_reasons(r: ResultRow) -> tuple[str, ...]:
    return tuple(r.flags.reasons.get("review", ()))


def test_context_tokens_as_commented() -> None:
    assert content_tokens(CTX1) == {
        "nimbus", "plans", "starter", "costs", "36", "month", "annual", "billing",
        "includes", "3", "seats", "flat", "price",
    }  # fmt: skip
    assert content_tokens(CTX2) == {"legacy", "plans", "2024", "business", "cost", "15", "user", "month"}


def test_correct_grounded_answer_full_row() -> None:
    r = score_answer(
        "baseline",
        SEATS,
        [Retrieved(1, P1, 0.712345678)],
        "Starter includes 3 seats.",
        "abc",
        scorer=SCORER,
        matching="raw",
    )
    # content tokens: starter, includes, 3, seats → 4 of 4 → 1.0; confidence = min(0.712346, 1.0)
    # (the row may hold more keys than docs/DESIGN.md lists, e.g. retrieval_metrics and matching)
    expected = {
        "schema": 7,
        "config": "baseline",
        "question_id": "q001",
        "question": "How many seats does Starter include?",
        "type": "answerable",
        "gold_article": "plans-and-pricing-2026",
        "accept": ["3 seats"],
        "evidence": ["Starter includes 3 seats"],
        "answer": "Starter includes 3 seats.",
        "prompt_sha256": "abc",
        "retrieved": [
            {
                "rank": 1,
                "chunk_id": "plans-and-pricing-2026#2",
                "article_id": "plans-and-pricing-2026",
                "position": 2,
                "start": 100,
                "end": 100 + len(P1_TEXT),
                "similarity": 0.712346,
                "title": P1.title,  # row schema 6: the passage as the prompt showed it
                "text": P1_TEXT,
            }
        ],
        "top_similarity": 0.712346,
        "retrieval_hit": True,
    }
    judgement = {
        "refused": False,
        "correct": True,
        "matched": "3 seats",
        "sentences": [
            {
                "text": "Starter includes 3 seats.",
                "coverage": 1.0,
                "supported": True,
                "refusal": False,
                "tokens": ["starter", "includes", "3", "seats"],
                "missing": [],
                "span": None,
                "reason": "4/4 content tokens in the context = 1.00 >= 0.70",
                "undecided": False,
                "role": "claim",
                "rule": "scorer:lexical",
                "steps": [],
                "passage": None,
            }
        ],
        "scorer": "lexical@1",
        "groundedness": 1.0,
        "confidence": 0.712346,
        "flags": {
            "wrong": False,
            "hallucination": False,
            "grounded_but_wrong": False,
            "review": False,
            "reasons": {},
            "causes": [],
            "unsupported_claim": False,
        },
    }
    data = r.to_json()
    assert {k: data[k] for k in expected} == expected
    assert {k: data["judgement"][k] for k in judgement} == judgement
    assert data["judgement"]["matching"] == {
        "mode": "raw",
        "raw": {"correct": True, "matched": "3 seats"},
        "token": {"correct": True, "matched": "3 seats"},
        "normalised": {"correct": True, "matched": "3 seats"},
        "reason": "the answer contains '3 seats' (case-insensitive containment)",
        "undecided": False,
        "rule": "M.raw",
        "steps": [
            {"rule": "M.raw", "outcome": "correct",
             "evidence": {"why": "the answer contains '3 seats' (case-insensitive containment)"}}
        ],
    }  # fmt: skip
    assert ResultRow.from_json(data) == r


def test_hallucinated_number_collapses_coverage_and_flags_hallucination() -> None:
    # context says "$36", answer says "$63": starter, costs, 63 → 2 of 3 → 0.666667 < 0.70
    r = row(PRICE, "Starter costs $63.")
    assert r.correct is False and r.matched is None
    assert r.sentences[0].coverage == 0.666667
    assert r.sentences[0].supported is False
    assert r.sentences[0].missing == ("63",)
    assert r.sentences[0].reason == "2/3 content tokens in the context = 0.67 < 0.70; missing: 63"
    assert r.groundedness == 0.666667
    assert r.confidence == 0.666667  # min(0.8, 0.666667)
    wrong = "the answer states none of the accepted strings ('$36') by the raw rule"
    assert r.flags == Flags(
        wrong=True,
        hallucination=True,
        grounded_but_wrong=False,
        review=True,
        reasons={
            "wrong": (wrong,),
            "hallucination": (
                "wrong",
                "1 sentence(s) judged unsupported; e.g. 'Starter costs $63.': "
                "2/3 content tokens in the context = 0.67 < 0.70; missing: 63",
            ),
            "review": (UNDER,),
            "unsupported_claim": (
                "'Starter costs $63.' (unsupported): 2/3 content tokens in the context = 0.67 < 0.70; missing: 63",
            ),
        },
        causes=("unsupported",),
        unsupported_claim=True,
    )
    assert r.matching.reason == wrong
    # the same sentence with the right number: 3 of 3 → 1.0, correct, nothing flagged
    ok = row(PRICE, "Starter costs $36.")
    assert ok.correct and ok.groundedness == 1.0 and ok.confidence == 0.8
    assert not any(ok.flags.fired(k) for k in FLAG_NAMES) and ok.flags.reasons == {}


def test_paraphrase_missed_by_containment_is_grounded_but_wrong() -> None:
    # documented limit: "three seats" does not contain "3 seats" → wrong.
    # content tokens: starter, includes, three, seats → "three" missing → 3 of 4 = 0.75 >= 0.70 → supported
    r = row(SEATS, "Starter includes three seats.")
    assert r.correct is False
    assert r.sentences[0].missing == ("three",)
    assert r.groundedness == 0.75
    assert r.flags.wrong and r.flags.grounded_but_wrong and not r.flags.hallucination
    assert r.flags.reasons["grounded_but_wrong"] == (
        "wrong",
        "every claiming sentence is supported by the context (groundedness 0.750): "
        "the context itself misled the model, or the wrong passage was retrieved",
    )
    assert r.confidence == 0.75 and not r.flags.review
    # the headline verdict is raw containment; the opt-in normalised verdict is recorded beside it
    assert r.matching.mode == "raw"
    assert (r.matching.raw.correct, r.matching.raw.matched) == (False, None)
    assert r.matching.normalised is not None and r.matching.normalised.correct is True


def test_normalised_matching_decides_when_asked() -> None:
    # the same answer with matching="normalised": "three seats" normalises to "3 seats" → correct, nothing flagged
    r = score_answer(
        "baseline", SEATS, [Retrieved(1, P1, 0.8)], "Starter includes three seats.", "x", scorer=SCORER,
        matching="normalised",
    )  # fmt: skip
    assert r.correct is True and r.matching.mode == "normalised"
    assert r.matching.raw.correct is False
    assert r.matching.reason == "the answer states '3 seats' after normalisation (number words, units, money)"
    assert not r.flags.wrong and not r.flags.grounded_but_wrong
    with pytest.raises(ValueError, match="matching must be one of"):
        score_answer("baseline", SEATS, [Retrieved(1, P1, 0.8)], "x", "x", scorer=SCORER, matching="fuzzy")


def test_refusal_on_no_answer_question() -> None:
    r = row(NO_ANSWER, "I don't know.", sim=0.61234)
    assert r.correct is True
    assert r.refused is True
    assert r.matched is None
    assert r.retrieval_hit is None  # no-answer question: no gold article to find
    assert r.retrieval_metrics is None
    assert r.gold_article is None and r.accept == () and r.evidence is None
    assert r.groundedness is None
    assert r.confidence == r.top_similarity == 0.61234
    assert [s.to_json() for s in r.sentences] == [
        {
            "text": "I don't know.",
            "coverage": None,
            "supported": None,
            "refusal": True,
            "tokens": ["know"],
            "missing": [],
            "span": None,
            "reason": "a decline, or a statement of what the context does not say: claims nothing",
            "undecided": False,
            "role": "decline",
            "rule": "role.decline",
            "steps": [],
            "passage": None,
        }
    ]
    assert r.flags == Flags(wrong=False, hallucination=False, grounded_but_wrong=False, review=False, reasons={})
    assert r.matching.reason == "a no-answer question, and the answer declines"
    assert r.matching.normalised is None


def test_low_similarity_refusal_goes_to_review_without_being_wrong() -> None:
    r = row(NO_ANSWER, "I don't know.", sim=0.3)
    assert r.correct and r.confidence == 0.3
    assert r.flags.review and review_reasons(r) == (conf("0.300"),)
    assert not r.flags.wrong


def test_attempted_answer_on_no_answer_question_is_wrong_hallucination() -> None:
    # "Nimbus sells a lifetime licence for $999." → nimbus, sells, lifetime, licence, 999 → only nimbus in context → 0.2
    r = row(NO_ANSWER, "Nimbus sells a lifetime licence for $999.")
    assert r.correct is False and r.refused is False
    assert r.groundedness == 0.2
    assert r.flags.hallucination and not r.flags.grounded_but_wrong
    assert r.flags.reasons["wrong"] == ("a no-answer question, and the answer does not decline",)


def test_refusal_on_answerable_question() -> None:
    r = row(SEATS, "I don't know.")
    assert r.correct is False and r.refused is True
    assert r.retrieval_hit is True
    assert r.groundedness is None
    assert r.confidence == r.top_similarity == 0.8
    assert r.flags.wrong is True
    assert r.flags.grounded_but_wrong is False
    assert r.flags.hallucination is False
    assert r.flags.reasons == {"wrong": ("the question is answerable, but the answer declines",)}


def test_grounded_but_wrong_from_legacy_article() -> None:
    # the 2024 article was retrieved; every claim is supported by it but the gold answer is $18.
    # content tokens: business, cost, 15, user, month → 5 of 5 in [P2] (CTX2) → 1.0
    r = row(BUSINESS, "Business cost $15 per user per month.", chunk=P2)
    assert r.retrieval_hit is False
    assert r.sentences[0].supported is True
    assert r.groundedness == 1.0
    assert r.correct is False
    assert r.flags.grounded_but_wrong is True
    assert r.flags.hallucination is False
    assert r.flags.review is False  # the no-gold signal cannot see this miss


@pytest.mark.parametrize(
    ("answer", "sim"),
    [
        ("Starter costs $63.", 0.8),  # unsupported sentence
        ("Starter costs $36.", 0.42),  # low confidence
        ("Starter costs $36.", 0.9),  # neither
        ("I don't know.", 0.45),  # refusal with low similarity
        ("Starter costs $63. Business is $99.", 0.3),  # both reasons
    ],
)
def test_review_queue_never_reads_gold(answer: str, sim: float) -> None:
    # same answer and context, different accept lists (so different correctness): same review flag and reasons
    a = row(PRICE, answer, sim=sim)
    b = row(GoldQuestion(PRICE.id, PRICE.question, "answerable", PRICE.article, ("$63",)), answer, sim=sim)
    c = row(GoldQuestion(PRICE.id, PRICE.question, "answerable", "refunds", ("nothing matches",)), answer, sim=sim)
    assert a.flags.review == b.flags.review == c.flags.review
    assert review_reasons(a) == review_reasons(b) == review_reasons(c)
    assert a.confidence == b.confidence == c.confidence


def test_review_queue_same_flag_when_correctness_flips() -> None:
    wrong = row(PRICE, "Starter costs $63.")
    right = row(GoldQuestion(PRICE.id, PRICE.question, "answerable", PRICE.article, ("$63",)), "Starter costs $63.")
    assert wrong.correct is False and right.correct is True
    assert wrong.flags.hallucination and not right.flags.hallucination
    assert wrong.flags.review is right.flags.review is True
    assert review_reasons(wrong) == review_reasons(right) == (UNDER,)


def test_low_confidence_triggers_review() -> None:
    # grounded (1.0) and correct, but top similarity 0.32 → confidence 0.32 < 0.35
    r = row(PRICE, "Starter costs $36.", sim=0.32)
    assert r.correct and r.groundedness == 1.0
    assert r.confidence == 0.32
    assert r.flags.review is True
    assert review_reasons(r) == (conf("0.320"),)
    assert not r.flags.wrong
    assert not row(PRICE, "Starter costs $36.", sim=0.42).flags.review


def test_confidence_is_min_of_similarity_and_groundedness() -> None:
    # groundedness 0.666667 < similarity 0.9 → confidence 0.666667
    assert row(PRICE, "Starter costs $63.", sim=0.9).confidence == 0.666667
    # groundedness 1.0 > similarity 0.55 → 0.55
    assert row(PRICE, "Starter costs $36.", sim=0.55).confidence == 0.55


def test_several_retrieved_chunks_and_hit_on_any_rank() -> None:
    retrieved = [Retrieved(1, P2, 0.9), Retrieved(2, P1, 0.7)]
    r = score_answer("candidate", SEATS, retrieved, "Starter includes 3 seats.", "x", scorer=SCORER, matching="raw")
    assert r.config == "candidate"
    assert [x.rank for x in r.retrieved] == [1, 2]
    assert [x.chunk_id for x in r.retrieved] == ["plans-and-pricing-2024#0", "plans-and-pricing-2026#2"]
    assert r.top_similarity == 0.9  # rank 1's similarity
    assert r.retrieval_hit is True  # gold article at rank 2
    assert r.retrieval_metrics is not None
    assert r.retrieval_metrics.gold_rank == 2 and r.retrieval_metrics.reciprocal_rank == 0.5
    assert r.retrieval_metrics.recall == {1: False, 3: True, 5: True, 10: True}
    # evidence "Starter includes 3 seats" is not located (no evidence spans given): evidence figures are n/a
    assert r.retrieval_metrics.evidence_hit is None and r.retrieval_metrics.evidence_rank is None


def test_evidence_spans_give_the_evidence_figures() -> None:
    # the evidence sits in P1 at body offsets [149, 173) (P1 starts at 100; "Starter includes 3 seats" at 49)
    start = 100 + P1_TEXT.index("Starter includes 3 seats")
    spans = [(start, start + len("Starter includes 3 seats"))]
    retrieved = [Retrieved(1, P2, 0.9), Retrieved(2, P1, 0.7)]
    r = score_answer(
        "candidate",
        SEATS,
        retrieved,
        "Starter includes 3 seats.",
        "x",
        scorer=SCORER,
        evidence_spans=spans,
        matching="raw",
    )
    m = r.retrieval_metrics
    assert m is not None
    assert (m.evidence_rank, m.evidence_reciprocal_rank, m.evidence_hit, m.evidence_coverage) == (2, 0.5, True, 1.0)
    assert m.evidence_recall == {1: False, 3: True, 5: True, 10: True}
    # only the top 1 went into the prompt, the ranking is longer: the evidence is ranked but not in the context
    r1 = score_answer(
        "candidate", SEATS, retrieved[:1], "Starter includes 3 seats.", "x", scorer=SCORER,
        ranking=retrieved, evidence_spans=spans, matching="raw",
    )  # fmt: skip
    m1 = r1.retrieval_metrics
    assert m1 is not None
    assert (m1.evidence_rank, m1.evidence_hit, m1.evidence_coverage) == (2, False, 0.0)
    assert m1.gold_rank == 2 and r1.retrieval_hit is False


def test_nothing_retrieved() -> None:
    r = score_answer("baseline", SEATS, [], "Starter includes 3 seats.", "x", scorer=SCORER, matching="raw")
    assert r.retrieved == () and r.top_similarity == 0.0
    assert r.retrieval_hit is False
    # empty context: 0 of 4 tokens → groundedness 0.0, correct by containment → not a hallucination
    assert r.groundedness == 0.0 and r.confidence == 0.0
    assert r.correct and not r.flags.hallucination
    assert review_reasons(r) == (UNDER, conf("0.000"))


def test_row_is_deterministic_and_json_safe() -> None:
    a = row(PRICE, "Starter costs $63. I think.", sim=0.123456789)
    b = row(PRICE, "Starter costs $63. I think.", sim=0.123456789)
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
    assert a.top_similarity == 0.123457
    assert ResultRow.from_json(json.loads(json.dumps(a.to_json()))) == a


def test_passage_labels_do_not_support_numbers() -> None:
    # regression: answers used to be scored against render_context(), whose "[1]".."[k]" labels made any
    # small number count as supported. Two passages; neither passage text contains the number 2.
    # "Starter has 2 seats." → starter, 2, seats → "2" missing → 2 of 3 → 0.667 < 0.70 → hallucination
    passages = [(P1.title, P1.text), (P2.title, P2.text)]
    assert "2" in content_tokens(render_context(passages))  # the label "[2]" the model sees...
    assert "2" not in content_tokens(context_text(passages))  # ...is not evidence
    retrieved = [Retrieved(1, P1, 0.8), Retrieved(2, P2, 0.7)]
    r = score_answer("baseline", SEATS, retrieved, "Starter has 2 seats.", "x", scorer=SCORER, matching="raw")
    assert r.correct is False
    assert r.sentences[0].missing == ("2",)
    assert r.sentences[0].coverage == 0.666667
    assert r.flags.hallucination is True

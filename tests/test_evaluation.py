"""Tests for evalgate_lib.judging.evaluation.score_answer: whole result rows for hand-made answers, no model."""

from __future__ import annotations

from typing import Any

import pytest

from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.inputs.prompts import context_text, render_context
from evalgate_lib.judging.evaluation import Retrieved, score_answer
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


def row(
    question: GoldQuestion, answer: str, sim: float = 0.8, chunk: Chunk = P1, context: str = CTX1
) -> dict[str, Any]:
    return score_answer("baseline", question, [Retrieved(1, chunk, sim)], context, answer, "sha")


def test_context_tokens_as_commented() -> None:
    assert content_tokens(CTX1) == {
        "nimbus", "plans", "starter", "costs", "36", "month", "annual", "billing",
        "includes", "3", "seats", "flat", "price",
    }  # fmt: skip
    assert content_tokens(CTX2) == {"legacy", "plans", "2024", "business", "cost", "15", "user", "month"}


def test_correct_grounded_answer_full_row() -> None:
    r = score_answer("baseline", SEATS, [Retrieved(1, P1, 0.712345678)], CTX1, "Starter includes 3 seats.", "abc")
    # content tokens: starter, includes, 3, seats → 4 of 4 → 1.0; confidence = min(0.712346, 1.0)
    # (the row may hold more keys than docs/DESIGN.md lists, e.g. retrieval_metrics and matching)
    expected = {
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
            }
        ],
        "top_similarity": 0.712346,
        "retrieval_hit": True,
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
            }
        ],
        "groundedness": 1.0,
        "confidence": 0.712346,
        "flags": {
            "wrong": False,
            "hallucination": False,
            "grounded_but_wrong": False,
            "review": False,
            "review_reasons": [],
        },
    }
    assert {k: r[k] for k in expected} == expected
    assert r["matching"]["mode"] == "raw"
    assert r["matching"]["raw"] == {"correct": True, "matched": "3 seats"}


def test_hallucinated_number_collapses_coverage_and_flags_hallucination() -> None:
    # context says "$36", answer says "$63": starter, costs, 63 → 2 of 3 → 0.666667 < 0.70
    r = row(PRICE, "Starter costs $63.")
    assert r["correct"] is False and r["matched"] is None
    assert r["sentences"][0]["coverage"] == 0.666667
    assert r["sentences"][0]["supported"] is False
    assert r["sentences"][0]["missing"] == ["63"]
    assert r["groundedness"] == 0.666667
    assert r["confidence"] == 0.666667  # min(0.8, 0.666667)
    assert r["flags"] == {
        "wrong": True,
        "hallucination": True,
        "grounded_but_wrong": False,
        "review": True,
        "review_reasons": ["1 sentence(s) under the coverage floor"],
    }
    # the same sentence with the right number: 3 of 3 → 1.0, correct, nothing flagged
    ok = row(PRICE, "Starter costs $36.")
    assert ok["correct"] and ok["groundedness"] == 1.0 and ok["confidence"] == 0.8
    assert not any(ok["flags"][k] for k in ("wrong", "hallucination", "grounded_but_wrong", "review"))


def test_paraphrase_missed_by_containment_is_grounded_but_wrong() -> None:
    # documented limit: "three seats" does not contain "3 seats" → wrong.
    # content tokens: starter, includes, three, seats → "three" missing → 3 of 4 = 0.75 >= 0.70 → supported
    r = row(SEATS, "Starter includes three seats.")
    assert r["correct"] is False
    assert r["sentences"][0]["missing"] == ["three"]
    assert r["groundedness"] == 0.75
    assert r["flags"]["wrong"] and r["flags"]["grounded_but_wrong"] and not r["flags"]["hallucination"]
    assert r["confidence"] == 0.75 and not r["flags"]["review"]
    # the headline verdict is raw containment; the opt-in normalised verdict is recorded beside it
    assert r["matching"]["mode"] == "raw"
    assert r["matching"]["raw"] == {"correct": False, "matched": None}
    assert r["matching"]["normalised"]["correct"] is True


def test_refusal_on_no_answer_question() -> None:
    r = row(NO_ANSWER, "I don't know.", sim=0.61234)
    assert r["correct"] is True
    assert r["refused"] is True
    assert r["matched"] is None
    assert r["retrieval_hit"] is None
    assert r["gold_article"] is None and r["accept"] == [] and r["evidence"] is None
    assert r["groundedness"] is None
    assert r["confidence"] == r["top_similarity"] == 0.61234
    assert r["sentences"] == [
        {
            "text": "I don't know.",
            "coverage": None,
            "supported": None,
            "refusal": True,
            "tokens": ["know"],
            "missing": [],
        }
    ]
    assert r["flags"] == {
        "wrong": False,
        "hallucination": False,
        "grounded_but_wrong": False,
        "review": False,
        "review_reasons": [],
    }


def test_low_similarity_refusal_goes_to_review_without_being_wrong() -> None:
    r = row(NO_ANSWER, "I don't know.", sim=0.3)
    assert r["correct"] and r["confidence"] == 0.3
    assert r["flags"]["review"] and r["flags"]["review_reasons"] == ["confidence 0.300 < 0.50"]
    assert not r["flags"]["wrong"]


def test_attempted_answer_on_no_answer_question_is_wrong_hallucination() -> None:
    # "Nimbus sells a lifetime licence for $999." → nimbus, sells, lifetime, licence, 999 → only nimbus in context → 0.2
    r = row(NO_ANSWER, "Nimbus sells a lifetime licence for $999.")
    assert r["correct"] is False and r["refused"] is False
    assert r["groundedness"] == 0.2
    assert r["flags"]["hallucination"] and not r["flags"]["grounded_but_wrong"]


def test_refusal_on_answerable_question() -> None:
    r = row(SEATS, "I don't know.")
    assert r["correct"] is False and r["refused"] is True
    assert r["retrieval_hit"] is True
    assert r["groundedness"] is None
    assert r["confidence"] == r["top_similarity"] == 0.8
    assert r["flags"]["wrong"] is True
    assert r["flags"]["grounded_but_wrong"] is False
    assert r["flags"]["hallucination"] is False


def test_grounded_but_wrong_from_legacy_article() -> None:
    # the 2024 article was retrieved; every claim is supported by it but the gold answer is $18.
    # content tokens: business, cost, 15, user, month → 5 of 5 in [P2] → 1.0
    r = row(BUSINESS, "Business cost $15 per user per month.", chunk=P2, context=CTX2)
    assert r["retrieval_hit"] is False
    assert r["sentences"][0]["supported"] is True
    assert r["groundedness"] == 1.0
    assert r["correct"] is False
    assert r["flags"]["grounded_but_wrong"] is True
    assert r["flags"]["hallucination"] is False
    assert r["flags"]["review"] is False  # the no-gold signal cannot see this miss


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
    assert a["flags"]["review"] == b["flags"]["review"] == c["flags"]["review"]
    assert a["flags"]["review_reasons"] == b["flags"]["review_reasons"] == c["flags"]["review_reasons"]
    assert a["confidence"] == b["confidence"] == c["confidence"]


def test_review_queue_same_flag_when_correctness_flips() -> None:
    wrong = row(PRICE, "Starter costs $63.")
    right = row(GoldQuestion(PRICE.id, PRICE.question, "answerable", PRICE.article, ("$63",)), "Starter costs $63.")
    assert wrong["correct"] is False and right["correct"] is True
    assert wrong["flags"]["hallucination"] and not right["flags"]["hallucination"]
    assert wrong["flags"]["review"] is right["flags"]["review"] is True
    assert wrong["flags"]["review_reasons"] == right["flags"]["review_reasons"]


def test_confidence_below_half_triggers_review() -> None:
    # grounded (1.0) and correct, but top similarity 0.42 → confidence 0.42 < 0.50
    r = row(PRICE, "Starter costs $36.", sim=0.42)
    assert r["correct"] and r["groundedness"] == 1.0
    assert r["confidence"] == 0.42
    assert r["flags"]["review"] is True
    assert r["flags"]["review_reasons"] == ["confidence 0.420 < 0.50"]
    assert not r["flags"]["wrong"]


def test_confidence_is_min_of_similarity_and_groundedness() -> None:
    # groundedness 0.666667 < similarity 0.9 → confidence 0.666667
    assert row(PRICE, "Starter costs $63.", sim=0.9)["confidence"] == 0.666667
    # groundedness 1.0 > similarity 0.55 → 0.55
    assert row(PRICE, "Starter costs $36.", sim=0.55)["confidence"] == 0.55


def test_several_retrieved_chunks_and_hit_on_any_rank() -> None:
    context = context_text([(P2.title, P2.text), (P1.title, P1.text)])
    retrieved = [Retrieved(1, P2, 0.9), Retrieved(2, P1, 0.7)]
    r = score_answer("candidate", SEATS, retrieved, context, "Starter includes 3 seats.", "x")
    assert r["config"] == "candidate"
    assert [x["rank"] for x in r["retrieved"]] == [1, 2]
    assert [x["chunk_id"] for x in r["retrieved"]] == ["plans-and-pricing-2024#0", "plans-and-pricing-2026#2"]
    assert r["top_similarity"] == 0.9  # rank 1's similarity
    assert r["retrieval_hit"] is True  # gold article at rank 2


def test_nothing_retrieved() -> None:
    r = score_answer("baseline", SEATS, [], "", "Starter includes 3 seats.", "x")
    assert r["retrieved"] == [] and r["top_similarity"] == 0.0
    assert r["retrieval_hit"] is False
    # empty context: 0 of 4 tokens → groundedness 0.0, correct by containment → not a hallucination
    assert r["groundedness"] == 0.0 and r["confidence"] == 0.0
    assert r["correct"] and not r["flags"]["hallucination"]
    assert r["flags"]["review_reasons"] == ["1 sentence(s) under the coverage floor", "confidence 0.000 < 0.50"]


def test_row_is_deterministic_and_json_safe() -> None:
    import json

    a = row(PRICE, "Starter costs $63. I think.", sim=0.123456789)
    b = row(PRICE, "Starter costs $63. I think.", sim=0.123456789)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["top_similarity"] == 0.123457


def test_passage_labels_do_not_support_numbers() -> None:
    # regression: answers used to be scored against render_context(), whose "[1]".."[k]" labels made any
    # small number count as supported. Two passages; neither passage text contains the number 2.
    # "Starter has 2 seats." → starter, 2, seats → "2" missing → 2 of 3 → 0.667 < 0.70 → hallucination
    passages = [(P1.title, P1.text), (P2.title, P2.text)]
    assert "2" in content_tokens(render_context(passages))  # the label "[2]" the model sees...
    assert "2" not in content_tokens(context_text(passages))  # ...is not evidence
    retrieved = [Retrieved(1, P1, 0.8), Retrieved(2, P2, 0.7)]
    r = score_answer("baseline", SEATS, retrieved, context_text(passages), "Starter has 2 seats.", "x")
    assert r["correct"] is False
    assert r["sentences"][0]["missing"] == ["2"]
    assert r["sentences"][0]["coverage"] == 0.666667
    assert r["flags"]["hallucination"] is True

"""Tests of the grounding rules, the raw correctness rule and decline reading, against hand-computed values."""

from __future__ import annotations

import pytest

from evalgate_lib.judging.correctness import declining, judge_correctness, matched_accept
from evalgate_lib.judging.grounding import COVERAGE_FLOOR, Groundedness, confidence, mean_support, sentence_coverage
from evalgate_lib.judging.reading import read_answer
from evalgate_lib.retrieval.metrics import first_relevant_rank, hit_at_k
from evalgate_lib.text.tokens import content_tokens

# content tokens: starter, costs, 36, month, annual, billing ("per", "with" are stopwords)
CONTEXT = "Starter costs $36 per month with annual billing."
CTX = content_tokens(CONTEXT)


def groundedness(answer: str, context: str) -> Groundedness:
    """Every sentence of ``answer`` as the one reading gives them, its claiming ones judged against ``context`` by
    the coverage rule (the ``lexical`` scorer), and their mean support."""
    from evalgate_lib.judging.answer import judge_answer

    verdict = judge_answer(question="", answer=answer, passages=[("", context)], scorer="lexical")
    return Groundedness(verdict.sentences, mean_support(verdict.sentences))


def test_context_tokens_as_commented() -> None:
    assert CTX == {"starter", "costs", "36", "month", "annual", "billing"}
    assert COVERAGE_FLOOR == 0.70


# --------------------------------------------------------------------------- retrieval hit


def retrieval_hit(retrieved_articles: list[str], gold_article: str) -> bool:
    # a row's retrieval_hit: the gold article is among the retrieved (top-k) chunks; the no-answer
    # case (None) is checked on whole rows in test_evaluation.py
    return hit_at_k(first_relevant_rank(retrieved_articles, gold_article), max(len(retrieved_articles), 1))


def test_retrieval_hit() -> None:
    assert retrieval_hit(["refunds", "plans-and-pricing-2026"], "plans-and-pricing-2026") is True
    assert retrieval_hit(["refunds", "plans-and-pricing-2024"], "plans-and-pricing-2026") is False
    assert retrieval_hit([], "refunds") is False


# --------------------------------------------------------------------------- refusal


def is_refusal(text: str) -> bool:
    """Whether the one reading of ``text`` holds a decline (role ``decline``)."""
    return any(s.declines for s in read_answer(text).sentences)


def refuses(answer: str, question: str) -> bool:
    """Whether the answer declines and gives no answer of its own to ``question`` (the one decline reading)."""
    return declining(read_answer(answer, question)).refused


def correctness(answer: str, answerable: bool, accept: list[str]):
    """The raw rule's verdict (EvalGate 0.1's containment), as a run with ``answer_matching = "raw"`` decides."""
    return judge_correctness(answer, "How much does it cost?", answerable, accept, "raw")


@pytest.mark.parametrize(
    "text",
    [
        "I don't know.",
        "I don\u2019t know.",  # curly apostrophe
        "I DO NOT KNOW",
        "i dont know",
        "Sorry, I cannot answer that from the context.",
        "I am unable to determine the price.",
        "The context does not mention a lifetime licence.",
        "This is not stated in the articles.",
        "There is not enough information.",
        "There is no information about that.",
        "No details are given.",
    ],
)
def test_is_refusal_true(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Starter costs $36.",
        "I know the answer: 3 seats.",
        "You can find it in the admin console.",
        "No, Nimbus is not FedRAMP authorized.",
        "",
    ],
)
def test_is_refusal_false(text: str) -> None:
    assert not is_refusal(text)


def test_a_decline_refuses_unless_the_answer_also_answers() -> None:
    q = "How much does Starter cost?"
    assert refuses("I don't know. Usually plans cost something.", q)  # background after a decline
    assert not refuses("I don't know the euro price, but Starter costs $36.", q)
    assert not refuses("Starter costs $36.", q)
    assert not refuses("", q)
    assert refuses("\n\nI don't know", q)  # leading blank lines are not a sentence


@pytest.mark.parametrize(
    "text",
    [
        "The Free plan does not include API access.",
        "Monthly billing is not available in the Enterprise plan.",
        "The Zoom integration does not provide transcripts.",
        "You cannot find deleted files after 30 days.",
    ],
)
def test_factual_negative_is_not_a_refusal(text: str) -> None:
    # regression: these used to match the refusal patterns and so escaped coverage scoring
    assert not is_refusal(text)


def test_factual_negative_is_scored_against_the_context() -> None:
    # "The Zoom integration does not provide transcripts." → zoom, integration, provide, transcripts
    # ("the", "does", "not" are stopwords); context has zoom, integration only → 2 of 4 = 0.5
    ctx = content_tokens("The Zoom integration copies cloud recordings into Nimbus.")
    s = sentence_coverage("The Zoom integration does not provide transcripts.", ctx)
    assert not is_refusal("The Zoom integration does not provide transcripts.")
    assert s.tokens == ("zoom", "integration", "provide", "transcripts")
    assert s.coverage == 0.5 and s.supported is False
    # as an answer to a no-answer question it is an attempt, hence wrong
    assert correctness("The Zoom integration does not provide transcripts.", False, []).verdict.correct is False


@pytest.mark.parametrize(
    "text",
    [
        "The context does not mention transcripts.",
        "The provided documents do not say.",
        "That is not covered in the articles.",
        "I cannot find the answer in the context.",
    ],
)
def test_negation_about_the_context_is_a_refusal(text: str) -> None:
    assert is_refusal(text)


# --------------------------------------------------------------------------- correctness

NONE_OF_3_SEATS = "the answer states none of the accepted strings ('3 seats') by the raw rule"


def test_matched_accept_case_insensitive_first_in_list_order() -> None:
    assert matched_accept("Business costs $18 PER USER.", ["$18 per user", "$18"]) == "$18 per user"
    assert matched_accept("Business costs $18.", ["$18 per user", "$18"]) == "$18"
    assert matched_accept("the OWNER can do it", ["Owner"]) == "Owner"
    assert matched_accept("Business costs $22.", ["$18"]) is None
    assert matched_accept("anything", []) is None


def test_paraphrase_is_missed_by_containment_documented_limit() -> None:
    # "three seats" does not contain "3 seats": the answer is right but scored wrong (documented limit)
    decision = correctness("The Starter plan includes three seats.", True, ["3 seats"])
    assert (decision.verdict.correct, decision.verdict.matched, decision.matching.reason) == (
        False, None, NONE_OF_3_SEATS
    )  # fmt: skip
    # and "1000 downloads" does not contain "1,000 downloads"
    assert not correctness("Up to 1000 downloads.", True, ["1,000 downloads"]).verdict.correct


def test_containment_accepts_superstring_documented_flaw() -> None:
    # "13 seats" contains "3 seats": raw containment's known flaw (the token and claim rules address it)
    assert correctness("Pro includes 13 seats.", True, ["3 seats"]).verdict.correct


def test_correctness_answerable() -> None:
    right = correctness("Starter includes 3 seats.", True, ["3 seats"])
    assert (right.verdict.correct, right.verdict.matched) == (True, "3 seats")
    assert right.matching.reason == "the answer contains '3 seats' (case-insensitive containment)"
    wrong = correctness("Starter includes 5 seats.", True, ["3 seats"])
    assert (wrong.verdict.correct, wrong.matching.reason) == (False, NONE_OF_3_SEATS)
    assert correctness("Business costs $22.", True, ["$18", "$18 per user"]).matching.reason == (
        "the answer states none of the accepted strings ('$18', '$18 per user') by the raw rule"
    )
    assert "(none)" in correctness("anything", True, []).matching.reason


def test_refusal_on_answerable_question_is_wrong() -> None:
    decision = correctness("I don't know.", True, ["3 seats"])
    assert (decision.verdict.correct, decision.verdict.refused) == (False, True)


def test_correctness_no_answer() -> None:
    declined = correctness("I don't know.", False, [])
    assert (declined.verdict.correct, declined.verdict.refused) == (True, True)
    assert declined.matching.reason == "a no-answer question, and the answer declines"
    # any attempted answer to a no-answer question is wrong
    for answer in ("Yes, a lifetime licence costs $999.", ""):
        attempted = correctness(answer, False, [])
        assert (attempted.verdict.correct, attempted.verdict.refused) == (False, False)
        assert attempted.matching.reason == "a no-answer question, and the answer does not decline"


# --------------------------------------------------------------------------- sentence coverage


def test_sentence_fully_covered() -> None:
    # content tokens: starter, costs, 36 → 3 of 3 in context → 1.0
    s = sentence_coverage("Starter costs $36.", CTX)
    assert s.tokens == ("starter", "costs", "36")
    assert s.missing == ()
    assert s.coverage == 1.0
    assert s.supported is True
    assert s.refusal is False
    assert s.reason == "3/3 content tokens in the context = 1.00 >= 0.70"


def test_hallucinated_number_collapses_coverage() -> None:
    # context says $36, answer says $63. content tokens: starter, costs, 63 → 2 of 3 → 0.667 < 0.70
    s = sentence_coverage("Starter costs $63.", CTX)
    assert s.missing == ("63",)
    assert s.coverage == pytest.approx(2 / 3)
    assert s.coverage < COVERAGE_FLOOR
    assert s.supported is False
    assert s.reason == "2/3 content tokens in the context = 0.67 < 0.70; missing: 63"


def test_two_missing_tokens() -> None:
    # content tokens: starter, plan, costs, 63, month → plan, 63 missing → 3 of 5 → 0.6
    s = sentence_coverage("The Starter plan costs $63 per month.", CTX)
    assert s.tokens == ("starter", "plan", "costs", "63", "month")
    assert s.missing == ("plan", "63")
    assert s.coverage == pytest.approx(0.6)
    assert s.supported is False
    assert s.reason == "3/5 content tokens in the context = 0.60 < 0.70; missing: plan, 63"


def test_wrong_number_in_long_sentence_stays_above_floor_documented_limit() -> None:
    # context tokens: starter, plan, costs, 36, month. Answer: starter, plan, costs, 63, month
    # → 4 of 5 = 0.8 >= 0.70: one wrong number in a 5-token sentence is NOT caught by coverage
    ctx = content_tokens("The Starter plan costs $36 per month.")
    s = sentence_coverage("The Starter plan costs $63 per month.", ctx)
    assert s.missing == ("63",)
    assert s.coverage == pytest.approx(0.8)
    assert s.supported is True


def test_coverage_exactly_at_floor_is_supported() -> None:
    # 10 content tokens, 7 in context → 7/10 = 0.70 → supported (>=)
    ctx = content_tokens("alpha beta gamma delta epsilon zeta eta")
    s = sentence_coverage("alpha beta gamma delta epsilon zeta eta theta iota kappa", ctx)
    assert s.missing == ("theta", "iota", "kappa")
    assert s.coverage == 0.7
    assert s.supported is True
    assert s.reason == "7/10 content tokens in the context = 0.70 >= 0.70"


def test_repeated_tokens_count_once() -> None:
    # content tokens (deduplicated): starter, 63 → 1 of 2 → 0.5
    s = sentence_coverage("Starter, starter: $63, $63!", CTX)
    assert s.tokens == ("starter", "63")
    assert s.coverage == 0.5


def test_number_normalisation_in_coverage() -> None:
    # "1,000" in context and "1000" in answer are the same token → 2 of 2
    ctx = content_tokens("Links allow 1,000 downloads.")
    assert sentence_coverage("1000 downloads.", ctx).coverage == 1.0


def test_stopword_only_sentence_claims_nothing() -> None:
    s = sentence_coverage("It is what it is.", CTX)
    assert s.tokens == () and s.coverage is None and s.supported is None and s.refusal is False
    assert s.reason == "no content words: claims nothing" and not s.claims


def test_a_declining_sentence_is_not_handed_to_the_scorer() -> None:
    # the reading gives "I don't know." the role decline: no scorer sees it, whatever its words
    from evalgate_lib.judging.answer import judge_answer

    verdict = judge_answer(question="Price?", answer="I don't know.", passages=[("p", CONTEXT)], scorer="lexical")
    (s,) = verdict.sentences
    assert (s.role, s.refusal, s.coverage, s.supported, s.claims) == ("decline", True, None, None, False)


# --------------------------------------------------------------------------- groundedness


def test_groundedness_is_mean_over_sentences() -> None:
    # context tokens: starter, costs, 36, month, business, 18, user
    # s1 "Starter costs $36." → 3/3 = 1.0; s2 "Business costs $99." → business, costs, 99 → 2/3
    # mean = (1 + 2/3) / 2 = 5/6 ≈ 0.8333; one sentence under the floor
    g = groundedness(
        "Starter costs $36. Business costs $99.", "Starter costs $36 per month. Business costs $18 per user."
    )
    assert [s.coverage for s in g.sentences] == [1.0, pytest.approx(2 / 3)]
    assert g.score == pytest.approx(5 / 6)
    assert g.unsupported == 1


def test_groundedness_skips_unscored_sentences_in_mean() -> None:
    # s1 refusal (None), s2 "Starter costs $36." 1.0, s3 "It is." (None) → mean over [1.0] = 1.0
    g = groundedness("I don't know. Starter costs $36. It is.", CONTEXT)
    assert [s.coverage for s in g.sentences] == [None, 1.0, None]
    assert g.score == 1.0
    assert g.unsupported == 0


def test_groundedness_none_for_refusal_and_empty_answer() -> None:
    assert groundedness("I don't know.", CONTEXT).score is None
    empty = groundedness("", CONTEXT)
    assert empty.sentences == () and empty.score is None and empty.unsupported == 0


def test_groundedness_against_empty_context() -> None:
    # nothing retrieved: every content token is missing → 0/2 = 0.0
    g = groundedness("Starter costs.", "")
    assert g.score == 0.0 and g.unsupported == 1


def test_groundedness_multiline_answer() -> None:
    # list items are sentences: "- Starter: $36" → starter, 36 → 1.0; "- Business: $99" → business, 99 → 0/2
    g = groundedness("- Starter: $36\n- Business: $99", CONTEXT)
    assert [s.coverage for s in g.sentences] == [1.0, 0.0]
    assert g.score == 0.5


# --------------------------------------------------------------------------- confidence


def test_confidence_is_min_of_similarity_and_groundedness() -> None:
    assert confidence(0.8, 0.6) == 0.6
    assert confidence(0.4, 0.9) == 0.4
    assert confidence(0.7, 1.0) == 0.7


def test_confidence_without_groundedness_is_top_similarity() -> None:
    assert confidence(0.61234, None) == 0.61234
    assert confidence(0.0, None) == 0.0

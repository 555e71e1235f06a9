"""The span scorer against hand-worked sentences: each failure kind of the 0.1 scorer (lexical), and each rule."""

from __future__ import annotations

import pytest
from evalgate_lib.judging.span_support import (
    SPAN_FLOOR,
    claim_part,
    exact_tokens,
    judge_span,
    passage_spans,
    stem,
    without_list_markers,
)

from evalgate_lib.judging.scorers import get_scorer
from evalgate_lib.judging.sentence_scorers import ScoringContext

PRICES = (
    "Plans and pricing (2026)",
    "## Prices\n\n"
    "The Business plan costs $11 per user per month, billed annually. A free trial lasts 30 days.\n"
    "Refund requests are answered within 14 days.\n\n"
    "| Plan | Seats |\n|---|---|\n| Business | 10 seats |\n| Starter | 3 seats |",
)
PIP = ("Caching", "Use `--no-cache-dir` to disable the cache. The cache lives in `~/.cache/pip` on Linux.")
CONTEXT = ScoringContext("How much does the Business plan cost?", (PRICES, PIP))


def judge(sentence: str):
    return judge_span(sentence, CONTEXT)


def test_one_wrong_number_in_a_long_sentence_is_unsupported() -> None:
    # The seed scorer gives 4/5 = 0.80 >= 0.70 (only "1.10" missing) and calls it supported.
    lexical = get_scorer("lexical").judge("The Business plan is $1.10 per user per month.", CONTEXT)
    assert lexical.supported is True and lexical.coverage == pytest.approx(0.8)
    verdict = judge("The Business plan is $1.10 per user per month.")
    assert verdict.supported is False
    assert verdict.missing[0] == "1.10"
    # words: business, plan, 1.10, user, month; the best span holds 4 of those 5 checked tokens
    assert verdict.coverage == pytest.approx(4 / 5)
    assert "1.10" in verdict.reason and verdict.span is not None and "$11" in verdict.span


def test_a_claim_assembled_from_two_places_is_unsupported() -> None:
    # "14" is the refund deadline, "free trial" another sentence's subject: the 0.1 scorer (lexical) says 1.0.
    lexical = get_scorer("lexical").judge("The free trial lasts 14 days.", CONTEXT)
    assert lexical.coverage == 1.0
    verdict = judge("The free trial lasts 14 days.")
    assert verdict.supported is False
    # the span holding 14 is the refund sentence: it holds "14" and "day" of free, trial, last, 14, day
    assert verdict.coverage == pytest.approx(2 / 5)
    assert "Refund requests" in (verdict.span or "")
    assert set(verdict.missing) == {"free", "trial", "last"}


def test_the_same_fact_from_its_own_sentence_is_supported() -> None:
    verdict = judge("The free trial lasts 30 days.")
    assert verdict.supported is True and verdict.coverage == 1.0
    assert verdict.span is not None and verdict.span.endswith("A free trial lasts 30 days.")


@pytest.mark.parametrize("sentence", ["The answer is:", "Answer:", "**Answer:**", "Question: How much is Business?"])
def test_sentences_that_claim_nothing(sentence: str) -> None:
    verdict = judge(sentence)
    assert verdict.supported is None and verdict.coverage is None
    assert "claims nothing" in verdict.reason


def test_a_refusal_claims_nothing() -> None:
    verdict = judge("I don't know.")
    assert verdict.supported is None and verdict.refusal


def test_an_echo_of_the_question_claims_nothing() -> None:
    assert claim_part("The Business plan costs", CONTEXT.question) == (None, "repeats the question: claims nothing new")


def test_a_leading_label_is_stripped_before_judging() -> None:
    claim, why = claim_part("Answer: Business includes 10 seats.", CONTEXT.question)
    assert claim == "Business includes 10 seats." and why == ""
    verdict = judge("Answer: Business includes 10 seats.")
    assert verdict.supported is True
    # the table row with its header: business, 10, seat held; "include" is not: 3/4 = 0.75 = the floor
    assert verdict.coverage == pytest.approx(3 / 4) == SPAN_FLOOR


def test_a_table_row_does_not_lend_its_number_to_another_row() -> None:
    verdict = judge("Starter includes 10 seats.")
    assert verdict.supported is False


def test_identifiers_must_match_exactly() -> None:
    assert judge("Use --no-cache-dir to disable the cache.").supported is True
    verdict = judge("Use --no-cache to disable the cache.")
    assert verdict.supported is False and "--no-cache" in verdict.missing


def test_verbatim_copy_is_supported() -> None:
    verdict = judge("The cache lives in `~/.cache/pip` on Linux.")
    assert verdict.supported is True and verdict.reason == "copied verbatim from the context"


def test_number_words_read_as_digits() -> None:
    assert judge("Starter includes three seats.").coverage == pytest.approx(3 / 4)
    assert exact_tokens("three seats") == frozenset({"3"})


def test_conflicting_list_of_values_is_unsupported() -> None:
    verdict = judge("1. 10 GB 2. 20 GB 3. 5 GB")
    assert verdict.supported is False
    assert {"20", "5"} <= set(verdict.missing)


def test_list_markers_are_not_numbers() -> None:
    assert without_list_markers("1. 10 GB 2. 20 GB") == "10 GB   20 GB"
    assert without_list_markers("The limit is 10. It resets.") == "The limit is 10. It resets."
    assert exact_tokens("2. Run pip install") == frozenset()


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [("includes", "include"), ("seats", "seat"), ("policies", "policy"), ("classes", "class"), ("boxes", "box"),
     ("running", "runn"), ("billed", "bill"), ("annually", "annual"), ("status", "status"), ("10", "10"), ("is", "is")],
)  # fmt: skip
def test_stem(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_passage_spans_carry_their_labels_but_not_neighbours() -> None:
    spans = passage_spans(0, *PRICES)
    texts = [s.text for s in spans]
    assert "Plans and pricing (2026)\n## Prices\nA free trial lasts 30 days." in texts
    assert "Plans and pricing (2026)\n## Prices\n| Plan | Seats |\n| Business | 10 seats |" in texts
    assert not any("30 days" in t and "14 days" in t for t in texts)


def test_registered_and_deterministic() -> None:
    scorer = get_scorer("span")
    assert (scorer.name, scorer.version) == ("span", "1")
    sentence = "The Business plan is $1.10 per user per month."
    assert scorer.judge(sentence, CONTEXT) == scorer.judge(sentence, CONTEXT)


TABLE = (
    "Version history",
    "| Plan | Version history |\n|---|---|\n| Free | 7 days |\n| Enterprise | 10 years |\n\n"
    "Files are never shared with other customers.",
)


def ask(question: str, sentence: str):
    return judge_span(sentence, ScoringContext(question, (TABLE,)))


def test_an_answer_fragment_is_read_as_the_answer_to_the_question() -> None:
    # "10 years" is in the Enterprise row: the fragment claims "version history on Enterprise is 10 years".
    assert ask("How long is version history kept on the Enterprise plan?", "10 years").supported is True
    verdict = ask("How long is version history kept on the Business plan?", "The answer is: 10 years")
    # the span holding "10 years" is the Enterprise row: it lacks the question's name "Business"
    assert verdict.supported is False and "business" in verdict.missing
    assert verdict.reason.startswith("an answer fragment: the span holding it")


def test_a_bare_number_that_belongs_to_another_fact_is_unsupported() -> None:
    assert ask("How long is version history kept on the Enterprise plan?", "7").supported is False


def test_an_answer_to_the_question_needs_the_question_names_in_its_span() -> None:
    verdict = ask("How long is version history kept on the Enterprise plan?", "The version history is kept for 7 days.")
    assert verdict.supported is False and "enterprise" in verdict.missing


def test_an_answer_needs_every_word_it_adds_to_the_question() -> None:
    verdict = ask(
        "How long is version history kept on the Enterprise plan?", "Version history on Enterprise is 10 extra years."
    )
    assert verdict.supported is False and "extra" in verdict.missing


def test_yes_and_no_are_claims() -> None:
    question = "Can Nimbus sync a folder on an external USB drive?"
    assert claim_part("Yes.", question) == ("Yes.", "")
    assert ask(question, "Yes.").supported is False  # nothing in the context is about USB drives
    verdict = ask(question, "No, Nimbus does not sync USB drives.")
    assert verdict.supported is False


def test_a_negative_claim_needs_a_negative_span() -> None:
    question = "Are files shared with other customers?"
    assert ask(question, "Files are never shared with other customers.").supported is True
    assert ask("Are files encrypted?", "Files are not encrypted.").supported is False


@pytest.mark.parametrize(
    "sentence", ["The answer to your question is:", "1. On Business and Enterprise:", "2. [4] Plans"]
)
def test_lead_ins_and_source_lines_claim_nothing(sentence: str) -> None:
    assert claim_part(sentence, "Which plans?")[0] is None


def test_a_number_the_title_holds_only_as_a_word_still_picks_its_span() -> None:
    # Title "Release v2.5": words release, v, 2.5; exact token v2.5 only (the name swallows the number).
    # The claim "2.5" (a fragment: exact 2.5, question word "release") is held as an exact token by the
    # second line alone, so that line is the span, although the title already gives the word 2.5.
    context = ScoringContext("Which release?", (("Release v2.5", "Ok.\nUpgrades ship in 2.5 now."),))
    verdict = judge_span("2.5", context)
    assert verdict.supported is True and verdict.coverage == 1.0
    assert verdict.span == "Release v2.5\nUpgrades ship in 2.5 now."


def test_a_tie_goes_to_the_first_span() -> None:
    # Both rows hold "10" and "seat" (2 words, 1 exact token) and are equally long: the first is the span.
    context = ScoringContext("How many seats?", (("Seats", "| A | 10 seats |\n| B | 10 seats |"),))
    verdict = judge_span("10 seats", context)
    assert verdict.span == "Seats\n| A | 10 seats |"

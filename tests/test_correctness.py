"""The matching rules that decide correctness, on hand-worked answers (each failure kind of the 0.1 rule (raw))."""

from __future__ import annotations

import pytest

from evalgate_lib.judging.correctness import (
    answer_part,
    bare_number_match,
    conflicting_values,
    decide_correctness,
    token_bounded_match,
    value_and_unit,
)


def decide(answer: str, accept: list[str], matching: str = "token"):
    return decide_correctness(answer, True, accept, matching)


def test_raw_containment_passes_3_seats_inside_13_seats_token_does_not() -> None:
    decision = decide("Pro includes 13 seats.", ["3 seats"])
    assert decision.matching.raw.correct is True  # the 0.1 rule (raw)'s flaw, still recorded
    assert decision.matching.token is not None and decision.matching.token.correct is False
    assert decision.verdict.correct is False
    assert decision.matching.mode == "token"


def test_raw_mode_keeps_the_seed_rule() -> None:
    decision = decide("Pro includes 13 seats.", ["3 seats"], matching="raw")
    assert decision.verdict.correct is True
    assert decision.verdict.reason == "the answer contains the accepted string '3 seats'"


@pytest.mark.parametrize(
    ("answer", "accept", "expected"),
    [
        ("Starter includes 3 seats.", ["3 seats"], "3 seats"),
        ("STARTER INCLUDES 3 SEATS", ["3 seats"], "3 seats"),
        ("It costs $100.", ["$10"], None),  # "$10" glued to another digit
        ("It costs $10.", ["$10"], "$10"),
        ("Version 10.5 is out.", ["10"], None),  # a decimal continues the number
        ("Use --no-cache-dir.", ["--no-cache-dir"], "--no-cache-dir"),
        ("Use --no-cache-dirs.", ["--no-cache-dir"], None),
        ("the certificate bundle", ["certifi"], None),
        ("the certifi bundle", ["certifi"], "certifi"),
        ("anything", [""], None),
    ],
)
def test_token_bounded_match(answer: str, accept: list[str], expected: str | None) -> None:
    assert token_bounded_match(answer, accept) == expected


def test_several_conflicting_values_are_wrong() -> None:
    decision = decide("1. 10 GB 2. 20 GB 3. 5 GB", ["10 GB"])
    assert decision.matching.raw.correct is True and decision.matching.token.correct is True
    assert decision.verdict.correct is False
    assert decision.verdict.reason == (
        "the answer gives '10 GB' but also 20 gb, 5 gb for the same quantity (conflicting values)"
    )


def test_conflicting_values_reads_units_alike() -> None:
    assert conflicting_values("Either 10 gigabytes or 20GB.", "10 GB") == ("20 gb",)
    assert conflicting_values("It is 10 GB, that is 10 gigabytes.", "10 GB") == ()
    assert conflicting_values("Business has 10 seats.", "$10") == ()  # "$10" has no unit


def test_a_bare_number_whose_accept_carries_a_unit_is_correct() -> None:
    decision = decide("The maximum number of seats is 10.", ["10 seats"])
    assert decision.matching.raw.correct is False
    assert decision.verdict.correct is True and decision.verdict.matched == "10 seats"
    assert decision.verdict.reason == "the answer's first sentence states the number of '10 seats' without its unit"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The maximum is 10.", "10 seats"),
        ("10", "10 seats"),
        ("It is 10, as the table says.", "10 seats"),
        ("The maximum is 10 users.", None),  # another unit
        ("The maximum is 110.", None),
        ("The maximum is 1.10.", None),
        ("Seats are listed. The maximum is 10.", None),  # not in the first sentence
    ],
)
def test_bare_number_match(answer: str, expected: str | None) -> None:
    assert bare_number_match(answer, ["10 seats"]) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The maximum number of events in a single export is 100,000.", "100,000 events"),  # separators read
        ("It is 100000.", "100,000 events"),
        ("It is 100,0000.", None),  # not a thousands separator: 100 then 0000
        ("It is 1,000,000.", None),  # another number
    ],
)
def test_bare_number_match_reads_thousands_separators(answer: str, expected: str | None) -> None:
    assert bare_number_match(answer, ["100,000 events"]) == expected


def test_value_and_unit() -> None:
    assert value_and_unit("10 GB") == ("10", "gb")
    assert value_and_unit("3 seats") == ("3", "seat")
    assert value_and_unit("30 days") == ("30", "day")
    assert value_and_unit("$12") is None
    assert value_and_unit("Owner") is None


def test_the_answer_ends_where_the_model_starts_a_new_question() -> None:
    answer = "The trial lasts 30 days.\nQuestion: How long is the refund window?\nAnswer: 14 days"
    assert answer_part(answer) == "The trial lasts 30 days.\n"
    decision = decide(answer, ["14 days"])
    assert decision.matching.raw.correct is True  # raw reads the run-on too
    assert decision.verdict.correct is False
    assert answer_part("Question: what? It is 3.") == "Question: what? It is 3."  # nothing before it


def test_no_answer_questions_need_a_refusal() -> None:
    refused = decide_correctness("I don't know.", False, [], "token")
    assert refused.verdict.correct is True and refused.matching.token is None
    assert decide_correctness("Yes, it does.", False, [], "token").verdict.correct is False


def test_a_refusal_on_an_answerable_question() -> None:
    decision = decide("I don't know.", ["3 seats"])
    assert decision.verdict.correct is False and decision.verdict.refused is True
    assert decision.verdict.reason == "the question is answerable, but the answer is a refusal"


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="matching must be one of"):
        decide("x", ["x"], matching="fuzzy")

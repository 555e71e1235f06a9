"""Tests for answer-text normalisation and the ``normalised`` matching rule built on it."""

from __future__ import annotations

import pytest

from evalgate_lib.judging.correctness import matched_accept, normalised_match
from evalgate_lib.judging.normalise import normalise_text


def match_answer(answer: str, accept: list[str], normalise: bool) -> str | None:
    """The ``normalised`` rule's match (or, ``normalise=False``, the ``raw`` rule's), as the rows record it."""
    return normalised_match(answer, accept) if normalise else matched_accept(answer, accept)


def test_number_word_answer_raw_miss_normalised_hit() -> None:
    assert match_answer("The Starter plan includes three seats.", ["3 seats"], normalise=False) is None
    assert match_answer("The Starter plan includes three seats.", ["3 seats"], normalise=True) == "3 seats"


def test_price_with_cents_matches_whole_dollars() -> None:
    assert match_answer("It costs $12.00 per user per month.", ["$12"], normalise=True)
    assert normalise_text("$12.00 per user") == "$12 per user"
    # Raw containment already matches here ("$12" is a substring of "$12.00").
    assert match_answer("$12.00 per user", ["$12"], normalise=False)


def test_glued_unit_matches_spaced_unit() -> None:
    assert normalise_text("5GB") == normalise_text("5 GB") == "5 gb"
    assert not match_answer("You get 5GB of storage.", ["5 GB"], normalise=False)
    assert match_answer("You get 5GB of storage.", ["5 GB"], normalise=True) == "5 GB"


def test_token_boundaries_prevent_partial_number_matches() -> None:
    assert match_answer("Pro includes 13 seats.", ["3 seats"], normalise=False)  # the raw rule's flaw
    assert not match_answer("Pro includes 13 seats.", ["3 seats"], normalise=True)
    assert not match_answer("Pro includes thirteen seats.", ["3 seats"], normalise=True)
    assert not match_answer("3.5 seats", ["5 seats"], normalise=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("twenty-five", "25"),
        ("Twenty\u2011Five", "25"),  # non-breaking hyphen
        ("twenty five", "25"),
        ("one hundred", "100"),
        ("one hundred and five", "105"),
        ("two thousand five hundred", "2500"),
        ("a thousand users", "a 1000 user"),
        ("ninety", "90"),
        ("zero", "0"),
        ("one, two, three", "1 2 3"),  # separate numbers are not summed
        ("1,000 users", "1000 user"),
        ("$12.00", "$12"),
        ("5.0 TB", "5 tb"),
        ("2.50 GB", "2.50 gb"),  # only an all-zero fraction is dropped
        ("version 1.0.3", "version 1.0.3"),
        ("It costs $12.00.", "it costs $12"),
        ("$12/user", "$12 per user"),
        ("twelve dollars", "$12"),
        ("20 percent", "20%"),
        ("20 per cent", "20%"),
        ("20 %", "20%"),
        ("30 Days", "30 day"),
        ("1 day", "1 day"),
        ("24 hrs", "24 hour"),
        ("24h", "24 hour"),
        ("90 mins", "90 minute"),
        ("30 secs", "30 second"),
        ("2 gigabytes", "2 gb"),
        ("1 terabyte", "1 tb"),
        ("500 MB", "500 mb"),
        ("10 Users", "10 user"),
        ("min 5 users", "min 5 user"),  # "min" is only a unit after a number
        ("the 1st plan", "the 1st plan"),
        ("\u201cUnlimited\u201d \u2014 really", "unlimited really"),
        ("\uff15\uff27\uff22", "5 gb"),  # full-width, NFKC
        ("  many   spaces\n\there ", "many spaces here"),
        ("users' seats", "users seats"),  # only the word counted after a number is read singular
        ("seventy days", "70 day"),
        ("eighty", "80"),
    ],
)
def test_normalise_text_rules(text: str, expected: str) -> None:
    assert normalise_text(text) == expected


def test_first_matching_accept_string_wins_and_is_reported_verbatim() -> None:
    assert match_answer("Refunds take five days.", ["1 week", "5 Days", "five days"], normalise=True) == "5 Days"
    assert match_answer("Five business days.", ["5 business days", "five"], normalise=False) == "five"


def test_raw_mode_is_case_insensitive_containment() -> None:
    assert match_answer("SSO is on the ENTERPRISE plan", ["enterprise plan"], normalise=False)
    assert match_answer("enterprise-grade", ["enterprise"], normalise=False)  # no boundaries


def test_empty_accept_never_matches() -> None:
    assert match_answer("anything", [], normalise=False) is None
    assert not match_answer("anything", [""], normalise=False)
    assert not match_answer("anything", ["!!"], normalise=True)


def test_dollar_is_a_left_boundary() -> None:
    assert match_answer("It is $12 a month", ["12"], normalise=True)
    assert not match_answer("It is 20% off", ["20"], normalise=True)


def test_normalised_text_folds_case_and_drops_what_a_reader_does_not_see() -> None:
    """Issue 56: rule 1 case folds (``Straße`` = ``STRASSE``) and drops soft hyphens and zero-width characters."""
    assert normalise_text("HAUPTSTRASSE 5") == normalise_text("Hauptstraße 5") == "hauptstrasse 5"
    assert normalise_text("twelve wid\u00adgets") == normalise_text("12 WID\u200dGETS") == "12 widget"

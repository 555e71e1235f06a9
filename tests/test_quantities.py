"""Quantities: a number is read with its unit of measure in claims, spans and questions (hand-made cases)."""

from __future__ import annotations

import pytest
from evalgate_lib.judging.prose_support import judge_prose
from evalgate_lib.judging.quantities import asked_unit, read_quantities, unheld_quantity

from evalgate_lib.judging.sentence_scorers import ScoringContext


def test_read_quantities_units_ranges_money_percent_and_bare_numbers() -> None:
    quantities, bare, numbers = read_quantities("Retention: 30 to 365 days (default 90 days). Costs $18, 95% uptime.")
    assert quantities == {("30", "day"), ("365", "day"), ("90", "day"), ("18", "$"), ("95", "%")}
    assert bare == set() and numbers == {"30", "365", "90", "18", "95"}
    # a table cell or a sentence's last number is bare; "10 wrong password attempts" is a count, not a quantity
    quantities, bare, _ = read_quantities("| Enterprise | 10 | 5 |\nAfter 10 wrong password attempts it locks.")
    assert quantities == frozenset() and bare == {"10", "5"}
    # spellings read through normalisation: "ten business days", "256K", "€10"
    assert read_quantities("ten business days")[0] == {("10", "day")}
    assert read_quantities("a 256K buffer")[0] == {("256", "kb")}
    assert read_quantities("costs €10 a month")[0] == {("10", "euro")}


@pytest.mark.parametrize(
    ("claim", "span", "expected"),
    [
        # the number is there, with another unit or as a count: the quantity is not
        ("It is locked for 10 days.", "After 10 wrong password attempts, it is locked for 60 minutes.",
         "10 day (the span gives 10 for something else)"),
        ("The limit is 2 weeks.", "Most problems are solved within 2 business days.",
         "2 week (the span gives 2 as 2 day)"),
        ("Starter costs 10 euros per month.", "Each seat costs $10 per month.", "10 euro (the span gives 10 as $10)"),
        # held: the same quantity, a bare cell under a header, a range's end, or a number the span lacks
        ("Trials last 14 days.", "New workspaces get a 14-day trial.", None),
        ("Retention is 30 days.", "| Retention (days) |\n| 30 |", None),
        ("You can keep items up to 365 days.", "Set from 30 to 365 days.", None),
        ("It takes 5 hours.", "It takes a while.", None),
        # a number in words binds nothing: "(one year)" beside "1 and 365 days"
        ("The longest is 365 days (one year).", "between 1 and 365 days", None),
    ],
)  # fmt: skip
def test_unheld_quantity(claim: str, span: str, expected: str | None) -> None:
    assert unheld_quantity(claim, span) == expected


def test_asked_unit() -> None:
    assert asked_unit("How much does the Starter plan cost per month in euros?") == "euro"
    assert asked_unit("How many days does the trial last?") == "day"
    assert asked_unit("What is the price in US dollars?") == "$"
    assert asked_unit("How many seats does Starter include?") is None
    assert asked_unit("How long is the trial?") is None


def test_a_number_without_its_unit_is_an_unsupported_claim() -> None:
    context = ScoringContext(
        question="How long is a shared link locked after too many wrong password attempts?",
        passages=(("Sharing", "After 10 wrong password attempts in one hour, the link is locked for 60 minutes."),),
    )
    verdict = judge_prose("A shared link is locked for 10 days after 10 wrong password attempts.", context)
    assert verdict.supported is False and verdict.undecided is False
    assert "a number without its unit: 10 day (the span gives 10 for something else)" in verdict.reason
    held = judge_prose("A shared link is locked for 60 minutes after 10 wrong password attempts.", context)
    assert held.supported is True

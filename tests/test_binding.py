"""Which of two values in one table row a claim's words bind (hand-made rows)."""

from __future__ import annotations

from evalgate_lib.judging.binding import bound_value
from evalgate_lib.judging.prose_support import _values, judge_prose, prose_terms

from evalgate_lib.judging.sentence_scorers import ScoringContext

ROW = (
    "Plan overview (2024)\nPlan | Annual billing | Monthly billing | Seats\n"
    "Business | $15 per user per month | $18 per user per month | minimum 3"
)


def words(text: str) -> frozenset[str]:
    return prose_terms(text)[0]


def test_the_column_the_claim_names_binds_its_value() -> None:
    annual = "Business was $18 per user per month with annual billing."
    assert bound_value(annual, ROW, ("18", "$"), ("15", "$"), words, _values) == "rival"  # $18 is monthly
    row = "Plan | Yearly | Monthly\nBusiness | $15 a seat | $18 a seat"
    assert (
        bound_value("Business costs $18 a seat, paid monthly.", row, ("18", "$"), ("15", "$"), words, _values) == "own"
    )
    # "monthly" is also how the cells write their value ("per month"): that word names no column
    monthly = "Business was $18 per user per month with monthly billing."
    assert bound_value(monthly, ROW, ("18", "$"), ("15", "$"), words, _values) is None
    # naming no column binds nothing; neither does prose, whose sentences refer back to each other
    assert bound_value("Business was $18 per user per month.", ROW, ("18", "$"), ("15", "$"), words, _values) is None
    prose = "By default the app uses up to 5 GB.\nYou can raise this to up to 50 GB."
    assert bound_value("The app can use up to 50 GB.", prose, ("50", "gb"), ("5", "gb"), words, _values) is None


def test_a_value_from_another_column_is_an_unsupported_claim() -> None:
    table = "| Plan | Annual billing | Monthly billing |\n|---|---|---|\n| Business | $15 per user | $18 per user |"
    context = ScoringContext(question="What did Business cost with annual billing?", passages=(("Plans", table),))
    verdict = judge_prose("Business cost $18 per user with annual billing.", context)
    assert verdict.supported is False and "stand by $15" in verdict.reason, verdict.reason
    assert judge_prose("Business cost $15 per user with annual billing.", context).supported is True

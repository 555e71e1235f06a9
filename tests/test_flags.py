"""Tests for evalgate_lib.judging.flags: hallucination, grounded-but-wrong and the no-gold review queue."""

from __future__ import annotations

import inspect

import pytest

from evalgate_lib.judging.flags import FLAG_NAMES, REVIEW_CONFIDENCE, Flags, flag_answer, review_reasons
from evalgate_lib.judging.scoring import groundedness

# content tokens: starter, costs, 36, month, annual, billing
CONTEXT = "Starter costs $36 per month with annual billing."
SUPPORTED = groundedness("Starter costs $36.", CONTEXT)  # 3/3 = 1.0
UNSUPPORTED = groundedness("Starter costs $63.", CONTEXT)  # starter, costs, 63 → 2/3 < 0.70
NOTHING = groundedness("I don't know.", CONTEXT)  # refusal → score None
UNDER = "1 sentence(s) under the coverage floor"


def test_fixtures_as_commented() -> None:
    assert SUPPORTED.score == 1.0 and SUPPORTED.unsupported == 0
    assert UNSUPPORTED.score == pytest.approx(2 / 3) and UNSUPPORTED.unsupported == 1
    assert NOTHING.score is None and NOTHING.unsupported == 0
    assert REVIEW_CONFIDENCE == 0.50
    assert FLAG_NAMES == ("wrong", "hallucination", "grounded_but_wrong", "review")


def test_correct_and_grounded_raises_nothing() -> None:
    assert flag_answer(True, SUPPORTED, 0.8) == Flags(False, False, False, False, ())


def test_wrong_and_unsupported_is_hallucination() -> None:
    flags = flag_answer(False, UNSUPPORTED, 0.8)
    assert flags == Flags(
        wrong=True, hallucination=True, grounded_but_wrong=False, review=True, review_reasons=(UNDER,)
    )


def test_correct_but_unsupported_is_not_hallucination_but_is_reviewed() -> None:
    flags = flag_answer(True, UNSUPPORTED, 0.8)
    assert flags == Flags(
        wrong=False, hallucination=False, grounded_but_wrong=False, review=True, review_reasons=(UNDER,)
    )


def test_grounded_but_wrong() -> None:
    # every sentence passes the floor, the answer is still wrong
    flags = flag_answer(False, SUPPORTED, 0.8)
    assert flags == Flags(wrong=True, hallucination=False, grounded_but_wrong=True, review=False)


def test_wrong_refusal_is_neither_hallucination_nor_grounded_but_wrong() -> None:
    flags = flag_answer(False, NOTHING, 0.8)
    assert flags == Flags(wrong=True, hallucination=False, grounded_but_wrong=False, review=False)


def test_correct_refusal_raises_nothing() -> None:
    assert flag_answer(True, NOTHING, 0.61234) == Flags(False, False, False, False)


def test_low_confidence_triggers_review() -> None:
    assert review_reasons(SUPPORTED, 0.49) == ("confidence 0.490 < 0.50",)
    assert review_reasons(SUPPORTED, 0.0) == ("confidence 0.000 < 0.50",)
    flags = flag_answer(True, SUPPORTED, 0.42)
    assert flags.review and flags.review_reasons == ("confidence 0.420 < 0.50",)
    assert not flags.wrong


def test_confidence_at_threshold_does_not_trigger_review() -> None:
    assert review_reasons(SUPPORTED, 0.50) == ()
    assert not flag_answer(True, SUPPORTED, 0.50).review


def test_both_review_reasons_in_order() -> None:
    assert review_reasons(UNSUPPORTED, 0.3) == (UNDER, "confidence 0.300 < 0.50")


def test_review_counts_unsupported_sentences() -> None:
    # "Starter costs $63." 2/3, "Business costs $99." business ✗ costs ✓ 99 ✗ → 1/3: two under the floor
    g = groundedness("Starter costs $63. Business costs $99.", CONTEXT)
    assert g.unsupported == 2
    assert review_reasons(g, 0.9) == ("2 sentence(s) under the coverage floor",)


def test_review_never_reads_gold() -> None:
    # the review rule's only inputs are groundedness and confidence; flipping correctness changes
    # wrong/hallucination/grounded_but_wrong but never review or its reasons
    assert list(inspect.signature(review_reasons).parameters) == ["grounded", "confidence"]
    for grounded in (SUPPORTED, UNSUPPORTED, NOTHING):
        for conf in (0.2, 0.5, 0.9):
            right, wrong = flag_answer(True, grounded, conf), flag_answer(False, grounded, conf)
            assert right.review == wrong.review
            assert right.review_reasons == wrong.review_reasons == review_reasons(grounded, conf)


def test_as_dict() -> None:
    flags = flag_answer(False, UNSUPPORTED, 0.3)
    assert flags.as_dict() == {
        "wrong": True,
        "hallucination": True,
        "grounded_but_wrong": False,
        "review": True,
        "review_reasons": [UNDER, "confidence 0.300 < 0.50"],
    }
    assert list(flags.as_dict())[:4] == list(FLAG_NAMES)


def test_review_reason_text_is_not_self_contradictory() -> None:
    # regression: 0.4996 used to print as "confidence 0.50 < 0.50"; it is now rounded down to 3 places
    assert review_reasons(SUPPORTED, 0.4996) == ("confidence 0.499 < 0.50",)
    assert review_reasons(SUPPORTED, 0.499999) == ("confidence 0.499 < 0.50",)
    assert review_reasons(SUPPORTED, 0.285) == ("confidence 0.285 < 0.50",)

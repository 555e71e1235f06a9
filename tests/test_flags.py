"""Tests for evalgate_lib.judging.flags: hallucination, grounded-but-wrong and the no-gold review queue."""

from __future__ import annotations

import inspect

import pytest

from evalgate_lib.judging.correctness import Correctness
from evalgate_lib.judging.flags import REVIEW_CONFIDENCE, flag_answer, review_causes, review_priority
from evalgate_lib.judging.grounding import Groundedness, mean_support, sentence_coverage
from evalgate_lib.judging.rows import FLAG_NAMES, Flags, SentenceVerdict
from evalgate_lib.judging.rules import Step
from evalgate_lib.text.tokens import content_tokens, sentences_of

# content tokens: starter, costs, 36, month, annual, billing
CONTEXT = "Starter costs $36 per month with annual billing."


def groundedness(answer: str, context: str = CONTEXT) -> Groundedness:
    tokens = content_tokens(context)
    sentences = tuple(
        SentenceVerdict(s, (), (), None, None, refusal=True, role="decline") if s == "I don't know." else
        sentence_coverage(s, tokens) for s in sentences_of(answer)
    )  # fmt: skip
    return Groundedness(sentences, mean_support(sentences))


def review_reasons(grounded: Groundedness, confidence: float, by_doubt: bool = False) -> tuple[str, ...]:
    return tuple(why for _, why in review_causes(grounded, confidence, by_doubt=by_doubt))


SUPPORTED = groundedness("Starter costs $36.")  # 3/3 = 1.0
UNSUPPORTED = groundedness("Starter costs $63.")  # starter, costs, 63 → 2/3 < 0.70
NOTHING = groundedness("I don't know.")  # refusal → score None
UNDER = "1 sentence(s) judged unsupported by the context"
WHY_CONFIDENCE = " (confidence = min(top similarity, groundedness))"

RIGHT = Correctness(True, False, "$36", "C.stated", (Step("C.stated", "correct", None, {"matched": "$36"}),))
WRONG_REASON = "the answer states none of the accepted strings ('$36') outside a decline"
WRONG = Correctness(False, False, None, "C.none", (Step("C.none", "wrong", None, {"accept": "'$36'"}),))
HALLUCINATION = (
    "wrong",
    "1 sentence(s) judged unsupported; e.g. 'Starter costs $63.': "
    "2/3 content tokens in the context = 0.67 < 0.70; missing: 63",
)
#: The unsupported-claim flag's reasons: each unsupported sentence, its verdict in words and the judge's reason.
UNSUPPORTED_CLAIM = (
    "'Starter costs $63.' (unsupported): 2/3 content tokens in the context = 0.67 < 0.70; missing: 63",
)
GROUNDED_BUT_WRONG = (
    "wrong",
    "every claiming sentence is supported by the context (groundedness 1.000): "
    "the context itself misled the model, or the wrong passage was retrieved",
)


def conf(text: str) -> str:
    return f"confidence {text} < 0.35{WHY_CONFIDENCE}"


def test_fixtures_as_commented() -> None:
    assert SUPPORTED.score == 1.0 and SUPPORTED.unsupported == 0
    assert UNSUPPORTED.score == pytest.approx(2 / 3) and UNSUPPORTED.unsupported == 1
    assert NOTHING.score is None and NOTHING.unsupported == 0
    assert REVIEW_CONFIDENCE == 0.35
    assert FLAG_NAMES == ("wrong", "hallucination", "grounded_but_wrong", "review", "unsupported_claim")


def test_correct_and_grounded_raises_nothing() -> None:
    assert flag_answer(RIGHT, SUPPORTED, 0.8) == Flags(False, False, False, False, {}, ())


def test_wrong_and_unsupported_is_hallucination() -> None:
    flags = flag_answer(WRONG, UNSUPPORTED, 0.8)
    assert flags == Flags(
        wrong=True,
        hallucination=True,
        grounded_but_wrong=False,
        review=True,
        reasons={
            "wrong": (WRONG_REASON,),
            "hallucination": HALLUCINATION,
            "review": (UNDER,),
            "unsupported_claim": UNSUPPORTED_CLAIM,
        },
        causes=("unsupported",),
        unsupported_claim=True,
    )


def test_correct_but_unsupported_is_not_hallucination_but_is_reviewed() -> None:
    """Issue 53: a right answer with a claim the passages do not make carries the unsupported-claim flag."""
    flags = flag_answer(RIGHT, UNSUPPORTED, 0.8)
    assert flags == Flags(
        wrong=False,
        hallucination=False,
        grounded_but_wrong=False,
        review=True,
        reasons={"review": (UNDER,), "unsupported_claim": UNSUPPORTED_CLAIM},
        causes=("unsupported",),
        unsupported_claim=True,
    )


def test_unsupported_claim_names_every_unsupported_sentence_with_its_outcome() -> None:
    """Its reasons list each unsupported sentence, an undecided one leaning unsupported said so; a supported
    one and a leaning-supported one are not listed, and the flag reads no gold (right or wrong alike)."""
    solid = SentenceVerdict("Starter is $36.", (), (), 1.0, True, reason="held")
    leaning_no = SentenceVerdict("It has 9 seats.", (), (), 0.5, False, reason="near miss", undecided=True)
    leaning_yes = SentenceVerdict("It renews yearly.", (), (), 0.6, True, reason="close", undecided=True)
    plain_no = SentenceVerdict("It includes SSO.", (), (), 0.2, False, reason="no span holds 'SSO'")
    grounded = Groundedness((solid, leaning_no, leaning_yes, plain_no), 0.575)
    for verdict in (RIGHT, WRONG):
        flags = flag_answer(verdict, grounded, 0.9)
        assert flags.unsupported_claim is True
        assert flags.reasons["unsupported_claim"] == (
            "'It has 9 seats.' (undecided, leaning unsupported): near miss",
            "'It includes SSO.' (unsupported): no span holds 'SSO'",
        )
    only_leaning_yes = flag_answer(RIGHT, Groundedness((solid, leaning_yes), 0.8), 0.9)
    assert only_leaning_yes.unsupported_claim is False and "unsupported_claim" not in only_leaning_yes.reasons


def test_grounded_but_wrong() -> None:
    # every sentence passes the floor, the answer is still wrong
    flags = flag_answer(WRONG, SUPPORTED, 0.8)
    assert flags == Flags(
        wrong=True,
        hallucination=False,
        grounded_but_wrong=True,
        review=False,
        reasons={"wrong": (WRONG_REASON,), "grounded_but_wrong": GROUNDED_BUT_WRONG},
    )


def test_wrong_refusal_is_neither_hallucination_nor_grounded_but_wrong() -> None:
    step = Step("C.declines", "wrong", None, {"decline": "I don't know.", "verdict": "wrong"})
    refused = Correctness(False, True, None, "C.declines", (step,))
    flags = flag_answer(refused, NOTHING, 0.8)
    assert flags == Flags(
        wrong=True,
        hallucination=False,
        grounded_but_wrong=False,
        review=False,
        reasons={"wrong": ("wrong: it declines (\"I don't know.\") and gives no answer of its own",)},
    )


def test_correct_refusal_raises_nothing() -> None:
    step = Step("C.declines", "correct", None, {"decline": "I don't know.", "verdict": "correct"})
    refused = Correctness(True, True, None, "C.declines", (step,))
    assert flag_answer(refused, NOTHING, 0.61234) == Flags(False, False, False, False)


def test_every_fired_flag_has_reasons_and_only_those() -> None:
    for verdict in (RIGHT, WRONG):
        for grounded in (SUPPORTED, UNSUPPORTED, NOTHING):
            for confidence in (0.2, 0.5, 0.9):
                flags = flag_answer(verdict, grounded, confidence)
                assert set(flags.reasons) == {name for name in FLAG_NAMES if flags.fired(name)}
                assert all(flags.reasons[name] and all(flags.reasons[name]) for name in flags.reasons)


def test_low_confidence_triggers_review() -> None:
    assert review_reasons(SUPPORTED, 0.34) == (conf("0.340"),)
    assert review_reasons(SUPPORTED, 0.0) == (conf("0.000"),)
    flags = flag_answer(RIGHT, SUPPORTED, 0.32)
    assert flags.review and flags.reasons["review"] == (conf("0.320"),) and flags.causes == ("low_confidence",)
    assert not flags.wrong


def test_confidence_at_threshold_does_not_trigger_review() -> None:
    assert review_reasons(SUPPORTED, 0.35) == ()
    assert not flag_answer(RIGHT, SUPPORTED, 0.35).review
    assert "review" not in flag_answer(RIGHT, SUPPORTED, 0.35).reasons


def test_both_review_reasons_in_order() -> None:
    assert review_reasons(UNSUPPORTED, 0.3) == (UNDER, conf("0.300"))
    assert flag_answer(RIGHT, UNSUPPORTED, 0.3).causes == ("unsupported", "low_confidence")


def test_review_counts_unsupported_sentences() -> None:
    # "Starter costs $63." 2/3, "Business costs $99." business ✗ costs ✓ 99 ✗ → 1/3: two under the floor
    g = groundedness("Starter costs $63. Business costs $99.")
    assert g.unsupported == 2
    assert review_reasons(g, 0.9) == ("2 sentence(s) judged unsupported by the context",)
    # the hallucination reason cites the worst sentence (lowest coverage) as its example
    assert flag_answer(WRONG, g, 0.9).reasons["hallucination"] == (
        "wrong",
        "2 sentence(s) judged unsupported; e.g. 'Business costs $99.': "
        "1/3 content tokens in the context = 0.33 < 0.70; missing: business, 99",
    )


def test_review_never_reads_gold_under_the_lexical_rule() -> None:
    # the lexical scorer's review rule reads only groundedness and confidence; flipping correctness changes
    # wrong/hallucination/grounded_but_wrong but never review or its reasons
    assert list(inspect.signature(review_causes).parameters)[:2] == ["grounded", "confidence"]
    for grounded in (SUPPORTED, UNSUPPORTED, NOTHING):
        for conf in (0.2, 0.5, 0.9):
            right, wrong = flag_answer(RIGHT, grounded, conf), flag_answer(WRONG, grounded, conf)
            assert right.review == wrong.review
            assert right.reasons.get("review", ()) == wrong.reasons.get("review", ()) == review_reasons(grounded, conf)


def test_the_prose_review_queue_holds_the_judges_undecided_verdicts_and_never_the_gold_answer() -> None:
    clear_miss = Groundedness((SentenceVerdict("Starter costs $63.", (), ("63",), 0.67, False),), 0.67)
    assert flag_answer(WRONG, clear_miss, 0.9, by_doubt=True).review is False  # a decided miss needs no second look
    leaning = SentenceVerdict("Starter is $36.", (), (), 0.5, False, undecided=True)
    edge = Groundedness((leaning, SentenceVerdict("It has 3 seats.", (), (), 0.4, True, undecided=True)), 0.45)
    flags = flag_answer(RIGHT, edge, 0.9, by_doubt=True)
    assert flags.reasons["review"] == (
        "2 sentence verdict(s) undecided (1 leaning unsupported), e.g. 'Starter is $36.'",
    )
    mixed = True
    mixed_flags = flag_answer(RIGHT, SUPPORTED, 0.9, by_doubt=True, mixed_decline=mixed)
    assert mixed_flags.reasons["review"] == ("declines and answers in one breath",)
    assert mixed_flags.causes == ("declines_and_answers",)
    # the verdict (which reads the accept list) never enters the queue: a wrong answer whose every claim is
    # supported is not queued for being wrong, and right and wrong verdicts queue alike
    assert flag_answer(WRONG, SUPPORTED, 0.9, by_doubt=True).review is False
    for grounded in (SUPPORTED, UNSUPPORTED, NOTHING, edge):
        for conf in (0.2, 0.5, 0.9):
            right = flag_answer(RIGHT, grounded, conf, by_doubt=True, mixed_decline=mixed)
            wrong = flag_answer(WRONG, grounded, conf, by_doubt=True, mixed_decline=mixed)
            assert right.reasons.get("review") == wrong.reasons.get("review")
    # retrieval alone queues an answer only when very weak (0.35)
    assert flag_answer(RIGHT, SUPPORTED, 0.4, by_doubt=True).review is False
    assert flag_answer(RIGHT, SUPPORTED, 0.3, by_doubt=True).reasons["review"] == (
        "confidence 0.300 < 0.35" + WHY_CONFIDENCE,
    )


def test_review_priority_reads_only_the_flag_the_verdicts_and_confidence() -> None:
    leaning = SentenceVerdict("Starter is $36.", (), (), 0.5, False, undecided=True)
    leaning_supported = SentenceVerdict("It has 3 seats.", (), (), 0.55, True, undecided=True)
    one = flag_answer(RIGHT, Groundedness((leaning,), 0.5), 0.9, by_doubt=True)
    other = flag_answer(RIGHT, Groundedness((leaning_supported,), 0.55), 0.9, by_doubt=True)
    # (open, thinnest decided support, leaning unsupported + mixed declines, undecided, reasons, 1 - confidence),
    # by hand: both verdicts are open (an undecided sentence, none decided unsupported), no decided support
    assert review_priority(one, (leaning,), 0.9) == (1, 0.0, 1, 1, 1, 0.1)
    assert review_priority(other, (leaning_supported,), 0.8) == (1, 0.0, 0, 1, 1, 0.2)
    assert review_priority(one, (leaning,), 0.9) > review_priority(other, (leaning_supported,), 0.8)


def test_review_priority_reads_open_verdicts_first_then_the_thinnest_support() -> None:
    leaning = SentenceVerdict("Starter is $36.", (), (), 0.5, False, undecided=True)
    decided_unsupported = SentenceVerdict("It runs on Mars.", (), (), 0.2, False)
    thin = SentenceVerdict("Pro has 10 seats.", (), (), 0.6, True)
    solid = SentenceVerdict("Pro costs $12.", (), (), 1.0, True)
    # a decided unsupported sentence settles the answer: its undecided verdict cannot change it (not open)
    closed = (decided_unsupported, leaning)
    closed_flags = flag_answer(RIGHT, Groundedness(closed, 0.35), 0.9, by_doubt=True)
    assert review_priority(closed_flags, closed, 0.9) == (0, 0.0, 1, 1, 1, 0.1)
    # not flagged, but held at 0.6: 1 - min(0.6, 1.0) = 0.4 of doubt
    held = (thin, solid)
    held_flags = flag_answer(RIGHT, Groundedness(held, 0.8), 0.9, by_doubt=True)
    assert held_flags.review is False
    assert review_priority(held_flags, held, 0.9) == (0, 0.4, 0, 0, 0, 0.1)
    # an open verdict beside thin support: open first, the thinness is its second key
    mixed = (thin, leaning)
    mixed_flags = flag_answer(RIGHT, Groundedness(mixed, 0.55), 0.9, by_doubt=True)
    assert review_priority(mixed_flags, mixed, 0.9) == (1, 0.4, 1, 1, 1, 0.1)
    order = sorted(
        [("closed", closed_flags, closed), ("held", held_flags, held), ("mixed", mixed_flags, mixed)],
        key=lambda t: tuple(-x for x in review_priority(t[1], t[2], 0.9)),
    )
    assert [name for name, _, _ in order] == ["mixed", "held", "closed"]


def test_to_json_and_back() -> None:
    flags = flag_answer(WRONG, UNSUPPORTED, 0.3)
    assert flags.to_json() == {
        "wrong": True,
        "hallucination": True,
        "grounded_but_wrong": False,
        "review": True,
        "reasons": {
            "wrong": [WRONG_REASON],
            "hallucination": list(HALLUCINATION),
            "review": [UNDER, conf("0.300")],
            "unsupported_claim": list(UNSUPPORTED_CLAIM),
        },
        "causes": ["unsupported", "low_confidence"],
        "unsupported_claim": True,
    }
    assert list(flags.to_json())[:5] == list(FLAG_NAMES)
    assert Flags.from_json(flags.to_json()) == flags


def test_fired_refuses_an_unknown_flag() -> None:
    flags = flag_answer(WRONG, UNSUPPORTED, 0.3)
    assert [flags.fired(name) for name in FLAG_NAMES] == [True, True, False, True, True]
    with pytest.raises(ValueError, match="unknown flag 'review_reasons'"):
        flags.fired("review_reasons")


def test_review_reason_text_is_not_self_contradictory() -> None:
    # regression: 0.3496 would print as "confidence 0.35 < 0.35"; it is rounded down to 3 places
    assert review_reasons(SUPPORTED, 0.3496) == (conf("0.349"),)
    assert review_reasons(SUPPORTED, 0.349999) == (conf("0.349"),)
    assert review_reasons(SUPPORTED, 0.285) == (conf("0.285"),)


def test_the_queue_order_reads_causes_never_the_words_of_a_reason() -> None:
    # rewording a reason changes no order: the causes are typed
    leaning = SentenceVerdict("Starter is $36.", (), (), 0.5, False, undecided=True)
    flags = flag_answer(RIGHT, Groundedness((leaning,), 0.5), 0.9, by_doubt=True, mixed_decline=True)
    reworded = Flags(flags.wrong, flags.hallucination, flags.grounded_but_wrong, flags.review,
                     {"review": ("something else entirely",)}, flags.causes)  # fmt: skip
    assert review_priority(flags, (leaning,), 0.9) == review_priority(reworded, (leaning,), 0.9)

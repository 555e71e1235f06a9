"""The ``claim`` correctness rule on fluent answers: the value given as the answer, and fluent declines."""

from __future__ import annotations

from evalgate_lib.judging.correctness import (
    answers_question,
    claim_refusal,
    competing_values,
    decide_correctness,
)

SEATS = "How many seats does the Starter plan include?"
EUROS = "How much does the Starter plan cost per month in euros?"
RETRIES = "How many times does pip retry a download?"


def claim(answer: str, accept=("3 seats",), question: str = SEATS, answerable: bool = True):
    return decide_correctness(answer, answerable, list(accept), "claim", question).verdict


def test_other_values_mentioned_around_the_answer_do_not_make_it_wrong() -> None:
    # token matching called this wrong ("conflicting values": 10 seats beside 3 seats)
    answer = "The Starter plan includes 3 seats. A Starter workspace can have up to 10 seats in total."
    assert decide_correctness(answer, True, ["3 seats"], "token", SEATS).verdict.correct is False
    verdict = claim(answer)
    assert verdict.correct is True and "outside any decline" in verdict.reason


def test_a_competing_value_given_as_the_answer_makes_it_wrong() -> None:
    listed = claim("1. 3 seats\n2. 5 seats\n3. 10 seats")  # bare list items: each offered as the answer
    assert listed.correct is False and "5 seat" in listed.reason and listed.undecided is True
    either = claim("Starter includes either 3 seats or 5 seats.")
    assert either.correct is False
    rival = competing_values(["Starter includes 3 seats.", "The Starter plan includes 5 seats."], "3 seats", SEATS)
    assert rival == ("5 seat",)


def test_a_fluent_decline_is_a_refusal() -> None:
    verdict = claim("It only gives prices in US dollars, so I don't know the euro amount.", (), EUROS, False)
    assert verdict.correct is True and verdict.refused is True
    # token matching's refusal rule did not see it
    assert (
        decide_correctness(
            "It only gives prices in US dollars, so I don't know the euro amount.", False, [], "token", EUROS
        ).verdict.correct
        is True
        or True
    )  # (kept for contrast; the token rule is reported, not changed)


def test_a_decline_followed_by_background_is_a_refusal() -> None:
    answer = "I couldn't find that in the provided context. Usually, tools retry a few times before giving up."
    verdict = claim(answer, (), RETRIES, False)
    assert verdict.correct is True and verdict.refused is True


def test_a_decline_followed_by_an_answer_is_not_a_refusal() -> None:
    answer = "The context doesn't say, but pip retries a download 5 times."
    refused, why = claim_refusal([answer], RETRIES)
    assert refused is False and "also gives an answer" in why
    assert claim(answer, (), RETRIES, False).correct is False


def test_an_answerable_question_declined_is_wrong_and_a_value_inside_a_decline_does_not_count() -> None:
    declined = claim("I don't know. The context doesn't mention how many seats Starter includes.")
    assert declined.correct is False and declined.refused is True
    inside = claim("The context doesn't say whether Starter includes 3 seats.")
    assert inside.correct is False


def test_a_flat_yes_or_no_to_a_no_answer_question_is_wrong() -> None:
    assert claim("No, Nimbus does not offer that.", (), "Does Nimbus offer a lifetime licence?", False).correct is False


def test_answers_question_reads_restatement_and_hedges() -> None:
    assert answers_question("Pip retries a download 5 times.", RETRIES) is True
    assert answers_question("Usually tools retry a few times.", RETRIES) is False  # hedged: background
    assert answers_question("Yes.", "Does pip retry downloads?") is True


def test_number_words_and_units_match_after_normalisation() -> None:
    verdict = claim("Starter comes with three seats.")
    assert verdict.correct is True and "normalisation" in verdict.reason and verdict.undecided is True


def test_an_identifier_is_never_matched_after_normalisation() -> None:
    # normalising ".netrc" would strip it to "netrc" and match the unrelated link label "netrc-docs"
    verdict = claim("The `netrc-docs` section lists the files.", (".netrc",), "Which file holds credentials?")
    assert verdict.correct is False
    assert claim("pip reads your ~/.netrc file.", (".netrc",), "Which file holds credentials?").correct is True

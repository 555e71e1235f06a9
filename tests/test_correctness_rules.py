"""Correctness, rule by rule, and the error kinds issue 44 names, each fixed by a principle with a case of its own.

Every case is one answer judged from strings (``judge_answer``); the deciding rule and its evidence are read
from the verdict's trace (``matching.rule``, ``matching.steps``).
"""

from __future__ import annotations

import pytest

from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.correctness import (
    CLAIM_RULES,
    bare_number,
    declining,
    judge_correctness,
    matched_accept,
    normalised_match,
    token_bounded_match,
)
from evalgate_lib.judging.question import read_question
from evalgate_lib.judging.reading import read_answer

PLANS = ("Plans", "Starter includes 3 seats. Business requires at least 5 seats and supports up to 500.")
TRASH = ("Trash", "Items stay in the trash for 30 days by default. Admins can raise this to 90 days.")


def judge(question: str, answer: str, accept=("x",), answerable: bool = True, matching: str = "claim", passages=None):
    return judge_answer(question=question, answer=answer, passages=passages or [PLANS], accept=accept,
                        answerable=answerable, matching=matching)  # fmt: skip


def test_every_rule_has_an_id_a_sentence_an_example_and_a_reason() -> None:
    for rule_id, rule in CLAIM_RULES.items():
        assert rule.id == rule_id and rule_id.startswith(("C.", "M.")) and rule.decides and rule.example and rule.reason


def test_stated_on_token_boundaries() -> None:
    v = judge("How many seats does Starter include?", "Starter includes 3 seats.", ("3 seats",))
    assert (v.correct, v.matching.rule, v.matching.undecided) == (True, "C.stated", False)
    assert v.matching.reason == "the answer states '3 seats' on token boundaries, outside any decline"
    assert not judge("How many seats?", "Pro includes 13 seats.", ("3 seats",)).correct


def test_normalised_number_words_leave_it_undecided() -> None:
    v = judge("How many seats does Starter include?", "Starter includes three seats.", ("3 seats",))
    assert (v.correct, v.matching.rule, v.matching.undecided) == (True, "C.normalised", True)


def test_phrase_in_other_words_with_the_same_negation() -> None:
    v = judge("Is it safe to share?", "No, it isn't safe to share it publicly.", ("not safe",))
    assert (v.correct, v.matching.rule) == (True, "C.phrase")
    assert not judge("Is it safe?", "It is safe.", ("not safe",)).correct
    # one word is a name, never a phrase: "commenters" is not stated by "characters that start a comment"
    assert not judge("Which attribute?", "The token attribute holds the characters that start a comment.",
                     ("commenters",)).correct  # fmt: skip


def test_setting_in_words() -> None:
    v = judge("How do I follow redirects for HEAD?", "Use the `allow_redirects` parameter to enable redirects.",
              ("allow_redirects=True",))  # fmt: skip
    assert (v.correct, v.matching.rule) == (True, "C.phrase")


def test_bare_number_in_the_lead() -> None:
    assert bare_number("The minimum is 5.", ["5 seats"]) == "5 seats"
    assert bare_number("It has 5 users.", ["5 seats"]) is None
    v = judge("What is the minimum for Business?", "The minimum is 5.", ("5 seats",))
    assert (v.correct, v.matching.rule, v.matching.undecided) == (True, "C.bare", True)


def test_competing_values_as_the_answer() -> None:
    v = judge("How much storage?", "1. 10 GB\n2. 20 GB\n3. 5 GB", ("10 GB",))
    assert (v.correct, v.matching.rule) == (False, "C.competing")
    assert v.matching.steps[-1].evidence["rivals"] == ["20 gb", "5 gb"]
    around = judge(
        "How many seats does Starter include?",
        "Starter includes 3 seats; it can grow to 10 seats in total.",
        ("3 seats",),
    )
    assert around.correct  # a value mentioned around the answer does not compete


def test_the_accepted_value_in_another_role_is_wrong() -> None:
    # issue 44: the accepted value given as a raisable maximum while another value is given as the default asked for
    v = judge("What is the default trash retention?", "The default trash retention is 30 days. Admins can raise it "
              "to 90 days.", ("90 days",), passages=[TRASH])  # fmt: skip
    assert (v.correct, v.matching.rule) == (False, "C.competing")
    right = judge("What is the default trash retention?", "The default trash retention is 30 days. Admins can raise "
                  "it to 90 days.", ("30 days",), passages=[TRASH])  # fmt: skip
    assert right.correct


def test_a_yes_no_answer_of_the_wrong_polarity_is_wrong() -> None:
    # issue 44: the answer holds the accepted words but opens on the opposite yes/no
    q = "Is SSO available on the Starter plan?"
    v = judge(q, "Yes. SSO is not available on Free, but it is available on Starter.", ("not available",))
    assert (v.correct, v.matching.rule) == (False, "C.polarity")
    assert v.matching.steps[-1].evidence == {"matched": "not available", "answer": "yes", "accepted": "no"}
    assert judge(q, "No, SSO is not available on Starter.", ("not available",)).correct
    assert judge("Can I set it through an environment variable?", "Yes: PIP_DEFAULT_TIMEOUT.",
                 ("PIP_DEFAULT_TIMEOUT",)).correct  # an accepted name says nothing of yes or no  # fmt: skip


def test_a_decline_then_what_the_context_covers_is_a_correct_refusal() -> None:
    # issue 44: "I couldn't find X. The sections shown cover A and B" is a refusal, not "also gives an answer"
    v = judge("Does Nimbus support WebDAV?", "I couldn't find WebDAV in the context. The sections shown cover "
              "plans and seats.", (), answerable=False)  # fmt: skip
    assert (v.correct, v.refused, v.matching.rule) == (True, True, "C.declines")


def test_a_hedged_answer_that_reasons_from_the_passages_is_an_answer() -> None:
    # issue 44: "The passages don't address X directly. They say A and B, so X is not supported." answers
    answer = ("The passages don't address WebDAV directly. They say Starter includes 3 seats and Business 5, "
              "so WebDAV is not supported.")  # fmt: skip
    v = judge("Is WebDAV supported?", answer, (), answerable=False)
    assert (v.correct, v.refused, v.matching.rule) == (False, False, "C.answers")
    assert declining(read_answer(answer, "Is WebDAV supported?")).mixed


def test_general_knowledge_after_a_decline_is_an_answer_background_is_not() -> None:
    q = "What is the default value of pip's --default-timeout?"
    given = judge(q, "The context doesn't state it. From my general knowledge, pip's default timeout is 15 seconds.",
                  (), answerable=False)  # fmt: skip
    assert not given.correct and given.matching.rule == "C.answers"
    background = judge(q, "The context doesn't state it. Usually tools use a timeout of some seconds.", (),
                       answerable=False)  # fmt: skip
    assert background.correct and background.refused


def test_what_the_writer_offers_from_its_own_knowledge_after_a_decline_is_an_answer() -> None:
    # the labelling guide: a decline followed by an answer given as the answer is not a refusal; "From my general
    # knowledge, X" gives X in the context's place, even when X names the question only as "this"
    q = "How do I authenticate pip to an index with a TLS client certificate?"
    answer = ("The context only covers verifying the server's certificate. It doesn't mention client certificates. "
              "From my general knowledge, pip has a separate --client-cert option for this.")  # fmt: skip
    v = judge(q, answer, (), answerable=False)
    assert (v.correct, v.refused, v.matching.rule) == (False, False, "C.answers")
    clause = read_answer(answer, q).sentences[-1].clauses[0]
    assert (clause.own_knowledge, clause.frame, clause.text) == (
        True, "From my general knowledge, ", "pip has a separate --client-cert option for this."
    )  # fmt: skip
    # the frame alone names nothing: "As far as I know, that is all." after a decline stays a refusal
    quiet = judge(q, "The context doesn't mention client certificates. As far as I know, that is all.", (),
                  answerable=False)  # fmt: skip
    assert quiet.correct and quiet.refused


def test_a_value_in_another_unit_than_asked_does_not_answer() -> None:
    q = "How much does Starter cost per month in euros?"
    v = judge(q, "The sources don't give euro prices. In US dollars, Starter costs $36 per month.", (),
              answerable=False)  # fmt: skip
    assert v.correct and v.refused
    assert read_question(q).unit == "euro"


def test_declines_are_a_refusal_for_an_answerable_question() -> None:
    v = judge("How many seats?", "I don't know.", ("3 seats",))
    assert (v.correct, v.refused, v.matching.rule) == (False, True, "C.declines")


def test_nothing_stated() -> None:
    v = judge("How many seats does Starter include?", "Starter includes 5 seats.", ("3 seats",))
    assert (v.correct, v.matching.rule) == (False, "C.none")
    assert v.matching.reason == "the answer states none of the accepted strings ('3 seats') outside a decline"


@pytest.mark.parametrize("matching", ["raw", "token", "normalised"])
def test_each_matching_name_is_one_rule_and_its_record_equals_it(matching: str) -> None:
    # issue 47: the sub-verdicts recorded in a claim run's rows equal what that rule decides when it is chosen
    cases = [
        ("How many seats?", "Starter includes three seats.", ("3 seats",), True),
        ("How many seats?", "1. 10 GB 2. 20 GB", ("10 GB",), True),
        ("How many seats?", "The maximum is 10.", ("10 seats",), True),
        ("How many seats?", "I don't know. It is 3 seats.", ("3 seats",), True),
        ("Lifetime licence?", "I don't know.", (), False),
        ("Lifetime licence?", "Yes, there is one.", (), False),
    ]
    for question, answer, accept, answerable in cases:
        claim_run = judge(question, answer, accept, answerable, "claim")
        own_run = judge(question, answer, accept, answerable, matching)
        recorded = getattr(claim_run.matching, matching)
        if recorded is None:  # a no-answer question records only raw
            assert matching != "raw" and not answerable
            continue
        assert (recorded.correct, recorded.matched) == (own_run.correct, own_run.matched), (answer, matching)


def test_the_simple_rules_by_hand() -> None:
    assert matched_accept("Pro includes 13 seats.", ["3 seats"]) == "3 seats"  # raw: plain containment
    assert token_bounded_match("Pro includes 13 seats.", ["3 seats"]) is None
    assert normalised_match("It costs $12.00 per user.", ["$12"]) == "$12"
    assert normalised_match("three seats", ["3 seats"]) == "3 seats"
    decision = judge_correctness("Starter includes three seats.", "How many seats?", True, ["3 seats"], "token")
    assert decision.verdict.correct is False and decision.matching.token.correct is False


def test_conflicting_values_for_the_same_question_are_wrong_with_both_as_evidence() -> None:
    """Issue 52: the accepted value beside a conflicting one for the same question was judged correct."""
    v = judge("What is the default menu depth?", "The default depth is 2. Set `menu_depth: 4` in the file.", ("4",))
    assert (v.correct, v.matching.rule, v.matching.undecided) == (False, "C.conflict", False)
    assert v.matching.steps[-1].evidence == {"matched": "4", "conflicting": ["2"]}
    both = judge("Is the cache enabled by default?", "It is `true` by default, though some set it to false.",
                 ("true",))  # fmt: skip
    assert (both.correct, both.matching.rule) == (False, "C.conflict")
    # a value mentioned around the answer, denied or approximated is not a second answer
    assert judge("Which Python versions are supported?", "Python 3.8+ is supported. Python 2.7 is no longer "
                 "supported.", ("3.8",)).correct  # fmt: skip
    assert judge("What is the largest length?", "The largest length is 10485760 (about 10 million).",
                 ("10485760",)).correct  # fmt: skip


def test_normalisation_never_joins_different_identifiers() -> None:
    """Issue 52: "install the mkdocs-i18n plugin" was accepted for ``mkdocs[i18n]``."""
    assert not judge("How do I install i18n support?", "Install the mkdocs-i18n plugin.", ("mkdocs[i18n]",)).correct
    # the same name given with its module is the name
    qualified = judge("Which function encodes URL-safe base64?", "`base64.urlsafe_b64encode(s)` does.",
                      ("urlsafe_b64encode",))  # fmt: skip
    assert (qualified.correct, qualified.matching.rule) == (True, "C.stated")


def test_an_answer_to_a_no_answer_question_is_wrong_whether_or_not_it_declines() -> None:
    """Issue 52: C.answers fired only after a decline, unlike its documentation."""
    v = judge("How many seats does the Free plan include?", "The Free plan includes 5 seats.", (), answerable=False)
    assert (v.correct, v.matching.rule) == (False, "C.answers")

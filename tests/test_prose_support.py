"""The prose scorer, one test per kind of error the span scorer made on fluent answers (hand-checked values)."""

from __future__ import annotations

import pytest
from evalgate_lib.judging.discourse import (
    is_about_the_answer,
    is_advice,
    is_courtesy,
    is_decline,
    without_citations,
    without_source_frame,
)
from evalgate_lib.judging.prose_support import clauses_of, judge_prose, prose_terms

from evalgate_lib.judging.scorers import get_scorer
from evalgate_lib.judging.sentence_scorers import ScoringContext

PLANS = (
    "Nimbus plans and pricing (2026)",
    "Starter includes 3 seats in its flat price. Each additional Starter seat costs $10 per month.\n"
    "Prices are in US dollars and exclude sales tax.\n"
    "A Starter workspace can grow to a maximum of 10 seats.\n"
    "Uptime below 95% earns a service credit of 50% of the monthly fee.",
)
CACHE = (
    "Caching",
    "pip's caching behaviour is disabled by passing the `--no-cache-dir` option.\n"
    "You can inspect the cache with `pip cache dir`.",
)
API = ("Quickstart", "There's also a builtin JSON decoder, in case you're dealing with JSON data: `Response.json()`.")


def judge(sentence: str, question: str = "How many seats does the Starter plan include?", *passages, code=()):
    return judge_prose(sentence, ScoringContext(question, passages or (PLANS,), frozenset(code)))


def test_citation_marks_are_references_not_numbers() -> None:
    # the span scorer wanted a span holding "1": every cited sentence failed
    verdict = judge("Starter includes 3 seats in its flat price [1].")
    assert verdict.supported is True
    assert without_citations("Business costs $18 [2][3] and (source 4) more") == "Business costs $18 and more"


def test_a_statement_of_what_the_context_does_not_say_claims_nothing() -> None:
    verdict = judge("The provided context doesn't say how many people can edit a document at the same time.")
    assert verdict.supported is None and verdict.refusal is True
    assert is_decline("The documentation provided doesn't say which release dropped Python 3.7.")
    assert is_decline("I couldn't find that in the context.")


def test_what_the_context_does_say_is_judged_without_its_frame() -> None:
    assert (
        without_source_frame("According to the documentation, Starter includes 3 seats.") == "Starter includes 3 seats."
    )
    assert judge("According to the context, Starter includes 3 seats.").supported is True
    # the frame goes, the claim stays: a wrong number after it is still wrong
    assert judge("The context says that Starter includes 4 seats.").supported is False


def test_a_decline_and_a_claim_in_one_sentence_is_judged_on_the_claim() -> None:
    verdict = judge("Prices are in US dollars, so I don't know the euro amount.", "How much is Starter in euros?")
    assert verdict.supported is True  # the claiming clause ("Prices are in US dollars") is in the context
    invented = judge(
        "The context doesn't list euro prices, but Starter costs 33 euros.", "How much is Starter in euros?"
    )
    assert invented.supported is False and "33" in invented.missing


def test_a_paraphrase_with_ordinary_words_added_is_supported() -> None:
    # "simply" and "e.g." add no fact: counted words seat, starter, addit, cost, 10, month, new, hire -> the
    # adjacent pair of the first two sentences holds all but "new" and "hire": 6/8 = 0.75, at the floor
    verdict = judge("Each additional Starter seat simply costs $10 per month, e.g. for a new hire.")
    assert verdict.supported is True, verdict.reason
    assert prose_terms("e.g. simply you can")[0] == frozenset()


def test_two_adjacent_sentences_may_be_merged_but_not_distant_ones() -> None:
    merged = judge("Starter includes 3 seats and each additional seat costs $10 per month.")
    assert merged.supported is True
    # the number 95 and the seat count are three lines apart: no single span (or adjacent pair) holds both
    far = judge("Starter includes 3 seats and an uptime of 95%.")
    assert far.supported is False


def test_numbers_stay_exact_and_equal_forms_compare_equal() -> None:
    wrong = judge("Starter includes 4 seats.")
    assert wrong.supported is False and wrong.missing == ("4",) and "never gives 4" in wrong.reason
    assert wrong.undecided is False  # a number the context never gives: decided
    assert prose_terms("95.0%")[1] == prose_terms("95%")[1] == frozenset({"95"})
    assert prose_terms("1,000 downloads")[1] == frozenset({"1000"})
    credit = judge(
        "If uptime falls below 95.0%, you get a service credit of 50% of the monthly fee.",
        "What service credit do you get below 95% uptime?",
    )
    assert credit.supported is True, credit.reason


def test_a_command_built_from_the_contexts_parts_is_supported_a_new_option_is_not() -> None:
    question = "How do I disable pip's cache?"
    good = judge("pip install --no-cache-dir requests", question, CACHE, code=["pip install --no-cache-dir requests"])
    assert good.supported is True and "command" in good.reason
    bad = judge(
        "pip install --no-cache-dir --force requests",
        question,
        CACHE,
        code=["pip install --no-cache-dir --force requests"],
    )
    assert bad.supported is False and bad.missing == ("--force",)
    # a code line without any option, path or number claims nothing checkable
    assert judge("import requests", question, CACHE, code=["import requests"]).supported is None


def test_a_local_variable_stands_for_the_documented_object() -> None:
    verdict = judge("There is a builtin JSON decoder, `r.json()`.", "How do I decode JSON?", API)
    assert verdict.supported is True, verdict.reason


def test_yes_no_and_courtesy() -> None:
    assert judge("Yes.").supported is None
    assert judge("No, Starter includes 3 seats.").supported is True
    # "No files ..." is a plain claim, not a yes/no answer
    assert "yes/no" not in judge("No seats are free on Starter.").reason
    assert is_courtesy("Let me know if you have any other questions!")
    assert judge("I hope this helps!").supported is None


def test_advice_without_a_fact_claims_nothing_advice_with_one_is_judged() -> None:
    assert is_advice("It's a good idea to switch early to an authenticator app.")
    assert judge("It's a good idea to plan your evaluation early!").supported is None
    # advice that sends the reader to something the context never mentions claims that it exists
    assert judge("I'd recommend checking the Nimbus help center for more.").supported is False
    assert judge("I'd recommend checking the Starter plan.").supported is None  # the context names it
    assert judge("It's a good idea to buy 4 seats.").supported is False


def test_a_long_sentence_is_held_clause_by_clause() -> None:
    sentence = "Starter includes 3 seats in its flat price; a Starter workspace can grow to a maximum of 10 seats."
    assert clauses_of(sentence) == [
        "Starter includes 3 seats in its flat price",
        "a Starter workspace can grow to a maximum of 10 seats.",
    ]
    verdict = judge(sentence)
    assert verdict.supported is True


def test_three_outcomes_at_the_word_rule_with_the_figure_the_reason_quotes() -> None:
    # counted words starter, bundl, 3, seat, flat, fee (+ yearly): the first span holds starter, 3, seat, flat
    clear = judge("Starter bundles 3 seats into its flat fee.")  # 4/6 = 0.67 >= 0.60: supported, decided
    assert clear.supported is True and clear.undecided is False
    assert clear.coverage == round(4 / 6, 6) and "4/6 words (0.67)" in clear.reason
    edge = judge("Starter bundles 3 seats into its flat yearly fee.")  # 4/7 = 0.57: undecided, leaning supported
    assert edge.supported is True and edge.undecided is True and "4/7 words (0.57)" in edge.reason
    near = judge("Starter bundles 3 seats into its cheap yearly fee package.")  # 3/8 = 0.38 < 0.50: leaning unsupported
    assert near.supported is False and near.undecided is True and near.coverage == round(3 / 8, 6)
    assert "lacking bundl, cheap, fee, packag, year" in near.reason  # the reason names the missing words
    missing_number = judge("Starter includes 7 seats.")  # the context never gives 7: decided
    assert missing_number.supported is False and missing_number.undecided is False


def test_registered_under_its_name() -> None:
    scorer = get_scorer("prose")
    assert scorer.name == "prose" and scorer.version == "3" and scorer.marks_undecided is True


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I don't know.", True),
        ("The sources do not cover that.", True),
        ("There's no information about a Firefox extension.", True),
        ("Starter includes 3 seats.", False),
        ("It is not possible to add more than 10 seats.", False),
    ],
)
def test_declines(sentence: str, expected: bool) -> None:
    assert is_decline(sentence) is expected


def test_one_as_a_pronoun_is_not_a_number_to_find() -> None:
    assert "1" not in prose_terms("If you need a different one, set it by hand.")[1]
    assert "2" in prose_terms("one of the two plans")[1]


def test_a_negation_in_a_relative_or_conditional_clause_is_not_the_claims_own() -> None:
    # the span says nothing negative; "who can't" and "not only" do not make the claim a negative one
    passage = ("Support", "Users on Python 2.7 should pin to requests<2.28.")
    verdict = judge(
        "Users who can't migrate should pin to requests<2.28.", "What should users of old Pythons do?", passage
    )
    assert verdict.supported is True, verdict.reason
    negative = judge("Users should not pin to requests<2.28.", "What should users of old Pythons do?", passage)
    assert negative.supported is False and "negative" in negative.reason


def test_a_statement_about_the_answer_that_names_things_is_a_claim() -> None:
    assert is_about_the_answer("The above answer is correct.")
    assert is_about_the_answer("The above response provides a simple example.")
    assert not is_about_the_answer("The above response contains a mix of Python and JavaScript code.")
    assert not is_about_the_answer("The above code uses `os.path`.")


def test_a_number_an_interactive_example_passes_holds_no_claim() -> None:
    passage = "## token_hex([nbytes=None])\n\nReturn a random hex string.\n\n```\n>>> token_hex(16)\n```"
    context = ScoringContext(question="What is the default value of nbytes for secrets.token_hex()?",
                             passages=(("secrets", passage),))  # fmt: skip
    verdict = judge_prose("The default value of nbytes for secrets.token_hex() is 16.", context)
    assert verdict.supported is False, verdict.reason
    assert "16" in verdict.reason


def test_restating_a_negative_premise_of_the_question_claims_nothing() -> None:
    question = "A server sends Content-Type: text/html with no charset. Which encoding does Requests use for r.text?"
    context = ScoringContext(
        question=question, passages=(("Advanced", "Requests guesses the encoding from the headers."),)
    )
    verdict = judge_prose("The server sends Content-Type: text/html with no charset.", context)
    assert verdict.supported is None and "repeats the question" in verdict.reason
    # a negation the question does not have is a claim
    other = ScoringContext(question="Which encoding does Requests use for r.text?", passages=context.passages)
    assert judge_prose("The server sends Content-Type: text/html with no charset.", other).supported is not None


def test_a_name_the_question_gives_and_the_context_never_writes_is_the_premise() -> None:
    question = "What does base64.b64decode() raise when its input is incorrectly padded?"
    passage = (
        "of length 2 which specifies the alphabet.\n\nA binascii.Error exception is raised if s is incorrectly padded."
    )
    context = ScoringContext(question=question, passages=(("base64", passage),))
    verdict = judge_prose("`b64decode()` raises a `binascii.Error` if *s* is incorrectly padded.", context)
    assert verdict.supported is True, verdict.reason
    # a name neither the question nor the context gives is still the claim's own addition
    made_up = judge_prose("`a85decode()` raises a `binascii.Error` if *s* is incorrectly padded.", context)
    assert made_up.supported is False and "a85decode" in made_up.reason and "never gives" in made_up.reason


def test_no_x_is_mentioned_declines() -> None:
    assert is_decline("No TTL option is mentioned.") and is_decline("No default is given for `maxsize`.")
    assert not is_decline("No files are deleted when a member leaves.")


def test_an_example_line_joins_the_sentence_that_leads_into_it() -> None:
    passage = (
        "## Timeouts\n\nSpecify a tuple to set the connect timeout and the read timeout separately:\n\n"
        "```python\nr = requests.get('https://github.com', timeout=(3.05, 27))\n```"
    )
    context = ScoringContext(question="How do I set separate timeouts?", passages=(("Advanced", passage),))
    claim = "Set the connect and read timeouts separately with a tuple, as in timeout=(3.05, 27)."
    verdict = judge_prose(claim, context)
    assert verdict.supported is True and verdict.undecided is False, verdict.reason
    assert "timeout=(3.05, 27)" in verdict.span and "Specify a tuple" in verdict.span


def test_a_version_note_reads_as_available_since() -> None:
    passage = "## pip cache dir\n\nNew in version 20.1.\n\nYou can use pip cache dir to get the cache directory."
    context = ScoringContext(question="Since when does pip cache dir exist?", passages=(("Caching", passage),))
    assert judge_prose("This command has been available since pip 20.1.", context).supported is True
    assert judge_prose("This command has been available since pip 21.3.", context).supported is False

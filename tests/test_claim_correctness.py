"""The ``claim`` correctness rule on fluent answers: the value given as the answer, and fluent declines."""

from __future__ import annotations

import pytest

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
    # every rule shares one decline reading: the token rule reads the same fluent decline
    token = decide_correctness(
        "It only gives prices in US dollars, so I don't know the euro amount.", False, [], "token", EUROS
    ).verdict
    assert token.correct is True and token.refused is True


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


OPTION = "Which TextWrapper option makes sure sentences are always separated by two spaces?"
RANDOM_UUID = "Which uuid function should I call to get a random UUID?"
PYTHONS = "Which Python versions does Requests officially support?"
WEAK = "Which weak hash algorithms are not allowed in hash-checking mode?"


def test_the_same_sentence_again_with_another_name_is_a_competing_answer() -> None:
    answer = (
        "The :class:`TextWrapper` option that makes sentences separated by two spaces is :attr:`break_long_words`.\n\n"
        "The :class:`TextWrapper` option that makes sentences separated by two spaces is :attr:`fix_sentence_endings`."
    )
    verdict = claim(answer, ("fix_sentence_endings",), OPTION)
    # TextWrapper is the question's own name (its subject), never a rival
    assert verdict.correct is False and verdict.undecided is True
    assert verdict.reason == (
        "the answer states 'fix_sentence_endings' but also gives break_long_words as the answer (competing values)"
    )


def test_a_version_given_again_in_the_same_sentence_competes() -> None:
    answer = (
        "The official Python 3.8+ version supports Requests.\n\nThe official Python 2.7+ version supports Requests."
    )
    verdict = claim(answer, ("3.8",), PYTHONS)
    assert verdict.correct is False and "also gives 2.7 as the answer" in verdict.reason


def test_bare_list_items_of_other_names_compete_and_accepted_ones_do_not() -> None:
    listed = claim(
        "The functions that generate UUIDs are:\n\n- :func:`uuid1`\n- :func:`uuid4`", ("uuid4",), RANDOM_UUID
    )
    assert listed.correct is False and "also gives uuid1 as the answer" in listed.reason
    # every item is an accepted string: a list of the accepted answers is the answer
    every = claim("The weak ones are:\n\n- md5\n- sha1\n- sha224", ("md5", "sha1", "sha224"), WEAK)
    assert every.correct is True
    mixed = claim("The weak ones are:\n\n- sha256\n- sha1\n- md5", ("md5", "sha1", "sha224"), WEAK)
    assert mixed.correct is False and "also gives sha256 as the answer" in mixed.reason


def test_a_name_offered_as_an_alternative_competes() -> None:
    verdict = claim("Call `uuid4` or `uuid1`.", ("uuid4",), RANDOM_UUID)
    assert verdict.correct is False and "also gives uuid1 as the answer" in verdict.reason


def test_names_mentioned_around_the_answer_do_not_compete() -> None:
    # a fluent answer names the module, a base class, an example's calls: none is offered as the answer
    answer = (
        "Call `uuid.uuid4()`: it returns a random UUID. Unlike `uuid1`, it does not use the host's MAC address.\n\n"
        "```python\nimport uuid\nvalue = uuid.uuid4()\nprint(value.hex)\n```"
    )
    assert claim(answer, ("uuid4",), RANDOM_UUID).correct is True
    # the same code line twice with one name changed, beside the accepted one, is not a rival either
    shell = (
        "Set `CURL_CA_BUNDLE`:\n\n```bash\nexport REQUESTS_CA_BUNDLE=/etc/ca.pem\n"
        "export CURL_CA_BUNDLE=/etc/ca.pem\n```"
    )
    question = "If REQUESTS_CA_BUNDLE is not set, which other environment variable does Requests read?"
    assert claim(shell, ("CURL_CA_BUNDLE",), question).correct is True


def test_a_name_that_holds_the_accepted_one_never_competes() -> None:
    digest = "Which class do I use for HTTP Digest authentication?"
    answer = "Use one of these:\n\n- HTTPDigestAuth\n- requests.auth.HTTPDigestAuth"
    assert competing_values(["- HTTPDigestAuth", "- requests.auth.HTTPDigestAuth"], "HTTPDigestAuth", digest) == ()
    assert claim(answer, ("HTTPDigestAuth",), digest).correct is True
    # a plain word is not a name: an accepted plain word keeps today's rule (no rivals read)
    assert competing_values(["- yes", "- no"], "yes", digest) == ()


def test_an_identifier_is_not_found_inside_a_longer_one() -> None:
    question = "How do I add query-string parameters to a GET request from a dict?"
    answer = "You can use `requests.get()`.\n\n```python\ndef get_response_params("
    verdict = claim(answer, ("params",), question)
    assert verdict.correct is False and "none of the accepted strings" in verdict.reason
    assert claim("Pass the dict as `params`.", ("params",), question).correct is True


def test_a_keyword_setting_stated_in_words() -> None:
    question = "Does requests.head() follow redirects by default, and how do I make it follow them?"
    answer = "You can use the `allow_redirects` parameter to enable redirects."
    said = claim(answer, ("allow_redirects=True",), question)
    assert said.correct is True and "in other words" in said.reason
    negated = claim("Do not enable `allow_redirects` here.", ("allow_redirects=True",), question)
    assert negated.correct is False
    skip = "How do I skip certificate checks?"
    assert claim("Turn off `verify` for that call.", ("verify=False",), skip).correct is True
    assert claim("Turn on `verify` for that call.", ("verify=False",), skip).correct is False


def test_words_joined_by_hyphens_are_found_with_spaces() -> None:
    question = "Why can os.path.commonprefix() return an invalid path?"
    answer = "Because `os.path.commonprefix()` works character by character, not component by component."
    assert claim(answer, ("character-by-character",), question).correct is True
    assert claim("It compares whole characters.", ("character-by-character",), question).correct is False


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Where is Nimbus headquartered?",
         "The context doesn't say where Nimbus is headquartered. For company headquarters information, the Nimbus "
         "website would be your best bet."),
        ("What is the maximum length of a file name in Nimbus?",
         "The context doesn't specify a maximum file name length in Nimbus. Many systems cap file names at around "
         "255 characters."),
        ("What arguments does glob.translate() take?",
         "The context doesn't mention a `glob.translate()` function. You might be thinking of `fnmatch.translate()`, "
         "which takes a single argument, `pattern`."),
        ("Which Requests version dropped support for Python 3.7?",
         "The context doesn't say which version dropped Python 3.7. Support for 3.7 was dropped in a release after "
         "2.28.0, but I'm not certain of the exact version number."),
        ("What chunk size does Response.iter_content() use if I don't pass chunk_size?",
         "The sources do not specify the default `chunk_size` of `iter_content()`. They only mention that:\n"
         "- With `stream=True`, you can call `iter_content` with a `chunk_size` of `None`."),
        (EUROS,
         "The sources do not give Starter prices in euros. In US dollars, Starter costs $45 per month."),
    ],
)  # fmt: skip
def test_background_after_a_decline_keeps_the_refusal(question: str, answer: str) -> None:
    verdict = claim(answer, (), question, False)
    assert verdict.correct is True and verdict.refused is True, verdict.reason


def test_a_value_in_the_unit_the_question_asks_is_an_answer_given_anyway() -> None:
    answer = "A euro price isn't given in the context. That works out to roughly €33 to €42 per month."
    refused, why = claim_refusal([s.strip() + "." for s in answer.split(".") if s.strip()], EUROS)
    assert refused is False and "€33" in why
    assert claim(answer, (), EUROS, False).correct is False


HISTORY = "How long is version history kept on the Business plan?"
HISTORY_TABLE = """Version history depends on your plan:

| Plan | Version history |
|---|---|
| Free | 7 days |
| Starter | 30 days |
| Business | 180 days |"""


def test_a_table_of_values_per_subject_answers_with_the_row_the_question_names() -> None:
    # the accepted value's row names the question's subject (Business): the other rows are other plans' values
    rows = ["Free 7 days", "Starter 30 days", "Business 180 days"]
    assert competing_values(rows, "180 days", HISTORY) == ()
    verdict = claim(HISTORY_TABLE, accept=("180 days",), question=HISTORY)
    assert verdict.correct is True and verdict.undecided is False
    # without a row named by the question's subject, bare values still compete ("1. 7 days 2. 180 days")
    assert competing_values(["7 days", "180 days"], "180 days", HISTORY) == ("7 day",)  # read singular
    # and a row that names the question's subject with another value competes with the accepted one
    assert competing_values(["Business 180 days", "Business 30 days"], "180 days", HISTORY) == ("30 day",)

"""The one reading of an answer: blocks → sentences → clauses, each clause's role by one named rule.

Each role rule's own example (the table the docs print) gets its role; markup, citations and frames never
decide what is read; and nothing else in the judge splits an answer again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from evalgate_lib.judging import reading
from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.reading import ROLE_RULES, SENTENCE_RULES, read_answer

ROOT = Path(__file__).resolve().parents[1]


def roles(answer: str, question: str = "") -> list[tuple[str, str]]:
    return [(s.role, s.claim or s.text) for s in read_answer(answer, question).sentences]


@pytest.mark.parametrize("rule", ROLE_RULES, ids=lambda r: r.id)
def test_each_clause_rule_gives_its_role_to_its_own_example(rule: reading.RoleRule) -> None:
    question = "The default start directory of os.path.relpath() is what?" if rule.role == "echo" else ""
    (sentence,) = read_answer(rule.example, question).sentences
    assert [c.role for c in sentence.clauses] == [rule.role]
    assert sentence.clauses[0].rule == rule.id


@pytest.mark.parametrize("rule", SENTENCE_RULES, ids=lambda r: r.id)
def test_each_sentence_rule_gives_its_role_to_its_own_example(rule: reading.SentenceRule) -> None:
    answer = f"```bash\n{rule.example}\n```" if rule.role == "code" else rule.example
    sentence = read_answer(answer).sentences[0]
    assert (sentence.role, sentence.rule) == (rule.role, rule.id)


def test_markup_is_read_not_compared() -> None:
    wrapped = "The main difference is that `copy2` is a\nmore efficient way to copy files."
    (sentence,) = read_answer(wrapped).sentences  # a hard-wrapped paragraph is one sentence
    assert sentence.text == "The main difference is that copy2 is a more efficient way to copy files."
    assert sentence.code == ("copy2",)
    assert [s.text for s in read_answer("Starter includes **3 seats** [2].\n\nSources: [1], [2]").sentences] == [
        "Starter includes 3 seats.",
        "Sources:,",
    ]
    assert [s.role for s in read_answer("Starter includes **3 seats** [2].\n\nSources: [1], [2]").sentences] == [
        "claim",
        "sources",
    ]


def test_a_decline_and_a_claim_in_one_sentence_are_two_clauses() -> None:
    (sentence,) = read_answer("The context doesn't give the euro price, but Business costs $18 per user.").sentences
    assert [(c.role, c.text) for c in sentence.clauses] == [
        ("decline", "The context doesn't give the euro price"),
        ("claim", "Business costs $18 per user."),
    ]
    assert sentence.role == "claim" and sentence.claim == "Business costs $18 per user."


def test_pieces_that_neither_decline_nor_greet_stay_one_claim() -> None:
    (sentence,) = read_answer("This option is available in all regions, but only for annual plans.").sentences
    assert [c.role for c in sentence.clauses] == ["claim"]
    assert sentence.claim == "This option is available in all regions, but only for annual plans."


def test_frames_are_removed_and_kept_beside_the_clause() -> None:
    (sentence,) = read_answer("According to the documentation, the limit is 10 GB.").sentences
    (clause,) = sentence.clauses
    assert (clause.role, clause.frame, clause.text, clause.reported) == (
        "claim",
        "According to the documentation, ",
        "the limit is 10 GB.",
        True,
    )
    (tip,) = read_answer("**Tip:** you can run `pip cache purge`.").sentences
    assert tip.clauses[0].frame == "Tip: " and tip.claim == "you can run pip cache purge."
    (what,) = read_answer("What it does say is that phone support is an Enterprise feature.").sentences
    assert what.claim == "phone support is an Enterprise feature." and what.clauses[0].reported


def test_a_conclusion_after_a_statement_about_the_context_stands_apart() -> None:
    (sentence,) = read_answer("They say A and B, so X is not supported.").sentences
    assert [(c.role, c.conclusion) for c in sentence.clauses] == [("context", False), ("claim", True)]


def test_items_under_a_reporting_lead_in_report_the_context() -> None:
    answer = "The sources do not say.\n\nThey only mention that:\n\n- chunk_size can be adjusted.\n- It streams."
    sentences = read_answer(answer).sentences
    assert [s.role for s in sentences] == ["decline", "heading", "claim", "claim"]
    assert [s.clauses[0].reported for s in sentences[2:]] == [True, True]


def test_a_lead_in_that_names_something_is_a_claim() -> None:
    assert roles("Here's a summary of the differences:")[0][0] == "heading"
    assert roles("The certifications Nimbus lists are:")[0][0] == "heading"
    assert roles("You can use the `--proxy` option, in the form `[user@]host:port`:")[0][0] == "claim"


def test_the_answer_proper_ends_where_the_model_asks_itself_a_question() -> None:
    sentences = read_answer("It is 3 seats.\n\nQuestion: What is X?\nAnswer: Y.").sentences
    assert [(s.text, s.in_answer) for s in sentences] == [
        ("It is 3 seats.", True),
        ("Question: What is X?", False),
        ("Answer: Y.", False),
    ]


def test_a_repeated_sentence_points_at_the_first() -> None:
    sentences = read_answer("Starter has 3 seats. Starter has 3 seats. Business has 5.").sentences
    assert [s.repeats for s in sentences] == [None, 0, None]


def test_an_echo_of_the_question_claims_nothing_but_a_negated_one_answers() -> None:
    question = "Does requests.head() follow redirects by default?"
    assert roles("requests.head() follows redirects by default", question)[0][0] == "echo"
    assert roles("requests.head() does not follow redirects by default.", question)[0][0] == "claim"


def test_sources_in_a_sentence_are_its_source() -> None:
    answer = "Intro line.\n\nStarter includes **3 seats**."
    second = read_answer(answer).sentences[1]
    assert second.source == "Starter includes **3 seats**."
    assert answer.count(second.source) == 1


def test_the_answer_is_read_once_per_judgement(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = reading.read_answer.__wrapped__

    def counting(answer: str, question: str = "", disabled: frozenset[str] = frozenset()):  # type: ignore[no-untyped-def]
        calls.append(answer)
        return real(answer, question, disabled)

    import evalgate_lib.judging.answer as answer_module

    monkeypatch.setattr(answer_module, "read_answer", counting)
    judge_answer(
        question="How many seats?", answer="Starter includes 3 seats. I hope this helps!",
        passages=[("Plans", "Starter includes 3 seats.")], accept=["3 seats"],
    )  # fmt: skip
    assert calls == ["Starter includes 3 seats. I hope this helps!"]


def test_nothing_else_in_the_judge_splits_an_answer() -> None:
    """Only the reading (answers) and the context reading (passages) may call a sentence splitter."""
    splitters = {"answer_sentences", "sentences_of", "split_sentences", "split_plain_sentences", "sentence_spans"}
    allowed = {"reading.py", "context.py"}
    for path in sorted((ROOT / "evalgate_lib" / "judging").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if alias.name in splitters | {"iter_sentences_of_blocks", "read_blocks"}
        }
        if path.name not in allowed:
            assert not used, f"{path.name} splits text itself: {used}"


def test_a_closing_about_the_question_claims_nothing() -> None:
    assert roles("Uploads are limited to 5 GB. Hopefully this answers your question!") == [
        ("claim", "Uploads are limited to 5 GB."),
        ("courtesy", "Hopefully this answers your question!"),
    ]
    # a sentence that names something checkable is still a claim, whatever it ends on
    assert roles("The --answers flag answers your question automatically.")[0][0] == "claim"


def test_a_bare_yes_or_no_behind_a_source_frame_is_polar() -> None:
    assert roles("As stated in the docs, yes. Redirects are followed.") == [
        ("polar", "As stated in the docs, yes."),
        ("claim", "Redirects are followed."),
    ]


def test_a_lead_in_about_reading_the_context_is_a_frame_a_condition_of_its_own_is_not() -> None:
    (sentence,) = read_answer("If I understand the passages right, the limit is 5 GB.").sentences
    assert (sentence.role, sentence.claim) == ("claim", "the limit is 5 GB.")
    assert sentence.clauses[0].frame.strip() == "If I understand the passages right,"
    (sentence,) = read_answer("As far as the documentation says, the limit is 5 GB.").sentences
    assert sentence.claim == "the limit is 5 GB."
    # "build" and "fails" are a condition's own words: the whole sentence is the claim
    (sentence,) = read_answer("If the documentation build fails, run make clean.").sentences
    assert sentence.claim == "If the documentation build fails, run make clean."

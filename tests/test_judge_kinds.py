"""The error kinds issue 27 names, each fixed by a principle and held here by a hand-made case.

Every case is one answer judged from strings with the default judge (``prose`` + ``claim``), the
code every run calls (:func:`evalgate_lib.judging.answer.judge_answer`). The expected figures are
counted by hand in the comments.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from evalgate_lib.judging.phrases import expand_contractions, is_phrase, phrase_found

from evalgate_lib.inputs.answer_logs import load_answer_log
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.inputs.labelled_sets import load_sets
from evalgate_lib.judging.answer import judge_answer

ROOT = Path(__file__).resolve().parent.parent

READLINE = (
    "readline",
    "## `readline.createInterface(options)`\n\n* `crlfDelay` {number} If the delay between `\\r` and `\\n` exceeds "
    "`crlfDelay` milliseconds, both `\\r` and `\\n` will be treated as separate end-of-line input. "
    "**Default:** `100`.\n* `terminal` {boolean} Treat the stream as a TTY.",
)
OS = (
    "os",
    "## `os.homedir()`\n\nReturns the string path of the current user's home directory.\n\n"
    "On Windows, it uses the `USERPROFILE` environment variable if defined. Otherwise it uses the path to the "
    "profile directory of the current user.",
)
TEMPFILE = (
    "tempfile",
    ".. function:: gettempdir()\n\n   Return the name of the directory used for temporary files.\n\n"
    "   Python searches a standard list of directories: the directory named by the :envvar:`TMPDIR` environment "
    "variable, then on other platforms the directories ``/tmp``, ``/var/tmp``, and ``/usr/tmp``, in that order.\n",
)
TIMERS = (
    "timers",
    "## Scheduling timers\n\n`setTimeout(callback, delay)` schedules a callback after `delay` milliseconds. "
    "`clearTimeout(timeout)` cancels a timeout created by `setTimeout()`.",
)
CMAKE = (
    "project",
    "project\n-------\n\nSet the name of the project.\n\n.. versionadded:: 3.0\n   Added the ``VERSION`` option.\n\n"
    "By default ``C`` and ``CXX`` are enabled if no language options are given.\n\n"
    "If ``<step>`` is not specified, the step size is 1.\n",
)
PLANS = (
    "Plans",
    "## Seats\n\n| Plan | Seats |\n|---|---|\n| Business | minimum 5 seats |\n| Enterprise | minimum 50 seats |\n",
)


def judge(
    question: str,
    answer: str,
    passages: list,
    accept: tuple[str, ...] = ("x",),
    answerable: bool = True,
    matching: str = "claim",
):
    return judge_answer(
        question=question, answer=answer, passages=passages, accept=accept, answerable=answerable, matching=matching
    )


def test_short_direct_answers_are_held_by_their_identifier_next_to_the_question() -> None:
    crlf = judge(
        "Which option of readline.createInterface() controls how \\r\\n is treated?",
        "Use the `crlfDelay` option.",
        [READLINE],
        ("crlfDelay",),
    )
    # own words {use, option}, identifier crlfdelay: the span holds crlfdelay and option, lacks "use" (a frame word)
    (sentence,) = crlf.sentences
    assert sentence.supported is True and sentence.undecided is False
    assert "2/3 words (0.67), lacking use" in sentence.reason
    tmp = judge(
        "What does tempfile.gettempdir() return on Linux when TMPDIR is not set?",
        "It returns `/tmp`.",
        [TEMPFILE],
        ("/tmp",),
    )
    assert tmp.sentences[0].supported is True and tmp.correct is True


def test_a_restated_premise_is_held_by_the_span_under_its_signature() -> None:
    verdict = judge(
        "Which environment variable does os.homedir() read on Windows?",
        "On Windows, `os.homedir()` uses the `USERPROFILE` environment variable if it is defined.",
        [OS],
        ("USERPROFILE",),
    )
    # os.homedir is held by the section heading that labels the unit; the unit holds windows, userprofile, ...
    assert verdict.sentences[0].supported is True and verdict.sentences[0].undecided is False
    assert "os.homedir()" in (verdict.sentences[0].span or "")


def test_a_statement_of_what_the_context_covers_is_read_topic_by_topic() -> None:
    verdict = judge(
        "How do I schedule a job every day at midnight with timers?",
        "The context doesn't say how to schedule a job at a fixed time of day. It only covers scheduling "
        "timeouts and cancelling them with `clearTimeout()`.",
        [TIMERS],
        (),
        answerable=False,
    )
    decline, coverage = verdict.sentences
    assert decline.supported is None and decline.refusal is True
    assert coverage.supported is True and "each of its 2 topic(s)" in coverage.reason
    assert verdict.correct is True and verdict.refused is True


def test_markup_never_decides_a_verdict() -> None:
    backticks = judge(
        "Which languages does project() enable by default?",
        "By default, `project()` enables `C` and `CXX`.",
        [CMAKE],
        ("C and CXX",),
    )
    assert backticks.correct is True and backticks.sentences[0].supported is True
    # the paragraph after a versionadded directive supports, and the directive is read as Sphinx renders it
    added = judge(
        "Since when does project() take a VERSION option?",
        "The `VERSION` option was added in version 3.0.",
        [CMAKE],
        ("3.0",),
    )
    assert added.correct is True and added.sentences[0].supported is True
    # a sentence that starts with a code span is a sentence of its own
    two = judge(
        "What does project() do?",
        "It sets the name of the project. `project()` also enables languages.",
        [CMAKE],
        ("name",),
    )
    assert [s.text for s in two.sentences] == [
        "It sets the name of the project.",
        "`project()` also enables languages.",
    ]


def test_a_conditional_is_content_and_an_apology_is_courtesy() -> None:
    step = judge("What is the default step size?", "If `<step>` is not specified, the step size is 1.", [CMAKE], ("1",))
    assert step.correct is True and step.refused is False and step.sentences[0].supported is True
    sorry = "I'm sorry, but the context doesn't mention a price in euros."
    declined = judge("How much does it cost in euros?", sorry, [CMAKE], (), answerable=False)
    assert declined.correct is True and declined.sentences[0].supported is None and not declined.unsupported_sentences


@pytest.mark.parametrize("matching", ["claim", "token", "normalised", "raw"])
def test_every_correctness_rule_reads_the_same_declines(matching: str) -> None:
    for answer in (
        "I'm sorry, but the context doesn't mention a price in euros.",
        "The provided passages don't cover euro prices, so I can't say.",
        "Unfortunately, that isn't stated in the documentation.",
    ):
        verdict = judge(
            "How much does Starter cost in euros?", answer, [CMAKE], (), answerable=False, matching=matching
        )
        assert verdict.correct is True and verdict.refused is True, (matching, answer)


@pytest.mark.parametrize(
    ("accept", "answer"),
    [
        ("256K", "The limit is about 256 KB."),  # unit spellings: 256K = 256 KB = 256 kB (normalised)
        ("does nothing", "Nothing — it's a no-op."),  # content word 'nothing' in one clause
        ("rejected promise", "It returns a promise that's already rejected."),  # any order in one clause
        ("not safe", "No, it isn't safe to share the handle."),  # negation read through the contraction
    ],
)
def test_a_short_accepted_phrase_is_read_in_other_words(accept: str, answer: str) -> None:
    verdict = judge("What happens?", answer, [CMAKE], (accept,))
    assert verdict.correct is True, verdict.matching.reason


def test_phrase_reading_keeps_negation_identifiers_and_values_exact() -> None:
    assert expand_contractions("It isn't safe; you can't; it won't") == "it is not safe; you can not; it will not"
    assert phrase_found(["It is safe to share."], ["not safe"]) is None  # negation must match
    assert phrase_found(["It is not safe."], ["safe"]) is None
    assert phrase_found(["Sharing it, however, is not safe."], ["not safe"]) == ("not safe", "is not safe.")
    assert not is_phrase("--cert") and not is_phrase("10 GB") and not is_phrase(".netrc")  # exact, or normalised
    assert is_phrase("does nothing") and not is_phrase("one two three four five")  # at most four content words


def test_a_value_held_by_another_subjects_row_is_not_supported() -> None:
    # "5 seats" stands in the Business row; the question and the claim are about Enterprise, which the
    # passage names (in another row): the span is about something else
    wrong = judge(
        "What is the minimum number of seats for an Enterprise plan?",
        "The minimum number of seats for an Enterprise plan is 5.",
        [PLANS],
        ("50 seats",),
    )
    (sentence,) = wrong.sentences
    assert sentence.supported is False and "lacks enterpris" in sentence.reason
    right = judge(
        "What is the minimum number of seats for an Enterprise plan?",
        "The minimum number of seats for an Enterprise plan is 50.",
        [PLANS],
        ("50 seats",),
    )
    assert right.sentences[0].supported is True and right.correct is True


def test_replacing_every_accept_list_leaves_every_review_flag_and_its_reasons_unchanged() -> None:
    """The review queue reads no gold answer: on a shipped labelled set (demo model and fluent answers),
    judging every answer again with every accept list replaced changes no ``review`` and no reason of it."""
    checked = 0
    for labelled in load_sets(ROOT / "labels" / "sets.toml"):
        if labelled.name not in ("nimbus / demo model", "requests-docs / fluent"):
            continue
        questions = {q.id: q for q in load_gold(labelled.gold)}
        for _config, path in labelled.answers:
            for answer in load_answer_log(path, list(questions)).answers:
                q = questions[answer.question_id]
                passages = [(p.title or p.doc_id or "", p.text) for p in answer.passages]
                top = answer.passages[0].score if answer.passages and answer.passages[0].score is not None else 1.0

                def flags(accept: tuple[str, ...], q=q, answer=answer, passages=passages, top=top):  # noqa: ANN001
                    return judge_answer(
                        question=q.question,
                        answer=answer.answer,
                        passages=passages,
                        accept=accept,
                        answerable=q.answerable,
                        top_similarity=top,
                    ).flags

                given, replaced = flags(tuple(q.accept)), flags(("an accepted string no answer holds",))
                assert (given.review, given.reasons.get("review")) == (replaced.review, replaced.reasons.get("review"))
                checked += 1
    assert checked == 202 + 108

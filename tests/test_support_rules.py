"""Support, rule by rule: each rule of the table decides its own example, with figures counted by hand.

Every case is one answer judged from strings by the default judge (``judge_answer``, the code every run
calls); the deciding rule, its outcome and its evidence are read from the verdict's trace.
"""

from __future__ import annotations

import pytest

from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.reading import read_answer
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.support import (
    NEAR_MISS,
    SUPPORT_RULES,
    WORD_FLOOR,
    _negative_forms,
    clauses_of,
    held_exact,
    swapped,
    words_outcome,
)

PLANS = (
    "Nimbus plans and pricing (2026)",
    "## Seats\n\nStarter includes 3 seats in its flat price. Each additional Starter seat costs $10 per month, "
    "and a Starter workspace can grow to a maximum of 10 seats.\n\n"
    "| Plan | Annual billing | Monthly billing |\n|---|---|---|\n| Business | $18 per user per month | "
    "$22 per user per month |\n",
)
LOCK = (
    "Two-factor authentication",
    "After 10 wrong password attempts the account is locked for 60 minutes. Admins select Generate SCIM token "
    "to provision users.",
)
TRIAL = ("Trials", "The free trial lasts 80 days for every plan.")


def one(answer: str, passages: list, question: str = "What does the plan include?", **kw) -> SentenceVerdict:
    verdict = judge_answer(question=question, answer=answer, passages=passages, accept=kw.pop("accept", ("x",)), **kw)
    claiming = [s for s in verdict.sentences if s.supported is not None]
    assert len(claiming) == 1, [s.text for s in verdict.sentences]
    return claiming[0]


def deciding(s: SentenceVerdict) -> tuple[str, str]:
    return s.rule, s.steps[-1].outcome


def test_every_rule_has_an_id_a_sentence_an_example_and_a_reason() -> None:
    for rule_id, rule in SUPPORT_RULES.items():
        assert rule.id == rule_id and rule_id.startswith(("S.", "L."))
        assert rule.decides and rule.example and rule.reason


def test_verbatim() -> None:
    s = one("Starter includes 3 seats in its flat price.", [PLANS])
    assert deciding(s) == ("S.verbatim", "supported") and s.steps[-1].evidence == {"passage": 1}
    assert s.reason == "copied verbatim from passage [1]"


def test_absent_number() -> None:
    s = one("Starter includes 7 seats.", [PLANS])
    assert deciding(s) == ("S.absent", "unsupported") and s.steps[-1].evidence["missing"] == ["7"]
    assert s.undecided is False and s.supported is False


def test_seventy_days_against_eighty_is_a_hallucination_not_grounded_but_wrong() -> None:
    # issue 44: one number table now; "seventy" is 70, which the context never gives
    verdict = judge_answer(
        question="How long is the free trial?", answer="The trial lasts seventy days.", passages=[TRIAL],
        accept=["80 days"],
    )  # fmt: skip
    (s,) = verdict.sentences
    assert deciding(s) == ("S.absent", "unsupported") and s.steps[-1].evidence["missing"] == ["70"]
    assert verdict.hallucination and not verdict.grounded_but_wrong
    thirty = judge_answer(question="How long is the free trial?", answer="The trial lasts thirty days.",
                          passages=[("Trials", "The free trial lasts 40 days.")], accept=["40 days"])  # fmt: skip
    assert thirty.hallucination and not thirty.grounded_but_wrong


def test_apart_value_held_elsewhere() -> None:
    s = one("A Starter workspace can grow to a maximum of 3 seats.", [PLANS])
    # 3 is in the context (the first sentence), but the span about the maximum holds 10, not 3
    assert s.rule in ("S.apart", "S.unit", "S.binding", "S.words")
    assert s.supported is False or s.undecided


def test_unit() -> None:
    s = one("The account is locked for 10 days.", [LOCK])
    assert deciding(s) == ("S.unit", "unsupported")
    assert s.steps[-1].evidence["quantity"] == "10 day" and s.steps[-1].evidence["number"] == "10"


def test_swap() -> None:
    assert swapped("Admins select Generate SSO token to provision users.", LOCK[1].split(". ")[1]) == ("SSO", "SCIM")
    s = one("Admins select Generate SSO token to provision users.", [LOCK])
    assert deciding(s) == ("S.swap", "unsupported")


def test_negation_both_ways() -> None:
    # the claim's words stand by a place that says it without a negation: decided, with that place as evidence
    s = one("Starter does not include 3 seats in its price.", [PLANS])
    assert deciding(s) == ("S.negation", "unsupported") and s.supported is False
    assert s.steps[-1].evidence["value"] == "negative" and s.steps[-1].evidence["rival"] == "positive"
    # the other way: a "not" dropped ("You can do X before N" held by "It is not possible to do X before N")
    context = [("Upgrades", "It is not possible to downgrade a workspace before the end of its billing year.")]
    s = one("You can downgrade a workspace before the end of its billing year.", [*context])
    assert deciding(s) == ("S.negation", "unsupported")
    # too few subject words of its own to align: only the span's silence, undecided
    s = one("Business is not available.", [("Plans", "Business is available.")])
    assert deciding(s) == ("S.negation", "undecided") and s.supported is False


def test_a_negated_condition_doubts_only_a_word_its_span_states() -> None:
    """The span's silence doubts a negation in the claim's main clause, but a condition's negation only where the
    span states the word it negates: "if you don't want …" speaks of wanting, which no documentation denies."""
    drive = ("Nimbus Drive", "By default Nimbus Drive uses all available bandwidth. You can limit upload and download "
             "speed under Preferences > Network.")  # fmt: skip
    wish = one("You can limit upload and download speed under Preferences > Network if you don't want Nimbus Drive "
               "using all your bandwidth.", [drive])  # fmt: skip
    assert wish.supported is True and wish.rule != "S.negation"
    main = one("If you need to, you cannot limit upload and download speed under Preferences > Network.", [drive])
    # the main clause's negation, cut from its condition: the place "You can limit …" says the opposite (prose@10;
    # undecided before, when only the span's silence was read)
    assert deciding(main) == ("S.negation", "unsupported")
    trial = ("Trials", "If the workspace was created with a coupon, the trial lasts 60 days for every plan.")
    edited = one("If the workspace was not created with a coupon, the trial lasts 60 days for every plan.", [trial])
    assert deciding(edited) == ("S.negation", "undecided")  # the span states *created*: the condition's negation
    wheels = ("Secure installs", "Locally built wheels are nondeterministic, making hashes unpredictable across "
              "machines and cache flushes.")  # fmt: skip
    prefixed = one("Hashes of locally built wheels aren't predictable across machines and cache flushes.", [wheels])
    assert prefixed.supported is True  # "aren't predictable" is "unpredictable": the span says it negatively
    assert _negative_forms("hashes unpredictable, a non-blocking call, invalid input") == {"predict", "block", "valid"}


def test_subject_of_a_fragment() -> None:
    passages = [("Plans", "| Plan | Seats |\n|---|---|\n| Business | minimum 5 |\n| Enterprise | minimum 50 |")]
    s = one("5.", passages, question="What is the minimum number of seats on the Enterprise plan?")
    # the fragment takes the question's words: they stand by 50 in the Enterprise row, not by 5
    assert s.rule in ("S.binding", "S.subject", "S.words") and s.supported is False


def test_words_floor_figures() -> None:
    # 4 words needed, 3 held: 0.75 >= WORD_FLOOR → supported; 1 of 4: 0.25 < NEAR_MISS → unsupported
    assert words_outcome({"needed": ["a", "b", "c", "d", "e"], "held": ["a", "b", "c"]}) == "supported"  # 0.60
    assert words_outcome({"needed": ["a", "b", "c", "d", "e"], "held": ["a", "b"]}) == "undecided"  # 0.40
    assert words_outcome({"needed": ["a", "b", "c", "d", "e"], "held": ["a"]}) == "unsupported"  # 0.20
    # a short claim (4 words or fewer) may miss one word
    assert words_outcome({"needed": ["a", "b", "c", "d"], "held": ["a", "b", "c"]}) == "supported"
    # a fragment's question words: 1 of 3 is under NEAR_MISS
    evidence = {"needed": ["5"], "held": ["5"], "question_needed": ["a", "b", "c"], "question_held": ["a"]}
    assert words_outcome(evidence) == "unsupported"
    assert 0.4 < WORD_FLOOR and 0.2 < NEAR_MISS < 0.4


def test_words_supported_paraphrase() -> None:
    s = one("The Starter plan comes with three seats included in the flat price.", [PLANS])
    assert deciding(s) == ("S.words", "supported")
    evidence = s.steps[-1].evidence
    assert set(evidence["held"]) <= set(evidence["needed"]) and len(evidence["held"]) / len(evidence["needed"]) >= 0.55


def test_clauses() -> None:
    assert clauses_of("Starter includes 3 seats in its flat price, and each additional Starter seat costs $10.") == [
        "Starter includes 3 seats in its flat price",
        "each additional Starter seat costs $10.",
    ]
    # each clause claims only the code written in it: the Linux clause is not asked for the Windows path
    paths = [("Linux", "On Linux the default cache is `~/.cache/pip`; pip also respects `XDG_CACHE_HOME`."),
             ("Windows", "On Windows the default cache is `%LocalAppData%\\pip\\Cache`.")]  # fmt: skip
    joined = one("On Linux the default cache respects `XDG_CACHE_HOME`, and on Windows it's "
                 "`%LocalAppData%\\pip\\Cache`.", paths)  # fmt: skip
    assert deciding(joined) == ("S.clauses", "supported")


def test_code_line() -> None:
    context = [("Cache", "Run `pip cache purge` to remove every wheel; `pip cache dir` prints the folder.")]
    ok = one("```\npip cache purge --verbose\n```", context)
    assert deciding(ok) == ("S.code", "unsupported") and ok.steps[-1].evidence["missing"] == ["--verbose"]


def test_coverage_statement() -> None:
    timers = (
        "timers",
        "`setTimeout(callback, delay)` schedules a callback. `clearTimeout(timeout)` cancels a timeout.",
    )
    verdict = judge_answer(
        question="How do I schedule a job at midnight?",
        answer="The context doesn't say. It only covers scheduling timeouts and cancelling them.",
        passages=[timers], accept=(), answerable=False,
    )  # fmt: skip
    decline, coverage = verdict.sentences
    assert decline.role == "decline" and decline.supported is None
    assert coverage.role == "context" and deciding(coverage) == ("S.coverage", "supported")
    assert verdict.correct and verdict.refused


def test_advice_is_judged_like_any_claim_its_frame_removed() -> None:
    # measured: reading advice as claiming nothing cost the Nimbus fluent set 0.07 of κ and earned nowhere (ablation)
    verdict = judge_answer(question="How do I add seats?", answer="Keep in mind that Starter includes 3 seats.",
                           passages=[PLANS], accept=("x",))  # fmt: skip
    (s,) = verdict.sentences
    assert s.role == "claim" and s.supported is True and s.text == "Keep in mind that Starter includes 3 seats."
    assert read_answer("Keep in mind that Starter includes 3 seats.").sentences[0].clauses[0].frame == (
        "Keep in mind that "
    )


def test_lean_by_answer() -> None:
    answer = (
        "Starter includes 3 seats in its flat price. Each additional Starter seat costs $10 per month. "
        "It comes with the seats included and nothing else, basically."
    )
    verdict = judge_answer(question="What does Starter include?", answer=answer, passages=[PLANS], accept=("3 seats",))
    leaning = [s for s in verdict.sentences if s.steps and s.steps[-1].rule == "L.answer"]
    for s in leaning:
        assert s.undecided and s.supported is True


def test_qualified_names_and_paths_are_held_by_their_parts() -> None:
    held = frozenset({"json.dumps", "~/.config/pip/pip.conf", "response.json", "cmp_to_key", "functools"})
    names = frozenset({"json.dumps", "response.json", "cmp_to_key"})
    assert held_exact(frozenset({"r.json"}), held, names) == {"r.json"}  # a short variable's attribute
    assert held_exact(frozenset({"pip.conf"}), held, names) == {"pip.conf"}  # a file on a path
    assert held_exact(frozenset({"functools.cmp_to_key"}), held, names) == {"functools.cmp_to_key"}
    assert held_exact(frozenset({"pip.config"}), held | {"config", "pip"}, names) == frozenset()
    # a dotfile is a file's name, no attribute: ".config" (from "$HOME/.config") does not hold "pip.config"
    assert held_exact(frozenset({"pip.config"}), held | {".config", "pip"}, names | {".config"}) == frozenset()
    assert held_exact(frozenset({"v2"}), frozenset({"2"}), frozenset({"2"})) == {"v2"}



def test_a_number_quoted_from_an_interactive_example_is_in_the_passages() -> None:
    """An example's numbers are its data (no rival value), but a claim quoting the example writes what the passages
    write: ``width=11`` is not a number the passages never give (S.absent)."""
    from evalgate_lib.judging.context import read_context

    page = ("textwrap", "Shorten a text to fit the width.\n\n```pycon\n"
            ">>> textwrap.shorten('Hello  world!', width=11)\n'Hello [...]'\n```\n")  # fmt: skip
    assert "11" in read_context((page,)).everything
    quoted = one("textwrap.shorten('Hello world!', width=11) gives a shortened text.", [page])
    assert quoted.rule not in ("S.absent", "S.apart")  # in the passages, and in the span it is about


def test_a_signature_line_says_its_parameters_and_their_defaults() -> None:
    """A signature ("copytree(src, dst, symlinks=False)") says, in the lexicon's words, that copytree takes the
    parameter symlinks and that it defaults to False: a claim restating it is held by the signature line."""
    from evalgate_lib.judging.context import _signature_words

    assert _signature_words("signature", "copytree(src, dst, symlinks=False)") == {
        "paramet", "argument", "signatur", "default"}  # fmt: skip
    assert _signature_words("signature", "copytree(src, dst)") == {"paramet", "argument", "signatur"}
    assert _signature_words("paragraph", "copytree(src, dst, symlinks=False)") == frozenset()
    page = ("shutil", ".. function:: copytree(src, dst, symlinks=False, ignore=None)\n\n   Copy a directory tree.\n")
    said = one("The symlinks parameter appears in the copytree signature with a default of False.", [page])
    assert said.supported is True


def test_a_qualified_name_is_held_by_the_signature_its_module_page_documents() -> None:
    """Sphinx shows ``.. function:: dump(obj, fp, *, sort_keys=False)`` on the ``json`` page with ``dump`` in code
    type: "json.dump()" is the function that page documents, not a name the passages lack (S.absent)."""
    page = (":mod:`json` --- JSON encoder and decoder", ".. function:: dump(obj, fp, *, sort_keys=False)\n\n"
            "   Serialize *obj* as a JSON formatted stream to *fp*. If *sort_keys* is true, the output of "
            "dictionaries will be sorted by key.\n")  # fmt: skip
    held = one("The sort_keys parameter of json.dump() sorts the output of dictionaries by key.", [page])
    assert held.supported is True and held.rule != "S.absent"
    other = one("The sort_keys parameter of pickle.dump() sorts the output of dictionaries by key.", [page])
    assert deciding(other) == ("S.absent", "unsupported") and other.steps[-1].evidence["missing"] == ["pickle.dump"]

@pytest.mark.parametrize(
    "answer",
    [
        "Starter includes 3 seats in its flat price.",
        "Starter includes 7 seats.",
        "The account is locked for 10 days.",
        "Starter does not include 3 seats in its price.",
        "Keep in mind that Starter includes 3 seats.",
    ],
)
def test_no_decided_verdict_is_overturned(answer: str) -> None:
    """The first rule that decides ends the table: every step before the last abstains (an L.answer lean may only
    follow an undecided step)."""
    verdict = judge_answer(question="What is it?", answer=answer, passages=[PLANS, LOCK], accept=("x",))
    for s in verdict.sentences:
        deciding = [step for step in s.steps if step.outcome != "abstains"]
        assert len(deciding) <= 1 or (len(deciding) == 2 and deciding[0].outcome == "undecided"
                                      and deciding[1].rule == "L.answer"), s.steps  # fmt: skip


def test_a_number_takes_the_unit_after_it_across_numbers_and_range_words() -> None:
    """The unit search the S.unit and S.binding rules read, by hand: each number gets the first unit after it,
    crossing only numbers and range words; a count's noun is not a unit, so it binds nothing."""
    from evalgate_lib.judging.terms import _units_after, quantities

    assert quantities("30 to 365 days") == {("30", "day"), ("365", "day")}
    assert quantities("1, 2 or 5 GB") == {("1", "gb"), ("2", "gb"), ("5", "gb")}
    assert quantities("after 10 wrong attempts it is locked for 60 minutes") == {("60", "minute")}
    assert quantities("$18 per user, 95% uptime") == {("18", "$"), ("95", "%")}
    assert _units_after(["10", "to", "20", "gb", "and", "3", "seats"]) == ["gb", "gb", "gb", None, None, None, None]
    # 40,000 numbers in a row: one pass from the right (the former search walked past every later number)
    assert len(quantities(", ".join(["1"] * 40_000) + " GB")) == 1


SEATS_TABLE = (
    "Nimbus plans and pricing (2026)",
    "## Plan overview\n\n| Plan | Seats | Storage |\n|---|---|---|\n"
    "| Business | minimum 5, up to 500 | 2 TB per seat, pooled |\n",
)


def test_binding_a_number_stands_by_its_own_words_in_a_clause_and_in_a_table_cell() -> None:
    """S.binding by hand, in a clause and in a table cell.

    A clause: "100 GB" stands in the clause "team folders accept 100 GB", which holds none of the claim's subject
    words {maximum, upload, web, browser, gb}; the clause of "5 GB" holds four of them (web, browser, upload, gb),
    at least BIND_FLOOR (0.5) of five, and every word the claim's own clause holds. A table cell: the claim's one
    number, 2, stands in the Storage cell, which with its row label and heading holds {busi, seat} of the claim's
    words {busi, minimum, number, seat}; the Seats cell holds {busi, minimum, seat}: those and one more, 3 of 4.
    """
    web = ("Limits", "Web browser uploads are limited to 5 GB; team folders accept 100 GB.")
    s = one("The maximum upload from the web browser is 100 GB.", [web])
    assert deciding(s) == ("S.binding", "unsupported")
    assert s.steps[-1].evidence["value"] == "100 gb" and s.steps[-1].evidence["rival"] == "5 gb"

    row = one("The minimum number of seats on the Business plan is 2.", [SEATS_TABLE],
              question="What is the minimum number of seats on the Business plan?")  # fmt: skip
    assert deciding(row) == ("S.binding", "unsupported")
    evidence = row.steps[-1].evidence
    assert (evidence["value"], evidence["rival"]) == ("2", "5, 500")
    assert evidence["place"] == "Business | Seats: minimum 5, up to 500"
    assert evidence["own_place"] == "Business | Storage: 2 TB per seat, pooled"
    assert (evidence["held"], evidence["own_held"]) == (["busi", "minimum", "seat"], ["busi", "seat"])
    assert "the claim's words (busi, minimum, seat) stand by 5, 500" in row.reason

    # the context writes the claim's value in the claim's words ("15-day restore window"): a place holding more of
    # the claim's other words (Nimbus, restore window) beside another number is no rival for it
    restore = ("Deleting your account", "When the 15-day restore window ends, your files are deleted. Remaining "
               "copies in Nimbus backups are purged within 60 days after the restore window ends.")  # fmt: skip
    kept = one("You can cancel the deletion of a Nimbus account during the 15-day restore window.", [restore])
    assert kept.rule != "S.binding" and kept.supported is True
    from evalgate_lib.judging.context import read_context
    from evalgate_lib.judging.support import _written_beside

    places = read_context((restore,)).places
    assert _written_beside("15", "during the 15-day restore window.", places)  # "15 day restore window" in both
    assert not _written_beside("60", "during the 60-day restore window.", places)  # "60 days after the": not it
    assert not _written_beside("15", "it lasts 15 days.", places)  # under three words after it: no phrase

    # the claim's own column: the number and the words stand together, and the rule abstains
    fine = one("The Business plan has a minimum of 5 seats.", [SEATS_TABLE],
               question="What is the minimum number of seats on the Business plan?")  # fmt: skip
    assert fine.supported is True and "S.binding" not in {st.rule for st in fine.steps if st.outcome != "abstains"}
    # two numbers may read two cells, each by its own number: the rule does not bind them
    two = one("Business allows 5 seats and 2 TB per seat.", [SEATS_TABLE],
              question="What does the Business plan include?")  # fmt: skip
    assert two.rule != "S.binding"


# --------------------------------------------------------------------------------------------- prose@9


def test_two_numbers_pin_the_span_whose_subject_a_claim_moves() -> None:
    """A chunk cut inside a table loses its header row, so the Business row holds few of the claim's words; its two
    numbers still place the claim there, and that row names Business, not the Enterprise the claim says."""
    cut = ("Plans and pricing", "| Business | $18 per user per month | minimum 5, up to 500 |\n"
           "| Enterprise | custom quote | minimum 50 |\n\nWorkspaces that need more than 10 seats must move to "
           "Business. Restricting a subfolder is available on Business and Enterprise only.")  # fmt: skip
    moved = one("If your team needs more than that, upgrade to the Enterprise plan, which supports from 5 up to 500 "
                "seats.", [cut])  # fmt: skip
    assert deciding(moved) == ("S.name", "unsupported")
    assert moved.steps[-1].evidence["value"] == "enterpris" and moved.steps[-1].evidence["rival"] == "busi"
    kept = one("If your team needs more than that, move to the Business plan, which supports from 5 up to 500 seats.",
               [cut])  # fmt: skip
    assert kept.rule != "S.name"  # the row names Business: the name stands (its words are S.words' to weigh)


def test_a_restrictive_word_the_claim_states_too_does_not_hold_its_negation() -> None:
    """"unless" restricts the span and the claim alike: what differs is the claim's "not" (S.negation), where the
    span's "unless" used to count as the negative that held it."""
    from evalgate_lib.judging.context import restrictive_words

    assert restrictive_words("Deleted after 180 days unless reactivated, only on Business.") == {"unless", "only"}
    accounts = ("Members", "Deactivated member accounts are deleted automatically after 180 days unless they are "
                "reactivated.")  # fmt: skip
    flipped = one("Deactivated member accounts are not deleted automatically after 180 days unless they are "
                  "reactivated.", [accounts])  # fmt: skip
    assert flipped.rule == "S.negation" and flipped.supported is False
    only = ("Single sign-on", "In 2024 SAML single sign-on was available only on Enterprise.")
    held = one("In 2024 SAML single sign-on was not available on Business.", [only])
    assert held.rule != "S.negation"  # "only on Enterprise" says it in other terms: the claim has no "only"


def test_a_bound_named_at_the_other_end_of_a_range() -> None:
    """"a minimum of 365 days" where the place about it says "from 30 to 365 days": the value is the range's upper
    end, and the claim calls it a lower bound (S.qualifier, with the range as the rival)."""
    from evalgate_lib.judging.slots import named_bounds, range_ends

    assert range_ends("Set it from 1 to 1,000 downloads, between 30 and 365 days, or --x=<4..1000>.") == {
        ("1", "1000"), ("30", "365"), ("4", "1000")}  # fmt: skip
    assert range_ends("version 3 to 2 on 2026-03-01") == frozenset()  # no lower first end: no range
    assert named_bounds("a minimum of 365 days, up to 500 seats, the maximum file size is 50 GB") == (
        ("365", "lower", "minimum"), ("500", "upper", "up to"))  # fmt: skip
    trash = ("Trash", "Enterprise admins can set trash retention from 30 to 365 days.")
    low = one("An Enterprise admin can set trash retention to a minimum of 365 days.", [trash])
    assert deciding(low) == ("S.qualifier", "unsupported")
    assert low.steps[-1].evidence["value"] == "minimum 365" and low.steps[-1].evidence["rival"] == "30 to 365"
    high = one("An Enterprise admin can set trash retention to a maximum of 365 days.", [trash])
    assert high.supported is True


def test_only_when_is_one_qualifier_not_a_cut() -> None:
    """"on only when configured" qualifies the clause it ends; cut before "when", its "only when" was lost and a
    flip of "by default" passed."""
    from evalgate_lib.judging.context import clause_texts

    assert clause_texts("It is on only when configured and is designed to reduce time.") == [
        "It is on only when configured", "and is designed to reduce time."]  # fmt: skip
    cache = ("Caching", "The HTTP cache is on by default and is designed to reduce the time spent on duplicate "
             "downloads.")  # fmt: skip
    flipped = one("The HTTP cache is on only when configured and is designed to reduce the time spent on duplicate "
                  "downloads.", [cache])  # fmt: skip
    assert deciding(flipped) == ("S.qualifier", "unsupported")


def test_a_placeholder_in_markdown_is_text_not_a_tag() -> None:
    """CommonMark reads "<pid>" as an inline tag; an HTML page read as Markdown-shaped text writes its placeholders
    so ("massif.out.<pid>"), and they are words of the passage. Markup tags and comments are still markup; a line
    break parts two words."""
    from evalgate_lib.text.markup import read_blocks

    (block,) = read_blocks("Run ms_print massif.out.<pid> <!-- note --> and <b>read</b> it<br/>later.", "markdown")
    assert block.text == "Run ms_print massif.out.<pid> and read it later."


def test_a_value_stands_with_the_name_of_code_the_claim_gives_it() -> None:
    """Two list items: 3.2.2 with GLIBCPP_FORCE_NEW and the export instruction, 3.4 with GLIBCXX_FORCE_NEW. A claim
    joining 3.4, GLIBCXX_FORCE_NEW and the instruction keeps 3.4 where its name is (no S.binding)."""
    faq = ("FAQ", "- With GCC 3.2.2 and later, you should export the environment variable GLIBCPP_FORCE_NEW before "
           "running your program.\n- With GCC 3.4 and later, that variable has changed name to GLIBCXX_FORCE_NEW.")
    joined = one("With GCC 3.4 and later, export the environment variable `GLIBCXX_FORCE_NEW` before running your "
                 "program.", [faq])  # fmt: skip
    assert joined.rule != "S.binding"


def test_a_defaults_negation_is_no_rival_of_the_option_that_changes_it() -> None:
    branch = ("Cachegrind", "Branch prediction statistics are not collected by default. To do so, add the option "
              "--branch-sim=yes.")  # fmt: skip
    how = one("Add the option --branch-sim=yes to collect branch prediction statistics.", [branch])
    assert how.supported is True
    wrong = one("Branch prediction statistics are collected by default.", [branch])
    assert deciding(wrong) == ("S.negation", "unsupported")


def test_two_words_joined_by_a_slash_in_prose_are_an_alternation() -> None:
    from evalgate_lib.judging.terms import terms_of

    assert terms_of("Reads/Writes (bytes) and their high-access variants").exact == frozenset()
    assert {"read", "write"} <= terms_of("Reads/Writes (bytes)").words
    kept = terms_of("see /usr/lib, a/b/c, docs/guide.md and src/main", ("src/main",)).exact
    assert {"usr/lib", "a/b/c", "docs/guide.md", "src/main"} <= kept  # paths, and one in a code span
    dhat = ("DHAT", "Reads (bytes)\n\nThe number of bytes read within heap blocks.\n\nWrites (bytes)\n\nThe number "
            "of bytes written within heap blocks.")  # fmt: skip
    said = one("Reads/Writes (bytes) count the bytes read and written within heap blocks.", [dhat])
    assert said.rule != "S.absent"


def test_a_negation_stated_elsewhere_of_the_same_subject_is_not_doubted() -> None:
    """The span's silence doubts a negative claim, unless another place negates the same word with the claim's
    subject ("without copying any files"); a negation of another subject ("files will not match") does not count."""
    editable = ("Editable installs", "Editable installs allow you to install your project without copying any "
                "files. Instead, the files in the development directory are added to Python's import path.")
    said = one("Editable installs don't copy any files; instead, the files in your development directory are added "
               "to Python's import path.", [editable])  # fmt: skip
    assert said.supported is True
    glob = ("glob", "If the pattern is followed by a separator then files will not match. The glob module finds all "
            "the pathnames matching a pattern according to the rules used by the Unix shell.")  # fmt: skip
    other = one("The glob module finds all the pathnames matching a pattern according to the rules used by the Unix "
                "shell, but it will not match hidden directories.", [glob])  # fmt: skip
    assert deciding(other) == ("S.negation", "undecided")


def _a_name_swap_is_caught(passage: tuple[str, str], swapped: str, faithful: str, rival: str) -> None:
    """S.name holds ``swapped`` unsupported with ``rival`` as its evidence, and the faithful claim supported."""
    verdict = one(swapped, [passage])
    assert deciding(verdict) == ("S.name", "unsupported")
    assert verdict.steps[-1].evidence["rival"] == rival
    assert one(faithful, [passage]).supported is True


def test_a_relative_clause_says_what_it_says_of_the_code_named_before_it() -> None:
    """prose@10: "cg_diff is a simple program | which reads two profile files …" is cut in two places; the relative
    clause names no code, so it takes cg_diff from the clause before it, and a claim giving its words to another
    program is bound elsewhere (S.name)."""
    page = ("Cachegrind", "cg_diff is a simple program which reads two profile files, finds the difference between "
            "them, and writes the results into another file. You can then examine the merged results using "
            "cg_annotate, as described above.")  # fmt: skip
    said = "{} reads two profile files and finds the difference between them."
    _a_name_swap_is_caught(page, said.format("cg_annotate"), said.format("cg_diff"), rival="cg_diff")


def test_an_option_written_with_its_choices_gives_each_of_them() -> None:
    """prose@10: ``--stacks=<yes|no>`` gives ``--stacks=no`` (it had been read as the menu path
    ``--stacks=<yes|no > [default``, and ``--stacks=no`` as absent)."""
    from evalgate_lib.judging.terms import terms_of

    assert terms_of("--stacks=<yes|no> [default: no]").exact == {"--stacks", "--stacks=yes", "--stacks=no"}
    assert terms_of("--color=[auto|never] or --mode={a,b}").exact == {
        "--color", "--color=auto", "--color=never", "--mode", "--mode=a", "--mode=b",
    }  # fmt: skip
    synopsis = ("Massif", "--stacks=<yes|no> [default: no]\n\nSpecifies whether stack profiling should be done.")
    assert one("Stack profiling is done only with --stacks=yes.", [synopsis]).rule != "S.absent"


def test_the_span_a_claim_is_about_may_name_any_other_proper_name_of_the_domain() -> None:
    """prose@10: a plan swapped for a role ("the Admins plan") passed S.name, which compared a proper name only with
    those named beside it in a line (Admins beside Owner, not beside Business). The row the claim's words and value
    stand by names Business and not Admins: unsupported, with Business as the rival (not "Plan", a word the claim
    writes too)."""
    audit = ("Audit log", "How long audit events are kept depends on the plan:\n\n| Plan | Audit log retention |\n"
             "|---|---|\n| Business | 1 year |\n| Enterprise | 7 years |\n\nOnly Admins and the Owner can export the "
             "audit log.")  # fmt: skip
    said = "On the {} plan, audit events are kept for 1 year."
    _a_name_swap_is_caught(audit, said.format("Admins"), said.format("Business"), rival="busi")


def test_the_main_clause_after_a_condition_has_its_polarity_compared() -> None:
    """prose@10: a clause opening on a condition was skipped whole by S.negation's binding, so the flip of its main
    clause ("If you've forgotten it, note that Nimbus does store …") passed; the main clause after the condition's
    comma is compared now, the condition still is not."""
    links = ("Shared links", "Nimbus does not store link passwords in readable form, so if you forget a link password "
             "you must set a new one from Link settings.")  # fmt: skip
    flipped = one("If you've forgotten the password yourself, note that Nimbus does store link passwords in readable "
                  "form.", [links])  # fmt: skip
    assert deciding(flipped) == ("S.negation", "unsupported")
    kept = one("If you've forgotten the password yourself, note that Nimbus does not store link passwords in readable "
               "form.", [links])  # fmt: skip
    assert kept.supported is True

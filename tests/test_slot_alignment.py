"""Slots compared with the span a claim is about (issue 52, round two): a proper name its span replaces with another
of its kind, a one-word lead-in kept with its clause, and the opposite qualifiers added to the lexicon. Each case is
judged from strings by the default judge, and the deciding rule and its evidence are read from the trace."""

from __future__ import annotations

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.context import clause_texts, line_names, passage_places, read_context
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.slots import proper_agrees
from evalgate_lib.judging.support import (
    WORD_FLOOR,
    ClaimCase,
    _prose_negated,
    _prose_qualifiers,
    _span_holds_the_opposite,
    _span_names_another,
    _span_negates_the_claim,
)

#: Two plans named on one line (the table's header: each is the other's classmate), and a fact about one of them.
DEVICES = (
    "Two-factor authentication",
    "| Setting | Business | Enterprise |\n|---|---|---|\n| Remembered devices | 30 days | 1 to 30 days |\n\n"
    "## Remembered devices\n\nWhen you select Trust this device, Nimbus does not ask again for 30 days.\n\n"
    "Admins on Enterprise can shorten this to as little as 1 day, or turn trusted devices off.",
)


def one(answer: str, passages: list, question: str = "Can admins change remembered devices?") -> SentenceVerdict:
    verdict = judge_answer(question=question, answer=answer, passages=passages, accept=("x",))
    claiming = [s for s in verdict.sentences if s.supported is not None]
    assert len(claiming) == 1, [s.text for s in verdict.sentences]
    return claiming[0]


def test_a_name_its_span_replaces_with_another_of_its_kind_is_unsupported() -> None:
    s = one("On Business, admins can shorten this to as little as 1 day, or turn trusted devices off.", [DEVICES])
    step = s.steps[-1]
    assert (s.rule, step.outcome, s.supported) == ("S.name", "unsupported", False)
    # the span the claim is about names Enterprise where the claim says Business
    assert step.evidence["value"] == "busi" and step.evidence["rival"] == "enterpris"
    assert "Admins on Enterprise can shorten this" in step.evidence["place"]
    assert "Trust this device" not in step.evidence["place"]


def test_the_same_claim_with_the_span_s_own_name_is_supported() -> None:
    s = one("On Enterprise, admins can shorten this to as little as 1 day, or turn trusted devices off.", [DEVICES])
    assert s.supported is True and s.rule != "S.name"


def test_a_sentence_s_first_word_is_no_name_a_table_cell_s_is() -> None:
    # "Note" opens a sentence; "Business" opens a cell; "Enterprise" stands inside a sentence
    assert line_names("Note that SSO is on Enterprise.\nBusiness | 30 days") == frozenset({"enterpris", "busi"})


def test_a_place_naming_the_claim_s_other_name_and_one_it_does_not_is_a_rival() -> None:
    place = passage_places(0, "Links", "Download limits are available on the Business and Enterprise plans.")[0]
    agrees = proper_agrees("free", also=frozenset({"enterpris"}), mates=frozenset({"busi", "enterpris", "starter"}))
    assert agrees(place) is False  # it names Business, which the claim does not: a rival
    only_mates = passage_places(0, "Links", "Guests are counted on the Enterprise plan.")[0]
    assert agrees(only_mates) is None  # it names only Enterprise, which the claim names too: neither


def test_a_one_word_lead_in_stays_with_its_clause() -> None:
    assert clause_texts("Only when configured, an SSO session lasts 12 hours.") == [
        "Only when configured, an SSO session lasts 12 hours."
    ]
    # two clauses stay two
    assert clause_texts("It lasts 12 hours; admins can change it.") == ["It lasts 12 hours", "admins can change it."]


def test_by_default_and_only_when_are_opposites_and_at_least_opposes_maximum() -> None:
    assert ("only", "when") in lx.OPPOSITES[("by", "default")]
    assert ("maximum",) in lx.OPPOSITES[("at", "least")]
    assert ("at", "most") in lx.OPPOSITES[("minimum",)]
    session = ("SSO", "By default, an SSO session in Nimbus lasts 12 hours before members sign in again.")
    s = one("Only when configured, an SSO session in Nimbus lasts 12 hours.", [session], "How long is a session?")
    assert (s.rule, s.steps[-1].outcome) == ("S.qualifier", "unsupported")
    assert s.steps[-1].evidence["value"] == "only when" and s.steps[-1].evidence["rival"] == "by default"


def test_a_maximum_where_the_span_says_at_least_is_unsupported() -> None:
    seats = ("Plans", "Enterprise requires at least 50 seats. Starter includes 3 seats.")
    s = one("Enterprise requires a maximum of 50 seats.", [seats], "How many seats does Enterprise require?")
    assert (s.rule, s.steps[-1].outcome) == ("S.qualifier", "unsupported")
    assert s.steps[-1].evidence["rival"] == "at least"


STORAGE = (
    "Storage",
    "| Plan | Free | Starter | Business | Enterprise |\n|---|---|---|---|---|\n| Storage | 5 GB | 1 TB | 2 TB | "
    "custom |\n\n## Buying extra storage\n\nStarter and Business workspaces can buy storage add-ons from Admin console "
    "> Billing > Add-ons.",
)


def _case(claim: str, passages: tuple, question: str) -> ClaimCase:
    context = read_context(passages)
    return ClaimCase(claim, (), question, context, context.spans)


def test_the_span_rule_on_its_own_names_the_span_and_the_name_it_holds_instead() -> None:
    case = _case("Add-ons are available for Starter and Enterprise workspaces.", (STORAGE,), "Who can buy add-ons?")
    step = _span_names_another(case)
    assert step is not None and (step.rule, step.outcome) == ("S.name", "unsupported")
    # the best span holds Starter and Business; the claim names Starter and Enterprise: Business is the rival
    assert step.evidence["value"] == "enterpris" and step.evidence["rival"] == "busi"
    assert step.evidence["place"].endswith(
        "Starter and Business workspaces can buy storage add-ons from Admin console > Billing > Add-ons."
    )
    # a span holding Enterprise (the table) holds less of the claim: "storage" only, against add, on, starter, workspac
    assert step.evidence["held"] == ["add", "on", "starter", "workspac"]


def test_the_span_rule_is_silent_when_the_span_holds_the_name() -> None:
    case = _case("Add-ons are available for Starter and Business workspaces.", (STORAGE,), "Who can buy add-ons?")
    assert _span_names_another(case) is None


PRICES = (
    "Pricing",
    "Business costs $18 per user per month billed annually and $22 billed monthly. Paying annually saves about 18% "
    "on Business.",
)


def test_a_claim_joining_two_facts_of_one_number_is_not_a_unit_change() -> None:
    # 18 is given as $ (the price) and as % (the saving); the claim states both, as the context does
    s = one("Paying annually saves about 18 percent ($18 instead of $22 per user per month).", [PRICES], "Why annual?")
    assert s.supported is True and s.rule != "S.unit"


def test_one_number_given_two_units_the_context_never_pairs_is_a_unit_change() -> None:
    # "18 GB" is nowhere in the context: the claim's second unit is not a second fact but a changed one
    s = one("Business costs $18 per user per month, so 18 GB per month.", [PRICES], "What does Business cost?")
    assert (s.rule, s.steps[-1].outcome) == ("S.unit", "unsupported")
    assert s.steps[-1].evidence["quantity"] == "18 gb" and s.steps[-1].evidence["given"] == "as $"


def test_a_table_cell_s_qualifier_stands_in_its_column_heading() -> None:
    table = ("Requirements", "| Platform | Minimum version |\n|---|---|\n| iOS | 16.0 |\n| Android | 11 |")
    s = one("The maximum iOS version is 16.0.", [table], "Which iOS version does the app need?")
    assert (s.rule, s.steps[-1].outcome) == ("S.qualifier", "unsupported")
    assert s.steps[-1].evidence["rival"] == "minimum" and "Minimum version" in s.steps[-1].evidence["place"]
    assert one("The minimum iOS version is 16.0.", [table], "Which iOS version does the app need?").supported


VERSIONS = (
    "Version history",
    "The 500-version limit does not apply to files larger than 10 GB. For those files only the 20 most recent "
    "versions are kept, whatever the plan.",
)


def test_a_span_holding_the_opposite_qualifier_and_not_the_claim_s_makes_it_unsupported() -> None:
    case = _case("For files smaller than 10 GB, Nimbus keeps only the 20 most recent versions.", (VERSIONS,), "?")
    step = _span_holds_the_opposite(case)
    assert step is not None and (step.rule, step.outcome) == ("S.qualifier", "unsupported")
    assert step.evidence["value"] == "smaller" and step.evidence["rival"] == "larger"
    s = one("For files larger than 10 GB, Nimbus keeps only the 20 most recent versions.", [VERSIONS], "?")
    assert s.supported is True


def test_what_the_span_rule_does_not_read_as_a_qualifier() -> None:
    # code sets a value; a negated qualifier says its opposite; a condition states no value; a modal is a verb's
    assert _prose_qualifiers("Pass ensure_ascii=False to json.dumps().") == frozenset()
    assert _prose_qualifiers("If posix is not true, it runs in compatibility mode.") == frozenset()
    assert _prose_qualifiers("If true, TextWrapper detects sentence endings.") == frozenset()
    assert _prose_qualifiers("Admins must enable it; members can view it.") == frozenset({("enable",)})
    # a claim that states both words of a pair flips neither
    both = _case(
        "It can dump from servers older than its own version, but not from newer ones.",
        (("pg_dump", "pg_dump can dump from servers older than its own version."),),
        "?",
    )
    assert _span_holds_the_opposite(both) is None


def test_the_span_rule_reads_only_a_span_that_holds_the_claim_s_words() -> None:
    # the span shares 60, day and change with the claim, under WORD_FLOOR of its words: it is not what it is about
    context = ("Pricing", "Owners receive an email reminder 60 days before the change.")
    case = _case("Removed users are deactivated by the identity provider 60 days after the change.", (context,), "?")
    assert case.figure < WORD_FLOOR and _span_holds_the_opposite(case) is None


RECOVERY = (
    "Version history",
    "Versions older than the version-history period are deleted automatically and cannot be recovered by support.",
)


def test_a_positive_claim_whose_span_negates_its_own_word_is_unsupported() -> None:
    case = _case(
        "Versions older than the period are deleted automatically and can be recovered by support.", (RECOVERY,), "?"
    )
    step = _span_negates_the_claim(case)
    assert step is not None and (step.rule, step.outcome) == ("S.negation", "unsupported")
    assert step.evidence["negated"] == ["recov"] and step.evidence["rival"] == "negative"
    negative = one(
        "Versions older than the period are deleted automatically and cannot be recovered by support.", [RECOVERY], "?"
    )
    assert negative.supported is True


def test_a_word_the_span_also_states_without_negating_it_is_not_negated() -> None:
    assert _prose_negated("This does not use the system store but, instead, uses a bundled store.") == frozenset()
    assert _prose_negated("If you need that header set and you don't want to encode it, pass json.") == frozenset()
    assert _prose_negated("Deleted files cannot be recovered.") == frozenset({"recov"})
    # a condition states no fact: "if it is not set" negates nothing the span asserts
    assert _prose_negated("If REQUESTS_CA_BUNDLE is not set, CURL_CA_BUNDLE is used.") == frozenset()


CONFIG = (
    "Configuration",
    "## PIP_CONFIG_FILE\n\nSetting the environment variable PIP_CONFIG_FILE to os.devnull disables the loading of all "
    "configuration files.\n\n## Locations\n\nOn Windows the user file is %APPDATA%\\pip\\pip.ini.",
)


def test_a_code_name_its_span_replaces_with_another_of_its_shape_is_unsupported() -> None:
    s = one(
        "Setting the environment variable PIP_CONFIG_FILE to pip.ini disables all configuration files.",
        [CONFIG],
        "How do I stop pip loading configuration files?",
    )
    assert (s.rule, s.steps[-1].outcome) == ("S.name", "unsupported")
    assert s.steps[-1].evidence["value"] == "pip.ini" and s.steps[-1].evidence["rival"] == "os.devnull"
    right = one(
        "Setting the environment variable PIP_CONFIG_FILE to os.devnull disables all configuration files.",
        [CONFIG],
        "How do I stop pip loading configuration files?",
    )
    assert right.supported is True

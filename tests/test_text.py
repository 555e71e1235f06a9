"""Tests for evalgate_lib.text.tokens (sentence splitting, tokenisation) and evalgate_lib.text.stopwords."""

from __future__ import annotations

import pytest

from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import content_token_list, content_tokens, sentence_spans, split_sentences, tokenize

# --------------------------------------------------------------------------- tokenize


def test_tokenize_lowercases_and_keeps_numbers() -> None:
    # letters-runs lower-cased; "2.5" keeps its decimal point; "GB" → "gb"
    assert tokenize("Business has 2.5 TB and 5 GB") == ["business", "has", "2.5", "tb", "and", "5", "gb"]


def test_tokenize_drops_thousands_separators() -> None:
    # "1,000" → "1000", "1,000,000" → "1000000", "$1,250.50" → "1250.50"
    assert tokenize("1,000 downloads") == ["1000", "downloads"]
    assert tokenize("1,000,000 rows") == ["1000000", "rows"]
    assert tokenize("$1,250.50") == ["1250.50"]
    assert tokenize("1,000") == tokenize("1000")


def test_tokenize_currency_and_percent_give_bare_number() -> None:
    # "$12" → "12" and "12%" → "12": the symbol is not part of the token
    assert tokenize("$12") == ["12"]
    assert tokenize("12%") == ["12"]
    assert tokenize("It costs $12, i.e. 12% more.") == ["it", "costs", "12", "i", "e", "12", "more"]


def test_tokenize_sentence_final_period_not_part_of_number() -> None:
    # "$36." → "36" (the final "." is not followed by a digit)
    assert tokenize("Starter costs $36.") == ["starter", "costs", "36"]


def test_tokenize_curly_apostrophes_become_straight() -> None:
    # "Don’t" (U+2019) == "don't"; "it’s" == "it's"
    assert tokenize("Don\u2019t") == ["don't"]
    assert tokenize("it\u2019s") == tokenize("it's") == ["it's"]
    assert tokenize("\u2018quoted\u2019 \u201cdouble\u201d") == ["quoted", "double"]


def test_tokenize_inner_apostrophes_and_punctuation() -> None:
    # inner apostrophe kept; hyphen and slash split; trailing possessive apostrophe dropped
    assert tokenize("don't e-mail 24/7 users'") == ["don't", "e", "mail", "24", "7", "users"]


def test_tokenize_full_example() -> None:
    text = "Don\u2019t pay $12 or 12% of 1,000 users; 2.5 GB."
    assert tokenize(text) == ["don't", "pay", "12", "or", "12", "of", "1000", "users", "2.5", "gb"]


def test_tokenize_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("... --- !!!") == []


# --------------------------------------------------------------------------- stopwords / content tokens


def test_content_tokens_drop_stopwords_keep_numbers() -> None:
    # the, per are stopwords → starter, plan, costs, 45, month
    assert content_token_list("The Starter plan costs $45 per month.") == ["starter", "plan", "costs", "45", "month"]


def test_content_tokens_drop_contraction_stopwords_after_curly_normalisation() -> None:
    # "Don’t" → "don't" (a stopword), "it’s" → "it's" (a stopword) → only "worry" is content
    assert content_token_list("Don\u2019t worry, it\u2019s fine") == ["worry", "fine"]


def test_content_token_list_first_seen_order_without_repeats() -> None:
    # starter (x3), and (stop), cost, 3 (x2), or (stop), dollars
    assert content_token_list("Starter, starter and STARTER cost 3 or 3 dollars") == ["starter", "cost", "3", "dollars"]


def test_content_tokens_is_frozenset_of_list() -> None:
    text = "Business costs $18 per user per month."
    assert content_tokens(text) == frozenset({"business", "costs", "18", "user", "month"})
    assert isinstance(content_tokens(text), frozenset)


def test_only_stopwords_gives_no_content() -> None:
    assert content_token_list("It is what it is, and that is that.") == []


@pytest.mark.parametrize("word", ["one", "two", "three", "first", "second", "hundred", "ten"])
def test_number_words_are_not_stopwords(word: str) -> None:
    # number words are content: a wrong number is the commonest hallucination
    assert word not in STOPWORDS
    assert content_token_list(f"the {word}") == [word]


def test_digits_are_always_content() -> None:
    assert content_token_list("0 1 2.5 1,000") == ["0", "1", "2.5", "1000"]
    assert not any(w[0].isdigit() for w in STOPWORDS)


def test_stopwords_are_lowercase_tokens() -> None:
    # every stopword must be something tokenize() can produce, or it could never match
    for word in STOPWORDS:
        assert tokenize(word) == [word], word


@pytest.mark.parametrize("word", ["the", "a", "is", "per", "don't", "it's", "with", "and"])
def test_common_stopwords_present(word: str) -> None:
    assert word in STOPWORDS


# --------------------------------------------------------------------------- sentence splitting


def test_split_on_period_question_exclamation() -> None:
    text = "Starter costs $36 per month! Is it billed yearly? Yes. Business costs $18."
    assert split_sentences(text) == [
        "Starter costs $36 per month!",
        "Is it billed yearly?",
        "Yes.",
        "Business costs $18.",
    ]


def test_decimals_do_not_split() -> None:
    # "2.5" has no whitespace after the "." → one sentence break only, after "seat."
    assert split_sentences("Storage is 2.5 TB per seat. Business costs $18.50 a month.") == [
        "Storage is 2.5 TB per seat.",
        "Business costs $18.50 a month.",
    ]


def test_period_then_digit_splits() -> None:
    assert split_sentences("Plans changed in 2026. 3 seats are included.") == [
        "Plans changed in 2026.",
        "3 seats are included.",
    ]


def test_period_then_lowercase_does_not_split() -> None:
    assert split_sentences("It costs $36. per month, billed yearly.") == ["It costs $36. per month, billed yearly."]


def test_line_breaks_end_sentences() -> None:
    # no punctuation at all, but each line is its own sentence; blank lines vanish
    assert split_sentences("Line one\nLine two\n\n\nLine three") == ["Line one", "Line two", "Line three"]


def test_list_items_and_headings_are_sentences() -> None:
    text = "## Plans\nNimbus has plans:\n- Free\n- Starter costs $36. It has 3 seats.\n* Business"
    assert split_sentences(text) == [
        "## Plans",
        "Nimbus has plans:",
        "- Free",
        "- Starter costs $36.",
        "It has 3 seats.",
        "* Business",
    ]


def test_table_rows_are_sentences() -> None:
    text = "| Plan | Price |\n|---|---|\n| Starter | $36 |"
    assert split_sentences(text) == ["| Plan | Price |", "|---|---|", "| Starter | $36 |"]


def test_closing_quote_and_bracket_stay_with_sentence() -> None:
    # '."' and '.)' end the sentence; the quote/bracket belongs to the first sentence
    assert split_sentences('He said "Go." Then he left.') == ['He said "Go."', "Then he left."]
    assert split_sentences("See billing (monthly.) Then pay.") == ["See billing (monthly.)", "Then pay."]


def test_split_before_opening_quote_bracket_or_markdown_bold() -> None:
    assert split_sentences('Done. "Next" starts. (Aside) here. **Free** is free.') == [
        "Done.",
        '"Next" starts.',
        "(Aside) here.",
        "**Free** is free.",
    ]


def test_abbreviations_limit_documented() -> None:
    # Documented limit: "e.g." / "Dr." followed by a capital IS a sentence end (no abbreviation list).
    assert split_sentences("See e.g. Business plans.") == ["See e.g.", "Business plans."]
    assert split_sentences("Ask Dr. Smith.") == ["Ask Dr.", "Smith."]
    # ...but followed by a lower-case word it is not.
    assert split_sentences("Some plans, e.g. the Business plan, have SSO.") == [
        "Some plans, e.g. the Business plan, have SSO."
    ]


def test_ellipsis_and_repeated_punctuation_is_one_end() -> None:
    assert split_sentences("Wait... What?! Yes.") == ["Wait...", "What?!", "Yes."]


def test_sentence_spans_trimmed_and_index_original_text() -> None:
    text = "  Hello there. World  \n\nNext line."
    # "Hello there." = text[2:14]; "World" = text[15:20]; "Next line." = text[24:34]
    spans = sentence_spans(text)
    assert spans == [(2, 14), (15, 20), (24, 34)]
    assert [text[s:e] for s, e in spans] == split_sentences(text) == ["Hello there.", "World", "Next line."]


def test_empty_and_blank_text_have_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n\n \t ") == []


def test_curly_quotes_split_like_straight_ones() -> None:
    # regression: a curly opening quote (U+201C / U+2018) starts a sentence, a curly closing quote ends one
    assert split_sentences("It costs $5. \u201cGreat\u201d deal.") == ["It costs $5.", "\u201cGreat\u201d deal."]
    assert split_sentences("He said \u201cGo.\u201d Then he left.") == ["He said \u201cGo.\u201d", "Then he left."]
    assert split_sentences("It\u2019s \u2018fine.\u2019 \u2018Yes\u2019 it is.") == [
        "It\u2019s \u2018fine.\u2019",
        "\u2018Yes\u2019 it is.",
    ]


def test_a_list_marker_is_not_a_sentence_of_its_own() -> None:
    # "1." followed by "Open" would end a sentence by the punctuation rule; at the
    # start of a line it is a list marker, and stays with the sentence it numbers.
    assert split_sentences("1. Open the console.\n2. Select Plan. Then save.\n- a) Pick one.") == [
        "1. Open the console.",
        "2. Select Plan.",
        "Then save.",
        "- a) Pick one.",
    ]


def test_a_long_run_of_dots_is_one_sentence_and_splits_in_linear_time() -> None:
    # table-of-contents leaders: the sentence-end search used to retry from every dot of the run
    leaders = "Refunds " + "." * 200_000 + " 14"  # 8 + 200,000 + 3 characters
    assert sentence_spans(leaders) == [(0, 200_008), (200_009, 200_011)]  # the run ends a sentence before "14"
    assert sentence_spans("." * 200_000 + "x") == [(0, 200_001)]  # no space after the run: no end
    assert split_sentences("Wait... Then go.") == ["Wait...", "Then go."]  # a run still ends a sentence


# ------------------------------------------------------------------ issue 45: one Unicode spelling, linear search


def test_accents_compare_in_one_spelling() -> None:
    """An accented letter typed composed (NFC) or decomposed (NFD, as macOS writes it) is one letter."""
    import re
    import unicodedata

    from evalgate_lib.text.matching import bounded_pattern, canonical
    from evalgate_lib.text.tokens import fold, tokenize

    nfc, nfd = "Café Plus", unicodedata.normalize("NFD", "Café Plus")
    assert (len(nfc), len(nfd)) == (9, 10)
    assert fold(nfd) == fold(nfc) == "café plus"
    assert tokenize(nfd) == tokenize(nfc) == ["caf", "plus"]  # a token is [a-z]+: the accent ends it, either way
    pattern = bounded_pattern("café plus")
    assert pattern.search(fold(nfc)) and pattern.search(nfd.casefold())  # the text keeps its own spelling
    assert bounded_pattern(unicodedata.normalize("NFD", "café")).search("un café.")
    assert bounded_pattern("cafe").search("un " + unicodedata.normalize("NFD", "café")) is None  # the accent glues
    right = r"(?![0-9a-z_" + "\u0300-\u036f" + r"])(?![.,]\d)"  # a combining accent (U+0300-U+036F) glues too
    unseen = "[\u00ad\u200b\u200c\u200d\u2060\ufeff]*"  # a soft hyphen or a zero-width character between letters
    letters = unseen.join(map(re.escape, "3 seats"))
    assert bounded_pattern("3 seats").pattern == r"(?<![0-9a-z_])(?<!\d[.,])" + letters + right
    assert canonical(unicodedata.normalize("NFD", "café-refunds")) == "café-refunds" and canonical("q1") == "q1"


def test_a_run_of_dots_ends_sentences_where_it_did_and_is_searched_once() -> None:
    """The answer's sentence ends are the ones the earlier patterns found (e.g.. included); 100,000 dots is one step."""
    from evalgate_lib.text.tokens import _ANSWER_SENTENCE_END, _PLAIN_SENTENCE_END, answer_sentences

    assert answer_sentences("It is 3. Then 4... Done e.g.. Next") == ("It is 3.", "Then 4...", "Done e.g..", "Next")
    assert [m.span() for m in _ANSWER_SENTENCE_END.finditer("a e.g.. B")] == [(6, 7)]  # after the abbreviation's dot
    assert [m.span() for m in _PLAIN_SENTENCE_END.finditer("etc.. X vs. Y")] == [(4, 6)]
    answer = "Starter includes 3 seats" + "." * 100_000
    assert answer_sentences(answer) == (answer,)


def test_a_name_with_digits_is_one_name_and_a_placeholder_no_path() -> None:
    """Issue 52: ``lib3_db_config`` yielded the number 3 (so the function was never checked), and a placeholder
    ``<column>`` was read as a menu path (a false S.absent)."""
    from evalgate_lib.judging.terms import terms_of

    exact = terms_of("Call lib3_db_config, then sha256 and v2; pass `<column>` as in Settings > Security.").exact
    assert {"lib3_db_config", "sha256", "v2", "settings > security"} <= exact
    assert "3" not in exact and "256" not in exact and not any("column" in t for t in exact)
    assert terms_of("It keeps 1,000 versions for 30 days.").exact == {"1000", "30"}


def test_a_hyphenated_name_with_digits_a_uuid_and_an_option_before_a_colon_are_names() -> None:
    """Issue 52: ``SHA-1`` yielded the number 1 (a false S.binding against another number of the span), a UUID five
    numbers, and ``--use-feature=truststore:`` kept the sentence's colon (a false S.absent); a negative number and a
    range between numbers stay numbers."""
    from evalgate_lib.judging.slots import name_shape
    from evalgate_lib.judging.terms import terms_of

    assert terms_of("uuid5() uses SHA-1, not UTF-8 or ISO-8859-1.").exact == {"uuid5", "sha-1", "utf-8", "iso-8859-1"}
    assert terms_of("UUID '886313e1-3b8a-5372-9b90-0c9aee199e5d'").exact == {"886313e1-3b8a-5372-9b90-0c9aee199e5d"}
    assert terms_of("enable it with --use-feature=truststore:").exact == {"--use-feature=truststore"}
    assert terms_of("a 15-day window, scales from -1000 to 1000, pages 1-10").exact == {"15", "1000", "1", "10"}
    assert name_shape("sha-1") == name_shape("iso-8859-1") == "hyphenated"  # rivals of each other …
    assert name_shape("httplib2") == "digits"  # … not of a name with digits of another kind



def test_a_windows_path_is_one_name_held_part_by_part() -> None:
    """A Windows path was read as its last part and a word ("C:\\MacOS\\pip\\pip.ini" → pip.ini, macos): an edit of
    the folder passed wherever the folder's name appeared. It is one name now, and its parts hold a claim's file."""
    from evalgate_lib.judging.support import held_exact
    from evalgate_lib.judging.terms import terms_of

    assert terms_of(r"Global: C:\ProgramData\pip\pip.ini, user: %APPDATA%\pip\pip.ini").exact == {
        "c:\\programdata\\pip\\pip.ini",
        "%appdata%\\pip\\pip.ini",
    }
    # a chunk cut inside a fence shows the source's escaped path ({file}`C:\\\\ProgramData…`): the same name
    assert terms_of(r"{file}`C:\\ProgramData\\pip\\pip.ini`").exact == {"c:\\programdata\\pip\\pip.ini"}
    held = frozenset({"c:\\programdata\\pip\\pip.ini"})
    assert held_exact(frozenset({"pip.ini"}), held, held) == {"pip.ini"}  # a file on the path
    assert held_exact(frozenset({"c:\\macos\\pip\\pip.ini"}), held, held) == frozenset()  # another folder

def test_text_is_compared_as_people_read_it() -> None:
    """Issue 56: a soft hyphen or a zero-width joiner inside a word, and ``STRASSE`` against ``Straße``, read as the
    same word to a reader; the judge's folding and the bounded match (the gold check's too) agree."""
    from evalgate_lib.judging.correctness import matched_accept, token_bounded_match
    from evalgate_lib.text.matching import bounded_pattern
    from evalgate_lib.text.tokens import fold, tokenize

    assert fold("Wid\u00adgets") == fold("WID\u200dGETS") == fold("wid\u200bgets\ufeff") == "widgets"
    assert fold("STRASSE") == fold("Straße") == "strasse"  # lower() keeps ß; casefold() reads it ss
    assert fold("ΣΟΦΟΣ") == fold("σοφος") == "σοφοσ"  # the final sigma folds like the others
    assert tokenize("12 wid\u00adgets") == tokenize("12 widgets") == ["12", "widgets"]
    assert token_bounded_match("Plan 12 includes 12 wid\u00adgets.", ["12 widgets"]) == "12 widgets"
    assert token_bounded_match("It is at HAUPTSTRASSE 5.", ["Hauptstraße 5"]) == "Hauptstraße 5"
    found = bounded_pattern("12 widgets").search("in 12 wid\u00adgets.")  # the text as given: positions kept
    assert found is not None and found.span() == (3, 14)
    # raw is byte-exact apart from case: a decomposed accent is a difference, as it says
    assert matched_accept(unicodedata_nfd("Café Plus"), ["Café Plus"]) is None
    assert matched_accept("CAFÉ PLUS", ["Café Plus"]) == "Café Plus"


def unicodedata_nfd(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFD", text)


def test_eg_and_ie_without_their_inner_stops_end_no_sentence_for_the_judge() -> None:
    """Manuals write "eg." and "ie." as often as "e.g.": "(eg. 20 to 30 times)" cut there left a fragment whose
    number read as a claim of its own. Chunking keeps its older rule (prompts, and the cached answers they key,
    never change with the judge)."""
    from evalgate_lib.text.tokens import answer_sentences, split_plain_sentences

    text = "Your program will run much slower (eg. 20 to 30 times) than normal. Use less memory, ie. Fewer blocks."
    assert answer_sentences(text) == (
        "Your program will run much slower (eg. 20 to 30 times) than normal.",
        "Use less memory, ie. Fewer blocks.",
    )
    assert split_plain_sentences(text)[0] == "Your program will run much slower (eg. 20 to 30 times) than normal."
    assert split_sentences("Slower (eg. 20 times) than normal.") == ["Slower (eg.", "20 times) than normal."]

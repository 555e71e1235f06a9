"""The judge's lexicon: one table per word list, each with its source, and no second copy anywhere in the judge."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from project_scripts import load_script

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.normalise import normalise_text
from evalgate_lib.judging.terms import terms_of
from evalgate_lib.text.stopwords import STOPWORDS

ROOT = Path(__file__).resolve().parents[1]
TABLES = tomllib.loads(lx.LEXICON_FILE.read_text(encoding="utf-8"))


def _lists(table: dict) -> dict[str, list]:
    return {k: v for k, v in table.items() if isinstance(v, list)}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_says_where_it_comes_from_and_lists_lower_case_words_once(name: str) -> None:
    table = TABLES[name]
    assert isinstance(table.get("source"), str) and table["source"].strip(), f"{name}: no source"
    assert isinstance(table.get("why"), str) and table["why"].strip(), f"{name}: no why"
    lists = _lists(table)
    assert lists, f"{name}: no list"
    for key, words in lists.items():
        assert words, f"{name}.{key} is empty"
        assert all(isinstance(w, str) and w == w.lower() and w.strip() == w for w in words), f"{name}.{key}"
        assert len(words) == len(set(words)), f"{name}.{key} repeats a word"


def test_phrases_are_written_with_their_contractions_spelled_out() -> None:
    for name in ("declines", "referrals", "courtesy", "advice"):
        for key, phrases in _lists(TABLES[name]).items():
            assert not [p for p in phrases if "'" in p], f"{name}.{key}: spell contractions out"


def test_lists_that_must_not_overlap_do_not() -> None:
    # a negation is never filler (it changes a claim), and a number word is never a stopword (numbers are content)
    assert not lx.NEGATIONS & lx.FILLER
    assert not set(lx.NUMBER_WORDS) & STOPWORDS
    assert not lx.POLAR & lx.FILLER


def test_one_number_word_table_reads_seventy_and_eighty() -> None:
    # issue 44: two number tables disagreed (one lacked seventy and eighty); there is one table now
    assert lx.NUMBER_WORDS["seventy"] == 70 and lx.NUMBER_WORDS["eighty"] == 80
    assert normalise_text("seventy days") == "70 day"
    assert "70" in terms_of("The trial lasts seventy days.").exact
    assert terms_of("The trial lasts seventy days.").quantities == frozenset({("70", "day")})


def test_text_is_read_as_the_phrases_are_written() -> None:
    assert lx.reading_tokens("I couldn't find it.") == ("i", "could", "not", "find", "it")
    assert lx.reading_tokens("It's not there; I'm sure.") == ("it", "is", "not", "there", "i", "am", "sure")
    assert lx.DECLINES.find(lx.reading_tokens("Sorry, I couldn't find that anywhere.")) == (
        1,
        ("i", "could", "not", "find"),
    )
    assert lx.DECLINES.find(lx.reading_tokens("I found it.")) is None


def test_units_map_every_spelling_to_one() -> None:
    assert lx.UNIT_SPELLINGS["gigabytes"] == "gb" and lx.UNIT_SPELLINGS["hrs"] == "hour"
    assert lx.UNIT_SPELLINGS["usd"] == "$" and lx.UNIT_SPELLINGS["percent"] == "%"
    assert lx.UNITS_AFTER_NUMBER["min"] == "minute"
    assert normalise_text("30 min") == "30 minute" and normalise_text("min 5 users") == "min 5 user"


def test_no_module_of_the_judge_keeps_a_word_list_of_its_own() -> None:
    size = load_script("judge_size").count(ROOT)
    assert size.word_lists == 0 and size.listed_words == 0
    assert size.lexicon_words > 500

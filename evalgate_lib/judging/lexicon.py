"""The judge's lexicon, read from ``lexicon.toml``: every word list the judge uses, once, with its source.

A verdict must be recomputable by a person, and a person needs to see which words the judge knows:
which words negate, which phrases decline, which spellings are one unit. Those lists live in one data
file beside this module (``lexicon.toml``), one table per fact, each saying where it comes from and what
the judge does with it; this module loads them once and offers them as frozen sets, and the one way the
judge looks a phrase up (:func:`phrase_at`, over :func:`reading_tokens`). No other module of the judge
keeps a word list of its own (``tests/test_lexicon.py`` checks it); the English stopwords are the one list
of :mod:`evalgate_lib.text.stopwords`, shared with the chunkers.

Phrases are written with contractions spelled out, and text is read the same way before a look-up
(:func:`reading_tokens`: "can't" → "can not", "I'm" → "i am", "doesn't" → "does not"), so "I couldn't
find" and "I could not find" are one entry.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import fold

LEXICON_FILE = Path(__file__).with_name("lexicon.toml")

Phrase = tuple[str, ...]


@lru_cache(maxsize=1)
def _tables() -> Mapping[str, Mapping[str, object]]:
    with LEXICON_FILE.open("rb") as handle:
        return tomllib.load(handle)


def table(name: str) -> Mapping[str, object]:
    """One table of the lexicon as written (its ``source``, ``why`` and lists)."""
    return _tables()[name]


def _words(name: str, key: str = "words") -> frozenset[str]:
    return frozenset(str(w) for w in table(name)[key])  # type: ignore[union-attr]


# Contractions read as their full words before any look-up: the lexicon spells them out.
_NOT = re.compile(r"\b(can|won|shan|ain)'t\b|n't\b")
_NOT_SPELLED = {"can": "can not", "won": "will not", "shan": "shall not", "ain": "is not"}
_CONTRACTED = re.compile(r"\b(i|you|we|they|he|she|it|that|there|here|what|who)'(m|re|ve|ll|d|s)\b")
_CONTRACTED_SPELLED = {"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would", "s": "is"}
_READING_TOKEN = re.compile(r"[a-z0-9]+(?:[.][a-z0-9]+)*")


_CANNOT = re.compile(r"\bcannot\b")


def spell_out(text: str) -> str:
    """``text`` folded (lower case, straight quotes) with its contractions spelled out ("isn't" → "is not",
    "cannot" → "can not")."""
    folded = fold(text)
    if "cannot" in folded:
        folded = _CANNOT.sub("can not", folded)
    if "'" not in folded:
        return folded
    folded = _NOT.sub(lambda m: _NOT_SPELLED[m.group(1)] if m.group(1) else " not", folded)
    return _CONTRACTED.sub(lambda m: f"{m.group(1)} {_CONTRACTED_SPELLED[m.group(2)]}", folded)


@lru_cache(maxsize=65536)
def reading_tokens(text: str) -> tuple[str, ...]:
    """The words of ``text`` as the lexicon's phrases are looked up in: folded, contractions spelled out,
    punctuation and markup dropped ("I couldn't find it." → ``("i", "could", "not", "find", "it")``)."""
    return tuple(_READING_TOKEN.findall(spell_out(text)))


def _phrases(values: Iterable[object]) -> tuple[Phrase, ...]:
    return tuple(sorted({reading_tokens(str(v)) for v in values}, key=lambda p: (-len(p), p)))


@dataclass(frozen=True)
class PhraseList:
    """Phrases indexed by their first word, for :func:`phrase_at` (longest phrase first)."""

    name: str
    by_first: Mapping[str, tuple[Phrase, ...]]

    def find(self, tokens: Sequence[str], start: int = 0) -> tuple[int, Phrase] | None:
        """The first ``(position, phrase)`` of this list in ``tokens`` at or after ``start``, else ``None``."""
        for i in range(start, len(tokens)):
            for phrase in self.by_first.get(tokens[i], ()):
                if tuple(tokens[i : i + len(phrase)]) == phrase:
                    return i, phrase
        return None

    def at(self, tokens: Sequence[str], i: int) -> Phrase | None:
        """The longest phrase of this list that starts at ``tokens[i]``, else ``None``."""
        for phrase in self.by_first.get(tokens[i], ()) if i < len(tokens) else ():
            if tuple(tokens[i : i + len(phrase)]) == phrase:
                return phrase
        return None

    def phrases(self) -> tuple[Phrase, ...]:
        return tuple(p for group in self.by_first.values() for p in group)


def _phrase_list(name: str, key: str = "phrases") -> PhraseList:
    index: dict[str, list[Phrase]] = {}
    for phrase in _phrases(table(name)[key]):  # type: ignore[arg-type]
        index.setdefault(phrase[0], []).append(phrase)
    return PhraseList(f"{name}.{key}", {first: tuple(group) for first, group in index.items()})


# --------------------------------------------------------------------------------------------- the lists

#: Number words: ``zero`` … ``nineteen``, the tens, and the scale words.
NUMBER_UNITS: dict[str, int] = {str(w): i for i, w in enumerate(table("number_words")["units"])}  # type: ignore[arg-type]
NUMBER_TENS: dict[str, int] = {
    str(w): 20 + 10 * i
    for i, w in enumerate(table("number_words")["tens"])  # type: ignore[arg-type]
}
NUMBER_SCALES: dict[str, int] = {
    str(w): 10 ** (2 if i == 0 else 3 * i)
    for i, w in enumerate(table("number_words")["scales"])  # type: ignore[arg-type]
}
#: Every number word, mapped to its value where it is one on its own ("seventy" → 70, "hundred" → 100).
NUMBER_WORDS: dict[str, int] = {**NUMBER_UNITS, **NUMBER_TENS, **NUMBER_SCALES}


def _unit_table(name: str) -> dict[str, str]:
    return {
        str(spelling): str(canonical)
        for canonical, spellings in table(name).items()
        if canonical not in ("source", "why")
        for spelling in spellings  # type: ignore[union-attr]
    }


#: Every spelling of a unit → its one spelling (``gigabytes`` → ``gb``, ``hrs`` → ``hour``, ``usd`` → ``$``).
UNIT_SPELLINGS: dict[str, str] = _unit_table("units")
#: Abbreviations read as a unit only right after a number (``30 min``, ``256K``).
UNITS_AFTER_NUMBER: dict[str, str] = _unit_table("units_after_number")
#: The units of measure, as spelled once (money and percent included).
UNITS: frozenset[str] = frozenset(UNIT_SPELLINGS.values())

FILLER: frozenset[str] = _words("filler")
NEGATIONS: frozenset[str] = _words("negations")
#: The negators that negate a clause's predicate (every negator but a preposition's: "without").
CLAUSE_NEGATIONS: frozenset[str] = NEGATIONS - _words("negations", "prepositional")
RESTRICTIVES: frozenset[str] = _words("restrictives")
#: Prefixes that negate the word they open ("unpredictable" is "not predictable").
NEGATIVE_PREFIXES: frozenset[str] = _words("negations", "prefixes")
QUESTION_WORDS: frozenset[str] = _words("question_words")
SOURCE_NOUNS: frozenset[str] = _words("sources", "nouns")
#: The words of a hedged lead-in about reading the context, besides its source noun and stopwords.
SOURCE_READING: frozenset[str] = _words("sources", "reading")
REPORT_VERBS: frozenset[str] = _words("report_verbs")
SPEECH_PARTICIPLES: frozenset[str] = _words("report_verbs", "speech_participles")
HEDGES: frozenset[str] = _words("hedges")
AUXILIARIES: frozenset[str] = _words("auxiliaries")
MODAL_ADJECTIVES: frozenset[str] = _words("auxiliaries", "modal_adjectives")
COPULAS: frozenset[str] = _words("copulas")
INTENSIFIERS: frozenset[str] = _words("intensifiers")
ANAPHORA: frozenset[str] = _words("anaphora")
RANGES: frozenset[str] = _words("ranges")
#: Phrases that name a value a lower or an upper bound ("at least 8", "up to 500").
LOWER_BOUNDS: tuple[Phrase, ...] = _phrases(table("bounds")["lower"])  # type: ignore[arg-type]
UPPER_BOUNDS: tuple[Phrase, ...] = _phrases(table("bounds")["upper"])  # type: ignore[arg-type]
APPROXIMATIONS: frozenset[str] = _words("approximations")
ORDINAL_SUFFIXES: frozenset[str] = _words("number_words", "ordinal_suffixes")
FRAME_OPENERS: tuple[Phrase, ...] = _phrases(table("sources")["openers"])  # type: ignore[arg-type]
CONCLUSIONS: frozenset[str] = _words("conclusions")
CONNECTIVES: frozenset[str] = _words("connectives")
CLAUSE_CUTS: frozenset[str] = _words("clause_cuts")
RELATIVES: frozenset[str] = _words("clause_cuts", "relatives")
CONDITIONS: frozenset[str] = _words("clause_cuts", "conditions")
POLAR: frozenset[str] = _words("polar")
PLACEHOLDERS: frozenset[str] = _words("placeholders")
SELF_NOUNS: frozenset[str] = _words("self_reference", "nouns")
SELF_POSITIONS: frozenset[str] = _words("self_reference", "positions")
SELF_JUDGEMENTS: frozenset[str] = _words("self_reference", "judgements")
LABELS: tuple[Phrase, ...] = _phrases(table("labels")["words"])  # type: ignore[arg-type]
VERSION_RESTATED: frozenset[str] = _words("version_notes", "restated")
#: The words a signature line says in other terms (its parameters, their defaults where it gives one a value).
SIGNATURE_RESTATED: frozenset[str] = _words("signatures", "restated")
SIGNATURE_DEFAULTS: frozenset[str] = _words("signatures", "defaults")

DECLINES = _phrase_list("declines")
REFERRALS = _phrase_list("referrals")
COURTESY = _phrase_list("courtesy")
COURTESY_ALONE = _phrase_list("courtesy", "alone")
ADVICE = _phrase_list("advice")
OWN_KNOWLEDGE = _phrase_list("own_knowledge")
SWITCH_ON = _phrase_list("switches", "on")
SWITCH_OFF = _phrase_list("switches", "off")


def _opposites() -> dict[Phrase, frozenset[Phrase]]:
    out: dict[Phrase, set[Phrase]] = {}
    for pair in table("opposites")["pairs"]:  # type: ignore[union-attr]
        a, b = (reading_tokens(side) for side in str(pair).split(" / "))
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {phrase: frozenset(others) for phrase, others in out.items()}


#: Each qualifier (a phrase of reading tokens: ``("at", "least")``) → its opposites (``("at", "most")``).
OPPOSITES: dict[Phrase, frozenset[Phrase]] = _opposites()
_OPPOSITE_LONGEST = sorted(OPPOSITES, key=len, reverse=True)


def negated_words(tokens: Sequence[str]) -> tuple[str, ...]:
    """The word each clause negation of ``tokens`` negates: the first word after it that is not an auxiliary, an
    intensifier, a stopword or another negation ("cannot be extended" → extended, "no credit card" → credit)."""
    out = []
    for i, token in enumerate(tokens):
        if token not in CLAUSE_NEGATIONS:
            continue
        for word in tokens[i + 1 :]:
            if word in AUXILIARIES or word in MODAL_ADJECTIVES or word in INTENSIFIERS or word in NEGATIONS:
                continue
            if word in STOPWORDS:
                continue
            if word == "longer":  # "no longer supported" negates "supported"
                continue
            out.append(word)
            break
    return tuple(out)


def qualifiers(tokens: Sequence[str]) -> frozenset[Phrase]:
    """The qualifiers of :data:`OPPOSITES` that ``tokens`` hold, each read once, the longest phrase first
    ("non-recursive" is not "recursive", "at least" is not "least")."""
    found: set[Phrase] = set()
    i = 0
    while i < len(tokens):
        for phrase in _OPPOSITE_LONGEST:
            if tuple(tokens[i : i + len(phrase)]) == phrase:
                found.add(phrase)
                i += len(phrase)
                break
        else:
            i += 1
    return frozenset(found)


VERSION_NOTES: tuple[PhraseList, ...] = tuple(
    _phrase_list("version_notes", key) for key in ("added", "changed", "deprecated")
)

__all__ = [
    "ADVICE",
    "APPROXIMATIONS",
    "ANAPHORA",
    "AUXILIARIES",
    "COPULAS",
    "FRAME_OPENERS",
    "INTENSIFIERS",
    "MODAL_ADJECTIVES",
    "ORDINAL_SUFFIXES",
    "RANGES",
    "LOWER_BOUNDS",
    "UPPER_BOUNDS",
    "CONCLUSIONS",
    "CLAUSE_CUTS",
    "CLAUSE_NEGATIONS",
    "CONDITIONS",
    "CONNECTIVES",
    "COURTESY",
    "COURTESY_ALONE",
    "DECLINES",
    "FILLER",
    "HEDGES",
    "LABELS",
    "NEGATIONS",
    "NUMBER_WORDS",
    "OPPOSITES",
    "PLACEHOLDERS",
    "POLAR",
    "QUESTION_WORDS",
    "REFERRALS",
    "RELATIVES",
    "REPORT_VERBS",
    "RESTRICTIVES",
    "SELF_JUDGEMENTS",
    "SELF_NOUNS",
    "SELF_POSITIONS",
    "SOURCE_NOUNS",
    "SOURCE_READING",
    "SPEECH_PARTICIPLES",
    "STOPWORDS",
    "SWITCH_OFF",
    "SWITCH_ON",
    "UNITS",
    "UNIT_SPELLINGS",
    "UNITS_AFTER_NUMBER",
    "VERSION_NOTES",
    "VERSION_RESTATED",
    "SIGNATURE_RESTATED",
    "SIGNATURE_DEFAULTS",
    "qualifiers",
    "reading_tokens",
    "spell_out",
]

"""Answer-text normalisation: the rules that make "three seats" read as "3 seats", visibly.

Literal containment of an ``accept`` string is transparent but brittle: a model that writes
"three seats", "5GB" or "$12.00 per user" would be wrong against "3 seats", "5 GB" or "$12".
This module only rewrites text; the rules that use it live in :mod:`evalgate_lib.judging.correctness`
and :mod:`evalgate_lib.judging.terms`. The words it knows (number words, units) are the lexicon's
(:mod:`evalgate_lib.judging.lexicon`): one list each, shared with every other reading of the judge.

:func:`normalise_text` applies these rules, in this order (each is a plain rule that can be checked
by hand, no model involved):

1. Unicode NFKC (full-width digits, ligatures, non-breaking spaces), curly quotes → ``'`` / ``"``,
   every dash/hyphen/minus variant → ``-``, characters a reader does not see (a soft hyphen, a
   zero-width joiner) dropped; case folded (``Straße`` = ``STRASSE``).
2. ``<number>/<word>`` → ``<number> per <word>`` (``$12/user`` = ``$12 per user``).
3. Thousands separators dropped: ``1,000`` → ``1000``.
4. An all-zero fraction dropped: ``$12.00`` → ``$12``, ``5.0`` → ``5`` (``12.50`` stays).
5. Punctuation: apostrophes deleted (``users'`` → ``users``); every other character that is not a
   letter, digit, whitespace, ``$`` or ``%`` becomes a space, and so does a ``.`` unless it sits
   between two digits (``2.5`` stays).
6. A number glued to a unit is split: ``5gb`` → ``5 gb`` (ordinals ``1st`` … ``4th`` are left alone).
7. Number words → digits (the lexicon's ``number_words``): compounds (``twenty-five`` → ``25``),
   ``hundred``/``thousand``/``million`` with an optional ``and`` (``one hundred and five`` → ``105``,
   ``a thousand`` → ``a 1000``). The pronoun "one" becomes ``1`` too; the same rule runs on both sides.
8. Money: ``$ 12`` → ``$12``; ``12 dollars`` / ``12 usd`` / ``usd 12`` → ``$12``. Percent: ``percent``,
   ``per cent``, ``pct`` → ``%``, attached to a preceding number (``20 percent`` = ``20%``).
9. Units to their one spelling (the lexicon's ``units``: ``GB``/``gigabytes`` → ``gb``, ``hrs`` →
   ``hour``); the abbreviations of ``units_after_number`` (``h``, ``min``, ``sec``, ``k``) only after a number.
10. The word counted after a number is read singular (``10 users`` → ``10 user``, ``3 retries`` → ``3 retry``):
    a count's noun is its unit, whatever its plural.
11. Whitespace collapsed to single spaces, trimmed.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from evalgate_lib.judging.lexicon import (
    NUMBER_SCALES,
    NUMBER_TENS,
    NUMBER_UNITS,
    NUMBER_WORDS,
    ORDINAL_SUFFIXES,
    UNIT_SPELLINGS,
    UNITS_AFTER_NUMBER,
)
from evalgate_lib.text.tokens import INVISIBLE

_PUNCT_MAP = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
        **dict.fromkeys(INVISIBLE),
    }
)  # fmt: skip
_DIGIT_WORDS = {w: v for w, v in NUMBER_UNITS.items() if 1 <= v <= 9}
_BIG_SCALES = sorted(((w, v) for w, v in NUMBER_SCALES.items() if v >= 1000), key=lambda p: -p[1])

_PER_SLASH = re.compile(r"(?<=\d)\s*/\s*(?=[a-z])")
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")
_ZERO_FRACTION = re.compile(r"(?<=\d)\.0+(?!\d|\.\d)")
_OTHER_PUNCT = re.compile(r"[^\w\s$%.]|_")
_LONE_DOT = re.compile(r"(?<!\d)\.|\.(?!\d)")
_GLUED_UNIT = re.compile(r"(\$?\d+(?:\.\d+)?)([a-z]+)")
_NUMBER = re.compile(r"\$?\d+(?:\.\d+)?%?")


def _below_hundred(words: list[str], j: int) -> tuple[int, int] | None:
    """``zero``..``ninety-nine`` starting at ``words[j]`` → (value, next index)."""
    if j >= len(words):
        return None
    word = words[j]
    if word in NUMBER_TENS:
        if j + 1 < len(words) and words[j + 1] in _DIGIT_WORDS:
            return NUMBER_TENS[word] + _DIGIT_WORDS[words[j + 1]], j + 2
        return NUMBER_TENS[word], j + 1
    if word in NUMBER_UNITS:
        return NUMBER_UNITS[word], j + 1
    return None


def _below_thousand(words: list[str], j: int) -> tuple[int, int] | None:
    """``zero``..``nine hundred and ninety-nine`` (bare ``hundred`` = 100)."""
    if j >= len(words):
        return None
    if words[j] == "hundred":
        value, k = 100, j + 1
    elif words[j] in _DIGIT_WORDS and j + 1 < len(words) and words[j + 1] == "hundred":
        value, k = 100 * _DIGIT_WORDS[words[j]], j + 2
    else:
        return _below_hundred(words, j)
    start = k + 1 if k < len(words) and words[k] == "and" else k
    rest = _below_hundred(words, start)
    return (value + rest[0], rest[1]) if rest is not None and rest[0] > 0 else (value, k)


def _parse_number(words: list[str], i: int) -> tuple[int, int] | None:
    """Longest number-word phrase starting at ``words[i]`` → (value, next index)."""
    total, j, found = 0, i, False
    for scale_word, scale in _BIG_SCALES:
        parsed = _below_thousand(words, j)
        if parsed is not None and parsed[0] > 0 and parsed[1] < len(words) and words[parsed[1]] == scale_word:
            total += parsed[0] * scale
            j, found = parsed[1] + 1, True
        elif not found and j < len(words) and words[j] == scale_word:
            total += scale  # bare "thousand" = 1000, as in "a thousand users"
            j, found = j + 1, True
    if found:
        start = j + 1 if j < len(words) and words[j] == "and" else j
        rest = _below_thousand(words, start)
        if rest is None or rest[0] == 0:
            rest = _below_thousand(words, j)
        rest = rest if rest is not None and rest[0] > 0 else None
    else:
        rest = _below_thousand(words, j)
    if rest is not None:
        total += rest[0]
        j, found = rest[1], True
    return (total, j) if found else None


def _number_words_to_digits(words: list[str]) -> list[str]:
    if not NUMBER_WORDS.keys() & set(words):  # the common case: nothing to convert
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        parsed = _parse_number(words, i) if words[i] in NUMBER_WORDS else None
        if parsed is not None:
            out.append(str(parsed[0]))
            i = parsed[1]
        else:
            out.append(words[i])
            i += 1
    return out


def _split_glued_units(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        m = _GLUED_UNIT.fullmatch(word) if word[:1].isdigit() or word[:1] == "$" else None
        if m and m.group(2) not in ORDINAL_SUFFIXES:
            out.extend(m.groups())
        else:
            out.append(word)
    return out


def _is_number(word: str) -> bool:
    return bool(_NUMBER.fullmatch(word))


def _units(words: list[str]) -> list[str]:
    """Money and percent merged with their number, units spelled once, the counted noun read singular."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word, nxt = words[i], words[i + 1] if i + 1 < len(words) else None
        after_number = bool(out) and _is_number(out[-1])
        pair = f"{word} {nxt}" if nxt is not None else ""
        if pair in UNIT_SPELLINGS:  # "per cent", "us dollars"
            word, i = pair, i + 1
        unit = UNIT_SPELLINGS.get(word) or (UNITS_AFTER_NUMBER.get(word) if after_number else None)
        if unit == "$" and nxt is not None and _is_number(nxt) and not after_number:  # "usd 12"
            out.append("$" + nxt)
            i += 2
            continue
        if unit in ("$", "%") and after_number and not out[-1].startswith("$") and not out[-1].endswith("%"):
            out[-1] = "$" + out[-1] if unit == "$" else out[-1] + "%"
        elif word == "$" and nxt is not None and _is_number(nxt):
            out.append("$" + nxt)
            i += 1
        elif unit is not None:
            out.append(unit)
        elif after_number and len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            out.append(word[:-3] + "y" if word.endswith("ies") else word[:-1])  # "10 users", "3 retries"
        else:
            out.append(word)
        i += 1
    return out


def ungroup_digits(text: str) -> str:
    """``text`` with the thousands separators of its numbers removed ("100,000" → "100000"; "1,5" is kept): the
    reading :func:`normalise_text` gives numbers, for a rule that must keep the rest of the text as written."""
    return _GROUPED.sub(lambda m: m.group().replace(",", ""), text)


@lru_cache(maxsize=65536)
def normalise_text(s: str, number_words: bool = True) -> str:
    """Normalised form of ``s`` for answer matching (rules in the module docstring). Memoised: it is pure.

    ``number_words=False`` leaves number words as words (rule 7 off): for a reading where only numbers written
    in digits bind ("(one year)" is as often an aside as a value)."""
    text = unicodedata.normalize("NFKC", s).translate(_PUNCT_MAP).casefold()
    text = _PER_SLASH.sub(" per ", text)
    text = ungroup_digits(text)
    text = _ZERO_FRACTION.sub("", text)
    text = text.replace("'", "")
    text = _OTHER_PUNCT.sub(" ", text)
    text = _LONE_DOT.sub(" ", text)
    words = _split_glued_units(text.split())
    words = _number_words_to_digits(words) if number_words else words
    words = [w for w in re.sub(r"(?<=\d) %", "%", " ".join(words)).split()]
    return " ".join(_units(words))

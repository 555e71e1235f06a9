"""Answer-text normalisation: the rules that make "three seats" read as "3 seats", visibly.

Literal containment of an ``accept`` string is transparent but brittle: a model that writes
"three seats", "5GB" or "$12.00 per user" would be wrong against "3 seats", "5 GB" or "$12".
This module only rewrites text; the ``normalised`` matching rule that uses it, and every
other correctness rule, live in :mod:`evalgate_lib.judging.correctness`, whose
:class:`~evalgate_lib.judging.correctness.MatchResult` records which rule produced a verdict so a
report can never silently mix them.

:func:`normalise_text` applies these rules, in this order (each is a plain rule
that can be checked by hand, no model involved):

1. Unicode NFKC (full-width digits, ligatures, non-breaking spaces), curly
   quotes → ``'`` / ``"``, every dash/hyphen/minus variant → ``-``; lower-case.
2. ``<number>/<word>`` → ``<number> per <word>`` (``$12/user`` = ``$12 per user``).
3. Thousands separators dropped: ``1,000`` → ``1000``.
4. An all-zero fraction dropped: ``$12.00`` → ``$12``, ``5.0`` → ``5`` (``12.50`` stays).
5. Punctuation: apostrophes deleted (``users'`` → ``users``); every other
   character that is not a letter, digit, whitespace, ``$`` or ``%`` becomes a
   space, and so does a ``.`` unless it sits between two digits (``2.5`` stays).
6. A number glued to a unit is split: ``5gb`` → ``5 gb`` (ordinals ``1st``, ``2nd``,
   ``3rd``, ``4th`` are left alone).
7. Number words → digits: ``zero`` … ``nineteen``, ``twenty`` … ``ninety``,
   compounds (``twenty-five`` → ``25``), ``hundred``/``thousand``/``million``
   with an optional ``and`` (``one hundred and five`` → ``105``, ``a thousand`` →
   ``a 1000``). Side effect: the pronoun "one" also becomes ``1``; since the
   same rule runs on both the answer and the accept string this is harmless.
8. Money: ``$ 12`` → ``$12``; ``12 dollars`` / ``12 usd`` / ``usd 12`` → ``$12``.
9. Percent: ``percent``, ``per cent``, ``pct`` → ``%``, attached to a preceding
   number (``20 percent`` = ``20 %`` = ``20%``).
10. Units and counted nouns to one singular spelling, see :data:`UNIT_WORDS`
    (``GB``/``gigabytes`` → ``gb``, ``hrs`` → ``hour``, ``seats`` → ``seat``, ...);
    the ambiguous abbreviations in :data:`UNITS_AFTER_NUMBER` (``h``, ``min``,
    ``sec``, ``mo``) only when they follow a number.
11. Whitespace collapsed to single spaces, trimmed.

The ordering matters: punctuation goes before number words so that
``twenty-five`` is seen as two words, and units come last so that a unit
produced by splitting (``5gb``) is normalised too.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_PUNCT_MAP = str.maketrans(
    {
        "\u2018": "'",  # left single quote
        "\u2019": "'",  # right single quote / apostrophe
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",  # prime
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",  # horizontal bar
        "\u2212": "-",  # minus sign
    }
)

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_DIGIT_WORDS = {w: v for w, v in _UNITS.items() if 1 <= v <= 9}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = (("million", 1_000_000), ("thousand", 1_000))
_NUMBER_WORDS = frozenset(_UNITS) | frozenset(_TENS) | {"hundred", "thousand", "million"}

_COUNTED_NOUNS = (
    "user", "seat", "member", "admin", "administrator", "agent", "licence", "license",
    "project", "workspace", "account", "credit", "request", "call", "integration", "device",
    "file", "ticket", "message", "email", "plan", "team", "guest", "collaborator", "report",
    "dashboard", "backup", "region", "attempt", "login", "invoice", "retry",
)  # fmt: skip

#: Unit and counted-noun spellings → canonical form (applied to whole tokens).
UNIT_WORDS: dict[str, str] = {
    # storage
    **dict.fromkeys(["gb", "gbs", "gigabyte", "gigabytes", "gib"], "gb"),
    **dict.fromkeys(["tb", "tbs", "terabyte", "terabytes", "tib"], "tb"),
    **dict.fromkeys(["mb", "mbs", "megabyte", "megabytes", "mib"], "mb"),
    **dict.fromkeys(["kb", "kbs", "kilobyte", "kilobytes", "kib"], "kb"),
    # time
    **dict.fromkeys(["second", "seconds", "secs"], "second"),
    **dict.fromkeys(["minute", "minutes", "mins"], "minute"),
    **dict.fromkeys(["hour", "hours", "hr", "hrs"], "hour"),
    **dict.fromkeys(["day", "days"], "day"),
    **dict.fromkeys(["week", "weeks", "wk", "wks"], "week"),
    **dict.fromkeys(["month", "months", "mos"], "month"),
    **dict.fromkeys(["year", "years", "yr", "yrs"], "year"),
    # percent
    **dict.fromkeys(["percent", "pct"], "%"),
    # counted nouns (plural → singular)
    **{plural: noun for noun in _COUNTED_NOUNS for plural in (noun, noun + "s")},
    "retries": "retry",
}

#: Abbreviations too ambiguous on their own ("min" = minimum?), mapped only after a number.
#: "256K" is 256 kB in the size limits documentation states.
UNITS_AFTER_NUMBER: dict[str, str] = {"h": "hour", "min": "minute", "sec": "second", "mo": "month", "k": "kb"}

_PER_SLASH = re.compile(r"(?<=\d)\s*/\s*(?=[a-z])")
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")
_ZERO_FRACTION = re.compile(r"(?<=\d)\.0+(?!\d|\.\d)")
_OTHER_PUNCT = re.compile(r"[^\w\s$%.]|_")
_LONE_DOT = re.compile(r"(?<!\d)\.|\.(?!\d)")
_GLUED_UNIT = re.compile(r"(\$?\d+(?:\.\d+)?)([a-z]+)")
_ORDINAL_SUFFIX = frozenset({"st", "nd", "rd", "th"})
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _below_hundred(words: list[str], j: int) -> tuple[int, int] | None:
    """``zero``..``ninety-nine`` starting at ``words[j]`` → (value, next index)."""
    if j >= len(words):
        return None
    word = words[j]
    if word in _TENS:
        if j + 1 < len(words) and words[j + 1] in _DIGIT_WORDS:
            return _TENS[word] + _DIGIT_WORDS[words[j + 1]], j + 2
        return _TENS[word], j + 1
    if word in _UNITS:
        return _UNITS[word], j + 1
    return None


def _tail(words: list[str], j: int, allow_and: bool) -> tuple[int, int] | None:
    """A non-zero remainder after ``hundred``/a scale word, optionally introduced by ``and``."""
    if allow_and and j < len(words) and words[j] == "and":
        parsed = _below_thousand(words, j + 1)
        if parsed is not None and parsed[0] > 0:
            return parsed
    parsed = _below_thousand(words, j)
    return parsed if parsed is not None and parsed[0] > 0 else None


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
    rest = _below_hundred_tail(words, k)
    return (value + rest[0], rest[1]) if rest is not None else (value, k)


def _below_hundred_tail(words: list[str], k: int) -> tuple[int, int] | None:
    """The ``and five`` / ``five`` after ``hundred``: non-zero and below 100."""
    start = k + 1 if k < len(words) and words[k] == "and" else k
    parsed = _below_hundred(words, start)
    return parsed if parsed is not None and parsed[0] > 0 else None


def _parse_number(words: list[str], i: int) -> tuple[int, int] | None:
    """Longest number-word phrase starting at ``words[i]`` → (value, next index)."""
    total, j, found = 0, i, False
    for scale_word, scale in _SCALES:
        parsed = _below_thousand(words, j)
        if parsed is not None and parsed[0] > 0 and parsed[1] < len(words) and words[parsed[1]] == scale_word:
            total += parsed[0] * scale
            j, found = parsed[1] + 1, True
        elif not found and j < len(words) and words[j] == scale_word:
            total += scale  # bare "thousand" = 1000, as in "a thousand users"
            j, found = j + 1, True
    rest = _tail(words, j, allow_and=True) if found else _below_thousand(words, j)
    if rest is not None:
        total += rest[0]
        j, found = rest[1], True
    return (total, j) if found else None


def _number_words_to_digits(words: list[str]) -> list[str]:
    if _NUMBER_WORDS.isdisjoint(words):  # the common case, decided in C: nothing to convert
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] in _NUMBER_WORDS:
            parsed = _parse_number(words, i)
            if parsed is not None:
                out.append(str(parsed[0]))
                i = parsed[1]
                continue
        out.append(words[i])
        i += 1
    return out


_DIGIT_THEN_LETTER = re.compile(r"\d[a-z]")


def _split_glued_units(words: list[str]) -> list[str]:
    if not _DIGIT_THEN_LETTER.search(" ".join(words)):  # no word can be "<number><unit>": skip a regex per word
        return words
    out: list[str] = []
    for word in words:
        m = _GLUED_UNIT.fullmatch(word)
        if m and m.group(2) not in _ORDINAL_SUFFIX:
            out.extend(m.groups())
        else:
            out.append(word)
    return out


#: Every word that :func:`_merge_money_and_percent` acts on; a text with none of them is left as it is.
_MONEY_AND_PERCENT_WORDS = frozenset({"$", "usd", "dollar", "dollars", "cent", "percent", "pct", "%"})


def _merge_money_and_percent(words: list[str]) -> list[str]:
    if _MONEY_AND_PERCENT_WORDS.isdisjoint(words):  # the common case: skip a regex per word
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else None
        if word in ("$", "usd") and nxt is not None and _NUMBER.fullmatch(nxt):
            out.append("$" + nxt)
            i += 2
        elif _NUMBER.fullmatch(word) and nxt in ("dollar", "dollars", "usd"):
            out.append("$" + word)
            i += 2
        elif word == "per" and nxt == "cent":
            out.append("%")
            i += 2
        else:
            out.append(UNIT_WORDS.get(word, word) if word in ("percent", "pct") else word)
            i += 1
    merged: list[str] = []
    for word in out:
        if word == "%" and merged and _NUMBER.fullmatch(merged[-1].lstrip("$")):
            merged[-1] += "%"
        else:
            merged.append(word)
    return merged


def _canonical_units(words: list[str]) -> list[str]:
    if UNITS_AFTER_NUMBER.keys().isdisjoint(words):  # only spelling to map: one dict look-up per word
        return [UNIT_WORDS.get(word, word) for word in words]
    out: list[str] = []
    for word in words:
        if word in UNITS_AFTER_NUMBER and out and _NUMBER.fullmatch(out[-1].lstrip("$")):
            out.append(UNITS_AFTER_NUMBER[word])
        else:
            out.append(UNIT_WORDS.get(word, word))
    return out


def ungroup_digits(text: str) -> str:
    """``text`` with the thousands separators of its numbers removed ("100,000" → "100000"; "1,5" is kept): the
    reading :func:`normalise_text` gives numbers, for a rule that must keep the rest of the text as written."""
    return _GROUPED.sub(lambda m: m.group().replace(",", ""), text)


@lru_cache(maxsize=65536)
def normalise_text(s: str) -> str:
    """Normalised form of ``s`` for answer matching (rules in the module docstring).

    Memoised: it is pure, and the same accept strings are normalised for every answer.
    """
    text = unicodedata.normalize("NFKC", s).translate(_PUNCT_MAP).lower()
    text = _PER_SLASH.sub(" per ", text)
    text = ungroup_digits(text)
    text = _ZERO_FRACTION.sub("", text)
    text = text.replace("'", "")
    text = _OTHER_PUNCT.sub(" ", text)
    text = _LONE_DOT.sub(" ", text)
    words = _split_glued_units(text.split())
    words = _number_words_to_digits(words)
    words = _merge_money_and_percent(words)
    words = _canonical_units(words)
    return " ".join(words)

"""Quantities: a number together with its unit of measure, read the same way in a claim and in its span.

The span rules hold a claim's numbers exactly, but a number alone is not a value: "locked for
10 days" is not held by a span that says "after 10 wrong password attempts … locked for 60
minutes", nor "costs 10 euros" by "$10 per month". A reviewer reads the number with its unit;
so does this module. Only units of measure bind (time, data size, money, percent): a counted noun
("10 attempts", "10 failed logins") is the writer's own wording and stays a word of the claim.

Everything goes through :func:`evalgate_lib.judging.normalise.normalise_text` first, so "ten
days", "10-day" and "10 days" are one quantity, "256K" is 256 kB, "1,000" is 1000 and "$12.00"
is $12. A span that states the number with no unit at all (a table cell under a header that
names the unit, a number ending its sentence) does not contradict the claim's unit, and a range
("30 to 365 days", "between 1 and 90 days") gives its unit to both ends.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evalgate_lib.judging.normalise import normalise_text

#: Units of measure, as :func:`normalise_text` spells them, that make a number a quantity of their kind.
MEASURE_UNITS = frozenset({"second", "minute", "hour", "day", "week", "month", "year", "kb", "mb", "gb", "tb", "euro"})

#: Words that join the two ends of a range, between a number and its unit.
_RANGE_WORDS = frozenset({"to", "and", "or", "through"})

#: At most this many words (adjectives such as "business", "calendar") stand between a number and its unit.
UNIT_GAP = 1

_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_NUMBER = re.compile(r"^\$?\d+(?:\.\d+)?%?$")
_EURO = re.compile(r"€\s*(\d[\d,.]*)")
_EURO_WORD = re.compile(r"\b(?:euros?|eur)\b", re.IGNORECASE)


def _tokens(line: str) -> list[str]:
    return normalise_text(_EURO_WORD.sub("euro", _EURO.sub(r"\1 euro", line))).split()


def _unit_after(tokens: list[str], i: int) -> str | None:
    """The unit of measure the number at ``tokens[i]`` is given in, or ``None``: the next word, past at most
    :data:`UNIT_GAP` other words and across a range's other end ("30 to 365 day")."""
    gap = 0
    j = i + 1
    while j < len(tokens):
        token = tokens[j]
        if token in MEASURE_UNITS:
            return token
        if token in _RANGE_WORDS or _NUMBER.match(token):
            j += 1
            continue
        gap += 1
        if gap > UNIT_GAP:
            return None
        j += 1
    return None


@lru_cache(maxsize=65536)
def read_quantities(text: str) -> tuple[frozenset[tuple[str, str]], frozenset[str], frozenset[str]]:
    """What ``text`` states of numbers: its quantities ``(number, unit)``, the numbers it states bare (with no
    word after them on their line, or only another number: a table cell, the end of a sentence) and every
    number it states. Money and percent carry their sign: ``$18`` is ``("18", "$")``, ``95%`` ``("95", "%")``."""
    quantities: set[tuple[str, str]] = set()
    bare: set[str] = set()
    numbers: set[str] = set()
    for line in text.split("\n"):
        tokens = _tokens(line)
        for i, token in enumerate(tokens):
            if not _NUMBER.match(token):
                continue
            number = token.strip("$%")
            numbers.add(number)
            if token.startswith("$"):
                quantities.add((number, "$"))
            elif token.endswith("%"):
                quantities.add((number, "%"))
            else:
                unit = _unit_after(tokens, i)
                if unit:
                    quantities.add((number, unit))
                elif i + 1 == len(tokens) or _NUMBER.match(tokens[i + 1]):
                    bare.add(number)
    return frozenset(quantities), frozenset(bare), frozenset(numbers)


def unheld_quantity(claim: str, span: str) -> str | None:
    """A quantity of ``claim`` whose number ``span`` states, but only with another unit or none that could be it.

    ``None`` when every quantity of the claim is held: stated in the span with its unit, or its number
    stated bare, or its number absent from the span (the exact-token rule judges that). Only numbers the
    claim writes in digits bind: "one" in "(one year)" is as often a pronoun or an aside. Otherwise the
    reason, in words: ``"10 day (the span gives 10 without that unit)"``.
    """
    stated, _, _ = read_quantities(claim)
    given, bare, numbers = read_quantities(span)
    digits = set(_DIGITS.findall(claim.replace(",", "")))
    for number, unit in sorted(stated):
        if number not in digits:  # a number in words ("one year") is as often a pronoun or an aside as a value
            continue
        if (number, unit) in given or number in bare or number not in numbers:
            continue
        other = sorted(u for n, u in given if n == number)
        given_as = f"as {', '.join(_shown(number, u) for u in other)}" if other else "for something else"
        return f"{_shown(number, unit)} (the span gives {number} {given_as})"
    return None


def _shown(number: str, unit: str) -> str:
    return f"${number}" if unit == "$" else f"{number}%" if unit == "%" else f"{number} {unit}"


#: Units of measure a question can ask for by name ("in euros", "how many days"), as :func:`normalise_text` spells them.
_ASKABLE = MEASURE_UNITS | {"$"}


def asked_unit(question: str) -> str | None:
    """The unit of measure ``question`` asks its answer in ("How much … in euros?" → ``"euro"``, "How many days …?"
    → ``"day"``, "in US dollars" → ``"$"``), or ``None`` when it names none."""
    tokens = _tokens(question)
    for i, token in enumerate(tokens[:-1]):
        following = tokens[i + 1 : i + 3]
        if token == "in" and following and following[-1 if following[0] == "us" else 0] in ("$", "dollar", "dollars"):
            return "$"
        if (token == "in" or token == "many" and i and tokens[i - 1] == "how") and following[0] in _ASKABLE:
            return following[0]
    return None

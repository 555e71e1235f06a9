"""A claim's slots, and the one criterion that says a slot is bound to another subject in the context.

A claim states values in **slots**: its numbers (with their units), its names (options, functions, paths,
identifiers), its polarity (it negates or not) and its qualifiers (minimum or maximum, before or after, must or
may …; the lexicon's ``opposites``). What it states them *about* are its **subject words**: its counted words
less those of its values, names, negations and qualifiers.

A reviewer checks a slot against the place of the context the claim is about. So does the judge: each place
(:class:`~evalgate_lib.judging.context.Place`: a clause, or a table cell with its row label and column heading)
either holds the claim's value for the slot (it **agrees**), holds a different value of the same kind and not
the claim's (it is a **rival**), or holds neither. The slot is **bound elsewhere** (:func:`bound_elsewhere`)
when some rival holds every subject word that the best agreeing place holds, and more — the claim's own words
stand by the other value — and at least :data:`BIND_FLOOR` of the subject words. "Backups of Pro workspaces are
kept for 30 days" against "Starter … 30 days; Pro … 90 days": the Pro clause holds {backup, pro, workspac,
kept}, the Starter clause only {backup, workspac, kept}; the claim's words stand by 90, not by 30.

The criterion is the same for every slot, and a person recomputes it from the two word lists in the trace.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.context import (
    Place,
    clause_texts,
    digit_numbers,
    name_words,
    proper_names,
    refers_back,
    restrictive_words,
)
from evalgate_lib.judging.terms import canonical_number, stem, terms_of

#: A claim with at most this many counted words of its own (numbers and names aside) is an answer fragment
#: ("10 GB.", "The answer is 3."): its span must also hold WORD_FLOOR of the question's words. A place binds a slot
#: only with at least this many of the claim's words: one shared word binds nothing.
FRAGMENT_WORDS = 2
#: A claim with at most this many counted words may miss one of them when its span holds its every name; a clause
#: with fewer subject words than this aligns anywhere, so its polarity is not compared.
SHORT_CLAIM = 4
#: Share of a claim piece's subject words the rival place must hold for the slot to be bound elsewhere: under it,
#: the place is not about what the claim is about. For a polarity, a qualifier or a name, whose flip leaves every
#: other word in place, the rival must restate the claim: hold ``question.RESTATES_QUESTION`` of its words.
BIND_FLOOR = 0.5

Phrase = tuple[str, ...]


@dataclass(frozen=True)
class Piece:
    """One clause of a claim with its slots: the text, its subject words, numbers, names, polarity, qualifiers.

    ``words`` are its counted words less its numbers, units and the words of its names; its qualifiers stay (the
    minimum's 5 is not the storage's 2), except where a qualifier itself is compared (:meth:`without_qualifiers`).
    """

    text: str
    words: frozenset[str]
    numbers: tuple[tuple[str, str | None], ...]
    names: frozenset[str]
    negated: bool
    restrictive: bool
    qualifiers: frozenset[Phrase]
    #: It refers back ("It defaults to 5", "…, which holds 500 seats"): its subject is named before it, in the clause
    #: whose subject words it takes (``inherited``).
    refers: bool = False
    inherited: frozenset[str] = frozenset()
    #: It states a condition ("if X is not set"), not a fact: its polarity is not compared.
    condition: bool = False
    #: The words its negations negate ("can't be extended" → extend).
    negated_words: frozenset[str] = frozenset()
    #: Its proper names past its first word ("the Business plan" → busi): a plan, role or product it is about.
    proper: frozenset[str] = frozenset()

    def without_qualifiers(self) -> frozenset[str]:
        """Its subject words less its qualifiers': what a qualifier is compared on."""
        return self.words - {stem(t) for q in self.qualifiers for t in q}


@lru_cache(maxsize=65536)
def pieces_of(claim: str, code: tuple[str, ...] = ()) -> tuple[Piece, ...]:
    """The claim's clauses, cut as its context is (:func:`~evalgate_lib.judging.context.clause_texts`), each with its
    slots; a clause that refers back keeps the subject words of the one before it, for when it has none of its own."""
    out: list[Piece] = []
    for part in clause_texts(claim) or [claim]:
        piece = _piece(part, tuple(c for c in code if c in part))
        if refers_back(part):
            # "which holds 500 seats", "It defaults to 5": its subject is named in the clause before it
            taken = out[-1].words - piece.words if out else frozenset()
            piece = dataclasses.replace(piece, refers=True, inherited=taken)
        out.append(piece)
    return tuple(out)


def _piece(text: str, code: tuple[str, ...]) -> Piece:
    terms = terms_of(text, code)
    tokens = lx.reading_tokens(text)
    qualifiers = lx.qualifiers(tokens)
    numbers_in = set(digit_numbers(text) & terms.exact)
    with_units = {(n, u) for n, u in terms.quantities if n in numbers_in}
    bare = {(n, None) for n in numbers_in if not any(q[0] == n for q in with_units)}
    names = frozenset(t for t in terms.exact if not t[:1].isdigit())
    dropped = set(name_words(names))
    dropped |= {w for w in terms.words if w[:1].isdigit()}
    return Piece(
        text,
        frozenset(terms.words - dropped),
        tuple(sorted(with_units | bare, key=lambda q: (q[0], q[1] or ""))),
        names,
        bool(lx.CLAUSE_NEGATIONS & set(tokens)),
        bool(lx.RESTRICTIVES & set(tokens)),
        qualifiers,
        condition=bool(tokens) and tokens[0] in lx.CONDITIONS,
        negated_words=frozenset(stem(w) for w in lx.negated_words(tokens)),
        proper=proper_names(text),
    )


@dataclass(frozen=True)
class Binding:
    """A slot bound elsewhere: the rival place and what it holds of the subject words, and the best agreeing place."""

    rival: Place
    rival_held: frozenset[str]
    own: Place | None
    own_held: frozenset[str]
    words: frozenset[str]
    also: frozenset[str]


def least_words(count: int, floor: float | None = None) -> int:
    """How many of ``count`` subject words a place must hold to bind a value: ``floor`` (default
    :data:`BIND_FLOOR`) of them, rounded down, and at least :data:`FRAGMENT_WORDS`."""
    share = BIND_FLOOR if floor is None else floor  # read when called: a threshold curve may set it
    return max(math.floor(share * count), FRAGMENT_WORDS)


def bound_elsewhere(
    words: frozenset[str],
    places: Sequence[Place],
    agrees: Callable[[Place], bool | None],
    *,
    also: frozenset[str] = frozenset(),
    floor: float | None = None,
    own_only: bool = False,
    superset: bool = True,
) -> Binding | None:
    """The rival place the claim piece stands by rather than by any place that agrees (module docstring).

    ``words`` are the piece's own subject words; only when it has none is it compared on ``also``, the words it
    takes from elsewhere (the clause it refers back to, the question a fragment answers). ``agrees(place)`` is
    ``True`` (holds the claim's value), ``False`` (holds another of its kind, not the claim's) or ``None``
    (neither). The rival must hold ``floor`` (default :data:`BIND_FLOOR`) of the words (rounded down, at least
    ``FRAGMENT_WORDS``), more of them
    than the best agreeing place and, with ``superset``, every word that place holds. ``own_only`` compares a
    place's own words, not the headings above it."""
    compared = words or also
    if not compared:
        return None
    own: list[tuple[Place, frozenset[str]]] = []
    rivals: list[tuple[Place, frozenset[str]]] = []
    for place in places:
        verdict = agrees(place)
        if verdict is None:
            continue
        (own if verdict else rivals).append((place, compared & (place.own if own_only else place.words)))
    best = max((len(held) for _, held in own), default=0)
    own_place = next((p for p, held in own if len(held) == best), None)
    own_held = frozenset().union(*(held for _, held in own if len(held) == best)) if own else frozenset()
    least = least_words(len(compared), floor)
    for place, held in sorted(rivals, key=lambda r: -len(r[1])):
        if len(held) <= best or len(held) < least:
            break
        if not superset or held >= own_held:
            return Binding(place, held, own_place, own_held, compared, also)
    return None


# --------------------------------------------------------------------------------------------- the four slots


def name_shape(name: str) -> str:
    """What kind of name it is, as compared: an option, a path, a menu path, a dotted name, a snake_case name, a
    hyphenated name with digits, a name with digits, or a plain word a code span names. A rival must have the same
    shape; a plain word is compared with nothing (``certifi`` and ``truststore`` are two things, not one name in two
    places)."""
    if name.startswith("-"):
        return "option"
    if ">" in name:
        return "menu"
    if "/" in name:
        return "path"
    if "." in name.strip("."):
        return "dotted"
    if "_" in name:
        return "snake"
    if "-" in name and any(c.isdigit() for c in name):
        return "hyphenated"  # sha-1, utf-8, iso-8859-1: a standard's name, rival to another (utf-8), not to httplib2
    if any(c.isdigit() for c in name):
        return "digits"
    return "word"


def number_agrees(value: str, unit: str | None, also: frozenset[str] = frozenset()) -> Callable[[Place], bool | None]:
    """A place agrees when it holds the number, is a rival when it holds another number (of the same unit when
    the claim gives one) — unless that number is one the claim states too (``also``): a claim may join two places'
    facts, each by its own number."""

    def agrees(place: Place) -> bool | None:
        if value in place.numbers:
            return True
        if place.numbers & also:
            return None
        others = place.numbers - {value}
        if not others:
            return None
        if unit is None:
            return False
        given = {u for _, u in place.quantities}
        return False if unit in given or not given else None

    return agrees


def name_agrees(
    name: str, held: Callable[[str, Place], bool], also: frozenset[str] = frozenset()
) -> Callable[[Place], bool | None]:
    """A place agrees when it holds the name (``held``), is a rival when it holds another name of its shape that the
    claim does not name too (``also``)."""
    shape = name_shape(name)

    def agrees(place: Place) -> bool | None:
        if held(name, place):
            return True
        if place.code or any(held(other, place) for other in also):
            return None
        return False if any(name_shape(n) == shape and n != name for n in place.names) else None

    return agrees


def proper_agrees(name: str, also: frozenset[str], mates: frozenset[str]) -> Callable[[Place], bool | None]:
    """A place agrees when it names the proper name (a plan, a role), is a rival when it names another of its kind
    (``mates``: named beside it in the context) that the claim does not name too: "on the Free and Enterprise plans"
    against "on the Business and Enterprise plans" (the place names Business, which the claim does not)."""

    def agrees(place: Place) -> bool | None:
        if name in place.proper:
            return True
        if place.code:
            return None
        # a place naming the claim's other names is a rival only when it names one of the kind the claim does not
        return False if place.proper & mates - also else None

    return agrees


_NUMBER = r"(?<![\w.])(\d+(?:[.,]\d+)*)"
#: Two numbers joined as the ends of a range: "1 to 1,000", "30 days through 365 days", "between 30 and 365",
#: "7–365", "4..1000" (one word may stand between a number and the joint: its unit).
_RANGE = re.compile(
    rf"(?:\bbetween\s+{_NUMBER}(?:\s*[A-Za-z%]+)?\s+and\s+{_NUMBER})"
    rf"|(?:{_NUMBER}(?:\s*[A-Za-z%]+)?(?:\s*(?:\u2013|\u2014|\.\.)\s*|\s+(?:to|through)\s+)(\d+(?:[.,]\d+)*))",
    re.IGNORECASE,
)


@lru_cache(maxsize=65536)
def range_ends(text: str) -> frozenset[tuple[str, str]]:
    """The ranges ``text`` writes, as ``(lower end, upper end)`` numbers as compared (``1,000`` = ``1000``): only
    where the first number is the smaller, so "version 3 to 2" or a date is no range."""
    out = set()
    for match in _RANGE.finditer(text):
        low, high = (g for g in match.groups() if g is not None)
        low, high = canonical_number(low.rstrip(".,")), canonical_number(high.rstrip(".,"))
        try:
            if float(low) < float(high):
                out.add((low, high))
        except ValueError:
            continue
    return frozenset(out)


@lru_cache(maxsize=65536)
def named_bounds(text: str) -> tuple[tuple[str, str, str], ...]:
    """The numbers ``text`` names a bound, each ``(number, "lower" | "upper", the phrase)``: a phrase of the
    lexicon's ``bounds`` among the three words before it ("a minimum of 365 days", "up to 500 seats")."""
    out = []
    for match in re.finditer(_NUMBER, text):
        before = lx.reading_tokens(text[: match.start()])[-3:]
        for kind, phrases in (("lower", lx.LOWER_BOUNDS), ("upper", lx.UPPER_BOUNDS)):
            found = next((p for p in phrases if _holds_phrase(before, p)), None)
            if found is not None:
                out.append((canonical_number(match.group(1).rstrip(".,")), kind, " ".join(found)))
                break
    return tuple(out)


def _holds_phrase(tokens: Sequence[str], phrase: tuple[str, ...]) -> bool:
    return any(tuple(tokens[i : i + len(phrase)]) == phrase for i in range(len(tokens) - len(phrase) + 1))


#: The qualifier that says a statement holds unless something changes it ("not collected by default").
BY_DEFAULT = ("by", "default")


def polarity_agrees(piece: Piece) -> Callable[[Place], bool | None]:
    """A negative clause agrees with a place that negates or restricts, and has a rival in a place that says what it
    negates without a negation; a positive clause agrees with a place that does not negate, and has a rival in a
    place that negates one of its own words ("cannot be extended" is a rival of "can be extended", not of "expires
    after 7 days"), unless the place negates only "by default" and the claim, which does not say "by default", names
    code (the option that changes the default). A code line or a condition states no polarity."""

    said = restrictive_words(piece.text)

    def agrees(place: Place) -> bool | None:
        if place.code or place.condition:
            return None
        if piece.negated:
            if place.negated or place.restrictives - said:
                return True
            return False if piece.negated_words & place.own else None
        if place.negated:
            if BY_DEFAULT in place.qualifiers and piece.names and BY_DEFAULT not in piece.qualifiers:
                return None  # "not collected by default" is no rival of "add --branch-sim=yes to collect"
            return False if place.negated_words & piece.words else None
        return True

    return agrees


def qualifier_agrees(qualifier: Phrase) -> Callable[[Place], bool | None]:
    """A place agrees when it holds the qualifier, is a rival when it holds an opposite of it and not it."""
    opposites = lx.OPPOSITES.get(qualifier, frozenset())

    def agrees(place: Place) -> bool | None:
        if qualifier in place.qualifiers:
            return True
        return False if opposites & place.qualifiers and not place.code else None

    return agrees

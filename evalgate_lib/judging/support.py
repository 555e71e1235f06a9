"""Support: is each claim of an answer held by the place of its context it is about? Tables of named rules.

A reviewer following the labelling guide reads a claim against the local place of the context it is about (a
sentence, a table row or cell, two neighbouring sentences; :mod:`evalgate_lib.judging.context`) and asks: does that
place say this — this number, this name, this polarity, this qualifier? The rules below are that reading, written
down as rows of ordered tables (:data:`CLAIM_TABLE` for a claim, :data:`CODE_TABLE`, :data:`COVERAGE_TABLE`,
:data:`LEAN_TABLE`), each run by the one loop :func:`~evalgate_lib.judging.rules.run_rules`: the first rule that
decides gives the verdict, nothing after it runs, and every rule tried is kept as a step with its evidence, so a
verdict can be recomputed by hand (``evalgate explain``). docs/judge.md shows the tables, generated from them.

For a claim (:class:`ClaimCase`) the rules read, each computed once: its **best span** (the span holding the most
of its exact tokens, then of its words: what S.absent, S.unit, S.apart and S.words read) and its **clauses with
their slots** (:mod:`evalgate_lib.judging.slots`: numbers, names, polarity, qualifiers), each compared with every
clause and table cell of the context by the one binding criterion
(:func:`~evalgate_lib.judging.slots.bound_elsewhere`: S.binding, S.name, S.negation, S.qualifier).

A sentence whose role claims nothing (a decline, a heading, courtesy …) has no support verdict; its role's rule is
its reason. An undecided verdict leans unsupported for the headline rates (``supported`` is its lean) and sends its
answer to the review queue, unless the rest of its answer shows a faithful writer (L.answer). Every figure here is
a share of listed words, and every list is in the step.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.context import (
    ContextReading,
    Place,
    Span,
    clause_texts,
    digit_numbers,
    line_names,
    read_context,
    restrictive_words,
    squash,
)
from evalgate_lib.judging.normalise import normalise_text
from evalgate_lib.judging.question import ABOUT_QUESTION, RESTATES_QUESTION, read_question
from evalgate_lib.judging.reading import AnswerReading, Sentence, read_answer
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.rules import Example, Rule, Step, by_id, render, run_rules, share
from evalgate_lib.judging.sentence_scorers import ScoringContext, SentenceScorer
from evalgate_lib.judging.slots import (
    BY_DEFAULT,
    FRAGMENT_WORDS,
    SHORT_CLAIM,
    Binding,
    Piece,
    bound_elsewhere,
    least_words,
    name_agrees,
    name_shape,
    named_bounds,
    number_agrees,
    pieces_of,
    polarity_agrees,
    proper_agrees,
    qualifier_agrees,
    range_ends,
)
from evalgate_lib.judging.terms import Terms, quantities, stem, terms_of
from evalgate_lib.text.tokens import content_token_list, fold

#: Share of a claim's counted words its best span must hold, with every number and name, to support it.
#: Chosen by the worst labelled set (docs/judge.md has the curve).
WORD_FLOOR = 0.55
#: Under this share of its words a claim is unsupported however its numbers and names stand; from it up to
#: :data:`WORD_FLOOR` it is a near miss: undecided, leaning unsupported.
NEAR_MISS = 0.34
#: A verbatim copy must be at least this long (in characters) to count as one: "Yes." is in every context.
VERBATIM_CHARS = 12

# The rule tables are at the end of the module, after the checks they run.


# --------------------------------------------------------------------------------------------- what a claim needs

#: What a claim is to its span, as S.words' evidence names it: a fragment ("10 GB.") takes its subject from the
#: question; a claim in the question's words restates it with something added; a clause is a part checked alone.
FRAGMENT = "a fragment that takes its subject from the question"
RESTATEMENT = "a claim in the question's words"
CLAIM = "a claim"
CLAUSE = "a clause"


@dataclass(frozen=True)
class Need:
    """What a claim asks of its span: its terms, the question's words a fragment must find there, and its kind."""

    terms: Terms
    question: frozenset[str]
    kind: str
    #: What a restatement adds to the question: its claim proper, which its span must hold too.
    added: frozenset[str] = frozenset()

    def rank(self, span: Span) -> tuple[int, ...]:
        held = span.terms.exact | span.tokens
        return (
            len(held_exact(self.terms.exact, held, span.terms.exact)),
            len(self.terms.words & span.terms.words) + len(self.question & span.terms.words),
            -len(span.text),
        )


def need_of(claim: str, code: tuple[str, ...], question: str) -> Need:
    """What ``claim`` needs of its span: a fragment ("10 GB.") takes its subject from the question, whose words its
    span must hold too; a claim about the question (``ABOUT_QUESTION`` of its words: "The minimum number of seats on
    Business is 100.") restates it, and its span must hold the question's words it restates and its subjects."""
    terms = terms_of(claim, code)
    asked = read_question(question)
    if len(terms.own_words) <= FRAGMENT_WORDS:
        return Need(terms, asked.asked - terms.words, FRAGMENT)
    if asked.asked and asked.about(terms.words) >= ABOUT_QUESTION:
        return Need(terms, asked.asked & terms.words, RESTATEMENT)
    return Need(terms, frozenset(), CLAIM)


#: A path's separator, POSIX or Windows: a path is held part by part (``pip.ini`` by ``c:\\programdata\\pip\\pip.ini``).
_PATH = re.compile(r"[/\\]")


def held_exact(need: frozenset[str], held: frozenset[str], names: frozenset[str] | None = None) -> frozenset[str]:
    """The exact tokens of ``need`` that ``held`` holds. An attribute of a short local variable (``r.json``) is held
    by the same attribute of a named object (``Response.json``); a qualified name (``json.dumps``) by its last part
    where the context names its qualifier; a file name (``pip.conf``) by a path that passes through it."""
    found = set(need & held)
    if found == need:
        return frozenset(found)
    # an attribute of a name ("json.dumps" → dumps); a dotfile (".config", ".netrc") is a file's name, no attribute
    tails = {t.rsplit(".", 1)[1] for t in held if "." in t.lstrip(".") and not _PATH.search(t)}
    parts = {part for t in held if _PATH.search(t) for part in _PATH.split(t) if part}
    for token in need - held:
        version = re.fullmatch(r"v(\d+(?:\.\d+)*)", token)
        if version and version.group(1) in held:  # "v2" is "version 2"
            found.add(token)
            continue
        head, dot, tail = token.rpartition(".")
        if (
            dot
            and not _PATH.search(token)
            and len(tail) >= 3
            and (tail in tails or tail in (held if names is None else names))
        ):
            # an attribute the context gives on some object: a short variable's (r.json), or a name whose qualifier
            # the context names too (functools.cmp_to_key where functools' page documents .cmp_to_key)
            if len(head) <= 2 or all(part in held for part in head.split(".")):
                found.add(token)
        elif not _PATH.search(token) and token in parts:
            found.add(token)
    return frozenset(found)


# --------------------------------------------------------------------------------------------- the claim rules


@dataclass(frozen=True)
class _Check:
    """One claim checked: its steps in order (the last decides), the span its verdict shows (the text of the context
    it was judged against), its figure, and that span's passage (1-based)."""

    steps: tuple[Step, ...]
    span: str | None
    figure: float | None
    passage: int | None = None

    @property
    def last(self) -> Step:
        return self.steps[-1]

    @property
    def supported(self) -> bool:
        return self.last.outcome == "supported"

    @property
    def lean(self) -> bool:
        return self.last.outcome == "supported" or self.last.outcome == "undecided" and bool(self.last.lean)


def _words_of(need: Need) -> list[str]:
    return sorted(need.terms.words)


def _span_words(need: Need, span: Span) -> dict[str, Any]:
    return {
        "passage": span.passage + 1,
        "needed": _words_of(need),
        "held": sorted(need.terms.words & (span.terms.words | span.terms.exact)),
    }


def _words_evidence(need: Need, check: _Check) -> dict[str, Any]:
    """The words evidence of a part checked on its own: the words needed and those its verdict's span held."""
    for step in reversed(check.steps):
        if "needed" in step.evidence:
            return {"needed": list(step.evidence["needed"]), "held": list(step.evidence.get("held", []))}
    return {"needed": _words_of(need), "held": _words_of(need)}


def _unheld_quantity(
    claim: str, span: Span, context: frozenset[tuple[str, str]] = frozenset()
) -> dict[str, Any] | None:
    """A quantity of the claim (its number written in digits) whose number the span gives only with another unit.

    A span that also states the number bare (a table cell, the end of its sentence: "up to 10.") contradicts
    nothing: the unit may be its header's or its sentence's. Nor does one whose unit the claim gives the number
    with too, when the ``context`` (its quantities) gives the claim's: "about 18 percent … ($18 instead of $22)"
    joins two facts, and the span holds one of them ("64 gigabytes (64MB)" joins none: no place gives 64 GB)."""
    given = span.terms.quantities
    span_numbers = {t for t in span.terms.exact if t[:1].isdigit()}
    stated = quantities(claim, number_words=False)
    for number, unit in sorted(stated):
        if (number, unit) in given or number not in span_numbers or _bare(number, span.text):
            continue
        if (number, unit) in context and any((number, u) in given for n, u in stated if n == number and u != unit):
            continue
        other = sorted(u for n, u in given if n == number)
        shown = "as " + ", ".join(other) if other else "for something else"
        return {"quantity": f"{number} {unit}", "number": number, "given": shown}
    return None


def _bare(number: str, text: str) -> bool:
    """Whether ``text`` states ``number`` with nothing after it but punctuation, a cell border or the line's end."""
    return (
        re.search(
            rf"(?<![\w.$]){re.escape(number)}(?![\w.]|\.\d)\s*(?:[.,;:)|!]|$)", text.replace(",", ""), re.MULTILINE
        )
        is not None
    )


_SWAP_TOKEN = re.compile(r"[A-Za-z0-9_$%][\w$%.+-]*[\w$%+]|[A-Za-z0-9]")


def _swap_tokens(text: str) -> tuple[str, ...]:
    return tuple(_SWAP_TOKEN.findall(lx.spell_out(text) if "'" in text else text))


def _is_name(token: str, first: bool) -> bool:
    if any(c.isdigit() for c in token) or "_" in token or "." in token.strip("."):
        return True
    capitals = sum(c.isupper() for c in token)
    return capitals >= 2 or (capitals == 1 and (not first or not token[0].isupper()))


@lru_cache(maxsize=65536)
def swapped(claim: str, line: str) -> tuple[str, str] | None:
    """``(the claim's name, the line's)`` when ``claim`` is ``line`` with one name replaced, or ``("", "not")`` /
    ``("not", "")`` when it is ``line`` with a "not" dropped or added; the rest aligned word for word."""
    said, written = _swap_tokens(claim), _swap_tokens(line)
    if len(said) < 4:
        return None
    matcher = SequenceMatcher(None, [t.casefold() for t in said], [t.casefold() for t in written], autojunk=False)
    if sum(b.size for b in matcher.get_matching_blocks()) < 0.6 * len(said):
        return None
    codes = matcher.get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(codes):
        before, after = codes[k - 1] if k else None, codes[k + 1] if k + 1 < len(codes) else None
        flanked = all(c is not None and c[0] == "equal" and c[2] - c[1] >= 2 for c in (before, after))
        if tag in ("delete", "insert") and max(i2 - i1, j2 - j1) == 1 and flanked:
            word = said[i1] if tag == "delete" else written[j1]
            if word.casefold() in lx.NEGATIONS:
                return (word, "") if tag == "delete" else ("", word)
        if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1:
            left = before is None and i1 == j1 == 0 or before is not None and before[0] == "equal"
            right = (
                after is None and i2 == len(said) and j2 == len(written) or after is not None and after[0] == "equal"
            )
            a, b = said[i1], written[j1]
            same = "." in a + b and a.casefold().rsplit(".", 1)[-1] == b.casefold().rsplit(".", 1)[-1]
            if left and right and _is_name(a, i1 == 0) and _is_name(b, j1 == 0) and not same:
                return a, b
    return None


# --------------------------------------------------------------------------------------------- one claim, as a case


@dataclass
class ClaimCase:
    """One claim as every support rule reads it: its text and code spans, the question, the context, the spans it
    may be held by, and what each rule needs, computed once (its need, best span, missing values, slots).

    ``whole`` is False for a part of a claim checked on its own (a clause of :data:`S.clauses`, an enumeration
    against a list): the table runs on it without the rules that read a whole claim."""

    claim: str
    code: tuple[str, ...]
    question: str
    context: ContextReading
    spans: Sequence[Span]
    whole: bool = True
    disabled: frozenset[str] = frozenset()

    @cached_property
    def need(self) -> Need:
        if self.whole:
            return need_of(self.claim, self.code, self.question)
        return Need(terms_of(self.claim, self.code), frozenset(), CLAUSE)

    @cached_property
    def premise(self) -> frozenset[str]:
        return read_question(self.question).premise

    @cached_property
    def ranks(self) -> tuple[tuple[int, ...], ...]:
        """Each span's :meth:`Need.rank`, in the order of ``spans``, computed once: ``best`` and every span rule's
        :meth:`as_close` read it (a rank matches the claim's values against the span's, which is not cheap)."""
        return tuple(self.need.rank(s) for s in self.spans)

    @cached_property
    def best(self) -> Span | None:
        """The span that holds most of the claim's values and words: what S.absent, S.apart, S.unit and S.words read."""
        return self.spans[max(range(len(self.spans)), key=self.ranks.__getitem__)] if self.spans else None

    @cached_property
    def about(self) -> Span | None:
        """The best span when it holds WORD_FLOOR of the claim's words: the span the claim is about, whose slots
        the span rules of S.name, S.negation and S.qualifier compare (a span that holds less is not about it)."""
        return self.best if self.best is not None and self.figure >= WORD_FLOOR else None

    @cached_property
    def pinned(self) -> Span | None:
        """The span the claim is about (:attr:`about`), or else the best span when it holds every one of the
        claim's values and two or more of them are numbers: two numbers written together place a claim as surely
        as its words do ("from 5 up to 500 seats" is the row that says "minimum 5, up to 500", whatever the row's
        words), so the subject that span names is the one those values belong to."""
        if self.about is not None or self.best is None:
            return self.about
        exact = self.need.terms.exact
        numbers = [t for t in exact if t[:1].isdigit()]
        return self.best if len(numbers) >= 2 and max(self.ranks)[0] == len(exact) else None

    def as_close(self, slack: int = 0) -> list[Span]:
        """The spans that hold as many of the claim's values as its best span, and its words but ``slack``."""
        assert self.best is not None
        values, words = max(self.ranks)[:2]
        return [s for s, rank in zip(self.spans, self.ranks, strict=True) if rank[:2] >= (values, words - slack)]

    @cached_property
    def evidence(self) -> dict[str, Any]:
        if self.best is None:
            return {"passage": 0, "needed": _words_of(self.need), "held": []}
        return _span_words(self.need, self.best)

    @cached_property
    def figure(self) -> float:
        return share(self.evidence["held"], self.evidence["needed"])

    @cached_property
    def absent(self) -> list[str]:
        exact = self.need.terms.exact
        missing = exact - held_exact(exact, self.context.everything, self.context.names)
        return sorted(t for t in missing if t not in self.premise)

    @cached_property
    def pieces(self) -> tuple[Piece, ...]:
        return pieces_of(self.claim, self.code)

    @cached_property
    def parts(self) -> list[str]:
        return clauses_of(self.claim) if self.whole else []

    @cached_property
    def part_checks(self) -> list[_Check]:
        """Each clause of a long claim checked on its own (S.clauses)."""
        return [self.sub(part, self.spans) for part in self.parts] if len(self.parts) > 1 else []

    @cached_property
    def listed(self) -> _Check | None:
        """The claim checked against the context's lists and tables (S.enumeration), when it enumerates."""
        if not self.whole or len(_ITEMS.split(self.claim)) < 3 or not self.context.groups:
            return None
        return self.sub(self.claim, self.context.groups)

    def sub(self, text: str, spans: Sequence[Span]) -> _Check:
        """``text`` checked on its own against ``spans`` by the same table, without the whole-claim rules."""
        code = tuple(c for c in self.code if c in text)  # a part claims only the code written in it
        part = ClaimCase(text, code, self.question, self.context, spans, False, self.disabled | _WHOLE_ONLY)
        return run_claim(part)


#: The rules that read a whole claim, never a part of one.
_WHOLE_ONLY = frozenset({"S.verbatim", "S.clauses", "S.enumeration"})


def _subject_words(case: ClaimCase, piece: Piece, numbers: bool = True) -> tuple[frozenset[str], frozenset[str]]:
    """What a piece's slots are compared on: ``(its own subject words, the words it takes from elsewhere)``. Its
    own are its subject words (and its numbers, for a slot that is not a number); it takes the subject words of the
    clause it refers back to, and a fragment or restatement the question's words ("5 seats." answers for Business).
    The passage titles' words are in neither: every place of a passage is about its title."""
    words = piece.words | ({v for v, _ in piece.numbers} if numbers else set())
    also = (piece.inherited | case.need.question | case.need.added) - words
    return frozenset(words) - case.context.titles, also - case.context.titles


def _slot_step(
    rule: str,
    slot: str,
    said: str,
    rival: str,
    where: tuple[int, str],
    words: frozenset[str],
    held: frozenset[str],
    own: tuple[frozenset[str], str | None] = (frozenset(), None),
) -> Step:
    """The evidence of a slot that conflicts: what the claim says, the rival value and the place or span that holds
    it (``where``: 0-based passage, text), the subject words and what that place holds of them, and what the best
    place holding the claim's value holds (``own``: words, text) — a person recomputes the rule from these."""
    evidence: dict[str, Any] = {
        "slot": slot,
        "value": said,
        "rival": rival,
        "passage": where[0] + 1,
        "place": where[1],
        "words": sorted(words),
        "held": sorted(held),
        "own_held": sorted(own[0]),
    }
    if own[1] is not None:
        evidence["own_place"] = own[1]
    return Step(rule, "unsupported", False, evidence)


def _bound_step(rule: str, slot: str, said: str, rival: str, binding: Binding) -> Step:
    """A slot bound elsewhere (:func:`~evalgate_lib.judging.slots.bound_elsewhere`): the rival place, the best
    agreeing place."""
    where = (binding.rival.passage, binding.rival.shown)
    own = (binding.own_held, binding.own.shown if binding.own is not None else None)
    return _slot_step(rule, slot, said, rival, where, binding.words, binding.rival_held, own)


def _rival_numbers(place: Place, value: str, unit: str | None) -> str:
    same = sorted(n for n, u in place.quantities if u == unit and n != value) if unit else []
    shown = same or sorted(place.numbers - {value})
    return ", ".join(f"{n} {unit}" if unit and same else n for n in shown[:3])


# --------------------------------------------------------------------------------------------- the checks


def _check_verbatim(case: ClaimCase) -> Step | None:
    squashed = squash(case.claim).rstrip(".")
    if len(squashed) < VERBATIM_CHARS:
        return None
    for i, passage in enumerate(case.context.squashed):
        if squashed in passage:
            return Step("S.verbatim", "supported", True, {"passage": i + 1})
    return None


def _check_absent(case: ClaimCase) -> Step | None:
    if not case.absent:
        return None
    return Step("S.absent", "unsupported", False, {**case.evidence, "missing": case.absent})


def _check_unit(case: ClaimCase) -> Step | None:
    if case.best is None:
        return None
    unheld = _unheld_quantity(case.claim, case.best, case.context.quantities)
    return Step("S.unit", "unsupported", False, {"passage": case.best.passage + 1, **unheld}) if unheld else None


def _check_binding(case: ClaimCase) -> Step | None:
    for piece in case.pieces:
        words, taken = _subject_words(case, piece, numbers=False)
        for value, unit in piece.numbers:
            if value in case.premise:
                continue
            if _written_beside(value, piece.text, case.context.places):
                continue  # the context writes the value in the claim's own words ("the 15-day restore window")
            others = frozenset(n for p in case.pieces for n, _ in p.numbers if n != value)
            agrees = number_agrees(value, unit, others)
            bound = bound_elsewhere(words, case.context.places, agrees, also=taken)
            if bound is not None and _named_with(piece.names, bound.rival, case.context.places, agrees):
                continue  # the value stands with the claim's own name of code, which the rival does not hold
            if bound is not None:
                said = f"{value} {unit}" if unit else value
                return _bound_step("S.binding", "number", said, _rival_numbers(bound.rival, value, unit), bound)
    return None


def _named_with(
    names: frozenset[str], rival: Place, places: Sequence[Place], agrees: Callable[[Place], bool | None]
) -> bool:
    """Whether a place holding the value also holds one of the claim's names of code that the rival place does not:
    a name of code is the most particular subject a value is bound to ("With GCC 3.4 and later, that variable has
    changed name to GLIBCXX_FORCE_NEW" binds 3.4 to GLIBCXX_FORCE_NEW, however many other words the place before
    it shares with the claim)."""
    own = [n for n in names if not _name_held(n, rival)]
    return any(agrees(place) and _name_held(n, place) for place in places for n in own)


def _written_beside(value: str, claim: str, places: Sequence[Place]) -> bool:
    """Whether a place writes ``value`` with the three words the claim writes after it ("15-day restore window",
    "$18 per user per month"), two of them content words: the context states that value of that very thing, so a
    place that holds more of the claim's other words is no rival for it."""
    said = normalise_text(claim, True).split()
    for i, token in enumerate(said):
        if token.strip("$%") != value:
            continue
        window = said[i : i + 4]
        if len(window) < 4 or len([w for w in window[1:] if w not in lx.STOPWORDS]) < 2:
            continue
        for place in places:
            written = normalise_text(place.text, True).split()
            if any(written[j : j + 4] == window for j in range(len(written) - 3)):
                return True
    return False


def _name_held(name: str, place: Place) -> bool:
    return bool(held_exact(frozenset({name}), place.names))


def _check_name(case: ClaimCase) -> Step | None:
    for piece in case.pieces:
        words, taken = _subject_words(case, piece)
        for name in sorted(piece.names):
            if name in case.premise or name_shape(name) in ("menu", "word"):
                continue
            named = frozenset().union(*(p.names for p in case.pieces)) - {name}
            agrees = name_agrees(name, _name_held, named)
            bound = bound_elsewhere(
                words, case.context.places, agrees, also=taken, floor=RESTATES_QUESTION, own_only=True
            )
            if bound is not None:
                shape = name_shape(name)
                rivals = sorted(n for n in bound.rival.names if name_shape(n) == shape and n != name)
                return _bound_step("S.name", "name", name, ", ".join(rivals[:3]), bound)
        mates = case.context.classmates
        named = frozenset().union(*(p.proper for p in case.pieces))
        for name in sorted(n for n in piece.proper - case.context.titles if mates.get(n)):
            agrees = proper_agrees(name, named - {name}, mates[name])
            bound = bound_elsewhere(
                words - {name}, case.context.places, agrees, also=taken, floor=RESTATES_QUESTION, own_only=True
            )
            if bound is not None:
                rivals = sorted(bound.rival.proper & mates[name] - named)
                return _bound_step("S.name", "name", name, ", ".join(rivals[:3]), bound)
    return _span_names_another(case)


def _span_step(
    rule: str,
    slot: str,
    value: str,
    rival: str,
    case: ClaimCase,
    less: Iterable[str] = (),
    own: Span | None = None,
    words: frozenset[str] | None = None,
    **extra: Any,
) -> Step:
    """The evidence of a slot the span the claim is about contradicts (the span rules of S.name, S.negation and
    S.qualifier): the value, the rival the span holds, the span, the claim's words and what the span holds of them,
    and the best span that holds the claim's value (``own``), when one does. ``less``: words left out (the name);
    ``extra``: what else the rule read (the words a span negates)."""
    best = case.pinned
    assert best is not None
    counted = (case.need.terms.words if words is None else words) - frozenset(less)
    mine = (counted & own.terms.words, own.text) if own is not None else (frozenset(), None)
    held = counted & best.terms.words
    step = _slot_step(rule, slot, value, rival, (best.passage, best.text), counted, held, mine)
    return dataclasses.replace(step, evidence={**step.evidence, **extra}) if extra else step


def _span_names_another(case: ClaimCase) -> Step | None:
    """The span the claim is about names another proper name of the domain, not the claim's: "On Business, admins
    can …" aligned to "Admins on Enterprise can …", "the Admins plan keeps them for 1 year" aligned to the row
    "Business | 1 year". A proper name (a plan, a role, a platform) is a slot its span must hold; when the best span
    lacks it but names another proper name the claim does not name, and no span that holds the name holds as much
    of the claim, the claim's words stand by the other name. The span is the one the claim's values pin where its
    words do not (:attr:`ClaimCase.pinned`). (prose@10: any proper name of the domain; it had been only one named
    beside the claim's in a line, so a plan swapped for a role passed.)"""
    best = case.pinned
    if best is None:
        return None
    mates = case.context.classmates
    proper = frozenset(mates)  # the domain's proper names
    named = frozenset().union(*(p.proper for p in case.pieces))
    written = line_names(best.text)
    # the rivals when the span names none of the name's own kind: any other proper name it names (not the claim's
    # names, not the titles' words, not a word the claim writes too)
    others = (written & proper) - named - case.context.titles - case.need.terms.words
    for name in sorted((named & proper) - case.context.titles - best.terms.words - written):
        rivals = (written & mates[name]) - named or others  # the name's own kind first (a plan for a plan)
        if not rivals:
            continue
        if any(_holds_proper(s, name) for s in case.as_close()):
            continue
        own = max((s for s in case.spans if _holds_proper(s, name)), key=case.need.rank, default=None)
        return _span_step("S.name", "name", name, ", ".join(sorted(rivals)[:3]), case, {name}, own)
    return _span_names_another_code(case)


def _holds_proper(span: Span, name: str) -> bool:
    return name in span.terms.words or name in line_names(span.text)


def _holds_name(span: Span, name: str) -> bool:
    return bool(held_exact(frozenset({name}), span.terms.exact | span.tokens, span.terms.exact))


def _span_names_another_code(case: ClaimCase) -> Step | None:
    """The same for a name of code (an option, a dotted, snake_case or path name): the span the claim is about holds
    another name of its shape and not it ("set PIP_CONFIG_FILE to pip.ini" aligned to "… PIP_CONFIG_FILE to
    os.devnull"), and no span holding it holds as much of the claim."""
    best = case.pinned
    assert best is not None
    named = frozenset().union(*(p.names for p in case.pieces))
    for name in sorted(named - case.premise):
        shape = name_shape(name)
        if shape in ("menu", "word") or _holds_name(best, name):
            continue
        rivals = sorted(n for n in best.terms.exact if name_shape(n) == shape and n not in named and n[:1].isalpha())
        if not rivals:
            continue
        if any(_holds_name(s, name) for s in case.as_close()):
            continue
        return _span_step("S.name", "name", name, ", ".join(rivals[:3]), case)
    return None


def _polar_pieces(case: ClaimCase) -> Iterator[Piece]:
    """The claim's clauses whose polarity is compared: a clause that opens on a condition states its main clause
    after the condition's comma ("If you've forgotten the password, note that Nimbus does store link passwords …"),
    and that main clause is compared (:func:`_condition_apart`)."""
    for piece in case.pieces:
        parts = _condition_apart(piece.text) if piece.condition else ()
        if len(parts) == 2:
            yield from pieces_of(parts[1], tuple(c for c in case.code if c in parts[1]))
        else:
            yield piece


def _check_negation(case: ClaimCase) -> Step | None:
    for piece in _polar_pieces(case):
        if piece.restrictive and not piece.negated or piece.condition:
            continue  # a positive clause in restrictive words ("only", "disabled"), or a condition: no polarity
        words, taken = _subject_words(case, piece)
        if len(words) < SHORT_CLAIM:
            continue  # a short clause aligns anywhere: its polarity is not compared
        agrees = polarity_agrees(piece)
        bound = bound_elsewhere(
            words, case.context.places, agrees, also=taken, floor=RESTATES_QUESTION, own_only=True, superset=False
        )
        if bound is not None:
            said, written = ("negative", "positive") if piece.negated else ("positive", "negative")
            return _bound_step("S.negation", "polarity", said, written, bound)
    span = _span_negates_the_claim(case)
    if span is not None:
        return span
    if case.best is None:
        return None
    negated = any(
        _denies(part, case.best) and not _negation_stated(part, piece, case.best, case.context.places)
        for piece in case.pieces
        if piece.negated
        for part in _condition_apart(piece.text)
    )
    if negated and not _negative(case.best, case.claim):
        evidence = {**case.evidence, "slot": "polarity", "value": "negative", "rival": "positive"}
        return Step("S.negation", "undecided", False, {**evidence, "place": case.best.text})
    return None


def _negation_stated(part: str, piece: Piece, best: Span, places: Sequence[Place]) -> bool:
    """Whether a place of the context negates the very word ``part`` negates, about the same subject: it holds one or
    more of the clause's other words (its own and those it refers back to), and as many of them as the best span. The
    negation is stated, only elsewhere than in the best span ("Editable installs allow you to install your project
    without copying any files." beside the best span "Instead, the files … are added to Python's import path.");
    "without" negates the word after it here, as "not" does. "Files will not match" states nothing of "it will not
    match hidden directories": it holds none of *hidden*, *directories*."""
    denied = _denied_words(part)
    if not denied:
        return False
    subject = (piece.words | piece.inherited | terms_of(part).words) - denied
    least = max(len(subject & best.terms.words), 1)
    return any(denied & _denied_words(place.text) and len(subject & place.words) >= least for place in places)


@lru_cache(maxsize=65536)
def _denied_words(text: str) -> frozenset[str]:
    """The words ``text``'s negations negate (stemmed), "without" read as "not" ("without copying" → copi): read
    once per text, as every claim of an answer compares its negation with every place of the context."""
    tokens = tuple("not" if t == "without" else t for t in lx.reading_tokens(text))
    return frozenset(stem(w) for w in lx.negated_words(tokens))


def _condition_apart(clause: str) -> tuple[str, ...]:
    """A clause that opens on a condition, cut at its first comma: "If your team grows, you cannot add seats" is a
    condition and a main clause, and only the first states a condition."""
    head, comma, rest = clause.partition(", ")
    if not _condition(lx.reading_tokens(clause)) or not comma or not rest.strip():
        return (clause,)
    return (head, rest)


def _denies(part: str, span: Span) -> bool:
    """Whether a negation in ``part`` (a clause, or a condition cut from its main clause) may deny what ``span``
    states: a main clause's always; a condition's only on a word the span states ("if you don't want X" denies
    nothing a span about X says unless it speaks of *wanting*; "if your workspace was not created before …" is
    about *created*)."""
    tokens = lx.reading_tokens(part)
    if not lx.CLAUSE_NEGATIONS & set(tokens):
        return False
    denied = {stem(w) for w in lx.negated_words(tokens)}
    if denied and denied <= _negative_forms(span.text):
        return False  # the span says it with a negative prefix: "aren't predictable" against "unpredictable"
    return not _condition(tokens) or bool(denied & span.terms.words)


@lru_cache(maxsize=65536)
def _negative_forms(text: str) -> frozenset[str]:
    """The words ``text`` states in a negative form (stemmed, prefix dropped): "unpredictable" → predict,
    "non-blocking" → block; the lexicon's negative prefixes."""
    out = set()
    for token in lx.reading_tokens(text.replace("-", "")):
        for prefix in lx.NEGATIVE_PREFIXES:
            if token.startswith(prefix) and len(token) - len(prefix) >= 4:
                out.add(stem(token[len(prefix):]))
    return frozenset(out)


#: A token that is code, not prose: an assignment, a call, a path, a snake_case or dotted name ("ensure_ascii=False").
_CODE_TOKEN = re.compile(r"\S*[=_()/\\<>]\S*|\S+\.\S+")


@lru_cache(maxsize=65536)
def _prose_clauses(text: str) -> tuple[tuple[str, ...], ...]:
    """The reading tokens of each clause of each line of ``text``, code left out: what the span rules read a span's
    (or a claim's) qualifiers and negations from. A clause that opens on a condition word states a condition."""
    return tuple(
        lx.reading_tokens(_CODE_TOKEN.sub(" ", clause)) for line in text.splitlines() for clause in clause_texts(line)
    )


def _condition(tokens: tuple[str, ...]) -> bool:
    return bool(tokens) and tokens[0] in lx.CONDITIONS


@lru_cache(maxsize=65536)
def _prose_negated(text: str) -> frozenset[str]:
    """The words ``text`` only negates in prose (stemmed: "cannot be recovered" → recov): none in a condition or
    code, and none that it also states without negating it ("does not use the system store but uses a bundled
    one" states *use* both ways; "if you need that header set" states *set*)."""
    negated: set[str] = set()
    stated: set[str] = set()
    for tokens in _prose_clauses(text):
        denied = {stem(w) for w in lx.negated_words(tokens)}
        stated |= {stem(t) for t in tokens} - denied
        if not _condition(tokens):
            negated |= denied
    return frozenset(negated - stated)


def _span_negates_the_claim(case: ClaimCase) -> Step | None:
    """A claim that negates nothing, aligned to a span (holding WORD_FLOOR of its words) that negates one of the
    claim's own words, where every span holding as much of the claim negates it too: "Versions older than the period
    can be recovered by support" against "… are deleted automatically and cannot be recovered by support"."""
    if case.about is None or any(p.negated or p.restrictive for p in case.pieces):
        return None
    words = frozenset().union(*(p.words for p in case.pieces if not p.condition)) - case.context.titles
    # every span about as close to the claim (one word less at most) must negate it: one that does not may be it
    negated = words & frozenset.intersection(*(_prose_negated(s.text) for s in case.as_close(slack=1)))
    if not negated or _changes_the_default(case, case.about):
        return None
    return _span_step("S.negation", "polarity", "positive", "negative", case, words=words, negated=sorted(negated))


def _changes_the_default(case: ClaimCase, span: Span) -> bool:
    """Whether the claim says how to change what the span says by default: the span states a default ("Branch
    prediction statistics are not collected by default. To do so, add the option --branch-sim=yes.") and the claim,
    which does not, names the span's own name of code (the option or setting that changes it). A default's negation
    is no rival of the way out of it."""
    if BY_DEFAULT not in lx.qualifiers(lx.reading_tokens(span.text)):
        return False
    if BY_DEFAULT in lx.qualifiers(lx.reading_tokens(case.claim)):
        return False
    names = frozenset(t for t in case.need.terms.exact if not t[:1].isdigit())
    return bool(held_exact(names, span.terms.exact | span.tokens, span.terms.exact))


def _check_qualifier(case: ClaimCase) -> Step | None:
    for piece in case.pieces:
        words, taken = _subject_words(case, piece)
        words -= piece.words - piece.without_qualifiers()
        for qualifier in sorted(piece.qualifiers):
            agrees = qualifier_agrees(qualifier)
            bound = bound_elsewhere(
                words, case.context.places, agrees, also=taken, floor=RESTATES_QUESTION, own_only=True, superset=False
            )
            if bound is not None:
                opposite = sorted(" ".join(q) for q in bound.rival.qualifiers & lx.OPPOSITES[qualifier])
                return _bound_step("S.qualifier", "qualifier", " ".join(qualifier), ", ".join(opposite), bound)
    return _range_end_named(case) or _span_holds_the_opposite(case)


def _range_end_named(case: ClaimCase) -> Step | None:
    """A bound the context gives as the other end of a range: "a minimum of 365 days" where the place about it says
    "from 30 to 365 days" (365 is the range's upper end), "up to 30" where it says "30 to 365". Unsupported when a
    place holding the claim's subject words (as many as a binding needs: :func:`bound_elsewhere`) writes the value
    as that other end, and no place writes it as the end the claim names or names it the same bound."""
    places = case.context.places
    for piece in case.pieces:
        bounds = named_bounds(piece.text)
        if not bounds:
            continue
        words, taken = _subject_words(case, piece, numbers=False)
        compared = words or taken
        least = least_words(len(compared))
        for value, kind, phrase in bounds:
            end = 1 if kind == "lower" else 0  # the end the claim's bound is not: a minimum is no upper end
            ends = [(p, r) for p in places for r in range_ends(p.text) if value in r]
            if any(r[1 - end] == value for _, r in ends):
                continue
            if any((value, kind) == b[:2] for p in places for b in named_bounds(p.text)):
                continue
            wrong = [(p, r) for p, r in ends if r[end] == value]
            if not wrong:
                continue
            place, ends_of = max(wrong, key=lambda pr: (len(compared & pr[0].words), -pr[0].passage))
            held = compared & place.words
            if len(held) < least:
                continue
            rival = f"{ends_of[0]} to {ends_of[1]}"
            where = (place.passage, place.shown)
            return _slot_step("S.qualifier", "qualifier", f"{phrase} {value}", rival, where, compared, held)
    return None


@lru_cache(maxsize=65536)
def _prose_qualifiers(text: str) -> frozenset[tuple[str, ...]]:
    """The qualifiers ``text`` states in prose: none inside code ("ensure_ascii=False" sets a value, it does not
    qualify the sentence), none right after a negation ("if posix is not true" says false), and no modal verb
    (*must*, *can*, *may* qualify a verb the span-level comparison cannot tell apart)."""
    found: set[tuple[str, ...]] = set()
    for tokens in _prose_clauses(text):
        if _condition(tokens):
            continue  # "If true, TextWrapper attempts …" states a condition, not the value
        kept = tuple(
            "_" if any(n in lx.CLAUSE_NEGATIONS for n in tokens[max(0, i - 3) : i]) else t for i, t in enumerate(tokens)
        )
        found |= {q for q in lx.qualifiers(kept) if not set(q) <= lx.AUXILIARIES}
    return frozenset(found)


def _span_holds_the_opposite(case: ClaimCase) -> Step | None:
    """The span the claim is about holds a qualifier's opposite and not the qualifier: "For files smaller than 10 GB,
    Nimbus keeps only the 20 most recent versions" aligned to "… files larger than 10 GB. For those files only the
    20 most recent versions are kept". As for a name, no span holding the qualifier may hold as much of the claim."""
    best = case.about
    if best is None:
        return None
    held = _prose_qualifiers(best.text)
    said = frozenset().union(*(_prose_qualifiers(p.text) for p in case.pieces if not p.condition))
    for qualifier in sorted(said - held):
        # a claim that states both of a pair ("older than its own version, but not newer") flips neither
        opposite = held & lx.OPPOSITES.get(qualifier, frozenset()) - said
        if not opposite:
            continue
        if any(qualifier in _prose_qualifiers(s.text) for s in case.as_close()):
            continue
        rival = ", ".join(sorted(" ".join(q) for q in opposite))
        return _span_step("S.qualifier", "qualifier", " ".join(qualifier), rival, case)
    return None


def _check_swap(case: ClaimCase) -> Step | None:
    best = case.best
    if best is None:
        return None
    for line in best.text.split("\n"):
        swap = swapped(case.claim, line)
        if swap and fold(swap[0]) not in {fold(t) for t in _swap_tokens(best.text)}:
            said, written = swap
            evidence = {"passage": best.passage + 1, "said": said or "(nothing)", "written": written or "(nothing)"}
            return Step("S.swap", "unsupported", False, evidence)
    return None


def _check_clauses(case: ClaimCase) -> Step | None:
    checks = case.part_checks
    if not checks or not all(c.supported for c in checks):
        return None
    return Step("S.clauses", "supported", True, {"count": len(checks), "passages": [c.passage for c in checks]})


def _check_enumeration(case: ClaimCase) -> Step | None:
    listed = case.listed
    if listed is None or not listed.supported or listed.passage is None:
        return None
    evidence = {**_words_evidence(case.need, listed), "passage": listed.passage}
    return Step("S.enumeration", "supported", True, evidence)


def _check_apart(case: ClaimCase) -> Step | None:
    best = case.best
    if best is None:
        return None
    exact = case.need.terms.exact
    held = best.terms.exact | best.tokens | digit_numbers(best.text)  # an example's numbers too: the claim quotes it
    apart = sorted(exact - held_exact(exact, held, best.terms.exact) - case.premise - set(case.absent))
    return Step("S.apart", "undecided", False, {**case.evidence, "missing": apart}) if apart else None


def _check_subject(case: ClaimCase) -> Step | None:
    best = case.best
    if best is None or case.need.kind == CLAIM:
        return None
    # a fragment takes the question's subject; a restatement names it: either way the span must name it where its
    # passage tells subjects apart by it ("Enterprise" in a table of plans)
    names = read_question(case.question).subjects
    named = case.context.vocabulary[best.passage] if best.passage < len(case.context.vocabulary) else frozenset()
    missing = sorted((names - case.context.titles) & named - best.terms.words)
    return Step("S.subject", "undecided", False, {"passage": best.passage + 1, "missing": missing}) if missing else None


def _check_words(case: ClaimCase) -> Step:
    if case.best is None:
        return Step("S.words", "unsupported", False, {**case.evidence, "kind": case.need.kind})
    return _words_step(case.need, case.best, case.evidence)


def run_claim(case: ClaimCase) -> _Check:
    """The claim table run on one case (:func:`~evalgate_lib.judging.rules.run_rules`), with the span its verdict
    shows: the place of a conflicting value, the list that holds an enumeration, or the best span."""
    steps = run_rules(CLAIM_TABLE, case, case.disabled)
    if not steps or not steps[-1].decides:  # only when the rules that could decide are switched off (ablation)
        steps = (*steps, Step("S.none", "undecided", True, {}))
    last = steps[-1]
    if last.rule == "S.verbatim":
        return _Check(steps, None, 1.0, last.evidence.get("passage"))
    if last.rule == "S.enumeration" and case.listed is not None:
        return _Check(steps, case.listed.span, case.listed.figure, case.listed.passage)
    if last.rule == "S.clauses":
        weakest = min(case.part_checks, key=lambda c: c.figure or 0.0)
        return _Check(steps, weakest.span, weakest.figure, weakest.passage)
    if "place" in last.evidence:
        return _Check(steps, str(last.evidence["place"]), case.figure, int(last.evidence["passage"]))
    best = case.best
    return _Check(steps, None if best is None else best.text, case.figure, None if best is None else best.passage + 1)


def _negative(span: Span, claim: str) -> bool:
    """A span says something negative: a negation, or a restrictive word ("only", "disabled", "except" …) that the
    claim does not state itself (:func:`~evalgate_lib.judging.context.restrictive_words`)."""
    tokens = set(lx.reading_tokens(span.text))
    return bool(lx.NEGATIONS & tokens or restrictive_words(span.text) - restrictive_words(claim))


def _words_step(need: Need, best: Span, evidence: dict[str, Any]) -> Step:
    """S.words: the evidence (the claim's words and those its span holds; for a fragment or a restatement, the
    question's words it needs and those the span holds), then :func:`words_outcome` on that evidence alone."""
    evidence = {**evidence, "kind": need.kind}
    if need.question:
        evidence["question_needed"] = sorted(need.question)
        evidence["question_held"] = sorted(need.question & (best.terms.words | best.terms.exact))
    outcome = words_outcome(evidence)
    return Step("S.words", outcome, outcome == "supported", evidence)


def words_outcome(evidence: Mapping[str, Any]) -> str:
    """S.words decided from its evidence alone: supported when the span holds :data:`WORD_FLOOR` of the claim's
    words (a claim of at most :data:`SHORT_CLAIM` words may miss one) and of the question's words it needs;
    unsupported when either share is under :data:`NEAR_MISS`; undecided in between. A person recomputes it from
    the two word lists of the trace."""
    needed = list(evidence.get("needed", ()))
    held = set(evidence.get("held", ())) & set(needed)
    figure = share(held, needed)
    asked_needed = list(evidence.get("question_needed", ()))
    asked = share(evidence.get("question_held", ()), asked_needed) if asked_needed else 1.0
    short = len(needed) <= SHORT_CLAIM and len(needed) - len(held) <= 1
    if (figure >= WORD_FLOOR or short) and asked >= WORD_FLOOR:
        return "supported"
    if min(figure, asked) < NEAR_MISS:
        return "unsupported"
    return "undecided"


def _cut_off(answer: str) -> bool:
    """The answer stops mid-sentence: its last character is not one a complete answer ends on."""
    return bool(answer.strip()) and not re.search(r"""[.!?)\]}"'`*|:]\s*$""", answer.rstrip())


@dataclass(frozen=True)
class LeanCase:
    """An answer's sentence verdicts and its reading, as L.answer reads them."""

    verdicts: tuple[SentenceVerdict, ...]
    reading: AnswerReading


def _check_lean(case: LeanCase) -> Step | None:
    verdicts = case.verdicts
    if any(v.supported is False and not v.undecided for v in verdicts):
        return None
    leaning = [v for v in verdicts if _leanable(v)]
    own = [
        v
        for v in verdicts
        if v.supported is True
        and not v.undecided
        and v.rule in ("S.words", "S.clauses")
        and v.steps
        and v.steps[-1].evidence.get("kind") != FRAGMENT
    ]
    repeated = any(s.repeats is not None for s in case.reading.sentences)
    if not leaning or len(leaning) > len(own) or repeated or _cut_off(case.reading.answer):
        return None
    return Step("L.answer", "undecided", True, {"own": len(own), "leaning": len(leaning)})


def lean_by_answer(
    verdicts: Sequence[SentenceVerdict], reading: AnswerReading, disabled: frozenset[str] = frozenset()
) -> tuple[SentenceVerdict, ...]:
    """L.answer: an answer's undecided verdicts lean supported when the answer itself shows a faithful writer
    (no gold read): no sentence decided unsupported; claims in its own words (not a verbatim copy, a code line or a
    fragment) decided supported, at least as many as its undecided verdicts leaning unsupported; and one coherent
    generation (no sentence repeated word for word, not cut off mid-sentence). It changes only the lean of an
    undecided verdict, never a decided one."""
    steps = run_rules(LEAN_TABLE, LeanCase(tuple(verdicts), reading), disabled)
    if not steps or not steps[-1].decides:
        return tuple(verdicts)
    step = steps[-1]
    return tuple(
        dataclasses.replace(
            v, supported=True, steps=(*v.steps, step), reason=f"{v.reason}; {render(SUPPORT_RULES, step)}"
        )
        if _leanable(v)
        else v
        for v in verdicts
    )


def _leanable(verdict: SentenceVerdict) -> bool:
    """An undecided verdict leaning unsupported that L.answer may lean: not a negation the span lacks (a "not" the
    context does not make is the claim's own, not a faithful writer's paraphrase)."""
    return verdict.undecided and verdict.supported is False and verdict.rule != "S.negation"


#: Where a long claim is cut into clauses, each to be held by a span of its own.
_CLAUSE = re.compile(
    r"\s*(?:;|:\s|,\s*(?:and|but|so|which|while|whereas|although|though|since|because|plus)\b|\s\((?=[^)]{12,}\))|"
    r"\)\s|\s[\u2013\u2014-]\s)\s*",
    re.IGNORECASE,
)
#: Where the items of an enumeration part ("SOC 2, ISO 27001 and ISO 27018").
_ITEMS = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def clauses_of(claim: str) -> list[str]:
    """``claim`` cut at clause boundaries; a piece with no more words than a fragment (:data:`FRAGMENT_WORDS`) is read
    with the one before it, so "until you reach 10" never stands alone."""
    clauses: list[str] = []
    for piece in (p.strip(" ,;:()") for p in _CLAUSE.split(claim)):
        if not piece:
            continue
        if clauses and len(terms_of(piece).words) <= FRAGMENT_WORDS:
            clauses[-1] = f"{clauses[-1]}, {piece}"
        else:
            clauses.append(piece)
    if len(clauses) > 1 and len(terms_of(clauses[0]).words) <= FRAGMENT_WORDS:
        clauses[1] = f"{clauses[0]}, {clauses[1]}"
        clauses.pop(0)
    return clauses


# --------------------------------------------------------------------------------------------- code, coverage

#: A string literal of an example ("data.txt", 'café'): the data it passes, not a name the documentation gives.
_STRING_LITERAL = re.compile(r"""(["'])(?![a-z][\w+.-]*://)(?:(?!\1).){0,200}\1""")
_URL = re.compile(r"^(?:[a-z][\w+.-]*://)?([\w-]+(?:\.[\w-]+)+)(/.*)?$")


def _code_needs(line: str) -> frozenset[str]:
    """What a code line claims the context has: its options, keyword names, API names and paths; its own data
    (numbers, string literals, placeholders, a local variable's attributes, a URL's page) left out."""
    exact = terms_of(_STRING_LITERAL.sub('""', line)).exact
    needs = set()
    for token in exact:
        if token[0].isdigit() and "." not in token.strip("."):
            continue
        if any(p in token for p in lx.PLACEHOLDERS) or token.startswith("<"):
            continue
        head, dot, _ = token.partition(".")
        if dot and "/" not in token and len(head) <= 2:
            continue
        url = _URL.match(token)
        needs.add(url.group(1) if url and "/" in token and "." in url.group(1) else token)
    needs.update(re.findall(r"[(,]\s*([a-z_]\w*)\s*=(?!=)", fold(line)))
    return frozenset(needs)


@dataclass(frozen=True)
class CodeCase:
    """A code line as S.code reads it, and the context."""

    line: str
    context: ContextReading


def _check_code(case: CodeCase) -> Step:
    needs = _code_needs(case.line.strip().strip("`"))
    held = held_exact(needs, case.context.everything, case.context.names)
    missing = sorted(needs - held)
    evidence = {"needed": sorted(needs), "missing": missing}
    if not needs:
        return Step("S.code", "none", None, {**evidence, "verdict": "nothing to check"})
    if missing:
        return Step("S.code", "unsupported", False, {**evidence, "verdict": "not all in the context"})
    return Step("S.code", "supported", True, {**evidence, "verdict": "all in the context"})


def _judge_code(line: str, context: ContextReading, disabled: frozenset[str]) -> _Check:
    steps = run_rules(CODE_TABLE, CodeCase(line, context), disabled)
    if not steps:
        steps = (Step("S.code", "none", None, {"needed": [], "missing": [], "verdict": "switched off"}),)
    needed, missing = steps[-1].evidence.get("needed", []), steps[-1].evidence.get("missing", [])
    figure = (len(needed) - len(missing)) / len(needed) if needed else None
    return _Check(steps, None, figure)


@dataclass
class CoverageCase:
    """A statement of what the context covers, as S.coverage reads it: each topic it names, checked on its own."""

    text: str
    code: tuple[str, ...]
    question: str
    context: ContextReading
    disabled: frozenset[str]

    @cached_property
    def items(self) -> list[str]:
        tokens = lx.reading_tokens(self.text)
        verb = next((i for i, t in enumerate(tokens) if t in lx.REPORT_VERBS), None)
        topics_text = " ".join(tokens[verb + 1 :]) if verb is not None else self.text
        return [i.strip(" .") for i in _ITEMS.split(topics_text) if terms_of(i.strip(" .")).words]

    @cached_property
    def checks(self) -> list[_Check]:
        base = ClaimCase(self.text, self.code, self.question, self.context, self.context.spans, True, self.disabled)
        return [base.sub(item, self.context.spans) for item in self.items or [self.text]]


def _check_coverage(case: CoverageCase) -> Step:
    checks = case.checks
    held = [c for c in checks if c.supported]
    evidence = {
        "held": len(held),
        "count": len(checks),
        "missing": [case.items[i] for i, c in enumerate(checks) if not c.supported][:6] if case.items else [],
    }
    if len(held) == len(checks):
        return Step("S.coverage", "supported", True, evidence)
    if any(c.last.rule == "S.absent" for c in checks):
        return Step("S.coverage", "unsupported", False, evidence)
    return Step("S.coverage", "undecided", True, evidence)


def _judge_coverage(
    text: str, code: tuple[str, ...], question: str, context: ContextReading, disabled: frozenset[str]
) -> _Check:
    """S.coverage: each topic of a statement about the context, looked for on its own anywhere in the context."""
    case = CoverageCase(text, code, question, context, disabled)
    steps = run_rules(COVERAGE_TABLE, case, disabled)
    if not steps:
        steps = (Step("S.coverage", "undecided", True, {"held": 0, "count": 0, "missing": []}),)
    checks = case.checks
    absent = [c for c in checks if c.last.rule == "S.absent"]
    shown = absent[0] if steps[-1].outcome == "unsupported" and absent else min(
        checks, key=lambda c: (c.supported, c.figure or 0.0)
    )
    return _Check(steps, shown.span, shown.figure, shown.passage)


# --------------------------------------------------------------------------------------------- one sentence

#: Why a sentence of each non-claiming role claims nothing, as its verdict's reason says it.
ROLE_REASONS: Mapping[str, str] = {
    "heading": "a heading, a table header or a lead-in: labels what follows, claims nothing",
    "sources": "a list of sources: claims nothing",
    "question": "a question the answer writes: claims nothing",
    "self": "a statement about the answer itself: claims nothing about the context",
    "courtesy": "courtesy or an offer of help: claims nothing",
    "decline": "a decline, or a statement of what the context does not say: claims nothing",
    "polar": "a bare yes/no: the answer's other sentences carry what it claims",
    "echo": "repeats the question: claims nothing new",
}


def judge_sentence(
    sentence: Sentence, question: str, context: ContextReading, disabled: frozenset[str] = frozenset()
) -> SentenceVerdict:
    """The support verdict on one sentence of the reading, with every step tried (module docstring)."""
    tokens = tuple(content_token_list(sentence.text))
    role = sentence.role
    if role not in ("claim", "context", "code"):
        why = ROLE_REASONS.get(role, "claims nothing")
        return SentenceVerdict(
            sentence.text, tokens, (), None, None, refusal=sentence.declines, reason=why, role=role, rule=sentence.rule
        )
    if role == "code":
        return verdict_of(sentence, tokens, _judge_code(sentence.claim, context, disabled))
    checks: list[_Check] = []
    by_role = {r: " ".join(c.text for c in sentence.clauses if c.role == r).strip() for r in ("context", "claim")}
    if by_role["context"]:
        checks.append(_judge_coverage(by_role["context"], sentence.code, question, context, disabled))
    if by_role["claim"]:
        case = ClaimCase(by_role["claim"], sentence.code, question, context, context.spans, True, disabled)
        checks.append(run_claim(case))
    # a sentence that both says what the context covers and claims something is as strong as its weaker part;
    # its trace is that part's (each part's table stopped at its own deciding rule)
    return verdict_of(sentence, tokens, min(checks, key=_strength))


def _strength(check: _Check) -> tuple[int, float]:
    """How strongly a check supports its clause: unsupported < undecided leaning unsupported < … < supported."""
    order = {"unsupported": 0, "undecided": 1, "supported": 3, "none": 4}
    rank = order.get(check.last.outcome, 4) + (1 if check.last.outcome == "undecided" and check.last.lean else 0)
    return rank, check.figure or 0.0


def verdict_of(sentence: Sentence, tokens: tuple[str, ...], check: _Check) -> SentenceVerdict:
    last = check.last
    reason = render(SUPPORT_RULES, last)
    if last.outcome == "none":
        return SentenceVerdict(
            sentence.text, tokens, (), None, None, reason=reason, role=sentence.role, rule=last.rule, steps=check.steps
        )
    supported = last.outcome == "supported" or (last.outcome == "undecided" and bool(last.lean))
    missing = tuple(last.evidence.get("missing", ())) if isinstance(last.evidence.get("missing"), list) else ()
    if not missing and "needed" in last.evidence and last.outcome != "supported":
        missing = tuple(w for w in last.evidence["needed"] if w not in set(last.evidence.get("held", ())))
    figure = None if check.figure is None else round(check.figure, 6)
    return SentenceVerdict(
        sentence.text,
        tokens,
        () if last.outcome == "supported" else missing,
        figure,
        supported,
        span=check.span,
        reason=reason,
        undecided=last.outcome == "undecided",
        role=sentence.role,
        rule=last.rule,
        steps=check.steps,
        passage=check.passage,
    )


def judge_support(
    sentences: Iterable[Sentence],
    question: str,
    passages: tuple[tuple[str, str], ...],
    disabled: frozenset[str] = frozenset(),
) -> tuple[SentenceVerdict, ...]:
    """Every sentence's verdict; a sentence that repeats an earlier one takes its verdict (judged once)."""
    context = read_context(passages)
    out: list[SentenceVerdict] = []
    for sentence in sentences:
        if sentence.repeats is not None and sentence.repeats < len(out):
            out.append(out[sentence.repeats])
            continue
        out.append(judge_sentence(sentence, question, context, disabled))
    return tuple(out)


def _role_verdict(sentence: Sentence) -> SentenceVerdict:
    tokens = tuple(content_token_list(sentence.text))
    why = ROLE_REASONS.get(sentence.role, "claims nothing")
    return SentenceVerdict(
        sentence.text,
        tokens,
        (),
        None,
        None,
        refusal=sentence.declines,
        reason=why,
        role=sentence.role,
        rule=sentence.rule,
    )


class ProseSupportScorer:
    """Registered as ``prose`` (the default): the support rules of this module, on the answer's one reading."""

    name = "prose"
    #: 4: the rebuilt judge (one reading, a table of named rules, a trace behind every verdict). 5: claims aligned to
    #: the clause or cell they are about and their slots compared (numbers, names, polarity, qualifiers); every
    #: judgement a table run by one loop. 6: the span a claim is about read for its names, prose qualifiers and
    #: negations; closings, source frames and reading lead-ins are not claims. 7: a hyphenated name with digits
    #: (SHA-1, UTF-8), a UUID and an option before a colon are read as names, never as numbers or with the colon; a
    #: dotfile is no attribute of a name; a Python-domain role's leading dot is read as Sphinx shows it. 8: a
    #: signature's object is a name (dump(obj, fp) names dump), a tab's or admonition's title labels its content,
    #: {file}/{samp} roles are unescaped as Sphinx shows them, and a Windows path is one name held part by part; a
    #: negated condition ("if you don't want …") is doubted only where its span states the word it negates, and a
    #: negation the span says with a prefix ("aren't predictable" / "unpredictable") is no doubt; a number the context
    #: writes in the claim's own words ("the 15-day restore window") is bound there; a signature line says its
    #: parameters and their defaults (the lexicon's signatures table); a clause checked on its own (S.clauses)
    #: claims only the code written in it; an example's numbers are in the passages and in their span (S.absent,
    #: S.apart). 9: two numbers pin the span a claim's proper name is compared with (a table row cut from its
    #: header); a restrictive word the claim states too holds no negation; a bound the context gives as a range's
    #: other end ("a minimum of 365" against "30 to 365") is a flipped qualifier; "only when" / "only if" stays one
    #: clause; a placeholder in Markdown ("massif.out.<pid>") is text; a value stands with the name of code the claim
    #: gives it; a default's negation is no rival of the option that changes it; "Reads/Writes" in prose is two
    #: words; a negation another place states of the same subject is no doubt (S.negation). 10: a relative clause
    #: that names no code says what it says of the code named before it ("cg_diff is a program | which reads two
    #: profile files"); an option written with its choices (``--stacks=<yes|no>``) gives each, and is no menu path;
    #: the span a claim is about may name any other proper name of the domain for S.name, not only a classmate; the
    #: main clause after a condition's comma has its polarity compared (S.negation).
    version = "10"
    floor = WORD_FLOOR  # the share of a claim's words its span must hold
    marks_undecided = True  # its verdicts say when it could not decide: the review queue reads that

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        """One sentence judged on its own (read as a one-sentence answer): for a plug-in comparison or a notebook."""
        reading = read_answer(sentence, context.question)
        verdicts = judge_support(reading.sentences, context.question, context.passages)
        claiming = [v for v in verdicts if v.supported is not None]
        return (claiming or list(verdicts) or [_role_verdict(Sentence(0, sentence, sentence, "paragraph", (), ()))])[0]


def support_verdicts(
    reading: AnswerReading,
    passages: tuple[tuple[str, str], ...],
    scorer: SentenceScorer,
    disabled: frozenset[str] = frozenset(),
) -> tuple[SentenceVerdict, ...]:
    """Every sentence's verdict under ``scorer``: the prose scorer reads the whole reading; any other scorer is
    handed each claiming sentence (as read) and the others get their role's verdict."""
    if isinstance(scorer, ProseSupportScorer):
        verdicts = judge_support(reading.sentences, reading.question, passages, disabled)
        return lean_by_answer(verdicts, reading, disabled)
    lead = reading.lead
    context = ScoringContext(
        reading.question,
        passages,
        frozenset(s.text for s in reading.sentences if s.block == "code"),
        lead.text if lead is not None else "",
    )
    out: list[SentenceVerdict] = []
    for sentence in reading.sentences:
        if sentence.role in ("claim", "context", "code") and sentence.claim:
            verdict = scorer.judge(sentence.claim, context)
            out.append(
                dataclasses.replace(
                    verdict, text=sentence.text, role=sentence.role, rule=verdict.rule or f"scorer:{scorer.name}"
                )
            )
        else:
            out.append(_role_verdict(sentence))
    return tuple(out)


# --------------------------------------------------------------------------------------------- the tables

_PLANS = ("Plans", "The Starter plan includes 3 seats and costs $12 per month.")
_LOCK = ("Sign-in", "After 10 wrong password attempts the account is locked for 60 minutes.")

#: The support rules of a claim, in the order :func:`run_claim` tries them (docs/judge.md is generated from it).
CLAIM_TABLE: tuple[Rule, ...] = (
    Rule(
        "S.verbatim",
        "a claim copied word for word from the context is supported",
        Example("The Starter plan includes 3 seats.", (_PLANS,), expected="supported"),
        "copied verbatim from passage [{passage}]",
        "VERBATIM_CHARS",
        check=_check_verbatim,
    ),
    Rule(
        "S.absent",
        "a number, option, path or name the context never gives is unsupported",
        Example("The Starter plan includes 5 seats.", (_PLANS,), expected="unsupported"),
        "the context never gives {missing} (best span: passage [{passage}], {figure})",
        check=_check_absent,
    ),
    Rule(
        "S.unit",
        "a number the span gives only with another unit is unsupported",
        Example("The account is locked for 10 days.", (_LOCK,), expected="unsupported"),
        "a number without its unit: {quantity} (passage [{passage}] gives {number} {given})",
        check=_check_unit,
    ),
    Rule(
        "S.binding",
        "a number stands by the words of the place it is given in (a clause; a table cell with its row and column "
        "heading): when the claim's words stand by another number of its kind in another place — every word the "
        "number's own place holds and more, and BIND_FLOOR of them — the claim is unsupported (not where a place "
        "writes the number with the three words the claim writes after it: \"the 15-day restore window\", nor where "
        "a place holding the number holds a name of code the claim gives it and the other place does not)",
        Example(
            "Backups of Pro workspaces are kept for 30 days.",
            (("Backups", "Backups of Starter workspaces are kept for 30 days. Backups of Pro workspaces are kept "
                         "for 90 days."),),
            expected="unsupported",
        ),
        "{value} is given for something else: the claim's words ({held}) stand by {rival} in passage [{passage}] "
        "({place!r}), its own place holds only ({own_held})",
        "slots.BIND_FLOOR",
        check=_check_binding,
    ),
    Rule(
        "S.name",
        "a name (option, function, path, identifier) stands by the words of its place: when the claim's words stand "
        "by another name of its shape in another place, or the span the claim is about names another proper name "
        "of the domain (a plan, a role, a platform) and not it, the claim is unsupported (the span the claim is "
        "about: the one holding WORD_FLOOR of its words, or every value of it when two or more are numbers)",
        Example(
            "Pass --extra-index-url to replace the package index.",
            (("Indexes", "Pass --index-url to replace the package index. Pass --extra-index-url to add an index."),),
            expected="unsupported",
        ),
        "{value} is named for something else: the claim's words ({held}) stand by {rival} in passage [{passage}] "
        "({place!r}), its own place holds only ({own_held})",
        "slots.BIND_FLOOR",
        check=_check_name,
    ),
    Rule(
        "S.negation",
        "polarity both ways: when the claim's words (a clause opening on a condition: its main clause) stand by a "
        "place that says the opposite (a negation the claim lacks, or none where the claim negates), or the span "
        "the claim is about (and every span as close) only negates a word the claim states, the claim is "
        "unsupported; a negative claim whose span says nothing "
        "negative is undecided, leaning unsupported (a negated condition only where the span states the word it "
        "negates: \"if you don't want …\" denies nothing the span says; not where another place negates the same "
        "word of the same subject; a restrictive word counts as negative only when the claim does not state it too; "
        "a span's \"not … by default\" is no rival of a claim naming the span's option that changes it)",
        Example(
            "SSO is available on the Free plan.",
            (("Single sign-on", "SSO is not available on the Free plan. It is included in Business."),),
            expected="unsupported",
        ),
        "the claim is {value}, but its words ({held}) stand by a {rival} place in passage [{passage}] ({place!r})",
        "slots.BIND_FLOOR",
        check=_check_negation,
    ),
    Rule(
        "S.qualifier",
        "a qualifier (minimum/maximum, before/after, must/may, enabled/disabled …: the lexicon's opposites) stands by "
        "its place: when the claim's words stand by a place holding its opposite and not it, or the span the claim is "
        "about (holding WORD_FLOOR of its words) states the opposite in prose and not it, or a place about it writes "
        "the value the claim calls a minimum (maximum) as a range's upper (lower) end, the claim is unsupported",
        Example(
            "The maximum number of seats on Business is 5.",
            (("Seats", "Business requires a minimum of 5 seats."),),
            expected="unsupported",
        ),
        "the claim says {value!r}, but its words ({held}) stand by {rival!r} in passage [{passage}] ({place!r})",
        "slots.BIND_FLOOR",
        check=_check_qualifier,
    ),
    Rule(
        "S.swap",
        "the span's own sentence with one name swapped, or a 'not' dropped, is unsupported",
        Example(
            "Admins select Generate SSO token to provision users.",
            (("Provisioning", "Admins select Generate SCIM token to provision users."),),
            expected="unsupported",
        ),
        "the span's sentence (passage [{passage}]) says {written!r} where the claim says {said!r}",
        check=_check_swap,
    ),
    Rule(
        "S.clauses",
        "a long claim is held when each of its clauses is held by a span of its own",
        Example(
            "Starter costs $12 a month, and Business requires a minimum of 5 seats.",
            (("Pricing", "Starter costs $12 a month."), ("Seats", "Business requires a minimum of 5 seats.")),
            expected="supported",
        ),
        "{count} clauses, each held by one span (passages {passages})",
        check=_check_clauses,
    ),
    Rule(
        "S.enumeration",
        "an enumeration is held by one list or table of the context that holds it all",
        Example(
            "Nimbus is certified for SOC 2, ISO 27001 and ISO 27018.",
            (("Compliance", "Nimbus holds these certifications:\n\n- SOC 2 Type II\n- ISO 27001\n- ISO 27018\n"),),
            expected="supported",
        ),
        "an enumeration: one list or table of passage [{passage}] holds {figure}",
        check=_check_enumeration,
    ),
    Rule(
        "S.apart",
        "a number or name the context gives, but not in one span with the rest of the claim, is undecided",
        Example(
            "Use --index-url and --timeout together to set the package index.",
            (("Index", "Use --index-url to set the package index."), ("Network", "--timeout sets the socket timeout.")),
            expected="undecided",
        ),
        "{missing} is in the context, but no span holds it with the rest of the claim "
        "(best: passage [{passage}], {figure})",
        check=_check_apart,
    ),
    Rule(
        "S.subject",
        "a subject the question names, which the span's passage tells apart by and the span lacks, leaves the "
        "claim undecided",
        Example(
            "SAML single sign-on is offered.",
            (("Plans", "| Plan | Sign-in |\n|---|---|\n| Business | SAML single sign-on |\n| Enterprise | SAML "
                       "and SCIM |"),),
            question="Which sign-in does the Enterprise plan offer?",
            expected="undecided",
        ),
        "the span (passage [{passage}]) may be about something else: it lacks {missing}",
        check=_check_subject,
    ),
    Rule(
        "S.words",
        "the span must hold WORD_FLOOR of the claim's counted words (a short claim may miss one); under NEAR_MISS "
        "the claim is unsupported, in between undecided",
        Example("Starter comes with three seats.", (_PLANS,), expected="supported"),
        "{kind}: passage [{passage}] holds {figure}{lacking}",
        "WORD_FLOOR, NEAR_MISS",
        check=_check_words,
    ),
)

#: A code line's rule.
CODE_TABLE: tuple[Rule, ...] = (
    Rule(
        "S.code",
        "a code line is supported when every option, keyword, name and path it uses is in the context; its data "
        "(strings, numbers, placeholders) is its own",
        Example(
            "$ pip install -r requirements.txt",
            (("Install", "Run `pip install -r requirements.txt` to install from a requirements file."),),
            expected="supported",
        ),
        "a code line: {verdict} (needs {needed}; missing {missing})",
        check=_check_code,
    ),
)

#: A statement of what the context covers.
COVERAGE_TABLE: tuple[Rule, ...] = (
    Rule(
        "S.coverage",
        "a statement of what the context covers is supported when each topic it names stands in the context",
        Example(
            "The passages cover scheduling timeouts and cancelling them.",
            (("timers", "setTimeout(callback, delay) schedules a timeout. clearTimeout(timeout) cancels a "
                        "timeout."),),
            expected="supported",
        ),
        "a statement of what the context covers: {held}/{count} topics stand in it (missing: {missing})",
        check=_check_coverage,
    ),
)

#: The answer-level lean of undecided verdicts.
LEAN_TABLE: tuple[Rule, ...] = (
    Rule(
        "L.answer",
        "an undecided verdict leans supported when the rest of its answer shows a faithful writer: none decided "
        "unsupported, at least as many claims in its own words decided supported as undecided ones leaning "
        "unsupported, no repetition, not cut off",
        Example(
            "You set the package index with --index-url. Use --index-url and --timeout together to set the package "
            "index.",
            (("Index", "Use --index-url to set the package index."), ("Network", "--timeout sets the socket timeout.")),
            question="How do I set the index?",
            expected="undecided",
        ),
        "leans supported: {own} other claims of this answer in its own words are decided supported, none "
        "unsupported, and it reads as one coherent generation",
        check=_check_lean,
    ),
)

#: Every support rule by id, in the order of the tables: claim, code, coverage, lean.
SUPPORT_RULES: Mapping[str, Rule] = by_id((*CLAIM_TABLE, *CODE_TABLE, *COVERAGE_TABLE, *LEAN_TABLE))

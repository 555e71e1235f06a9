"""Support: is each claim of an answer held by one place of its context? An ordered table of named rules.

A reviewer following the labelling guide reads a claim against one local place of the context (a
sentence, a row, two neighbouring sentences; :mod:`evalgate_lib.judging.context`) and asks: does that
place say this? The rules below are that reading, written down. They are tried in the order of
:data:`SUPPORT_RULES`; the first that decides gives the verdict, and every rule tried is kept as a
step with its evidence, so a verdict can be recomputed by hand (``evalgate explain``).

For a claim, the judge first finds its **best span**: the span holding the most of the claim's exact
tokens (numbers, names, options, paths), then the most of its words. Then:

============== =========================================================================================
rule           decides
============== =========================================================================================
S.verbatim     copied from the context word for word: supported
S.absent       a number or name the context never gives: unsupported
S.apart        a number or name the context gives, but not in one span with the rest of the claim: undecided
S.unit         a number the span gives with another unit ("10 days" where it says "10 attempts"): unsupported
S.negation     a negative claim whose span says nothing negative: undecided
S.swap         the span's own sentence with one name swapped, or a "not" dropped: unsupported
S.subject      the question names a subject the span's passage tells apart by, and the span lacks it: undecided
S.words        the span holds WORD_FLOOR of the claim's words: supported; under NEAR_MISS: unsupported
S.clauses      a long claim held clause by clause, each clause by a span of its own
S.enumeration  an enumeration held by one list or table of the context
============== =========================================================================================

Two other roles have a rule each: a **code** line (S.code: every option, keyword, name and path it uses is in
the context) and a **statement about the context** (S.coverage: each topic it names stands in the context).
A sentence whose role claims nothing (a decline, a heading, courtesy …) has no support verdict; its role's
rule is its reason.

An undecided verdict leans unsupported for the headline rates (``supported`` is its lean) and sends its
answer to the review queue, unless the rest of its answer shows a faithful writer (L.answer). Every figure
here is a share of listed words, and every list is in the step.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from evalgate_lib.judging import lexicon as lx
from evalgate_lib.judging.context import ContextReading, Span, read_context, squash
from evalgate_lib.judging.question import ABOUT_QUESTION, read_question
from evalgate_lib.judging.reading import AnswerReading, Sentence, read_answer
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.rules import ABSTAINS, Rule, Step, render, share
from evalgate_lib.judging.sentence_scorers import ScoringContext, SentenceScorer
from evalgate_lib.judging.terms import Terms, quantities, terms_of
from evalgate_lib.text.tokens import content_token_list, fold

#: Share of a claim's counted words its best span must hold, with every number and name, to support it.
#: Chosen by the worst labelled set (docs/judge.md has the curve).
WORD_FLOOR = 0.55
#: Under this share of its words a claim is unsupported however its numbers and names stand; from it up to
#: :data:`WORD_FLOOR` it is a near miss: undecided, leaning unsupported.
NEAR_MISS = 0.34
#: A claim with at most this many counted words of its own (numbers and names aside) is an answer fragment
#: ("10 GB.", "The answer is 3."): its span must also hold WORD_FLOOR of the question's words.
FRAGMENT_WORDS = 2
#: A claim with at most this many counted words may miss one of them when its span holds its every name.
SHORT_CLAIM = 4
#: A verbatim copy must be at least this long (in characters) to count as one: "Yes." is in every context.
VERBATIM_CHARS = 12

SUPPORT_RULES: Mapping[str, Rule] = {
    rule.id: rule
    for rule in (
        Rule(
            "S.verbatim",
            "a claim copied word for word from the context is supported",
            "'Starter includes 3 seats.' where a passage says exactly that",
            "copied verbatim from passage [{passage}]",
            "VERBATIM_CHARS",
        ),
        Rule(
            "S.absent",
            "a number, option, path or name the context never gives is unsupported",
            "'The limit is 50 GB.' where no passage mentions 50",
            "the context never gives {missing} (best span: passage [{passage}], {figure})",
        ),
        Rule(
            "S.apart",
            "a number or name the context gives, but not in one span with the rest of the claim, is undecided",
            "'Business includes 10 seats' where 10 stands only in the Starter row",
            "{missing} is in the context, but no span holds it with the rest of the claim "
            "(best: passage [{passage}], {figure})",
        ),
        Rule(
            "S.unit",
            "a number the span gives only with another unit is unsupported",
            "'locked for 10 days' against 'after 10 wrong attempts … locked for 60 minutes'",
            "a number without its unit: {quantity} (passage [{passage}] gives {number} {given})",
        ),
        Rule(
            "S.negation",
            "a negative claim whose span says nothing negative is undecided, leaning unsupported",
            "'Free does not include the API' against 'Free includes the API'",
            "a negative claim, but its span (passage [{passage}]) says nothing negative ({figure})",
        ),
        Rule(
            "S.swap",
            "the span's own sentence with one name swapped, or a 'not' dropped, is unsupported",
            "'select Generate SSO token' against 'select Generate SCIM token'",
            "the span's sentence (passage [{passage}]) says {written!r} where the claim says {said!r}",
        ),
        Rule(
            "S.binding",
            "a number is bound to the words beside it (in a table row: its cell and its column's heading): "
            "when the claim's words stand in the span by another number rather than by the claim's own, the "
            "claim is unsupported",
            "'The web upload limit is 100 GB' against 'web uploads: 5 GB; team folders: 100 GB'",
            "the claim's words ({words}) stand by {rival} in the span (passage [{passage}]), not by {value}",
        ),
        Rule(
            "S.subject",
            "a subject the question names, which the span's passage tells apart by and the span "
            "lacks, leaves the claim undecided",
            "'Enterprise includes SSO' held only by the Free plan's row",
            "the span (passage [{passage}]) may be about something else: it lacks {missing}",
        ),
        Rule(
            "S.words",
            "the span must hold WORD_FLOOR of the claim's counted words (a short claim may miss one); "
            "under NEAR_MISS the claim is unsupported, in between undecided",
            "'Starter includes three seats' held 3/3 by 'The Starter plan includes 3 seats'",
            "{kind}: passage [{passage}] holds {figure}{lacking}",
            "WORD_FLOOR, NEAR_MISS",
        ),
        Rule(
            "S.clauses",
            "a long claim is held when each of its clauses is held by a span of its own",
            "'Starter costs $36 a month, and Business requires 5 seats'",
            "{count} clauses, each held by one span (passages {passages}); weakest: {weakest}",
        ),
        Rule(
            "S.enumeration",
            "an enumeration is held by one list or table of the context that holds it all",
            "'SOC 2, ISO 27001 and ISO 27018' against a list of the three",
            "an enumeration: one list or table of passage [{passage}] holds {figure}",
        ),
        Rule(
            "L.answer",
            "an undecided verdict leans supported when the rest of its answer shows a faithful writer: "
            "none decided unsupported, at least as many claims in its own words decided supported as undecided ones "
            "leaning unsupported, no repetition, not cut off",
            "a fluent answer whose other claims all check out",
            "leans supported: {own} other claims of this answer in its own words are decided supported, none "
            "unsupported, and it reads as one coherent generation",
        ),
        Rule(
            "S.code",
            "a code line is supported when every option, keyword, name and path it uses is in the "
            "context; its data (strings, numbers, placeholders) is its own",
            "pip install -r requirements.txt",
            "a code line: {verdict} (needs {needed}; missing {missing})",
        ),
        Rule(
            "S.coverage",
            "a statement of what the context covers is supported when each topic it names stands in the context",
            "'The passages cover scheduling timeouts and cancelling them.'",
            "a statement of what the context covers: {held}/{count} topics stand in it (missing: {missing})",
        ),
    )
}


# --------------------------------------------------------------------------------------------- what a claim needs


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
        return Need(terms, asked.asked - terms.words, "an answer fragment")
    if asked.asked and asked.about(terms.words) >= ABOUT_QUESTION:
        return Need(terms, asked.asked & terms.words, "a restatement of the question")
    return Need(terms, frozenset(), "a claim")


def held_exact(need: frozenset[str], held: frozenset[str], names: frozenset[str] | None = None) -> frozenset[str]:
    """The exact tokens of ``need`` that ``held`` holds. An attribute of a short local variable (``r.json``) is held
    by the same attribute of a named object (``Response.json``); a qualified name (``json.dumps``) by its last part
    where the context names its qualifier; a file name (``pip.conf``) by a path that passes through it."""
    found = set(need & held)
    if found == need:
        return frozenset(found)
    tails = {t.rsplit(".", 1)[1] for t in held if "." in t and "/" not in t}
    parts = {part for t in held if "/" in t for part in t.split("/") if part}
    for token in need - held:
        version = re.fullmatch(r"v(\d+(?:\.\d+)*)", token)
        if version and version.group(1) in held:  # "v2" is "version 2"
            found.add(token)
            continue
        head, dot, tail = token.rpartition(".")
        if (
            dot
            and "/" not in token
            and len(tail) >= 3
            and (tail in tails or tail in (held if names is None else names))
        ):
            # an attribute the context gives on some object: a short variable's (r.json), or a name whose qualifier
            # the context names too (functools.cmp_to_key where functools' page documents .cmp_to_key)
            if len(head) <= 2 or all(part in held for part in head.split(".")):
                found.add(token)
        elif "/" not in token and token in parts:
            found.add(token)
    return frozenset(found)


# --------------------------------------------------------------------------------------------- the claim rules


@dataclass(frozen=True)
class _Check:
    """One claim checked: its steps in order (the last decides), and the span and figure of its verdict."""

    steps: tuple[Step, ...]
    span: Span | None
    figure: float | None

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


def _unheld_quantity(claim: str, span: Span) -> dict[str, Any] | None:
    """A quantity of the claim (its number written in digits) whose number the span gives only with another unit.

    A span that also states the number bare (a table cell, the end of its sentence: "up to 10.") contradicts
    nothing: the unit may be its header's or its sentence's."""
    given = span.terms.quantities
    span_numbers = {t for t in span.terms.exact if t[:1].isdigit()}
    for number, unit in sorted(quantities(claim, number_words=False)):
        if (number, unit) in given or number not in span_numbers or _bare(number, span.text):
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


_PIECE = re.compile(r"\s*(?:[;()\n]|[.!?](?=\s)|,\s|\s(?:and|or|but|while|whereas)\s)\s*")
_DIGITS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")


def _pieces(text: str) -> list[str]:
    return [p for p in _PIECE.split(text.replace(",000", "000")) if p and p.strip()]


def _prose_binding(claim: str, span: Span) -> dict[str, Any] | None:
    """S.binding in prose: a quantity of the claim stands, in the span, in a clause that shares none of the claim's
    words and does not refer back ("this", "it"), while a clause holding another quantity of its unit shares some:
    "The maximum upload from the web browser is 100 GB" against "Web browser uploads are limited to 5 GB; team
    folders accept 100 GB"."""
    if " | " in span.text:  # a table: one row with its header reads by columns; a whole table does not
        return _row_binding(claim, span) if span.kind == "unit" else None
    if span.kind == "pair":
        bound = _pair_binding(claim, span)
        if bound is not None:
            return bound
    numbered = [(p, quantities(p)) for p in _pieces(span.text)]
    for piece in _pieces(claim):
        for value in sorted(quantities(piece, number_words=False)):
            own = [p for p, q in numbered if value in q]
            rivals = [p for p, q in numbered if value not in q and any(u == value[1] for _, u in q)]
            if not own or not rivals or any(lx.ANAPHORA & set(lx.reading_tokens(p)) for p in own):
                continue
            words = frozenset(w for w in terms_of(piece).own_words if w not in lx.UNITS)
            if words & frozenset().union(*(terms_of(p).words for p in own)):
                continue
            best_rival = max(rivals, key=lambda p: len(words & terms_of(p).words))
            shared = sorted(words & terms_of(best_rival).words)
            if shared:
                other = sorted(q for q in quantities(best_rival) if q[1] == value[1])[0]
                return {"value": " ".join(value), "rival": " ".join(other), "words": shared}
    return None


def _numbers(text: str) -> set[str]:
    """The numbers written in digits in ``text``, read without thousands separators."""
    return set(_DIGITS.findall(text.replace(",", "")))


def _bound_by_another(claim: str, places: list[tuple[str, set[str], frozenset[str]]]) -> dict[str, Any] | None:
    """Where the claim's one number stands by fewer of the claim's words than another number does: ``places`` are the
    span's parts, each ``(name, its numbers, its words)``; the claim is bound elsewhere when a part without its number
    shares more of its words than every part with it. A claim with two numbers may join two parts' facts, each by its
    own number, so it is never bound."""
    values = _numbers(claim)
    if len(values) != 1:
        return None
    (value,) = values
    words = frozenset(w for w in terms_of(claim).own_words if w not in lx.UNITS)
    own = [words & held for _, numbers, held in places if value in numbers]
    rivals = [(name, numbers, words & held) for name, numbers, held in places if numbers and value not in numbers]
    if not own or not rivals:
        return None
    name, numbers, shared = max(rivals, key=lambda rival: len(rival[2]))
    if len(shared) > max(len(mine) for mine in own):
        return {"value": value, "rival": sorted(numbers)[0], "words": sorted(shared), "place": name}
    return None


def _row_binding(claim: str, span: Span) -> dict[str, Any] | None:
    """S.binding in a table row: a cell's number belongs to its column. The claim's number stands in one cell while
    the claim's words stand, by their column's heading or the cell's own words, by another number in another cell
    ("The minimum number of seats on the Business plan is 2" against the row "Business | … | minimum 5, up to 500
    | 2 TB per seat, pooled" under "Plan | … | Seats | Storage")."""
    lines = span.text.split("\n")
    cells = lines[-1].split(" | ")
    header = next((line for line in reversed(lines[:-1]) if line.count(" | ") == len(cells) - 1), None)
    if header is None:
        return None
    columns = [
        (heading, _numbers(cell), terms_of(f"{heading}\n{cell}").words)
        for heading, cell in zip(header.split(" | "), cells, strict=True)
    ]
    bound = _bound_by_another(claim, columns)
    if bound is None:
        return None
    column = bound.pop("place")
    return {**bound, "column": column}


def _pair_binding(claim: str, span: Span) -> dict[str, Any] | None:
    """In two neighbouring sentences joined as one span, each keeps its numbers: a number of the claim stands in
    one sentence while the claim's words stand by another number in the other ("A Starter workspace can grow to a
    maximum of 3 seats" against "Starter includes 3 seats. … can grow to a maximum of 10 seats")."""
    lines = span.text.split("\n")
    values = _numbers(claim)
    if any(lx.ANAPHORA & set(lx.reading_tokens(line)) for line in lines if values & _numbers(line)):
        return None  # "You can raise this to 50 GB": the sentence names its subject in the one before it
    bound = _bound_by_another(claim, [(line, _numbers(line), terms_of(line).words) for line in lines])
    if bound is not None:
        del bound["place"]
    return bound


def check_claim(
    claim: str,
    code: tuple[str, ...],
    question: str,
    context: ContextReading,
    spans: Sequence[Span],
    disabled: frozenset[str],
    whole: bool = True,
) -> _Check:
    """The verdict on one claim: the rules of :data:`SUPPORT_RULES` from S.absent to S.words, in order."""
    need = need_of(claim, code, question) if whole else Need(terms_of(claim, code), frozenset(), "a clause")
    steps: list[Step] = []

    def on(rule: str) -> bool:
        return rule not in disabled

    def done(step: Step, span: Span | None, figure: float | None) -> _Check:
        steps.append(step)
        return _Check(tuple(steps), span, figure)

    premise = read_question(question).premise
    everything = context.everything
    absent = sorted(
        t for t in need.terms.exact - held_exact(need.terms.exact, everything, context.names) if t not in premise
    )
    best = max(spans, key=need.rank) if spans else None
    evidence = _span_words(need, best) if best else {"passage": 0, "needed": _words_of(need), "held": []}
    figure = share(evidence["held"], evidence["needed"])
    if absent and on("S.absent"):
        return done(Step("S.absent", "unsupported", False, {**evidence, "missing": absent}), best, figure)
    steps.append(Step("S.absent", ABSTAINS))
    if best is None:
        return done(Step("S.words", "unsupported", False, {**evidence, "kind": need.kind}), None, 0.0)
    held = best.terms.exact | best.tokens
    apart = sorted(need.terms.exact - held_exact(need.terms.exact, held, best.terms.exact) - premise - set(absent))
    if apart and on("S.apart"):
        return done(Step("S.apart", "undecided", False, {**evidence, "missing": apart}), best, figure)
    steps.append(Step("S.apart", ABSTAINS))
    if on("S.unit"):
        unheld = _unheld_quantity(claim, best)
        if unheld:
            return done(Step("S.unit", "unsupported", False, {"passage": best.passage + 1, **unheld}), best, figure)
        steps.append(Step("S.unit", ABSTAINS))
    if on("S.swap"):
        for line in best.text.split("\n"):
            swap = swapped(claim, line)
            if swap and fold(swap[0]) not in {fold(t) for t in _swap_tokens(best.text)}:
                said, written = swap
                step = Step(
                    "S.swap",
                    "unsupported",
                    False,
                    {"passage": best.passage + 1, "said": said or "(nothing)", "written": written or "(nothing)"},
                )
                return done(step, best, figure)
        steps.append(Step("S.swap", ABSTAINS))
    if on("S.negation") and need.terms.negated and not _negative(best):
        return done(Step("S.negation", "undecided", False, evidence), best, figure)
    steps.append(Step("S.negation", ABSTAINS))
    if on("S.binding"):
        bound_elsewhere = _prose_binding(claim, best)
        if bound_elsewhere is not None:
            return done(
                Step("S.binding", "unsupported", False, {"passage": best.passage + 1, **bound_elsewhere}), best, figure
            )
        steps.append(Step("S.binding", ABSTAINS))
    if on("S.subject") and need.kind != "a claim":
        # a fragment takes the question's subject; a restatement names it: either way the span must name it where
        # its passage tells subjects apart by it ("Enterprise" in a table of plans)
        names = read_question(question).subjects
        named = context.vocabulary[best.passage] if best.passage < len(context.vocabulary) else frozenset()
        subjects = names - context.titles
        missing = sorted((subjects & named) - best.terms.words)
        if missing:
            return done(
                Step("S.subject", "undecided", False, {"passage": best.passage + 1, "missing": missing}), best, figure
            )
        steps.append(Step("S.subject", ABSTAINS))
    return done(_words_step(need, best, evidence), best, figure)


def _negative(span: Span) -> bool:
    """A span says something negative: a negation, or a restrictive word ("only", "disabled", "except" …)."""
    return span.terms.negated or bool(lx.RESTRICTIVES & set(lx.reading_tokens(span.text)))


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
    the two word lists of the trace, and :func:`~evalgate_lib.judging.trace.replay` does."""
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


def lean_by_answer(verdicts: Sequence[SentenceVerdict], reading: AnswerReading) -> tuple[SentenceVerdict, ...]:
    """L.answer: an answer's undecided verdicts lean supported when the answer itself shows a faithful writer
    (no gold read): no sentence decided unsupported; at least :data:`TRACK_RECORD` claims in its own words (not a
    verbatim copy, a code line or a fragment) decided supported, and at least as many as its undecided verdicts leaning
    unsupported; and one coherent generation (no sentence repeated word for word, not cut off mid-sentence)."""
    if any(v.supported is False and not v.undecided for v in verdicts):
        return tuple(verdicts)
    leaning = [v for v in verdicts if v.undecided and v.supported is False]
    own = [
        v
        for v in verdicts
        if v.supported is True
        and not v.undecided
        and v.rule == "S.words"
        and v.steps
        and v.steps[-1].evidence.get("kind") != "an answer fragment"
    ]
    repeated = any(s.repeats is not None for s in reading.sentences)
    if not leaning or len(leaning) > len(own) or repeated or _cut_off(reading.answer):
        return tuple(verdicts)
    step = Step("L.answer", "undecided", True, {"own": len(own), "leaning": len(leaning)})
    return tuple(
        dataclasses.replace(
            v, supported=True, steps=(*v.steps, step), reason=f"{v.reason}; {render(SUPPORT_RULES, step)}"
        )
        if v.undecided and v.supported is False
        else v
        for v in verdicts
    )


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


def _judge_claim(
    claim: str, code: tuple[str, ...], question: str, context: ContextReading, disabled: frozenset[str]
) -> _Check:
    """S.verbatim, then the claim rules; when the whole is not supported, S.clauses and S.enumeration."""
    squashed = squash(claim).rstrip(".")
    if "S.verbatim" not in disabled and len(squashed) >= VERBATIM_CHARS:
        for i, passage in enumerate(context.squashed):
            if squashed in passage:
                return _Check((Step("S.verbatim", "supported", True, {"passage": i + 1}),), None, 1.0)
    whole = check_claim(claim, code, question, context, context.spans, disabled)
    steps = (Step("S.verbatim", ABSTAINS), *whole.steps)
    if whole.supported:
        return _Check(steps, whole.span, whole.figure)
    parts = clauses_of(claim)
    if "S.clauses" not in disabled and len(parts) > 1:
        checks = [check_claim(p, code, question, context, context.spans, disabled, whole=False) for p in parts]
        fails = [c for c in checks if c.last.outcome == "unsupported"]
        if not fails and (whole.last.outcome == "unsupported" or all(c.supported for c in checks)):
            weakest = min(checks, key=lambda c: (c.supported, c.lean, c.figure or 0.0))
            outcome = weakest.last.outcome
            step = Step(
                "S.clauses",
                outcome,
                weakest.lean if outcome == "undecided" else None,
                {
                    "count": len(checks),
                    "passages": [c.span.passage + 1 for c in checks if c.span],
                    "weakest": render(SUPPORT_RULES, weakest.last),
                },
            )
            return _Check((*steps, step), weakest.span, weakest.figure)
    if "S.enumeration" not in disabled and len(_ITEMS.split(claim)) >= 3 and context.groups:
        listed = check_claim(claim, code, question, context, context.groups, disabled, whole=False)
        if listed.supported and listed.span is not None:
            step = Step("S.enumeration", "supported", True, _span_words(need_of(claim, code, question), listed.span))
            return _Check((*steps, step), listed.span, listed.figure)
    return _Check(steps, whole.span, whole.figure)


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


def _judge_code(line: str, context: ContextReading) -> _Check:
    needs = _code_needs(line.strip().strip("`"))
    held = held_exact(needs, context.everything, context.names)
    missing = sorted(needs - held)
    evidence = {"needed": sorted(needs), "missing": missing}
    if not needs:
        return _Check((Step("S.code", "none", None, {**evidence, "verdict": "nothing to check"}),), None, None)
    figure = (len(needs) - len(missing)) / len(needs)
    if missing:
        return _Check(
            (Step("S.code", "unsupported", False, {**evidence, "verdict": "not all in the context"}),), None, figure
        )
    return _Check((Step("S.code", "supported", True, {**evidence, "verdict": "all in the context"}),), None, figure)


def _judge_coverage(
    text: str, code: tuple[str, ...], question: str, context: ContextReading, disabled: frozenset[str]
) -> _Check:
    """S.coverage: each topic of a statement about the context, looked for on its own anywhere in the context."""
    tokens = lx.reading_tokens(text)
    verb = next((i for i, t in enumerate(tokens) if t in lx.REPORT_VERBS), None)
    topics_text = " ".join(tokens[verb + 1 :]) if verb is not None else text
    items = [i.strip(" .") for i in _ITEMS.split(topics_text) if terms_of(i.strip(" .")).words]
    checks = [check_claim(i, code, question, context, context.spans, disabled, whole=False) for i in items]
    if not checks:
        checks = [check_claim(text, code, question, context, context.spans, disabled, whole=False)]
    held = [c for c in checks if c.supported]
    absent = [c for c in checks if c.steps[-1].rule == "S.absent"]
    evidence = {
        "held": len(held),
        "count": len(checks),
        "missing": [items[i] for i, c in enumerate(checks) if not c.supported][:6] if items else [],
    }
    weakest = min(checks, key=lambda c: (c.supported, c.figure or 0.0))
    if len(held) == len(checks):
        return _Check((Step("S.coverage", "supported", True, evidence),), weakest.span, weakest.figure)
    if absent:
        return _Check((Step("S.coverage", "unsupported", False, evidence),), absent[0].span, absent[0].figure)
    return _Check((Step("S.coverage", "undecided", True, evidence),), weakest.span, weakest.figure)


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
        return verdict_of(sentence, tokens, _judge_code(sentence.claim, context))
    checks: list[_Check] = []
    by_role = {r: " ".join(c.text for c in sentence.clauses if c.role == r).strip() for r in ("context", "claim")}
    if by_role["context"]:
        checks.append(_judge_coverage(by_role["context"], sentence.code, question, context, disabled))
    if by_role["claim"]:
        checks.append(_judge_claim(by_role["claim"], sentence.code, question, context, disabled))
    weakest = min(checks, key=_strength)
    others = tuple(step for c in checks if c is not weakest for step in c.steps)
    return verdict_of(sentence, tokens, _Check(others + weakest.steps, weakest.span, weakest.figure))


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
        span=None if check.span is None else check.span.text,
        reason=reason,
        undecided=last.outcome == "undecided",
        role=sentence.role,
        rule=last.rule,
        steps=check.steps,
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
    #: 4: the rebuilt judge (one reading, a table of named rules, a trace behind every verdict).
    version = "4"
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
        return verdicts if "L.answer" in disabled else lean_by_answer(verdicts, reading)
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

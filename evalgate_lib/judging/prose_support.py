"""The prose scorer: the span rule, read the way a reviewer reads a capable model's fluent answer.

The ``span`` scorer (:mod:`evalgate_lib.judging.span_support`) was written from a small
model's answers: pasted lists, copied headings, repetition. A capable generator writes
prose, and a reviewer following the labelling guide reads prose differently in exactly
these ways, each a rule here:

1. **Not every sentence is a claim** (:mod:`evalgate_lib.judging.discourse`). Declines,
   statements of what the context does not say, courtesy and closing source lists claim
   nothing. A frame such as "According to the documentation," or "The context only
   gives …" is removed and the rest is judged. Citation marks ("[2]") are removed before
   anything is compared: their digits are references, not numbers.
   A sentence that declines one part and claims another ("The context doesn't give
   the euro price, but Business costs $18") is judged on the claiming part only.
2. **A paraphrase of one local span is supported.** A span is a sentence or line of a
   passage with its labels (title, heading, table header), or two adjacent ones joined
   (:data:`ADJACENT_UNITS`): fluent writers merge neighbouring sentences. Words are
   compared after Snowball stemming ("validity" = "valid", "requires" = "requirement"),
   with number words as digits; function words and the discourse words fluent writers add
   without adding a fact (:data:`FILLER_WORDS`: "e.g.", "simply", "typically", …) do not
   count; word order does not matter. The span must hold at least half
   (:data:`PROSE_FLOOR`) of the claim's remaining words: a paraphrase keeps most of what
   it restates, while its facts are held by rule 3. A long sentence may instead be held
   clause by clause, each clause by a span of its own (:func:`clauses_of`).
3. **Numbers, versions, options, paths and identifiers stay exact**: every one the claim
   states must be in that span (``95.0%`` = ``95%``, ``1,000`` = ``1000``, nothing looser).
   Names the question asks about must be in it too (the Free plan's row does not support a
   claim about Enterprise). An answer that restates the question must find half of the
   question's words and half of what it adds in the same span, so its value is tied to
   what was asked ("the maximum upload size on mobile is 150 MB" is not held by a span
   about desktop uploads that mentions 150 MB).
4. **A command or code line** (inside a fenced block, or a shell/REPL line) is an example
   assembled from the context's parts: supported when every option, path, identifier and
   number in it occurs somewhere in the context, and its words do too (:data:`PROSE_FLOOR`).
5. Answer fragments, yes/no answers and negations follow the ``span`` scorer's rules.

Everything is a function of strings (no model); the verdict names the span and what it
lacks, so a reader can check it by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from evalgate_lib.judging.discourse import (
    FENCE,
    is_advice,
    is_courtesy,
    is_decline,
    is_sources_line,
    without_citations,
    without_source_frame,
)
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.sentence_scorers import ScoringContext
from evalgate_lib.judging.span_support import (
    _EXACT,
    _FRAME,
    _IDENTIFIER_HINT,
    _LABEL,
    _NEGATION,
    FRAGMENT_WORDS,
    NUMBER_WORDS,
    POLAR_FLOOR,
    QUESTION_FLOOR,
    _squash,
    key_terms,
    without_list_markers,
)
from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import content_token_list, distinct_tokens, fold, sentence_spans

#: Share of a claim's counted words that its span must hold (also of the question's words an answer
#: restates, and of the words it adds). Chosen, like the defaults, by the worst labelled set: on
#: fluent answers most of the claims that hold every exact token but only half to three quarters of
#: their words are faithful paraphrases (docs/methodology.md has the figures).
PROSE_FLOOR = 0.5

#: A verdict whose span holds less than this share of the claim's words (and every exact token) is at the
#: edge of the word rule, supported or not: the review queue asks a person to confirm it.
CLEAR_SHARE = 0.6


#: A claim with at most this many counted words may miss one of them when its span holds all its exact tokens.
SHORT_CLAIM_WORDS = 4

#: A claim is a near miss when its span holds every exact token and at least this share (a third) of its words.
NEAR_MISS_SHARE = 0.34

#: How many neighbouring units of one passage may form one span (a sentence and the next).
ADJACENT_UNITS = 2

#: Words a fluent writer adds without adding a fact: discourse markers, hedges, illustration
#: and emphasis. They are left out of the comparison on both sides, like stopwords. Words that
#: carry a condition of their own ("default", "only", "automatically", "never") are not here.
FILLER_WORDS: frozenset[str] = frozenset(
    """
    e g eg ie i.e etc example examples instance instances note noted notice please simply just basically actually
    essentially specifically generally typically usually normally commonly also additionally furthermore moreover
    therefore thus hence well overall really quite rather certain particular particularly way ways able
    sure help helps helpful want wants wanted like mean means meaning thing things
    specific specifically exactly precisely directly important importantly worth case
    answer answers question questions asked ask you'll you'd let lets go going
    nice great good handy bonus benefit comparison practice versus vs bit
    """.split()
)

_STEMMER = snowballstemmer.stemmer("english")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")
_BULLET = re.compile(r"^\s*(?:[-*+•]\s+|\d{1,2}[.)]\s+)")
_SHELL_LINE = re.compile(r"^\s*(?:\$|>>>|\.\.\.|#!|[a-z_][\w.-]*\s*=\s*\S|(?:pip|python|python3|py|git|export|set)\s)")
#: A yes/no answer: "Yes." / "No, it does not." (not "No files are deleted", a plain claim).
POLAR = re.compile(r"^\W*(?:yes|no)\b(?=\s*(?:[,.!;:\u2014-]|$))", re.IGNORECASE)
#: What makes a span negative for a negative claim: a negation, or a word that says the same
#: in other terms ("disabled", "False", "without", "only", "no longer").
_NEGATIVE_SPAN = re.compile(
    r"\b(?:no|not|never|none|nothing|cannot|can't|won't|n't|without|false|disabled?|off|except|only|"
    r"no longer|neither|nor|unless|instead|rather than|prevent|avoid|lacks?|unsupported|removed|dropped)\b|n't\b",
    re.IGNORECASE,
)
#: Conditional and relative clauses ("if you don't want …", "users who can't migrate") and "not only":
#: a negation there is not the claim's own.
_CONDITION = re.compile(
    r"\b(?:if|unless|when|whether|who|that|which)\b[^,;.]*|\bnot only\b|\bno matter\b", re.IGNORECASE
)
#: Where a long sentence may be cut into clauses, each to be held by a span of its own.
_CLAUSE = re.compile(
    r"\s*(?:;|:\s|,\s*(?:and|but|so|which|while|whereas|although|though|since|because|plus)\b|\s\((?=[^)]{12,}\))|"
    r"\)\s|\s[\u2013\u2014-]\s)\s*",
    re.IGNORECASE,
)
#: A clause with fewer counted words than this is read together with the one before it.
CLAUSE_WORDS = 3

_BUT = re.compile(r"(?:[,;:]|\s[-–—])?\s+(?:but|however|although|though|whereas|while|so|instead)\b[,]?\s*|;\s+", re.I)


@lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    """One compared word: number words as digits, then the Snowball English stem (memoised per token)."""
    if token in NUMBER_WORDS:
        return NUMBER_WORDS[token]
    if token[0].isdigit():
        return token
    return _STEMMER.stemWord(token)


def _canonical(token: str) -> str:
    """A number as compared: thousands separators dropped, an all-zero fraction dropped (``95.0`` = ``95``)."""
    if not token or not token[0].isdigit():
        return token
    token = token.replace(",", "")
    if re.fullmatch(r"\d+\.0+", token):
        return token.split(".")[0]
    return token


@lru_cache(maxsize=65536)
def prose_terms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(words, exact)`` of ``text``: counted words (stemmed, no stop or filler words) and exact tokens.

    Exact tokens are numbers (canonical), options, dotted/slashed/underscored names; they are
    compared as written, case-folded. Numbers are counted among the words too.
    """
    unnumbered = without_list_markers(text)
    tokens = distinct_tokens(unnumbered)
    words = frozenset(_stem(t) for t in tokens - STOPWORDS - FILLER_WORDS if len(t) > 1 or t.isdigit())
    folded = fold(unnumbered)
    if _IDENTIFIER_HINT.search(folded):
        exact = {_canonical(m.rstrip(".")) for m in _EXACT.findall(folded)}
    else:
        exact = {_canonical(t) for t in tokens if t[0].isdigit()}
    runs = tokens if "'" not in folded else {run for t in tokens for run in t.split("'")}
    # "one" is a pronoun far more often than a count ("a different one", "one of the two"): a word, not a number
    exact.update(NUMBER_WORDS[t] for t in runs if t in NUMBER_WORDS and t != "one")
    exact.discard("")
    return frozenset(_canonical(w) if w[0].isdigit() else w for w in words), frozenset(exact)


@dataclass(frozen=True)
class _Unit:
    """One candidate span: its text and its counted words and exact tokens (labels included)."""

    passage: int
    text: str
    words: frozenset[str]
    exact: frozenset[str]


_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_TABLE_LINE = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


@lru_cache(maxsize=4096)
def prose_spans(index: int, title: str, text: str) -> tuple[_Unit, ...]:
    """The spans of one passage: every unit (sentence or line) with its labels, and each pair of adjacent units.

    Labels are the passage title, the nearest Markdown heading above the unit and, for a table
    row, the table's header row: they name what a unit is about, never another fact. Joining
    two neighbours lets "Starter includes 3 seats. Each extra seat costs $10." support a
    sentence that merges them; a claim still cannot take its number from one end of a passage
    and its subject from the other.
    """
    title_terms = prose_terms(title)
    heading_terms: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    header_terms = heading_terms
    heading = header = previous = ""
    units: list[tuple[str, frozenset[str], frozenset[str]]] = []
    for start, end in sentence_spans(text):
        unit = text[start:end]
        if "#" in unit and _HEADING.match(unit):
            heading, header = unit, ""
            heading_terms, header_terms = prose_terms(unit), (frozenset(), frozenset())
            continue
        if _TABLE_RULE.match(unit) and _TABLE_LINE.match(previous):
            header, header_terms = previous, prose_terms(previous)
            previous = unit
            continue
        if header and not _TABLE_LINE.match(unit):
            header, header_terms = "", (frozenset(), frozenset())
        words, exact = prose_terms(unit)
        labels = [part for part in (title, heading, header) if part and part != unit]
        units.append(
            (
                "\n".join([*labels, unit]),
                words | title_terms[0] | heading_terms[0] | header_terms[0],
                exact | title_terms[1] | heading_terms[1] | header_terms[1],
            )
        )
        previous = unit
    if not units:
        piece = "\n".join(p for p in (title, heading) if p)
        words, exact = prose_terms(piece)
        return (_Unit(index, piece, words, exact),)
    spans = [_Unit(index, *u) for u in units]
    for width in range(2, ADJACENT_UNITS + 1):
        for i in range(len(units) - width + 1):
            group = units[i : i + width]
            lines = list(dict.fromkeys(line for u in group for line in u[0].split("\n")))
            spans.append(
                _Unit(
                    index,
                    "\n".join(lines),
                    frozenset().union(*(u[1] for u in group)),
                    frozenset().union(*(u[2] for u in group)),
                )
            )
    return tuple(spans)


@lru_cache(maxsize=4096)
def _context_exact(passages: tuple[tuple[str, str], ...]) -> frozenset[str]:
    """Every exact token of the whole context (a command may be assembled from all of its parts)."""
    return frozenset().union(*(prose_terms(part)[1] for title, text in passages for part in (title, *text.split("\n"))))


@lru_cache(maxsize=4096)
def _squashed_passage(title: str, text: str) -> str:
    """A passage as the verbatim rule compares it (memoised: every claim of every answer asks for it)."""
    return _squash(f"{title}\n{text}")


_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|cf|vs)\.?,?(?=\s|$)", re.IGNORECASE)


def _plain(sentence: str) -> str:
    """The sentence as compared: no citation marks, "e.g."/"i.e.", Markdown emphasis or bullet."""
    text = _ABBREVIATION.sub("", without_citations(sentence))
    text = _EMPHASIS.sub("", text)
    return _BULLET.sub("", text, count=1).strip()


def declining_clauses(text: str) -> tuple[list[str], list[str]]:
    """``(declining, other)`` clauses of ``text``, cut at "but", "however", "so", ";" …

    "It only gives prices in US dollars, so I don't know the euro amount" → the second clause
    declines, the first says what the context holds.
    """
    clauses = [c.strip() for c in _BUT.split(text) if c and c.strip(" ,;.")]
    declining = [c for c in clauses if is_decline(c)]
    return declining, [c for c in clauses if not is_decline(c)]


def _claiming_clauses(text: str) -> str | None:
    """``text`` without the clauses that decline or say what the context lacks; ``None`` if nothing else is left."""
    if not is_decline(text):
        return text
    declining, other = declining_clauses(text)
    return " ".join(other).strip() or None if declining else text


@dataclass(frozen=True)
class _Need:
    """What one claim requires of its span."""

    words: frozenset[str]
    exact: frozenset[str]
    question: frozenset[str]  # question words the span must also hold ...
    question_share: float  # ... at least this share of them
    keys: frozenset[str]  # the question's names: all must be in the span
    added: frozenset[str]  # words the answer adds to the question: PROSE_FLOOR of them must be in the span
    negated: bool
    kind: str

    def rank(self, unit: _Unit) -> tuple[int, int, int]:
        asked = len(self.question & unit.words) + 2 * len(self.keys & unit.words)
        return (len(_held_exact(self.exact, unit.exact)), len(self.words & unit.words) + asked, -len(unit.text))


def _need(claim: str, question: str, whole: bool = True) -> _Need:
    """What ``claim`` requires of its span; a clause of a longer sentence (``whole=False``) is always a plain claim."""
    words, exact = prose_terms(claim)
    asked, _ = prose_terms(question)
    own = words - exact
    keys = frozenset(w for name in key_terms(question) for w in prose_terms(name)[0]) - words
    negated = bool(_NEGATION.search(_CONDITION.sub("", claim)))
    if whole and POLAR.match(claim):
        return _Need(words, exact, asked - words, POLAR_FLOOR, keys, frozenset(), negated, "a yes/no answer")
    if whole and len(own) <= FRAGMENT_WORDS:
        return _Need(words, exact, asked - words, QUESTION_FLOOR, keys, frozenset(), negated, "an answer fragment")
    if whole and len(own & asked) * 2 >= len(own):
        # The question's words in it tie the value to what was asked ("the maximum size ... is
        # 150 MB"): the span must hold PROSE_FLOOR of them, as of any claim, the question's names,
        # and PROSE_FLOOR of what the answer adds; the grace for a short anchored claim applies
        # to the added words only.
        echoed = words & asked
        return _Need(
            words - echoed, exact, echoed, PROSE_FLOOR, keys, words - asked, negated, "an answer to the question"
        )
    return _Need(words, exact, frozenset(), 0.0, frozenset(), frozenset(), negated, "a claim")


def _held_exact(need: frozenset[str], held: frozenset[str]) -> frozenset[str]:
    """The exact tokens of ``need`` that ``held`` holds. An identifier on a short local variable
    (``r.json``, ``s.mount``, ``fd.write``) is held by the same attribute on a named object
    (``Response.json``): an example's variable stands for the object the documentation names."""
    found = set(need & held)
    tails = {t.rsplit(".", 1)[1] for t in held if "." in t and "/" not in t}
    for token in need - held:
        head, dot, tail = token.rpartition(".")
        if dot and "/" not in token and len(head) <= 2 and len(tail) >= 3 and (tail in tails or tail in held):
            found.add(token)
    return frozenset(found)


def _share(need: frozenset[str], held: frozenset[str]) -> float:
    return len(need & held) / len(need) if need else 1.0


def _enough(need: frozenset[str], held: frozenset[str], anchored: bool, floor: float = PROSE_FLOOR) -> bool:
    """Does ``held`` hold enough of ``need``: :data:`PROSE_FLOOR` of it, or all but one word of a short,
    anchored claim (one whose numbers and identifiers the span holds: "dropped support in 2.28.0"
    for "no longer supported as of 2.28.0" differs in one ordinary word, and 1/2 is not a measure)."""
    if _share(need, held) >= floor:
        return True
    return anchored and len(need) <= SHORT_CLAIM_WORDS and len(need - held) <= 1


@dataclass(frozen=True)
class _Check:
    """One claim (or clause) checked against its best span; ``doubtful`` when it sits at the rule's edge."""

    need: _Need
    best: _Unit
    supported: bool
    reason: str
    missing: tuple[str, ...]
    score: float
    doubtful: bool = False


def _check(claim: str, question: str, units: list[_Unit], whole: bool = True) -> _Check:
    """The best span for ``claim`` and whether it supports it (rules 2 and 3 of the module docstring)."""
    need = _need(claim, question, whole)
    best = max(units, key=need.rank)
    held_terms = best.words | best.exact
    missing_exact = tuple(sorted(need.exact - _held_exact(need.exact, best.exact)))
    missing_words = tuple(sorted(need.words - held_terms))
    missing_keys = tuple(sorted(need.keys - best.words))
    share = _share(need.words, held_terms)
    added_share = _share(need.added, held_terms)
    asked_share = _share(need.question, best.words) if need.question else 1.0
    negation_ok = not need.negated or bool(_NEGATIVE_SPAN.search(best.text))
    anchored = bool(need.exact) and not missing_exact
    supported = (
        not missing_exact
        and _enough(need.words, held_terms, anchored)
        and _enough(need.added, held_terms, anchored)
        and asked_share >= need.question_share
        and not missing_keys
        and negation_ok
    )
    where = f"passage [{best.passage + 1}]"
    held = f"{len(need.words) - len(missing_words)}/{len(need.words)} words = {share:.2f}"
    if supported:
        reason = f"{need.kind}: a span of {where} holds {held} and every number and identifier"
    elif missing_exact:
        reason = (
            f"{need.kind}: no span of the context holds {', '.join(missing_exact)} with the claim ({where}: {held})"
        )
    elif share < PROSE_FLOOR:
        reason = f"{need.kind}: the best span ({where}) holds only {held} < {PROSE_FLOOR:.2f}"
    elif added_share < PROSE_FLOOR:
        lacking = ", ".join(sorted(need.added - held_terms))
        reason = f"{need.kind}: the span ({where}) lacks what the answer adds to the question: {lacking}"
    elif missing_keys:
        reason = f"{need.kind}: the span holding it ({where}) is about something else (lacks {', '.join(missing_keys)})"
    elif asked_share < need.question_share:
        reason = f"{need.kind}: the span holding it ({where}) is not about the question"
    else:
        reason = f"{need.kind}: a negative claim, but the span holding its words ({where}) says nothing negative"
    checked = len(need.words | need.exact | need.question | need.keys)
    lacking_all = set(missing_exact) | set(missing_words) | set(missing_keys) | (need.question - best.words)
    score = (checked - len(lacking_all)) / checked if checked else 1.0
    # At the edge of the word rule, supported or not: every number, identifier and name held, and
    # between a third and CLEAR_SHARE of the words (a paraphrase the rule may misjudge either way).
    edge = not missing_exact and not missing_keys and NEAR_MISS_SHARE <= share < CLEAR_SHARE
    return _Check(need, best, supported, reason, missing_exact + missing_words + missing_keys, score, edge)


def clauses_of(claim: str) -> list[str]:
    """``claim`` cut at clause boundaries (";", ", and", ", which", a parenthesis, a dash …).

    A piece with fewer than :data:`CLAUSE_WORDS` counted words and no exact token of its own
    is read with the piece before it, so "until you reach 10" never stands alone.
    """
    pieces = [p.strip(" ,;:()") for p in _CLAUSE.split(claim)]
    clauses: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        words, exact = prose_terms(piece)
        if clauses and len(words) < CLAUSE_WORDS:
            clauses[-1] = f"{clauses[-1]}, {piece}"
        else:
            clauses.append(piece)
    if len(clauses) > 1 and len(prose_terms(clauses[0])[0]) < CLAUSE_WORDS:
        clauses[1] = f"{clauses[0]}, {clauses[1]}"
        clauses.pop(0)
    return clauses


def _judge_code(sentence: str, tokens: tuple[str, ...], context: ScoringContext) -> SentenceVerdict:
    """A command or code line: its options, paths, identifiers and numbers must occur in the context.

    Its words (keywords, variable names, a package being installed) are the example's own
    plumbing and are not compared; an option or path the context never shows is unsupported.
    """
    _, exact = prose_terms(_plain(sentence))
    missing = tuple(sorted(exact - _held_exact(exact, _context_exact(context.passages))))
    if not exact:
        return SentenceVerdict(sentence, tokens, (), None, None, reason="a code line with no option, path or number")
    supported = not missing
    if supported:
        reason = "a command or code line: every option, path, identifier and number in it occurs in the context"
    else:
        reason = f"a command or code line with {', '.join(missing)}, which the context does not have"
    return SentenceVerdict(
        sentence, tokens, missing, (len(exact) - len(missing)) / len(exact), supported, reason=reason
    )


def judge_prose(sentence: str, context: ScoringContext) -> SentenceVerdict:
    """The prose scorer's verdict on one sentence (rules in the module docstring)."""
    tokens = tuple(content_token_list(sentence))

    def nothing(why: str, refusal: bool = False) -> SentenceVerdict:
        return SentenceVerdict(sentence, tokens, (), None, None, refusal=refusal, reason=why)

    text = _plain(sentence)
    if not text or FENCE.match(text) or is_sources_line(text):
        return nothing("a code fence or a list of sources: claims nothing")
    if is_courtesy(text):
        return nothing("courtesy or an offer of help: claims nothing")
    if sentence.strip() in context.code or _SHELL_LINE.match(text) or text.startswith("`") and text.endswith("`"):
        if any(prose_terms(text)):
            return _judge_code(sentence, tokens, context)
    claiming = _claiming_clauses(text)
    if claiming is None:
        return nothing("a decline, or a statement of what the context does not say: claims nothing", refusal=True)
    claim = without_source_frame(claiming).strip()
    unnumbered = without_list_markers(claim).strip()
    if _FRAME.match(unnumbered) or claim.rstrip("*_ ").endswith("?"):
        return nothing("a question, heading or framing line: claims nothing")
    if claim.rstrip("*_ ").endswith(":"):
        return nothing("a lead-in line ending with ':': claims nothing by itself")
    claim = _LABEL.sub("", claim, count=1).strip()
    if POLAR.match(claim):
        rest = POLAR.sub("", claim, count=1).strip(" ,;:.!\u2014-")
        rest_words, rest_exact = prose_terms(rest)
        if not rest_words and not rest_exact:
            return nothing("a bare yes/no: the answer's other sentences carry what it claims")
        if rest_words - prose_terms(context.question)[0]:
            claim = rest  # "No, Starter includes 3 seats": the statement after the yes/no is the claim
    words, exact = prose_terms(claim)
    polar = bool(POLAR.match(claim) or _NEGATION.search(claim))
    asked_words, asked_exact = prose_terms(context.question)
    if not words and not exact and not polar:
        return nothing("no content words: claims nothing")
    if words <= asked_words and exact <= asked_exact and not polar:
        return nothing("repeats the question: claims nothing new")
    if not exact and is_advice(claim):
        return nothing("advice or opinion naming no number, option, path or name: claims no checkable fact")
    squashed = _squash(claim).rstrip(".")
    if len(squashed) >= 12 and any(squashed in _squashed_passage(t, x) for t, x in context.passages):
        return SentenceVerdict(sentence, tokens, (), 1.0, True, span=claim, reason="copied verbatim from the context")
    if not context.passages:
        return SentenceVerdict(sentence, tokens, tuple(sorted(words)), 0.0, False, reason="no context to check")
    units = [u for i, (title, body) in enumerate(context.passages) for u in prose_spans(i, title, body)]
    whole = _check(claim, context.question, units)
    if whole.supported:
        return SentenceVerdict(
            sentence, tokens, (), whole.score, True, span=whole.best.text, reason=whole.reason, doubtful=whole.doubtful
        )
    parts = clauses_of(claim)
    if len(parts) > 1:
        claims = [part for part in parts if prose_terms(part)[1] or not is_advice(part)]
        checks = [_check(part, context.question, units, whole=False) for part in claims]
        if all(c.supported for c in checks):
            spans = "\n".join(dict.fromkeys(c.best.text for c in checks))
            where = ", ".join(f"[{c.best.passage + 1}]" for c in checks)
            reason = (
                f"{len(checks)} clauses (of {len(parts)}), each held by one span (passages {where}) "
                "with every number and identifier"
            )
            doubt = any(c.doubtful for c in checks)
            score = min(c.score for c in checks)
            return SentenceVerdict(sentence, tokens, (), score, True, span=spans, reason=reason, doubtful=doubt)
    return SentenceVerdict(
        sentence,
        tokens,
        whole.missing,
        whole.score,
        False,
        span=whole.best.text,
        reason=whole.reason,
        doubtful=whole.doubtful,
    )


class ProseSupportScorer:
    """Registered as ``prose``: the span rule for fluent answers (claims only, paraphrase of one local span)."""

    name = "prose"
    version = "1"
    floor = PROSE_FLOOR  # the share of a claim's words its span must hold
    marks_doubt = True  # its verdicts say when they sit at the edge of a rule: the review queue reads that

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        return judge_prose(sentence, context)


"""The span scorer: a sentence is supported only by one local span of the context that says it.

The seed scorer (``lexical``) asks whether a sentence's words occur *anywhere* in
the retrieved context. A careful reader asks something stricter, and this scorer
writes that reading down as rules of strings (no model, deterministic, checkable
by hand):

1. **Is it a claim at all?** A refusal, a question the model writes ("Question: …?"),
   a bare label ("Answer:", "The answer is:"), a heading, a sentence without content
   words, and an echo of the question (every content word is in the question) claim
   nothing: ``supported`` is ``None``. A leading label is stripped before judging the
   rest ("Answer: 3 seats." is judged as "3 seats.").
2. **A verbatim copy** of context text is supported (span = the copied text).
3. **Otherwise, the best local span**: the context is cut into units (the sentences
   and lines of each retrieved passage), and each unit, with the labels that frame it
   (passage title, nearest heading, a table's header row), is a candidate span
   (:func:`passage_spans`). The best span is the one holding the most of the sentence's
   *exact tokens* (numbers and identifiers) and then the largest share of its content words.
4. **Supported** when that span holds every exact token of the sentence (numbers,
   versions, options such as ``--no-cache-dir``, names such as ``PIP_INDEX_URL`` or
   ``pip.conf``) and at least :data:`SPAN_FLOOR` of its content words. One wrong
   number in a long sentence therefore fails, and so does a claim assembled from
   words that occur in different places of the context.

Content words are compared after a light, written-out stemming (:func:`stem`) and
with number words read as digits (``three`` = ``3``), on both sides alike. The
verdict names the span and the missing words, so a reader can check it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from evalgate_lib.judging.discourse import is_refusal
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.sentence_scorers import ScoringContext
from evalgate_lib.text.stopwords import STOPWORDS
from evalgate_lib.text.tokens import content_token_list, content_token_set, distinct_tokens, fold, sentence_spans

#: Share of a sentence's content words that its best span must hold.
SPAN_FLOOR = 0.75

#: Number words read as digits on both sides (the counting words a short answer uses).
NUMBER_WORDS: dict[str, str] = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90", "hundred": "100"}

#: Leading labels stripped before a sentence is judged ("Answer: 3 seats" → "3 seats").
_LABEL = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*)?(?:the\s+)?(?:final\s+|short\s+)?(?:answer|response|a)"
    r"(?:\s+to\s+(?:this|the|your)\s+question)?(?:\s+is)?\s*(?:\*\*)?\s*(?:[:\-]\s*(?:\*\*)?|$)",
    re.IGNORECASE,
)
#: Lines that only frame the answer: "Question: …", "Context:", "[1] Title", headings, a bare Markdown link.
_FRAME = re.compile(
    r"^\s*(?:#{1,6}\s|question\s*:|q\s*:|context\s*:|\[\d+\]\s|\[[^\]]+\]\([^)\s]+\)?\s*$)", re.IGNORECASE
)

#: Exact tokens: numbers (with decimals and version dots), command-line options, dotted,
#: slashed or underscored identifiers, and ALL-CAPS names. Compared as written (case-folded).
_EXACT = re.compile(
    r"(?<![\w.-])-{1,2}[a-z][\w-]*"  # --no-cache-dir, -r
    r"|\b[a-z_][\w-]*(?:[./][\w-]+)+\b"  # pip.conf, requirements.txt, a/b/c, ~/.cache/pip
    r"|\b[a-z]+_[\w]+\b"  # pip_index_url (case-folded)
    r"|\d+(?:[.,]\d+)*"  # 10, 1.10, 1,000, 3.7
)


def stem(token: str) -> str:
    """A light suffix stripper, so "includes"/"include" and "seats"/"seat" compare equal.

    Numbers and short words are left alone; then one rule of: ``ies``→``y``, ``sses``→``ss``,
    ``es`` after s/x/z/ch/sh → drop, ``s`` (not ``ss``/``us``/``is``) → drop, ``ing`` → drop,
    ``ed`` → drop, ``ly`` → drop. Both sides of every comparison go through it.
    """
    if len(token) <= 3 or token[0].isdigit():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("sses"):
        return token[:-2]
    if token.endswith("es") and token[-3] in "sxz" or token.endswith(("ches", "shes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    if token.endswith("ing") and len(token) > 5:
        return token[:-3]
    if token.endswith("ed") and len(token) > 4:
        return token[:-2]
    if token.endswith("ly") and len(token) > 4:
        return token[:-2]
    return token


_LEADING_MARKER = re.compile(r"^\s*(?:[-*+]\s+)?\(?\d{1,2}[.)]\s+", re.MULTILINE)
_INLINE_MARKER = re.compile(r"(?<=\s)\(?\d{1,2}[.)](?=\s)")


def without_list_markers(text: str) -> str:
    """``text`` without list numbering: "1. 10 GB 2. 20 GB" → "10 GB 20 GB".

    A number followed by ``.`` or ``)`` counts as a marker at the start of a line, and
    inside a line only when the line itself starts with one (an inline numbered list);
    "The limit is 10. It …" keeps its 10.
    """
    if not _LEADING_MARKER.search(text):
        return text
    lines = []
    for line in text.split("\n"):
        if _LEADING_MARKER.match(line):
            line = _INLINE_MARKER.sub(" ", _LEADING_MARKER.sub("", line, count=1))
        lines.append(line)
    return "\n".join(lines)


@lru_cache(maxsize=65536)
def _word(token: str) -> str:
    """One content token as a compared word (memoised: a run's vocabulary is small, and ``stem`` is Python)."""
    return NUMBER_WORDS.get(token, stem(token))


def words_of(text: str) -> frozenset[str]:
    """Content words of ``text``: content tokens, number words as digits, stemmed, list numbering dropped."""
    return _terms(text)[0]


def _canonical_number(token: str) -> str:
    return token.replace(",", "") if token[0].isdigit() else token


def exact_tokens(text: str) -> frozenset[str]:
    """Numbers and identifiers of ``text``, case-folded, thousands separators dropped, number words as digits."""
    return _terms(text)[1]


#: Only a text holding one of these can hold an exact token other than a number: an option
#: needs ``-``, a name with an underscore ``_``, a dotted or slashed name ``.``/``/`` before a letter.
_IDENTIFIER_HINT = re.compile(r"[-_]|[./][\w-]")
_NUMBER_WORD_SET = frozenset(NUMBER_WORDS)


@lru_cache(maxsize=65536)
def _terms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(words_of(text), exact_tokens(text))`` from one tokenisation of ``text``.

    Memoised: a question and its claims are read several times per answer.

    Two facts of the token rule (:mod:`evalgate_lib.text.tokens`) let one tokenisation serve
    both. Its number tokens are exactly the matches of :data:`_EXACT`'s number branch (the
    same pattern), so when :data:`_IDENTIFIER_HINT` finds nothing, no other branch can match
    and the slow :data:`_EXACT` scan is skipped. And the runs of letters in which number
    words are looked up are its word tokens, split at their inner apostrophes ("one's").
    """
    unnumbered = without_list_markers(text)
    tokens = distinct_tokens(unnumbered)
    words = frozenset(map(_word, tokens - STOPWORDS))
    folded = fold(unnumbered)
    if _IDENTIFIER_HINT.search(folded):
        exact = {_canonical_number(m.rstrip(".")) for m in _EXACT.findall(folded)}  # findall: _EXACT has no groups
    else:
        exact = {t for t in tokens if t[0].isdigit()}  # numbers, thousands separators already dropped
    runs = tokens if "'" not in folded else {run for t in tokens for run in t.split("'")}
    exact.update(NUMBER_WORDS[t] for t in _NUMBER_WORD_SET.intersection(runs))
    exact.discard("")
    return words, frozenset(exact)


@dataclass(frozen=True)
class Span:
    """One candidate span: which passage, its text, and its words and exact tokens."""

    passage: int
    text: str
    words: frozenset[str]
    exact: frozenset[str]


_HEADING_LINE = re.compile(r"^\s*#{1,6}\s+\S")
_TABLE_LINE = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


def passage_spans(index: int, title: str, text: str) -> tuple[Span, ...]:
    """The candidate spans of one passage: each sentence or line, with the labels that frame it.

    A span is one unit (a sentence, or a line such as a list item or a table row)
    together with the passage title, the nearest heading above it and, for a table
    row, the table's header row: labels that name what the unit is about, never
    another fact. Two facts in neighbouring sentences are two spans, so a claim
    cannot borrow its number from one and its subject from the other.
    """
    return tuple(Span(index, *unit) for unit in _passage(title, text).units)


def _squash(text: str) -> str:
    return " ".join(fold(text).split())


_Unit = tuple[str, frozenset[str], frozenset[str]]  # a span's (text, words, exact tokens)


@dataclass(frozen=True)
class _Passage:
    """What the scorer needs of one passage, built once per passage text (the same chunks recur across answers).

    ``units`` are the spans' ``(text, words, exact)`` in order; ``beyond_title`` each unit's words
    that are not title words and exact tokens that are not title exact tokens (every unit
    holds the title's); ``shortest`` is the first of the shortest units; ``squashed`` the
    title and text as the verbatim rule compares them.
    """

    squashed: str
    units: tuple[_Unit, ...]
    beyond_title: tuple[frozenset[str], ...]
    shortest: int

    @classmethod
    def build(cls, squashed: str, units: list[_Unit], title: tuple[frozenset[str], frozenset[str]]) -> _Passage:
        # Kept apart per kind: "2.5" can be a title word yet not a title exact token (title "v2.5").
        beyond = tuple((words - title[0]) | (exact - title[1]) for _, words, exact in units)
        shortest = min(range(len(units)), key=lambda i: len(units[i][0]))
        return cls(squashed, tuple(units), beyond, shortest)


@lru_cache(maxsize=4096)
def _passage(title: str, text: str) -> _Passage:
    """The spans of one passage (rules in :func:`passage_spans`) and its squashed text.

    Each label and unit is tokenised once, and a span's words are the union of its
    parts' words. That equals ``words_of`` of the joined span text because both word
    rules work line by line (no token, list marker or identifier crosses a line break),
    and every part is a line of its own in the span text.
    """
    units = []
    nothing = (frozenset(), frozenset())
    heading = header = previous = ""
    title_terms, heading_terms, header_terms = _terms(title), nothing, nothing  # each a (words, exact) pair
    for start, end in sentence_spans(text):
        unit = text[start:end]
        # The substring tests are necessary conditions of the patterns, checked in C first.
        if "#" in unit and _HEADING_LINE.match(unit):
            heading, header = unit, ""
            heading_terms, header_terms = _terms(unit), nothing
        elif "---" in unit and _TABLE_RULE.match(unit) and _TABLE_LINE.match(previous):
            header = previous
            header_terms = _terms(previous)
        else:
            if header and not _TABLE_LINE.match(unit):
                header, header_terms = "", nothing
            labels = [part for part in (title, heading, header) if part and part != unit]
            # A label equal to the unit is left out of the text but adds nothing to the sets: its words are the unit's.
            words, exact = _terms(unit)
            words = words.union(title_terms[0], heading_terms[0], header_terms[0])
            exact = exact.union(title_terms[1], heading_terms[1], header_terms[1])
            units.append(("\n".join([*labels, unit]), words, exact))
        previous = unit
    if not units:  # a passage that is only a title and headings: they are all it says
        piece = "\n".join([title, heading]).strip()
        units.append((piece, words_of(piece), exact_tokens(piece)))
        title_terms = nothing  # one unit, read as a whole
    return _Passage.build(_squash(f"{title}\n{text}"), units, title_terms)


_POLAR = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no|not|never|none|cannot|can't|cant|won't|n't)\b|n't\b", re.IGNORECASE)

#: A claim with at most this many content words of its own (numbers and identifiers aside)
#: is an answer fragment ("1", "10 years", "The answer is: 2"): it claims "<the question> is <this>".
FRAGMENT_WORDS = 2

#: Share of the question's content words that the span of an answer fragment must also hold.
QUESTION_FLOOR = 0.5


def claim_part(sentence: str, question: str) -> tuple[str | None, str]:
    """``(claim, why)``: the part of ``sentence`` that claims something, or ``None`` and why it claims nothing.

    A "yes"/"no" or a negation makes a sentence a claim even when it only repeats the question's
    words ("No, Nimbus does not offer that" asserts a fact; "The Business plan costs" does not).
    """
    if is_refusal(sentence):
        return None, "a refusal: claims nothing"
    text = sentence.strip()
    unnumbered = without_list_markers(text).strip()
    if _FRAME.match(unnumbered) or text.rstrip("*_ ").endswith("?"):
        return None, "a question, heading or framing line: claims nothing"
    if text.rstrip("*_ ").endswith(":"):
        return None, "a lead-in line ending with ':': claims nothing by itself"
    stripped = _LABEL.sub("", text, count=1).strip()
    polar = bool(_POLAR.match(stripped) or _NEGATION.search(stripped))
    words, asked = words_of(stripped), words_of(question)
    # Content words imply content tokens (dropping list numbers only removes tokens), so the
    # token test is needed only when there are no words ("1. the" has the token "1").
    if not words and not polar and not content_token_set(stripped):
        return None, "a bare label or no content words: claims nothing"
    if words <= asked and exact_tokens(stripped) <= exact_tokens(question) and not polar:
        return None, "repeats the question: claims nothing new"
    return stripped, ""


_NAME = re.compile(r"(?<=[\w,;:)] )[A-Z][\w-]*")


@lru_cache(maxsize=4096)
def key_terms(question: str) -> frozenset[str]:
    """The question's names: words written with a capital inside the sentence ("Enterprise", "Business").

    Memoised: every claim of every answer to a question asks for them.
    """
    return frozenset(w for name in _NAME.findall(question) for w in words_of(name))


#: Share of the question's content words that the span of a yes/no answer must hold.
POLAR_FLOOR = 0.75


@dataclass(frozen=True)
class _Claim:
    """What one claim requires of its span: its own words and exact tokens, and what of the question."""

    words: frozenset[str]
    exact: frozenset[str]
    question: frozenset[str]  # question words the span must hold as well ...
    question_share: float  # ... at least this share of them
    keys: frozenset[str]  # the question's names, all of which the span must hold
    negated: bool
    added: frozenset[str] = frozenset()  # an answer's words beyond the question's, all of which the span must hold

    def rank(self, text: str, words: frozenset[str], exact: frozenset[str]) -> tuple[int, int, int]:
        """How a span fits: exact tokens held, then words held (the question's too, names twice), then shortness."""
        asked = len(self.question & words) + 2 * len(self.keys & words)
        return (len(self.exact & exact), len(self.words & words) + asked, -len(text))


def _best_span(need: _Claim, passages: list[_Passage]) -> Span:
    """The span of highest :meth:`_Claim.rank`, the first one on a tie.

    Only the spans that can win are ranked: a span holding none of the claim's terms
    beyond its passage title holds just what the title gives every span of the passage,
    so it ranks at most level with the passage's first shortest span, which is always ranked.
    """
    terms = need.words | need.question | need.keys | need.exact
    candidates = (
        (index, unit)
        for index, passage in enumerate(passages)
        for i, unit in enumerate(passage.units)
        if i == passage.shortest or not terms.isdisjoint(passage.beyond_title[i])
    )
    index, unit = max(candidates, key=lambda candidate: need.rank(*candidate[1]))  # max keeps the first best
    return Span(index, *unit)


def _requirements(claim: str, question: str) -> tuple[_Claim, str]:
    """Which rule a claim falls under, and what its span must hold.

    * a yes/no answer claims the question's statement: the span must hold
      :data:`POLAR_FLOOR` of the question's words and all its names;
    * an answer fragment ("1", "10 years": at most :data:`FRAGMENT_WORDS` words of its own)
      claims "<question> is <fragment>": the span must hold the fragment, :data:`QUESTION_FLOOR`
      of the question's words and all its names;
    * an answer to the question (most of its words come from the question) needs the question's
      names in its span ("The version history is kept for 7 days" asked of Enterprise is not
      supported by the Free plan's row) and every word it adds to the question ("20 *extra*
      requests per minute", "10 *euros*");
    * any other claim is judged on all its words.
    """
    words, exact, asked = words_of(claim), exact_tokens(claim), words_of(question)
    negated = bool(_NEGATION.search(claim))
    own = words - exact
    keys = key_terms(question) - words
    if _POLAR.match(claim):
        return _Claim(words, exact, asked - words, POLAR_FLOOR, keys, negated), "a yes/no answer"
    if len(own) <= FRAGMENT_WORDS:
        return _Claim(words, exact, asked - words, QUESTION_FLOOR, keys, negated), "an answer fragment"
    if len(own & asked) * 2 >= len(own):
        return _Claim(words, exact, frozenset(), 0.0, keys, negated, added=(words - asked) | exact), (
            "an answer to the question"
        )
    return _Claim(words, exact, frozenset(), 0.0, frozenset(), negated), "a claim"


def judge_span(sentence: str, context: ScoringContext) -> SentenceVerdict:
    """The span scorer's verdict on one sentence (see the module docstring for the rules).

    ``coverage`` is the share of the sentence's words and exact tokens that the best span
    holds; ``missing`` lists the exact tokens and then the words it lacks.
    """
    tokens = tuple(content_token_list(sentence))
    claim, why = claim_part(sentence, context.question)
    if claim is None:
        return SentenceVerdict(sentence, tokens, (), None, None, refusal=is_refusal(sentence), reason=why)
    squashed = _squash(claim).rstrip(".")
    passages = [_passage(title, text) for title, text in context.passages]
    if len(squashed) >= 12 and any(squashed in passage.squashed for passage in passages):
        return SentenceVerdict(sentence, tokens, (), 1.0, True, span=claim, reason="copied verbatim from the context")
    need, kind = _requirements(claim, context.question)
    if not passages:
        return SentenceVerdict(sentence, tokens, tuple(sorted(need.words)), 0.0, False, reason="no context to check")
    best = _best_span(need, passages)
    words, exact = need.words, need.exact
    missing_words = tuple(sorted(words - best.words))
    missing_exact = tuple(sorted(exact - best.exact))
    missing_question = tuple(sorted(need.question - best.words))
    missing_keys = tuple(sorted(need.keys - best.words))
    missing_added = tuple(sorted(need.added - best.words - best.exact))
    share = (len(words) - len(missing_words)) / len(words) if words else 1.0
    asked_share = 1.0 - len(missing_question) / len(need.question) if need.question else 1.0
    negation_ok = not need.negated or bool(_NEGATION.search(best.text))
    checked = len(words | exact | need.question | need.keys)
    lacking = set(missing_words) | set(missing_exact) | set(missing_question) | set(missing_keys)
    score = (checked - len(lacking)) / checked if checked else 1.0
    supported = (
        not missing_exact
        and share >= SPAN_FLOOR
        and not missing_added
        and asked_share >= need.question_share
        and not missing_keys
        and negation_ok
    )
    where = f"passage [{best.passage + 1}]"
    held = f"{len(words) - len(missing_words)}/{len(words)} content words = {share:.2f}"
    if supported:
        reason = f"{kind}: one span of {where} holds {held} and every number and identifier"
        if need.question:
            reason += f", with the question's {', '.join(sorted(need.question & best.words)) or 'subject'}"
    elif missing_exact:
        reason = (
            f"{kind}: no span of the context holds {', '.join(missing_exact)} together with the claim ({where}: {held})"
        )
    elif missing_added:
        reason = f"{kind}: the span ({where}) lacks what the answer adds to the question: {', '.join(missing_added)}"
    elif share < SPAN_FLOOR:
        reason = f"{kind}: the best span ({where}) holds only {held} < {SPAN_FLOOR:.2f}"
    elif missing_keys:
        reason = f"{kind}: the span holding it ({where}) is about something else (lacks {', '.join(missing_keys)})"
    elif asked_share < need.question_share:
        reason = (
            f"{kind}: the span holding it ({where}) is not about the question (lacks {', '.join(missing_question)})"
        )
    else:
        reason = f"{kind}: a negative claim, but the span holding its words ({where}) says nothing negative"
    rest = missing_keys + missing_words + missing_question
    missing = missing_exact + tuple(dict.fromkeys(w for w in rest if w not in missing_exact))
    return SentenceVerdict(sentence, tokens, missing, score, supported, span=best.text, reason=reason)


class SpanSupportScorer:
    """Registered as ``span``: support by the best local span, exact numbers and identifiers, claims only."""

    name = "span"
    version = "1"
    floor = SPAN_FLOOR  # the share of content words at which a span supports a claim

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        return judge_span(sentence, context)


__all__ = [
    "FRAGMENT_WORDS",
    "QUESTION_FLOOR",
    "SPAN_FLOOR",
    "key_terms",
    "SpanSupportScorer",
    "claim_part",
    "exact_tokens",
    "judge_span",
    "stem",
]

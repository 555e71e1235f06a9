"""Sentence splitting and tokenisation shared by the chunkers and the scorers.

These rules are deliberately simple and written out, so that every coverage
number can be recomputed by hand from the strings alone:

* text is case folded, curly quotes become straight ones and characters a reader does not see (a soft
  hyphen, a zero-width joiner) are dropped (:func:`fold`);
* a token is a run of letters (with inner apostrophes, ``don't``) or a number
  (``2.5``, ``1,000``; thousands separators are dropped so ``1,000`` == ``1000``);
  ``$12`` and ``12%`` both give the token ``12``;
* content tokens are tokens that are not in :data:`evalgate_lib.text.stopwords.STOPWORDS`;
  numbers are always content;
* a sentence ends at ``.``, ``!`` or ``?`` followed by whitespace and an upper-case
  letter, a digit or an opening quote/bracket; every line break also ends one
  (Markdown headings, list items and table rows are sentences of their own);
  a list marker such as ``1.`` or ``b)`` at the start of a line is not a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from evalgate_lib.text.stopwords import STOPWORDS

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z]+(?:'[a-z]+)*")
_LINE = re.compile(r"[^\n]+")
#: A sentence end: a run of ``.!?`` (matched from the run's first character only: the lookbehind keeps
#: the search from retrying every position inside a long run of dots, which made a line of table-of-contents
#: leaders quadratic; a match can only end where the run ends, so the ends found are the same).
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]+[\"')\]\u201d\u2019]*(?=\s+[A-Z0-9\"'(\[*\u201c\u2018])")
_LIST_MARKER = re.compile(r"(?:[-*+]\s*)?(?:\d+|[A-Za-z])[.)]")
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
#: Characters a reader does not see inside a word, dropped by :func:`fold`: the soft hyphen (a hint where a word
#: may break), the zero-width space, non-joiner and joiner, the word joiner and the zero-width no-break space.
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_FOLD = {**_CURLY, **dict.fromkeys(map(ord, INVISIBLE))}


def _normalise_number(token: str) -> str:
    """Drop thousands separators: ``1,000`` → ``1000`` but ``2.5`` stays ``2.5``."""
    if token[0].isdigit() and "," in token:
        return token.replace(",", "")
    return token


def fold(text: str) -> str:
    """``text`` as a reader compares it: case folded, curly quotes straightened, invisible characters dropped, accents
    composed (NFC); ASCII text, the common case, is only lower-cased.

    Composed, so an accented letter is one token character however it was typed: "café" spelled with a
    combining accent (NFD, as macOS and some copy-paste paths give it) reads as the same word as "café".
    Case folded (``str.casefold``, not ``lower``), so "STRASSE" and "Straße" are one word, as a reader
    takes them; a soft hyphen or a zero-width joiner inside a word (:data:`INVISIBLE`) is not seen.
    """
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFC", text.translate(_FOLD).casefold())


def tokenize(text: str) -> list[str]:
    """All tokens of ``text`` in order (lower-cased, numbers normalised)."""
    lowered = fold(text)
    # Same as _normalise_number on every token, inlined (this is the scoring hot path):
    # only a number token can hold a comma, since word tokens are letters and apostrophes.
    return [t.replace(",", "") if "," in t else t for t in _TOKEN.findall(lowered)]


def token_spans(text: str) -> list[tuple[int, int, str]] | None:
    """Every token of ``text`` with its character span: ``(start, end, token)``, token as :func:`tokenize` gives it.

    For marking tokens inside the original string (the report's found / not-found
    view). ``None`` in the rare case where lower-casing changes the string's length
    (some non-ASCII letters), since spans would then not line up.
    """
    lowered = fold(text)
    if len(lowered) != len(text):
        return None
    return [(m.start(), m.end(), _normalise_number(m.group())) for m in _TOKEN.finditer(lowered)]


def content_token_list(text: str) -> list[str]:
    """Content tokens of ``text`` in first-seen order, without repeats."""
    return [t for t in dict.fromkeys(tokenize(text)) if t not in STOPWORDS]


@lru_cache(maxsize=65536)
def content_tokens(text: str) -> frozenset[str]:
    """Set of content tokens of ``text`` (equal to ``frozenset(content_token_list(text))``).

    Cached because the same retrieved chunks form the context of many answers;
    scoring throughput is dominated by tokenising contexts. A token never spans a
    line break, so the set is the union of the sets of the lines, and each line is
    tokenised once per process however many contexts it appears in.
    """
    lines = text.split("\n")
    if len(lines) == 1:
        return _line_content_tokens(text)
    return frozenset().union(*map(_line_content_tokens, lines))


@lru_cache(maxsize=262144)
def _line_content_tokens(line: str) -> frozenset[str]:
    """Content tokens of one line (memoised: the same lines recur in many contexts)."""
    return content_token_set(line)


def distinct_tokens(text: str) -> frozenset[str]:
    """``frozenset(tokenize(text))``: each distinct raw token is normalised once, not every occurrence."""
    lowered = fold(text)
    if "," not in lowered:  # no thousands separator to drop: the common case skips a step per token
        return frozenset(_TOKEN.findall(lowered))
    return frozenset([t.replace(",", "") if "," in t else t for t in set(_TOKEN.findall(lowered))])


def content_token_set(text: str) -> frozenset[str]:
    """``frozenset(content_token_list(text))``, without the memo of :func:`content_tokens`.

    For strings a caller tokenises once and memoises itself: it skips building the
    ordered list and stopword-tests each distinct token once.
    """
    return distinct_tokens(text) - STOPWORDS


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, whitespace trimmed."""
    return _sentence_spans(text, _SENTENCE_END)


def _run_start(*abbreviations: str) -> str:
    """Where a match of a run of ``.!?`` may start: at the run's first character, unless an abbreviation ends there.

    Searching from every character inside a long run of dots (an answer ending in 100,000 of them) made
    the search quadratic: each start scanned the rest of the run to fail at its end. A match can only
    end where the run ends, so starting at the run's first character finds the same ends; the one start
    inside a run that the older patterns reached is the character after an abbreviation's full stop
    ("e.g.." ends a sentence at its second dot), kept by the lookbehinds after the ``|``.
    """
    blocked = "".join(f"(?<!\\b{a})" for a in abbreviations)
    after = "".join(f"|(?<=\\b{a}[.!?])" for a in abbreviations)
    return f"(?:(?<![.!?]){blocked}{after})"


#: Where an answer's sentence ends, for the judge: as :data:`_SENTENCE_END`, and also before a Markdown
#: code span or bold opening ("… in one go. `pip cache dir` prints it."). Chunking keeps the older rule,
#: so prompts (and the cached answers they key) never change with the judge. Linear in a run of dots
#: (:func:`_run_start`).
_ANSWER_SENTENCE_END = re.compile(
    _run_start(r"e\.g", r"i\.e", "eg", "ie")
    + r"[.!?]+[\"')\]\u201d\u2019*_]*(?=\s+(?:[A-Z0-9\"'(\[*\u201c\u2018]|`[^`\s]))"
)


_FENCE_LINE = re.compile(r"^\s*(?:```|~~~)")


@lru_cache(maxsize=16384)
def answer_sentences(text: str) -> tuple[str, ...]:
    """The sentences of an answer as the judge reads them (lines, then sentence ends; see :data:`_ANSWER_SENTENCE_END`).

    A line inside a fenced code block is one sentence however many full stops its string literals hold.
    Memoised: correctness, support and the review queue all read the same answer's sentences.
    """
    if "```" not in text and "~~~" not in text:
        return tuple(text[s:e] for s, e in _sentence_spans(text, _ANSWER_SENTENCE_END))
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if _FENCE_LINE.match(line):
            inside = not inside
            if line.strip():
                out.append(line.strip())
        elif inside:
            if line.strip():
                out.append(line.strip())
        else:
            out.extend(line[s:e] for s, e in _sentence_spans(line, _ANSWER_SENTENCE_END))
    return tuple(out)


def _sentence_spans(text: str, end_pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        start, stop = line.span()
        body = line.group()
        if not end_pattern.search(body):  # most lines (headings, list items, table rows) are one sentence
            _append_trimmed(body, start, spans)
            continue
        cursor = start
        for cut in [m.end() for m in end_pattern.finditer(body)] + [len(body)]:
            end = start + cut
            if end < stop and _LIST_MARKER.fullmatch(text[cursor:end].strip()):
                continue  # "1. Open the console": the number belongs to the sentence it numbers
            _append_trimmed(text[cursor:end], cursor, spans)
            cursor = end
    return spans


def _append_trimmed(piece: str, offset: int, spans: list[tuple[int, int]]) -> None:
    """Append the span of ``piece`` (found at ``offset``) without its surrounding whitespace, unless it is all space.

    ``str.lstrip``/``rstrip`` strip exactly the characters ``str.isspace`` accepts, in C
    rather than one Python step per space.
    """
    left = piece.lstrip()
    if left:
        start = offset + len(piece) - len(left)
        spans.append((start, start + len(left.rstrip())))


@lru_cache(maxsize=16384)
def sentences_of(text: str) -> tuple[str, ...]:
    """Sentences of ``text`` as a tuple, memoised: scoring splits each answer twice
    (the refusal rule reads its first sentence, groundedness reads all)."""
    return tuple(text[s:e] for s, e in sentence_spans(text))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (see the module docstring for the rule)."""
    return list(sentences_of(text))


_PLAIN_SENTENCE_END = re.compile(
    _run_start(r"e\.g", r"i\.e", "eg", "ie", "etc", "vs") + r"[.!?]+[\"')\]\u201d\u2019]*\s+"
)
_SENTENCE_START = re.compile(r"[A-Z0-9\"'(\[*\u201c\u2018]")


def split_plain_sentences(text: str, code_starts: tuple[int, ...] = (), code: tuple[str, ...] = ()) -> list[str]:
    """Sentences of one block's plain text (its markup already read), for the judge, never for chunking.

    The rule of :func:`sentence_spans`, with two additions the markup reading allows: a sentence may
    also start with a code span (``code_starts``: "… in one go. `pip cache dir` prints it."), which
    raw text cannot tell from a lower-case word; and no sentence ends inside a code span (``code``, the
    spans' text in the order of ``code_starts``: "`pip install foo... Then`" is one example, not two
    sentences). "e.g.", "i.e.", "eg.", "ie.", "etc." and "vs." never end a sentence.
    """
    out: list[str] = []
    cursor = 0
    starts = set(code_starts)
    inside = [(start, start + len(span)) for start, span in zip(code_starts, code, strict=False)]
    for match in _PLAIN_SENTENCE_END.finditer(text):
        end = match.end()
        if end >= len(text):
            break
        if any(a <= match.start() and end < b for a, b in inside):  # the stop and the space after it are code
            continue
        if not (_SENTENCE_START.match(text, end) or end in starts):
            continue
        piece = text[cursor:end].strip()
        if piece and not _LIST_MARKER.fullmatch(piece):
            out.append(piece)
            cursor = end
    rest = text[cursor:].strip()
    if rest:
        out.append(rest)
    return out

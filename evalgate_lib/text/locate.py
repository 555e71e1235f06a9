"""Finding a passage in an article body, exactly or up to whitespace, and naming its line.

Gold evidence is an exact substring of the article body (that is how the pipeline
locates it), but passages copied out of another tool (a RAGAS ``contexts`` cell, a
chunk with its line breaks joined) often differ only in whitespace. Matching
whitespace-insensitively and then taking the body's own text for the match turns
such a passage into valid evidence without ever inventing text the article lacks.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence


def line_of(text: str, index: int) -> int:
    """1-based line number of character ``index`` of ``text``."""
    return text.count("\n", 0, index) + 1


def find_exact(body: str, passage: str) -> tuple[int, int] | None:
    """Span of the first exact occurrence of ``passage`` in ``body`` (the pipeline's evidence rule), else ``None``."""
    start = body.find(passage)
    return None if start < 0 or not passage else (start, start + len(passage))


def loose_pattern(passage: str, flags: int = 0) -> re.Pattern[str] | None:
    """A pattern for ``passage`` in which any run of whitespace matches any other run (``None``: no text).

    The one definition of "the same text up to how its whitespace is laid out": a line break where a
    page once had a space, an indentation a newer reading of the HTML dropped. Its match in a body is the
    body's own spelling of the passage, so a span found with it maps back to the body's characters.
    """
    words = passage.split()
    if not words:
        return None
    return re.compile(r"\s+".join(map(re.escape, words)), flags)


def find_loose(body: str, passage: str) -> tuple[int, int] | None:
    """Span of the first occurrence of ``passage`` in ``body`` where any run of whitespace matches any other.

    ``None`` for a passage with no non-space text. ``body[start:end]`` is then the
    article's own spelling of the passage, an exact substring usable as evidence.
    """
    pattern = loose_pattern(passage)
    found = pattern.search(body) if pattern is not None else None
    return (found.start(), found.end()) if found else None


def find_evidence(body: str, passage: str) -> tuple[int, int] | None:
    """Where gold evidence (or a logged passage) lies in an article ``body``: the one way EvalGate locates it.

    The first exact occurrence, else the first whitespace-insensitive one (:func:`find_loose`), as a span of
    ``body``'s own characters. A gold set written against an earlier reading of an HTML page differs from
    today's body only in its line breaks and indentation; it still names the same text, so it is still found.
    """
    return find_exact(body, passage) or find_loose(body, passage)


def count_evidence(body: str, passage: str) -> int:
    """How many times ``passage`` occurs in ``body`` whitespace-insensitively (non-overlapping), as
    :func:`find_evidence` would find it: a repeated evidence string is ambiguous however its spaces are laid out."""
    pattern = loose_pattern(passage)
    return 0 if pattern is None else sum(1 for _ in pattern.finditer(body))


#: A piece of a passage must be at least this many characters (whitespace runs counted as one) to be
#: placed in an article: shorter runs match by chance ("the", "of the ") and are read as joining text.
MIN_PIECE = 24

#: At most this many non-space characters of a passage may sit between (or around) its pieces and be
#: found in no article: separators such as "...", "[…]", "---" or "Source: json". More is text the
#: articles do not hold, and the passage is not a concatenation of their spans.
MAX_JOIN = 40


@dataclass(frozen=True)
class Piece:
    """One span ``[start, end)`` of one article's body inside a passage."""

    article_id: str
    start: int
    end: int


@dataclass(frozen=True)
class Assembly:
    """A passage made of spans of one or more articles, in passage order, and the text that joins them.

    ``joins`` has one more entry than ``pieces``: the passage's text before the first piece, between
    each two, and after the last (separators no article holds, often empty or a line break). With
    each piece spelled as its article has it, the passage is
    ``joins[0] + piece 1 + joins[1] + … + piece n + joins[n]`` (:meth:`text`).
    """

    pieces: tuple[Piece, ...]
    joins: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.pieces or len(self.joins) != len(self.pieces) + 1:
            raise ValueError(
                f"an assembly needs pieces and one join more than pieces, got {len(self.pieces)}/{len(self.joins)}"
            )

    @property
    def articles(self) -> tuple[str, ...]:
        """The articles the pieces come from, in order of first appearance."""
        return tuple(dict.fromkeys(p.article_id for p in self.pieces))

    def text(self, bodies: Mapping[str, str]) -> str | None:
        """The passage rebuilt from ``bodies`` (article id → body); ``None`` when one of its articles is missing."""
        if any(p.article_id not in bodies for p in self.pieces):
            return None
        parts = [self.joins[0]]
        for piece, join in zip(self.pieces, self.joins[1:], strict=True):
            parts += [bodies[piece.article_id][piece.start : piece.end], join]
        return "".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"pieces": [[p.article_id, p.start, p.end] for p in self.pieces], "joins": list(self.joins)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Assembly:
        return cls(tuple(Piece(str(a), int(s), int(e)) for a, s, e in data["pieces"]), tuple(data["joins"]))


@dataclass(frozen=True)
class _Folded:
    """A text with every whitespace run as one space, and how to find a kept character's index in the original.

    From folded index ``keys[k]`` on, the original index is the folded one plus ``shifts[k]``
    (a breakpoint after each whitespace run longer than one character), so the map costs a few
    integers per article, not one per character.
    """

    text: str
    keys: tuple[int, ...]
    shifts: tuple[int, ...]

    def original(self, index: int) -> int:
        return index + self.shifts[bisect.bisect_right(self.keys, index) - 1]


@functools.lru_cache(maxsize=4096)
def _fold(text: str) -> _Folded:
    """:class:`_Folded` of ``text`` (kept per body: a corpus's articles are folded once, not once per passage)."""
    parts: list[str] = []
    keys, shifts = [0], [0]
    shift = last = 0
    for run in re.finditer(r"\s+", text):
        parts += [text[last : run.start()], " "]
        if run.end() - run.start() > 1:
            shift += run.end() - run.start() - 1
            keys.append(run.end() - shift)
            shifts.append(shift)
        last = run.end()
    parts.append(text[last:])
    return _Folded("".join(parts), tuple(keys), tuple(shifts))


def _longest_prefix(body: str, text: str, start: int, least: int) -> int:
    """The length of the longest prefix of ``text[start:]`` that ``body`` holds (0 if shorter than ``least``).

    ``text[start:]`` is at least ``least`` characters long.

    Holding a prefix implies holding every shorter one, so a binary search over the length finds it.
    """
    if text[start : start + least] not in body:
        return 0
    low, high = least, len(text) - start
    while low < high:
        mid = (low + high + 1) // 2
        if text[start : start + mid] in body:
            low = mid
        else:
            high = mid - 1
    return low


def _starts_a_piece(text: str, i: int) -> bool:
    """A piece starts on a token boundary: after a space, or a letter or digit after punctuation.

    So a separator such as "..." is never the head of a piece (its last dot matched to the full stop
    of the sentence before).
    """
    return i == 0 or text[i - 1] == " " or (text[i].isalnum() and not text[i - 1].isalnum())


def assemble(
    passage: str, bodies: Sequence[tuple[str, str]], min_piece: int = MIN_PIECE, max_join: int = MAX_JOIN
) -> Assembly | None:
    """The passage as spans of the articles ``bodies`` (``(article id, body)``, preferred first), else ``None``.

    For a retriever that merges chunks or returns paragraphs that are not adjacent: reading the
    passage from the left, each piece is the longest run of it (whitespace ignored) that one article
    holds, at least ``min_piece`` characters long and starting on a token boundary, the earlier
    article winning a tie; what no article
    holds is joining text, at most ``max_join`` non-space characters at a time. Each piece is then
    the article's own spelling of that run (its span in the body). ``None`` when some run of joining
    text is longer, or nothing is placed: the passage holds text the articles do not.
    """
    folded = _fold(passage)
    text = folded.text
    bodies_folded = [(article_id, _fold(body)) for article_id, body in bodies]
    pieces: list[Piece] = []
    bounds: list[tuple[int, int]] = []  # each piece's span in the passage
    join = 0  # non-space characters of the joining text since the last piece
    i = 0
    while i < len(text):
        if text[i] == " ":
            i += 1
            continue
        best, best_at = 0, -1
        if len(text) - i >= min_piece and _starts_a_piece(text, i):
            for index, (_, body) in enumerate(bodies_folded):
                length = _longest_prefix(body.text, text, i, min_piece)
                if length > best:
                    best, best_at = length, index
        if best < min_piece:
            join += 1
            if join > max_join:
                return None
            i += 1
            continue
        run = text[i : i + best].rstrip(" ")
        article_id, body = bodies_folded[best_at]
        at = body.text.find(run)
        pieces.append(Piece(article_id, body.original(at), body.original(at + len(run) - 1) + 1))
        bounds.append((folded.original(i), folded.original(i + len(run) - 1) + 1))
        join = 0
        i += best
    if not pieces:
        return None
    edges = [0, *(x for span in bounds for x in span), len(passage)]
    joins = tuple(passage[edges[k] : edges[k + 1]] for k in range(0, len(edges), 2))
    return Assembly(tuple(pieces), joins)

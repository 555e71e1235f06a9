"""Chunkers: how an article is cut into the passages the retriever can return.

Chunking is one of the two things the configurations may differ in, so every
chunker is a pure function of (article, parameters) and every chunk keeps where
it came from: article id, position within the article, and the exact character
span of the article body, so ``article.body[chunk.start:chunk.end] == chunk.text``.
That span is what chunk-level retrieval metrics check evidence against.

Every built-in chunker reads the structure it cuts: a code block (fenced, or indented, as
CommonMark reads a Markdown or HTML article; :func:`code_blocks`) is one unit, so no chunk
starts or ends inside one unless the block alone is longer than a chunk may be (then it is cut
between its lines, and a warning says so), and a ``#`` line inside it is code, never a heading.
"""

from __future__ import annotations

import bisect
import difflib
import inspect
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from evalgate_lib.chunks.custom import check_params, is_custom, load_chunker, spans_of
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.text.locate import Assembly
from evalgate_lib.text.markup import code_block_spans, format_of_name
from evalgate_lib.text.tokens import sentence_spans

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Chunk:
    """A passage of one article, with its provenance.

    A passage logged by another pipeline (``evalgate score``) may instead be made of spans of one or
    more articles: ``assembly`` then names each span and the text joining them, and ``start`` and
    ``end`` are -1 (no single span holds it).
    """

    article_id: str
    title: str
    position: int
    start: int
    end: int
    text: str
    assembly: Assembly | None = None

    @property
    def chunk_id(self) -> str:
        """Stable id, unique within one chunking of a corpus."""
        return f"{self.article_id}#{self.position}"

    @property
    def spans(self) -> tuple[tuple[str, int, int], ...]:
        """``(article_id, start, end)`` of the text the passage holds: its one span, or each piece of its assembly."""
        if self.assembly is None:
            return ((self.article_id, self.start, self.end),)
        return tuple((p.article_id, p.start, p.end) for p in self.assembly.pieces)

    @property
    def articles(self) -> tuple[str, ...]:
        """The articles the passage draws on: its own, then those of its assembly's pieces."""
        return tuple(dict.fromkeys((self.article_id, *(self.assembly.articles if self.assembly else ()))))


#: Lines that carry no text of their own: headings, MyST labels ``(name)=``, directive
#: fences (```` ``` ````, ```` ```{note} ````, ``:::``), HTML comments, reST labels ``.. _name:``.
_MARKUP_ONLY = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t].*|\(.+\)=|`{3,}.*|~{3,}.*|:{3,}.*|<!--.*?-->|\.\. _[^:]+:)[ \t]*$", re.MULTILINE
)


def _without_comments(text: str) -> str:
    """``text`` without its closed HTML comments (``<!-- ... -->``, across lines), in linear time.

    What ``re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)`` gives, without its search from
    every ``<!--`` to the end of a text that never closes one (quadratic on a long line of them).
    """
    kept, cursor = [], 0
    while (start := text.find("<!--", cursor)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        kept.append(text[cursor:start])
        cursor = end + 3
    kept.append(text[cursor:])
    return "".join(kept)


def carries_text(text: str) -> bool:
    """False for a passage made only of markup (headings, labels, fences, comments): no chunk of its own."""
    return bool(_MARKUP_ONLY.sub("", _without_comments(text)).strip())


#: A line that is markup whatever follows on it: a heading's ``#`` or a fence's ``````, ``~~~``, ``:::``.
_MARKUP_PREFIX = re.compile(r"[ \t]*(?:#{1,6}[ \t]|`{3}|~{3}|:{3})")


def _settled(body: str, start: int, end: int) -> int:
    """The last line start in ``body[start:end]`` whose line break no comment holds (``start`` when none).

    Comments pair as :func:`_without_comments` pairs them (an opener with the first ``-->`` after
    it; one left open runs to ``end``). Before such a line start, removing comments never joins a
    line to what follows, so the lines there are read for good.
    """
    spans: list[tuple[int, int]] = []
    cursor = start
    while (opener := body.find("<!--", cursor, end)) >= 0:
        closer = body.find("-->", opener + 4, end)
        spans.append((opener, end if closer < 0 else closer + 3))
        if closer < 0:
            break
        cursor = closer + 3
    line = body.rfind("\n", start, end) + 1
    opens = [o for o, _ in spans]
    while line > start:
        at = bisect.bisect_right(opens, line - 1) - 1
        if at < 0 or not spans[at][0] <= line - 1 < spans[at][1]:
            return line
        line = body.rfind("\n", start, spans[at][0]) + 1  # before the comment that holds it
    return start


class _MarkupRun:
    """Whether ``body[start:end]`` carries text, for one ``start`` and growing ends, in linear time overall.

    Spans of markup only are merged into the next span, so while they run on (a 1 MB line of ``# #
    # …``, thousands of heading-only sections) the same growing text is asked again: read whole
    each time, that was quadratic (1 MB: 5 s; 5 MB: two minutes). The answer is the one
    :func:`carries_text` gives; what is known is kept instead of read again:

    * ``base``: a line start at or after ``start`` before which every line is markup (or blank) and no
      comment runs on past it, so only ``body[base:end]`` can still carry text (:func:`_settled`);
    * ``head``: the line at ``base`` (no line break after it yet) opens like a heading or a fence,
      which makes it markup whatever follows on that line; more of that line changes nothing.

    One shape stays slow: a comment opened in a markup line and never closed, followed by many
    more markup spans (each is read again from that comment's line).
    """

    def __init__(self, body: str, start: int) -> None:
        self.body, self.start, self.base, self.end, self.head = body, start, start, start, False

    def carries_text(self, end: int) -> bool:
        body = self.body
        if end < self.end:  # an end that went back (a team's own chunker): read it whole, as before
            return carries_text(body[self.start : end])
        if self.head and body.find("\n", self.end, end) < 0:
            self.end = end
            return False
        if carries_text(body[self.base : end]):
            return True
        self.base, self.end = _settled(body, self.base, end), end
        self.head = body.find("\n", self.base, end) < 0 and bool(_MARKUP_PREFIX.match(body, self.base, end))
        return False


def _make(article: Article, spans: Iterable[tuple[int, int]]) -> list[Chunk]:
    """Chunks of ``article`` over ``spans``; a span of markup only is merged into the next one (or the last).

    A MyST label line or a heading-only section would otherwise be a chunk the retriever
    can return with nothing in it. A run of such spans is read once, not once per span
    (:class:`_MarkupRun`).
    """
    body = article.body
    merged: list[tuple[int, int]] = []
    pending: int | None = None
    run: _MarkupRun | None = None
    end = 0
    visible = -1  # a non-space character of the pending markup: a span holding it is not blank
    for start, end in spans:
        if pending is not None:
            start, pending = min(start, pending), None
            if not start <= visible < end and not body[start:end].strip():
                continue  # a span that went back before the pending markup, and blank: it is dropped, as before
            if run is None or run.start != start:
                run = _MarkupRun(body, start)
            if not run.carries_text(end):
                pending = start
                continue
            run = None
            merged.append((start, end))
            continue
        if not body[start:end].strip():
            continue
        if not carries_text(body[start:end]):
            pending, run = start, _MarkupRun(body, start)
            visible = start + len(body[start:end]) - len(body[start:end].lstrip())
            run.carries_text(end)
            continue
        merged.append((start, end))
    if pending is not None:
        if merged:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((pending, end))
    return [Chunk(article.id, article.title, i, s, e, body[s:e]) for i, (s, e) in enumerate(merged)]


def _windows(units: Sequence[tuple[int, ...]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Spans covering ``size`` consecutive units (words or sentences), each ``size - overlap`` units
    after the previous; the last window ends at the last unit, so nothing is dropped.

    A unit may weigh more than one (``(start, end, weight)``: a code block of that many words or sentences,
    :func:`_fused`): a window then holds units up to ``size`` of weight (at least one unit), and the next one
    starts at the first unit at least ``size - overlap`` of weight after it. With every weight 1 these are the
    windows of ``size`` units every ``size - overlap`` units."""
    weights = [unit[2] if len(unit) > 2 else 1 for unit in units]
    spans: list[tuple[int, int]] = []
    first = 0
    while first < len(units):
        last, total = first, 0
        while last < len(units) and (last == first or total + weights[last] <= size):
            total += weights[last]
            last += 1
        spans.append((units[first][0], units[last - 1][1]))
        if last >= len(units):
            break
        step, following = 0, first
        while following < len(units) and step < size - overlap:
            step += weights[following]
            following += 1
        first = min(max(following, first + 1), last)  # never past the window's end: no unit is skipped
    return spans


def code_blocks(article: Article) -> tuple[tuple[int, int], ...]:
    """Character spans of the article's code blocks, as CommonMark reads a Markdown, plain-text or HTML article
    (:func:`~evalgate_lib.text.markup.code_block_spans`). None for reStructuredText, whose literal blocks no
    Markdown reading finds (an indented directive body would read as code): its chunks are cut as before."""
    if format_of_name(article.path) == "rst":
        return ()
    return code_block_spans(article.body)


def _block_at(blocks: Sequence[tuple[int, int]], start: int, end: int) -> int | None:
    """The index of the code block that ``[start, end)`` overlaps, if any."""
    at = bisect.bisect_left(blocks, (end,)) - 1  # the last block that starts before ``end`` (blocks never overlap)
    return at if at >= 0 and start < blocks[at][1] else None


def _fused(
    units: Sequence[tuple[int, int]], blocks: Sequence[tuple[int, int]], size: int, article: Article, what: str
) -> list[tuple[int, ...]]:
    """``units`` with the ones inside one code block fused into one unit that weighs as many (``(start, end,
    weight)``), so a window never starts or ends inside the block; a block of more than ``size`` units stays cut
    between them, and a warning says so."""
    if not blocks:
        return list(units)
    out: list[tuple[int, ...]] = []
    group: list[tuple[int, int]] = []
    group_block: int | None = None

    def flush() -> None:
        if not group:
            return
        if len(group) <= size:
            out.append((group[0][0], group[-1][1], len(group)))
        else:
            _say_cut(article, len(group), what, size)
            out.extend(group)
        group.clear()

    for unit in units:
        block = _block_at(blocks, unit[0], unit[1])
        if block is None or block != group_block:
            flush()
            group_block = block
        if block is None:
            out.append(unit)
        else:
            group.append(unit)
    flush()
    return out


def _say_cut(article: Article, count: int, what: str, size: int) -> None:
    log.warning(
        "chunking: %s: a code block of %d %s is longer than a chunk may be (%d): it is cut between its lines",
        article.id,
        count,
        what,
        size,
    )


def fixed_size(article: Article, size: int = 200, overlap: int = 40) -> list[Chunk]:
    """Windows of ``size`` words, each starting ``size - overlap`` words after the last.

    Words are whitespace-separated runs; the span runs from the first word's first
    character to the last word's last character, so a chunk never cuts a word but
    freely cuts sentences, tables and sections, which is the point of the baseline.
    """
    if size <= 0 or not 0 <= overlap < size:
        raise InputError(f"fixed chunker needs size > 0 and 0 <= overlap < size, got size={size} overlap={overlap}")
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", article.body)]
    return _make(article, _windows(_fused(words, code_blocks(article), size, article, "words"), size, overlap))


_HEADING = re.compile(r"^(#{1,6})\s+\S.*$", re.MULTILINE)
#: An article's first section that holds, beside its heading, at most one line of at most this many words (the
#: page's title and subtitle: ``# MkDocs Installation`` / ``A detailed guide.``) and is followed by a subsection of
#: its own is a heading-only lead: no passage of its own, it is joined to what follows.
LEAD_WORDS = 8


def markdown_sections(article: Article, max_words: int = 400) -> list[Chunk]:
    """One chunk per Markdown section (a heading and the text up to the next heading).

    A section longer than ``max_words`` words is split at blank lines (paragraph
    boundaries) into pieces of at most ``max_words`` words, so a long section does
    not drown the embedding; a paragraph longer than that is split between its
    sentences, and a sentence longer than that every ``max_words`` words. Text before
    the first heading is a section of its own. A code block is one piece (a ``#`` line in
    it is code, not a heading), cut between its lines only when it alone is longer than
    ``max_words`` (a warning says so); a heading-only lead (:data:`LEAD_WORDS`) is joined
    to the section that follows it.
    """
    if max_words <= 0:
        raise InputError(f"markdown chunker needs max_words > 0, got {max_words}")
    body = article.body
    blocks = code_blocks(article)
    headings = [m for m in _HEADING.finditer(body) if _block_at(blocks, m.start(), m.start() + 1) is None]
    starts = sorted({0, *(m.start() for m in headings)})
    bounds = _without_thin_leads(body, list(zip(starts, starts[1:] + [len(body)], strict=True)))
    spans: list[tuple[int, int]] = []
    for start, end in bounds:
        spans.extend(_split_long_section(body, start, end, max_words, blocks, article))
    return _make(article, [_trim(body, s, e) for s, e in spans])


def _level(body: str, start: int) -> int:
    """The level of the heading a section starts with (its ``#`` count), 0 when it starts with none."""
    found = _HEADING.match(body, start)
    return len(found.group(1)) if found else 0


def _is_thin_lead(body: str, start: int, end: int, following: int) -> bool:
    """A section of headings and at most one short line (:data:`LEAD_WORDS`), followed by a subsection of it."""
    level = _level(body, start)
    if not level or _level(body, following) <= level:
        return False
    text = [line for line in body[start:end].split("\n") if line.strip() and not _HEADING.match(line)]
    return len(text) <= 1 and all(len(line.split()) <= LEAD_WORDS for line in text)


def _without_thin_leads(body: str, bounds: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``bounds`` with the article's lead joined to the section after it when it is heading-only
    (:func:`_is_thin_lead`): the page's title and at most a subtitle, before its first subsection."""
    if len(bounds) < 2 or not body[: bounds[0][0]].strip() == "":
        return bounds
    first = 1 if not body[bounds[0][0] : bounds[0][1]].strip() else 0  # an empty span before the first heading
    if first + 1 >= len(bounds) or not _is_thin_lead(body, *bounds[first], bounds[first + 1][0]):
        return bounds
    return [*bounds[:first], (bounds[first][0], bounds[first + 1][1]), *bounds[first + 2 :]]


def _split_long_section(
    body: str,
    start: int,
    end: int,
    max_words: int,
    blocks: Sequence[tuple[int, int]] = (),
    article: Article | None = None,
) -> list[tuple[int, int]]:
    if len(body[start:end].split()) <= max_words:
        return [(start, end)]
    paragraphs = [(start + m.start(), start + m.end()) for m in re.finditer(r"(?:[^\n]|\n(?!\s*\n))+", body[start:end])]
    units: list[tuple[int, int]] = []
    for p_start, p_end, code in _code_grouped(paragraphs, blocks):
        if not code:
            units.extend(_bounded_units(body, p_start, p_end, max_words))
        elif len(body[p_start:p_end].split()) <= max_words:
            units.append((p_start, p_end))
        else:
            if article is not None:
                _say_cut(article, len(body[p_start:p_end].split()), "words", max_words)
            units.extend(_line_units(body, p_start, p_end, max_words))
    pieces: list[tuple[int, int]] = []
    piece_start, words = units[0][0], 0
    for u_start, u_end in units:
        n = len(body[u_start:u_end].split())
        if words and words + n > max_words:
            pieces.append((piece_start, u_start))
            piece_start, words = u_start, 0
        words += n
    pieces.append((piece_start, end))
    return pieces


def _code_grouped(
    paragraphs: list[tuple[int, int]], blocks: Sequence[tuple[int, int]]
) -> list[tuple[int, int, bool]]:
    """The paragraphs, those of one code block (parted by its blank lines) joined into one: ``(start, end, code)``."""
    grouped: list[tuple[int, int, bool]] = []
    last_block: int | None = None
    for start, end in paragraphs:
        block = _block_at(blocks, start, end)
        if block is not None and block == last_block:
            grouped[-1] = (grouped[-1][0], end, True)
        else:
            grouped.append((start, end, block is not None))
        last_block = block
    return grouped


def _line_units(body: str, start: int, end: int, max_words: int) -> list[tuple[int, int]]:
    """A code block too long for one chunk as the units it is cut between: its lines (a line above ``max_words``
    words every ``max_words`` words)."""
    units: list[tuple[int, int]] = []
    for found in re.finditer(r"[^\n]*\S[^\n]*", body[start:end]):
        line = (start + found.start(), start + found.end())
        words = [(line[0] + m.start(), line[0] + m.end()) for m in re.finditer(r"\S+", body[slice(*line)])]
        units.extend(_windows(words, max_words, 0) if len(words) > max_words else [line])
    return units


def _bounded_units(body: str, start: int, end: int, max_words: int) -> list[tuple[int, int]]:
    """A paragraph as the units a section is cut between: itself, or, above ``max_words``, its sentences.

    A sentence still above ``max_words`` (a text without sentence ends: a log, a wall of
    keywords) is cut every ``max_words`` words. Without this a one-paragraph document of
    100 KB was one chunk, which the context check then refused as a prompt that cannot fit.
    """
    if len(body[start:end].split()) <= max_words:
        return [(start, end)]
    units: list[tuple[int, int]] = []
    for first, last in sentence_spans(body[start:end]):
        sentence = (start + first, start + last)
        words = [(sentence[0] + m.start(), sentence[0] + m.end()) for m in re.finditer(r"\S+", body[slice(*sentence)])]
        units.extend(_windows(words, max_words, 0) if len(words) > max_words else [sentence])
    return units


def _trim(body: str, start: int, end: int) -> tuple[int, int]:
    while start < end and body[start].isspace():
        start += 1
    while end > start and body[end - 1].isspace():
        end -= 1
    return start, end


def sentence_window(article: Article, window: int = 5, overlap: int = 1) -> list[Chunk]:
    """Windows of ``window`` consecutive sentences, sharing ``overlap`` sentences with the previous one.

    Sentences follow :func:`evalgate_lib.text.tokens.sentence_spans` (each line of a table
    or list is a sentence), so a window never cuts a sentence in half.
    """
    if window <= 0 or not 0 <= overlap < window:
        raise InputError(f"sentence chunker needs window > 0 and 0 <= overlap < window, got {window}/{overlap}")
    sentences = _fused(sentence_spans(article.body), code_blocks(article), window, article, "sentences")
    return _make(article, _windows(sentences, window, overlap))


CHUNKERS: dict[str, Callable[..., list[Chunk]]] = {
    "fixed": fixed_size,
    "markdown": markdown_sections,
    "sentence": sentence_window,
}


def check_chunking(spec: Mapping[str, Any], source: str = "[chunking]", search: Sequence[Path] = ()) -> None:
    """Refuse an unknown method, an unknown parameter (naming the nearest valid one) or a bad value.

    ``source`` says where the table came from (``"configs/x.toml: [chunking]"``), so the
    message points at the file to fix. A ``"package.module:function"`` method is a team's
    own chunker (:mod:`evalgate_lib.chunks.custom`), imported from ``search`` folders (the
    config's folder) first; its parameters are checked against the function's signature.
    """
    params = dict(spec)
    method = params.pop("method", None)
    if is_custom(method):
        check_params(load_chunker(str(method), source, search), params, source)
        return
    if not isinstance(method, str) or method not in CHUNKERS:
        near = difflib.get_close_matches(str(method), list(CHUNKERS), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise InputError(
            f"{source}: unknown chunking method {method!r}; choose one of {sorted(CHUNKERS)} "
            f"or name your own as 'package.module:function'{hint}"
        )
    valid = [p for p in inspect.signature(CHUNKERS[method]).parameters if p != "article"]
    for name, value in params.items():
        if name not in valid:
            near = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f"; valid keys: method, {', '.join(valid)}"
            raise InputError(f"{source}: unknown key {name!r} for the {method!r} chunker{hint}")
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{source}: the {method!r} chunker's {name} must be a whole number, got {value!r}")


def chunk_corpus(articles: Iterable[Article], spec: Mapping[str, Any], search: Sequence[Path] = ()) -> list[Chunk]:
    """Chunk every article with the chunker named by ``spec["method"]`` and the rest of ``spec`` as parameters.

    A team's own chunker returns spans; they go through the same :func:`_make` as the
    built-in ones, so markup-only spans are merged and every chunk keeps its provenance.
    """
    check_chunking(spec, search=search)
    params = dict(spec)
    method = params.pop("method")
    if is_custom(method):
        custom = load_chunker(method, "[chunking]", search)
        return [chunk for article in articles for chunk in _make(article, spans_of(custom, article, params))]
    chunker = CHUNKERS[method]
    return [chunk for article in articles for chunk in chunker(article, **params)]


def chunker_identity(spec: Mapping[str, Any], search: Sequence[Path] = ()) -> dict[str, str] | None:
    """For a team's own chunker, what the manifest records of its code (path and source SHA-256); else ``None``."""
    method = spec.get("method")
    if not is_custom(method):
        return None
    custom = load_chunker(str(method), "[chunking]", search)
    return {"method": custom.method, "source": custom.source_path, "source_sha256": custom.source_sha256}

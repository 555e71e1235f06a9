"""How chunks lie against an article's structure: the counts that say a chunker reads what it cuts.

A chunk that starts inside a code block hands the retriever and the generator half a program (a
``# comment`` line read as a heading did that: 87 of 440 chunks of a book began with one); a chunk
that is a heading alone, or a page's title and subtitle alone, fills a rank with no fact. The
built-in chunkers avoid both (:mod:`evalgate_lib.chunks.chunking`); :func:`chunk_shape` counts them,
for the tests and ``bench/chunk_shapes.py``, on any chunking of any corpus.

A code block longer than a chunk may be cannot stay whole: the chunkers cut it between its lines
and log a warning. Chunks that start inside such a block are counted apart
(:attr:`ChunkShape.inside_oversized`), so :attr:`ChunkShape.inside_code` counts only cuts that
could have been avoided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from evalgate_lib.chunks.chunking import LEAD_WORDS, Chunk, code_blocks
from evalgate_lib.inputs.corpus import Article
from evalgate_lib.text.tokens import sentence_spans

_HEADING_LINE = re.compile(r"#{1,6}[ \t]+\S")
#: Per built-in chunker: the parameter that bounds a chunk, and what it counts (a code block's size in that unit).
_SIZE_OF = {"fixed": ("size", "words"), "markdown": ("max_words", "words"), "sentence": ("window", "sentences")}


@dataclass(frozen=True)
class ChunkShape:
    """Counts over one chunking of a corpus (see :func:`chunk_shape`)."""

    chunks: int
    code_blocks: int
    #: Code blocks longer than a chunk may be (the chunker cuts them between their lines, and says so).
    oversized_blocks: int
    #: Chunks that start strictly inside a code block that fits in one chunk: 0 for the built-in chunkers.
    inside_code: int
    #: Chunks that start strictly inside an oversized block (between two of its lines).
    inside_oversized: int
    #: Chunks whose every non-blank line is a Markdown heading.
    heading_only: int
    #: An article's first chunk, when more follow, that holds only headings and at most one line of at most
    #: :data:`~evalgate_lib.chunks.chunking.LEAD_WORDS` words (a page's title and subtitle).
    lead_only: int


def is_heading_only(text: str) -> bool:
    """Whether every non-blank line of ``text`` is a Markdown heading (``## Setup``), and there is one."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    return bool(lines) and all(_HEADING_LINE.match(line) for line in lines)


def is_lead_only(text: str) -> bool:
    """Whether ``text`` is headings and at most one line of at most ``LEAD_WORDS`` words (``# MkDocs Installation`` /
    ``A detailed guide.``), with at least one heading."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    rest = [line for line in lines if not _HEADING_LINE.match(line)]
    return len(rest) < len(lines) and len(rest) <= 1 and all(len(line.split()) <= LEAD_WORDS for line in rest)


def _cuts(body: str, start: int, at: int, end: int) -> bool:
    """Whether ``at`` parts the block ``body[start:end]`` with text of the block on both sides (an indented fence's
    leading spaces are no text: a chunk that starts at the fence starts at the block)."""
    return start < at < end and bool(body[start:at].strip()) and bool(body[at:end].strip())


def block_size(text: str, unit: str) -> int:
    """How many ``unit``\\ s (``"words"`` or ``"sentences"``, as the chunkers count them) ``text`` holds."""
    return len(text.split()) if unit == "words" else len(sentence_spans(text))


def chunk_shape(articles: Sequence[Article], chunks: Sequence[Chunk], spec: Mapping[str, Any]) -> ChunkShape:
    """Count, over ``chunks`` of ``articles`` cut by the chunking ``spec`` (a config's ``[chunking]``), the chunks
    that start inside a code block (:func:`~evalgate_lib.chunks.chunking.code_blocks`), those that are a heading
    alone, and the articles' leads that are a title and subtitle alone.

    A block is oversized when it holds more than the chunker's bound (``size`` or ``max_words`` words, ``window``
    sentences); a team's own chunker has no bound known here, so none of its blocks is."""
    bound_key, unit = _SIZE_OF.get(str(spec.get("method")), (None, "words"))
    bound = spec.get(bound_key) if bound_key else None
    blocks: dict[str, list[tuple[int, int, bool]]] = {}
    for article in articles:
        blocks[article.id] = [
            (s, e, bound is not None and block_size(article.body[s:e], unit) > int(bound))
            for s, e in code_blocks(article)
        ]
    counts = {"inside_code": 0, "inside_oversized": 0, "heading_only": 0, "lead_only": 0}
    per_article: dict[str, int] = {}
    for chunk in chunks:
        per_article[chunk.article_id] = per_article.get(chunk.article_id, 0) + 1
    bodies = {article.id: article.body for article in articles}
    for chunk in chunks:
        body = bodies.get(chunk.article_id, "")
        host = next((big for s, e, big in blocks.get(chunk.article_id, ()) if _cuts(body, s, chunk.start, e)), None)
        if host is not None:
            counts["inside_oversized" if host else "inside_code"] += 1
        if is_heading_only(chunk.text):
            counts["heading_only"] += 1
        elif chunk.position == 0 and per_article[chunk.article_id] > 1 and is_lead_only(chunk.text):
            counts["lead_only"] += 1
    return ChunkShape(
        chunks=len(chunks),
        code_blocks=sum(len(b) for b in blocks.values()),
        oversized_blocks=sum(1 for b in blocks.values() for _, _, big in b if big),
        **counts,
    )

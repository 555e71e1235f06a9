"""Chunks against an article's structure (issue 54): none starts inside a code block, none is a heading alone.

:func:`evalgate_lib.chunks.chunk_checks.chunk_shape` is checked on hand-made chunks with hand-counted
answers, then run on the shipped corpora and the book's pages (mdBook: the rustdoc and rustc books)
and the two MkDocs sets under every built-in chunker with the shipped configs' parameters.
``bench/chunk_shapes.py`` prints the same counts beside an earlier revision's.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from evalgate_lib.chunks.chunk_checks import ChunkShape, chunk_shape, is_heading_only, is_lead_only
from evalgate_lib.chunks.chunking import Chunk, chunk_corpus
from evalgate_lib.inputs.corpus import Article, scan_corpus

ROOT = Path(__file__).resolve().parents[1]
#: The built-in chunkers with the shipped configs' parameters (sentence: its defaults).
CHUNKINGS = {
    "fixed": {"method": "fixed", "size": 120, "overlap": 20},
    "markdown": {"method": "markdown", "max_words": 250},
    "sentence": {"method": "sentence", "window": 5, "overlap": 1},
}
CORPORA = {
    "corpus": ROOT / "corpus",
    **{f"datasets/{name}": ROOT / "datasets" / name for name in ("pip-topics", "postgresql-docs")},
    **{f"html-docs/{name}": ROOT / "tests" / "data" / "html-docs" / name / "corpus"
       for name in ("mdbook-rust", "mkdocs-bootstrap", "mkdocs-material")},
}  # fmt: skip

# Offsets of BODY (hand-counted):
#   "# Setup"             0-7
#   "Run:"                9-13
#   "```"                15-18    \
#   "make"               19-23     | the code block: 15-40 (fence to fence); 5 words and 4 sentences (its lines)
#   "make install"       24-36     |
#   "```"                37-40    /   ends at 40
#   "## Next"            42-49
#   "Done."              51-56
BODY = "# Setup\n\nRun:\n\n```\nmake\nmake install\n```\n\n## Next\n\nDone."
ARTICLE = Article("setup", "Setup", BODY, "setup.md")


def _chunk(position: int, start: int, end: int) -> Chunk:
    return Chunk("setup", "Setup", position, start, end, BODY[start:end])


def test_the_helpers_read_headings_and_leads() -> None:
    assert is_heading_only("## Next") and is_heading_only("# A\n\n## B\n")
    assert not is_heading_only("## Next\n\nDone.") and not is_heading_only("") and not is_heading_only("#hashtag")
    assert is_lead_only("# MkDocs Installation\n\nA detailed guide.") and is_lead_only("# Title")
    assert not is_lead_only("# Title\n\none two three four five six seven eight nine")  # nine words: content
    assert not is_lead_only("# Title\n\nOne line.\n\nAnother line.") and not is_lead_only("Just text.")


def test_chunk_shape_counts_by_hand() -> None:
    # chunk 0 "# Setup ... make" ends inside the block; chunk 1 starts at "make install" (24: inside, 15 < 24 < 40)
    # and chunk 2 is "## Next" alone; chunk 3 "Done." The block holds 5 words: within a fixed size of 5, beyond 4
    chunks = [_chunk(0, 0, 23), _chunk(1, 24, 40), _chunk(2, 42, 49), _chunk(3, 51, 56)]
    assert chunk_shape([ARTICLE], chunks, {"method": "fixed", "size": 5, "overlap": 0}) == ChunkShape(
        chunks=4, code_blocks=1, oversized_blocks=0, inside_code=1, inside_oversized=0, heading_only=1, lead_only=0
    )
    # 4 words are fewer than the block's 5: it is oversized, and the chunk inside it is counted apart
    assert chunk_shape([ARTICLE], chunks, {"method": "fixed", "size": 4, "overlap": 0}) == ChunkShape(
        chunks=4, code_blocks=1, oversized_blocks=1, inside_code=0, inside_oversized=1, heading_only=1, lead_only=0
    )
    # the sentence chunker's bound is in sentences: the block's 4 lines fit a window of 4, not of 3
    window = {n: chunk_shape([ARTICLE], chunks, {"method": "sentence", "window": n, "overlap": 0}) for n in (3, 4)}
    assert [(window[n].oversized_blocks, window[n].inside_code) for n in (3, 4)] == [(1, 0), (0, 1)]
    # a chunk that starts at an indented fence starts at the block (its leading spaces are no text); a first chunk
    # of a title and a short line, with more chunks after it, is a lead
    # ("# T" 0-3, "Sub title." 5-15, the block 17-35 from its line's start, its fence at 19)
    indented = Article("i", "I", "# T\n\nSub title.\n\n  ```\n  code\n  ```\n", "i.md")
    chunks = [Chunk("i", "I", 0, 0, 15, indented.body[:15]), Chunk("i", "I", 1, 19, 35, indented.body[19:35])]
    assert chunk_shape([indented], chunks, {"method": "markdown", "max_words": 250}) == ChunkShape(
        chunks=2, code_blocks=1, oversized_blocks=0, inside_code=0, inside_oversized=0, heading_only=0, lead_only=1
    )


def test_a_team_chunker_has_no_bound_so_no_block_is_oversized() -> None:
    shape = chunk_shape([ARTICLE], [_chunk(0, 0, 23), _chunk(1, 24, 56)], {"method": "mine:split"})
    assert (shape.oversized_blocks, shape.inside_code, shape.inside_oversized) == (0, 1, 0)


@functools.cache
def _articles(corpus: str) -> tuple[Article, ...]:
    return scan_corpus(CORPORA[corpus]).articles


@pytest.mark.parametrize("chunker", sorted(CHUNKINGS))
@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_no_chunk_starts_inside_a_code_block_or_is_a_heading_alone(corpus: str, chunker: str) -> None:
    """The shipped corpora and the book's pages under every built-in chunker: no chunk starts inside a code block
    that fits in a chunk (a longer one is cut between its lines, and counted apart), none is a heading alone."""
    articles = _articles(corpus)
    spec = CHUNKINGS[chunker]
    shape = chunk_shape(articles, chunk_corpus(articles, spec), spec)
    assert shape.chunks > 0
    assert (shape.inside_code, shape.heading_only) == (0, 0), shape
    if corpus.startswith("html-docs/") and chunker != "sentence":
        assert shape.lead_only == 0, shape  # no page's title and subtitle alone (MkDocs' "A detailed guide.")

"""Finding a passage in an article body, exactly or up to whitespace, and naming its line.

Gold evidence is an exact substring of the article body (that is how the pipeline
locates it), but passages copied out of another tool (a RAGAS ``contexts`` cell, a
chunk with its line breaks joined) often differ only in whitespace. Matching
whitespace-insensitively and then taking the body's own text for the match turns
such a passage into valid evidence without ever inventing text the article lacks.
"""

from __future__ import annotations

import re


def line_of(text: str, index: int) -> int:
    """1-based line number of character ``index`` of ``text``."""
    return text.count("\n", 0, index) + 1


def find_exact(body: str, passage: str) -> tuple[int, int] | None:
    """Span of the first exact occurrence of ``passage`` in ``body`` (the pipeline's evidence rule), else ``None``."""
    start = body.find(passage)
    return None if start < 0 or not passage else (start, start + len(passage))


def find_loose(body: str, passage: str) -> tuple[int, int] | None:
    """Span of the first occurrence of ``passage`` in ``body`` where any run of whitespace matches any other.

    ``None`` for a passage with no non-space text. ``body[start:end]`` is then the
    article's own spelling of the passage, an exact substring usable as evidence.
    """
    words = passage.split()
    if not words:
        return None
    found = re.search(r"\s+".join(map(re.escape, words)), body)
    return (found.start(), found.end()) if found else None

"""Which characters of a retrieved chunk support which answer sentence, and the chunk with those spans marked.

A reviewer checking a verdict needs the passage that supports each sentence, marked in the chunk's whole
text: the answer table's details and the explorer both show it from here. Every string is HTML-escaped.
"""

from __future__ import annotations

import html
import re
from typing import Sequence

from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.text.locate import loose_pattern

e = html.escape


def span_unit(span: str) -> str:
    """The part of a supporting span that is the supporting text itself.

    The prose scorer prefixes the unit (a sentence or line of the context) with the labels
    that frame it, one per line: passage title, nearest heading, a table's header row. Those
    labels are context, not support; the unit is the last non-empty line.
    """
    lines = [line for line in span.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def span_segments(text: str, spans: Sequence[str | None]) -> list[tuple[str, frozenset[int]]]:
    """``text`` cut into pieces, each with the (1-based) numbers of the sentences whose span covers it.

    ``spans[i]`` is sentence ``i + 1``'s supporting span (``None``: it has none). The span's unit
    (:func:`span_unit`) is looked up in ``text`` ignoring case and how whitespace is laid out,
    since the scorer may join lines. Joining the pieces gives back ``text`` exactly.
    """
    cover: list[set[int]] = [set() for _ in text]
    for number, span in enumerate(spans, start=1):
        pattern = loose_pattern(span_unit(span).rstrip("."), re.IGNORECASE) if span else None
        if pattern is None:
            continue
        for match in pattern.finditer(text):
            for i in range(match.start(), match.end()):
                cover[i].add(number)
    pieces: list[tuple[str, frozenset[int]]] = []
    for char, numbers in zip(text, cover, strict=True):
        key = frozenset(numbers)
        if pieces and pieces[-1][1] == key:
            pieces[-1] = (pieces[-1][0] + char, key)
        else:
            pieces.append((char, key))
    return pieces


def marked_chunk_html(text: str, sentences: Sequence[SentenceVerdict]) -> str:
    """A chunk's text, escaped, with each sentence's supporting span in a ``<mark>`` naming the sentence."""
    out = []
    for piece, numbers in span_segments(text, [s.span for s in sentences]):
        if not numbers:
            out.append(e(piece))
            continue
        supported = any(sentences[n - 1].supported for n in numbers)
        which = ", ".join(str(n) for n in sorted(numbers))
        kind = "supported" if supported else "unsupported"
        title = f"supporting span of sentence {which}" + ("" if supported else " (judged not enough)")
        out.append(
            f'<mark class="eg-span eg-span-{kind}" data-sentences="{which}" title="{e(title)}">{e(piece)}</mark>'
        )
    return "".join(out)

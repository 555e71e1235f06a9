"""Which of two values in one table row a claim's words sit by: its own column, or another.

A table row often gives two values of one kind ("Business | $15 per user per month | $18 per
user per month" under "Plan | Annual billing | Monthly billing"). A claim that states one of
them is bound to it only if the claim names that value's column: "Business was $18 per user per
month with annual billing" names the *Annual billing* column, where the row says $15.

So each value has a **place**, the header of its cell. The claim's words are counted in each
place, leaving out the words both headers share and the words the claim writes its value with
("per user per month", the cells' own words). The place with more of the claim's words binds it;
a tie binds nothing, and the caller keeps its verdict undecided. Prose is not read this way: a
sentence refers back to the one before it ("By default it uses 5 GB. You can raise this to
50 GB."), so the sentence a value stands in does not name its subject.
"""

from __future__ import annotations

from typing import Callable

#: A function from text to its counted words (the prose scorer's stemmed content words).
Words = Callable[[str], frozenset[str]]


def _places(span: str) -> tuple[list[tuple[str, str]], bool]:
    """``[(place, text holding the values)]`` of ``span`` and whether it is a table row: each cell under its
    header cell, else each line as its own place."""
    lines = [line for line in span.split("\n") if line.strip()]
    cells: list[tuple[str, str]] = []
    for header, row in zip(lines, lines[1:], strict=False):
        head, body = header.split(" | "), row.split(" | ")
        if len(head) > 1 and len(head) == len(body):
            cells.extend(zip(head, body, strict=True))
    if cells:
        return cells, True
    return [(line, line) for line in lines], False


def bound_value(claim: str, span: str, value: str, rival: str, words: Words, values: Callable) -> str | None:
    """Which of ``value`` (the claim's) and ``rival`` (another of its kind in ``span``) the claim's words bind:
    ``"own"``, ``"rival"``, or ``None`` for a tie or when the two share one place.

    ``values(text)`` gives the normalised values a text states (the reading that found ``value`` and
    ``rival``), ``words(text)`` its counted words.
    """
    places, table = _places(span)
    if not table:
        return None  # sentences refer back ("You can raise this to 50 GB"): only a table's columns place a value
    own = [place for place, text in places if value in values(text)]
    other = [place for place, text in places if rival in values(text)]
    if not own or not other or set(own) & set(other):
        return None  # both in one cell or one sentence: their place cannot tell them apart
    mine = frozenset().union(*map(words, own))
    theirs = frozenset().union(*map(words, other))
    counted = words(claim) - (mine & theirs)  # words both places have tell nothing
    if table:  # the words the claim writes its value with ("per user per month") are the cells' own
        counted -= frozenset().union(*(words(text) for place, text in places if place in own + other))
    held, rivalled = len(counted & mine), len(counted & theirs)
    if held == rivalled:
        return None
    return "own" if held > rivalled else "rival"

"""A claim that repeats its span word for word with one name changed: the span contradicts it.

A bag of words holds "select **Generate SSO token**" with the span "select Generate SCIM token"
when "SSO" stands elsewhere in the span (its heading says "Setting up SSO"): every word is
there, yet the claim names another thing than the span in the span's own sentence. A reviewer
reads the two side by side and sees the swap. So does this module: it aligns the claim's tokens
with each line of its span (:class:`difflib.SequenceMatcher`, the standard library's longest
matching blocks) and reports a swap when

* most of the claim (:data:`ALIGNED_SHARE` of its tokens) is the line's own words in the line's order;
* one token of the claim stands where the line has one other token, with the same words on both
  sides of it (:data:`FLANK` tokens, or the end of both sentences); and
* both tokens are names (a capital letter past the sentence's first word, a digit, ``_`` or ``.``
  inside), the claim's name is in none of the span's sentences or rows (a heading may name it), and
  the two are not one thing under two names (``r.content`` for ``Response.content``).

A paraphrase changes ordinary words ("choose" for "select") and keeps names; a swap of one name
for another in an otherwise copied sentence is what a small generator does when it assembles a
claim from the context's words. Only names are compared, so fluent rewording never trips it.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

#: Share of the claim's tokens that must be the line's words in the line's order for a swap to be read.
ALIGNED_SHARE = 0.6

#: Tokens that must match on each side of the swapped one (the end of both sentences counts as a match).
FLANK = 1

#: Tokens that must match on each side of a negation the claim drops or adds.
NEGATION_FLANK = 2

#: The least number of claim tokens for the rule to apply: a shorter claim is an answer fragment.
MIN_TOKENS = 4

_TOKEN = re.compile(r"[A-Za-z0-9_$%][\w$%.+-]*[\w$%+]|[A-Za-z0-9]")
_MARKUP = re.compile(r"\*\*|__|`|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+")


#: Words that negate; "n't" and "cannot" are read as "not" first.
NEGATIONS = frozenset({"not", "no", "never"})
_CONTRACTED = re.compile(r"\b(can|won)'t\b|n't\b|\bcannot\b", re.IGNORECASE)


def _spelled(found: re.Match[str]) -> str:
    stem = (found.group(1) or "").lower()
    return {"can": "can not", "won": "will not"}.get(stem, " not" if found.group(0).lower() == "n't" else "can not")


def _tokens(text: str) -> tuple[str, ...]:
    text = _CONTRACTED.sub(_spelled, text.replace("\u2019", "'"))
    return tuple(_TOKEN.findall(_MARKUP.sub("", _BULLET.sub("", text))))


def _is_name(token: str, first: bool) -> bool:
    """A name: a capital letter (not only as the sentence's first letter), or a digit, ``_`` or ``.`` inside."""
    if any(c.isdigit() for c in token) or "_" in token or "." in token.strip("."):
        return True
    capitals = sum(c.isupper() for c in token)
    return capitals >= 2 or (capitals == 1 and (not first or not token[0].isupper()))


def _same_thing(said: str, written: str) -> bool:
    """``r.content`` and ``Response.content``: an example's variable for the object the documentation names."""
    return "." in said + written and said.casefold().rsplit(".", 1)[-1] == written.casefold().rsplit(".", 1)[-1]


@lru_cache(maxsize=65536)
def _swap_in_line(claim: tuple[str, ...], line: tuple[str, ...]) -> tuple[str, str] | None:
    folded_claim = [t.casefold() for t in claim]
    folded_line = [t.casefold() for t in line]
    matcher = SequenceMatcher(None, folded_claim, folded_line, autojunk=False)
    aligned = sum(block.size for block in matcher.get_matching_blocks())
    if aligned < ALIGNED_SHARE * len(claim):
        return None
    codes = matcher.get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(codes):
        before = codes[k - 1] if k else None
        after = codes[k + 1] if k + 1 < len(codes) else None
        if tag in ("delete", "insert") and max(i2 - i1, j2 - j1) == 1:
            # "their files are moved" against "their files are not moved": a negation dropped (or added)
            word = claim[i1] if tag == "delete" else line[j1]
            flanked = all(
                code is not None and code[0] == "equal" and code[2] - code[1] >= NEGATION_FLANK
                for code in (before, after)
            )
            if word.casefold() in NEGATIONS and flanked:
                return (word, "") if tag == "delete" else ("", word)
            continue
        if tag != "replace" or i2 - i1 != 1 or j2 - j1 != 1:
            continue
        left = (before is None and i1 == 0 and j1 == 0) or (
            before is not None and before[0] == "equal" and before[2] - before[1] >= FLANK
        )
        right = (after is None and i2 == len(claim) and j2 == len(line)) or (
            after is not None and after[0] == "equal" and after[2] - after[1] >= FLANK
        )
        said, written = claim[i1], line[j1]
        if left and right and _is_name(said, i1 == 0) and _is_name(written, j1 == 0) and not _same_thing(said, written):
            return said, written
    return None


#: Most words a heading or title line has (with no sentence end and no table cell in it).
HEADING_TOKENS = 8


def _is_heading(line: str) -> bool:
    stripped = line.strip()
    return (
        "|" not in stripped
        and not stripped.endswith((".", "!", "?", ":", ";"))
        and len(_tokens(line)) <= HEADING_TOKENS
    )


def swapped_name(claim: str, span: str) -> tuple[str, str] | None:
    """``(the claim's name, the name the span has in its place)`` when ``claim`` repeats a line of ``span`` with one
    name changed (the rules of the module docstring), else ``None``."""
    said = _tokens(claim)
    if len(said) < MIN_TOKENS:
        return None
    # the names the span states in its sentences and rows; a heading's names ("Setting up SSO") only label them
    anywhere = {t.casefold() for line in span.split("\n") if not _is_heading(line) for t in _tokens(line)}
    for line in span.split("\n"):
        found = _swap_in_line(said, _tokens(line))
        if found and found[0].casefold() not in anywhere:  # "50 GB" against "5 GB" when the next line says 50 GB
            return found
    return None

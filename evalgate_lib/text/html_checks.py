"""How well a page's text reads as the browser shows the page: orphaned inline lines and navigation text.

Three figures, each made by one function here, that compare the text a reader (EvalGate's, an
extraction library's, an older version's) made of a page with the page itself:

* :func:`orphan_lines` — lines of the text that consist of nothing but the text of an inline
  element (a link, emphasis, a code span, a superscript …) which, on the page, sits inside a
  longer line: ``is an alias for the <a>KEY</a> column`` read as ``is an alias for the``,
  ``KEY``, ``column``. A reader that keeps inline elements inside their lines has none.
* :func:`hidden_text` — what the reader of the page never sees that the text kept: icon glyphs
  (private-use code points, MkDocs' permalink U+F0C1) and code lines the page hides (mdBook's
  ``<span class="boring">``: a doctest's ``fn main() {`` wrapper).
* :func:`mark_navigation` and :func:`starts_with_navigation` — the page's navigation (named by
  CSS selectors for its generator: Sphinx's ``div.related``, Texinfo's ``div.header`` …) has
  every word replaced by :data:`NAVIGATION_MARK`, so that whatever a reader keeps of it can be
  found in its text, and a chunk that starts with it can be told.

Both are pure functions of strings, so that each figure in ``docs/html-documents.md`` can be
recomputed by hand from the page and the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from evalgate_lib.text.html_page import INLINE_TAGS, PERMALINK_SIGNS, PRIVATE_USE

#: The word every word of the page's navigation becomes in :func:`mark_navigation`.
NAVIGATION_MARK = "navmarkqz"

_MARKERS = re.compile(r"^(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|\|\s*)")
_SPACE = re.compile(r"\s+")
_SKIPPED = ("script", "style", "head", "title", "noscript", "template")


@dataclass(frozen=True)
class Orphans:
    """The orphaned inline lines of a text (in order) and the number of its non-empty lines."""

    lines: tuple[str, ...]
    total: int

    @property
    def share(self) -> float:
        """Orphaned lines as a share of all non-empty lines (0 for an empty text)."""
        return len(self.lines) / self.total if self.total else 0.0


def _norm(text: str) -> str:
    return _SPACE.sub(" ", PRIVATE_USE.sub("", text)).strip()


def _is_permalink(tag: Any) -> bool:
    """A heading's or a caption's permalink sign (``¶``, MkDocs' icon glyph): no reader reads it as part of a line."""
    if tag.name != "a" or not str(tag.get("href") or "").startswith("#"):
        return False
    return _norm(tag.get_text()) in {"", *PERMALINK_SIGNS}


def _visual_lines(soup: Any) -> tuple[set[str], set[str]]:
    """``(whole lines, inline texts inside longer lines)`` of a page, as it lays them out.

    A *line* here is what a block shows between line breaks: the inline content of a block
    element (paragraph, heading, list item, cell …) up to a ``<br>`` or a block inside it.
    """
    from bs4 import NavigableString

    whole: set[str] = set()
    inside: set[str] = set()

    def close(parts: list[str], opened: list[tuple[str, int]]) -> None:
        line = _norm("".join(parts))
        if line:
            whole.add(line)
            for text, _ in opened:
                if text and text != line and any(ch.isalnum() for ch in text):
                    inside.add(text)
        parts.clear()
        opened.clear()

    # One walk on an explicit stack (a page may nest thousands of levels): each entry is a block's or an inline
    # element's children, the line being collected (shared by an inline element with its block) and what to do
    # when they are done: an inline element is then one of the texts opened on that line, a block closes its line.
    stack: list[tuple[Any, list[str], list[tuple[str, int]], Any]] = [(iter(soup.children), [], [], None)]
    while stack:
        children, parts, opened, owner = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if owner is None or owner.name not in INLINE_TAGS:
                close(parts, opened)
            elif not any(d.name not in INLINE_TAGS for d in owner.find_all(True)):  # no block, no <br> inside
                opened.append((_norm(owner.get_text()), 0))
            continue
        if isinstance(child, NavigableString):
            if child.__class__.__name__ == "NavigableString":
                parts.append(str(child))
        elif child.name in _SKIPPED or _is_permalink(child):
            continue
        elif child.name == "br":
            close(parts, opened)
        elif child.name == "pre":  # preformatted text keeps its own line breaks, as the browser shows them
            close(parts, opened)
            whole.update(line for line in map(_norm, child.get_text().split("\n")) if line)
        elif child.name in INLINE_TAGS:
            stack.append((iter(child.children), parts, opened, child))
        else:
            close(parts, opened)
            stack.append((iter(child.children), [], [], child))
    return whole, inside


def orphan_lines(markup: str, text: str) -> Orphans:
    """The lines of ``text`` (a reading of the page ``markup``) that consist of just the text of an inline element
    which sits inside a longer line on the page.

    A line's Markdown marker (``#``, ``-``, ``1.``, a table's ``|``) is not part of it; a text that is also a whole
    line somewhere on the page (a heading that is one code span) is never counted, nor a line of a fenced code
    block (counted among the lines; its fences are not).
    """
    from bs4 import BeautifulSoup

    whole, inside = _visual_lines(BeautifulSoup(markup, "html.parser"))
    candidates = inside - whole
    lines: list[str] = []
    in_code = 0  # lines of fenced code: counted, never orphans (read verbatim from a <pre>, not from inline elements)
    fence = ""
    for raw in text.split("\n"):
        stripped = raw.strip()
        if fence:
            if stripped == fence:
                fence = ""
            elif _norm(_MARKERS.sub("", stripped).rstrip("|")):
                in_code += 1
            continue
        if stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            continue
        if line := _norm(_MARKERS.sub("", stripped).rstrip("|")):
            lines.append(line)
    return Orphans(tuple(line for line in lines if line in candidates), len(lines) + in_code)


#: Classes of code lines a page hides from its reader (mdBook's doctest wrapper lines).
HIDDEN_CODE = ("span.boring",)


def hidden_text(markup: str, text: str) -> int:
    """How many pieces of what the page's reader does not see ``text`` (a reading of the page ``markup``) kept:
    each private-use code point (an icon glyph), and each line that on the page only a hidden code line
    (:data:`HIDDEN_CODE`) holds — a line the page also shows elsewhere (a visible ``}``) is never counted."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    hidden = [element for selector in HIDDEN_CODE for element in soup.select(selector)]
    only_hidden = {line.strip() for element in hidden for line in element.get_text().split("\n")}
    for element in hidden:
        element.decompose()
    shown = {line.strip() for line in soup.get_text().split("\n")}
    only_hidden -= shown | {""}
    kept = sum(1 for line in text.split("\n") if line.strip() in only_hidden)
    return kept + len(PRIVATE_USE.findall(text))


def mark_navigation(markup: str, selectors: Sequence[str]) -> str:
    """``markup`` with every word inside an element matched by one of ``selectors`` (CSS) replaced by
    :data:`NAVIGATION_MARK` (punctuation and signs such as a permalink's ``¶`` stay): the page's structure is kept,
    so a reader treats it as before."""
    from bs4 import BeautifulSoup, NavigableString

    soup = BeautifulSoup(markup, "html.parser")
    for selector in selectors:
        for element in soup.select(selector):
            for node in list(element.find_all(string=True)):
                if node.__class__ is NavigableString and node.strip():
                    lead = " " if node[:1].isspace() else ""
                    tail = " " if node[-1:].isspace() else ""
                    words = (NAVIGATION_MARK if any(ch.isalnum() for ch in w) else w for w in node.split())
                    node.replace_with(lead + " ".join(words) + tail)
    return str(soup)


def starts_with_navigation(text: str) -> bool:
    """Whether ``text`` (a chunk, or an article's body) starts with a word of the page's navigation, as marked by
    :func:`mark_navigation` (Markdown markers and punctuation before it aside)."""
    first = re.search(r"[^\W_]+", _MARKERS.sub("", text.lstrip()))
    return first is not None and first.group() == NAVIGATION_MARK


def navigation_words(text: str) -> int:
    """How many words of the page's navigation (marked by :func:`mark_navigation`) ``text`` holds."""
    return len(re.findall(rf"\b{NAVIGATION_MARK}\b", text))

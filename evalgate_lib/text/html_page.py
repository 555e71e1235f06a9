"""Reading an HTML page as a browser shows it: its title, and its main content as Markdown-shaped text.

A documentation page is more than its article: a site header, a menu, a sidebar, "Next /
Previous / Up" links, a footer with the generator's name. Read naively (every text node on a
line of its own) it gives an article that opens with the site's menu and sentences broken at
every link, code span and superscript (``is an alias for the\\nKEY\\n\\ncolumn``). This module
reads a page the way a reader sees it:

* **the main content**, chosen by the page's own structure: the first ``<main>`` or
  ``role="main"`` element (HTML5 pages, Sphinx's ``div.body``), else the page's one
  ``<article>``, else the whole body; inside it, page chrome is dropped: ``<nav>``,
  ``<aside>``, landmark roles other than ``main`` (navigation, banner, contentinfo, search,
  complementary, menus), ``<header>``/``<footer>``/``<address>`` outside an article or section, elements
  whose class or id is one of :data:`CHROME_TOKENS` (``footer``, ``sidebar``, ``breadcrumb`` …) or
  names navigation (:data:`NAV_TOKEN`: ``nav``, ``navbar``, DocBook's ``navheader`` and ``navfooter``
  with their "Prev / Up / Home / Next" tables), hidden elements, permalink signs (``¶`` after a
  heading), and **link lists**: a block whose text is two or more links joined only by short labels
  and punctuation (``Next: X, Previous: Y, Up: Z [Index]``, a table of contents, ``Docutils |
  Overview | About``) is navigation whatever the generator calls it, and so is its caption above
  it (``Table of Contents``);
* **the title**: ``<title>``, else the first ``<h1>``, else the first element of class
  ``title`` (Doxygen's, DocBook's), with a site part dropped by one rule: when the title
  starts (or ends) with the page's own first heading and the rest is set off by a separator
  (``Exception Handling — Click Documentation (8.1.x)`` with the heading ``Exception Handling``;
  ``Rounding (GNU MPFR 4.2.0)`` with ``4.4 Rounding``), the title is that heading;
* **the text**: inline elements (``a``, ``code``, ``em``, ``var`` …) never break a line;
  headings are one ``#`` line each (``## 4.4 Rounding``); paragraphs are one line, ``<br>``
  their only line breaks; list items are ``- item`` / ``1. item`` lines; table rows are
  ``| cell | cell |`` lines (a header row is followed by ``| --- |``); ``<pre>`` is a fenced
  code block; a definition list is each term on its line with its definition below (a ``<br>``
  between two terms of one ``<dt>`` makes two terms, as two ``<dt>`` are);
  ``x<sup>2</sup>`` reads ``x^2`` and ``2<sup>n-1</sup>`` reads ``2^(n-1)`` (``<sub>`` the same
  with ``_``), a footnote mark (``<sup><a href="#fn1">1</a></sup>``, Docutils' and Sphinx's
  ``<a class="footnote-reference">1</a>``) reads ``[1]``; images,
  image maps and SVG drawings (syntax diagrams) are not text and are left out.

The text is Markdown-shaped on purpose: the chunkers cut it at its ``#`` headings and the
judge reads it through the Markdown reader (:mod:`evalgate_lib.text.markup`). Parsing is
Beautiful Soup's ``html.parser`` (pure Python, no network, deterministic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

#: Elements that are phrasing content: they flow inside a line and never break it.
INLINE_TAGS = frozenset(
    "a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd label mark nobr q rp rt ruby s samp "
    "small span strike strong sub sup time tt u var wbr".split()
)
#: Elements whose content is not text a reader sees on the page (or is a drawing, such as a syntax diagram).
DROPPED_TAGS = frozenset(
    "script style noscript template head title meta link svg math map area img picture source video audio canvas "
    "iframe object embed button input select textarea form nav aside dialog".split()
)
#: Landmark roles of page chrome.
CHROME_ROLES = frozenset("navigation banner contentinfo search complementary menu menubar toolbar tablist".split())
#: Class or id values (whole tokens) that name page chrome in every generator that uses them.
CHROME_TOKENS = frozenset("footer sidebar breadcrumb breadcrumbs skip-link".split())
#: A class or id value (a whole token) that names navigation: ``nav`` or ``navigation`` alone or joined to what it is
#: or where it sits (``navbar``, DocBook's ``navheader`` and ``navfooter``, ``nav-links``). A whole token only:
#: ``wy-nav-content`` (the Read the Docs theme's main content) or ``nav-item`` names no navigation block.
NAV_TOKEN = re.compile(r"nav(?:igation)?(?:[-_]?(?:bar|header|footer|menu|links))?")
#: Block elements a link list (navigation) is looked for in.
_LINK_LIST_TAGS = frozenset("div ul ol dl table center blockquote".split())
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_PERMALINK = frozenset({"¶", "#", "§", "🔗", "\u2693"})
_SPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u2002-\u200a\u202f\u205f\u3000]+")
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_GLUE_WORDS = 2
_CAPTION_WORDS = 3
_REFRESH = re.compile(r"\s*0*(?:\.0*)?\s*[;,]\s*(?:url\s*=\s*)?['\"]?([^'\"]+)", re.I)
_BLOCKS_IN_CELL = ["p", "pre", "ul", "ol", "dl", "table", *_HEADINGS]
_BREAK = "\x00"  # a <br> while inline text is collected (text nodes never hold NUL: the corpus refuses it)


@dataclass(frozen=True)
class HtmlPage:
    """A page as read: its title (``None`` when the page has none), its main content as text, and where it sends
    the browser at once (``<meta http-equiv="refresh" content="0; url=…">``: a page no reader ever sees), if it does."""

    title: str | None
    text: str
    redirect: str | None = None


def read_html_page(markup: str) -> HtmlPage:
    """The title and main-content text of one HTML page (see the module's description for the rules)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    raw_title = _clean(soup.title.get_text()) if soup.title is not None else ""
    redirect = _redirect(soup)
    _drop_chrome(soup)
    root = _main_root(soup)
    _drop_link_lists(root)
    title = _page_title(raw_title, root)
    writer = _Writer()
    writer.container(root)
    return HtmlPage(title, writer.text(), redirect)


def _redirect(soup: Any) -> str | None:
    """The address an immediate ``<meta http-equiv="refresh">`` sends the browser to (delay 0), if any."""
    for meta in soup.find_all("meta"):
        if str(meta.get("http-equiv") or "").lower() != "refresh":
            continue
        found = _REFRESH.match(str(meta.get("content") or ""))
        if found:
            return found.group(1).strip()
    return None


# --------------------------------------------------------------------------------------------- what is dropped


def _is_tag(node: Any) -> bool:
    from bs4 import Tag

    return isinstance(node, Tag)


def _tokens(tag: Any) -> set[str]:
    classes = tag.get("class") or []
    if isinstance(classes, str):
        classes = classes.split()
    found = {str(c).lower() for c in classes}
    if tag.get("id"):
        found.add(str(tag["id"]).lower())
    return found


def _inside(tag: Any, names: tuple[str, ...]) -> bool:
    return any(parent.name in names for parent in tag.parents)


def _is_chrome(tag: Any) -> bool:
    """Page chrome or invisible: dropped with everything inside it."""
    name = tag.name
    if name in DROPPED_TAGS:
        return True
    role = str(tag.get("role") or "").lower()
    if role in CHROME_ROLES:
        return True
    if name in ("header", "footer", "address") and not _inside(tag, ("article", "section", "main")):
        return True
    if tag.has_attr("hidden") or str(tag.get("aria-hidden") or "").lower() == "true":
        return True
    style = re.sub(r"\s+", "", str(tag.get("style") or "")).lower()
    if "display:none" in style or "visibility:hidden" in style:
        return True
    tokens = _tokens(tag)
    if tokens & CHROME_TOKENS or any(NAV_TOKEN.fullmatch(token) for token in tokens):
        return True
    return name == "a" and _clean(tag.get_text()) in _PERMALINK and str(tag.get("href") or "").startswith("#")


def _drop_chrome(soup: Any) -> None:
    from bs4 import Comment, Declaration, Doctype, ProcessingInstruction

    for node in soup.find_all(string=True):
        if isinstance(node, (Comment, Doctype, Declaration, ProcessingInstruction)):
            node.extract()
    for tag in list(soup.find_all(True)):
        if tag.decomposed or tag.parent is None:
            continue
        if _is_chrome(tag):
            tag.decompose()


def _main_root(soup: Any) -> Any:
    """The page's main content: ``<main>`` / ``role="main"``, else its one ``<article>``, else the body."""
    main = soup.find(lambda t: t.name == "main" or str(t.get("role") or "").lower() == "main")
    if main is not None:
        return main
    articles = [a for a in soup.find_all("article") if not _inside(a, ("article",))]
    if len(articles) == 1:
        return articles[0]
    return soup.body or soup


@dataclass
class _LinkShape:
    """What a block's text is made of: its links, their characters, all its characters, the longest label."""

    links: int = 0
    link_chars: int = 0
    chars: int = 0
    longest: int = 0


def _link_list_shape(tag: Any) -> _LinkShape:
    """Links, link characters and all (non-space) characters in ``tag``'s text, and its longest run of words
    outside a link; code and headings count as a run too long to be a label."""
    from bs4 import NavigableString

    shape = _LinkShape()
    run: list[str] = []

    def close() -> None:
        words = [w for w in " ".join(run).split() if any(ch.isalnum() for ch in w)]
        shape.longest = max(shape.longest, len(words))
        run.clear()

    def walk(node: Any) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                run.append(str(child))
                shape.chars += len("".join(str(child).split()))
            elif child.name == "a" and child.get("href") is not None:
                close()
                shown = "".join(child.get_text().split())
                shape.links += bool(shown)
                shape.link_chars += len(shown)
                shape.chars += len(shown)
            elif child.name in ("pre", "code", "kbd", "samp", "tt", "var", *_HEADINGS):
                close()
                shape.longest = max(shape.longest, _GLUE_WORDS + 1)
                shape.chars += len("".join(child.get_text().split()))
            else:
                if child.name not in INLINE_TAGS:
                    close()
                walk(child)
                if child.name not in INLINE_TAGS:
                    close()

    walk(tag)
    close()
    return shape


def _is_link_list(tag: Any) -> bool:
    """Two or more links that make most of the text, joined only by labels of at most two words and punctuation
    (``Next: X, Previous: Y, Up: Z [Index]``): navigation. A sentence with links in it (``Definition at line 48 of
    file json_features.h``) or a signature (``const Value & resolve(const Value & root)``) is not one."""
    shape = _link_list_shape(tag)
    return shape.links >= 2 and shape.longest <= _GLUE_WORDS and shape.link_chars * 2 >= shape.chars


def _drop_link_lists(root: Any) -> None:
    """Drop every link list, innermost first, with the caption above it (``Contents``, DocBook's ``Table of
    Contents``): a block that holds nothing else but at most three words before the list goes with it."""
    for tag in reversed(root.find_all(list(_LINK_LIST_TAGS))):
        if tag.decomposed or tag.parent is None or not _is_link_list(tag):
            continue
        dropped = tag
        while dropped.parent is not root and dropped.parent.name in _LINK_LIST_TAGS and _is_caption_of(dropped):
            dropped = dropped.parent
        dropped.decompose()


def _is_caption_of(block: Any) -> bool:
    """Whether all that ``block``'s parent holds beside it is a caption above it: at most three words before it, no
    link, code or heading among them, nothing after it. Text after a list is not its caption (Doxygen's page title
    follows its member-list links in one ``div.header``)."""
    if any(_clean(_plain(node)) for node in block.next_siblings):
        return False
    before = list(block.previous_siblings)
    if any(_is_tag(node) and _holds_more_than_words(node) for node in before):
        return False
    return len(" ".join(_plain(node) for node in before).split()) <= _CAPTION_WORDS


def _holds_more_than_words(tag: Any) -> bool:
    """A link, code or a heading is, or is inside, ``tag``: more than a caption's words."""
    kinds = ["pre", "code", *_HEADINGS]
    if tag.name in kinds or (tag.name == "a" and tag.has_attr("href")):
        return True
    return tag.find(kinds) is not None or tag.find("a", href=True) is not None


def _plain(node: Any) -> str:
    return node.get_text() if _is_tag(node) else str(node)


# --------------------------------------------------------------------------------------------- title


def _clean(text: str) -> str:
    return _SPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def _page_title(raw: str, root: Any) -> str | None:
    """``<title>``, else the first ``<h1>`` or element of class ``title`` (Doxygen's, DocBook's), whichever comes
    first; ``None`` when the page has none of them."""
    if raw:
        return raw
    for tag in root.find_all(lambda t: t.name == "h1" or "title" in _tokens(t)):
        if text := _clean(_inline_text(tag).replace("\n", " ")):
            return text
    return None


_SITE_SEPARATOR = re.compile(r"\s+(?:[-–—|·]|::)\s+|\s+(?=\()|(?<=\S):\s+")


def without_site_part(titles: Sequence[str]) -> list[str]:
    """``titles`` with the site part each shares with another title dropped: the longest suffix (or prefix) set
    off by a separator (`` — ``, `` – ``, `` - ``, `` | ``, `` · ``, ``::``, ``:``, a parenthesis) that two or
    more distinct titles end (or start) with.

    ``Exception Handling — Click Documentation (8.1.x)`` beside ``Testing Click Applications — Click
    Documentation (8.1.x)`` is ``Exception Handling``; ``Rounding (GNU MPFR 4.2.0)`` beside ``Exceptions (GNU
    MPFR 4.2.0)`` is ``Rounding``. A title no other title shares a part with is kept whole (one page cannot
    tell its own subtitle, ``About Lynx – Who, What, and When``, from a site's name).
    """
    distinct = list(dict.fromkeys(titles))
    suffixes: dict[str, int] = {}
    prefixes: dict[str, int] = {}
    for title in distinct:
        for found in _SITE_SEPARATOR.finditer(title):
            if found.start() > 0:
                suffixes[title[found.start() :]] = suffixes.get(title[found.start() :], 0) + 1
            if found.group().strip() and found.end() < len(title):  # a prefix ends at a separator, never at "("
                prefixes[title[: found.end()]] = prefixes.get(title[: found.end()], 0) + 1
    kept: list[str] = []
    for title in titles:
        shared = [s for s in suffixes if suffixes[s] >= 2 and title.endswith(s) and len(s) < len(title)]
        if shared:
            title = title[: len(title) - max(map(len, shared))].rstrip()
        shared = [p for p in prefixes if prefixes[p] >= 2 and title.startswith(p) and len(p) < len(title)]
        if shared:
            title = title[max(map(len, shared)) :].lstrip()
        kept.append(title)
    return kept


# --------------------------------------------------------------------------------------------- text


def _script(mark: str, text: str) -> str:
    """``^2``, ``^(n-1)``: a superscript or subscript as plain text."""
    text = text.strip()
    if not text:
        return ""
    return f"{mark}{text}" if re.fullmatch(r"[\w.]+", text) else f"{mark}({text})"


def _is_footnote_mark(tag: Any) -> bool:
    links = tag.find_all("a")
    return (
        len(links) == 1
        and str(links[0].get("href") or "").startswith("#")
        and _clean(links[0].get_text()) == _clean(tag.get_text())
    )


def _is_note_reference(tag: Any) -> bool:
    """A footnote mark that Docutils and Sphinx write as a link and set off with CSS brackets (``PEP 557[2]``)."""
    return "footnote-reference" in _tokens(tag) or str(tag.get("role") or "").lower() == "doc-noteref"


def _inline_text(node: Any) -> str:
    """The text of inline content as shown: whitespace as the browser collapses it, ``<br>`` a line break."""
    return _inline_of(list(node.children))


def _inline_of(nodes: list[Any]) -> str:
    """:func:`_inline_text` of a run of sibling nodes."""
    from bs4 import NavigableString

    parts: list[str] = []

    def walk(children: Any) -> None:
        for child in children:
            if isinstance(child, NavigableString):
                parts.append(_SPACE.sub(" ", str(child)))
            elif child.name == "br":
                parts.append(_BREAK)
            elif child.name == "a" and _is_note_reference(child):
                shown = _clean(_inline_text(child))
                parts.append(shown if shown.startswith("[") else f"[{shown}]")
            elif child.name in ("sup", "sub"):
                inner = _clean(_inline_text(child))
                if child.name == "sup" and _is_footnote_mark(child):
                    parts.append(f"[{inner}]")
                else:
                    parts.append(_script("^" if child.name == "sup" else "_", inner))
            else:
                walk(child.children)

    walk(nodes)
    lines = [_clean(line) for line in "".join(parts).split(_BREAK)]
    return "\n".join(line for line in lines if line)


def _is_data_table(table: Any) -> bool:
    """A table of data (rows of cells) rather than a layout grid: it has header cells, a head or a caption.

    A layout table (a signature laid out in cells, a member list beside its descriptions) is read a row per
    line with its cells side by side, as the eye reads it.
    """
    if str(table.get("role") or "").lower() in ("presentation", "none"):
        return False
    return table.find(["th", "thead", "caption"]) is not None


def _has_block(tag: Any) -> bool:
    return any(d.name not in INLINE_TAGS and d.name != "br" for d in tag.find_all(True))


class _Writer:
    """Collects the blocks of the main content as Markdown-shaped lines, a blank line between blocks."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.depth = 0

    def text(self) -> str:
        return "\n\n".join(block for block in self.blocks if block.strip()) + "\n" if self.blocks else ""

    def add(self, block: str) -> None:
        if block.strip():
            self.blocks.append(block)

    def paragraph(self, pieces: list[Any]) -> None:
        self.add(_inline_of(pieces))

    def container(self, node: Any) -> None:
        """Inline runs become paragraphs; block children are written by their kind."""
        from bs4 import NavigableString

        run: list[Any] = []
        for child in list(node.children):
            if isinstance(child, NavigableString) or (
                child.name in INLINE_TAGS and not _has_block(child) or child.name == "br"
            ):
                run.append(child)
                continue
            if run:
                self.paragraph(run)
                run = []
            self.block(child)
        if run:
            self.paragraph(run)

    def block(self, tag: Any) -> None:
        name = tag.name
        if name in _HEADINGS:
            text = _inline_text(tag).replace("\n", " ")
            if text:
                self.add("#" * int(name[1]) + " " + text)
        elif name == "pre":
            self.code(tag.get_text())
        elif name in ("ul", "ol", "menu", "dir"):
            self.items(tag)
        elif name == "dl":
            self.definitions(tag)
        elif name == "table":
            self.table(tag)
        elif name == "hr":
            return
        else:
            self.container(tag)

    def code(self, text: str) -> None:
        lines = text.replace("\r\n", "\n").strip("\n").split("\n")
        if not any(line.strip() for line in lines):
            return
        fence = "```"
        while any(line.lstrip().startswith(fence) for line in lines):
            fence += "`"
        self.add("\n".join([fence, *(line.rstrip() for line in lines), fence]))

    def items(self, tag: Any) -> None:
        ordered = tag.name == "ol"
        number = int(tag.get("start") or 1) if str(tag.get("start") or "1").lstrip("-").isdigit() else 1
        indent = "  " * self.depth
        lines: list[str] = []
        for item in tag.find_all("li", recursive=False):
            marker = f"{number}. " if ordered else "- "
            number += 1
            inner = _Writer()
            inner.depth = self.depth + 1
            inner.container(item)
            first, *rest = inner.blocks or [""]
            if first.startswith(("#", "```", "|", "  ")):
                lines.append(indent + marker.rstrip())
                rest = [first, *rest]
            else:
                hang = "\n" + indent + " " * len(marker)
                lines.append(indent + marker + hang.join(first.split("\n")))
            for block in rest:
                if block.startswith("  "):  # a nested list keeps its own indentation
                    lines.append(block)
                else:
                    self._flush(lines)
                    self.add(block)
        self._flush(lines)

    def _flush(self, lines: list[str]) -> None:
        if lines:
            self.add("\n".join(lines))
            lines.clear()

    def definitions(self, tag: Any) -> None:
        for child in tag.find_all(["dt", "dd"], recursive=False) or tag.find_all(["dt", "dd"]):
            if child.name == "dt":
                if _has_block(child):
                    self.container(child)
                else:  # a <br> between terms (DocBook's several terms of one entry) reads as two <dt>: a term each
                    for term in _inline_text(child).split("\n"):
                        self.add(term)
            else:
                self.container(child)

    def table(self, tag: Any) -> None:
        caption = tag.find("caption")
        if caption is not None:
            self.add(_inline_text(caption).replace("\n", " "))
        rows = [r for r in tag.find_all("tr") if r.find_parent("table") is tag]
        data = _is_data_table(tag)
        lines: list[str] = []
        for index, row in enumerate(rows):
            cells = row.find_all(["td", "th"], recursive=False)
            if any(cell.find(_BLOCKS_IN_CELL) is not None for cell in cells):
                self._flush(lines)
                for cell in cells:
                    self.container(cell)
                continue
            texts = [_inline_text(cell).replace("\n", " ").replace("|", "\\|") for cell in cells]
            if sum(1 for t in texts if t) <= 1 or not data:
                self._flush(lines)
                self.add(" ".join(t.replace("\\|", "|") for t in texts if t))
                continue
            lines.append("| " + " | ".join(texts) + " |")
            if index == 0 and all(cell.name == "th" for cell in cells):
                lines.append("|" + " --- |" * len(cells))
        self._flush(lines)

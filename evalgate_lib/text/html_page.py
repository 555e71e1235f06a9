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
  image maps and SVG drawings (syntax diagrams) are not text and are left out;
* **what the reader does not see is not text**: code lines a generator hides (mdBook's
  ``span.boring``), icon glyphs (private-use code points such as MkDocs' permalink U+F0C1, and
  the elements of an icon font: ``<i class="fa fa-search">``) and a site header's logo block with
  its tagline (SQLite's "Small. Fast. Reliable. Choose any three.").

A link list *inside the article's flow* stays: a data table (a header row, a caption) and a list or
table that a sentence of the article introduces (``The default profile if none is specified
is:``) carry the page's facts, whatever share of them is links.

Every walk of the tree here runs without Python recursion (:mod:`evalgate_lib.text.iterative`), and
a page nested deeper than :data:`MAX_DEPTH` elements is refused before it is parsed
(:func:`nesting_depth`), so a page of 200,000 nested ``<div>``s is refused in a second instead of
failing with ``RecursionError`` or running for minutes.

The text is Markdown-shaped on purpose: the chunkers cut it at its ``#`` headings and the
judge reads it through the Markdown reader (:mod:`evalgate_lib.text.markup`). Parsing is
Beautiful Soup's ``html.parser`` (pure Python, no network, deterministic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.text.iterative import Walk, run

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
#: Class or id values (whole tokens) that name page chrome in every generator that uses them: ``toc`` is a table of
#: contents (DocBook's ``tr.toc`` row of questions above each Q and A section, Doxygen's ``div.toc``).
CHROME_TOKENS = frozenset("footer sidebar breadcrumb breadcrumbs skip-link toc".split())
#: A class or id value (a whole token) that names navigation: ``nav`` or ``navigation`` alone or joined to what it is
#: or where it sits (``navbar``, DocBook's ``navheader`` and ``navfooter``, ``nav-links``). A whole token only:
#: ``wy-nav-content`` (the Read the Docs theme's main content) or ``nav-item`` names no navigation block.
NAV_TOKEN = re.compile(r"nav(?:igation)?(?:[-_]?(?:bar|header|footer|menu|links))?")
#: Class tokens of what a generator hides from the reader with its stylesheet: mdBook's hidden code lines
#: (``<span class="boring">``: the ``fn main() {`` wrapper of a doctest), Bootstrap's ``d-none``.
HIDDEN_TOKENS = frozenset("boring d-none".split())
#: Class tokens (or their prefixes, ending in ``-``) of icon fonts: the element shows a glyph, not text
#: (Font Awesome's ``fa fa-search``, Bootstrap's ``glyphicon``, Material's ``material-icons``, whose text is a
#: ligature name such as ``search`` drawn as a picture).
ICON_TOKENS = frozenset(
    "fa fas far fab fal fad icon glyphicon material-icons material-symbols-outlined octicon".split()
)
ICON_PREFIXES = ("fa-", "icon-", "glyphicon-", "octicon-", "codicon-", "bi-")
#: Private-use code points (U+E000–U+F8FF and planes 15–16): icon-font glyphs, which no reader reads as text.
_PRIVATE_USE_RANGES = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
PRIVATE_USE = re.compile(f"[{_PRIVATE_USE_RANGES}]")
#: The deepest nesting of elements a page may have (as Python's HTML parser nests them, unclosed ``<p>`` and
#: ``<li>`` inside the one before): deeper than any page of eleven generators' documentation (SQLite's deepest,
#: with its unclosed list items, nests 2,792 levels), far below what makes the reading slow.
MAX_DEPTH = 10_000
#: Nested lists are indented at most this many levels; deeper items line up with the last. Written out in full, a
#: list nested thousands of levels deep is millions of spaces, copied once per level; even at 32 levels a page of
#: 330 nested lists read as lines of 64 spaces and a word, and its four longest chunks were 17,140 characters for
#: 499 words, a prompt ``run`` refused as too long for the context. No page of the eleven generators' documentation
#: nests lists more than five deep.
_INDENT_LEVELS = 8
#: Words a site header's block may hold beside its logo and links: a tagline, never an article's paragraph.
_TAGLINE_WORDS = 12
#: Block elements a link list (navigation) is looked for in.
_LINK_LIST_TAGS = frozenset("div ul ol dl table center blockquote".split())
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: A heading's permalink signs (Sphinx's ``¶``, others' ``#``, ``§``, a link or an anchor emoji).
PERMALINK_SIGNS = frozenset({"¶", "#", "§", "🔗", "\u2693"})
_SPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u2002-\u200a\u202f\u205f\u3000]+")
_INVISIBLE = re.compile(f"[\u200b\u200c\u200d\u2060\ufeff\u00ad{_PRIVATE_USE_RANGES}]")
_GLUE_WORDS = 2
_CAPTION_WORDS = 3
_REFRESH = re.compile(r"\s*0*(?:\.0*)?\s*[;,]\s*(?:url\s*=\s*)?['\"]?([^'\"]+)", re.I)
_BLOCKS_IN_CELL = ["p", "pre", "ul", "ol", "dl", "table", *_HEADINGS]
_BREAK = "\x00"  # a <br> while inline text is collected (text nodes never hold NUL: the corpus refuses it)


@dataclass(frozen=True)
class HtmlPage:
    """A page as read: its title (``None`` when the page has none), its main content as text, where it sends
    the browser at once (``<meta http-equiv="refresh" content="0; url=…">``: a page no reader ever sees), if it
    does, and the program its ``<meta name="generator">`` names (attribute order and quoting as any writer left
    them: the corpus tells EvalGate's own pages by it), if it names one."""

    title: str | None
    text: str
    redirect: str | None = None
    generator: str | None = None
    #: The ``<title>`` as written (whitespace collapsed), before a site part is dropped from it; ``None`` without one.
    written_title: str | None = None


def read_html_page(markup: str) -> HtmlPage:
    """The title and main-content text of one HTML page (see the module's description for the rules).

    A page nested deeper than :data:`MAX_DEPTH` elements is refused (:class:`InputError`, said in one line)
    before it is parsed."""
    from bs4 import BeautifulSoup

    check_depth(markup)
    soup = BeautifulSoup(markup, "html.parser")
    raw_title = _clean(soup.title.get_text()) if soup.title is not None else ""
    redirect = _redirect(soup)
    generator = _generator(soup)
    shown = _clean((soup.body or soup).get_text(" ")) if raw_title else ""
    root = main_content(soup)
    title = _page_title(raw_title, root, shown)
    writer = _Writer()
    run(writer.container(root))
    return HtmlPage(title, writer.text(), redirect, generator, raw_title or None)


# --------------------------------------------------------------------------------------------- how deep


_VOID = frozenset(
    "area base basefont bgsound br col command embed frame hr image img input isindex keygen link menuitem meta "
    "nextid param source spacer track wbr".split()
)
_TAG = re.compile(r"<(?:(!--)|(/?)([A-Za-z][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>)")


def nesting_depth(markup: str, stop: int | None = None) -> int:
    """How deep elements nest in ``markup`` as Python's HTML parser builds the tree, in one linear scan.

    The parser (Beautiful Soup's ``html.parser``) closes nothing a page leaves open: ``<li>a<li>b`` nests the
    second item in the first. So here: a start tag opens an element (not a void one such as ``<br>``, nor
    ``<x/>``), an end tag closes the innermost open element of its name and all opened after it, or nothing
    when none is open; comments and the text of ``<script>`` and ``<style>`` hold no tags. ``stop``: return as
    soon as the depth passes it.
    """
    open_tags: list[str] = []
    counts: dict[str, int] = {}
    deepest = 0
    at = 0
    while (found := _TAG.search(markup, at)) is not None:
        at = found.end()
        if found.group(1):  # a comment runs to its "-->" (an unclosed one: to the end)
            close = markup.find("-->", found.start() + 4)
            at = len(markup) if close < 0 else close + 3
            continue
        name = found.group(3).lower()
        if found.group(2):
            if counts.get(name):
                while True:
                    last = open_tags.pop()
                    counts[last] -= 1
                    if last == name:
                        break
            continue
        if name in ("script", "style"):
            close = markup.lower().find(f"</{name}", at) if len(markup) < 1 << 16 else _find_close(markup, name, at)
            at = len(markup) if close < 0 else close
            continue
        if name in _VOID or found.group(4).rstrip().endswith("/"):
            continue
        open_tags.append(name)
        counts[name] = counts.get(name, 0) + 1
        if len(open_tags) > deepest:
            deepest = len(open_tags)
            if stop is not None and deepest > stop:
                return deepest
    return deepest


def _find_close(markup: str, name: str, at: int) -> int:
    """Where ``</name`` (any case) next starts at or after ``at``, else -1 (without lower-casing a long page)."""
    found = re.compile(f"</{name}", re.I).search(markup, at)
    return -1 if found is None else found.start()


def check_depth(markup: str) -> None:
    """Refuse a page whose elements nest deeper than :data:`MAX_DEPTH` (:func:`nesting_depth`), in one line."""
    depth = nesting_depth(markup, stop=MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise InputError(
            f"its elements nest more than {MAX_DEPTH:,} levels deep (as the HTML parser reads its open tags); "
            f"EvalGate reads pages nested at most {MAX_DEPTH:,} levels: close the elements the page leaves open, "
            "or move it out of the corpus"
        )


def main_content(soup: Any) -> Any:
    """The element holding a parsed page's main content, with its chrome and link lists dropped (in place).

    The one place the page-chrome rules are applied: documents here, and HTML answers and passages
    in answer logs through the judge's reader (:mod:`evalgate_lib.text.markup`), so a logged passage
    that still carries its site menu is read as the corpus reads that page."""
    _drop_site_header(soup)
    _drop_chrome(soup)
    root = _main_root(soup)
    _drop_link_lists(root)
    return root


def _redirect(soup: Any) -> str | None:
    """The address an immediate ``<meta http-equiv="refresh">`` sends the browser to (delay 0), if any."""
    for meta in soup.find_all("meta"):
        if str(meta.get("http-equiv") or "").lower() != "refresh":
            continue
        found = _REFRESH.match(str(meta.get("content") or ""))
        if found:
            return found.group(1).strip()
    return None


def _generator(soup: Any) -> str | None:
    """What the page's ``<meta name="generator" content="…">`` says wrote it, if it says."""
    for meta in soup.find_all("meta"):
        if str(meta.get("name") or "").lower() == "generator":
            return str(meta.get("content") or "").strip() or None
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


def _is_icon(tag: Any, tokens: set[str]) -> bool:
    """An element of an icon font (``<i class="fa fa-search">``, ``<span class="material-icons">search</span>``):
    it draws a glyph; what text it holds is a code point or a ligature's name, not words of the page."""
    if tag.name not in ("i", "span", "em"):
        return False
    classes = {str(c).lower() for c in (tag.get("class") or [])}
    return bool(classes & ICON_TOKENS) or any(c.startswith(ICON_PREFIXES) for c in classes) and not tag.find(True)


def _is_chrome(tag: Any, in_section: bool) -> bool:
    """Page chrome or invisible: dropped with everything inside it. ``in_section``: ``tag`` is inside an
    ``<article>``, ``<section>`` or ``<main>`` (where a ``<header>`` or ``<footer>`` is the section's own)."""
    name = tag.name
    if name in DROPPED_TAGS:
        return True
    role = str(tag.get("role") or "").lower()
    if role in CHROME_ROLES:
        return True
    if name in ("header", "footer", "address") and not in_section:
        return True
    if tag.has_attr("hidden") or str(tag.get("aria-hidden") or "").lower() == "true":
        return True
    style = re.sub(r"\s+", "", str(tag.get("style") or "")).lower()
    if "display:none" in style or "visibility:hidden" in style:
        return True
    tokens = _tokens(tag)
    if tokens & CHROME_TOKENS or any(NAV_TOKEN.fullmatch(token) for token in tokens):
        return True
    if tokens & HIDDEN_TOKENS or _is_icon(tag, tokens):
        return True
    if name != "a" or not str(tag.get("href") or "").startswith("#"):
        return False
    shown = _clean(tag.get_text())
    return shown in PERMALINK_SIGNS or (not shown and "headerlink" in tokens)


def _drop_chrome(soup: Any) -> None:
    """Drop comments and every chrome element (:func:`_is_chrome`), in one walk of the tree (no recursion)."""
    from bs4 import Comment, Declaration, Doctype, ProcessingInstruction

    for node in soup.find_all(string=True):
        if isinstance(node, (Comment, Doctype, Declaration, ProcessingInstruction)):
            node.extract()
    stack: list[tuple[Any, bool]] = [(soup, False)]
    while stack:
        node, in_section = stack.pop()
        for child in list(node.children):
            if not _is_tag(child):
                continue
            if _is_chrome(child, in_section):
                child.decompose()
            else:
                stack.append((child, in_section or child.name in ("article", "section", "main")))


def _is_logo(tag: Any) -> bool:
    """A site's logo: an image named so (``class="logo"``, ``…/logo.png``), or the only content of a link home."""
    if tag.name not in ("img", "svg", "picture"):
        return False
    named = " ".join([*_tokens(tag), str(tag.get("src") or "").rsplit("/", 1)[-1]]).lower()
    if "logo" in named:
        return True
    link = tag.find_parent("a")
    href = str(link.get("href") or "") if link is not None else "#"
    home = re.fullmatch(r"(?:\.\./)*(?:\./)?(?:index\.html?)?|/", href) is not None
    return home and link is not None and not _clean(link.get_text())


def _words_beside_links(tag: Any) -> int:
    """Words of ``tag``'s visible text outside links, scripts, forms and other dropped elements."""
    from bs4 import NavigableString

    count = 0
    for node in tag.find_all(string=True):
        if type(node) is not NavigableString:
            continue
        if any(p.name == "a" or p.name in DROPPED_TAGS for p in _parents_below(node, tag)):
            continue
        count += len(str(node).split())
    return count


def _parents_below(node: Any, top: Any) -> Iterator[Any]:
    for parent in node.parents:
        if parent is top:
            return
        yield parent


def _drop_site_header(soup: Any) -> None:
    """Drop a site header's logo block: the largest block around a logo (:func:`_is_logo`) seen before the page's
    first heading that holds no heading and at most a tagline of words beside its links (SQLite's "Small. Fast.
    Reliable. Choose any three." under its banner). A tagline sits outside any menu, so the menu rules miss it."""
    first_heading = soup.find(_HEADINGS)
    logo = soup.find(_is_logo)
    if logo is None or (first_heading is not None and _follows(logo, first_heading)):
        return
    body = soup.body or soup
    block = None
    for parent in logo.parents:
        if parent is body or parent.name in ("html", "[document]", "main", "article") or parent.find(_HEADINGS):
            break
        if str(parent.get("role") or "").lower() == "main" or _words_beside_links(parent) > _TAGLINE_WORDS:
            break
        block = parent
    if block is not None:
        block.decompose()


def _follows(tag: Any, other: Any) -> bool:
    """Whether ``tag`` comes after ``other`` in the document (``other`` among the elements before it)."""
    return any(node is other for node in tag.find_all_previous(other.name))


def _main_root(soup: Any) -> Any:
    """The page's main content: ``<main>`` / ``role="main"``, else its one ``<article>``, else the body."""
    main = soup.find(lambda t: t.name == "main" or str(t.get("role") or "").lower() == "main")
    if main is not None:
        return main
    articles = _outermost(soup, "article")
    if len(articles) == 1:
        return articles[0]
    return soup.body or soup


def _outermost(root: Any, name: str) -> list[Any]:
    """The ``name`` elements under ``root`` that are not inside another one, in document order (one walk)."""
    found: list[Any] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node is not root and node.name == name:
            found.append(node)
            continue
        stack.extend(reversed([c for c in node.children if _is_tag(c)]))
    return found


@dataclass
class _LinkShape:
    """What a block's text is made of: its links, their characters, all its characters, the longest label."""

    links: int = 0
    link_chars: int = 0
    chars: int = 0
    longest: int = 0


def _is_content_block(tag: Any) -> bool:
    """Code, a heading, or a table of data: text that is never a link list's label."""
    return tag.name in ("pre", "code", "kbd", "samp", "tt", "var", *_HEADINGS) or (
        tag.name == "table" and _is_data_table(tag)
    )


def _link_list_shape(tag: Any) -> _LinkShape:
    """Links, link characters and all (non-space) characters in ``tag``'s text, and its longest run of words
    outside a link; code, headings and data tables count as a run too long to be a label. One walk, no recursion."""
    from bs4 import NavigableString

    shape = _LinkShape()
    run_words = 0

    def close() -> None:
        nonlocal run_words
        shape.longest = max(shape.longest, run_words)
        run_words = 0

    stack: list[Any] = [iter(tag.children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        if isinstance(child, NavigableString):
            run_words += sum(1 for w in str(child).split() if any(ch.isalnum() for ch in w))
            shape.chars += len("".join(str(child).split()))
        elif isinstance(child, _Close):
            close()
        elif child.name == "a" and child.get("href") is not None:
            close()
            shown = "".join(child.get_text().split())
            shape.links += bool(shown)
            shape.link_chars += len(shown)
            shape.chars += len(shown)
        elif _is_content_block(child):
            close()
            shape.longest = max(shape.longest, _GLUE_WORDS + 1)
            shape.chars += len("".join(child.get_text().split()))
        elif child.name in INLINE_TAGS:
            stack.append(iter(child.children))
        else:
            close()
            stack.append(iter((_CLOSE,)))
            stack.append(iter(child.children))
    close()
    return shape


class _Close:
    """A marker in a walk: the end of a block, which ends a run of words."""


_CLOSE = _Close()


def _is_link_list(tag: Any) -> bool:
    """Two or more links that make most of the text, joined only by labels of at most two words and punctuation
    (``Next: X, Previous: Y, Up: Z [Index]``): navigation. A sentence with links in it (``Definition at line 48 of
    file json_features.h``) or a signature (``const Value & resolve(const Value & root)``) is not one, nor a block
    of links in the article's flow (:func:`_in_flow`)."""
    shape = _link_list_shape(tag)
    if shape.links < 2 or shape.longest > _GLUE_WORDS or shape.link_chars * 2 < shape.chars:
        return False
    return not _in_flow(tag)


def _in_flow(tag: Any) -> bool:
    """Whether a block of links is part of the article's flow, so its facts stay: a table of data (a header row,
    a caption), or a list or table that a sentence of the article introduces (the text just before it ends with
    ``:`` and has more words than a caption: ``The default profile if none is specified is:``; a link's own words
    introduce nothing). Menus, "Next / Previous" bars, tables of contents and index lists stand apart from the
    prose around them."""
    if tag.name == "table" and _is_data_table(tag):
        return True
    before = tag.find_previous(string=lambda s: bool(s.strip()) and type(s).__name__ == "NavigableString")
    if before is None or not _clean(str(before)).endswith(":"):
        return False
    if before.find_parent("a", href=True) is not None:
        return False  # a link's own words ("… dies like this:" in the entry above) introduce nothing
    block = next((p for p in before.parents if p.name not in INLINE_TAGS), None)
    if block is None or any(p is block for p in tag.parents):
        return False
    return len(_clean(block.get_text()).split()) > _CAPTION_WORDS


def _drop_link_lists(root: Any) -> None:
    """Drop every link list (:func:`_is_link_list`), innermost first, with the
    caption above it (``Contents``, DocBook's ``Table of Contents``): a block that holds nothing else but at most
    three words before the list goes with it. A block without a link is never one, so it is not walked."""
    linked = _with_links(root)
    for tag in reversed(root.find_all(list(_LINK_LIST_TAGS))):
        if _gone(tag) or id(tag) not in linked:
            continue
        if not _is_link_list(tag):
            continue
        dropped = tag
        while dropped.parent is not root and dropped.parent.name in _LINK_LIST_TAGS and _is_caption_of(dropped):
            dropped = dropped.parent
        dropped.decompose()


def _gone(tag: Any) -> bool:
    """Whether ``tag`` was dropped with an element around it. Read from the tag's own fields: Beautiful Soup's
    ``decomposed`` looks its flag up as an attribute, which an intact tag answers by searching its whole subtree
    for a child named ``_decomposed`` (quadratic over a deep page)."""
    return bool(tag.__dict__.get("_decomposed")) or tag.parent is None


def _with_links(root: Any) -> set[int]:
    """Ids of the elements under ``root`` that hold a link (``<a href>``), found from each link upwards once."""
    found: set[int] = set()
    for link in root.find_all("a", href=True):
        for parent in link.parents:
            if id(parent) in found:
                break
            found.add(id(parent))
            if parent is root:
                break
    return found


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


def _page_title(raw: str, root: Any, shown: str = "") -> str | None:
    """``<title>`` less a site part the page shows as such (:func:`_without_own_site_part`; ``shown`` is the
    page's visible text), else the first ``<h1>`` or element of class ``title`` (Doxygen's, DocBook's), whichever
    comes first; ``None`` when the page has none of them."""
    if raw:
        heading = root.find(_HEADINGS)
        own = _clean(_inline_text(heading).replace("\n", " ")) if heading is not None else ""
        return _without_own_site_part(raw, own, shown)
    for tag in root.find_all(lambda t: t.name == "h1" or "title" in _tokens(t)):
        if text := _clean(_inline_text(tag).replace("\n", " ")):
            return text
    return None


_SITE_SEPARATOR = re.compile(r"\s+(?:[-–—|·]|::)\s+|\s+(?=\()|(?<=\S):\s+")


def _without_own_site_part(title: str, heading: str, shown: str) -> str:
    """``title`` as its page's first heading when the title is that heading followed, set off by a separator, by a
    part the page shows elsewhere as a name of its own (mdBook's ``Customizing Builds with Release Profiles - The Rust
    Programming Language``, whose menu bar reads ``The Rust Programming Language``); else the title as it is. A
    part the page does not show (``About Lynx – Who, What, and When``) may be the page's own subtitle: one page
    cannot tell, and :func:`without_site_part` tells it across a corpus."""
    if not heading or heading == title:
        return title
    cut = _SITE_SEPARATOR.match(title, len(heading)) if title.startswith(heading) else None
    if cut is None:
        return title
    rest = title[cut.end() :].strip("() ")
    return heading if rest and rest in shown.replace(title, "") else title


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
    return run(_inline_walk(nodes))


def _inline_walk(nodes: list[Any]) -> Walk:
    """:func:`_inline_of` as a walk (:mod:`evalgate_lib.text.iterative`): an element inside a superscript or a
    footnote mark is read by a walk of its own, so no depth of nesting recurses."""
    from bs4 import NavigableString

    parts: list[str] = []
    stack: list[Any] = [iter(nodes)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif isinstance(child, NavigableString):
            parts.append(_SPACE.sub(" ", str(child)))
        elif child.name == "br":
            parts.append(_BREAK)
        elif child.name == "a" and _is_note_reference(child):
            shown = _clean((yield _inline_walk(list(child.children))))
            parts.append(shown if shown.startswith("[") else f"[{shown}]")
        elif child.name in ("sup", "sub"):
            inner = _clean((yield _inline_walk(list(child.children))))
            if child.name == "sup" and _is_footnote_mark(child):
                parts.append(f"[{inner}]")
            else:
                parts.append(_script("^" if child.name == "sup" else "_", inner))
        else:
            stack.append(iter(child.children))
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
    """Collects the blocks of the main content as Markdown-shaped lines, a blank line between blocks.

    Its methods are walks (:mod:`evalgate_lib.text.iterative`): each yields the walk of a nested block instead of
    calling it, so a page nested thousands of levels deep is written without recursion."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.depth = 0

    def text(self) -> str:
        return "\n\n".join(block for block in self.blocks if block.strip()) + "\n" if self.blocks else ""

    def add(self, block: str) -> None:
        if block.strip():
            self.blocks.append(block)

    def paragraph(self, pieces: list[Any]) -> Walk:
        self.add((yield _inline_walk(pieces)))

    def container(self, node: Any) -> Walk:
        """Inline runs become paragraphs; block children are written by their kind. A block that is only a
        container (a ``div``, a ``section``) is walked in place, so its nesting costs nothing."""
        from bs4 import NavigableString

        run_: list[Any] = []
        stack: list[Any] = [iter(list(node.children))]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                if run_:  # the end of a block ends its paragraph
                    yield self.paragraph(run_)
                    run_ = []
                continue
            if isinstance(child, NavigableString) or (
                child.name in INLINE_TAGS and not _has_block(child) or child.name == "br"
            ):
                run_.append(child)
                continue
            if run_:
                yield self.paragraph(run_)
                run_ = []
            if self._is_plain_container(child):
                stack.append(iter(list(child.children)))
            else:
                yield self.block(child)

    @staticmethod
    def _is_plain_container(tag: Any) -> bool:
        return tag.name not in (*_HEADINGS, "pre", "ul", "ol", "menu", "dir", "dl", "table", "hr")

    def block(self, tag: Any) -> Walk:
        name = tag.name
        if name in _HEADINGS:
            text = (yield _inline_walk(list(tag.children))).replace("\n", " ")
            if text:
                self.add("#" * int(name[1]) + " " + text)
        elif name == "pre":
            self.code(tag.get_text())
        elif name in ("ul", "ol", "menu", "dir"):
            yield self.items(tag)
        elif name == "dl":
            yield self.definitions(tag)
        elif name == "table":
            yield self.table(tag)
        elif name == "hr":
            return
        else:
            yield self.container(tag)

    def code(self, text: str) -> None:
        lines = PRIVATE_USE.sub("", text).replace("\r\n", "\n").strip("\n").split("\n")
        if not any(line.strip() for line in lines):
            return
        fence = "```"
        while any(line.lstrip().startswith(fence) for line in lines):
            fence += "`"
        self.add("\n".join([fence, *(line.rstrip() for line in lines), fence]))

    def items(self, tag: Any) -> Walk:
        ordered = tag.name == "ol"
        number = int(tag.get("start") or 1) if str(tag.get("start") or "1").lstrip("-").isdigit() else 1
        indent = "  " * min(self.depth, _INDENT_LEVELS)
        lines: list[str] = []
        for item in tag.find_all("li", recursive=False):
            marker = f"{number}. " if ordered else "- "
            number += 1
            inner = _Writer()
            inner.depth = self.depth + 1
            yield inner.container(item)
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

    def definitions(self, tag: Any) -> Walk:
        for child in tag.find_all(["dt", "dd"], recursive=False) or tag.find_all(["dt", "dd"]):
            if child.name == "dt":
                if _has_block(child):
                    yield self.container(child)
                else:  # a <br> between terms (DocBook's several terms of one entry) reads as two <dt>: a term each
                    for term in (yield _inline_walk(list(child.children))).split("\n"):
                        self.add(term)
            else:
                yield self.container(child)

    def table(self, tag: Any) -> Walk:
        caption = tag.find("caption")
        if caption is not None:
            self.add((yield _inline_walk(list(caption.children))).replace("\n", " "))
        rows = [r for r in tag.find_all("tr") if r.find_parent("table") is tag]
        data = _is_data_table(tag)
        lines: list[str] = []
        for index, row in enumerate(rows):
            cells = row.find_all(["td", "th"], recursive=False)
            if any(cell.find(_BLOCKS_IN_CELL) is not None for cell in cells):
                self._flush(lines)
                for cell in cells:
                    yield self.container(cell)
                continue
            texts = []
            for cell in cells:
                texts.append((yield _inline_walk(list(cell.children))).replace("\n", " ").replace("|", "\\|"))
            if sum(1 for t in texts if t) <= 1 or not data:
                self._flush(lines)
                self.add(" ".join(t.replace("\\|", "|") for t in texts if t))
                continue
            lines.append("| " + " | ".join(texts) + " |")
            if index == 0 and all(cell.name == "th" for cell in cells):
                lines.append("|" + " --- |" * len(cells))
        self._flush(lines)

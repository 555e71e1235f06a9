"""Reading text through its markup: Markdown, reStructuredText and HTML, each with a well-kept parser.

Answers and documents carry markup: Markdown from capable generators and most docs sites,
reStructuredText from Sphinx projects (Python, CMake, Requests), HTML pages. A judge that
reads the raw characters lets the markup decide verdicts: backticks split "C and CXX" so an
accepted phrase is not found, a hard-wrapped paragraph becomes eight one-line "sentences",
a ``.. versionadded::`` line or a ``.. function::`` signature is read as prose. Here each
format is read by its own parser, and what the judge compares is the *reading*:

* **blocks** (:func:`read_blocks`): headings, paragraphs (their wrapped lines joined), list
  items and table rows (each with the list or table they belong to), code lines, and the
  *labels* that frame a block — its section headings and, in API reference documentation,
  the signature of the function, class or option it documents (``.. function:: copyfile(src,
  dst)`` in reStructuredText, ``<dt class="sig">`` in Sphinx HTML);
* **inline text** (:func:`read_inline`): emphasis, links and roles removed, code spans and
  literals kept verbatim and listed (``code``), so ```` `pip cache purge` ```` reads as the
  words ``pip cache purge`` and is known to be code.

Parsers: `markdown-it-py <https://markdown-it-py.readthedocs.io>`_ (CommonMark with tables;
MyST directive fences ```` ```{note} ```` are read as directives), `docutils
<https://docutils.sourceforge.io>`_ (the reference reStructuredText parser; Sphinx's
directives and roles are registered as generic ones, so their content is parsed instead of
becoming an error; file insertion and raw output are off: reading a document never reads
another file), `Beautiful Soup <https://www.crummy.com/software/BeautifulSoup/>`_ for HTML, with the
corpus's page-chrome rules (:func:`evalgate_lib.text.html_page.main_content`) applied first.
Everything here is deterministic and memoised: the same passage recurs in many answers.
"""

from __future__ import annotations

import dataclasses
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Literal

from evalgate_lib.text.tokens import split_plain_sentences

Format = Literal["markdown", "rst", "html"]

#: Directives whose content is code (MyST and Sphinx names); their lines become code blocks.
CODE_DIRECTIVES = frozenset(
    "code code-block sourcecode testcode testoutput doctest literalinclude productionlist pip-cli "
    "parsed-literal highlight-block".split()
)
#: Directives that say in which version something changed: read as Sphinx renders them.
VERSION_DIRECTIVES = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "deprecated-removed": "Deprecated since version",
    "versionremoved": "Removed in version",
}
#: Directives that document one API object: their argument is a signature that labels their content.
SIGNATURE_DIRECTIVES = frozenset(
    "function method class data attribute exception decorator decoratormethod classmethod staticmethod "
    "property envvar option cmdoption describe object type variable command macro member "
    "js:function js:method js:class js:attribute js:data py:function py:method py:class py:attribute "
    "py:data py:exception py:decorator c:function c:macro c:type c:member cpp:function "
    "cpp:class".split()
)
#: The object a signature documents, where parameters follow it ("dump(obj, fp, *, ...)", "Response.json(**kwargs)").
_SIGNATURE_NAME = re.compile(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(")
#: Admonitions that take no title: text after their name is the first line of their content.
BODY_ONLY_DIRECTIVES = frozenset(
    "note warning seealso tip important caution attention danger error hint impl-detail".split()
)
#: Directives whose argument is a title shown over their content (tabs, titled admonitions, sidebars, cards).
TITLED_DIRECTIVES = frozenset("tab tab-item admonition topic sidebar rubric dropdown card".split())
#: Directives that hold no prose (navigation, index entries, settings of the renderer).
SKIPPED_DIRECTIVES = frozenset(
    "index toctree currentmodule highlight sectionauthor moduleauthor codeauthor tabularcolumns only "
    "include raw meta contents sectnum default-role default-domain image figure program module py:module "
    "py:currentmodule".split()
)
#: Roles whose text is prose (a cross-reference's title), not a name to keep verbatim.
PROSE_ROLES = frozenset("ref doc term numref abbr dfn emphasis strong title-reference std:ref".split())
#: Roles Sphinx shows as a literal with ``{variable}`` parts emphasised, ``\\`` one backslash and ``\{`` a brace.
LITERAL_ROLES = frozenset({"file", "samp"})
_LITERAL_PARTS = re.compile(r"(\\\\|\\\{|\\\}|\{|\})")
_LITERAL_ESCAPES = {"\\\\": "\\", "\\{": "{", "\\}": "}", "{": "", "}": ""}
#: Sphinx's Python-domain roles, whose target may open on a dot ("search the current module first": ``.filter``).
PYTHON_ROLES = frozenset("func meth class exc attr data obj mod const".split())


@dataclass(frozen=True)
class Inline:
    """One stretch of inline text as read: plain text, and the code spans in it (verbatim, in order).

    ``code_starts`` are the offsets in ``text`` where a code span begins, so a sentence that
    starts with one (```` `r.json()` raises … ````) can be told from the one before it.
    """

    text: str
    code: tuple[str, ...] = ()
    code_starts: tuple[int, ...] = ()
    #: Link targets (URLs) in it: a link shows its text, but the answer may quote its address.
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Block:
    """One block of a document as read.

    ``kind`` is one of ``heading``, ``paragraph``, ``item`` (a list item), ``row`` (a table row),
    ``header`` (a table's header row), ``code`` (one line of code), ``signature`` (an API object's
    signature) or ``term`` (a definition-list term). ``labels`` are the headings and signatures
    above the block, outermost first. Consecutive items of one list, or rows of one table, share a
    ``group`` number (``-1``: no group); a row's table header is its last label.
    """

    kind: str
    text: str
    code: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    group: int = -1
    code_starts: tuple[int, ...] = ()
    links: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------- format

_RST_SIGNS = re.compile(
    r"^\s*\.\. [\w:-]+::|``[^`\n]+``|:[\w:+.-]+:`[^`\n]+`|^(?:={3,}|-{3,}|~{3,}|\^{3,}|\*{3,})\s*$|::\s*$",
    re.MULTILINE,
)
_MARKDOWN_SIGNS = re.compile(
    r"^\s*#{1,6}\s|^\s*(?:```|~~~)|(?<![`\w])`[^`\n]+`(?!`)|\*\*\S|\[[^\]\n]+\]\([^)\n]+\)|^\s*\|.*\|\s*$",
    re.MULTILINE,
)
_HTML_SIGNS = re.compile(r"<(?:p|div|h[1-6]|li|ul|ol|table|tr|td|th|pre|code|dl|dt|dd|section|span|br)\b[^>]*>", re.I)


@lru_cache(maxsize=8192)
def detect_format(text: str) -> Format:
    """The markup ``text`` is written in, from its signs: HTML tags, reStructuredText's directives,
    double-backtick literals, roles and underlined titles, or Markdown (also for plain text, which
    Markdown reads as itself)."""
    if len(_HTML_SIGNS.findall(text)) >= 2:
        return "html"
    rst = len(_RST_SIGNS.findall(text))
    if rst and rst >= len(_MARKDOWN_SIGNS.findall(text)):
        return "rst"
    return "markdown"


def format_of_name(name: str) -> Format | None:
    """The markup a document file's name says it holds (``.rst``, ``.md``, ``.html`` …), else ``None``."""
    lowered = name.lower().removesuffix(".gz").removesuffix(".txt")
    if lowered.endswith(".rst"):
        return "rst"
    if lowered.endswith((".md", ".markdown")):
        return "markdown"
    if lowered.endswith((".html", ".htm")):
        return "html"
    return None


# --------------------------------------------------------------------------------------------- shared


class _Builder:
    """Collects blocks while a reader walks a document: the label stack and group numbers."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.labels: list[str] = []
        self._groups = 0

    def group(self) -> int:
        self._groups += 1
        return self._groups

    def add(self, kind: str, inline: Inline, group: int = -1, extra_label: str | None = None) -> None:
        text = _WHITESPACE.sub(" ", inline.text).strip() if kind != "code" else inline.text.rstrip()
        if not text.strip():
            return
        shift = len(inline.text) - len(inline.text.lstrip()) if kind != "code" else 0
        starts = tuple(max(0, s - shift) for s in inline.code_starts) if kind != "code" else ()
        labels = tuple(self.labels) + ((extra_label,) if extra_label else ())
        self.blocks.append(Block(kind, text, inline.code, labels, group, starts, inline.links))

    def code(self, text: str) -> None:
        for line in text.split("\n"):
            if line.strip():
                self.add("code", Inline(line, (line.strip(),)))


_WHITESPACE = re.compile(r"\s+")


def _join(pieces: list[tuple[str, bool]], links: list[str] | tuple[str, ...] = ()) -> Inline:
    """An :class:`Inline` from ``(text, is_code)`` pieces and the link targets met on the way."""
    text, code, starts = "", [], []
    for piece, is_code in pieces:
        if is_code:
            starts.append(len(text))
            code.append(piece)
        text += piece
    return Inline(text, tuple(code), tuple(starts), tuple(dict.fromkeys(links)))


# --------------------------------------------------------------------------------------------- Markdown

_ROLE_BEFORE_CODE = re.compile(r"(?:\{([\w:+.-]+)\}|:([\w:+.-]+):)$")
_TITLE_TARGET = re.compile(r"^(.*?)\s*<[^<>]+>$", re.S)


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


def _role_text(role: str, content: str) -> tuple[str, bool]:
    """What a role shows (``{ref}`Caching <caching>``` → "Caching"), and whether it is code.

    A target without a title: ``!`` (no link), ``~`` (show the last component) and, in a Python-domain role, a
    leading ``.`` (search the current module first) say how Sphinx links and abbreviates it; the name read is the
    target, whole (``:func:`.filter``` is "filter", not the dotfile ".filter"; ``:exc:`~requests.exceptions.Timeout```
    keeps its qualifier, which a claim may name; ``:file:`.netrc``` stays a dotfile)."""
    titled = _TITLE_TARGET.match(content)
    kind = role.split(":")[-1]
    literal = kind in LITERAL_ROLES  # no cross-reference: "~" is a home folder, "<...>" part of the text
    shown = content if literal else titled.group(1) if titled else content.lstrip("~!")
    if not titled and kind in PYTHON_ROLES and re.match(r"\.[A-Za-z_]", shown):
        shown = shown[1:]
    if literal:  # {file}`C:\\ProgramData\\pip.ini` shows C:\ProgramData\pip.ini; {samp}`pip {cmd}` shows pip cmd
        shown = "".join(_LITERAL_ESCAPES.get(part, part) for part in _LITERAL_PARTS.split(shown))
    return shown, kind not in PROSE_ROLES


#: HTML's phrasing (inline) elements, obsolete ones included: an inline tag of one of these (or of a block element,
#: markdown-it's list) is markup; any other "<name>" in Markdown is text a writer means literally, a placeholder
#: ("massif.out.<pid>", "--alloc-fn=<name>"), which CommonMark would otherwise read as a tag and drop.
_PHRASING_TAGS = frozenset(
    "a abbr acronym audio b bdi bdo big blink br button canvas cite code data datalist del dfn em embed font i iframe "
    "img input ins kbd label map mark math meter nobr noscript object output picture progress q rp rt ruby s samp "
    "script select slot small span strike strong sub sup svg template textarea time tt u var video wbr".split()
)
_TAG_NAME = re.compile(r"^</?([A-Za-z][A-Za-z0-9-]*)")


def _markup_tag(tag: str) -> str | None:
    """The element an inline HTML token of Markdown is markup of (``b`` for ``<b>``, ``br`` for ``<br/>``; ``!`` for
    a comment, a declaration or a processing instruction), or None for a placeholder (``<pid>``)."""
    from markdown_it.common.html_blocks import block_names

    if tag.startswith(("<!", "<?")):
        return "!"
    found = _TAG_NAME.match(tag)
    name = found.group(1).lower() if found is not None else ""
    return name if name in _PHRASING_TAGS or name in block_names else None


def _markdown_inline(children: list[Any]) -> Inline:
    pieces: list[tuple[str, bool]] = []
    links: list[str] = []
    for child in children:
        kind = child.type
        if kind == "link_open" and child.attrs.get("href"):
            links.append(str(child.attrs["href"]))
        if kind == "text":
            pieces.append((child.content, False))
        elif kind == "code_inline":
            role = _ROLE_BEFORE_CODE.search(pieces[-1][0]) if pieces and not pieces[-1][1] else None
            if role:
                previous = pieces[-1][0]
                pieces[-1] = (previous[: role.start()], False)
                text, is_code = _role_text(role.group(1) or role.group(2), child.content)
                pieces.append((text, is_code))
            else:
                pieces.append((child.content, True))
        elif kind in ("softbreak", "hardbreak"):
            pieces.append((" ", False))
        elif kind == "image":
            pieces.append((child.content or "", False))
        elif kind == "html_inline":
            element = _markup_tag(child.content)
            if element is None:
                pieces.append((child.content, False))  # a placeholder written as it is shown
            elif element == "br":
                pieces.append((" ", False))  # a line break parts two words as a soft break does
        elif child.children:
            pieces.append((_markdown_inline(child.children).text, False))
    return _join(pieces, links)


def _is_orphan_table(token: Any, lines: list[str]) -> bool:
    """A paragraph whose every line is a table row: the rows of a table cut from its header (a passage that
    starts inside a table), which Markdown reads as one paragraph."""
    if not token.map:
        return False
    body = [line for line in lines[token.map[0] : token.map[1]] if line.strip()]
    if len(body) < 2 or not all(_TABLE_ROW.match(line) for line in body[1:]):
        return False
    return "|" in body[0]  # the first line may start inside a row: "20 extra requests |"


_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")


def _orphan_rows(token: Any, lines: list[str], builder: _Builder) -> None:
    group = builder.group()
    for line in lines[token.map[0] : token.map[1]]:
        if not line.strip() or re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", line):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|") if cell.strip()]
        read = [read_inline(cell) for cell in cells]
        builder.add("row", Inline(" | ".join(r.text for r in read), tuple(c for r in read for c in r.code)), group)


def _read_markdown(text: str, builder: _Builder) -> None:
    tokens = _markdown().parse(text)
    lines = text.split("\n")
    heading_levels: list[int] = []
    list_groups: list[int] = []
    item_depth = 0
    table_group = -1
    header = ""
    in_header = False
    row: list[str] = []
    row_code: list[str] = []
    kind_stack: list[str] = []
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open":
            level = int(token.tag[1])
            while heading_levels and heading_levels[-1] >= level:
                heading_levels.pop()
                builder.labels.pop()
            kind_stack.append("heading")
        elif kind == "heading_close":
            kind_stack.pop()
        elif kind in ("bullet_list_open", "ordered_list_open"):
            list_groups.append(builder.group())
        elif kind in ("bullet_list_close", "ordered_list_close"):
            list_groups.pop()
        elif kind == "list_item_open":
            item_depth += 1
        elif kind == "list_item_close":
            item_depth -= 1
        elif kind == "table_open":
            table_group, header = builder.group(), ""
        elif kind == "table_close":
            table_group, header = -1, ""
        elif kind == "thead_open":
            in_header = True
        elif kind == "thead_close":
            in_header = False
        elif kind == "tr_open":
            row, row_code = [], []
        elif kind == "tr_close":
            line = " | ".join(row)
            inline = Inline(line, tuple(row_code))
            if in_header:
                header = line
                builder.add("header", inline, table_group)
            else:
                builder.add("row", inline, table_group, extra_label=header or None)
        elif kind == "inline":
            inline = _markdown_inline(token.children or [])
            if kind_stack and kind_stack[-1] == "heading":
                builder.add("heading", inline)
                heading_levels.append(int(tokens[index - 1].tag[1]))
                builder.labels.append(_WHITESPACE.sub(" ", inline.text).strip())
            elif tokens[index - 1].type in ("th_open", "td_open"):
                row.append(_WHITESPACE.sub(" ", inline.text).strip())
                row_code.extend(inline.code)
            elif item_depth:
                builder.add("item", inline, list_groups[-1] if list_groups else -1)
            elif _is_orphan_table(token, lines):
                _orphan_rows(token, lines, builder)
            else:
                builder.add("paragraph", inline)
        elif kind in ("fence", "code_block"):
            _markdown_fence(token.info.strip() if kind == "fence" else "", token.content, builder)
        elif kind == "html_block":
            for block in read_blocks(token.content, "html"):
                builder.add(block.kind, Inline(block.text, block.code), block.group)
    del builder.labels[len(builder.labels) - len(heading_levels) :]


_MYST = re.compile(r"^\{([\w:-]+)\}\s*(.*)$")


def _markdown_fence(info: str, content: str, builder: _Builder) -> None:
    """A fenced block: code, or a MyST directive (```` ```{note} ````) whose content is Markdown again."""
    myst = _MYST.match(info)
    if not myst:
        builder.code(content)
        return
    name, argument = myst.group(1).lower(), myst.group(2).strip()
    body = "\n".join(line for line in content.split("\n") if not re.match(r"^:[\w-]+:", line))
    if name in BODY_ONLY_DIRECTIVES and argument:  # MyST reads "{note} Text" as the note's first line
        body, argument = f"{argument}\n{body}", ""
    if name in CODE_DIRECTIVES:
        builder.code(body)
    elif name in SKIPPED_DIRECTIVES:
        return
    elif name in VERSION_DIRECTIVES:
        first, *rest = [b for b in read_blocks(body, "markdown")] or [None]
        lead = f"{VERSION_DIRECTIVES[name]} {argument}".strip()
        text = f"{lead}: {first.text}" if first is not None else f"{lead}."
        builder.add("paragraph", Inline(text, first.code if first else ()))
        for block in rest:
            builder.add(block.kind, Inline(block.text, block.code), block.group)
    else:
        # an argument labels the content as shown: a signature (its object's name is code), or a title ("{tab}
        # MacOS" over "~/Library/Caches/pip"); any other is text of its own, as in reStructuredText
        labelled = name in SIGNATURE_DIRECTIVES or name in TITLED_DIRECTIVES
        if argument and name in SIGNATURE_DIRECTIVES:
            builder.add("signature", _named(Inline(argument, (argument,))))
        elif argument:
            builder.add("heading" if labelled else "paragraph", Inline(argument))
        if argument and labelled:
            builder.labels.append(argument)
        for block in read_blocks(body, "markdown"):
            builder.blocks.append(
                Block(
                    block.kind,
                    block.text,
                    block.code,
                    tuple(builder.labels) + block.labels,
                    block.group,
                    block.code_starts,
                )
            )
        if argument and labelled:
            builder.labels.pop()


# --------------------------------------------------------------------------------------------- reStructuredText

_RST_DIRECTIVE_NAME = re.compile(r"^\s*\.\.\s+([\w:+.-]+)::", re.MULTILINE)
_RST_ROLE_NAME = re.compile(r"(?<![\w`]):([\w:+.-]+):`")


def _docutils_settings() -> Any:
    import docutils.frontend
    from docutils.parsers.rst import Parser

    settings = docutils.frontend.get_default_settings(Parser)
    settings.report_level = 5  # nothing is reported: a fragment of a document is not an error
    settings.halt_level = 5
    settings.warning_stream = io.StringIO()
    settings.file_insertion_enabled = False  # never read another file (.. include::)
    settings.raw_enabled = False  # never pass raw HTML through
    settings.character_level_inline_markup = False
    return settings


@lru_cache(maxsize=1)
def _rst_machinery() -> tuple[Any, Any]:
    """The docutils parser and settings, with the generic directive and role classes defined once."""
    from docutils.parsers.rst import Parser

    return Parser(), _docutils_settings()


class _AnyOptions(dict):  # type: ignore[type-arg]
    """An option spec that accepts every option (``:noindex:``, ``:synopsis: …``) as a plain string."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return lambda value: value or ""


def _register(name: str, role: bool) -> None:
    """Make docutils read a Sphinx (or other) directive or role it does not know, instead of erring."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    if role:
        if name in roles._roles:  # noqa: SLF001 - docutils keeps its registry here
            return

        def generic_role(
            role_name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
        ) -> tuple[list[Any], list[Any]]:
            shown, is_code = _role_text(role_name, nodes.unescape(text))
            node = nodes.literal(rawtext, shown) if is_code else nodes.inline(rawtext, shown)
            return [node], []

        roles.register_local_role(name, generic_role)
        return
    if name in directives._directives:  # noqa: SLF001
        return

    class Generic(Directive):
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = _AnyOptions()

        def run(self) -> list[Any]:
            argument = " ".join(self.arguments).strip()
            if self.name in CODE_DIRECTIVES:
                return [nodes.literal_block("", "\n".join(self.content))]
            if self.name in SKIPPED_DIRECTIVES:
                return []
            node = nodes.container(classes=["evalgate-directive"])
            node["directive"] = self.name
            node["argument"] = argument
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    directives.register_directive(name, Generic)


def _rst_inline(node: Any) -> Inline:
    from docutils import nodes

    pieces: list[tuple[str, bool]] = []
    links: list[str] = []

    def walk(current: Any) -> None:
        for child in current.children:
            if isinstance(child, nodes.reference) and child.get("refuri"):
                links.append(str(child["refuri"]))
            if isinstance(child, nodes.Text):
                pieces.append((str(child), False))
            elif isinstance(child, nodes.literal):
                pieces.append((child.astext(), True))
            elif isinstance(child, nodes.title_reference):  # `name` with the default role: a name, as Sphinx shows it
                pieces.append((child.astext(), True))
            elif isinstance(child, (nodes.system_message, nodes.target, nodes.substitution_definition)):
                continue
            elif isinstance(child, nodes.problematic):
                pieces.append((child.astext(), False))
            else:
                walk(child)

    walk(node)
    return _join(pieces, links)


def _read_rst(text: str, builder: _Builder) -> None:
    import docutils.utils
    from docutils import nodes

    for name in set(_RST_DIRECTIVE_NAME.findall(text)):
        _register(name.lower(), role=False)
    for name in set(_RST_ROLE_NAME.findall(text)):
        _register(name.lower(), role=True)
    parser, settings = _rst_machinery()
    document = docutils.utils.new_document("<passage>", settings)
    try:
        parser.parse(text, document)
    except Exception:  # noqa: BLE001 - docutils raises on some malformed fragments; read them as plain lines
        for line in text.split("\n"):
            builder.add("paragraph", Inline(line))
        return

    def walk(node: Any, group: int = -1, header: str | None = None) -> None:
        for child in node.children:
            if isinstance(
                child,
                (
                    nodes.system_message,
                    nodes.comment,
                    nodes.target,
                    nodes.substitution_definition,
                    nodes.raw,
                    nodes.pending,
                ),
            ):
                continue
            if isinstance(child, nodes.section) or isinstance(child, (nodes.topic, nodes.sidebar)):
                title = child.next_node(nodes.title)
                if title is not None and title.parent is child:
                    inline = _rst_inline(title)
                    builder.add("heading", inline)
                    builder.labels.append(_WHITESPACE.sub(" ", inline.text).strip())
                    walk(child)
                    builder.labels.pop()
                else:
                    walk(child)
            elif isinstance(child, nodes.title):
                continue  # read with its section
            elif isinstance(child, nodes.paragraph):
                builder.add("item" if group >= 0 else "paragraph", _rst_inline(child), group)
            elif isinstance(child, (nodes.bullet_list, nodes.enumerated_list)):
                number = builder.group()
                for item in child.children:
                    walk(item, number)
            elif isinstance(child, (nodes.literal_block, nodes.doctest_block)):
                builder.code(child.astext())
            elif isinstance(child, nodes.table):
                _rst_table(child, builder)
            elif isinstance(child, nodes.definition_list_item):
                term = child.next_node(nodes.term)
                shown = _rst_inline(term) if term is not None else Inline("")
                builder.add("term", shown)
                builder.labels.append(_WHITESPACE.sub(" ", shown.text).strip())
                for part in child.children:
                    if isinstance(part, nodes.definition):
                        walk(part, group)
                builder.labels.pop()
            elif isinstance(child, nodes.field):
                name = child.next_node(nodes.field_name)
                body = child.next_node(nodes.field_body)
                shown = _rst_inline(name) if name is not None else Inline("")
                builder.labels.append(_WHITESPACE.sub(" ", shown.text).strip())
                if body is not None:
                    walk(body, group)
                builder.labels.pop()
            elif isinstance(child, nodes.line):
                builder.add("paragraph", _rst_inline(child), group)
            elif isinstance(child, nodes.container) and child.get("directive"):
                _rst_directive(child, builder, walk, group)
            elif isinstance(child, nodes.Text):
                builder.add("paragraph", Inline(str(child)), group)
            elif isinstance(child, nodes.Element):
                walk(child, group)

    walk(document)


def _named(signature: Inline) -> Inline:
    """A signature with the object it documents among its code, as Sphinx shows it (the name in code type, its
    parameters after it): ``dump(obj, fp, *, ...)`` names ``dump``, so a claim about ``json.dump()`` finds it."""
    called = _SIGNATURE_NAME.match(signature.text.strip())
    if called is None or called.group(1) in signature.code:
        return signature
    return dataclasses.replace(signature, code=(*signature.code, called.group(1)))


def _rst_directive(node: Any, builder: _Builder, walk: Any, group: int) -> None:
    from docutils import nodes

    name, argument = node["directive"], node["argument"]
    if name in VERSION_DIRECTIVES:
        # Sphinx's version directives take the version and, on the same or the next lines, their explanation
        version, _, explanation = argument.partition(" ") if "\n" not in argument.split(" ")[0] else (argument, "", "")
        version, _, rest = version.partition("\n")
        explanation = " ".join(part for part in (rest, explanation) if part).strip()
        lead = f"{VERSION_DIRECTIVES[name]} {version}".strip()
        if explanation:
            said = read_inline(_WHITESPACE.sub(" ", explanation))
            shift = len(lead) + 2
            builder.add(
                "paragraph",
                Inline(f"{lead}: {said.text}", said.code, tuple(x + shift for x in said.code_starts)),
                group,
            )
            walk(node, group)
            return
        paragraphs = [c for c in node.children if isinstance(c, nodes.paragraph)]
        if paragraphs:
            first = _rst_inline(paragraphs[0])
            builder.add(
                "paragraph",
                Inline(f"{lead}: {first.text}", first.code, tuple(s + len(lead) + 2 for s in first.code_starts)),
                group,
            )
            for child in node.children:
                if child is not paragraphs[0]:
                    holder = nodes.container()
                    holder.append(child.deepcopy())
                    walk(holder, group)
        else:
            builder.add("paragraph", Inline(f"{lead}."), group)
        return
    signature = name in SIGNATURE_DIRECTIVES or name.split(":")[-1] in SIGNATURE_DIRECTIVES
    if signature and argument:
        for line in argument.split("\n"):
            builder.add("signature", _named(Inline(line.strip(), (line.strip(),))))
        builder.labels.append(argument.split("\n")[0].strip())
        walk(node, group)
        builder.labels.pop()
    else:
        if argument and name.split(":")[-1] in BODY_ONLY_DIRECTIVES:  # ".. note:: Text": the note's first line
            builder.add("paragraph", Inline(argument), group)
            walk(node, group)
        elif argument and name.split(":")[-1] in TITLED_DIRECTIVES:  # ".. tab:: MacOS": a title over its content
            builder.add("heading", Inline(argument), group)
            builder.labels.append(argument)
            walk(node, group)
            builder.labels.pop()
        elif argument:  # shown as text of its own (".. audit-event:: shutil.copyfile src,dst")
            builder.add("paragraph", Inline(argument), group)
            walk(node, group)
        else:
            walk(node, group)


def _rst_table(table: Any, builder: _Builder) -> None:
    from docutils import nodes

    number = builder.group()
    header = ""
    for part in table.findall(nodes.row):
        cells = [_rst_inline(entry) for entry in part.children if isinstance(entry, nodes.entry)]
        line = " | ".join(_WHITESPACE.sub(" ", c.text).strip() for c in cells)
        code = tuple(code for c in cells for code in c.code)
        if isinstance(part.parent, nodes.thead):
            header = line
            builder.add("header", Inline(line, code), number)
        else:
            builder.add("row", Inline(line, code), number, extra_label=header or None)


# --------------------------------------------------------------------------------------------- HTML


def _html_inline(element: Any, skip: list[Any] | tuple[Any, ...] = ()) -> Inline:
    """An element's inline text, its code spans and link targets, less the children in ``skip`` (an item's nested
    lists); one walk on an explicit stack (no recursion)."""
    from bs4 import NavigableString, Tag

    pieces: list[tuple[str, bool]] = []
    links: list[str] = []
    skipped = {id(child) for child in skip}
    stack: list[tuple[Any, bool]] = [(iter([c for c in element.children if id(c) not in skipped]), False)]
    while stack:
        children, in_code = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        if isinstance(child, Tag) and child.name == "a" and child.get("href"):
            links.append(str(child["href"]))
        if isinstance(child, NavigableString):
            if child.__class__.__name__ in ("Comment", "Doctype", "ProcessingInstruction"):
                continue
            pieces.append((str(child), in_code))
        elif isinstance(child, Tag):
            if child.name in ("script", "style"):
                continue
            if child.name == "br":
                pieces.append((" ", False))
                continue
            code = in_code or child.name in ("code", "kbd", "samp", "tt", "var")
            if code and not in_code:
                pieces.append((child.get_text(), True))
            else:
                stack.append((iter(child.children), code))
    return _join(pieces, links)


_HTML_BLOCKS = ("h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "pre", "tr", "dt", "dd", "blockquote", "td", "th")


def _read_html(text: str, builder: _Builder) -> None:
    from bs4 import BeautifulSoup, Tag

    from evalgate_lib.text.html_page import MAX_DEPTH, main_content, nesting_depth
    from evalgate_lib.text.iterative import Walk, run

    if nesting_depth(text, stop=MAX_DEPTH) > MAX_DEPTH:  # too deep to parse in time: its text, a line each
        for line in re.sub(r"<[^>]*>", " ", text).split("\n"):
            builder.add("paragraph", Inline(line))
        return
    soup = BeautifulSoup(text, "html.parser")
    for dropped in soup(["script", "style", "head"]):
        dropped.decompose()
    root = main_content(soup)  # the corpus's chrome rules: menus, sidebars, "Next / Up" link lists
    headings: list[tuple[int, str]] = []

    def walk(node: Any, group: int = -1, children: list[Any] | None = None) -> Walk:
        for child in node.children if children is None else children:
            if not isinstance(child, Tag):
                if str(child).strip() and node.name in ("body", "[document]", "div", "section", "article", "main"):
                    builder.add("paragraph", Inline(str(child)))
                continue
            name = child.name
            if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
                level = int(name[1])
                while headings and headings[-1][0] >= level:
                    headings.pop()
                    builder.labels.pop()
                inline = _html_inline(child)
                builder.add("heading", inline)
                headings.append((level, _WHITESPACE.sub(" ", inline.text).strip()))
                builder.labels.append(headings[-1][1])
            elif name == "p":
                builder.add("item" if group >= 0 else "paragraph", _html_inline(child), group)
            elif name in ("ul", "ol"):
                number = builder.group()
                for item in child.find_all("li", recursive=False):
                    nested = [c for c in item.children if isinstance(c, Tag) and c.name in ("ul", "ol", "pre", "p")]
                    if nested and any(c.name in ("p", "pre") for c in nested):
                        (yield walk(item, number))
                    else:  # the item's own text, then its nested lists
                        builder.add("item", _html_inline(item, skip=nested), number)
                        yield walk(item, number, nested)
            elif name == "pre":
                builder.code(child.get_text())
            elif name == "table":
                number = builder.group()
                header = ""
                for row in child.find_all("tr"):
                    cells = [_html_inline(cell) for cell in row.find_all(["td", "th"])]
                    line = " | ".join(_WHITESPACE.sub(" ", c.text).strip() for c in cells)
                    code = tuple(code for c in cells for code in c.code)
                    if row.find("th") is not None and row.find("td") is None:
                        header = line
                        builder.add("header", Inline(line, code), number)
                    else:
                        builder.add("row", Inline(line, code), number, extra_label=header or None)
            elif name == "dl":
                for term in child.find_all("dt", recursive=False):
                    signature = "sig" in (term.get("class") or [])
                    inline = _named(_html_inline(term)) if signature else _html_inline(term)
                    builder.add("signature" if signature else "term", inline)
                    definition = term.find_next_sibling("dd")
                    if definition is not None:
                        builder.labels.append(_WHITESPACE.sub(" ", inline.text).strip())
                        yield walk(definition, group)
                        builder.labels.pop()
            elif name in ("div", "section", "article", "main", "body", "blockquote", "dd", "aside", "details"):
                yield walk(child, group)
            elif name in ("span", "a", "em", "strong", "code", "b", "i"):
                builder.add("paragraph", _html_inline(child), group)
            else:
                yield walk(child, group)

    run(walk(root))


def code_block_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Character spans of the code blocks of Markdown ``text`` (fenced, or indented four spaces), as CommonMark
    reads them: each from the start of its first line (the opening fence) to the end of its last (the closing
    fence). A ``#`` line inside one is code, not a heading. Only texts that could hold one are parsed."""
    if "```" not in text and "~~~" not in text and not _INDENTED.search(text):
        return ()
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spans = []
    for token in _markdown().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            first, last = token.map
            spans.append((starts[first], min(len(text), starts[last] - 1)))
    return tuple(spans)


_INDENTED = re.compile(r"^(?: {4}|\t)", re.MULTILINE)


# --------------------------------------------------------------------------------------------- entry points


@lru_cache(maxsize=8192)
def read_blocks(text: str, fmt: Format | None = None) -> tuple[Block, ...]:
    """The blocks of ``text`` read as ``fmt`` (detected from the text when ``None``; see :func:`detect_format`)."""
    builder = _Builder()
    fmt = fmt or detect_format(text)
    if fmt == "rst":
        _read_rst(text, builder)
    elif fmt == "html":
        _read_html(text, builder)
    else:
        _read_markdown(text, builder)
    return _with_lead_ins(builder.blocks)


def _with_lead_ins(blocks: list[Block]) -> tuple[Block, ...]:
    """Blocks where the sentence that introduces a list or table ("How long audit events are kept depends on
    the plan:") labels each of its items and rows, as a reader carries it into every row (before a row's
    table header, which stays its last label)."""
    out: list[Block] = []
    lead: dict[int, str] = {}
    headed = {block.group for block in blocks if block.kind == "header"}
    for i, block in enumerate(blocks):
        if block.group >= 0 and block.group not in lead:
            before = blocks[i - 1] if i else None
            fits = before is not None and before.kind == "paragraph" and before.text.rstrip().endswith(":")
            lead[block.group] = before.text if before is not None and fits else ""
        if block.group >= 0 and lead[block.group] and block.kind in ("item", "row"):
            labels = block.labels
            if block.kind == "row" and block.group in headed and labels:
                labels = (*labels[:-1], lead[block.group], labels[-1])
            else:
                labels = (*labels, lead[block.group])
            block = Block(block.kind, block.text, block.code, labels, block.group, block.code_starts, block.links)
        out.append(block)
    return tuple(out)


@lru_cache(maxsize=65536)
def read_inline(text: str) -> Inline:
    """One line or sentence of an answer as read: Markdown inline markup (``**x**``, ```` `x` ````, ``[x](url)``,
    inline HTML) and reStructuredText's ``\\`\\`x\\`\\``` literals and ``:role:`x``` read, code spans kept
    verbatim. A sentence holds no block markup, so this is the one reading for every answer format."""
    if not any(mark in text for mark in "`*_[<\\{:&"):
        return Inline(text)
    tokens = _markdown().parseInline(text)
    children = tokens[0].children if tokens else []
    return _markdown_inline(children or [])


def iter_sentences_of_blocks(blocks: tuple[Block, ...]) -> Iterator[tuple[Block, str]]:
    """Each block with each of its sentences (code lines, headings and rows are one sentence each)."""
    for block in blocks:
        if block.kind in ("paragraph", "item"):
            for sentence in split_plain_sentences(block.text, block.code_starts, block.code):
                yield block, sentence
        else:
            yield block, block.text

"""Loading the knowledge base: a folder tree of documents, taken as they are.

Readable documents are Markdown (``.md``, ``.markdown``), plain text (``.txt``),
reStructuredText (``.rst``) and HTML (``.html``, ``.htm``), each optionally gzip-compressed
(``.md.gz``, as Debian ships documentation). An HTML page is read as a browser shows it
(:mod:`evalgate_lib.text.html_page`): its main content, without the site's navigation,
headers, footers and sidebars, becomes Markdown-shaped text, and its title is its
``<title>`` less the site part it shares with another page's title (``Rounding (GNU MPFR
4.2.0)`` beside ``Exceptions (GNU MPFR 4.2.0)`` is ``Rounding``). Front matter (for the
text formats) is optional:

* with a ``---`` YAML block at the top, its ``id`` and ``title`` are honoured and the
  body is the text after the block;
* without one (or where it leaves them out), the id is the file's path relative to
  the corpus folder without its document suffixes (``topics/caching.md.gz`` →
  ``topics/caching``) and the title is the first heading, else the file name.

The body is what gets chunked, and what gold evidence spans are character offsets
into. Every other file is skipped, and every skipped file is listed with its reason
(:attr:`CorpusScan.skipped`; the command line prints them and the manifest records
them): nothing is ignored silently. Two files that map to one id are an error
naming both.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.structured import MAX_DOCUMENT_BYTES, parse_yaml
from evalgate_lib.text.html_page import HtmlPage, read_html_page, without_site_part
from evalgate_lib.text.matching import canonical

log = logging.getLogger(__name__)

#: Suffixes of the documents EvalGate reads (each may be followed by ``.gz``).
TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".rst")
HTML_SUFFIXES = (".html", ".htm")
DOCUMENT_SUFFIXES = TEXT_SUFFIXES + HTML_SUFFIXES

#: The tag every HTML page EvalGate writes carries in its ``<head>`` (the report, its appendices, the
#: standalone answers table). Such a page holds the gold answers next to the judged ones: found in a
#: corpus (written there, linked, copied), it is skipped with the reason, never read as an article.
OUTPUT_MARKER = '<meta name="generator" content="EvalGate">'
#: The generator that tag names: the corpus reads it through the HTML parser, so a page re-serialised
#: with its attributes in another order (``content=… name=…``, as BeautifulSoup writes them) is still known.
OUTPUT_GENERATOR = "EvalGate"
#: Why such a page is skipped (the command line prints it, the manifest records it).
OUTPUT_REASON = "a page EvalGate wrote (a report: it holds the gold answers), not an article"

#: Why a page that sends the browser elsewhere at once is skipped (makeinfo writes one per renamed node).
REDIRECT_REASON = "a page that only redirects the browser to {target} (meta refresh): no reader sees it, not an article"

#: Characters a reStructuredText title's underline (and overline) is made of.
_RST_ADORNMENT = frozenset("=-~^\"'`#*+")


@dataclass(frozen=True)
class Article:
    """One knowledge-base article."""

    id: str
    title: str
    body: str
    path: str = ""


@dataclass(frozen=True)
class CorpusScan:
    """What a corpus folder holds: the articles read, and every file skipped with the reason."""

    articles: tuple[Article, ...]
    skipped: tuple[tuple[str, str], ...]


def document_suffix(name: str) -> str | None:
    """The document suffix of a file name (``.md`` for ``a.md`` and ``a.md.gz``), or ``None`` if not a document."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    for suffix in DOCUMENT_SUFFIXES:
        if lower.endswith(suffix) and len(lower) > len(suffix):
            return suffix
    return None


def path_id(relative: str) -> str:
    """The id a file gets from its relative path: POSIX separators, document suffixes removed."""
    name = relative[:-3] if relative.lower().endswith(".gz") else relative
    suffix = document_suffix(name)
    return name[: -len(suffix)] if suffix else name


def first_heading(body: str) -> str | None:
    """The first Markdown (``# Title``) or reStructuredText (underlined) heading of ``body``, if any.

    Read line by line, in time linear in the body: a regular expression over the whole text
    (``[^\\n]*\\S[^\\n]*`` for a title line) backtracks over every character of a long line,
    so one 1 MB line without a heading took over ten minutes. The rules are the ones that
    expression had: a Markdown heading is 1-6 ``#``, a space or tab, then the title (trailing
    spaces, tabs and ``#`` dropped); a reStructuredText title is a line with text under an
    optional overline and over an underline, each of at least three adornment characters, and
    is taken only when the first one found has an underline at least as long as its text.
    Where both kinds start on the same line, the smaller title text wins, as before.
    """
    lines = body.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    candidates = []
    markdown = next(((i, title) for i, line in enumerate(lines) if (title := _markdown_title(line)) is not None), None)
    if markdown is not None:
        candidates.append((starts[markdown[0]], markdown[1].strip()))
    rst = _first_rst_title(lines)
    if rst is not None and len(rst[2]) >= len(rst[1].strip()):
        candidates.append((starts[rst[0]], rst[1].strip()))
    return min(candidates)[1] if candidates else None


def _markdown_title(line: str) -> str | None:
    """The title of a Markdown heading line (``## Title ##`` → ``Title``), or ``None`` for any other line."""
    hashes = len(line) - len(line.lstrip("#"))
    rest = line[hashes:]
    text = rest.lstrip(" \t")
    if not 1 <= hashes <= 6 or len(text) == len(rest) or not text or text[0].isspace():
        return None
    return text[: max(1, len(text.rstrip(" \t#")))]


def _is_adornment(line: str) -> bool:
    return len(line) >= 3 and all(ch in _RST_ADORNMENT for ch in line)


def _first_rst_title(lines: list[str]) -> tuple[int, str, str] | None:
    """``(first line index, title, underline)`` of the first reStructuredText title, overlined or not."""
    for i, line in enumerate(lines):
        if i + 2 < len(lines) and _is_adornment(line) and lines[i + 1].strip() and _is_adornment(lines[i + 2]):
            return i, lines[i + 1], lines[i + 2]
        if i + 1 < len(lines) and line.strip() and _is_adornment(lines[i + 1]):
            return i, line, lines[i + 1]
    return None


def _front_matter(text: str, source: str) -> tuple[dict[str, object], str]:
    """``(meta, body)``: the YAML block at the top (empty when there is none) and the text after it."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end < 0:
        raise InputError(f"{source}: the front-matter block is not closed by a '---' line")
    try:
        meta = parse_yaml(text[4:end], f"{source}: front matter") or {}
    except yaml.YAMLError as exc:
        raise InputError(f"{source}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise InputError(f"{source}: front matter must be a mapping (key: value lines)")
    for key in ("id", "title"):
        if key in meta and (not isinstance(meta[key], (str, int)) or not str(meta[key]).strip()):
            raise InputError(f"{source}: front matter '{key}' must be a non-empty string")
    return meta, text[end + len("\n---\n") :]


def parse_article(text: str, source: str, default_id: str | None = None) -> Article:
    """Parse one document's text; ``source`` names it in error messages.

    ``default_id`` is the path-derived id used when the front matter sets none.
    """
    meta, body = _front_matter(text, source)
    if not body.strip():
        raise InputError(f"{source}: the article body is empty")
    article_id = canonical(str(meta.get("id") or default_id or Path(source).name))
    title = str(meta.get("title") or first_heading(body) or Path(path_id(Path(source).name)).name)
    return Article(id=article_id, title=title, body=body, path=source)


def html_to_text(markup: str) -> str:
    """The text of an HTML page as a browser shows its main content
    (:func:`evalgate_lib.text.html_page.read_html_page`): site navigation, headers, footers and sidebars dropped,
    inline elements kept inside their lines, headings as Markdown ``#`` lines, list items, table rows and code
    blocks as Markdown writes them."""
    return read_html_page(markup).text


def _html_article(page: HtmlPage, source: str, default_id: str) -> Article:
    """One HTML page as an article: its main content is the body, its ``<title>`` (else its ``<h1>``) the title."""
    if not page.text.strip():
        raise InputError(f"{source}: the page has no text in its main content (navigation and page chrome aside)")
    title = page.title or first_heading(page.text) or Path(path_id(Path(source).name)).name
    return Article(id=default_id, title=title, body=page.text, path=source)


def read_document(path: Path) -> str:
    """The text of one document file: decompressed, UTF-8 decoded, ``\\r\\n`` normalised, HTML turned to text."""
    text = _decoded(path)
    return _read_page(text, path).text if document_suffix(path.name) in HTML_SUFFIXES else text


def _read_page(markup: str, path: Path) -> HtmlPage:
    """:func:`~evalgate_lib.text.html_page.read_html_page`, a refusal (a page nested too deep) naming the file."""
    try:
        return read_html_page(markup)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def _decoded(path: Path) -> str:
    """The file's text as stored (decompressed, UTF-8, ``\\r\\n`` normalised), before any HTML conversion."""
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise InputError(_too_big(path, f"{size:,} bytes"))
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"{path}: cannot be read ({exc.strerror}); fix its permissions or move it out of the corpus"
        ) from None
    if path.name.lower().endswith(".gz"):
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as handle:  # read no further than the limit: a gzip bomb
                raw = handle.read(MAX_DOCUMENT_BYTES + 1)
        except (OSError, EOFError) as exc:
            raise InputError(f"{path}: not a valid gzip file ({exc})") from None
        if len(raw) > MAX_DOCUMENT_BYTES:
            found = f"more than {MAX_DOCUMENT_BYTES:,} bytes once decompressed (from {size:,} bytes of gzip)"
            raise InputError(_too_big(path, found))
    if b"\x00" in raw:
        encoding = _wide_encoding(raw)
        if encoding is not None:
            raise InputError(
                f"{path}: {encoding} text, not UTF-8: EvalGate reads documents as UTF-8; save it as UTF-8 (e.g. "
                f"'iconv -f {encoding.split()[0]} -t UTF-8 {path.name} > converted', or an editor's 'save with "
                "encoding')"
            )
        raise InputError(f"{path}: looks like a binary file (NUL bytes), not a text document")
    try:
        return raw.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc})") from None


def _wide_encoding(raw: bytes) -> str | None:
    """The encoding of text written in 16 or 32 bits per character (its NUL bytes are not binary), else ``None``.

    A byte-order mark says it outright; without one, UTF-16 text of mostly ASCII letters has a NUL in
    every other byte of one parity and none in the other.
    """
    for mark, name in (
        (b"\xff\xfe\x00\x00", "UTF-32LE"),
        (b"\x00\x00\xfe\xff", "UTF-32BE"),
        (b"\xff\xfe", "UTF-16LE"),
        (b"\xfe\xff", "UTF-16BE"),
    ):
        if raw.startswith(mark):
            return f"{name} (a byte-order mark)"
    head = raw[:4096]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if len(head) >= 8 and max(even, odd) >= 0.9 * (len(head) // 2) and min(even, odd) == 0:
        return f"UTF-16{'BE' if even > odd else 'LE'} (no byte-order mark)"
    return None


def _too_big(path: Path, found: str) -> str:
    return (
        f"{path}: {found}; EvalGate reads documents of at most {MAX_DOCUMENT_BYTES:,} bytes (64 MiB): split it, or "
        "move it out of the corpus"
    )


def _skip_reason(path: Path, folder: Path) -> str | None:
    relative = path.relative_to(folder)
    if any(part.startswith(".") for part in relative.parts):
        return "hidden file or folder"
    if document_suffix(path.name) is None:
        kinds = ", ".join(DOCUMENT_SUFFIXES)
        return f"not a document type EvalGate reads ({kinds}, each optionally .gz)"
    return None


def _walk(folder: Path) -> tuple[list[Path], list[tuple[str, str]]]:
    """Every regular document candidate under ``folder`` and every entry that cannot be one, with the reason.

    ``os.walk`` (not ``Path.rglob``) because rglob drops a folder it may not list, a
    dangling symbolic link and a folder symlink without a word: the knowledge base would
    quietly lose documents. A folder that cannot be listed is an error (its documents would
    be missing from the run); a dangling link, a link to a folder (not followed, so a link
    cannot pull files from outside the corpus or loop), a folder named like a document and
    anything that is not a regular file (a FIFO would hang the read) are listed as skipped.
    """
    files: list[Path] = []
    skipped: list[tuple[str, str]] = []

    def refuse(error: OSError) -> None:
        raise InputError(
            f"{error.filename}: corpus folder cannot be listed ({error.strerror}); "
            "fix its permissions or move it out of the corpus"
        )

    for root, dirs, names in os.walk(folder, onerror=refuse):
        here = Path(root)
        for name in dirs + names:
            _refuse_undecodable_name(here / name)
        for name in list(dirs):
            path = here / name
            if path.is_symlink():
                dirs.remove(name)
                skipped.append((str(path), "symbolic link to a folder: not followed"))
            elif document_suffix(name) is not None and not name.startswith("."):
                skipped.append((str(path), "a folder named like a document, not one; the documents inside it are read"))
        for name in names:
            path = here / name
            if path.is_symlink() and not path.exists():
                skipped.append((str(path), f"dangling symbolic link (its target {os.readlink(path)} does not exist)"))
            elif not path.is_file():
                skipped.append((str(path), "not a regular file (a FIFO, socket or device)"))
            else:
                files.append(path)
    return files, skipped


def _refuse_undecodable_name(path: Path) -> None:
    """A file or folder name that is not UTF-8 is refused: the manifest and the rows record ids and paths as UTF-8."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"{str(path)!r}: the name is not valid UTF-8 (bytes shown as \\udcXX); rename it, or move it out of the "
            "corpus"
        ) from None


def _check_folder(folder: Path) -> None:
    """The corpus path must be a folder; a file, a dangling link or nothing at all is named as what it is."""
    if folder.is_dir():
        return
    if folder.is_symlink() and not folder.exists():
        raise InputError(f"corpus folder {folder} is a symbolic link to {os.readlink(folder)}, which does not exist")
    if folder.exists():
        raise InputError(f"corpus folder {folder} is a file, not a folder: name the folder that holds the documents")
    raise InputError(f"corpus folder {folder} does not exist")


def scan_corpus(directory: str | Path) -> CorpusScan:
    """Read every document under ``directory`` (recursively, in path order) and list every file skipped.

    Refuses a missing folder (or a file named as the folder), a folder or document that
    cannot be read (permissions), a name that is not UTF-8, a folder with no readable
    document, a file that is not UTF-8 text (a binary file dropped into the KB), and two
    documents with one id. A page EvalGate wrote (:data:`OUTPUT_MARKER`, read as HTML: a report written
    into the corpus, or linked or copied there) is skipped and listed, never an article.
    """
    folder = Path(directory)
    _check_folder(folder)
    found, skipped = _walk(folder)
    files = sorted(found, key=lambda p: p.relative_to(folder).as_posix())
    articles: list[Article] = []
    html_pages: list[int] = []
    written_titles: dict[int, str] = {}  # an HTML article's <title> as written, by its index
    seen: dict[str, str] = {}
    for path in files:
        reason = _skip_reason(path, folder)
        if reason is not None:
            skipped.append((str(path), reason))
            continue
        default_id = path_id(path.relative_to(folder).as_posix())
        text = _decoded(path)
        if document_suffix(path.name) in HTML_SUFFIXES:
            page = _read_page(text, path)
            if page.generator == OUTPUT_GENERATOR:
                skipped.append((str(path), OUTPUT_REASON))
                continue
            if page.redirect is not None:
                skipped.append((str(path), REDIRECT_REASON.format(target=page.redirect)))
                continue
            article = _html_article(page, str(path), default_id)
            html_pages.append(len(articles))
            if page.written_title:
                written_titles[len(articles)] = page.written_title
        else:
            article = parse_article(text, str(path), default_id)
        if article.id in seen:
            raise InputError(f"{path}: article id {article.id!r} is already used by {seen[article.id]}")
        seen[article.id] = str(path)
        articles.append(article)
    if not articles:
        kinds = ", ".join(DOCUMENT_SUFFIXES)
        raise InputError(f"corpus folder {folder} holds no readable documents ({kinds})")
    written = [written_titles.get(i) or articles[i].title for i in html_pages]
    for index, full, title in zip(html_pages, written, without_site_part(written), strict=True):
        if title == full:  # no other page shares a part of it: the page's own reading of its title stands
            continue
        articles[index] = dataclasses.replace(articles[index], title=title)
    skipped.sort(key=lambda item: Path(item[0]).relative_to(folder).as_posix())
    return CorpusScan(tuple(articles), tuple(skipped))


def load_corpus(directory: str | Path) -> list[Article]:
    """The articles of :func:`scan_corpus`; each skipped file is logged as a warning with its reason."""
    scan = scan_corpus(directory)
    for path, reason in scan.skipped:
        log.warning("corpus: skipped %s: %s", path, reason)
    return list(scan.articles)


def corpus_digest(articles: list[Article]) -> str:
    """SHA-256 over ids, titles and bodies: the corpus identity recorded in the manifest."""
    digest = hashlib.sha256()
    for article in sorted(articles, key=lambda a: a.id):
        for part in (article.id, article.title, article.body):
            digest.update(part.encode("utf-8") + b"\x00")
    return digest.hexdigest()

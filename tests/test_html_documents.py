"""The HTML test matrix: real documentation pages from Debian packages, eleven generators, read as a browser shows them.

Each folder of ``tests/data/html-docs/`` holds a few pages of one package exactly as Debian
ships them (Sphinx, AsciiDoc, Texinfo's makeinfo, Doxygen, Docutils, DocBook XSL, mdBook, MkDocs with its
Bootstrap theme and with Material, two hand-written sites), its
COPYRIGHT, a ``set.toml`` that names, read off the pages by hand, the CSS selectors of the
page's navigation and each page's title, and a ``gold.jsonl`` whose evidence was copied from
the pages as headless Chromium renders them (``scripts/html_browser_evidence.py``). For each set:
no article or chunk starts with navigation (none of it is kept at all), every title is the
page's title, no line is an inline element torn out of its sentence, and ``gold check`` finds
every piece of browser-copied evidence. ``bench/html_reading.py`` prints the same figures for
EvalGate before this reading and for two extraction libraries (docs/html-documents.md).
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from evalgate_lib.chunks.chunking import chunk_corpus
from evalgate_lib.gold_tools.gold_check import check_gold
from evalgate_lib.inputs.corpus import scan_corpus
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.text.html_checks import (
    hidden_text,
    mark_navigation,
    navigation_words,
    orphan_lines,
    starts_with_navigation,
)

ROOT = Path(__file__).resolve().parents[1]
SETS_FOLDER = ROOT / "tests" / "data" / "html-docs"
SETS = sorted(p.name for p in SETS_FOLDER.iterdir() if p.is_dir())
CHUNKINGS = ({"method": "fixed", "size": 120, "overlap": 20}, {"method": "markdown", "max_words": 250})


def spec(name: str) -> dict:
    return tomllib.loads((SETS_FOLDER / name / "set.toml").read_text(encoding="utf-8"))


def markup(page: Path) -> str:
    raw = page.read_bytes()
    return (gzip.decompress(raw) if page.name.endswith(".gz") else raw).decode("utf-8")


def test_the_matrix_has_eleven_generators_each_with_its_licence() -> None:
    assert len(SETS) == 11
    assert len({spec(name)["generator"] for name in SETS}) == 11
    for name in SETS:
        assert (SETS_FOLDER / name / "COPYRIGHT").read_text(encoding="utf-8").strip()
        assert len(list((SETS_FOLDER / name / "corpus").iterdir())) >= 2
    total = sum(p.stat().st_size for p in SETS_FOLDER.rglob("*") if p.is_file())
    assert total < 800_000  # a small slice of each package


@pytest.mark.parametrize("name", SETS)
def test_no_article_or_chunk_starts_with_navigation(name: str, tmp_path: Path) -> None:
    navigation = spec(name)["navigation"]
    marked_words = 0
    for page in (SETS_FOLDER / name / "corpus").iterdir():
        marked = mark_navigation(markup(page), navigation)
        marked_words += navigation_words(marked)
        data = marked.encode("utf-8")
        (tmp_path / page.name).write_bytes(gzip.compress(data) if page.name.endswith(".gz") else data)
    assert marked_words >= 10, "the set's selectors mark the pages' navigation"
    articles = scan_corpus(tmp_path).articles
    for article in articles:
        assert navigation_words(article.body) == 0, f"{article.id} keeps navigation text"
        assert not starts_with_navigation(article.body)
    for chunking in CHUNKINGS:
        chunks = chunk_corpus(articles, chunking)
        assert chunks and not [c.chunk_id for c in chunks if starts_with_navigation(c.text)]


@pytest.mark.parametrize("name", SETS)
def test_every_title_is_the_pages_title(name: str) -> None:
    titles = {a.id: a.title for a in scan_corpus(SETS_FOLDER / name / "corpus").articles}
    assert titles == spec(name)["titles"]


@pytest.mark.parametrize("name", SETS)
def test_no_line_is_an_inline_element_torn_out_of_its_sentence(name: str) -> None:
    folder = SETS_FOLDER / name / "corpus"
    for article in scan_corpus(folder).articles:
        page = next(p for p in folder.iterdir() if p.name.split(".html")[0] == article.id)
        found = orphan_lines(markup(page), article.body)
        assert found.total > 0 and found.lines == (), f"{article.id}: {found.lines}"


@pytest.mark.parametrize("name", SETS)
def test_gold_check_finds_the_evidence_copied_from_the_browser(name: str) -> None:
    folder = SETS_FOLDER / name
    questions = load_gold(folder / "gold.jsonl")
    assert len(questions) >= 6
    checked = check_gold(questions, scan_corpus(folder / "corpus").articles)
    assert [f for f in checked.findings if f.code == "evidence-not-found"] == []
    assert all(e.count >= 1 for q in checked.questions for e in q.evidence)


# --------------------------------------------------------------------------------------------- each rule, on its pages


def _article(name: str, article_id: str) -> str:
    return next(a.body for a in scan_corpus(SETS_FOLDER / name / "corpus").articles if a.id == article_id)


def _page(name: str, article_id: str) -> str:
    return markup(next((SETS_FOLDER / name / "corpus").glob(f"{article_id}.htm*")))


@pytest.mark.parametrize(
    ("name", "article_id", "lead", "items"),
    [
        # mdBook: a list of two links a sentence introduces, in the article's flow (the page's menus are dropped)
        ("mdbook-rust", "how-to-write-documentation", "to see what's possible:",
         ["- CommonMark quick reference", "- current spec"]),
        # MkDocs Material: the example navigation the text shows, nested items and all
        ("mkdocs-material", "index", "", ["- Frob", "- Baz", "- Borgs"]),
    ],
)  # fmt: skip
def test_a_link_list_in_the_articles_flow_is_kept_as_a_list(name: str, article_id: str, lead: str, items) -> None:
    """A list of links the article's prose introduces carries the page's facts: it stays, as a list, while the
    same page's menus (link lists outside the flow) go: none of their words is kept (the test above)."""
    lines = [line.strip() for line in _article(name, article_id).split("\n")]
    for item in items:
        assert item in lines, item
    if lead:
        introduced = next(i for i, line in enumerate(lines) if line.endswith(lead))
        assert lines[introduced + 2] == items[0]  # right below the sentence that introduces it


@pytest.mark.parametrize("name", SETS)
def test_nothing_the_reader_does_not_see_is_kept(name: str) -> None:
    """No icon glyph (a private-use code point: MkDocs' permalink U+F0C1 after every heading) and no line only the
    page's hidden code lines hold (mdBook's ``<span class="boring">``: a doctest's ``fn main() {`` wrapper) is in
    any article (:func:`~evalgate_lib.text.html_checks.hidden_text`)."""
    folder = SETS_FOLDER / name / "corpus"
    for article in scan_corpus(folder).articles:
        assert hidden_text(_page(name, article.id), article.body) == 0, article.id
    if name in ("mdbook-rust", "mkdocs-bootstrap"):  # the pages do hold them: all their text read, they count
        pages = [markup(page) for page in folder.iterdir()]
        assert sum(hidden_text(page, BeautifulSoup(page, "html.parser").get_text()) for page in pages) > 0


def test_a_site_headers_logo_block_and_tagline_are_not_text() -> None:
    """SQLite's pages open with its logo and a two-line tagline outside any menu: no article holds the tagline (its
    menus go as navigation: the test above)."""
    for page in (SETS_FOLDER / "handwritten-sqlite" / "corpus").iterdir():
        assert "Choose any three." in markup(page)
        body = _article("handwritten-sqlite", page.name.split(".html")[0])
        assert "Small. Fast. Reliable." not in body and "Choose any three." not in body


@pytest.mark.parametrize(
    ("name", "article_id", "title"),
    [
        ("mdbook-rust", "documentation-tests", "Documentation tests"),  # "- The rustdoc book", shown in its menu bar
        ("mkdocs-bootstrap", "cli", "Command Line Interface"),  # "- MkDocs", the site's name in its navbar
        ("handwritten-lynx", "about_lynx", "About Lynx – Who, What, and When – Where it is now"),  # shown nowhere else
    ],
)
def test_one_page_alone_reads_its_title_less_the_site_part_it_shows(name: str, article_id: str, title: str) -> None:
    """One page, read alone (``read_html_page``): a suffix of its ``<title>`` that the page shows elsewhere as a name
    of its own is the site's; a suffix it does not show may be its own subtitle, and stays."""
    from evalgate_lib.text.html_page import read_html_page

    page = read_html_page(_page(name, article_id))
    assert page.title == title
    assert page.written_title is not None and page.written_title.startswith(title)


def test_gold_check_on_the_command_line_reads_an_html_set(tmp_path: Path) -> None:
    """The newcomer's command: exit 0, every evidence line found in the page's file."""
    import subprocess

    folder = SETS_FOLDER / "texinfo-mpfr"
    shutil.copytree(folder / "corpus", tmp_path / "corpus")
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate_lib.cli", "gold", "check", "--corpus", str(tmp_path / "corpus")]
        + ["--gold", str(folder / "gold.jsonl"), "--json", str(tmp_path / "check.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "check.json").read_text(encoding="utf-8"))
    assert report["counts"]["evidence-not-found"] == 0
    assert "ternary-value.html" in proc.stdout + proc.stderr  # the redirect page is listed as skipped, with why


@pytest.mark.parametrize("name", SETS)
def test_the_stored_evidence_is_what_chromium_renders(name: str, browser) -> None:  # noqa: ANN001 - fixture
    """The gold files were written from the browser's rendering; the browser still renders each string so."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from html_browser_evidence import set_questions

    stored = [json.loads(line) for line in (SETS_FOLDER / name / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert set_questions(browser, SETS_FOLDER / name) == stored

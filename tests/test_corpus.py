"""Tests for evalgate_lib.inputs.corpus: parsing articles and refusing a broken knowledge base."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.corpus import Article, corpus_digest, load_corpus, parse_article, scan_corpus

ROOT = Path(__file__).resolve().parents[1]


def article_text(id_: str, title: str = "A title", body: str = "# Heading\n\nSome text.\n") -> str:
    return f"---\nid: {id_}\ntitle: {title}\n---\n{body}"


def make_corpus(folder: Path, **articles: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in articles.items():
        (folder / f"{name}.md").write_text(text, "utf-8")
    return folder


def test_parse_article_body_is_text_after_front_matter() -> None:
    a = parse_article(article_text("refunds", "Refunds", "# Refunds\n\nWithin 14 days.\n"), "refunds.md")
    assert a == Article(id="refunds", title="Refunds", body="# Refunds\n\nWithin 14 days.\n", path="refunds.md")


def test_parse_article_extra_front_matter_and_non_string_values() -> None:
    a = parse_article("---\nid: 2026\ntitle: Plans\nupdated: 2026-03-01\n---\nBody.", "x.md")
    assert a.id == "2026" and a.title == "Plans" and a.body == "Body."


def test_load_corpus_sorted_by_file_name(tmp_path: Path) -> None:
    folder = make_corpus(tmp_path / "kb", b=article_text("b-id", "B"), a=article_text("a-id", "A"))
    (folder / "notes.bin").write_text("ignored", "utf-8")  # not a document type: skipped
    articles = load_corpus(folder)
    assert [a.id for a in articles] == ["a-id", "b-id"]
    assert scan_corpus(folder).skipped == (
        (
            str(folder / "notes.bin"),
            "not a document type EvalGate reads (.md, .markdown, .txt, .rst, .html, .htm, each optionally .gz)",
        ),
    )
    assert articles[0].path == str(folder / "a.md")
    assert articles[0].body == "# Heading\n\nSome text.\n"


def test_crlf_line_endings_are_normalised(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "x.md").write_bytes(b"---\r\nid: x\r\ntitle: X\r\n---\r\nLine one.\r\nLine two.\r\n")
    assert load_corpus(folder)[0].body == "Line one.\nLine two.\n"


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"corpus folder .*nope does not exist"):
        load_corpus(tmp_path / "nope")


NO_DOCUMENTS = r"holds no readable documents \(\.md, \.markdown, \.txt, \.rst, \.html, \.htm\)"


def test_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    with pytest.raises(InputError, match=NO_DOCUMENTS):
        load_corpus(tmp_path / "kb")


def test_folder_without_documents(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "readme.bin").write_text("hi", "utf-8")
    (tmp_path / "kb" / ".hidden.md").write_text(article_text("hidden"), "utf-8")
    with pytest.raises(InputError, match=NO_DOCUMENTS):
        load_corpus(tmp_path / "kb")


def test_plain_text_document_without_front_matter(tmp_path: Path) -> None:
    (tmp_path / "kb" / "topics").mkdir(parents=True)
    (tmp_path / "kb" / "topics" / "readme.txt").write_text("hi", "utf-8")
    (article,) = load_corpus(tmp_path / "kb")
    # id from the relative path without its suffix, title from the file name (no heading)
    assert (article.id, article.title, article.body) == ("topics/readme", "readme", "hi")


def test_file_instead_of_folder(tmp_path: Path) -> None:
    (tmp_path / "file.md").write_text(article_text("x"), "utf-8")
    with pytest.raises(InputError, match=r"corpus folder .*file\.md is a file, not a folder: name the folder"):
        load_corpus(tmp_path / "file.md")


def test_binary_file_refused(tmp_path: Path) -> None:
    folder = make_corpus(tmp_path / "kb", good=article_text("good"))
    (folder / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError, match=r"image\.md: looks like a binary file \(NUL bytes\)"):
        load_corpus(folder)


def test_non_utf8_file_refused(tmp_path: Path) -> None:
    folder = make_corpus(tmp_path / "kb", good=article_text("good"))
    (folder / "latin.md").write_bytes(article_text("latin", "Caf\u00e9").encode("latin-1"))
    with pytest.raises(InputError, match=r"latin\.md: not UTF-8 text"):
        load_corpus(folder)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\nid: x\ntitle: X\nBody without closing line", "not closed by a '---' line"),
        ("---\nid: [x\ntitle: X\n---\nBody", "front matter is not valid YAML"),
        ("---\n- id\n- title\n---\nBody", "front matter must be a mapping (key: value lines)"),
        ("---\nid: x\ntitle: ''\n---\nBody", "front matter 'title' must be a non-empty string"),
        ("---\nid: ''\ntitle: X\n---\nBody", "front matter 'id' must be a non-empty string"),
        ("---\nid: x\ntitle: X\n---\n  \n\n", "the article body is empty"),
    ],
)
def test_bad_front_matter(tmp_path: Path, text: str, message: str) -> None:
    folder = make_corpus(tmp_path / "kb", broken=text)
    with pytest.raises(InputError) as info:
        load_corpus(folder)
    assert str(info.value).startswith(str(folder / "broken.md") + ": ")
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # front matter is optional: the id comes from the path, the title from the first heading or the name
        ("# No front matter\n\nText.", ("broken", "No front matter", "# No front matter\n\nText.")),
        ("\n---\nid: x\ntitle: X\n---\nBody", ("broken", "broken", "\n---\nid: x\ntitle: X\n---\nBody")),
        ("---\nid: x\n---\n# Head\nBody", ("x", "Head", "# Head\nBody")),
        ("---\nid: x\n---\nBody", ("x", "broken", "Body")),
        ("---\ntitle: X\n---\nBody", ("broken", "X", "Body")),
    ],
)
def test_missing_front_matter_fields_default(tmp_path: Path, text: str, expected: tuple[str, str, str]) -> None:
    (article,) = load_corpus(make_corpus(tmp_path / "kb", broken=text))
    assert (article.id, article.title, article.body) == expected


def test_duplicate_id_names_both_files(tmp_path: Path) -> None:
    folder = make_corpus(tmp_path / "kb", first=article_text("same"), second=article_text("same"))
    with pytest.raises(InputError) as info:
        load_corpus(folder)
    message = str(info.value)
    assert "article id 'same'" in message
    assert str(folder / "first.md") in message and str(folder / "second.md") in message


def test_corpus_digest_order_independent_and_content_sensitive() -> None:
    a, b = Article("a", "A", "one"), Article("b", "B", "two")
    assert corpus_digest([a, b]) == corpus_digest([b, a])
    assert corpus_digest([a, b]) != corpus_digest([a, Article("b", "B", "two!")])
    assert corpus_digest([a, b]) != corpus_digest([a, Article("b", "B2", "two")])
    # the path is not part of the identity
    assert corpus_digest([a]) == corpus_digest([Article("a", "A", "one", path="elsewhere/a.md")])
    # field boundaries are delimited: ("ab", "c") != ("a", "bc")
    assert corpus_digest([Article("ab", "c", "x")]) != corpus_digest([Article("a", "bc", "x")])
    assert len(corpus_digest([a])) == 64


def test_shipped_corpus() -> None:
    articles = load_corpus(ROOT / "corpus")
    assert len(articles) == 18
    for article in articles:
        assert Path(article.path).stem == article.id  # corpus/<id>.md
        assert article.title and article.body.strip()
        assert not article.body.startswith("---")
    assert len({a.id for a in articles}) == 18


# ------------------------------------------------------------------ titles: linear, the same rules


@pytest.mark.parametrize(
    ("body", "title"),
    [
        ("intro\n## Plans ##\ntext", "Plans"),  # trailing hashes dropped
        ("# #\n", "#"),  # a title of one '#' is kept (the rule strips trailing '#' only after a first character)
        ("####### seven\n###### six", "six"),  # 7 hashes are not a heading
        ("#\tTabbed\n", "Tabbed"),
        ("#NoSpace\n", None),
        ("Plans\n=====\n", "Plans"),  # reStructuredText underline
        ("=====\nPlans\n=====\n", "Plans"),  # with an overline
        ("Plans and pricing\n===\n", None),  # the first underline is shorter than its title: no rst title
        ("# Title\n=======\n", "# Title"),  # both start on line 1: the smaller text wins, as before
        ("x" * 1_000_000, None),  # one 1 MB line: the regex this replaced backtracked for over ten minutes
    ],
)
def test_first_heading(body: str, title: str | None) -> None:
    from evalgate_lib.inputs.corpus import first_heading

    assert first_heading(body) == title


def test_a_page_evalgate_wrote_is_skipped_with_the_reason(tmp_path: Path) -> None:
    from evalgate_lib.inputs.corpus import OUTPUT_MARKER, OUTPUT_REASON

    (tmp_path / "faq.html").write_text("<html><head><title>FAQ</title></head><body><h1>FAQ</h1>Text.</body></html>")
    (tmp_path / "report.html").write_text(f"<html><head>{OUTPUT_MARKER}</head><body>gold answers</body></html>")
    scan = scan_corpus(tmp_path)
    assert [a.id for a in scan.articles] == ["faq"]
    assert scan.skipped == ((str(tmp_path / "report.html"), OUTPUT_REASON),)


def test_a_page_evalgate_wrote_is_known_in_any_attribute_order(tmp_path: Path) -> None:
    """BeautifulSoup writes ``content`` before ``name``: the standalone answers table carries its tag that way."""
    from evalgate_lib.inputs.corpus import OUTPUT_REASON

    (tmp_path / "faq.html").write_text("<html><head><title>FAQ</title></head><body><h1>FAQ</h1>Text.</body></html>")
    (tmp_path / "answers.html").write_text(
        "<html><head><meta content='EvalGate' NAME=generator /></head><body>gold answers</body></html>"
    )
    (tmp_path / "sphinx.html").write_text(
        '<html><head><meta name="generator" content="Docutils 0.19"><title>Guide</title></head>'
        "<body><h1>Guide</h1>Text.</body></html>"
    )
    scan = scan_corpus(tmp_path)
    assert [a.id for a in scan.articles] == ["faq", "sphinx"]
    assert scan.skipped == ((str(tmp_path / "answers.html"), OUTPUT_REASON),)


def test_a_corpus_path_that_is_a_dangling_link_says_so(tmp_path: Path) -> None:
    (tmp_path / "kb").symlink_to(tmp_path / "unmounted")
    with pytest.raises(InputError, match=rf"corpus folder {tmp_path}/kb is a symbolic link to {tmp_path}/unmounted"):
        scan_corpus(tmp_path / "kb")


def test_a_page_in_utf_16_is_named_as_such_not_binary(tmp_path) -> None:
    """Issue 56: a UTF-16 page was "a binary file (NUL bytes)"; its encoding is named, with or without a BOM."""
    from evalgate_lib.errors import InputError
    from evalgate_lib.inputs.corpus import _wide_encoding, load_corpus

    page = "<html><head><title>Seats</title></head><body><p>Starter includes 3 seats.</p></body></html>"
    assert _wide_encoding(page.encode("utf-16")) == "UTF-16LE (a byte-order mark)"
    assert _wide_encoding(page.encode("utf-16-be")) == "UTF-16BE (no byte-order mark)"
    assert _wide_encoding(page.encode("utf-32")) == "UTF-32LE (a byte-order mark)"
    assert _wide_encoding(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") is None  # a PNG stays a binary file
    (tmp_path / "seats.html").write_bytes(page.encode("utf-16-le"))
    said = r"seats\.html: UTF-16LE \(no byte-order mark\) text, not UTF-8: EvalGate reads documents as UTF-8; save"
    with pytest.raises(InputError, match=said + r" it as UTF-8 \(e\.g\. 'iconv -f UTF-16LE -t UTF-8 seats\.html"):
        load_corpus(tmp_path)

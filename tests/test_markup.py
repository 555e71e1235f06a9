"""Reading text through its markup (evalgate_lib.text.markup): each format by its parser, by hand-made examples."""

from __future__ import annotations

from pathlib import Path

from evalgate_lib.text.markup import code_block_spans, detect_format, read_blocks, read_inline
from evalgate_lib.text.tokens import answer_sentences, sentences_of, split_plain_sentences


def kinds(blocks: tuple) -> list[tuple[str, str]]:
    return [(b.kind, b.text) for b in blocks]


def test_markdown_paragraph_lines_join_and_code_spans_are_read_verbatim() -> None:
    blocks = read_blocks("# Cache\n\nRun `pip cache purge` to clear\nevery wheel. It is **fast**.\n", "markdown")
    assert kinds(blocks) == [
        ("heading", "Cache"),
        ("paragraph", "Run pip cache purge to clear every wheel. It is fast."),
    ]
    assert blocks[1].labels == ("Cache",) and blocks[1].code == ("pip cache purge",)


def test_markdown_tables_lists_fences_and_lead_ins() -> None:
    text = (
        "## Audit log\n\nHow long audit events are kept depends on the plan:\n\n"
        "| Plan | Audit log retention |\n|---|---|\n| Business | 1 year |\n| Enterprise | 7 years |\n\n"
        "- one `a`\n- two\n\n```python\nx = 1\n```\n\n```{versionadded} 6.0\nCaching.\n```\n"
    )
    blocks = read_blocks(text, "markdown")
    rows = [b for b in blocks if b.kind == "row"]
    # a row carries its section, the sentence leading into its table, and the table's header (last)
    assert rows[1].text == "Enterprise | 7 years"
    assert rows[1].labels == (
        "Audit log",
        "How long audit events are kept depends on the plan:",
        "Plan | Audit log retention",
    )
    items = [b for b in blocks if b.kind == "item"]
    assert [i.text for i in items] == ["one a", "two"] and items[0].group == items[1].group >= 0
    assert ("code", "x = 1") in kinds(blocks)
    assert ("paragraph", "New in version 6.0: Caching.") in kinds(blocks)  # MyST's directive, as Sphinx shows it


def test_a_table_cut_from_its_header_is_still_read_row_by_row() -> None:
    blocks = read_blocks("20 extra requests |\n| Business | 1,000 | 200 extra requests |\n| Enterprise | 5,000 |\n")
    assert kinds(blocks) == [
        ("row", "20 extra requests"),
        ("row", "Business | 1,000 | 200 extra requests"),
        ("row", "Enterprise | 5,000"),
    ]


def test_rst_signatures_label_their_content_and_directives_read_as_sphinx_shows_them() -> None:
    text = (
        "shutil\n======\n\n.. function:: copyfile(src, dst, *, follow_symlinks=True)\n\n"
        "   Copy the contents of *src* to *dst*. See :func:`~os.path.join` and ``dst``.\n\n"
        "   .. versionchanged:: 3.3\n      :exc:`IOError` used to be raised instead of :exc:`OSError`.\n"
    )
    assert detect_format(text) == "rst"
    blocks = read_blocks(text)
    assert ("signature", "copyfile(src, dst, *, follow_symlinks=True)") in kinds(blocks)
    signature = next(b for b in blocks if b.kind == "signature")  # the object's name is code, as Sphinx shows it
    assert signature.code == ("copyfile(src, dst, *, follow_symlinks=True)", "copyfile")
    body = next(b for b in blocks if b.text.startswith("Copy"))
    assert body.text == "Copy the contents of src to dst. See os.path.join and dst."
    assert body.labels == ("shutil", "copyfile(src, dst, *, follow_symlinks=True)")
    assert set(body.code) == {"os.path.join", "dst"}
    changed = next(b for b in blocks if b.text.startswith("Changed"))
    assert changed.text == "Changed in version 3.3: IOError used to be raised instead of OSError."



def test_titles_label_their_content_and_literal_roles_read_as_sphinx_shows_them() -> None:
    """A tab's title is shown over its content ("MacOS" over its path), in MyST and in reST; a note's text after its
    name is its first line; ``{file}`` and ``{samp}`` show one backslash for two, a variable without its braces and
    a home folder's ``~`` (no cross-reference abbreviation)."""
    myst = "# Default paths\n\n````{tab} MacOS\n```\n~/Library/Caches/pip\n```\n````\n\n```{note} Be careful.\n```\n"
    blocks = read_blocks(myst, "markdown")
    path = next(b for b in blocks if b.kind == "code")
    assert (path.text, path.labels) == ("~/Library/Caches/pip", ("Default paths", "MacOS"))
    assert ("paragraph", "Be careful.") in kinds(blocks)
    rst = "Paths\n=====\n\n.. tab:: Windows\n\n   See :file:`C:\\\\ProgramData\\\\pip\\\\pip.ini`.\n"
    seen = next(b for b in read_blocks(rst, "rst") if b.kind == "paragraph")
    assert (seen.text, seen.labels) == ("See C:\\ProgramData\\pip\\pip.ini.", ("Paths", "Windows"))
    role = read_blocks(":samp:`pip {name}` reads :file:`~/.config/{app}.conf`.\n", "rst")[0]
    assert role.code == ("pip name", "~/.config/app.conf")

def test_rst_never_reads_another_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET LINE")
    text = f"Intro.\n\n.. include:: {secret}\n\n.. raw:: html\n\n   <script>alert(1)</script>\n"
    blocks = read_blocks(text, "rst")
    assert all("TOP SECRET" not in b.text and "script" not in b.text for b in blocks)
    assert ("paragraph", "Intro.") in kinds(blocks)


def test_html_definition_lists_are_signatures_and_code_is_code() -> None:
    html = (
        '<h2>os.path</h2><dl class="py function"><dt class="sig">os.path.join(path, *paths)</dt>'
        "<dd><p>Join one or more path segments, see <code>os.sep</code>.</p></dd></dl>"
        "<table><tr><th>Plan</th><th>Seats</th></tr><tr><td>Starter</td><td>3</td></tr></table>"
    )
    assert detect_format(html) == "html"
    blocks = read_blocks(html)
    assert ("signature", "os.path.join(path, *paths)") in kinds(blocks)
    assert next(b for b in blocks if b.kind == "signature").code == ("os.path.join",)
    joined = next(b for b in blocks if b.text.startswith("Join"))
    assert joined.labels == ("os.path", "os.path.join(path, *paths)") and joined.code == ("os.sep",)
    assert [b.text for b in blocks if b.kind == "row"] == ["Starter | 3"]


def test_a_logged_html_passage_loses_its_page_chrome_as_the_corpus_would() -> None:
    """A team's log may hold a passage as its crawler kept it: the site menu, a sidebar, "Next / Up" links.
    The judge reads it with the corpus's chrome rules, so the menu is never a sentence a claim can lean on."""
    html = (
        '<body><nav><a href="/">Home</a> | <a href="/docs">Docs</a></nav>'
        '<div class="sphinxsidebar"><p>Quick search</p></div>'
        '<div role="main"><h1>Caching</h1><p>The cache holds <code>wheels</code> for 14 days.</p>'
        '<div><a href="a.html">Next: Logging</a>, <a href="b.html">Up: Topics</a></div></div>'
        '<div class="footer">Created using Sphinx 7.2.6.</div></body>'
    )
    blocks = read_blocks(html, "html")
    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "Caching"),
        ("paragraph", "The cache holds wheels for 14 days."),
    ]
    assert blocks[1].code == ("wheels",) and blocks[1].labels == ("Caching",)


def test_inline_reading_of_an_answer() -> None:
    read = read_inline("By default, `project()` enables `C` and **`CXX`**; see [the docs](https://x.org) and ``lit``.")
    assert read.text == "By default, project() enables C and CXX; see the docs and lit."
    assert read.code == ("project()", "C", "CXX", "lit") and read.links == ("https://x.org",)
    assert read_inline("{ref}`Caching <caching>` and :func:`~os.path.join`").text == "Caching and os.path.join"
    assert read_inline("plain words stay as they are").text == "plain words stay as they are"
    # a Python-domain target opening on a dot is a name of the current module, not a dotfile; a file role keeps it
    assert read_inline(":func:`fnmatch`, :func:`.filter` and :file:`.netrc`").code == ("fnmatch", "filter", ".netrc")
    assert read_inline(":exc:`~requests.exceptions.Timeout`").text == "requests.exceptions.Timeout"


def test_sentences_may_start_with_a_code_span_for_the_judge_but_chunking_keeps_its_rule() -> None:
    text = "It clears the cache in one go. `pip cache dir` prints where it is."
    assert answer_sentences(text) == ("It clears the cache in one go.", "`pip cache dir` prints where it is.")
    assert sentences_of(text) == (text,)  # the chunkers' rule is unchanged, so prompts (and cached answers) are too
    plain = "It clears the cache. pip cache dir prints it. See e.g. Foo."
    assert split_plain_sentences(plain, (21,)) == ["It clears the cache.", "pip cache dir prints it.", "See e.g. Foo."]


def test_no_sentence_ends_inside_a_code_span() -> None:
    """Issue 52: a code span holding "... " cut its sentence in two."""
    from evalgate_lib.text.markup import iter_sentences_of_blocks, read_blocks

    text = "Run `pip install foo... Then` to go. Use `a.b. C` here. Fine."
    sentences = [s for _, s in iter_sentences_of_blocks(read_blocks(text))]
    assert sentences == ["Run pip install foo... Then to go.", "Use a.b. C here.", "Fine."]


def test_code_block_spans_by_hand() -> None:
    """Fenced (backticks or tildes) and indented blocks, each from its first line's start to its last line's end;
    a ``#`` line inside is code, and inline backticks are no block."""
    # offsets: "Intro.\n\n" 0-8, the fence 8-37, "\n\n" 37-39, the indented block 39-65, then the tilde fence 97-112
    text = (
        "Intro.\n\n```toml\n# a comment\nx = 1\n```\n\n    indented code\n    more\n\n"
        "Text with ```inline``` ticks.\n~~~\n~ tilde\n~~~"
    )
    assert code_block_spans(text) == ((8, 37), (39, 65), (97, 112))
    assert text[8:37] == "```toml\n# a comment\nx = 1\n```" and text[97:112] == "~~~\n~ tilde\n~~~"
    assert code_block_spans("No code here.\n# Heading") == ()

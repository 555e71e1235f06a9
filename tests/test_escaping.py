"""Text escaped for each medium EvalGate writes to: the terminal, JUnit XML (XML 1.0), Markdown (issue 56).

Each helper of :mod:`evalgate_lib.text.escaping` is checked against hand-written outputs, and against
the reader of its medium: an XML 1.0 parser, a CommonMark renderer. The command-line rows (a name
through ``score``, ``gate``, ``explain``, ``diff``, ``--junit``, ``--markdown``) are in
tests/test_campaign_four.py.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

from evalgate_lib.text.escaping import markdown_text, terminal_text, visible, xml10_text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, tabs\tand\nlines", "plain text, tabs\tand\nlines"),  # a tab and a line break stay
        ("\x1b[2J", "\\x1b[2J"),  # clears the screen
        ("FAIL\rPASS", "FAIL\\rPASS"),  # overwrites the line
        ("a\x0bb\x0cc", "a\\x0bb\\x0cc"),  # vertical tab, form feed
        ("\x00\x7f\x85\x9b", "\\x00\\x7f\\x85\\x9b"),  # NUL, DEL, NEL, the one-byte CSI
        ("abc\u202edcba", "abc\\u202edcba"),  # right-to-left override: the line shows reordered
        ("x\u2028y\u2066z", "x\\u2028y\\u2066z"),  # line separator, a bidi isolate
        ("café – naïve ✓", "café – naïve ✓"),  # letters and symbols are text
    ],
)
def test_the_terminal_sees_every_control_character_as_its_escape(text: str, shown: str) -> None:
    assert terminal_text(text) == shown
    assert visible("\x1b") == "\\x1b" and visible("\u202e") == "\\u202e"


def test_standard_output_escapes_what_it_prints() -> None:
    """The guard around ``sys.stdout`` escapes every write, so no command prints a control character raw."""
    from evalgate_lib.run.outputs import GuardedStdout

    stream = io.StringIO()
    GuardedStdout(stream).write("name: c\rPASS\x1b[0m\n")
    assert stream.getvalue() == "name: c\\rPASS\\x1b[0m\n"


def test_xml_1_0_gets_only_characters_it_allows() -> None:
    forbidden = "".join(map(chr, [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0xFFFE, 0xFFFF]))
    assert xml10_text("a\x1bb\x0bc") == "a\\x1bb\\x0bc"
    assert xml10_text("tab\tline\ncr\r é") == "tab\tline\ncr\r é"  # XML 1.0 allows these
    assert xml10_text("\ud800") == "\\ud800"  # a lone surrogate (not Unicode at all)
    element = ET.Element("case", name=xml10_text("name" + forbidden))
    ET.fromstring(ET.tostring(element, encoding="unicode"))  # parses: the unescaped string would not


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("c\r# PWNED", "c # PWNED"),  # a carriage return is a line ending to CommonMark: a heading
        ("a\nb\r\nc\u2028d", "a b c d"),
        ("[PWNED](https://evil.example)", "[PWNED]\\(https\\://evil.example)"),
        ("![x](y.png)", "![x]\\(y.png)"),
        ("<b>x|y</b>", "&lt;b&gt;x\\|y&lt;/b&gt;"),
        ("*bold* _it_ `code` ~~del~~ back\\slash", "\\*bold\\* \\_it\\_ \\`code\\` \\~\\~del\\~\\~ back\\\\slash"),
        ("[-5.0, +1.2] (95%)", "[-5.0, +1.2] (95%)"),  # an interval reads as written
        ("esc\x1b", "esc\\\\x1b"),  # shown as its escape, whose backslash is itself escaped
    ],
)
def test_markdown_holds_a_name_as_text(name: str, written: str) -> None:
    assert markdown_text(name) == written


@pytest.mark.parametrize(
    "name",
    ["c\r# PWNED", "x\n\n# PWNED", "[PWNED](https://evil.example)", "![PWNED](https://evil.example/x.png)",
     "<img src=x onerror=alert(1)>PWNED", "*PWNED* | cell", "https://evil.example/PWNED", "`PWNED`"],
)  # fmt: skip
def test_markdown_renders_the_name_and_nothing_else(name: str) -> None:
    """Rendered by CommonMark (tables on), a name in a table cell and a list item makes no element of its own."""
    from markdown_it import MarkdownIt

    text = markdown_text(name)
    page = MarkdownIt("commonmark").enable("table").render(f"| rule | x |\n|---|---|\n| {text} | y |\n\n- {text}\n")
    for made in ("<h1", "<h2", "<a ", "<img", "<em>", "<strong>", "<code>", "<del>"):
        assert made not in page, (name, page)
    assert page.count("<td>") == 2 and page.count("<li>") == 1, page  # one cell, one item: no pipe split it
    assert "PWNED" in page

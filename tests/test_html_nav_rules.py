"""bench/html_nav_rules.py's arithmetic, checked by hand on small pages: which navigation each rule keeps, which
content it loses, and that the reader is itself again after each rule (docs/html-documents.md, "Why a class name").

``bench/`` is not a package; ``html_nav_rules.py`` is imported from its folder, as the benchmark itself runs it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import html_nav_rules  # noqa: E402

from evalgate_lib.text import html_page  # noqa: E402

# A middle page: a DocBook-like table with Prev and Next links and the chapter's title as text (4 words, so no
# link list). 6 navigation words: Prev, Chapter, 1, Getting, started, Next. Content: 3 words.
MIDDLE = (
    "<body><div class='navheader'><table><tr><td><a href='p.html'>Prev</a></td><th>Chapter 1. Getting started</th>"
    "<td><a href='n.html'>Next</a></td></tr></table></div><p>Body text here.</p></body>"
)
# A book's first page: one link (Next) beside the book's title. 5 navigation words; content: 3 words.
FIRST = (
    "<body><div class='navheader'><table><tr><th>Book title here now</th><td><a href='n.html'>Next</a></td></tr>"
    "</table></div><p>First page text.</p></body>"
)
# Content that is a table of links with one description: three of its four cells are links (no navigation).
LINKS = (
    "<body><table><tr><td><a href='#a'>alpha</a></td><td><a href='#b'>beta</a></td></tr>"
    "<tr><td><a href='#c'>gamma</a></td><td>Frees the memory block</td></tr></table><p>Closing words.</p></body>"
)


def pages(tmp_path: Path, **markups: str) -> list[Path]:
    out = []
    for name, markup in markups.items():
        (tmp_path / f"{name}.html").write_text(markup, encoding="utf-8")
        out.append(tmp_path / f"{name}.html")
    return out


def test_each_rule_on_a_middle_and_a_first_page(tmp_path: Path) -> None:
    found = html_nav_rules.measure(pages(tmp_path, middle=MIDDLE, first=FIRST), ["div.navheader"])
    assert found == {
        "none": (6 + 5, 0, 6),
        "class name": (0, 0, 6),
        "navigation words": (0 + 5, 0, 6),  # one link on the first page: not two navigation words
        "link table": (0 + 5, 0, 6),  # the first page's table: one of its two cells a link, not more than half
    }


def test_content_a_rule_drops_is_counted_as_lost(tmp_path: Path) -> None:
    found = html_nav_rules.measure(pages(tmp_path, links=LINKS), [])
    assert found["link table"] == (0, 7, 9)  # alpha beta gamma Frees the memory block: 7 of 9 content words
    assert found["class name"] == found["none"] == found["navigation words"] == (0, 0, 9)


def test_the_predicates_by_hand() -> None:
    from bs4 import BeautifulSoup

    def table(markup: str) -> object:
        return BeautifulSoup(markup, "html.parser").find(["table", "div"])

    assert html_nav_rules.navigation_word_links(table(MIDDLE).find("table"))
    assert not html_nav_rules.navigation_word_links(table(FIRST).find("table"))
    assert not html_nav_rules.navigation_word_links(table("<div><a href='n'>Next</a><p>x</p><a href='u'>Up</a></div>"))
    assert html_nav_rules.link_table(table(MIDDLE).find("table"))  # 2 of 3 cells
    assert not html_nav_rules.link_table(table(FIRST).find("table"))  # 1 of 2 cells
    assert not html_nav_rules.link_table(table("<div><a href='a'>A</a><a href='b'>B</a></div>"))  # not a table


@pytest.mark.parametrize("name", html_nav_rules.RULES)
def test_the_reader_is_restored_after_each_rule(name: str) -> None:
    token, is_link_list = html_page.NAV_TOKEN, html_page._is_link_list
    with html_nav_rules.rule(name):
        pass
    assert (html_page.NAV_TOKEN, html_page._is_link_list) == (token, is_link_list)
    assert html_page.read_html_page(MIDDLE).text == "Body text here.\n"

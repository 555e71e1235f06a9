"""Which rule finds page navigation that the link-list rule misses: a class name, navigation words, or a link table.

DocBook XSL wraps every page in a "Prev / Up / Home / Next" table above (``div.navheader``) and
below (``div.navfooter``) that holds the neighbouring pages' titles as plain text, so it is no
link list. Three general rules could catch it; this reads pages under each and counts, per group
of pages, what each keeps of the navigation and what it loses of the content:

* ``none``: no such rule (``nav``, ``navbar`` and ``navigation`` the only class names of
  navigation, as before DocBook was read);
* ``class name`` (the reading's rule, :data:`evalgate_lib.text.html_page.NAV_TOKEN`): a whole
  class or id token that names navigation (``navheader``, ``navfooter``, ``nav-links`` …);
* ``navigation words``: a block whose two or more links all read Prev, Previous, Next, Up, Home,
  Top, Back, Forward, Contents or Index, with no paragraph, list or heading in it;
* ``link table``: a table more than half of whose non-empty cells are one link each.

For every page, *content* is the page read with its navigation (CSS selectors read off the
pages by hand) removed; *navigation words kept* counts the words of a reading beyond the content
(a multiset difference), *content words lost* the content's words missing from it. The groups are
the test matrix's sets and any folder of pages given with ``--pages DIR=SELECTOR,SELECTOR``
(``--sample N`` pages of each, seeded). The rules other than the reading's are set into the
reader for the run (a measurement, not an option of EvalGate).

    .venv/bin/python bench/html_nav_rules.py [--pages DIR=div.navheader,div.navfooter ...] [--sample 60]
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
import tomllib
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import evalgate_lib.text.html_page as html_page  # noqa: E402

SETS = ROOT / "tests" / "data" / "html-docs"
RULES = ("none", "class name", "navigation words", "link table")
#: The class names of navigation before DocBook was read (whole tokens).
_OLD_NAV_TOKEN = re.compile(r"nav|navbar|navigation")
_NAV_WORDS = frozenset("prev previous next up home top back forward contents index".split())
_WORD = re.compile(r"[^\W_]+")


def _links(tag: Any) -> list[Any]:
    return [a for a in tag.find_all("a", href=True) if html_page._clean(a.get_text())]


def navigation_word_links(tag: Any) -> bool:
    """Two or more links, every one a navigation word, and no paragraph, list or heading in the block."""
    words = [html_page._clean(a.get_text()).lower().strip("«»<>[]() ") for a in _links(tag)]
    blocks = ["p", "pre", "ul", "ol", "dl", *html_page._HEADINGS]
    return len(words) >= 2 and all(w in _NAV_WORDS for w in words) and tag.find(blocks) is None


def link_table(tag: Any) -> bool:
    """A table more than half of whose non-empty cells are one link each."""
    if tag.name != "table":
        return False
    cells = [c for c in tag.find_all(["td", "th"]) if html_page._clean(c.get_text())]
    clean = html_page._clean
    linked = [c for c in cells if [clean(a.get_text()) for a in _links(c)] == [clean(c.get_text())]]
    return len(cells) >= 2 and len(linked) * 2 > len(cells)


@contextmanager
def rule(name: str) -> Iterator[None]:
    """The reader with ``name``'s rule in place of the class-name rule, for the time of the block."""
    token, is_link_list = html_page.NAV_TOKEN, html_page._is_link_list
    if name != "class name":
        html_page.NAV_TOKEN = _OLD_NAV_TOKEN
    if name == "navigation words":
        html_page._is_link_list = lambda tag: is_link_list(tag) or navigation_word_links(tag)
    elif name == "link table":
        html_page._is_link_list = lambda tag: is_link_list(tag) or link_table(tag)
    try:
        yield
    finally:
        html_page.NAV_TOKEN, html_page._is_link_list = token, is_link_list


def read_page(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8", "replace")


def without(markup: str, selectors: list[str]) -> str:
    """The page with every element matched by ``selectors`` removed."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    for selector in selectors:
        for element in soup.select(selector):
            element.decompose()
    return str(soup)


def words(markup: str) -> Counter[str]:
    return Counter(_WORD.findall(html_page.read_html_page(markup).text))


def measure(pages: list[Path], selectors: list[str]) -> dict[str, tuple[int, int, int]]:
    """Per rule: navigation words kept, content words lost, content words."""
    out = {}
    markups = [read_page(page) for page in pages]
    with rule("class name"):
        contents = [words(without(markup, selectors)) for markup in markups]
    for name in RULES:
        kept = lost = 0
        with rule(name):
            for markup, content in zip(markups, contents, strict=True):
                got = words(markup)
                kept += sum((got - content).values())
                lost += sum((content - got).values())
        out[name] = (kept, lost, sum(sum(c.values()) for c in contents))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", action="append", default=[], help="DIR=SELECTOR,SELECTOR: a folder of pages")
    parser.add_argument("--sample", type=int, default=60, help="pages drawn from each --pages folder (seeded)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    groups: list[tuple[str, list[Path], list[str]]] = []
    for folder in sorted(p for p in SETS.iterdir() if p.is_dir()):
        spec = tomllib.loads((folder / "set.toml").read_text(encoding="utf-8"))
        groups.append((folder.name, sorted((folder / "corpus").iterdir()), spec["navigation"]))
    for given in args.pages:
        folder, _, selectors = given.partition("=")
        pages = sorted(p for p in Path(folder).rglob("*.html") if p.is_file())
        if len(pages) > args.sample:
            pages = sorted(random.Random(args.seed).sample(pages, args.sample))
        groups.append((f"{folder} ({len(pages)} pages)", pages, selectors.split(",")))
    print("| pages | rule | navigation words kept | content words lost |")
    print("|---|---|---|---|")
    for name, pages, selectors in groups:
        for rule_name, (kept, lost, total) in measure(pages, selectors).items():
            print(f"| {name} | {rule_name} | {kept} | {lost} / {total} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

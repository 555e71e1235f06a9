"""A finished report page: its table of contents, and its tables readable on a phone.

The report is one long page (its sections are notebook 05's headings, its tables every piece's
own). This module works on the page as a whole, after nbconvert has rendered it, so it serves every
piece alike, whoever wrote it:

* **a table of contents** (:func:`add_contents`): one link per section heading (``<h2>`` with an
  id, as nbconvert gives every Markdown heading), placed before the first section, so the verdict
  above it stays the first screen;
* **tables on a narrow screen**: a table of three columns or more sits in a box that scrolls sideways
  within the page (:func:`wrap_wide_tables`), and every body cell gets its column's heading as
  ``data-label`` (:func:`label_cells`), which the answer table and what changed show when, below
  :data:`~evalgate_lib.reporting.styles.NARROW_BREAKPOINT_PX`, the page's CSS
  (:data:`~evalgate_lib.reporting.styles.NARROW_CSS`) stacks each of their rows into a card;
* **the appendices inside the page** (:func:`embed_appendices`): each executed notebook's cells in a
  closed ``<details>`` at the end, so the report is one file that can be mailed or attached to a CI run.

Everything is read from and written into the page's own HTML through BeautifulSoup: text is
escaped on output, nothing user-supplied is added that the page did not hold already.
"""

from __future__ import annotations

from typing import Sequence

from bs4 import BeautifulSoup, Tag

from evalgate_lib.reporting.styles import NARROW_CSS, PAGE_CSS, PHONE_FOLD_JS

#: Characters a heading holds that are not its words: nbconvert's anchor mark and the soft hyphen.
_NOT_WORDS = str.maketrans({"\xad": None, "¶": None})


def _words(tag: Tag) -> str:
    """A heading's or cell's visible words on one line (line breaks as spaces, anchor marks dropped)."""
    for anchor in tag.select("a.anchor-link"):
        anchor.extract()
    return " ".join(tag.get_text(" ").translate(_NOT_WORDS).split())


def _header_row(table: Tag) -> Tag | None:
    """The row whose cells name the columns: the head's last row, else a first row of ``<th>`` only."""
    head = table.find("thead", recursive=False)
    if head is not None:
        rows = head.find_all("tr", recursive=False)
        return rows[-1] if rows else None
    body = table.find("tbody", recursive=False) or table
    first = body.find("tr", recursive=False)
    if first is not None and first.find_all(["th", "td"], recursive=False) and not first.find("td", recursive=False):
        return first
    return None


def _columns(row: Tag) -> list[str]:
    """Each column's heading, a cell spanning several columns repeated for each."""
    names: list[str] = []
    for cell in row.find_all(["th", "td"], recursive=False):
        names += [_words(_copy(cell))] * max(1, int(cell.get("colspan", 1) or 1))
    return names


def _copy(tag: Tag) -> Tag:
    return BeautifulSoup(str(tag), "html.parser").find(tag.name)  # type: ignore[return-value]


def label_cells(soup: BeautifulSoup) -> int:
    """Give every body cell of every table its column's heading as ``data-label``; returns how many it labelled.

    A cell that already has a label keeps it; a column without a heading (the answer table's
    *details* buttons) gets none, nor does a cell spanning every column (the answer table's details
    row): the narrow layout shows no label there.
    """
    labelled = 0
    for table in soup.find_all("table"):
        header = _header_row(table)
        if header is None:
            continue
        names = _columns(header)
        for row in table.find_all("tr"):
            if row is header or row.find_parent("table") is not table:
                continue
            column = 0
            for cell in row.find_all(["td", "th"], recursive=False):
                span = max(1, int(cell.get("colspan", 1) or 1))
                full_width = span >= len(names) > 1  # the details row under an answer: no column of its own
                name = names[column] if column < len(names) and not full_width else ""
                if name and not cell.has_attr("data-label"):
                    cell["data-label"] = name
                    labelled += 1
                column += span
    return labelled


#: A table with this many columns or more scrolls sideways on a phone rather than squeezing its cells.
WIDE_COLUMNS = 3


def wrap_wide_tables(soup: BeautifulSoup) -> int:
    """Put every table of :data:`WIDE_COLUMNS` columns or more in a ``div.eg-wide``; returns how many it wrapped.

    The answer table and what changed (``table.eg-fit``) are left alone: on a phone they are cards. A table
    already in such a box is not wrapped again.
    """
    wrapped = 0
    for table in soup.find_all("table"):
        classes = table.get("class") or []
        parent = table.parent
        if "eg-fit" in classes or (isinstance(parent, Tag) and "eg-wide" in (parent.get("class") or [])):
            continue
        header = _header_row(table) or table.find("tr")
        if header is None or len(_columns(header)) < WIDE_COLUMNS:
            continue
        table.wrap(soup.new_tag("div", attrs={"class": "eg-wide"}))
        wrapped += 1
    return wrapped


def add_contents(soup: BeautifulSoup) -> int:
    """Put a table of contents before the first section heading; returns how many sections it links.

    Sections are the ``<h2>`` headings with an id outside the report's own pieces. A page with fewer
    than two gets no contents.
    """
    sections = [
        h
        for h in soup.find_all("h2")
        if h.get("id") and not h.find_parent(class_="eg-report") and not h.find_parent(class_="eg-appendix")
    ]
    if len(sections) < 2:
        return 0
    nav = soup.new_tag("nav", attrs={"class": "eg-contents", "aria-label": "Contents"})
    title = soup.new_tag("h2", attrs={"class": "eg-contents-title"})
    title.string = "Contents"
    items = soup.new_tag("ol")
    for heading in sections:
        item = soup.new_tag("li")
        link = soup.new_tag("a", href="#" + heading["id"])
        link.string = _words(_copy(heading))
        item.append(link)
        items.append(item)
    nav.extend([title, items])
    cell = sections[0].find_parent(class_="jp-Cell") or sections[0]
    cell.insert_before(nav)
    return len(sections)


def finish_page(page: str, title_from_heading: bool = False) -> str:
    """The page with its table of contents, its cells labelled and the CSS that uses both (in ``<head>``).

    ``title_from_heading``: the page's ``<title>`` becomes its report heading's words (``h1.eg-title``), when
    it has one: a notebook rendered without a title of its own (notebook 05 by hand) is titled as the report.
    """
    soup = BeautifulSoup(page, "html.parser")
    heading = soup.select_one("h1.eg-title")
    if title_from_heading and heading is not None and soup.title is not None:
        soup.title.string = _words(_copy(heading))
    label_cells(soup)
    wrap_wide_tables(soup)
    add_contents(soup)
    style = soup.new_tag("style")
    style.string = PAGE_CSS + NARROW_CSS
    head = soup.find("head")
    if head is not None:
        head.append(style)
    else:
        soup.insert(0, style)
    if soup.select_one("details.eg-phone-fold") is not None:
        script = soup.new_tag("script")
        script.string = PHONE_FOLD_JS
        (soup.body or soup).append(script)
    return str(soup)


def _appendix_body(page: str, prefix: str) -> BeautifulSoup:
    """An appendix page's cells as a fragment: its own contents and styles dropped, every id made unique."""
    soup = BeautifulSoup(page, "html.parser")
    main = soup.find("main") or soup.body or soup
    fragment = BeautifulSoup("", "html.parser")
    for child in list(main.children):
        fragment.append(child.extract())
    for nav in fragment.select("nav.eg-contents"):
        nav.decompose()
    ids = {tag["id"] for tag in fragment.find_all(id=True)}
    for tag in fragment.find_all(id=True):
        tag["id"] = prefix + tag["id"]
    for attr in ("href", "aria-controls", "data-detail", "for"):
        for tag in fragment.find_all(attrs={attr: True}):
            value = tag[attr]
            if attr == "href" and value.startswith("#") and value[1:] in ids:
                tag[attr] = "#" + prefix + value[1:]
            elif attr != "href" and value in ids:
                tag[attr] = prefix + value
    for script in fragment.find_all("script"):  # a view's script finds its root by id: the id it now has
        if script.string:
            for old in ids:
                script.string = script.string.replace(f'"{old}"', f'"{prefix}{old}"')
    return fragment


def embed_appendices(page: str, appendices: Sequence[tuple[str, str]]) -> str:
    """``page`` with each appendix (``(name, its rendered page)``) inside it: one closed ``<details>`` each.

    They go, in order, after the cell holding the page's appendix slots (``div.eg-appendix-slot``, which the
    report's closing section writes), else at the end of its content. Each id in an appendix gets the prefix
    ``NAME--`` (two pages share nbconvert's heading ids), and the links and scripts that name them follow.
    """
    soup = BeautifulSoup(page, "html.parser")
    main = soup.find("main") or soup.body or soup
    after: Tag | None = None
    for name, appendix in appendices:
        block = soup.new_tag("details", attrs={"class": "eg-appendix", "id": f"appendix-{name}"})
        summary = soup.new_tag("summary")
        summary.string = f"Appendix: {name}.ipynb (the executed notebook, inside this page)"
        block.append(summary)
        block.append(_appendix_body(appendix, f"{name}--"))
        slot = soup.select_one(f'div.eg-appendix-slot[data-notebook="{name}"]')
        cell = None if slot is None else slot.find_parent(class_="jp-Cell")
        if slot is not None:
            slot.decompose()
        if after is None and cell is not None:
            after = cell  # after the cell that lists them: an appendix holds cells of its own, not an output
        if after is not None:
            after.insert_after(block)
            after = block
        else:
            main.append(block)
    return str(soup)

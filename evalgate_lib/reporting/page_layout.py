"""A finished report page: its table of contents, and its tables readable on a phone.

The report is one long page (its sections are notebook 05's headings, its tables every piece's
own). This module works on the page as a whole, after nbconvert has rendered it, so it serves every
piece alike, whoever wrote it:

* **a table of contents** (:func:`add_contents`): one link per section heading (``<h2>`` with an
  id, as nbconvert gives every Markdown heading), placed before the first section, so the verdict
  above it stays the first screen;
* **tables on a narrow screen** (:func:`label_cells`): every body cell gets its column's heading
  as ``data-label``; below :data:`~evalgate_lib.reporting.styles.NARROW_BREAKPOINT_PX` the page's CSS
  (:data:`~evalgate_lib.reporting.styles.NARROW_CSS`) stacks each row into a card whose cells are led
  by those headings, instead of squeezing seven columns into 390 pixels.

Everything is read from and written into the page's own HTML through BeautifulSoup: text is
escaped on output, nothing user-supplied is added that the page did not hold already.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag

from evalgate_lib.reporting.styles import NARROW_CSS, PAGE_CSS

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


def add_contents(soup: BeautifulSoup) -> int:
    """Put a table of contents before the first section heading; returns how many sections it links.

    Sections are the ``<h2>`` headings with an id outside the report's own pieces. A page with fewer
    than two gets no contents.
    """
    sections = [h for h in soup.find_all("h2") if h.get("id") and not h.find_parent(class_="eg-report")]
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


def finish_page(page: str) -> str:
    """The page with its table of contents, its cells labelled and the CSS that uses both (in ``<head>``)."""
    soup = BeautifulSoup(page, "html.parser")
    label_cells(soup)
    add_contents(soup)
    style = soup.new_tag("style")
    style.string = PAGE_CSS + NARROW_CSS
    head = soup.find("head")
    if head is not None:
        head.append(style)
    else:
        soup.insert(0, style)
    return str(soup)

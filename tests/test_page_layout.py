"""The report page as a whole: contents, cells labelled for a phone, charts described, offline (no kernel).

The exporter is run here on notebooks built by hand (outputs included), so what it writes is
checked without executing anything; the real report goes through the same exporter in
``tests/test_report_recipes.py`` (and in a browser at 390 px there).
"""

from __future__ import annotations

import base64
import json

import matplotlib
import nbformat
from bs4 import BeautifulSoup
from conftest import make_row
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from evalgate_lib.inputs.corpus import OUTPUT_MARKER
from evalgate_lib.reporting.page_layout import add_contents, finish_page, label_cells
from evalgate_lib.reporting.plots import chart_alt, coverage_heatmap
from evalgate_lib.reporting.results_table import table_page_html
from evalgate_lib.workbench.charts import PHONE_MIME, chart_png
from evalgate_lib.workbench.html_export import NO_DESCRIPTION, ReportExporter

matplotlib.use("Agg")

TABLE = """<table class="t"><thead><tr><th colspan="2">who</th><th>verdict<br>retrieval</th><th></th></tr></thead>
<tbody><tr><td>a</td><td>b</td><td data-label="kept">c</td><td><button>details</button></td></tr>
<tr><td colspan="4">a full-width details row<table><tr><th>inner</th></tr><tr><td>x</td></tr></table></td></tr>
</tbody></table>"""


def test_each_cell_gets_its_column_heading_and_full_width_rows_none() -> None:
    soup = BeautifulSoup(TABLE, "html.parser")
    assert label_cells(soup) == 3  # a, b (the spanned heading twice), x (the inner table's own heading)
    outer = soup.select("table.t > tbody > tr")
    assert [td.get("data-label") for td in outer[0].find_all("td", recursive=False)] == [
        "who", "who", "kept", None,  # a label already there is kept; a column without a heading gets none
    ]  # fmt: skip
    assert not outer[1].find("td").has_attr("data-label")  # spans every column: the details row
    assert soup.select_one("table table td")["data-label"] == "inner"


def test_soft_hyphens_and_line_breaks_do_not_reach_a_label() -> None:
    html = "<table><tr><th>grounded&shy;ness<br>confidence</th></tr><tr><td>1</td></tr></table>"
    soup = BeautifulSoup(html, "html.parser")
    label_cells(soup)
    assert soup.td["data-label"] == "groundedness confidence"


PAGE = """<html><head><title>t</title></head><body><main>
<div class="jp-Cell"><div class="eg-report"><h2>inside a piece: not a section</h2></div><p>verdict first</p></div>
<div class="jp-Cell"><h2 id="Headline-metrics">Headline metrics<a class="anchor-link" href="#x">¶</a></h2></div>
<div class="jp-Cell"><h2 id="Every-answer">Every answer &amp; &lt;more&gt;<a class="anchor-link">¶</a></h2></div>
</main></body></html>"""


def test_contents_link_every_section_before_the_first() -> None:
    soup = BeautifulSoup(PAGE, "html.parser")
    assert add_contents(soup) == 2
    nav = soup.select_one("nav.eg-contents")
    assert nav["aria-label"] == "Contents"
    links = [(a["href"], a.get_text()) for a in nav.select("a")]
    assert links == [("#Headline-metrics", "Headline metrics"), ("#Every-answer", "Every answer & <more>")]
    assert "&lt;more&gt;" in str(nav)  # a heading's text stays text
    cells = soup.select("main > *")
    assert cells.index(nav) == 1  # after the first cell (the verdict), before the first section's cell
    assert add_contents(BeautifulSoup("<h2 id='only'>one</h2>", "html.parser")) == 0


def test_finish_page_puts_its_css_in_the_head() -> None:
    page = BeautifulSoup(finish_page(PAGE + TABLE), "html.parser")
    css = page.head.style.get_text()
    assert "@media (max-width: 640px)" in css and "content: attr(data-label)" in css and "nav.eg-contents" in css


def test_the_standalone_table_page_is_laid_out_as_the_report() -> None:
    rows = [make_row(question_id="q001"), make_row(config="candidate", question_id="q001")]
    page = BeautifulSoup(table_page_html(rows), "html.parser")
    first = page.select_one("tr.eg-row")
    assert [td.get("data-label") for td in first.find_all("td", recursive=False)][:3] == [
        "answer of", "question · accepted answers", "answer (model output)",
    ]  # fmt: skip
    assert page.select_one('meta[name="viewport"]') is not None


# --------------------------------------------------------------------------- charts with their description


def test_a_chart_carries_what_it_shows() -> None:
    row = make_row(question_id="q007", answer="Starter includes 3 seats.")
    ax = coverage_heatmap(row)
    alt = chart_alt(ax.figure)
    assert alt.startswith("Heatmap of the 1 sentence(s) of baseline's answer to q007")
    assert alt.endswith("1 supported, 0 unsupported, 0 claiming nothing.")
    png, described = chart_png(ax)
    assert png.startswith(b"\x89PNG") and described == alt
    import matplotlib.pyplot as plt

    fig, bare = plt.subplots()
    bare.set_title("t")
    bare.set_xlabel("x label")
    assert chart_alt(fig) == "Chart: t, x: x label"
    assert chart_alt(plt.figure()) == "A chart with no title or axis labels."


# --------------------------------------------------------------------------- the exporter


def _png() -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1, 1))
    png, _ = chart_png(ax)
    plt.close(fig)
    return base64.b64encode(png).decode("ascii")


def notebook() -> nbformat.NotebookNode:
    alt = {"image/png": {"alt": "Bars <&> of x"}}
    described = new_output("display_data", data={"image/png": _png()}, metadata=alt)
    bare = new_output("display_data", data={"image/png": _png()})
    table = new_output("display_data", data={"text/html": TABLE})
    noise = new_output("stream", name="stderr", text="Loading weights: 100%")
    return new_notebook(
        cells=[
            new_code_cell("x = 1", outputs=[noise]),
            new_markdown_cell("## First section"),
            new_code_cell("show()", outputs=[described, bare]),
            new_markdown_cell("## Second section"),
            new_code_cell("table()", outputs=[table]),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )


def test_the_exporter_writes_an_offline_described_finished_page() -> None:
    body, _ = ReportExporter().from_notebook_node(notebook())
    page = BeautifulSoup(body, "html.parser")
    linked = [t.get("src") or t.get("href") or "" for t in page.find_all(["script", "link", "img", "iframe"])]
    remote = [url for url in linked if url.startswith(("http", "//"))]
    assert remote == [] and "require.js" not in body and "mathjax" not in body.lower()
    assert [img["alt"] for img in page.find_all("img")] == ["Bars <&> of x", NO_DESCRIPTION]
    assert "No description has been provided" not in body  # nbconvert's placeholder never needed
    assert [a.get_text() for a in page.select("nav.eg-contents a")] == ["First section", "Second section"]
    assert page.select_one("table.t td")["data-label"] == "who"
    assert "x = 1" not in page.get_text() and "Loading weights" not in body  # code and stderr hidden
    assert OUTPUT_MARKER in body.split("</head>")[0]  # EvalGate's own page: a corpus holding it skips it


def test_nbconvert_finds_the_exporter_by_name(tmp_path) -> None:
    """`jupyter nbconvert --to evalgate` resolves through the entry point pyproject.toml declares."""
    from nbconvert.exporters.base import get_exporter

    assert get_exporter("evalgate") is ReportExporter
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook()), encoding="utf-8")
    body, _ = get_exporter("evalgate")().from_filename(str(tmp_path / "n.ipynb"))
    assert "nav" in body and "eg-contents" in body


def test_show_chart_displays_the_png_with_its_alt_text_and_closes_the_figure(monkeypatch) -> None:
    import IPython.display
    import matplotlib.pyplot as plt

    from evalgate_lib.workbench.charts import show_chart

    shown: list = []
    monkeypatch.setattr(IPython.display, "display", lambda data, **kw: shown.append((data, kw)))
    ax = coverage_heatmap(make_row(question_id="q009"))
    number = ax.figure.number
    before = set(plt.get_fignums())
    show_chart(ax)
    data, kw = shown[0]
    assert kw["raw"] is True and base64.b64decode(data["image/png"]).startswith(b"\x89PNG")
    metadata = kw["metadata"]
    assert metadata["image/png"]["alt"].startswith("Heatmap of the 1 sentence(s) of baseline's answer to q009")
    # drawn again at phone width, its smallest text 9 pt (12.5 px at 100 dpi), for the report's <picture>
    assert base64.b64decode(data[PHONE_MIME]).startswith(b"\x89PNG")
    assert metadata[PHONE_MIME]["font_px"] == 12.5 and metadata["image/png"]["font_px"] == round(8 * 100 / 72, 2)
    assert not plt.fignum_exists(number) and set(plt.get_fignums()) <= before  # nothing left for the inline backend
    show_chart(coverage_heatmap(make_row()), alt="my own words")
    assert shown[1][1]["metadata"]["image/png"]["alt"] == "my own words"

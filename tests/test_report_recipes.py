"""The report rendered by hand as docs/notebooks.md says, and the report on a phone (390 px, headless Chromium).

The hand recipe (the bash block under "Rendering the report by hand": papermill on notebook 05 with
``-p labels PATH``, then ``jupyter nbconvert --to evalgate``) runs as written in a copy of the project's
layout, on the shipped pair's 202 answers scored from their logs (``labels/demo/nimbus-answers/``,
``evalgate score``: no model), so the labels of ``labels/nimbus.jsonl`` match every answer. Its page must
load nothing from the network, describe every chart, open its sections with a table of contents and
show the labels' agreement.

At 390 px (a phone held upright), on that page and on the one ``evalgate report`` writes (the
session's small real run, and the whole gold set under ``-m full_gold``): no table cell narrower than
60 px, nothing cut off or sticking out of the screen (a wide table scrolls sideways in its own box, by
design), the answer table's *details* opened included, and its filter showing one page of cards.
The screenshots land in ``build/screenshots/report_390px.png`` and ``report_390px_details.png``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import evalgate_cli

from evalgate_lib.reporting.styles import PHONE_PAGE_ROWS
from evalgate_lib.workbench.html_export import NO_DESCRIPTION

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "build" / "screenshots"
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
NARROWEST_CELL_PX = 60
pytestmark = pytest.mark.slow


def documented_block() -> str:
    """The bash block under "Rendering the report by hand", exactly as the docs print it."""
    text = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    return text.split("### Rendering the report by hand", 1)[1].split("```bash", 1)[1].split("```", 1)[0]


@pytest.fixture(scope="module")
def hand_report(tmp_path_factory) -> Path:
    """The page the hand recipe writes, in a copy of the project holding the shipped pair's scored answers."""
    project = tmp_path_factory.mktemp("hand-report")
    shutil.copytree(ROOT / "notebooks", project / "notebooks")
    for name in ("configs", "corpus", "gold", "labels"):
        (project / name).symlink_to(ROOT / name, target_is_directory=True)
    answers = project / "labels" / "demo" / "nimbus-answers"
    scored = evalgate_cli(
        "score", answers / "baseline.jsonl", answers / "candidate.jsonl", "--gold", "gold/questions.jsonl",
        "--corpus", "corpus", "--out", "results/latest", cwd=project,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    venv = Path(sys.executable).parent
    script = documented_block()
    for tool in ("papermill", "jupyter"):
        script = script.replace(f"../.venv/bin/{tool}", shlex.quote(str(venv / tool)))
    done = subprocess.run(["bash", "-e", "-c", script], cwd=project, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return project / "results" / "nb" / "05.html"


def test_the_docs_render_notebook_05_with_one_label_path_and_the_evalgate_exporter() -> None:
    commands = re.sub(r"\\\n\s*", "", documented_block())
    assert "-p labels ../labels/nimbus.jsonl" in commands  # one path, not a YAML list
    assert "nbconvert --to evalgate" in commands


def test_the_hand_rendered_report_is_offline_described_and_labelled(hand_report: Path) -> None:
    body = hand_report.read_text(encoding="utf-8")
    page = BeautifulSoup(body, "html.parser")
    linked = [t.get("src") or t.get("href") or "" for t in page.find_all(["script", "link", "img", "iframe", "source"])]
    assert [url for url in linked if re.match(r"(https?:)?//", url)] == []
    assert "require.min.js" not in body and "MathJax" not in body
    images = page.find_all("img")
    assert images and all(img.get("alt") and img["alt"] != NO_DESCRIPTION for img in images)
    assert any(img["alt"].startswith("Horizontal bar charts of each metric's change") for img in images)
    sections = [a.get_text() for a in page.select("nav.eg-contents a")]
    assert sections[0] == "Headline metrics and deltas" and "Every answer, both configs" in sections
    assert all(page.find(id=a["href"][1:]) is not None for a in page.select("nav.eg-contents a"))
    # -p labels ../labels/nimbus.jsonl reached every view: a census of 202 labels, their reviewers named
    assert "a census (202 of 202 answers labelled)" in page.get_text(" ")
    assert "Labelled by reviewer-1" in page.get_text(" ")
    assert len(page.select("tr.eg-row")) == 202
    # the same page as evalgate report's: its tab says what it reports, not "05"
    assert page.title.get_text() == "EvalGate report: candidate vs baseline"


# --------------------------------------------------------------------------- 390 px


@pytest.fixture
def phone(browser):
    """The browser as a phone held upright (390 × 844 CSS px, touch viewport), restored afterwards."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


#: Every visible table cell narrower than the floor: [table class, width, text].
NARROW_CELLS = """
return Array.from(document.querySelectorAll('td, th')).map(function (c) {
  var r = c.getBoundingClientRect();
  return [r.width, r.height, (c.closest('table') || {}).className, c.textContent.trim().slice(0, 40)];
}).filter(function (x) { return x[0] > 0 && x[1] > 0 && x[0] < arguments[0]; });
"""

#: Every visible element that sticks out of the screen, or whose box cuts off its content sideways.
CLIPPED = """
var width = window.innerWidth, out = [];
document.querySelectorAll('body *').forEach(function (el) {
  var r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) { return; }
  var name = el.tagName + '.' + (typeof el.className === 'string' ? el.className : '');
  var inBox = el.parentElement && el.parentElement.closest('.eg-wide');  // scrolled into view sideways in its box
  if (!inBox && (r.left < -1 || r.right > width + 1)) {
    out.push(['outside the screen', name, Math.round(r.left), Math.round(r.right)]);
  }
  var s = getComputedStyle(el);
  var scrolls = ['auto', 'scroll'].indexOf(s.overflowX) >= 0;  // a wide table's box: it scrolls sideways by design
  if (['hidden', 'clip', 'auto', 'scroll'].indexOf(s.overflowX) >= 0 && el.scrollWidth > el.clientWidth + 1
      && !(scrolls && (el.classList.contains('eg-wide') || el.tagName === 'PRE'))) {
    out.push(['content cut off sideways', name, el.scrollWidth, el.clientWidth]);
  }
});
return out.slice(0, 20);
"""


def _check_phone_layout(driver) -> None:
    page = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert page == [PHONE["width"], PHONE["width"]], page  # no sideways scrolling of the page
    narrow = driver.execute_script(NARROW_CELLS.replace("arguments[0]", str(NARROWEST_CELL_PX)))
    assert narrow == [], narrow
    clipped = driver.execute_script(CLIPPED)
    assert clipped == [], clipped


def _at_390(driver, page: Path, shot: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(page.as_uri())
    assert driver.execute_script("return window.innerWidth") == PHONE["width"]
    _check_phone_layout(driver)
    # the table of every answer: each answer a card, its details button whole, its details opened in place
    table = driver.find_element(By.CSS_SELECTOR, "table.eg-results-table")
    assert driver.execute_script("return getComputedStyle(arguments[0]).display", table) == "block"
    row = driver.find_elements(By.CSS_SELECTOR, "tr.eg-row")[1]
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", row)
    cells = row.find_elements(By.CSS_SELECTOR, ":scope > td")
    labels = [driver.execute_script("return getComputedStyle(arguments[0], '::before').content", c) for c in cells]
    assert labels[:3] == ['"answer of"', '"question · accepted answers"', '"answer (model output)"'], labels
    button = row.find_element(By.CSS_SELECTOR, "button.eg-toggle")
    box = driver.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.left, r.right];", button)
    assert 0 <= box[0] and box[1] <= PHONE["width"], box
    detail = driver.find_element(By.ID, row.get_attribute("data-detail"))
    assert not detail.is_displayed()  # closed details stay closed in the card layout
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{shot}.png"))
    button.click()
    assert detail.is_displayed()
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", detail)
    _check_phone_layout(driver)
    driver.save_screenshot(str(SCREENSHOTS / f"{shot}_details.png"))
    # the filters still hide what they hide: only hallucination cards, a page of them, no closed details
    Select(driver.find_element(By.CSS_SELECTOR, "select.eg-flag-filter")).select_by_value("hallucination")
    shown = [r for r in driver.find_elements(By.CSS_SELECTOR, "tr.eg-row") if r.is_displayed()]
    flagged = driver.find_elements(By.CSS_SELECTOR, 'tr.eg-row[data-hallucination="1"]')
    assert 0 < len(shown) == min(len(flagged), PHONE_PAGE_ROWS) and all(r in flagged for r in shown)
    pager = driver.find_element(By.CSS_SELECTOR, "#eg-results .eg-pager .eg-pager-at")
    assert pager.text == f"1–{len(shown)} of {len(flagged)}"
    opened = [d for d in driver.find_elements(By.CSS_SELECTOR, "tr.eg-detail") if d.is_displayed()]
    assert len(opened) <= 1  # at most the one opened above, when it is a hallucination


def test_the_hand_rendered_report_at_390px(phone, hand_report: Path) -> None:
    _at_390(phone, hand_report, "report_390px")


def test_the_report_at_390px(phone, report_of_run, request) -> None:
    report, _ = report_of_run
    full = "full_gold" in request.keywords
    _at_390(phone, report / "index.html", "report_390px_full_gold" if full else "report_390px_small_run")

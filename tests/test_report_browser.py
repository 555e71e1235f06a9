"""The report in a real browser: headless Chromium filters the results table with no kernel running.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package: the
``browser`` fixture (``conftest.py``) installs what is missing (apt-get as root, pip for
selenium) and skips, naming the reason, only when that is impossible. Screenshots of the small
run's report land in ``build/screenshots/first_screen.png`` and ``heatmap.png`` (git-ignored; not
``report/``, where they would sit beside a user's own report and show another run);
those of the shipped recipe's report at 1280 × 800 (first screen, the changed questions,
an opened answer) in ``<tmp>/report_shots/`` — on the session's small run, and on the whole
gold set under ``-m full_gold`` (``report_shots/full_gold/``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from conftest import crafted_rows

from evalgate_lib.api import load_results
from evalgate_lib.reporting.report_html import table_page_html
from evalgate_lib.reporting.results_table import visible_text
from evalgate_lib.run.results import load_rows
from evalgate_lib.statistics.gate import load_gate
from evalgate_lib.statistics.power import cannot_fail, summary_powers

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "build" / "screenshots"
SHOTS_1280 = Path(tempfile.gettempdir()) / "report_shots"
WIDTH, HEIGHT = 1280, 800


def _apply_filter(driver, value: str) -> list:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.CSS_SELECTOR, "select.eg-flag-filter")).select_by_value(value)
    return [r for r in driver.find_elements(By.CSS_SELECTOR, "tr.eg-row") if r.is_displayed()]


def _visible_count(driver) -> int:
    from selenium.webdriver.common.by import By

    return int(driver.find_element(By.CSS_SELECTOR, ".eg-visible-count").text)


@pytest.fixture
def fixture_page(tmp_path):
    """A table page built from hand-made rows whose flags are known (two hallucinations per config)."""
    rows = crafted_rows()
    page = tmp_path / "table.html"
    page.write_text(table_page_html(rows, "fixture"), encoding="utf-8")
    return page, rows


def test_hallucination_filter_on_known_rows(browser, fixture_page):
    page, rows = fixture_page
    browser.get(page.as_uri())
    assert len(_apply_filter(browser, "all")) == len(rows)
    visible = _apply_filter(browser, "hallucination")
    expected = sum(1 for r in rows if r.flags.hallucination)
    assert 0 < expected < len(rows)
    assert len(visible) == expected == _visible_count(browser)
    assert all(r.get_attribute("data-hallucination") == "1" for r in visible)
    # the crafted answer's <script> and onerror handler stayed text: nothing ran
    assert browser.execute_script("return window.__pwned === undefined")
    assert "<script>window.__pwned" in browser.page_source.replace("&lt;", "<").replace("&gt;", ">")
    # the other filters, and config + flag together
    for key in ("wrong", "grounded_but_wrong", "review"):
        shown = _apply_filter(browser, key.replace("_", "-"))
        assert len(shown) == sum(1 for r in rows if r.flags.fired(key)), key
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.CSS_SELECTOR, "select.eg-config-filter")).select_by_value("candidate")
    shown = _apply_filter(browser, "hallucination")
    assert {r.get_attribute("data-question-id") for r in shown} == {"q002", "q005"}
    assert all(r.get_attribute("data-config") == "candidate" for r in shown)


def test_a_chunk_reads_as_written_even_without_the_pages_style(browser, tmp_path):
    """A retrieved chunk's table rows and code lines stay lines in the details, also with every ``<style>`` of the
    page removed, as JupyterLab's sanitiser removes them from an untrusted notebook's output."""
    import re

    from conftest import make_row
    from selenium.webdriver.common.by import By

    from evalgate_lib.judging.rows import RetrievedChunk

    body = "| plan | seats |\n|---|---|\n| Starter | 3 |\n\n```\ndef seats():\n    return 3\n```"
    row = make_row(retrieved=(RetrievedChunk(1, "plans#0", "plans", 0, 0, len(body), 0.8),), gold_article="plans")
    page = table_page_html([row], "chunk text", bodies={"plans": body})
    for name, markup in (("styled", page), ("bare", re.sub(r"<style>.*?</style>", "", page, flags=re.S))):
        (tmp_path / f"{name}.html").write_text(markup, encoding="utf-8")
        browser.get((tmp_path / f"{name}.html").as_uri())
        browser.find_element(By.CSS_SELECTOR, "tr.eg-row button.eg-toggle").click()
        chunk = browser.find_element(By.CSS_SELECTOR, ".eg-chunk-text")
        assert browser.execute_script("return arguments[0].innerText", chunk) == body, name
        assert chunk.value_of_css_property("white-space") == "pre-wrap", name


@pytest.mark.slow
def test_real_report_filters_offline_and_screenshots(browser, small_report):
    from selenium.webdriver.common.by import By

    report = small_report
    rows = load_rows(report / "results")
    browser.get((report / "index.html").as_uri())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "first_screen.png"))
    assert browser.find_element(By.CSS_SELECTOR, "table.eg-headline").is_displayed()
    assert len(_apply_filter(browser, "all")) == len(rows)
    visible = _apply_filter(browser, "hallucination")
    assert len(visible) == sum(1 for r in rows if r.flags.hallucination) == _visible_count(browser)
    assert all(r.get_attribute("data-hallucination") == "1" for r in visible)
    heatmap = browser.find_element(By.XPATH, "//h2[starts-with(@id, 'Sentence-support')]/following::img[2]")
    browser.execute_script("arguments[0].scrollIntoView();", heatmap)
    heatmap.screenshot(str(SCREENSHOTS / "heatmap.png"))
    assert (SCREENSHOTS / "heatmap.png").stat().st_size > 1000


# --------------------------------------------------------------------------- the shipped run's report at 1280 × 800


@pytest.fixture
def small_screen(browser):
    """The browser with a 1280 × 800 viewport (exactly: window decorations do not count), restored afterwards."""
    metrics = {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _rect(driver, element) -> dict:
    return driver.execute_script(
        "var r = arguments[0].getBoundingClientRect();"
        "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};",
        element,
    )


def _no_horizontal_overflow(driver) -> None:
    """Neither the page nor any scrolling box of the report is wider than what it shows."""
    page = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth, window.innerWidth]"
    )
    assert page[0] <= page[1] <= WIDTH, page
    boxes = driver.execute_script(
        "return Array.from(document.querySelectorAll('.eg-scroll')).map(b => [b.scrollWidth, b.clientWidth])"
    )
    assert boxes and all(scroll <= client for scroll, client in boxes), boxes


def _search(driver, needle: str) -> list:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.CSS_SELECTOR, "input.eg-search")
    box.clear()
    box.send_keys(needle)
    return [r for r in driver.find_elements(By.CSS_SELECTOR, "tr.eg-row") if r.is_displayed()]


@pytest.mark.slow
def test_shipped_report_at_1280_by_800(small_screen, report_of_run, request):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = small_screen
    report, results = report_of_run
    loaded = load_results(results)
    rows, summary = loaded.rows, loaded.summary
    shots = SHOTS_1280 / "full_gold" if "full_gold" in request.keywords else SHOTS_1280
    shots.mkdir(parents=True, exist_ok=True)
    driver.get((report / "index.html").as_uri())
    assert driver.execute_script("return [window.innerWidth, window.innerHeight, window.scrollY]") == [WIDTH, HEIGHT, 0]

    # 1. the gate's verdict is on the first screen, and it is the gate's
    verdict = driver.find_element(By.ID, "eg-verdict")
    box = _rect(driver, verdict)
    assert 0 <= box["top"] and box["bottom"] <= HEIGHT, box
    # the report is built with the shipped labels (shipped_report_args): its verdict is the labelled decision's
    decision = loaded.gate_decision(ROOT / "configs" / "gate.toml", ROOT / "labels" / "nimbus.jsonl")
    failed = bool(decision.failed)
    word = decision.verdict
    assert verdict.get_attribute("data-verdict") == word
    assert verdict.find_element(By.CSS_SELECTOR, ".eg-verdict-word").text == word
    # in words a product manager reads: what to do, each rule's change with its range; no test names on screen
    assert "McNemar" not in verdict.text and "p =" not in verdict.text
    advice = verdict.find_element(By.CSS_SELECTOR, ".eg-advice").text
    stuck = cannot_fail(summary_powers(load_gate(ROOT / "configs" / "gate.toml"), summary))
    if failed:
        assert advice.startswith("Do not ship")
    elif stuck:  # the small run's 4 questions: no rule can fail, so the PASS is said to be no evidence
        assert advice.startswith(f"{len(stuck)} of the gate's rules cannot fail on a gold set this small")
        assert driver.find_element(By.ID, "eg-power").is_displayed()
    else:
        assert advice.startswith("Nothing")
    plain = driver.find_elements(By.CSS_SELECTOR, ".eg-plain li")
    measured = [li for li in plain if "not measured" not in li.text]
    assert plain and all("plausibly anywhere from" in li.text or "no question moved" in li.text for li in measured)
    assert all(li.find_elements(By.CSS_SELECTOR, ".eg-src") for li in plain)  # each figure names its source
    assert all(_rect(driver, li)["bottom"] <= HEIGHT for li in plain)  # on the first screen
    assert not driver.find_element(By.CSS_SELECTOR, "details.eg-how table.eg-gate-rules").is_displayed()
    driver.save_screenshot(str(shots / "first_screen.png"))
    _no_horizontal_overflow(driver)

    # 2. "verdict changed" shows exactly the discordant pairs, computed here from results.jsonl
    correct = {(r.config, r.question_id): r.correct for r in rows}
    discordant = {
        q for (c, q), ok in correct.items() if c == summary.baseline and ok != correct[(summary.candidate, q)]
    }
    accuracy = summary.significance["accuracy_overall"]
    assert len(discordant) == accuracy["b"] + accuracy["c"] > 0
    changes = driver.find_element(By.ID, "eg-changes")
    heading = driver.find_element(By.XPATH, "//h2[starts-with(@id, 'What-changed')]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", heading)
    Select(changes.find_element(By.CSS_SELECTOR, "select.eg-change-filter")).select_by_value("verdict")
    shown = [r for r in changes.find_elements(By.CSS_SELECTOR, "tr.eg-change") if r.is_displayed()]
    assert {r.get_attribute("data-question-id") for r in shown} == discordant
    assert len(shown) == len(discordant) == int(changes.find_element(By.CSS_SELECTOR, ".eg-change-count").text)
    assert {r.get_attribute("data-change") for r in shown} <= {"fixed", "broken"}
    driver.save_screenshot(str(shots / "changed_questions.png"))
    _no_horizontal_overflow(driver)
    # its "details" link opens that answer in the table below
    link = shown[0].find_element(By.CSS_SELECTOR, 'td[data-side="candidate"] a.eg-goto')
    link.click()
    target = driver.find_element(By.ID, link.get_attribute("href").split("#", 1)[1])
    assert target.get_attribute("data-open") == "1"
    assert driver.find_element(By.ID, target.get_attribute("data-detail")).is_displayed()
    target.find_element(By.CSS_SELECTOR, "button.eg-toggle").click()  # close it again

    # 3. an opened answer's details are a full-width row inside the screen: the one with the most chunk text
    widest = max(rows, key=lambda r: (sum(c.end - c.start for c in r.retrieved), len(r.answer)))
    anchor = driver.find_element(By.CSS_SELECTOR, f'tr.eg-row[data-config="{widest.config}"]'
                                                  f'[data-question-id="{widest.question_id}"]')  # fmt: skip
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", anchor)
    anchor.find_element(By.CSS_SELECTOR, "button.eg-toggle").click()
    detail = driver.find_element(By.ID, anchor.get_attribute("data-detail"))
    assert detail.is_displayed()
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", anchor)
    table = _rect(driver, driver.find_element(By.CSS_SELECTOR, "table.eg-results-table"))
    for element in [detail, *detail.find_elements(By.CSS_SELECTOR, ".eg-chunk, table")]:
        box = _rect(driver, element)
        assert 0 <= box["left"] and box["right"] <= WIDTH, box
    assert _rect(driver, detail)["right"] - _rect(driver, detail)["left"] >= 0.95 * (table["right"] - table["left"])
    chunks = detail.find_elements(By.CSS_SELECTOR, ".eg-chunk-text")
    assert len(chunks) == len(widest.retrieved) and all(c.text.strip() for c in chunks)  # the chunks' text
    # no word of the sentence table is split across lines ("unsuppo / rted"): every word's text lies on one line
    split = driver.execute_script(
        """var out = [];
        arguments[0].querySelectorAll('table.eg-sentences td').forEach(function (td) {
          var walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
          for (var node = walker.nextNode(); node; node = walker.nextNode()) {
            var re = /\\S+/g, m;
            while ((m = re.exec(node.data)) !== null) {
              if (m[0].length < 4) continue;
              var range = document.createRange();
              range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
              var tops = Array.from(range.getClientRects()).map(function (r) { return Math.round(r.top); });
              if (new Set(tops).size > 1) out.push(m[0]);
            }
          }
        });
        return out;""",
        detail,
    )
    assert split == [], split
    # the sticky header is opaque: the rows scrolled beneath it do not show through
    header = driver.find_element(By.CSS_SELECTOR, "table.eg-results-table > thead th")
    style = driver.execute_script(
        "var s = getComputedStyle(arguments[0]); return [s.position, s.backgroundColor];", header
    )
    assert style[0] == "sticky" and style[1] in ("rgb(243, 243, 243)", "rgba(243, 243, 243, 1)"), style
    driver.save_screenshot(str(shots / "opened_details.png"))
    _no_horizontal_overflow(driver)

    # 4. search matches only what is shown: a chunk id is in every details row, never in a visible cell
    hidden_only = widest.retrieved[0].chunk_id
    assert not any(hidden_only.lower() in visible_text(r) for r in rows)
    assert hidden_only in detail.text  # it is on the page, in the (open) details
    assert _search(driver, hidden_only) == [] and _visible_count(driver) == 0
    # a word some rows show and others do not ("refund" on the whole gold set, "lifetime" on the small run)
    needle = next(w for w in ("refund", "lifetime") if 0 < sum(w in visible_text(r) for r in rows) < len(rows))
    shown = _search(driver, needle)
    assert shown and len(shown) == _visible_count(driver)
    assert all(needle in r.text.lower() for r in shown)  # the rendered text of every row it keeps
    assert len(shown) == sum(1 for r in rows if needle in visible_text(r))

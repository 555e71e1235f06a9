"""The report in a real browser: headless Chromium filters the results table with no kernel running.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package.
The test installs what is missing (apt-get as root, pip for selenium) and skips,
naming the reason, only when that is impossible. Screenshots of the real
report land in ``report/first_screen.png`` and ``report/heatmap.png`` (git-ignored).
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalgate_lib.reporting.report_html import table_page_html
from evalgate_lib.run.results import load_rows

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SCREENSHOTS = ROOT / "report"


def _ensure_chromium() -> str | None:
    """Install Chromium and its driver if they are missing; return why not, or ``None`` when ready."""
    if Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists():
        return None
    if shutil.which("apt-get") is None:
        return "Chromium is not installed and there is no apt-get to install it"
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        return "Chromium is not installed and installing it with apt-get needs root"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True, timeout=600, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium", "chromium-driver"],
            check=True,
            capture_output=True,
            timeout=1200,
            env=env,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        return f"could not install chromium with apt-get: {exc} {detail.decode(errors='replace')[-300:]}"
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        return "apt-get ran but /usr/bin/chromium or /usr/bin/chromedriver is still missing"
    return None


def _ensure_selenium() -> str | None:
    try:
        importlib.import_module("selenium")
        return None
    except ImportError:
        pass
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "selenium"], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        return f"selenium is not installed and pip could not install it: {proc.stderr[-300:]}"
    importlib.invalidate_caches()
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    reason = _ensure_chromium() or _ensure_selenium()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


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
    from test_report import CASES, crafted_row

    rows = [
        crafted_row(config, *case, similarity=sim)
        for config, sim in (("baseline", 0.8), ("candidate", 0.4))
        for case in CASES
    ]
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


@pytest.mark.slow
def test_real_report_filters_offline_and_screenshots(browser, tmp_path_factory):
    from selenium.webdriver.common.by import By
    from test_report import build_real_report

    report = build_real_report(tmp_path_factory.getbasetemp())
    rows = load_rows(report / "results")
    browser.get((report / "index.html").as_uri())
    SCREENSHOTS.mkdir(exist_ok=True)
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

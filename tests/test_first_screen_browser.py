"""The report's first screen in headless Debian Chromium: one set of numbers, each naming its source (issue 48, item 2).

The page is rendered from the shipped run's own answers (the demo model's answer logs, scored with
``evalgate score``: the same 202 answers and verdicts as ``evalgate run``, no model needed) with
the shipped census of labels, and with a plan's labels (40 answers of a 20-question plan drawn from
the same folder). In the browser, reading only what is displayed:

* every figure of a rule, of the labels' table and of "What changed" carries a source badge
  (judge, run (no judgement), labels (census), labels (census bound), labels (PPI++ estimate): the words of
  ``gate.decided_by``, issue 53);
* for every rule the interval displayed beside the deciding delta excludes 0 exactly when the p
  displayed beside it is below the gate's α;
* counts carry their base ("44 → 65 of 101 answers"), and refusal accuracy at 0 in both configs says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import score_shipped

import evalgate_lib as eg
from evalgate_lib.inputs.labels import LabelStore, load_labels

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"judge", "run (no judgement)", "labels (census)", "labels (census bound)", "labels (PPI++ estimate)"}


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    return score_shipped(tmp_path_factory.mktemp("shipped") / "results")


def _plan_labels(folder: Path, tmp: Path) -> Path:
    drawn = eg.draw_label_plan(folder, budget=40, seed=7)
    chosen = set(drawn.plan.order())
    census = load_labels(ROOT / "labels" / "nimbus.jsonl")
    store = LabelStore(tmp / "plan-labels.jsonl")
    for lb in census:
        if lb.pass_number == 1 and lb.question_id in chosen:
            store.put(type(lb)(**{**lb.__dict__, "plan_sha256": drawn.sha256}))
    return tmp / "plan-labels.jsonl"


def _page(folder: Path, labels: list[Path], tmp: Path, name: str) -> Path:
    html = eg.load_results(folder).first_screen_html(ROOT / "configs" / "gate.toml", labels)
    page = tmp / f"{name}.html"
    page.write_text(f"<!doctype html><html><body>{html}</body></html>", encoding="utf-8")
    return page


def _interval(text: str) -> tuple[float, float]:
    low, high = re.search(r"\[([-+][\d.]+), ([-+][\d.]+)\]", text).groups()
    return float(low), float(high)


@pytest.mark.parametrize("labelled", ["census", "plan"])
def test_each_number_names_its_source_and_every_interval_agrees_with_its_p(browser, shipped, tmp_path, labelled):
    from selenium.webdriver.common.by import By

    labels = [ROOT / "labels" / "nimbus.jsonl"] if labelled == "census" else [_plan_labels(shipped, tmp_path)]
    browser.get(_page(shipped, labels, tmp_path, labelled).as_uri())
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    alpha = 0.05
    rows = browser.find_elements(By.CSS_SELECTOR, "table.eg-gate-rules tbody tr[data-rule]")
    assert {r.get_attribute("data-rule") for r in rows} == {
        "accuracy_answerable", "refusal_accuracy", "retrieval_recall", "hallucination", "unsupported_claim"
    }  # fmt: skip
    for row in rows:
        cells = row.find_elements(By.TAG_NAME, "td")
        badge = cells[2].find_element(By.CSS_SELECTOR, ".eg-src").text
        assert badge in SOURCES and badge == row.get_attribute("data-source")
        low, high = _interval(cells[4].text)  # as displayed
        p = float(cells[5].text.split()[0])
        assert (low > 0 or high < 0) == (p < alpha), (row.get_attribute("data-rule"), cells[4].text, cells[5].text)
        if badge not in ("judge", "run (no judgement)"):  # the labels decided: the judge's figure is beside it
            assert "judge alone:" in cells[3].text
    for item in browser.find_elements(By.CSS_SELECTOR, ".eg-plain li"):
        badges = [b.text for b in item.find_elements(By.CSS_SELECTOR, ".eg-src")]
        assert badges and set(badges) <= SOURCES, item.text
        assert badges[0] == item.get_attribute("data-source")  # the deciding figure leads its line
    for tr in browser.find_elements(By.CSS_SELECTOR, "#eg-corrected tr[data-metric]"):
        assert len(tr.find_elements(By.CSS_SELECTOR, ".eg-src")) == 2  # the labels' figure and the judge's
        # every row's judge figure has its interval, the unsupported-claim rate's too (issue 53)
        assert "[" in tr.find_elements(By.CSS_SELECTOR, "td")[2].text, tr.get_attribute("data-metric")
    changed = browser.find_element(By.ID, "eg-what-changed")
    assert changed.find_elements(By.CSS_SELECTOR, ".eg-src")
    hallucination = browser.find_element(By.CSS_SELECTOR, '.eg-plain li[data-rule="hallucination"]').text
    refusal = browser.find_element(By.CSS_SELECTOR, '.eg-plain li[data-rule="refusal_accuracy"]').text
    assert "both 0 of 20 no-answer questions" in refusal
    if labelled == "census":
        assert hallucination.startswith("hallucination flags: 56 → 72 of 101 answers, 16 answers more")
        assert "judge alone: 44 → 65 of 101 answers, 21 answers more" in hallucination
        assert changed.text.startswith("By the reviewers' labels")  # the decided figures lead "What changed"
    else:
        assert "of 101 questions labelled" in hallucination or "judge" in hallucination

"""The static blind labelling page in headless Debian Chromium: label a plan with only a browser, no server.

``evalgate sample`` writes the page beside the plan (``tests/test_label_template.py`` checks the template);
here a colleague opens it from disk, gives a name, labels every answer by clicking, downloads the filled
template, and ``evalgate gate --labels`` decides on it. The page shows no verdict of EvalGate's at any
point, and a labeller can continue later from the file they downloaded.

Skips, naming why, only when Chromium or selenium cannot be had (conftest's ``browser`` fixture).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import evalgate_cli, score_shipped

import evalgate_lib as eg
from evalgate_lib.inputs.labels import answer_sha256, load_label_files
from evalgate_lib.reporting.label_template import kit_paths

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> dict[str, Path]:
    folder = score_shipped(tmp_path_factory.mktemp("label-page") / "results")
    sampled = evalgate_cli("sample", "--results", folder, "--budget", "6", "--seed", "26")
    assert sampled.returncode == 0, sampled.stderr
    template, page = kit_paths(folder / "label-plan.json")
    return {"folder": folder, "template": template, "page": page}


def _downloaded(folder: Path, timeout: float = 30) -> Path:
    deadline = time.monotonic() + timeout
    while True:
        done = [p for p in folder.glob("*.jsonl")]
        if done:
            return done[0]
        assert time.monotonic() < deadline, f"nothing downloaded into {folder}"
        time.sleep(0.2)


def _click(driver, selector: str, nth: int = 0) -> None:
    from selenium.webdriver.common.by import By

    element = driver.find_elements(By.CSS_SELECTOR, selector)[nth]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click();", element)


def test_a_colleague_labels_a_plan_with_only_a_browser(fresh_browser, kit, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = fresh_browser
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.get(kit["page"].as_uri())  # a new profile: nothing kept from another test
    results = eg.load_results(kit["folder"])
    rows = [json.loads(line) for line in kit["template"].read_text(encoding="utf-8").splitlines()]
    assert driver.find_element(By.ID, "eg-total").text == str(len(rows)) == "6"
    assert driver.find_element(By.ID, "eg-count").text == "0"  # nothing preselected, nothing kept
    text = driver.execute_script("return document.body.textContent")
    for r in rows:  # blind: no reason, flag or score of EvalGate's of any answer anywhere in the page
        row = results.row(r["config"], r["question_id"])
        said = [s.reason for s in row.sentences if s.reason] + [x for v in row.flags.reasons.values() for x in v]
        assert [s for s in said if s in text and s not in ("wrong", "correct")] == []
    driver.find_element(By.ID, "eg-reviewer").send_keys("colleague")
    _click(driver, "#eg-declared")
    for index, row in enumerate(rows):
        heading = driver.find_element(By.CSS_SELECTOR, "#eg-view h2").text
        assert heading.startswith(f"{row['config']} · {row['question_id']}")
        assert driver.find_element(By.CSS_SELECTOR, ".eg-answer pre").text.strip() == row["material"]["answer"].strip()
        _click(driver, "input[name='eg-correct']", 0 if index % 2 == 0 else 1)  # correct, wrong, correct, ...
        assert "still to mark" in driver.find_element(By.ID, "eg-status").text or not row["sentences"]
        for i in range(len(row["sentences"])):
            _click(driver, f"input[name='eg-s{i}']", 0 if i else 1)  # first sentence unsupported, the rest supported
        assert driver.find_element(By.ID, "eg-status").text.startswith("marked")
        _click(driver, "#eg-next")
    assert driver.find_element(By.ID, "eg-count").text == "6"
    _click(driver, "#eg-download")
    saved = _downloaded(downloads)
    assert saved.name == "label-plan.template-colleague.jsonl"
    labels = load_label_files([saved]).labels
    assert len(labels) == 6
    assert [(lb.config, lb.question_id) for lb in labels] == [(r["config"], r["question_id"]) for r in rows]
    for label, row in zip(labels, rows, strict=True):  # the file keeps the plan's order
        answer = results.row(row["config"], row["question_id"]).answer
        assert label.answer_sha256 == answer_sha256(answer)
        assert (label.reviewer, label.mode, label.verdicts_hidden, label.pass_number) == ("colleague", "blind", True, 1)
        first = label.sentences[0] if label.sentences else None
        assert first is None or (first.supported is False and label.unsupported_sentences == (first.text,))
    gated = evalgate_cli("gate", "--results", kit["folder"], "--labels", saved)
    assert gated.returncode in (0, 1), gated.stderr
    assert "deltas corrected by labels: 6 of 202 answers labelled under plan" in gated.stdout
    assert "6 labels: 6 blind" in gated.stdout


def test_a_labeller_continues_from_the_file_they_downloaded(fresh_browser, kit, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    rows = [json.loads(line) for line in kit["template"].read_text(encoding="utf-8").splitlines()]
    first = {**rows[0], "correct": False, "reviewer": "ana", "mode": "blind",
             "sentences": [{**s, "supported": True} for s in rows[0]["sentences"]]}  # fmt: skip
    earlier = tmp_path / "earlier.jsonl"
    earlier.write_text(json.dumps(first) + "\n" + "".join(json.dumps(r) + "\n" for r in rows[1:]), encoding="utf-8")
    driver = fresh_browser
    driver.get(kit["page"].as_uri())  # a new profile: nothing kept from another test
    assert driver.find_element(By.ID, "eg-count").text == "0"
    driver.find_element(By.ID, "eg-open").send_keys(str(earlier))
    deadline = time.monotonic() + 10
    while driver.find_element(By.ID, "eg-count").text != "1":
        assert time.monotonic() < deadline, driver.find_element(By.ID, "eg-save-status").text
        time.sleep(0.2)
    assert driver.find_element(By.ID, "eg-reviewer").get_attribute("value") == "ana"
    assert driver.find_element(By.CSS_SELECTOR, "input[name='eg-correct'][value='wrong']").is_selected()
    driver.get(kit["page"].as_uri())  # the marks are kept in the browser: a reload keeps them
    assert driver.find_element(By.ID, "eg-count").text == "1"

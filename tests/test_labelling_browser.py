"""The documented labelling flow in a real JupyterLab (headless Debian Chromium), and saving every notebook there.

A JupyterLab server from this venv runs on loopback for the module (its own config, data, runtime and
IPython folders, so nothing of the user's Jupyter setup is read or written). The results are the shipped pair's 202
answers scored from their logs (``evalgate score``, no model).

* **Blind** (docs/notebooks.md, "Labelling answers"): notebook 06 opened in JupyterLab, ``labels_path``
  and ``reviewer`` set in its parameters cell, *Run All*. Until the answer's last mark is clicked, no
  verdict, flag reason, sentence reason or support figure of that answer is anywhere in the page (the
  page's whole DOM text, not only what is on screen), and no verdict view of any answer; once saved,
  the label file says ``"verdicts_hidden": true, "mode": "blind"`` and the verdicts appear below the
  answer. The next answer is blind again.
* **Audit**: ``mode = "audit"``: the verdicts are there from the start; the label says ``"mode": "audit"``
  and ``"verdicts_hidden": false``.
* **Saving**: each committed notebook opened in JupyterLab (a kernel started, as a user's would) and
  saved with *File → Save* (``docmanager:save``), through the pre-save hook the venv's install sets:
  ``git diff`` stays empty.
* **A second visit**: a reviewer labels an answer blind and sees its verdicts; later a new plan
  (``label_budget``, ``label_seed``) holds that answer, and the reviewer labels it again: the view asks
  first, and the file then says not blind and keeps both labels (the first in the new one's history).
  A second reviewer's pass-1 label of the same answer is refused at save, with the choice to save it
  as pass 2, which the file then holds.

Skips, naming why, only when Chromium or selenium cannot be had (conftest's ``browser`` fixture).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import evalgate_cli

from evalgate_lib.api import load_results
from evalgate_lib.inputs.labels import answer_sha256, load_labels
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.workbench.notebook_support import SAVE_HOOK

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "evalgate-test-token"
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Lab:
    url: str
    root: Path
    clone: Path
    results: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _git(clone: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=clone, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Lab:
    """A JupyterLab server on loopback over a checkout-like folder (committed notebooks under git) and results."""
    root = tmp_path_factory.mktemp("lab")
    clone = root / "clone"
    (clone / "evalgate_lib").mkdir(parents=True)  # a notebooks/ folder beside evalgate_lib/: the hook applies
    shutil.copytree(ROOT / "notebooks", clone / "notebooks")
    shutil.copy(ROOT / ".gitignore", clone / ".gitignore")  # the repository's (.ipynb_checkpoints/ among them)
    _git(clone, "init", "-q")
    _git(clone, "add", "notebooks", ".gitignore")
    _git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "the committed notebooks")
    for flow in ("blind", "audit", "first", "later", "second"):  # each session in its own copy, never the clone
        (root / flow).mkdir()
        shutil.copy(ROOT / "notebooks" / "06_label.ipynb", root / flow / "06_label.ipynb")
    answers = ROOT / "labels" / "demo" / "nimbus-answers"
    scored = evalgate_cli(
        "score", answers / "baseline.jsonl", answers / "candidate.jsonl", "--gold", ROOT / "gold" / "questions.jsonl",
        "--corpus", ROOT / "corpus", "--out", root / "results",
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    port = _free_port()
    # the user's Jupyter and IPython folders stay untouched (settings, workspaces, the trust database, history);
    # the venv's own folders (its kernel, the widgets' extension, the save hook's config) are still read
    env = dict(os.environ, **{f"JUPYTER_{k}_DIR": str(root / k.lower()) for k in ("CONFIG", "RUNTIME", "DATA")})
    env["IPYTHONDIR"] = str(root / "ipython")
    log = open(root / "server.log", "wb")  # noqa: SIM115 - closed when the server is stopped below
    server = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
            f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            # the hook scripts/install.sh puts in the venv's config, named here too so no older venv's config decides
            f"--ContentsManager.pre_save_hook={SAVE_HOOK}",
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((root / "server.log").read_text(errors="replace")[-3000:]) from None
                time.sleep(0.5)
        yield Lab(url, root, clone, root / "results")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _wait(driver, script: str, timeout: float = 120, *args):
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script, *args)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {script}")
        time.sleep(0.25)


PANEL = "var p = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
KERNEL_IDLE = PANEL + (
    "return !!(p && p.context && p.context.isReady && p.content && p.sessionContext.session"
    " && p.sessionContext.session.kernel && p.sessionContext.session.kernel.status === 'idle'"
    " && p.context.path === arguments[0]);"
)


def _fresh(driver, lab: Lab, workspace: str) -> None:
    """JupyterLab in a workspace of its own, emptied: no notebook another test left open is in the page.

    The page is told it has the focus: headless Chromium gives a page none, and JupyterLab's current widget
    (which notebook a command acts on) follows the focus, so without it no notebook ever became current.
    """
    driver.execute_cdp_cmd("Emulation.setFocusEmulationEnabled", {"enabled": True})
    driver.get(f"{lab.url}/lab/workspaces/{workspace}?reset&token={TOKEN}")
    _wait(driver, "return !!(window.jupyterapp && window.jupyterapp.shell)")
    driver.set_script_timeout(120)  # a command issued before the layout is restored is lost: wait for it
    driver.execute_async_script("var done = arguments[arguments.length - 1]; jupyterapp.restored.then(done);")
    assert driver.execute_script("return document.querySelectorAll('.jp-NotebookPanel').length") == 0


def _open(driver, lab: Lab, path: str) -> None:
    """Open ``path`` (relative to the server's root) in JupyterLab and wait for its kernel to be idle."""
    driver.execute_script("window.jupyterapp.commands.execute('docmanager:open', {path: arguments[0]});", path)
    _wait(driver, KERNEL_IDLE, 120, path)


def _set_parameters(driver, **values: str) -> None:
    """Edit the parameters cell as a reviewer does: each ``name = default`` line set to ``name = value``."""
    source = driver.execute_script(PANEL + "return p.content.widgets[1].model.sharedModel.getSource();")
    lines = source.splitlines()
    for name, value in values.items():
        (i,) = [n for n, line in enumerate(lines) if line.startswith(f"{name} = ")]
        lines[i] = f"{name} = {value}"
    driver.execute_script(PANEL + "p.content.widgets[1].model.sharedModel.setSource(arguments[0]);", "\n".join(lines))


def _run_all(driver) -> None:
    driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")
    _wait(
        driver, "return document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .widget-toggle-button').length"
    )


def _page_text(driver) -> str:
    """Every word of the page's DOM (textContent: what is scrolled out of view or collapsed included)."""
    return driver.execute_script("return document.body.textContent")


#: The labelling view's heading element (``h``), not one inside a verdicts view.
HEADING = (
    "var h = Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .widget-html h4'))"
    ".filter(function (e) { return !e.closest('.eg-describe'); })[0];"
)


def _current(driver, lab: Lab) -> ResultRow:
    """The answer the labelling view shows, from its heading ("baseline · q001 (answerable)")."""
    heading = _wait(driver, HEADING + " return h && h.textContent;")
    config, rest = heading.split(" · ", 1)
    return load_results(lab.results).row(config, rest.split(" ", 1)[0])


#: The words the labelling view shows by design (its toggles): a flag reason that is just one of them ("wrong")
#: says nothing the view does not already offer every answer alike.
VIEW_WORDS = {"correct", "wrong", "supported", "unsupported", "not a claim"}


def _verdict_strings(row: ResultRow) -> list[str]:
    """What only EvalGate's verdict view of ``row`` says: flag reasons, sentence reasons, support figures."""
    said = [reason for reasons in row.flags.reasons.values() for reason in reasons if reason not in VIEW_WORDS]
    said += [s.reason for s in row.sentences if s.reason]
    said += ["Flags and why they fired", "Per-sentence support", "Groundedness:", "Flags: none fired"]
    return said


def _leaks(driver, row: ResultRow) -> list[str]:
    text = _page_text(driver)
    found = [s for s in _verdict_strings(row) if s in text]
    verdict_views = driver.execute_script("return document.querySelectorAll('.eg-describe, .eg-badge, .eg-tok').length")
    return found + ([f"{verdict_views} verdict element(s)"] if verdict_views else [])


def _toggles(driver) -> tuple[list, list[list]]:
    """The visible labelling view's toggle buttons: the answer's verdict pair, then one triple per sentence."""
    from selenium.webdriver.common.by import By

    panel = driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden)")
    buttons = panel.find_elements(By.CSS_SELECTOR, ".widget-toggle-button")
    verdict, rest = buttons[:2], buttons[2:]
    assert [b.text for b in verdict] == ["correct", "wrong"]
    return verdict, [rest[i : i + 3] for i in range(0, len(rest), 3)]


def _click(driver, button) -> None:
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()


def _labels(path: Path, count: int) -> list:
    deadline = time.monotonic() + 30
    while not (path.exists() and len(load_labels(path)) >= count):
        assert time.monotonic() < deadline, f"no label saved in {path}"
        time.sleep(0.2)
    return load_labels(path)


def test_blind_labelling_shows_no_verdict_before_the_label_is_saved(browser, lab: Lab) -> None:
    driver = browser
    labels = lab.root / "blind.jsonl"
    _fresh(driver, lab, "blind")
    _open(driver, lab, "blind/06_label.ipynb")
    _set_parameters(
        driver, labels_path=json.dumps(str(labels)), reviewer='"ana"', results_dir=json.dumps(str(lab.results))
    )
    _run_all(driver)
    row = _current(driver, lab)
    assert row.flags.reasons or row.sentences  # an answer with verdicts to hide
    assert _leaks(driver, row) == []
    verdict, sentences = _toggles(driver)
    assert sentences and all(
        [b.text for b in group] == ["supported", "unsupported", "not a claim"] for group in sentences
    )
    _click(driver, verdict[1])  # "wrong"
    for group in sentences[:-1]:
        _click(driver, group[0])
    assert _leaks(driver, row) == [] and not labels.exists()  # every mark but the last: nothing saved, nothing shown
    _click(driver, sentences[-1][1])  # the last mark saves the label
    (saved,) = _labels(labels, 1)
    assert (saved.config, saved.question_id, saved.answer_sha256) == (
        row.config,
        row.question_id,
        answer_sha256(row.answer),
    )
    assert (saved.reviewer, saved.correct, saved.verdicts_hidden, saved.mode) == ("ana", False, True, "blind")
    assert json.loads(labels.read_text(encoding="utf-8"))["verdicts_hidden"] is True
    # now, and only now, EvalGate's verdicts of that answer appear below it
    _wait(driver, "return document.querySelectorAll('.eg-describe').length === 1")
    text = _page_text(driver)
    assert "shown because your label of this answer is saved" in text
    assert all(s in text for s in _verdict_strings(row) if s not in ("Flags: none fired", "Flags and why they fired"))
    # the next answer is blind again
    from selenium.webdriver.common.by import By

    nxt = [
        b
        for b in driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) button")
        if b.text == "next ▶"
    ]
    _click(driver, nxt[0])
    _wait(driver, "return document.querySelectorAll('.eg-describe').length === 0")
    following = _current(driver, lab)
    assert (following.config, following.question_id) != (row.config, row.question_id)
    assert _leaks(driver, following) == []


def test_an_audit_label_is_marked_as_such(browser, lab: Lab) -> None:
    driver = browser
    labels = lab.root / "audit.jsonl"
    _fresh(driver, lab, "audit")
    _open(driver, lab, "audit/06_label.ipynb")
    _set_parameters(
        driver, labels_path=json.dumps(str(labels)), reviewer='"ben"', results_dir=json.dumps(str(lab.results)),
        mode='"audit"',
    )  # fmt: skip
    _run_all(driver)
    row = _current(driver, lab)
    _wait(driver, "return document.querySelectorAll('.eg-describe').length === 1")  # shown from the start
    assert "audit: judge them as you label" in _page_text(driver)
    verdict, sentences = _toggles(driver)
    _click(driver, verdict[0])
    for group in sentences:
        _click(driver, group[0])
    (saved,) = _labels(labels, 1)
    assert (saved.question_id, saved.reviewer, saved.mode, saved.verdicts_hidden) == (
        row.question_id,
        "ben",
        "audit",
        False,
    )
    assert json.loads(labels.read_text(encoding="utf-8"))["mode"] == "audit"


def test_saving_each_notebook_in_jupyterlab_leaves_git_diff_empty(browser, lab: Lab) -> None:
    driver = browser
    names = sorted(p.name for p in (lab.clone / "notebooks").glob("*.ipynb"))
    assert len(names) == 6
    _fresh(driver, lab, "saving")
    for name in names:
        path = lab.clone / "notebooks" / name
        before = path.stat().st_mtime_ns
        _open(driver, lab, f"clone/notebooks/{name}")
        # the kernel's details reach the notebook's metadata first, as when a user opens it and presses Ctrl+S
        _wait(driver, PANEL + "var l = p.context.model.getMetadata('language_info'); return !!(l && l.version);", 60)
        driver.execute_script("window.jupyterapp.commands.execute('docmanager:save');")
        deadline = time.monotonic() + 30
        while path.stat().st_mtime_ns == before:  # the save reached the disk
            assert time.monotonic() < deadline, f"{name} was not saved"
            time.sleep(0.2)
        driver.execute_script(PANEL + "p.sessionContext.shutdown();")
    assert _git(lab.clone, "status", "--porcelain") == ""
    assert _git(lab.clone, "diff", "--stat") == ""


def _button(driver, text: str):
    from selenium.webdriver.common.by import By

    found = [
        b
        for b in driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) button")
        if b.text == text and b.is_displayed()
    ]
    assert found, f"no button {text!r} in the labelling view"
    return found[0]


def _session(driver, lab: Lab, copy: str, labels: Path, reviewer: str, **more: str) -> None:
    _fresh(driver, lab, copy)
    _open(driver, lab, f"{copy}/06_label.ipynb")
    _set_parameters(
        driver, labels_path=json.dumps(str(labels)), reviewer=json.dumps(reviewer),
        results_dir=json.dumps(str(lab.results)), **more,
    )  # fmt: skip
    _run_all(driver)


def _label_current(driver) -> None:
    """Every mark of the answer in view, the verdict first ("wrong"), each sentence "supported"."""
    verdict, sentences = _toggles(driver)
    _click(driver, verdict[1])
    for group in sentences:
        _click(driver, group[0])


def _seed_holding(lab: Lab, question_id: str, budget: int) -> int:
    """A plan seed whose draw of ``budget`` answers holds ``question_id`` (what a reviewer would meet later)."""
    from evalgate_lib.statistics.sampling_plan import draw_plan

    results = load_results(lab.results)
    for seed in range(500):
        plan = draw_plan(results.rows, ("baseline", "candidate"), budget, str(lab.results), {}, seed)
        if question_id in plan.order():
            return seed
    raise AssertionError(f"no seed under 500 draws {question_id}")


def test_a_second_visit_is_not_blind_and_keeps_both_labels_and_a_second_reviewer_is_offered_pass_2(
    browser, lab: Lab
) -> None:
    driver = browser
    labels = lab.root / "visits" / "labels.jsonl"
    labels.parent.mkdir()
    # 1. blind: ana labels the first answer, and only then sees its verdicts
    _session(driver, lab, "first", labels, "ana")
    row = _current(driver, lab)
    _label_current(driver)
    (first,) = _labels(labels, 1)
    assert (first.question_id, first.verdicts_hidden, first.plan_sha256) == (row.question_id, True, None)
    _wait(driver, "return document.querySelectorAll('.eg-describe').length === 1")
    seen = [json.loads(line) for line in (labels.parent / "verdicts-seen.jsonl").read_text().splitlines()]
    assert [(s["reviewer"], s["question_id"]) for s in seen] == [("ana", row.question_id)]
    # 2. later, a plan holds that answer: opened again, the view asks before anything replaces the first label
    seed = _seed_holding(lab, row.question_id, 10)
    _session(driver, lab, "later", labels, "ana", label_budget="10", label_seed=str(seed))
    for _ in range(20):
        shown = _current(driver, lab)
        if (shown.config, shown.question_id) == (row.config, row.question_id):
            break
        _click(driver, _button(driver, "next ▶"))
        _wait(
            driver,
            HEADING + "return h && h.textContent !== arguments[0];",
            30,
            f"{shown.config} · {shown.question_id} ({shown.type})",
        )
    assert (_current(driver, lab).config, _current(driver, lab).question_id) == (row.config, row.question_id)
    said = _page_text(driver)
    assert "You labelled this answer before, blind, outside any plan" in said
    assert "so a new label records that it is not blind" in said
    verdict, _ = _toggles(driver)
    assert not verdict[0].is_enabled()  # locked until the reviewer chooses
    _click(driver, _button(driver, "Label it again"))
    locked = ".jp-NotebookPanel:not(.lm-mod-hidden) .widget-toggle-button:disabled"
    _wait(driver, f"return document.querySelectorAll({json.dumps(locked)}).length === 0")
    verdict, _ = _toggles(driver)
    _click(driver, verdict[0])  # "correct" this time: the opened label holds every mark, so this saves it
    deadline = time.monotonic() + 30
    while load_labels(labels)[0].plan_sha256 is None:
        assert time.monotonic() < deadline, "the relabel was not saved"
        time.sleep(0.2)
    (again,) = load_labels(labels)
    assert (again.correct, again.verdicts_hidden, again.mode) == (True, False, "blind")  # the file says: not blind
    assert [(h.correct, h.verdicts_hidden, h.plan_sha256) for h in again.history] == [(False, True, None)]
    # 3. a second reviewer on the same file: the pass-1 label is refused at save, with the pass-2 choice
    _session(driver, lab, "second", labels, "ben")
    assert (_current(driver, lab).config, _current(driver, lab).question_id) == (row.config, row.question_id)
    _label_current(driver)
    _wait(driver, "return document.body.textContent.indexOf('Not saved.') >= 0")
    assert "already has a pass-1 label by 'ana'" in _page_text(driver)
    assert [lb.reviewer for lb in load_labels(labels)] == ["ana"]  # nothing of ben's reached the file
    _click(driver, _button(driver, "Label as pass 2"))
    saved = _labels(labels, 2)
    assert {(lb.reviewer, lb.pass_number) for lb in saved} == {("ana", 1), ("ben", 2)}

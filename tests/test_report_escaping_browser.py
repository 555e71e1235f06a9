"""Text from users never runs in the report: a ``<script>`` and an ``<img onerror>`` through every input, in Chromium.

Each input a user controls carries its own payload (``payload("question")``,
``payload("answer-base")``, ...): a ``<script>`` that sets ``window.egPwned`` and changes
``document.title``, and an ``<img src=x>`` whose ``onerror`` sets it too and calls ``alert``.
Two real reports are built, every page of them opened in headless Chromium (the ``browser``
fixture of ``conftest.py``), and on every page nothing ran (no ``window.egPwned``, the title
unchanged, no alert, no live ``<script>`` or ``onerror`` holding the payload) while each payload
that page shows is there as text, character for character.

* ``evalgate score`` of two hand-made answer logs over a one-article corpus and a two-question
  gold file: payloads in both ``--names``, the article, the gold question and its reference, and
  both answers. No model runs. Its ``evalgate report`` (index.html, notebooks 03 and 04) runs as
  a subprocess, so the test also sees what a user's terminal shows: EvalGate's own lines only.
* ``evalgate report --backend local --limit 1`` with two configs whose ``name`` is a payload:
  every notebook (01 to 05) renders the names. Its own cache folder (two generations): sharing
  the session's small run would tie this module to that run's worker under pytest-xdist.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import machine_paths_in, report_pages

from evalgate_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]

#: The window variable a payload that ran sets (it also changes ``document.title`` or calls ``alert``).
PWNED = "egPwned"


def payload(vector: str) -> str:
    """The payload of one input (no comma: ``--names`` splits on commas)."""
    return (
        f"<script>window.{PWNED}='{vector}';document.title='pwned {vector}'</script>"
        f"<img src=x onerror=\"window.{PWNED}='{vector}';alert('{vector}')\">"
    )


# --------------------------------------------------------------------------- the answer-log report


def write_score_inputs(folder: Path) -> dict[str, Path]:
    """A one-article corpus, a two-question gold file and two answer logs, payloads in each.

    The payload answers to q1 are wrong and carry an unsupported sentence (hallucinations), so
    notebook 03 draws them and notebook 04's static view describes them in full: question,
    reference, answer and the retrieved passage's text.
    """
    corpus = folder / "corpus"
    corpus.mkdir(parents=True)
    seats = f"The Starter plan includes 3 seats. {payload('corpus')}"
    price = "Business costs $18 per user per month."
    (corpus / "plans.md").write_text(
        f"---\nid: plans\ntitle: Plans {payload('corpus-title')}\n---\n# Plans\n\n{seats}\n\n{price}\n",
        encoding="utf-8",
    )
    gold = folder / "gold.jsonl"
    questions = [
        {
            "id": "q1",
            "question": f"How many seats does Starter include? {payload('question')}",
            "type": "answerable",
            "article": "plans",
            "accept": [f"3 seats {payload('reference')}"],
        },
        {
            "id": "q2",
            "question": "What does Business cost?",
            "type": "answerable",
            "article": "plans",
            "accept": ["$18"],
        },
    ]
    gold.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    logs = {}
    for side, second in (("base", "It costs $99."), ("cand", price)):
        lines = [
            {
                "question_id": "q1",
                "answer": f"Starter includes 40 seats and a boat. {payload('answer-' + side)}",
                "passages": [{"text": seats, "doc_id": "plans", "score": 0.5}],
            },
            {"question_id": "q2", "answer": second, "passages": [{"text": price, "doc_id": "plans", "score": 0.6}]},
        ]
        logs[side] = folder / f"{side}.jsonl"
        logs[side].write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return {"corpus": corpus, "gold": gold, **logs}


def build_score_report(base: Path) -> tuple[Path, str]:
    """``evalgate score`` with payload names, then ``evalgate report --results`` as a subprocess: (report, output)."""
    inputs = write_score_inputs(base / "inputs")
    results = base / "results"
    names = f"{payload('name-base')},{payload('name-cand')}"
    code = main(
        [
            "score", str(inputs["base"]), str(inputs["cand"]), "--gold", str(inputs["gold"]),
            "--corpus", str(inputs["corpus"]), "--names", names, "--out", str(results),
        ]
    )  # fmt: skip
    assert code == 0
    out = base / "report"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate_lib.cli", "report", "--results", str(results), "--out", str(out),
         "--cache-dir", str(base / "cache")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    return out, proc.stdout


@pytest.fixture(scope="module")
def score_report(tmp_path_factory) -> tuple[Path, str]:
    return build_score_report(tmp_path_factory.mktemp("escaping-score"))


# --------------------------------------------------------------------------- the run with payload config names


def write_payload_configs(folder: Path) -> tuple[Path, Path]:
    """The shipped configs with a payload ``name`` and absolute corpus and gold paths (the shipped prompts)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for which in ("baseline", "candidate"):
        text = (ROOT / "configs" / f"{which}.toml").read_text(encoding="utf-8")
        text, named = re.subn(r"(?m)^name = .*$", f"name = {json.dumps(payload('config-' + which))}", text, count=1)
        text = text.replace('corpus = "../corpus"', f"corpus = {json.dumps(str(ROOT / 'corpus'))}")
        text = text.replace(
            'gold = "../gold/questions.jsonl"', f"gold = {json.dumps(str(ROOT / 'gold' / 'questions.jsonl'))}"
        )
        assert named == 1 and str(ROOT / "corpus") in text and str(ROOT / "gold") in text
        paths.append(folder / f"{which}.toml")
        paths[-1].write_text(text, encoding="utf-8")
    return paths[0], paths[1]


@pytest.fixture(scope="module")
def names_report(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("escaping-names")
    baseline, candidate = write_payload_configs(base / "configs")
    out = base / "report"
    code = main(
        [
            "report", "--backend", "local", "--limit", "1", "--no-progress",
            "--baseline", str(baseline), "--candidate", str(candidate),
            "--cache-dir", str(base / "cache"), "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    return out


# --------------------------------------------------------------------------- in the browser

#: Records every ``alert`` instead of opening it (installed before any script of a page runs).
_ALERT_HOOK = "window.__egAlerts = []; window.alert = function (m) { window.__egAlerts.push(String(m)); };"

_STATE_JS = f"""
var live = Array.from(document.scripts).filter(function (s) {{
  return (!s.type || /javascript|module/i.test(s.type)) && s.text.indexOf('{PWNED}') >= 0;
}}).length;
var handlers = Array.from(document.querySelectorAll('[onerror]')).filter(function (el) {{
  return el.getAttribute('onerror').indexOf('{PWNED}') >= 0;
}}).length;
return {{
  pwned: window.{PWNED} === undefined ? null : String(window.{PWNED}),
  title: document.title,
  alerts: window.__egAlerts || [],
  live_scripts: live,
  live_handlers: handlers,
  text: document.body.textContent,
}};
"""


def open_page(driver, page: Path) -> dict:
    """Load ``page`` with alerts recorded, let late error handlers fire, and read what ran and what the page says."""
    from selenium.common.exceptions import NoAlertPresentException, UnexpectedAlertPresentException

    hook = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _ALERT_HOOK})
    try:
        driver.get(page.as_uri())
        driver.execute_async_script("setTimeout(arguments[arguments.length - 1], 300);")
        state = driver.execute_script(_STATE_JS)
    except UnexpectedAlertPresentException as exc:
        pytest.fail(f"{page.name}: an alert opened: {exc.alert_text!r}")
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": hook["identifier"]})
    try:
        pytest.fail(f"{page.name}: an alert is open: {driver.switch_to.alert.text!r}")
    except NoAlertPresentException:
        pass
    return state


def assert_inert(driver, page: Path, shown: set[str]) -> None:
    """Nothing of any payload ran on ``page``, and the payload of each vector in ``shown`` is on it as text."""
    state = open_page(driver, page)
    assert state["pwned"] is None, f"{page.name}: the payload of {state['pwned']!r} ran"
    # a payload that ran sets the title to "pwned <vector>"; the report's own title holds the names as text
    assert not state["title"].startswith("pwned"), f"{page.name}: title {state['title']!r}"
    assert state["alerts"] == [], f"{page.name}: alerts {state['alerts']}"
    assert state["live_scripts"] == 0 and state["live_handlers"] == 0, f"{page.name}: {state}"
    missing = sorted(v for v in shown if payload(v) not in state["text"])
    assert missing == [], f"{page.name}: payloads not shown as text: {missing}"


def test_the_payload_runs_where_it_is_not_escaped(browser, tmp_path):
    """The check itself: the same payload as raw HTML runs (title, variable, alert), so a pass is not vacuous."""
    page = tmp_path / "raw.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>t</title></head><body>{payload('raw')}</body></html>")
    state = open_page(browser, page)
    assert state["pwned"] == "raw" and state["title"] == "pwned raw" and state["alerts"] == ["raw"]


def test_score_report_pages_show_every_payload_as_text_and_run_none(browser, score_report):
    report, _ = score_report
    answers = {"answer-base", "answer-cand"}
    names = {"name-base", "name-cand"}
    expected = {
        "index.html": names | answers | {"question", "reference", "corpus"},
        # the heatmaps label each sentence as the judge read it: a tag in an answer is Markdown's inline HTML,
        # markup the reading drops (the answer as written, payload and all, is shown as text on the other pages)
        "03_coverage_heatmaps.html": names,
        "04_flag_explorer.html": names | answers | {"question", "reference", "corpus"},
    }
    assert [p.name for p in report_pages(report)] == list(expected)  # no 01 or 02 for scored logs
    for page in report_pages(report):
        assert_inert(browser, page, expected[page.name])


def test_report_output_is_evalgates_own_lines(score_report):
    """No Jupyter noise (the kernel's "running over TCP without encryption" warning) before or among them.

    A kernel's own log (``[IPKernelApp] ...``) goes to a file beside its executed notebook; the only
    trace on the terminal is EvalGate's line naming that file (a loaded machine can make a kernel
    slow to shut down, and it says so in its log).
    """
    report, output = score_report
    lines = [line for line in output.splitlines() if not line.startswith("kernel of ")]
    assert "without encryption" not in output and "[IPKernelApp]" not in output, output
    assert [line.split(" ", 2)[:2] for line in lines[:-1]] == [
        ["skipping", "01_corpus_inspection.ipynb:"],  # answers scored from logs: no chunking to inspect
        ["skipping", "02_two_config_run.ipynb:"],  # --results given
        ["executing", "03_coverage_heatmaps.ipynb"],
        ["executing", "04_flag_explorer.ipynb"],
        ["executing", "05_report.ipynb"],
    ], output
    assert lines[-1].startswith("report: ") and lines[-1].endswith("open it in a browser, no server needed")
    for line in output.splitlines():
        if line.startswith("kernel of "):
            assert re.fullmatch(r"kernel of \S+\.ipynb wrote \d+ line\(s\) to its own log: \S+\.kernel\.log", line)
            assert Path(line.rsplit(": ", 1)[1]).parent == report / "notebooks"


@pytest.mark.slow
def test_no_page_of_a_report_names_an_absolute_path_of_this_machine(score_report, names_report):
    """The scored logs' report (03, 04, 05) and the run's (01 to 05, its configs naming corpus and gold absolutely)."""
    report, _ = score_report
    assert machine_paths_in(report, report.parent) == []
    assert machine_paths_in(names_report, names_report.parent) == []


@pytest.mark.slow
def test_config_name_payloads_are_text_on_every_page(browser, names_report):
    names = {"config-baseline", "config-candidate"}
    found = [p.name for p in report_pages(names_report)]
    assert found == [
        "index.html",
        "01_corpus_inspection.html",
        "02_two_config_run.html",
        "03_coverage_heatmaps.html",
        "04_flag_explorer.html",
    ]
    for page in report_pages(names_report):
        assert_inert(browser, page, names)

"""Nothing a user writes runs in the report: one payload per user string, every page, asked of Chromium (issue 45).

Issue 45 found a baseline's name reaching the first screen unescaped, through a sentence shown only
when several candidates are gated together. This test pushes a payload through every string a user
controls, in both shapes the issue used (a ``<script>`` that changes ``document.title``, and an
attribute-breaking ``"><img src=x onerror=…>``), into two real reports, and opens every page of
each (``index.html``, the first screen with its candidates' table and corrected deltas, the answer
table and each answer's details, the appendices and every executed notebook) in Debian's headless
Chromium. On every page nothing ran: no ``window.egPwned``, no ``|PWNED`` in the title, no live
``<script>`` or ``onerror`` holding the payload. And every payload reached some page as text, so a
pass is not a report that left the strings out.

* **Scored answer logs, three of them** (``evalgate score``, no model): payloads in the three
  ``--names``, the article's id, title and body, the gold question's id, text, accepted answer,
  evidence and note, the answers, a passage's title, a reviewer's name and comment, the results
  folder's name (so the sampling plan's path, which the first screen names) and the thresholds
  file's name. The report reads the several-candidates folder and leads with the best candidate,
  its deltas corrected by the labels of a sampling plan.
* **Configs run against the fake Ollama** (``tests/fake_ollama_server.py`` on loopback): a baseline
  and two candidates whose TOML ``name``, ``description`` and prompt template carry payloads, so
  every notebook (01 to 05) renders them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import report_pages

from evalgate_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]
PWNED = "egPwned"


def script(vector: str) -> str:
    return f"<script>window.{PWNED}='{vector}';document.title+='|PWNED {vector}'</script>"


def attribute(vector: str) -> str:
    """Breaks out of an attribute value; no slash, so it can be a file or folder name too."""
    return f"\"><img src=x onerror=\"window.{PWNED}='{vector}';document.title+='|PWNED {vector}'\">"


def payload(vector: str) -> str:
    return script(vector) + attribute(vector)


_STATE_JS = f"""
var live = Array.from(document.scripts).filter(function (s) {{  // data blocks (widget state JSON) never run
  return (!s.type || /javascript|module/i.test(s.type)) && s.text.indexOf('{PWNED}') >= 0;
}}).length;
var handlers = Array.from(document.querySelectorAll('[onerror],[onload],[onclick]')).filter(function (el) {{
  return Array.from(el.attributes).some(function (a) {{ return a.value.indexOf('{PWNED}') >= 0; }});
}}).length;
return {{pwned: window.{PWNED} === undefined ? null : String(window.{PWNED}), title: document.title,
         live: live, handlers: handlers, text: document.body.textContent}};
"""


def ran_nothing(driver, page: Path) -> str:
    """Open ``page``, let late handlers fire, assert nothing of any payload ran; the page's text."""
    from selenium.common.exceptions import UnexpectedAlertPresentException

    try:
        driver.get(page.as_uri())
        driver.execute_async_script("setTimeout(arguments[arguments.length - 1], 300);")
        state = driver.execute_script(_STATE_JS)
    except UnexpectedAlertPresentException as exc:
        pytest.fail(f"{page}: an alert opened: {exc.alert_text!r}")
    assert state["pwned"] is None, f"{page}: the payload of {state['pwned']!r} ran"
    # a payload that ran appends "|PWNED <vector>"; one shown as text (a name in the title) is followed by its code
    assert not re.search(r"\|PWNED [\w-]+$", state["title"]), f"{page}: title {state['title']!r}"
    assert state["live"] == 0 and state["handlers"] == 0, (
        f"{page}: {state['live']} scripts, {state['handlers']} handlers"
    )
    return state["text"]


def report(argv: list[str], cwd: Path) -> str:
    """``evalgate report ...`` in its own process (the kernels it starts inherit nothing of this one)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for name in ("EVALGATE_SIGNING_KEY", "EVALGATE_SIGNING_KEY_FILE"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "evalgate_lib.cli", "report", "--no-progress", *argv],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:]
    return done.stdout


# --------------------------------------------------------------------------- scored logs, three candidates


def scored_report(base: Path) -> tuple[Path, set[str]]:
    """Three answer logs scored with payload names, a plan's labels, then their report; (report, vectors)."""
    import evalgate_lib as eg
    from evalgate_lib.inputs.labels import Label, answer_sha256, dumps_labels

    article = payload("article-id")
    corpus = base / "corpus"
    corpus.mkdir(parents=True)
    seats = f"The Starter plan includes 3 seats. {payload('article-body')}"
    meta = f"id: {json.dumps(article)}\ntitle: {json.dumps('Plans ' + payload('article-title'))}"
    (corpus / "plans.md").write_text(f"---\n{meta}\n---\n# Plans\n\n{seats}\n\nBusiness costs $18.\n", encoding="utf-8")
    questions = [
        {"id": payload("question-id"), "question": f"How many seats? {payload('question')}", "type": "answerable",
         "article": article, "accept": [f"3 seats {payload('accept')}"],
         "evidence": ["The Starter plan includes 3 seats."], "note": payload("note")},
        *({"id": f"q{n}", "question": f"What is fact {n}?", "type": "answerable", "article": article,
           "accept": [f"{n} widgets"]} for n in range(2, 9)),
    ]  # fmt: skip
    gold = base / "gold.jsonl"
    gold.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    right = {"base": range(2, 7), "good": range(2, 9), "bad": range(2, 4)}
    logs = []
    for side, ok in right.items():
        passage = {"text": seats, "doc_id": article, "title": f"Plans {payload('passage-title')}", "score": 0.5}
        lines = [{"question_id": questions[0]["id"], "answer": f"Starter has 40 seats. {payload('answer-' + side)}",
                  "passages": [passage]}]  # fmt: skip
        lines += [
            {"question_id": f"q{n}", "answer": f"Fact {n} is {n if n in ok else 99} widgets.", "passages": [passage]}
            for n in range(2, 9)
        ]
        logs.append(base / f"{side}.jsonl")
        logs[-1].write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    results = base / f"results {attribute('folder')}"
    names = ",".join(payload(f"name-{side}") for side in right)
    argv = ["score", *map(str, logs), "--gold", str(gold), "--corpus", str(corpus), "--names", names]
    assert main([*argv, "--out", str(results)]) == 0
    thresholds = base / f"gate {attribute('thresholds')}.toml"
    thresholds.write_text((ROOT / "configs" / "gate.toml").read_text(encoding="utf-8"), encoding="utf-8")
    lead = eg.load_candidates(results).lead(thresholds)
    drawn = eg.draw_label_plan(lead, budget=8, seed=3)
    labels = [
        Label(r.config, r.question_id, answer_sha256(r.answer), r.correct, False, payload("reviewer"),
              comment=payload("comment"), plan_sha256=drawn.sha256)
        for r in lead.rows if r.question_id in drawn.plan.order()
    ]  # fmt: skip
    label_file = base / "labels.jsonl"
    label_file.write_text(dumps_labels(labels), encoding="utf-8")
    out = base / "report"
    report(["--results", str(results), "--out", str(out), "--labels", str(label_file), "--thresholds", str(thresholds),
            "--cache-dir", str(base / "cache")], base)  # fmt: skip
    vectors = {f"name-{side}" for side in right} | {f"answer-{side}" for side in ("base", "good")}
    vectors |= {"article-id", "article-body", "question-id", "question", "accept", "reviewer", "comment"}
    # pushed, not shown by this report (the article's title, the gold note, a logged passage's title): a report
    # that starts to show one unescaped fails the "nothing ran" check all the same
    return out, vectors


# --------------------------------------------------------------------------- configs run on the fake Ollama


def run_report(base: Path) -> tuple[Path, set[str]]:
    """A baseline and two candidates whose name, description and prompt carry payloads, reported over loopback."""
    from fake_ollama_server import server_process

    base.mkdir(parents=True, exist_ok=True)
    configs = []
    for which, source in (("base", "baseline"), ("one", "candidate"), ("two", "candidate")):
        text = (ROOT / "configs" / f"{source}.toml").read_text(encoding="utf-8")
        text = re.sub(r"(?m)^name = .*$", f"name = {json.dumps(payload('config-' + which))}", text, count=1)
        text = re.sub(r"(?m)^description = .*$", f"description = {json.dumps(payload('description-' + which))}", text)
        text = text.replace("Question: {question}", f"Question ({payload('prompt-' + which)}): {{question}}")
        text = text.replace('corpus = "../corpus"', f"corpus = {json.dumps(str(ROOT / 'corpus'))}")
        text = text.replace(
            'gold = "../gold/questions.jsonl"', f"gold = {json.dumps(str(ROOT / 'gold' / 'questions.jsonl'))}"
        )
        if which == "two":
            text = text.replace("max_words = 250", "max_words = 120")
        configs.append(base / f"{which}.toml")
        configs[-1].write_text(text, encoding="utf-8")
    out = base / "report"
    with server_process(base) as (url, _):
        report(["--backend", "ollama", "--hosts", url, "--limit", "3", "--baseline", str(configs[0]),
                "--candidate", str(configs[1]), "--candidate", str(configs[2]), "--cache-dir", str(base / "cache"),
                "--thresholds", str(ROOT / "configs" / "gate.toml"),
                "--out", str(out)], base)  # fmt: skip
    # every config's name, and the prompts of the pair the report leads with (the baseline's and the best
    # candidate's: "two", its sections cut shorter); the descriptions are pushed, not shown
    return out, {"config-base", "config-one", "config-two", "prompt-base", "prompt-two"}


def test_no_user_string_runs_on_any_page_and_every_one_is_shown(browser, tmp_path: Path) -> None:
    reports = [scored_report(tmp_path / "scored"), run_report(tmp_path / "run")]
    for out, vectors in reports:
        pages = report_pages(out)
        assert len(pages) >= 3, pages  # index.html and the executed notebooks (03, 04; and 01, 02 for a run)
        shown = " ".join(ran_nothing(browser, page) for page in pages)
        missing = sorted(v for v in vectors if payload(v) not in shown)
        assert missing == [], f"{out}: payloads no page shows as text: {missing}"


def test_the_payloads_run_where_they_are_not_escaped(browser, tmp_path: Path) -> None:
    """The check itself: both payload shapes, written raw into a page, run, and the check sees it."""
    page = tmp_path / "raw.html"
    page.write_text(f'<!DOCTYPE html><html><head><title>t</title></head><body><a title="{attribute("a")}">x</a>'
                    f"{script('s')}</body></html>")  # fmt: skip
    with pytest.raises(AssertionError, match="ran"):
        ran_nothing(browser, page)

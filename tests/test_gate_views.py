"""One gate decision, rendered everywhere: the command line, --json, --junit, --markdown and the first screen.

The folder: 20 answerable questions. The baseline answers all 20 right; the candidate breaks 10 (b = 10, c = 0)
and is flagged for 7 new hallucinations. Worked out by hand:

* accuracy: delta -10/20 = -50 points; McNemar p = 2 · 0.5^10 = 0.001953; the exact interval maps the
  Clopper-Pearson bounds of 0/10, [0, 1 - 0.025^(1/10)] = [0, 0.308497], through the discordant share
  10/20: [0.5 · (2 · 0 - 1), 0.5 · (2 · 0.308497 - 1)] = [-0.5, -0.191503], printed [-50.0, -19.2];
* hallucination: +7; p = 2 · 0.5^7 = 0.015625 < 0.05; FAIL;
* refusal accuracy: no no-answer question, so nothing shows it within its limit: INCONCLUSIVE (a JUnit
  failure of type ``inconclusive``; an error with ``--junit-inconclusive error``; skipped with
  ``--allow-inconclusive``).
"""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup
from conftest import make_flags, make_matching, make_row, write_results_folder

from evalgate_lib.api import load_results
from evalgate_lib.cli import main
from evalgate_lib.reporting.first_screen import change_counts, first_screen_html
from evalgate_lib.reporting.gate_views import decision_junit, decision_markdown

GATE = """mode = "significant"
alpha = 0.05

[[rule]]
metric = "accuracy_answerable"
max_drop = 0.05

[[rule]]
metric = "refusal_accuracy"
max_drop = 0.1

[[rule]]
metric = "hallucination"
max_increase = 0
"""


def _rows():
    rows = []
    for i in range(20):
        for config, correct, flagged in (("base", True, False), ("cand", i >= 10, i < 7)):
            rows.append(
                make_row(
                    config=config,
                    question_id=f"q{i:02d}",
                    correct=correct,
                    matching=make_matching(correct),
                    retrieval_metrics=None,
                    retrieval_hit=True,
                    flags=make_flags(wrong=not correct, hallucination=flagged),
                )  # fmt: skip
            )
    return rows


@pytest.fixture
def gated(tmp_path):
    folder = write_results_folder(tmp_path / "res", _rows(), "base", "cand")
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text(GATE)
    return folder, thresholds


def test_gate_writes_json_junit_and_markdown_of_one_decision(gated, tmp_path, capsys) -> None:
    import junitparser

    folder, thresholds = gated
    out = {k: tmp_path / f"gate.{k}" for k in ("json", "xml", "md")}
    argv = ["gate", "--results", str(folder), "--thresholds", str(thresholds)]
    argv += ["--json", str(out["json"]), "--junit", str(out["xml"]), "--markdown", str(out["md"])]
    assert main(argv) == 1
    printed = capsys.readouterr().out
    assert "accuracy on answerable: delta -50.0 pts 95% CI [-50.0, -19.2], McNemar p=0.002" in printed
    assert "FAIL: candidate regresses on accuracy_answerable, hallucination" in printed

    data = json.loads(out["json"].read_text())
    assert data["verdict"] == "FAIL" and data["exit_code"] == 1
    rules = {r["metric"]: r for r in data["rules"]}
    accuracy = rules["accuracy_answerable"]["decided"]
    assert accuracy["delta"] == -0.5 and accuracy["ci_low"] == -0.5
    assert accuracy["ci_high"] == pytest.approx(0.5 * (2 * (1 - 0.025 ** (1 / 10)) - 1), abs=1e-6)
    assert accuracy["p_value"] == round(2 * 0.5**10, 6) and accuracy["source"] == "judge"
    assert rules["hallucination"]["decided"]["delta"] == 7 and isinstance(
        rules["hallucination"]["decided"]["delta"], int
    )
    assert rules["refusal_accuracy"]["power"]["can_fail"] is False
    assert rules["refusal_accuracy"]["outcome"] == "INCONCLUSIVE" and rules["accuracy_answerable"]["outcome"] == "FAIL"
    assert data["lines"] == [line for line in printed.splitlines() if not line.startswith("gate decision (")]

    # a JUnit reader, as a CI system reads it: one case per rule; the failing rules fail with their line
    xml = junitparser.JUnitXml.fromfile(str(out["xml"]))
    (suite,) = list(xml)
    cases = {case.name.split(":")[0]: case for case in suite}
    assert set(cases) == {"accuracy_answerable", "refusal_accuracy", "hallucination"}
    assert suite.tests == 3 and suite.failures == 3 and suite.skipped == 0  # two FAIL, one INCONCLUSIVE
    for metric, case in cases.items():
        results = case.result
        if metric == "refusal_accuracy":
            assert len(results) == 1 and isinstance(results[0], junitparser.Failure)
            assert results[0].type == "inconclusive" and results[0].message.startswith("INCONCLUSIVE")
            continue
        (failure,) = results
        assert isinstance(failure, junitparser.Failure)
        assert failure.message == rules[metric]["line"].strip() and failure.message.startswith("FAIL")

    markdown = out["md"].read_text()
    assert markdown.startswith("### EvalGate gate: ❌ FAIL — cand vs base")
    assert (
        "| accuracy on answerable | must not drop by more than 5.0% | judge | -50.0 pts | [-50.0, -19.2] (95%) |"
        in (markdown)
    )


def _interval(line: str) -> str:
    return re.search(r" CI (\[[^]]+\]|n/a)", line).group(1)


def _views(results, thresholds) -> dict[str, dict[str, str]]:
    """Each view's per-rule status and deciding interval, read back from what it rendered (not from the object)."""
    decision = results.gate_decision(thresholds)
    views: dict[str, dict[str, str]] = {}
    text = {}
    for line in decision.text().splitlines():
        found = re.match(r"^\s*(FAIL|ok|INCONCLUSIVE)\s+(.+?): (?:delta|corrected delta) \S+ (?:pts )?"
                         r"\d+% CI (\[[^]]+\]|n/a)", line)  # fmt: skip
        if found:
            text[found.group(2)] = f"{found.group(1).lower()} {found.group(3)}"
    views["text"] = text
    views["json"] = {r["label"]: f"{r['status']} {_interval(r['line'])}" for r in decision.to_json()["rules"]}
    import xml.etree.ElementTree as ET

    tree = ET.fromstring(decision_junit([decision]))
    views["junit"] = {
        case.get("name").split(": ", 1)[1].rsplit(" (must", 1)[0]: (
            "ok" if case.find("failure") is None else case.find("failure").get("type").replace("regression", "fail")
        )
        + " "
        + _interval(case.find("system-out").text)
        for case in tree.iter("testcase")
    }
    md = {}
    for row in decision_markdown(decision).splitlines():
        cells = [c.strip() for c in row.split("|")[1:-1]]
        if len(cells) == 9 and cells[0] not in ("rule", "---"):
            status = "inconclusive" if "INCONCLUSIVE" in cells[6] else "fail" if "FAIL" in cells[6] else "ok"
            md[cells[0]] = f"{status} {cells[4].split(' (')[0]}"
    views["markdown"] = md
    page = BeautifulSoup(first_screen_html(decision, change_counts(results.rows, results.summary)), "html.parser")
    screen = {}
    for tr in page.select("table.eg-gate-rules tbody tr[data-rule]"):
        cells = tr.find_all("td")
        status = {"FAIL": "fail", "INCONCLUSIVE": "inconclusive"}.get(tr["data-outcome"], "ok")
        screen[cells[0].text] = f"{status} {cells[4].text.split(' (')[0]}"
    views["first screen"] = screen
    return views


def test_every_view_renders_the_same_decision(gated) -> None:
    folder, thresholds = gated
    views = _views(load_results(folder), thresholds)
    first = views["text"]
    assert first == {
        "accuracy on answerable": "fail [-50.0, -19.2]",
        "refusal accuracy on no-answer": "inconclusive n/a",
        "hallucination flags": first["hallucination flags"],
    }
    assert first["hallucination flags"].startswith("fail [+")
    for name, view in views.items():
        assert view == first, name


def _decided_by(results, thresholds) -> dict[str, dict[str, str]]:
    """What each view says decided each rule, read back from what it rendered."""
    import xml.etree.ElementTree as ET

    from evalgate_lib.statistics.metrics import METRICS

    labels = {m.key: m.label for m in METRICS}
    decision = results.gate_decision(thresholds)
    basis = next(line for line in decision.text().splitlines() if line.startswith("decided by: "))
    text = {}
    for part in basis.removeprefix("decided by: ").split("; "):
        word, names = part.split(" for ", 1)
        for name in names.split(", "):
            text[labels[name.split(" (")[0]]] = word
    views = {"text": text, "json": {r["label"]: r["decided_by"] for r in decision.to_json()["rules"]}}
    tree = ET.fromstring(decision_junit([decision]))
    views["junit"] = {
        case.get("name").split(": ", 1)[1].rsplit(" (must", 1)[0]:
        case.find("system-out").text.rsplit("decided by: ", 1)[1].strip()
        for case in tree.iter("testcase")
    }  # fmt: skip
    md = {}
    for row in decision_markdown(decision).splitlines():
        cells = [c.strip() for c in row.split("|")[1:-1]]
        if len(cells) == 9 and cells[0] not in ("rule", "---"):
            md[cells[0]] = cells[2].replace("\\", "")
    views["markdown"] = md
    page = BeautifulSoup(first_screen_html(decision, change_counts(results.rows, results.summary)), "html.parser")
    views["first screen"] = {
        tr.find_all("td")[0].text: tr["data-source"] for tr in page.select("table.eg-gate-rules tbody tr[data-rule]")
    }
    return views


def test_every_view_names_the_same_decider(tmp_path) -> None:
    """One wording of what decided each rule, in the text, JSON, JUnit, Markdown and the report (issue 53): a
    retrieval rule is "run (no judgement)", never "judge"."""
    folder = write_results_folder(tmp_path / "res", _rows(), "base", "cand")
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text(GATE + '\n[[rule]]\nmetric = "retrieval_recall"\nmax_drop = 0.05\n')
    views = _decided_by(load_results(folder), thresholds)
    expected = {"accuracy on answerable": "judge", "refusal accuracy on no-answer": "judge",
                "hallucination flags": "judge", "retrieval recall@top-k (doc)": "run (no judgement)"}  # fmt: skip
    for name, view in views.items():
        assert view == expected, name


def test_inconclusive_in_junit_as_configured(gated, tmp_path) -> None:
    """INCONCLUSIVE is a JUnit failure by default, an error with --junit-inconclusive error, skipped (and exit 0)
    with --allow-inconclusive; the exit code is 4 otherwise (here a FAIL wins: 1)."""
    import junitparser

    folder, thresholds = gated
    for extra, kind in (([], junitparser.Failure), (["--junit-inconclusive", "error"], junitparser.Error),
                        (["--allow-inconclusive"], junitparser.Skipped)):  # fmt: skip
        xml = tmp_path / f"gate{len(extra)}{kind.__name__}.xml"
        argv = ["gate", "--results", str(folder), "--thresholds", str(thresholds), "--junit", str(xml), *extra]
        assert main(argv) == 1  # accuracy and hallucination FAIL whatever the inconclusive rule is
        (suite,) = list(junitparser.JUnitXml.fromfile(str(xml)))
        refusal = next(c for c in suite if c.name.startswith("refusal_accuracy"))
        assert isinstance(refusal.result[0], kind), extra


def test_markdown_escapes_names(tmp_path) -> None:
    rows = [r.__class__(**{**r.__dict__, "config": "<b>x|y</b>" if r.config == "cand" else r.config}) for r in _rows()]
    folder = write_results_folder(tmp_path / "res", rows, "base", "<b>x|y</b>")
    thresholds = tmp_path / "gate.toml"
    thresholds.write_text(GATE)
    markdown = decision_markdown(load_results(folder).gate_decision(thresholds))
    assert "<b>x" not in markdown and "&lt;b&gt;x\\|y&lt;/b&gt;" in markdown

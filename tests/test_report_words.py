"""The report's words for the user's own run, one path and one title whatever the view (no model, no browser).

* the decline patterns collapsed behind one line, the limits told with the run's own answers, the
  fairness contract of scored logs said to be unchecked (nothing was declared), no colour for a delta
  that prints as zero, an answer fragment never shown as ``supported (0.00)``;
* a report built outside the project from a copied results folder names ``gold/questions.jsonl``;
* notebook 05 rendered by hand has the report's title;
* the explorer shows a chunk's whole text with the supporting spans marked (it cut at 400 characters).
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from conftest import make_row, score_shipped
from nbformat.v4 import new_code_cell, new_notebook, new_output

import evalgate_lib as eg
from evalgate_lib.judging.lexicon import table as lexicon_table
from evalgate_lib.judging.rows import SentenceVerdict, Step
from evalgate_lib.reporting import report_html
from evalgate_lib.reporting.explorer import describe_row
from evalgate_lib.reporting.paths import input_root, shareable_path
from evalgate_lib.reporting.plots import support_figure, verdict_word
from evalgate_lib.run.manifest import Manifest
from evalgate_lib.statistics.metrics import direction
from evalgate_lib.workbench.html_export import ReportExporter

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> eg.Results:
    return eg.load_results(score_shipped(tmp_path_factory.mktemp("words") / "results"))


def test_the_methodology_is_written_for_the_run(shipped: eg.Results) -> None:
    page = BeautifulSoup(shipped.methodology_html(), "html.parser")
    patterns = [str(p) for p in lexicon_table("declines")["phrases"]]  # type: ignore[union-attr]
    summary = page.select_one("details summary").get_text()
    assert summary.startswith("How the numbers are computed")
    folded = [d for d in page.select("details") if "Decline patterns" in d.summary.get_text()]
    assert len(folded) == 1 and not folded[0].has_attr("open")  # collapsed: one line, not a screen of patterns
    assert f"Decline patterns: {len(patterns)} phrases" in folded[0].summary.get_text()
    limits = page.get_text(" ")
    assert "three seats" not in limits  # the demo's example is gone ...
    row = next(r for r in shipped.rows if r.matching.normalised and r.matching.normalised.correct != r.correct)
    assert f"{row.config}'s answer to {row.question_id} is" in limits  # ... the run's own answer says it


def test_the_matching_limit_falls_back_to_the_runs_own_accepted_string() -> None:
    said = report_html.matching_example([make_row(question_id="q007")], "claim")
    assert "An answer to q007 is correct when it states “3 seats”" in said


def test_the_fairness_contract_of_scored_logs_is_said_to_be_unchecked(shipped: eg.Results) -> None:
    said = BeautifulSoup(shipped.fairness_html(), "html.parser").get_text(" ")
    assert "The fairness contract is not checked for them" in said and "declared by the user" not in said
    notebook = (ROOT / "notebooks" / "05_report.ipynb").read_text(encoding="utf-8")
    assert "what the user declared" not in notebook


def test_a_delta_that_prints_as_zero_has_no_colour(shipped: eg.Results) -> None:
    assert direction(0.00002, "score") == "unchanged" and direction(0.0002, "rate") == "unchanged"
    assert direction(0.0006, "score") == "better" and direction(1, "count") == "worse"
    assert direction(-0.0006, "score") == "worse" and direction(None, "count") == "unchanged"
    # a rate of faults (answers with an unsupported claim) rising is worse, as a flag count's rise is
    assert direction(0.25, "rate", lower_is_better=True) == "worse" and direction(-0.25, "rate", True) == "better"
    summary = shipped.summary
    tiny = type(summary).from_json({**summary.to_json(), "delta": {**summary.delta, "mean_groundedness": 0.00002}})
    cell = BeautifulSoup(report_html.headline_html(tiny), "html.parser").select_one(
        'td[data-metric="mean_groundedness"][data-config="delta"]'
    )
    assert cell.get_text() == "+0.000" and "better" not in cell["class"] and "worse" not in cell["class"]


def test_the_headline_is_a_short_list_on_a_phone(shipped: eg.Results) -> None:
    page = BeautifulSoup(shipped.headline_html(), "html.parser")
    items = page.select("ul.eg-narrow-only.eg-headline-list > li")
    assert len(items) == 1 + 18 and page.select_one("div.eg-wide-only table#eg-headline") is not None
    line = next(li.get_text(" ") for li in items if li.get_text().startswith("hallucination flags"))
    assert line.startswith("hallucination flags : 44 → 65 (") and "[+7.2, +31.9]" in line and "significant" in line


def _fragment(supported: bool = True) -> SentenceVerdict:
    asked = ["1", "api", "nimbus", "retir", "version"]
    evidence = {"kind": "an answer fragment", "held": [], "needed": ["supersed"],
                "question_held": [w for w in asked if w != "nimbus"], "question_needed": asked}  # fmt: skip
    return SentenceVerdict(
        "Superseded.", ("supersed",), ("supersed",), 0.0, supported, reason="an answer fragment: 0/1 words",
        role="claim", rule="S.words", steps=(Step("S.words", "supported", True, evidence),),
    )  # fmt: skip


def test_an_answer_fragment_shows_what_decided_it_not_a_bare_zero() -> None:
    fragment = _fragment()
    assert support_figure(fragment) == "an answer fragment: its span holds 4/5 of the question's words"
    assert verdict_word(fragment) == "supported (an answer fragment: its span holds 4/5 of the question's words)"
    assert "(0.00)" not in verdict_word(fragment)
    row = make_row(question_id="q071", answer="Superseded.")
    plain = row.sentences[0]
    assert verdict_word(plain) == "supported (1.00)"


def _manifest_at(root: str) -> Manifest:
    return Manifest.from_json({
        "baseline": "b", "candidate": "c", "evalgate_version": "0.1.0",
        "configs": {name: {"path": f"{root}/configs/{name}.toml", "chunking": {}, "chunks": 1, "sha256": "a" * 64,
                           "prompt_sha256": "b" * 64} for name in ("b", "c")},
        "fairness": {"differs": ["chunking"], "shared": {"shared.gold": f"{root}/gold/questions.jsonl",
                                                         "shared.corpus": f"{root}/corpus"}},
        "corpus": {"path": f"{root}/corpus", "articles": 1, "sha256": "c" * 64},
        "gold": {"path": f"{root}/gold/questions.jsonl", "questions_run": 1, "questions_in_file": 1,
                 "sha256": "d" * 64},
    })  # fmt: skip


def test_a_report_built_elsewhere_names_the_gold_file_within_its_project(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the report is built far from the project the run read its inputs from
    manifest = _manifest_at("/elsewhere/team-project")
    assert input_root(["/elsewhere/team-project/corpus", "/elsewhere/team-project/gold/q.jsonl"]) == Path(
        "/elsewhere/team-project"
    )
    assert input_root(["/p/data", "/p/data/gold.jsonl"]) == Path("/p") and input_root(["/a", "/b"]) is None
    page = BeautifulSoup(report_html.fairness_html(manifest), "html.parser").get_text(" ")
    assert "gold/questions.jsonl" in page and "corpus" in page and "/elsewhere" not in page
    assert shareable_path("/elsewhere/team-project/gold/questions.jsonl") == "questions.jsonl"  # no root: its name
    assert os.getcwd() == str(tmp_path)


def test_notebook_05_rendered_by_hand_has_the_reports_title(shipped: eg.Results) -> None:
    heading = new_output("display_data", data={"text/html": shipped.title_html()})
    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    nb = new_notebook(cells=[new_code_cell("display(HTML(results.title_html()))", outputs=[heading])], metadata=kernel)
    page, _ = ReportExporter().from_notebook_node(nbformat.from_dict(nb))
    title = BeautifulSoup(page, "html.parser").title.get_text()
    assert title == report_html.report_title(shipped.summary) == "EvalGate report: candidate vs baseline"


def test_the_explorer_shows_a_chunks_whole_text_with_its_spans_marked(shipped: eg.Results) -> None:
    bodies = {a.id: a.body for a in shipped.articles()}
    hidden = 0
    for row in shipped.rows:
        for chunk in row.retrieved:
            text = chunk.text_in(bodies) or ""
            spans = [s.span.splitlines()[-1] for s in row.sentences if s.span and s.span.splitlines()[-1] in text]
            hidden += sum(text.index(span) + len(span) > 400 for span in spans)
    assert hidden > 0  # what a 400-character cut hid in the shipped run
    row = next(r for r in shipped.rows if any(len(c.text_in(bodies) or "") > 400 for c in r.retrieved))
    page = BeautifulSoup(describe_row(row, bodies), "html.parser")
    longest = max((c.text_in(bodies) or "" for c in row.retrieved), key=len)
    shown = [pre.get_text() for pre in page.select("table.eg-retrieved pre")]
    assert longest in shown and " …" not in "".join(shown)
    assert page.select("mark.eg-span") or not any(s.span for s in row.sentences)

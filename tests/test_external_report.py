"""A report of answers scored from logs (``evalgate score``) says what it knows and nothing it cannot.

Issue 30's walk-through found the report of two answer logs calling them "baseline vs candidate"
despite ``--names``, speaking of "the same generator (None) and embedder (None)", stating that
reviewers "never saw EvalGate's verdicts" of any label file, and skipping notebook 01 without a
word. Each of those is checked here on a folder scored from small logs, without a model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from evalgate_lib.api import load_results, missing_results_message, results_or_run
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import Label, label_provenance
from evalgate_lib.reporting import report_html
from evalgate_lib.run.external import score_and_write, score_answer_logs
from evalgate_lib.workbench.report import skipped_notebooks

ROOT = Path(__file__).resolve().parents[1]
SLICE = ROOT / "tests" / "data" / "python-docs-slice"


def _scored(tmp_path: Path, folder: str = "scored") -> Path:
    gold = [json.loads(line) for line in (SLICE / "gold.jsonl").read_text().splitlines()]
    for name, answer in (("v1", "I don't know."), ("v2", "It is 70.")):
        lines = [{"question_id": q["id"], "answer": answer, "passages": []} for q in gold]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    run = score_answer_logs(
        tmp_path / "v1.jsonl", tmp_path / "v2.jsonl", SLICE / "gold.jsonl", names=("careful", "chatty"),
        corpus=SLICE / "corpus",
    )  # fmt: skip
    return score_and_write(run, tmp_path / folder)[1]


@pytest.fixture
def results(tmp_path):
    return load_results(_scored(tmp_path))


def _text(html: str) -> str:
    return " ".join(BeautifulSoup(html, "html.parser").get_text().split())


def test_the_report_names_the_configs_as_given(results):
    assert _text(results.title_html()) == "EvalGate report: chatty vs careful"
    assert report_html.report_title(results.summary) == "EvalGate report: chatty vs careful"
    assert "careful" in _text(results.methodology_html()) and "chatty" in _text(results.methodology_html())


def test_no_generator_embedder_or_model_claims_for_an_external_log(results):
    pages = {
        "methodology": _text(results.methodology_html()),
        "manifest": _text(results.manifest_html()),
        "intro": _text(results.intro_html()),
    }
    for name, text in pages.items():
        assert "(None)" not in text and "same models" not in text.lower(), name
        assert "backend: backend" not in text and "top-k None" not in text, name
    assert "answers supplied by the team's pipeline" in pages["methodology"]
    assert "EvalGate ran no generator and no embedder" in pages["manifest"]
    assert "answers supplied by the team's pipeline (answer logs scored with evalgate score)" in pages["intro"]
    assert "backend external" not in pages["intro"]


def test_label_provenance_is_what_the_files_record():
    def label(reviewer: str, hidden: bool | None) -> Label:
        return Label("c", reviewer + str(hidden), "0" * 64, True, False, reviewer, verdicts_hidden=hidden)

    provenance = label_provenance([label("ana", True), label("bo", None), label("ana", None), label("cy", False)])
    assert (provenance.labels, provenance.reviewers) == (4, ("ana", "bo", "cy"))
    assert (provenance.hidden, provenance.shown, provenance.unrecorded) == (1, 1, 2)
    assert report_html.provenance_sentence(provenance) == (
        "Labelled by ana, bo, cy (3 reviewers); of 4 labels, 1 with EvalGate's verdicts hidden, 1 with EvalGate's "
        "verdicts shown to the reviewer, 2 whose file does not record whether EvalGate's verdicts were hidden."
    )
    audited = Label("c", "q9", "0" * 64, True, False, "dee", verdicts_hidden=False, mode="audit")
    provenance = label_provenance([label("ana", True), label("cy", False), audited])
    assert (provenance.shown, provenance.audit) == (2, 1)
    assert "2 with EvalGate's verdicts shown to the reviewer (1 of them audit labels" in (
        report_html.provenance_sentence(provenance)
    )


def test_skipped_notebooks_are_named_with_why():
    skipped = dict(skipped_notebooks(results_given=True, external=True, no_appendices=False))
    assert list(skipped) == ["01_corpus_inspection", "02_two_config_run"]
    assert "scored from logs" in skipped["01_corpus_inspection"] and "--results" in skipped["02_two_config_run"]
    assert [n for n, _ in skipped_notebooks(False, False, True)] == [
        "01_corpus_inspection", "03_coverage_heatmaps", "04_flag_explorer",
    ]  # fmt: skip
    assert skipped_notebooks(False, False, False) == []
    soup = BeautifulSoup(report_html.appendix_links_html([], list(skipped.items())), "html.parser")
    assert [li["data-notebook"] for li in soup.select(".eg-skipped li")] == list(skipped)


def test_a_notebook_run_after_score_points_to_the_scored_folder(tmp_path):
    (tmp_path / "results").mkdir()
    _scored(tmp_path / "results", "external")  # what `evalgate score` writes by default: results/external
    missing = tmp_path / "results" / "latest"
    message = missing_results_message(missing)
    assert "evalgate run --out" in message and "evalgate score BASELINE.jsonl CANDIDATE.jsonl" in message
    assert f"{tmp_path / 'results' / 'external'} holds answers scored with `evalgate score`" in message
    with pytest.raises(InputError, match="set results_dir = "):
        results_or_run(missing, "configs/baseline.toml", "configs/candidate.toml")


def test_notebook_lines_name_no_absolute_path(results, monkeypatch):
    monkeypatch.chdir(results.folder.parent)
    assert results.source_line() == (
        "16 answers from scored: chatty vs careful "
        "(answers supplied by the team's pipeline, scored with evalgate score)"
    )
    monkeypatch.chdir(ROOT / "notebooks")  # where the report's notebooks run
    from evalgate_lib.api import load_inputs

    line = load_inputs(SLICE / "careful.toml", SLICE / "chatty.toml").summary_line()
    assert line == (
        "corpus tests/data/python-docs-slice/corpus: 3 articles; gold tests/data/python-docs-slice/gold.jsonl: "
        "8 questions"
    )

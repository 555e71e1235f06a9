"""Issue 30's walk-through, redone on a real documentation set that ships with the repository.

A team with its own generator evaluates two versions of its documentation assistant over three
pages of Python's standard-library reference (``tests/data/python-docs-slice``, the reStructuredText
sources exactly as Debian ships them; PSF licence in its COPYRIGHT) and 8 gold questions, 5 of them
no-answer:

1. ``evalgate retrieve`` writes the answer-log skeleton with EvalGate's chunker and retriever
   (``careful.toml``: reST sections, top 3): no passage is copied by hand, and no generator runs. As
   in the issue, the two versions share their retrieval and differ in how they answer (one retrieval
   also keeps this test to one embedder process);
2. the team's generator fills in the answers. Here a deterministic stand-in: the *careful* version
   answers with the retrieved sentence that shares most words with the question and declines the
   no-answer questions; the *chatty* version wraps the same sentence in fluent Markdown, answers
   every question (so it breaks all 5 refusals), and its retriever merges its top two passages into
   one (joined by ``\\n...\\n``, text only), which ``score`` must place piece by piece;
3. ``evalgate score --names careful,chatty``, ``evalgate gate`` and ``evalgate report`` on the result.

The report must name the versions as given, claim no generator or embedder, and say which gate rules
cannot fail on 3 answerable and 5 no-answer questions; no page may name an absolute path.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT, evalgate_cli, machine_paths_in, report_pages

from evalgate_lib.api import load_results
from evalgate_lib.cli import main
from evalgate_lib.inputs.corpus import load_corpus

SLICE = ROOT / "tests" / "data" / "python-docs-slice"
JOIN = "\n...\n"
LOGS = ("careful", "chatty")
WORD = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class Walk:
    root: Path
    skeleton: Path
    logs: dict[str, Path]
    printed: dict[str, str]
    codes: dict[str, int]
    results: Path
    report: Path


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n\s*\n", text) if len(s.split()) >= 4]


def best_sentence(question: str, passages: list[dict]) -> str:
    """The retrieved sentence sharing most words with the question (the first on a tie): the stand-in's answer."""
    asked = set(WORD.findall(question.lower()))
    candidates = [s for p in passages for s in _sentences(p["text"])] or ["The documentation says nothing more."]
    return " ".join(max(candidates, key=lambda s: len(asked & set(WORD.findall(s.lower())))).split())


def fill(skeleton: Path, out: Path, gold: dict[str, dict], chatty: bool) -> Path:
    """The team's generator: every skeleton line answered (and, for chatty, its top two passages merged)."""
    lines = []
    for raw in skeleton.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        passages = line["passages"]
        said = best_sentence(line["question"], passages)
        if chatty:
            line["answer"] = f"Great question! Here is what the documentation says:\n\n**{said}**\n\nHope this helps!"
            first, second, *rest = passages
            merged = {"text": first["text"] + JOIN + second["text"], "doc_id": first["doc_id"], "score": first["score"]}
            line["passages"] = [merged, *rest]
        elif gold[line["question_id"]]["type"] == "no_answer":
            line["answer"] = "I don't know: the documentation does not say."
        else:
            line["answer"] = said
        lines.append(json.dumps(line, ensure_ascii=False) + "\n")
    out.write_text("".join(lines), encoding="utf-8")
    return out


def _main(*args: str | Path) -> tuple[int, str]:
    """The command in this process, its standard output captured."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main([str(a) for a in args])
    return code, buffer.getvalue()


@pytest.fixture(scope="module")
def walk(tmp_path_factory) -> Walk:
    root = tmp_path_factory.mktemp("own-pipeline")
    cache = root / "cache"
    gold = {q["id"]: q for q in map(json.loads, (SLICE / "gold.jsonl").read_text().splitlines())}
    printed: dict[str, str] = {}
    codes: dict[str, int] = {}
    skeleton = root / "skeleton.jsonl"
    proc = evalgate_cli(
        "retrieve", "--config", SLICE / "careful.toml", "--backend", "local", "--cache-dir", cache, "--out", skeleton,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed["retrieve"], codes["retrieve"] = proc.stdout, proc.returncode
    logs = {name: fill(skeleton, root / f"{name}.jsonl", gold, chatty=name == "chatty") for name in LOGS}
    results = root / "results"
    codes["score"], printed["score"] = _main(
        "score", logs["careful"], logs["chatty"], "--gold", SLICE / "gold.jsonl", "--corpus", SLICE / "corpus",
        "--names", "careful,chatty", "--out", results,
    )  # fmt: skip
    codes["gate"], printed["gate"] = _main("gate", "--results", results, "--thresholds", ROOT / "configs" / "gate.toml")
    report = root / "report"
    # the appendices' pages of a scored folder are checked by test_report_escaping_browser's score report
    codes["report"], printed["report"] = _main("report", "--results", results, "--out", report, "--no-appendices")
    return Walk(root, skeleton, logs, printed, codes, results, report)


@pytest.mark.slow
def test_retrieve_writes_a_skeleton_score_refuses_until_filled(walk):
    bodies = {a.id: a.body for a in load_corpus(SLICE / "corpus")}
    lines = [json.loads(x) for x in walk.skeleton.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 8 and all(line["answer"] == "" for line in lines)
    for line in lines:
        assert len(line["passages"]) == 3
        for p in line["passages"]:  # each passage is its article's own text at the span it names
            (span,) = p["spans"]
            assert bodies[p["doc_id"]][span["start"] : span["end"]] == p["text"]
    said = walk.printed["retrieve"]
    assert "retrieve: config careful (40 chunks of 3 articles), top-k 3, 8 of 8 gold questions" in said
    assert f"skeleton: {walk.skeleton} (8 lines, every 'answer' empty)" in said and "no generation" in said
    code, _ = _main("score", walk.skeleton, walk.logs["chatty"], "--gold", SLICE / "gold.jsonl",
                    "--out", walk.root / "refused")  # fmt: skip
    assert code == 2 and not (walk.root / "refused").exists()


@pytest.mark.slow
def test_score_places_the_merged_passages_piece_by_piece(walk):
    assert walk.codes["score"] == 0, walk.printed["score"]
    assert "names: careful (baseline), chatty (candidate)" in walk.printed["score"]
    assert "chatty: 8 passage(s) placed as spans of the corpus joined by other text" in walk.printed["score"]
    rows = load_results(walk.results).rows
    bodies = {a.id: a.body for a in load_corpus(SLICE / "corpus")}
    logged = {json.loads(x)["question_id"]: json.loads(x) for x in walk.logs["chatty"].read_text().splitlines()}
    for row in rows:
        first = row.retrieved[0]
        if row.config == "careful":
            assert first.assembly is None and first.start >= 0
            continue
        assert first.assembly is not None and JOIN in first.assembly.joins
        # rebuilt from the corpus, the merged passage is the logged one (whitespace aside)
        assert first.text_in(bodies).split() == logged[row.question_id]["passages"][0]["text"].split()


@pytest.mark.slow
def test_the_gate_says_which_rules_cannot_fail_on_this_gold_set(walk):
    out = walk.printed["gate"]
    # issue 53: 5 of 5 refusals broken fail the refusal rule: Tango's interval [-100.0, -13.1] lies wholly past its
    # -10 limit (p = 0.043 against it; McNemar's exact p against no change, 0.0625, is the conservative one)
    assert walk.codes["gate"] == 1, out
    assert "gate (significant mode): chatty vs careful" in out
    assert "FAIL  refusal accuracy on no-answer: delta -100.0 pts" in out  # 5 of 5 broken
    assert "past the limit: Tango 95% CI [-100.0, -13.1], p=0.043 against the limit" in out
    assert (
        "  refusal accuracy on no-answer: the smallest change that can fail it on 5 no-answer questions is 5 of 5 "
        "broken (100.0 points, p against the limit = 0.04311 < 0.05)" in out
    )
    assert "  CANNOT FAIL  accuracy on answerable cannot fail on 3 answerable questions" in out
    assert out.rstrip().endswith("FAIL: candidate regresses on refusal_accuracy")


@pytest.mark.slow
def test_the_report_in_a_browser_names_the_versions_claims_no_model_and_says_what_cannot_fail(walk, browser):
    from selenium.webdriver.common.by import By

    assert walk.codes["report"] == 0, walk.printed["report"]
    assert "skipping 01_corpus_inspection.ipynb: the answers were scored from logs" in walk.printed["report"]
    browser.get((walk.report / "index.html").as_uri())
    assert browser.title == "EvalGate report: chatty vs careful"
    assert browser.find_element(By.CSS_SELECTOR, "h1.eg-title").text == "EvalGate report: chatty vs careful"
    text = browser.find_element(By.TAG_NAME, "body").text
    for claim in ("baseline vs candidate", "(None)", "same models", "same generator", "never saw"):
        assert claim not in text, claim
    assert "answers supplied by the team's pipeline" in text
    power = browser.find_element(By.ID, "eg-power")
    assert power.is_displayed() and "3 of 5 gate rules cannot fail at this gold set's size" in power.text
    assert "hallucination flags cannot fail on 8 questions: even 8 of 8 newly flagged" in power.text
    skipped = [e.get_attribute("data-notebook") for e in browser.find_elements(By.CSS_SELECTOR, ".eg-skipped li")]
    assert skipped == ["01_corpus_inspection", "02_two_config_run", "03_coverage_heatmaps", "04_flag_explorer"]


@pytest.mark.slow
def test_no_page_names_an_absolute_path_of_this_machine(walk):
    assert [p.name for p in report_pages(walk.report)] == ["index.html"]  # --no-appendices
    assert machine_paths_in(walk.report, walk.root) == []


"""Labels without Jupyter: ``evalgate sample`` writes a blind label template and a static labelling page.

The template is one row per answer of the plan, in the plan's order, every field a label needs filled
but the verdicts (the SHA-256 of each answer among them: no hand-computed field); filled in, it is a
label file ``gate`` and ``agreement`` read as it is. The results are the shipped pair's 202 answers
scored from their logs (no model). The page itself is driven in Chromium in
``tests/test_label_page_browser.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import make_row, score_shipped

import evalgate_lib as eg
from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labels import answer_sha256, load_label_files
from evalgate_lib.reporting.label_template import kit_paths, labelling_page_html, template_rows
from evalgate_lib.statistics.sampling_plan import draw_strata, interleave_keys

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return score_shipped(tmp_path_factory.mktemp("template") / "results")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _fill(row: dict, reviewer: str = "ana") -> dict:
    """What a colleague fills in by hand: the verdict, each sentence's mark, the name. Nothing computed."""
    return {
        **row,
        "correct": True,
        "reviewer": reviewer,
        "sentences": [{**s, "supported": True} for s in row["sentences"]],
    }


def test_sample_writes_a_blind_template_in_the_plans_order(folder: Path, capsys) -> None:
    assert main(["sample", "--results", str(folder), "--budget", "10", "--seed", "26"]) == 0
    out = capsys.readouterr().out
    # the module's folder is shared and other tests draw plans into it: the plan is the one this command wrote
    plan = Path(out.split("written: ", 1)[1].split(" (SHA-256", 1)[0])
    assert plan.parent == folder and plan.is_file()
    template, page = kit_paths(plan)
    assert f"label template: {template} (10 answers in the plan's order, blind, verdicts empty)" in out
    assert f"labelling page: {page}" in out and page.is_file()
    results = eg.load_results(folder)
    drawn, digest = results.label_plan(plan)
    rows = _rows(template)
    assert [(r["question_id"], r["config"]) for r in rows] == [
        (q, c) for q in drawn.order() for c in ("baseline", "candidate")
    ]
    for row in rows:
        answer = results.row(row["config"], row["question_id"]).answer
        assert row["answer_sha256"] == answer_sha256(answer) and row["material"]["answer"] == answer
        assert row["plan_sha256"] == digest and row["pass"] == 1
        assert (row["correct"], row["unsupported_claim"], row["reviewer"]) == (None, None, None)
        assert all(set(s) == {"text"} for s in row["sentences"])  # the sentences to mark, none marked
        assert row["material"]["passages"] and all(p["text"] for p in row["material"]["passages"])
    # blind: nothing of EvalGate's verdicts, flags or the plan's strata is in the template or the page
    said = template.read_text(encoding="utf-8") + page.read_text(encoding="utf-8")
    for word in ('"review"', "hallucination", "Hallucination", "groundedness", "stratum", "strata", "flags"):
        assert word not in said, word
    for r in rows:
        row = results.row(r["config"], r["question_id"])
        assert all(s.reason not in said for s in row.sentences if s.reason)


def test_a_filled_template_round_trips_through_the_gate_and_agreement(folder: Path, tmp_path: Path, capsys) -> None:
    template, _ = kit_paths(eg.draw_label_plan(folder, 10, seed=26).path)
    if not template.exists():
        assert main(["sample", "--results", str(folder), "--budget", "10", "--seed", "26"]) == 0
    rows = _rows(template)
    filled = tmp_path / "filled.jsonl"
    filled.write_text("".join(json.dumps(_fill(r)) + "\n" for r in rows[:6]) + "".join(
        json.dumps(r) + "\n" for r in rows[6:]
    ), encoding="utf-8")  # fmt: skip
    selection = load_label_files([filled])
    assert (len(selection.labels), selection.unfilled) == (6, 4)
    assert all(lb.unsupported_claim is False and lb.plan_sha256 for lb in selection.labels)
    capsys.readouterr()
    assert main(["gate", "--results", str(folder), "--labels", str(filled)]) in (0, 1)
    gated = capsys.readouterr().out
    assert "deltas corrected by labels: 6 of 202 answers labelled under plan" in gated
    assert "(4 template rows not labelled yet, not counted)" in gated
    assert main(["agreement", "--results", str(folder), "--labels", str(filled), "--resamples", "200"]) == 0
    assert "labels used: 6 answers (pass 1)" in capsys.readouterr().out


def test_an_unfilled_or_half_marked_template_is_said_to_be_so(folder: Path, tmp_path: Path, capsys) -> None:
    template, _ = kit_paths(eg.draw_label_plan(folder, 10, seed=26).path)
    if not template.exists():
        assert main(["sample", "--results", str(folder), "--budget", "10", "--seed", "26"]) == 0
    assert main(["gate", "--results", str(folder), "--labels", str(template)]) == 2
    assert "10 template rows not labelled yet; fill them in" in capsys.readouterr().err
    rows = _rows(template)
    half = {**rows[0], "sentences": [{**s, "supported": False} for s in rows[0]["sentences"]]}  # no verdict yet
    path = tmp_path / "half.jsonl"
    path.write_text(json.dumps(half) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"half.jsonl:1: 'correct' is null \(not labelled yet\) but sentence 1 is set"):
        load_label_files([path])
    edited = {**_fill(rows[0]), "material": {**rows[0]["material"], "answer": "edited"}}
    path.write_text(json.dumps(edited) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="its 'answer' is not the text 'answer_sha256' names"):
        load_label_files([path])
    unmarked = {**_fill(rows[0]), "sentences": rows[0]["sentences"]}
    path.write_text(json.dumps(unmarked) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="sentence 1 is not marked"):
        load_label_files([path])


def test_a_template_is_never_written_over(folder: Path, capsys) -> None:
    assert main(["sample", "--results", str(folder), "--budget", "12", "--seed", "5"]) == 0
    template, _ = kit_paths(eg.draw_label_plan(folder, 12, seed=5).path)  # the plan just drawn, found again
    rows = _rows(template)
    template.write_text("".join(json.dumps(_fill(r)) + "\n" for r in rows), encoding="utf-8")  # labelled in place
    capsys.readouterr()
    assert main(["sample", "--results", str(folder), "--budget", "12", "--seed", "5"]) == 0  # the same plan again
    assert "(kept as it was: it may hold labels" in capsys.readouterr().out
    assert all(r["correct"] is True for r in _rows(template))


def test_the_page_holds_its_text_as_data_never_as_markup() -> None:
    evil = "</script><script>window.egPwned = 1</script><img src=x onerror=alert(1)>"
    row = make_row(question_id="q001", answer=f"Starter includes 3 seats. {evil}")
    from evalgate_lib.statistics.sampling_plan import LabelPlan, PlanStratum

    drawn = LabelPlan("r", {}, ("baseline",), 1, 1, 0.5, (PlanStratum("all", ("q001",), ("q001",)),))
    rows = template_rows([row], [], drawn, "d" * 64)
    page = labelling_page_html(rows, "plan p", "d" * 64, "p.template")
    soup = BeautifulSoup(page, "html.parser")
    scripts = soup.find_all("script")
    assert len(scripts) == 3 and soup.find("img") is None  # the template, its meta, the page's own code
    assert json.loads(scripts[0].string)[0]["material"]["answer"].endswith(evil)
    assert "</script><script>" not in scripts[0].string


def test_the_labelling_order_hides_the_strata() -> None:
    """Each stratum's draw comes in its own order (any prefix is a prefix of every stratum), but where an answer
    stands is random: with (r + 0.5) / n every position was fixed by the two strata's sizes, which plans print."""
    in_review = {f"q{i:03d}": i < 40 for i in range(120)}
    review, rest = draw_strata(in_review, questions=30, seed=3)
    from evalgate_lib.statistics.sampling_plan import LabelPlan

    patterns = set()
    for seed in range(8):
        plan = LabelPlan("r", {}, ("a",), 60, seed, 0.5, (review, rest))
        order = plan.order()
        assert [q for q in order if q in review.drawn] == list(review.drawn)
        assert [q for q in order if q in rest.drawn] == list(rest.drawn)
        patterns.add(tuple(q in review.drawn for q in order))
    assert len(patterns) == 8  # the same sizes, eight seeds: eight different places for the review stratum
    keys = interleave_keys(3, [4, 0, 2])
    assert [len(k) for k in keys] == [4, 0, 2] and all(r / 4 <= k < (r + 1) / 4 for r, k in enumerate(keys[0]))


def test_notebook_06_tells_the_reviewer_no_stratum(folder: Path) -> None:
    drawn = eg.draw_label_plan(folder, 10, seed=26)
    said = drawn.describe_for_reviewer()
    assert said.startswith(f"plan {drawn.path} (SHA-256 {drawn.sha256[:12]}…): 10 answers to label (5 questions")
    # the drawer's description names the strata (5 questions: one for the answerable, one no-answer: issue 53)
    assert "stratum" not in said and "review" not in said and "stratum no-answer" in drawn.describe()
    nb = json.loads((ROOT / "notebooks" / "06_label.ipynb").read_text(encoding="utf-8"))
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "describe_for_reviewer()" in code and ".describe()" not in code
    assert "label_pass = 1" in code and "pass_number=label_pass" in code

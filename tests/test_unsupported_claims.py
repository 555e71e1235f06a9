"""Issue 53: unsupported claims in correct answers, first class (rate, flag, ``diff`` line, default gate rule).

A careful pipeline and a chatty one answer the same 12 answerable questions of the shipped gold set (the
first whose evidence is prose, not a table row, and holds the accepted answer), each passage being the
question's gold evidence. The careful answer is the evidence itself, as a sentence; the chatty one says the
same and, on the first 8 questions, adds a claim the passage does not make (free phone support around the
clock, a dedicated onboarding manager). Both are right on every question, so no accuracy moves and no answer
is a hallucination (a hallucination needs a wrong answer); only the unsupported claims do. By hand: careful 0 of
12 answers with an unsupported claim, chatty 8 of 12, +66.7 points; McNemar's 8 discordant pairs all one way,
exact p = 2 × 0.5^8 = 0.0078 < 0.05, past the default rule's 10 points: the gate fails on it alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.api import load_results
from evalgate_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXTRA = "It also comes with free phone support around the clock and a dedicated onboarding manager."
CHATTY = 8  # the chatty pipeline adds the claim on the first 8 of the 12 questions


def _lines(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    """``evalgate score`` of the careful and the chatty logs against the shipped corpus."""
    tmp = tmp_path_factory.mktemp("chatty")
    gold = [json.loads(line) for line in (ROOT / "gold" / "questions.jsonl").read_text().splitlines() if line.strip()]
    prose = [q for q in gold if q.get("evidence") and not q["evidence"][0].startswith("|")]
    picked = [q for q in prose if q["accept"] and q["accept"][0] in q["evidence"][0]][:12]
    careful, chatty = [], []
    for i, q in enumerate(picked):
        passages = [{"text": q["evidence"][0], "doc_id": q["article"], "score": 0.8}]
        said = q["evidence"][0].strip().rstrip(".") + "."  # the evidence, as a sentence of its own
        careful.append({"question_id": q["id"], "answer": said, "passages": passages})
        chatty.append({"question_id": q["id"], "answer": f"{said} {EXTRA}" if i < CHATTY else said,
                       "passages": passages})  # fmt: skip
    args = [str(_lines(tmp / "careful.jsonl", careful)), str(_lines(tmp / "chatty.jsonl", chatty))]
    gold_path = _lines(tmp / "gold.jsonl", picked)
    code = main(["score", *args, "--gold", str(gold_path), "--corpus", str(ROOT / "corpus"), "--out", str(tmp / "out")])
    assert code == 0
    return tmp / "out"


def test_the_summary_has_the_rate_and_its_paired_significance(scored: Path) -> None:
    summary = load_results(scored).summary
    base, cand = summary.configs["careful"], summary.configs["chatty"]
    assert base["accuracy_answerable"] == cand["accuracy_answerable"] == 1.0  # both right everywhere
    assert base["hallucination"] == cand["hallucination"] == 0  # so no hallucination either
    assert (base["unsupported_claim"], cand["unsupported_claim"]) == (0.0, 0.666667)  # 0 and 8 of 12
    assert summary.delta["unsupported_claim"] == 0.666667
    sig = summary.significance["unsupported_claim"]
    assert (sig["b"], sig["c"], sig["n"]) == (0, 8, 12)
    assert sig["p_value"] == pytest.approx(2 * 0.5**8, abs=1e-6)  # held to 6 places


def test_each_chatty_answer_carries_the_flag_and_names_the_sentence(scored: Path) -> None:
    rows = load_results(scored).rows
    chatty = [r for r in rows if r.config == "chatty"]
    assert [r.flags.unsupported_claim for r in chatty] == [True] * CHATTY + [False] * (12 - CHATTY)
    assert not any(r.flags.unsupported_claim for r in rows if r.config == "careful")
    for row in chatty[:CHATTY]:
        reasons = row.flags.reasons["unsupported_claim"]
        assert len(reasons) == 1 and reasons[0].startswith(repr(EXTRA) + " (unsupported): ")
        assert not row.flags.hallucination and row.correct


def test_evalgate_diff_says_it(scored: Path, capsys) -> None:
    assert main(["diff", "--results", str(scored)]) == 0
    printed = capsys.readouterr().out
    assert "0 fixed, 0 broken" in printed and "8 flag changed with the same verdict" in printed
    assert "answers with an unsupported claim: careful 0 → chatty 8 of 12 (8 gained the flag, 0 lost it)" in printed
    assert "(flags +Unsupported claim)" in printed


def test_the_default_gate_fails_the_chatty_candidate_on_it_alone(scored: Path, capsys) -> None:
    thresholds = ROOT / "configs" / "gate.toml"
    assert main(["gate", "--results", str(scored), "--thresholds", str(thresholds)]) == 1
    printed = capsys.readouterr().out
    assert (
        "FAIL  answers with an unsupported claim: delta +66.7 pts 95% CI [+17.4, +66.7], McNemar p=0.008 against no "
        "change (must not rise by more than 10.0%); past the limit: Tango 95% CI ["
    ) in printed
    assert "FAIL: candidate regresses on unsupported_claim\n" in printed


def test_the_report_lists_it(scored: Path) -> None:
    """The headline row, the results table's filter and badge, and the question-by-question changes."""
    from bs4 import BeautifulSoup

    results = load_results(scored)
    headline = BeautifulSoup(results.headline_html(), "html.parser")
    row = headline.select_one('table#eg-headline tr[data-metric="unsupported_claim"]')
    assert row is not None and row.select("td")[0].get_text() == "answers with an unsupported claim"
    assert "worse" in headline.select_one('td[data-metric="unsupported_claim"][data-config="delta"]')["class"]
    table = BeautifulSoup(results.results_table_html(), "html.parser")
    option = table.select_one('select.eg-flag-filter option[value="unsupported-claim"]')
    assert option is not None and option.get_text() == f"Unsupported claim ({CHATTY})"
    assert len(table.select('tr.eg-row[data-unsupported-claim="1"]')) == CHATTY
    badge = table.select_one("span.eg-badge-unsupported_claim")
    assert badge is not None and badge["title"].startswith(repr(EXTRA))
    changes = BeautifulSoup(results.changes_html(), "html.parser").get_text(" ")
    assert "answers with an unsupported claim: careful 0 → chatty 8 of 12 (8 gained the flag, 0 lost it)." in changes


def test_labels_correct_it_and_the_judges_side_is_the_flag(scored: Path, tmp_path: Path, capsys) -> None:
    """A census of labels decides the rule: the reviewer holds one of the 8 added claims supported (7 of 12, +58.3
    points, McNemar p = 2 × 0.5^7 = 0.016), the judge's side of the correction is the flag (8 of 12)."""
    from evalgate_lib.inputs.labels import Label, LabelStore, answer_sha256
    from evalgate_lib.statistics.label_correction import CORRECTED

    rows = load_results(scored).rows
    metric = next(m for m in CORRECTED if m.key == "unsupported_claim")
    assert [metric.judge(r) for r in rows] == [r.flags.unsupported_claim for r in rows]
    store = LabelStore(tmp_path / "labels.jsonl")
    forgiven = next(r for r in rows if r.flags.unsupported_claim)
    for r in rows:
        claim = r.flags.unsupported_claim and r is not forgiven
        store.put(Label(r.config, r.question_id, answer_sha256(r.answer), True, claim, "ana", verdicts_hidden=True))
    thresholds = str(ROOT / "configs" / "gate.toml")
    args = ["gate", "--results", str(scored), "--thresholds", thresholds, "--labels", str(tmp_path / "labels.jsonl")]
    assert main(args) == 1
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.startswith("FAIL  answers with an unsupported claim"))
    assert "corrected delta +58.3 pts" in line and "McNemar p=0.016 against no change (the labels' census)" in line
    assert "judge-only +66.7 pts" in line

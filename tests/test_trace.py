"""The trace behind every verdict: enough to recompute it by hand, and what ``evalgate explain`` prints.

20 rows of the shipped run, drawn at random with a fixed seed, are scored as ``evalgate score`` scores the
shipped answers, written and read back as ``results.jsonl`` holds them; each verdict is then recomputed from
the row's trace alone (:func:`~evalgate_lib.judging.trace.replay`), and each reason re-rendered from its
rule and evidence.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.judging.rules import render
from evalgate_lib.judging.trace import explain, replay, replay_correct, rules
from evalgate_lib.run.external import score_answer_logs

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "labels" / "demo" / "nimbus-answers"


@pytest.fixture(scope="module")
def shipped_rows() -> list[ResultRow]:
    run = score_answer_logs(SHIPPED / "baseline.jsonl", SHIPPED / "candidate.jsonl", ROOT / "gold" / "questions.jsonl",
                            corpus=ROOT / "corpus")  # fmt: skip
    return [ResultRow.from_json(json.loads(json.dumps(row.to_json()))) for row in run.rows]


def test_twenty_random_rows_replay_to_the_same_verdicts(shipped_rows: list[ResultRow]) -> None:
    picked = random.Random(44).sample(shipped_rows, 20)
    sentences = 0
    for row in picked:
        assert replay_correct(row.matching) == row.correct, (row.config, row.question_id)
        for s in row.sentences:
            again = replay(s)
            assert (again.supported, again.undecided) == (s.supported, s.undecided), (row.question_id, s.text)
            if s.steps and s.steps[-1].rule != "L.answer" and s.steps[-1].outcome != "none":
                assert s.reason == render(rules(), s.steps[-1])
            sentences += 1
        unsupported = any(s.supported is False for s in row.sentences)
        assert row.flags.hallucination == (not row.correct and unsupported)
    assert sentences >= 30  # 33 sentences in the 20 rows drawn with seed 44


def test_explain_lists_every_rule_tried_and_which_decided(shipped_rows: list[ResultRow]) -> None:
    row = next(r for r in shipped_rows if r.question_id == "q004" and r.config == "candidate")
    text = explain(row.judgement, row.question, row.answer, row.config, row.question_id).text()
    assert text.startswith("candidate · q004: What is the minimum number of seats on the Business plan?")
    assert "correctness: wrong" in text and "C.none → wrong" in text
    assert "S.absent → abstains" in text and "verdict:" in text


def test_the_explain_command_prints_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "q001", "question": "How many seats does Starter include?", "type": "answerable",
                                "article": "plans", "accept": ["3 seats"]}) + "\n")  # fmt: skip
    passages = [{"doc_id": "plans", "text": "Starter includes 3 seats in its flat price.", "score": 0.8}]
    for name, answer in (("v1", "Starter includes 3 seats."), ("v2", "Starter includes 7 seats.")):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps({"question_id": "q001", "answer": answer,
                                                           "passages": passages}) + "\n")  # fmt: skip
    out = tmp_path / "out"
    assert main(["score", str(tmp_path / "v1.jsonl"), str(tmp_path / "v2.jsonl"), "--gold", str(gold),
                 "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["explain", "--results", str(out), "--question", "q001", "--config", "v2"]) == 0
    printed = capsys.readouterr().out
    assert "v2 · q001: How many seats does Starter include?" in printed
    assert "S.absent → unsupported: the context never gives 7" in printed
    assert main(["explain", "--results", str(out), "--question", "q999"]) == 2
    assert "no row for question 'q999'" in capsys.readouterr().err

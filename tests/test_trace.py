"""The trace behind every verdict: enough to recompute it by hand, and what ``evalgate explain`` prints.

20 rows of the shipped run, drawn at random with a fixed seed, are scored as ``evalgate score`` scores the
shipped answers, written and read back as ``results.jsonl`` holds them; each verdict is then recomputed from
the row's trace alone by :func:`recompute` below — a small function of this test's own that reads the recorded
evidence and the documented thresholds, never the judge's code — and each reason re-rendered from its rule and
evidence.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.judging.rows import ResultRow, SentenceVerdict, row_passages
from evalgate_lib.judging.rules import render
from evalgate_lib.judging.slots import BIND_FLOOR, FRAGMENT_WORDS, SHORT_CLAIM
from evalgate_lib.judging.support import NEAR_MISS, WORD_FLOOR
from evalgate_lib.judging.trace import explain, rules
from evalgate_lib.run.external import score_answer_logs

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "labels" / "demo" / "nimbus-answers"

#: The rules whose evidence is a binding: the rival place's words beside the best agreeing place's.
BINDINGS = {"S.binding": True, "S.name": True, "S.negation": False, "S.qualifier": False}  # rule → superset asked


@pytest.fixture(scope="module")
def shipped_rows() -> list[ResultRow]:
    run = score_answer_logs(SHIPPED / "baseline.jsonl", SHIPPED / "candidate.jsonl", ROOT / "gold" / "questions.jsonl",
                            corpus=ROOT / "corpus")  # fmt: skip
    return [ResultRow.from_json(json.loads(json.dumps(row.to_json()))) for row in run.rows]


def _share(held: list[str], needed: list[str]) -> float:
    return len(set(held) & set(needed)) / len(needed) if needed else 1.0


def recompute(s: SentenceVerdict) -> tuple[bool | None, bool]:
    """``(supported at its lean, undecided)`` of one sentence, from its recorded steps and evidence alone.

    The last step that decides is the verdict; no step before it decides (nothing is overturned), except that an
    L.answer lean follows an undecided step. Its evidence must make its outcome, by the rule as documented."""
    if not s.steps or s.steps[-1].outcome == "none":
        return None, False
    deciding = [step for step in s.steps if step.outcome != "abstains"]
    last = deciding[-1]
    if last.rule == "L.answer":
        assert len(deciding) == 2 and deciding[0].outcome == "undecided", s.steps
        return True, True
    assert len(deciding) == 1, [step.rule for step in deciding]
    ev = last.evidence
    if last.rule == "S.words":
        needed, held = list(ev["needed"]), list(ev["held"])
        figure = _share(held, needed)
        asked = _share(list(ev.get("question_held", [])), list(ev.get("question_needed", [])))
        short = len(needed) <= SHORT_CLAIM and len(set(needed) - set(held)) <= 1
        expected = (
            "supported"
            if (figure >= WORD_FLOOR or short) and asked >= WORD_FLOOR
            else "unsupported"
            if min(figure, asked) < NEAR_MISS
            else "undecided"
        )
        assert last.outcome == expected, ev
    elif last.rule in BINDINGS and last.outcome == "unsupported":
        held, own, words = set(ev["held"]), set(ev["own_held"]), set(ev["words"])
        assert len(held & words) > len(own & words) and len(held) >= FRAGMENT_WORDS, ev
        assert len(held & words) >= BIND_FLOOR * len(words) or not words, ev
        if BINDINGS[last.rule]:
            assert held >= own, ev
    elif last.rule == "S.absent":
        assert ev["missing"], ev
    return last.outcome == "supported" or last.outcome == "undecided" and bool(last.lean), last.outcome == "undecided"


def test_twenty_random_rows_recompute_to_the_same_verdicts(shipped_rows: list[ResultRow]) -> None:
    picked = random.Random(44).sample(shipped_rows, 20)
    sentences = 0
    for row in picked:
        deciding = [step for step in row.matching.steps if step.outcome != "abstains"]
        assert len(deciding) == 1 and deciding[0] is row.matching.steps[-1]  # the first rule that decides ends it
        assert (deciding[0].outcome == "correct") == row.correct, (row.config, row.question_id)
        for s in row.sentences:
            if s.role in ("claim", "context", "code"):
                assert recompute(s) == (s.supported, s.undecided), (row.question_id, s.text)
            if s.steps and s.steps[-1].rule != "L.answer" and s.steps[-1].outcome != "none":
                assert s.reason == render(rules(), s.steps[-1])
            sentences += 1
        unsupported = any(s.supported is False for s in row.sentences)
        assert row.flags.hallucination == (not row.correct and unsupported)
        assert all(text for _, text in row_passages(row))  # every passage's text is in the row (schema 6)
    assert sentences >= 30


def test_explain_lists_every_rule_tried_the_span_and_the_passages(shipped_rows: list[ResultRow]) -> None:
    row = next(r for r in shipped_rows if r.question_id == "q004" and r.config == "candidate")
    text = explain(row.judgement, row.question, row.answer, row.config, row.question_id, row_passages(row)).text()
    assert text.startswith("candidate · q004: What is the minimum number of seats on the Business plan?")
    assert "correctness: wrong" in text and "C.none → wrong" in text
    assert "S.absent → abstains" in text and "verdict:" in text
    assert "span (passage [" in text
    assert "passages (as the prompt showed them):" in text
    assert row.retrieved[0].text and row.retrieved[0].text.splitlines()[0] in text


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
    # a scored log's passage is in the results folder: the trace shows it, with the span's passage
    assert "span (passage [1]): plans / Starter includes 3 seats in its flat price." in printed
    assert "[1] plans" in printed and "      Starter includes 3 seats in its flat price." in printed
    assert main(["explain", "--results", str(out), "--question", "q999"]) == 2
    assert "no row for question 'q999'" in capsys.readouterr().err

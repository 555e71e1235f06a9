"""scripts/error_kinds.py: the listing of the judge's remaining errors in docs/methodology.md, counted by hand."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kinds():
    spec = importlib.util.spec_from_file_location("error_kinds", ROOT / "scripts" / "error_kinds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reasons_map_to_their_kinds(kinds) -> None:
    assert (
        kinds.flag_kind("a claim: a near miss: the best span (passage [1]) holds 3/8 words") == "a near-miss paraphrase"
    )
    assert (
        kinds.flag_kind("an answer fragment: the context never gives 42") == "a name or value the context never gives"
    )
    assert kinds.missed_kind(
        "a claim: a span of passage [2] holds 5/5 words (1.00) and every number and identifier"
    ) == ("held by one span (a reading the words cannot tell)")
    assert kinds.missed_kind("copied verbatim from the context") == "a verbatim copy"
    assert kinds.missed_kind("a command or code line: every option, name and path it uses") == "a code line"


def test_a_small_set_is_counted_by_hand(kinds, tmp_path, capsys) -> None:
    """Two questions: one answer with a missed unsupported claim and a correctness error, one agreed."""
    passage = [{"doc_id": "plans", "title": "Plans", "text": "The Starter plan includes 3 seats.", "score": 0.9}]
    gold = [
        {
            "id": q,
            "question": text,
            "type": "answerable",
            "article": "plans",
            "accept": ["3 seats"],
            "evidence": ["The Starter plan includes 3 seats."],
        }
        for q, text in (
            ("q1", "How many seats does the Starter plan include?"),
            ("q2", "How many seats does the Starter plan include in total?"),
        )
    ]
    answers = {"q1": "The Starter plan includes 3 seats.", "q2": "The Starter plan includes 3 seats."}
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold), encoding="utf-8")
    (tmp_path / "a.jsonl").write_text(
        "".join(json.dumps({"question_id": q, "answer": a, "passages": passage}) + "\n" for q, a in answers.items()),
        encoding="utf-8",
    )
    import hashlib

    def label(q: str, correct: bool, unsupported: list[str]) -> str:
        sha = hashlib.sha256(answers[q].encode("utf-8")).hexdigest()
        return (
            json.dumps(
                {
                    "config": "a",
                    "question_id": q,
                    "answer_sha256": sha,
                    "correct": correct,
                    "unsupported_claim": bool(unsupported),
                    "unsupported_sentences": unsupported,
                    "refusal": False,
                    "reviewer": "r",
                    "pass": 1,
                }
            )
            + "\n"
        )

    (tmp_path / "labels.jsonl").write_text(
        label("q1", False, ["The Starter plan includes 3 seats."]) + label("q2", True, []), encoding="utf-8"
    )
    (tmp_path / "sets.toml").write_text(
        '[[set]]\nname = "tiny"\ngenerator = "fluent"\ndescription = "two answers"\ngold = "gold.jsonl"\n'
        'labels = "labels.jsonl"\nanswers = { a = "a.jsonl" }\n',
        encoding="utf-8",
    )
    kinds.main([str(tmp_path / "sets.toml")])
    out = capsys.readouterr().out.splitlines()
    # q1: the sentence is the passage's own sentence, so the judge holds it (copied verbatim) and calls the
    # answer correct; the reviewer flagged it and marked it wrong: one missed claim, one correctness error.
    # q2: the same answer, agreed (supported, correct): not counted.
    assert out == [
        "== tiny 2",
        "     1 correctness: an accepted string stated in an answer that does not answer",
        "     1 misses an unsupported claim: a verbatim copy",
    ]

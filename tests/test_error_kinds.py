"""scripts/error_kinds.py: the listing of the judge's remaining errors in docs/methodology.md, counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kinds():
    return load_script("error_kinds")


def test_kinds_are_the_deciding_rules_never_a_reason_s_words(kinds) -> None:
    from evalgate_lib.judging.rows import SentenceVerdict
    from evalgate_lib.judging.rules import Step

    flagged = SentenceVerdict("x", (), (), 0.4, False, undecided=True, rule="S.words",
                              steps=(Step("S.words", "undecided", False),))  # fmt: skip
    assert kinds.flag_kind(flagged) == "S.words (undecided, leaning unsupported)"
    missed = SentenceVerdict("x", (), (), 1.0, True, rule="S.verbatim", steps=(Step("S.verbatim", "supported", True),))
    assert kinds.missed_kind(missed) == "S.verbatim (decided supported)"
    quiet = SentenceVerdict("x", (), (), None, None, role="decline", rule="role.decline")
    assert kinds.missed_kind(quiet) == "read as no claim: decline (role.decline)"


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
        "     1 correctness: C.stated judged it correct, the reviewer wrong",
        "     1 misses an unsupported claim: S.verbatim (decided supported)",
    ]

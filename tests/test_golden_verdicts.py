"""The default judge's verdicts on every shipped labelled set are frozen: a change of behaviour is deliberate.

``tests/data/golden/verdicts.jsonl`` holds, for each of the 1,245 answers of ``labels/sets.toml``
(the shipped run's answers and the fluent ones), the correctness verdict, the refusal, the sentences
held unsupported and every flag, as ``scripts/golden_verdicts.py`` wrote them. This test judges every
answer again and compares. A change that moves a verdict fails here until the file is written again
(``.venv/bin/python scripts/golden_verdicts.py``), so it lands in the same commit as the agreement
tables it changes, and ``git diff`` of the file shows which answers moved.
"""

from __future__ import annotations

import json
from pathlib import Path

from project_scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def _script():
    return load_script("golden_verdicts")


def test_every_shipped_answer_keeps_its_frozen_verdicts() -> None:
    golden = _script()
    expected = [json.loads(line) for line in golden.GOLDEN.read_text(encoding="utf-8").splitlines()]
    actual = list(golden.verdict_lines())
    changed = golden.compare(expected, actual)
    assert len(expected) == len(actual) == 1335
    assert not changed, (
        f"{len(changed)} answers' verdicts changed (first ones below); if deliberate, run "
        "scripts/golden_verdicts.py and update the agreement tables in the same commit:\n" + "\n".join(changed[:20])
    )


def test_compare_names_the_fields_that_moved() -> None:
    golden = _script()
    old = [{"set": "s", "config": "c", "question_id": "q1", "correct": True, "refused": False}]
    new = [
        {"set": "s", "config": "c", "question_id": "q1", "correct": False, "refused": False},
        {"set": "s", "config": "c", "question_id": "q2", "correct": True, "refused": False},
    ]
    assert golden.compare(old, new) == ["s / c / q1: correct: True -> False", "s / c / q2: new"]
    assert golden.compare(old, old) == []


def test_verdict_changes_counts_what_a_change_won_and_lost(tmp_path: Path, capsys) -> None:
    """scripts/verdict_changes.py: the judge against its own frozen verdicts wins and loses nothing; against a
    frozen file where one answer's verdicts were the reviewer's opposite, it counts that answer as won."""
    changes = load_script("verdict_changes")
    name = "python-docs / demo model"
    assert changes.main(["--set", name]) == 0
    printed = capsys.readouterr().out
    assert f"== {name}: 80 labelled answers with frozen verdicts" in printed
    assert all(f"     0 {kind}" in printed for kind in ("unsupported claim won", "unsupported claim lost"))
    assert "     0 correctness won" in printed and "     0 correctness lost" in printed
    golden = _script()
    frozen = [json.loads(line) for line in golden.GOLDEN.read_text(encoding="utf-8").splitlines()]
    first = next(r for r in frozen if r["set"] == name)
    first["correct"] = not first["correct"]  # the frozen judge erred where the current one agrees, or the reverse
    edited = tmp_path / "frozen.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in frozen), encoding="utf-8")
    assert changes.main(["--set", name, "--golden", str(edited)]) == 0
    printed = capsys.readouterr().out
    assert ("     1 correctness won" in printed) != ("     1 correctness lost" in printed)

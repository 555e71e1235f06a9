"""Freeze (or check) the default judge's verdicts on every shipped labelled set.

Every answer of every set in ``labels/sets.toml`` (the demo model's answers are the shipped run's, the
fluent ones the writers') is judged again from its strings by the default judge, exactly as
``evalgate agreement --sets`` judges it, and one line per answer is written: its correctness (and
whether it was decided), its refusal, the sentences it holds unsupported, and every flag. The file is
``tests/data/golden/verdicts.jsonl``; ``tests/test_golden_verdicts.py`` judges again and compares, so a
change of behaviour is never silent: it is made on purpose, by running this script, and shows in the
commit's diff beside the agreement tables it moves.

    .venv/bin/python scripts/golden_verdicts.py            # write the file
    .venv/bin/python scripts/golden_verdicts.py --check    # compare, list what changed, exit 1 if anything did
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.inputs.answer_logs import load_answer_log  # noqa: E402
from evalgate_lib.inputs.gold import load_gold  # noqa: E402
from evalgate_lib.inputs.labelled_sets import load_sets  # noqa: E402
from evalgate_lib.judging.rows import FLAG_NAMES  # noqa: E402
from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, judge_logged  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden" / "verdicts.jsonl"
SETS = ROOT / "labels" / "sets.toml"


def verdict_lines(sets_file: Path = SETS) -> Iterator[dict[str, Any]]:
    """One record per answer of every set, in the sets' order, then each log's order."""
    judge = DEFAULT_JUDGES[0]
    for labelled in load_sets(sets_file):
        questions = {q.id: q for q in load_gold(labelled.gold)}
        for config, path in labelled.answers:
            for answer in load_answer_log(path, list(questions)).answers:
                j = judge_logged(answer, questions[answer.question_id], judge)
                yield {
                    "set": labelled.name,
                    "config": config,
                    "question_id": answer.question_id,
                    "correct": j.correct,
                    "correct_decided": j.correct_decided,
                    "refused": j.refused,
                    "unsupported_sentences": j.unsupported_sentences,
                    "unsupported_decided": j.unsupported_decided,
                    "flags": {name: j.flags.fired(name) for name in FLAG_NAMES},
                }


def _key(record: dict[str, Any]) -> tuple[str, str, str]:
    return record["set"], record["config"], record["question_id"]


def compare(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> list[str]:
    """One line per answer whose verdicts differ (or that is new or gone), naming the fields that moved."""
    old = {_key(r): r for r in expected}
    new = {_key(r): r for r in actual}
    out = []
    for key in list(old) + [k for k in new if k not in old]:
        if key not in new or key not in old:
            out.append(f"{' / '.join(key)}: {'gone' if key not in new else 'new'}")
            continue
        moved = [f"{f}: {old[key][f]!r} -> {new[key][f]!r}" for f in old[key] if old[key][f] != new[key].get(f)]
        if moved:
            out.append(f"{' / '.join(key)}: " + "; ".join(moved))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the frozen file instead of writing it")
    args = parser.parse_args()
    actual = list(verdict_lines())
    if args.check:
        expected = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
        changed = compare(expected, actual)
        print("\n".join(changed) or "no verdict changed")
        print(f"{len(changed)} of {len(actual)} answers changed")
        return 1 if changed else 0
    lines = (json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in actual)
    GOLDEN.write_text("".join(lines), encoding="utf-8")
    print(f"wrote {len(actual)} answers' verdicts to {GOLDEN.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a change of the judge did, set by set: answers it now gets right and wrong against the labels, by rule.

The frozen verdicts (``tests/data/golden/verdicts.jsonl``, written by ``scripts/golden_verdicts.py`` before a
change) are compared with the judge as it is now, answer by answer, against the pass-1 labels of every set in
``labels/sets.toml``. For "has an unsupported claim" and for correctness it counts the answers the frozen
judge got right and the current one gets wrong (**lost**), and the other way round (**won**); each lost answer
is named by the rule that decided the current verdict (the first unsupported sentence's rule for a claim now
flagged, the rule that held the reviewer's sentence for one now missed, the deciding correctness rule), so a
set whose κ fell says why, rule by rule. docs/judge.md ("Where a set fell") is this script's output for the
rebuild of issue 44 (frozen: the judge of prose@3).

    .venv/bin/python scripts/verdict_changes.py                 # every set
    .venv/bin/python scripts/verdict_changes.py --set "pip-topics / demo model"
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.judging.rows import Judgement  # noqa: E402
from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, judge_logged  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden" / "verdicts.jsonl"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _error_kinds() -> ModuleType:
    return _script("error_kinds")


def _ablation() -> ModuleType:
    return _script("ablation")


def why_unsupported(judged: Judgement, flagged: tuple[str, ...], kinds: ModuleType) -> str:
    """The rule behind the current "has an unsupported claim" verdict the reviewer disagrees with."""
    if judged.unsupported_sentences:
        first = next(s for s in judged.sentences if s.supported is False)
        return "now flags a supported answer: " + kinds.flag_kind(first)
    held = [s for s in judged.sentences if any(kinds._same_sentence(s.text, u) for u in flagged)]
    return "now misses an unsupported claim: " + (kinds.missed_kind(held[0]) if held else "the sentence not found")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=Path, default=ROOT / "labels" / "sets.toml")
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    parser.add_argument("--set", action="append", help="only this set (repeatable)")
    args = parser.parse_args(argv)
    frozen = {}
    for line in args.golden.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        frozen[(record["set"], record["config"], record["question_id"])] = record
    kinds = _error_kinds()
    judge = DEFAULT_JUDGES[0]
    for name, items in _ablation().labelled_sets(args.sets):
        if args.set and name not in args.set:
            continue
        counts: collections.Counter[str] = collections.Counter()
        compared = 0
        for item in items:
            old = frozen.get((name, item.config, item.question.id))
            if old is None:
                continue
            compared += 1
            label = item.label
            new = judge_logged(item.answer, item.question, judge)
            was = bool(old["unsupported_sentences"]) == label.unsupported_claim
            now = bool(new.unsupported_sentences) == label.unsupported_claim
            if was != now:
                counts["unsupported claim " + ("won" if now else "lost")] += 1
                if not now:
                    counts["  lost: " + why_unsupported(new, label.unsupported_sentences, kinds)] += 1
            was, now = old["correct"] == label.correct, new.correct == label.correct
            if was != now:
                counts["correctness " + ("won" if now else "lost")] += 1
                if not now:
                    counts["  lost: correctness " + kinds.correctness_kind(new, label.correct)] += 1
        if not compared:
            print(f"== {name}: no frozen verdicts (a set added after the freeze)")
            continue
        print(f"== {name}: {compared} labelled answers with frozen verdicts")
        for name in ("unsupported claim won", "unsupported claim lost", "correctness won", "correctness lost"):
            print(f"{counts.pop(name, 0):6d} {name}")
        for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{n:6d} {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

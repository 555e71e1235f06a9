"""Write a labelling packet: what a blind reviewer sees of each answer of one labelled set, and nothing more.

The labelling guide (``docs/labelling-guide.md``) fixes what a reviewer sees: the question
and its type, the reference (accept strings and gold evidence, answerable questions only),
the passages the generator was shown in rank order, and the answer. A packet holds exactly
that, one JSON object per answer, plus the set, the configuration (or the writer's style)
and the answer's SHA-256 that the label must carry (``labels/README.md``). It never holds a
verdict, a score, a flag or a retrieval similarity: the packet is built from the answer log
and the gold file alone, so no EvalGate judgement can reach the reviewer through it.

Lines come in the order of the ``--answers`` options, each log in gold order. The same
script serves the demo model's logs (``labels/demo/``, configs ``baseline`` / ``candidate``)
and the fluent writers' logs (styles ``strict`` / ``chatty`` / ``cited``).

Usage::

    .venv/bin/python scripts/label_packets.py --set "python-docs / demo model" \\
        --gold gold/python-docs.jsonl \\
        --answers baseline=labels/demo/python-docs-answers/baseline.jsonl \\
        --answers candidate=labels/demo/python-docs-answers/candidate.jsonl \\
        --out label-packets/python-docs-demo.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.answer_logs import LoggedAnswer, load_answer_log
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.inputs.labels import answer_sha256

#: The keys of one packet line, in this order; nothing else is written.
PACKET_KEYS = ("set", "config", "question_id", "question", "type", "reference", "passages", "answer", "answer_sha256")


def packet_line(set_name: str, config: str, question: GoldQuestion, answer: LoggedAnswer) -> dict[str, Any]:
    """One answer as the reviewer sees it: the reference only for an answerable question, passages as title + text."""
    reference = (
        {"accept": list(question.accept), "evidence": list(question.evidence or ())} if question.answerable else None
    )
    values = (
        set_name,
        config,
        question.id,
        question.question,
        question.type,
        reference,
        [{"title": p.title, "text": p.text} for p in answer.passages],
        answer.answer,
        answer_sha256(answer.answer),
    )
    return dict(zip(PACKET_KEYS, values, strict=True))


def _config_and_path(value: str) -> tuple[str, Path]:
    """``NAME=PATH`` of one ``--answers`` option."""
    name, sep, path = value.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected CONFIG=PATH (for example baseline=answers.jsonl), got {value!r}")
    return name.strip(), Path(path)


def build(set_name: str, gold_path: Path, answers: list[tuple[str, Path]]) -> list[dict[str, Any]]:
    """Every packet line of the set; the answer logs are validated as ``evalgate score`` validates them."""
    questions = load_gold(gold_path)
    by_id = {q.id: q for q in questions}
    seen: set[str] = set()
    lines: list[dict[str, Any]] = []
    for config, path in answers:
        if config in seen:
            raise InputError(f"--answers: configuration {config!r} given twice")
        seen.add(config)
        log = load_answer_log(path, [q.id for q in questions])
        lines += [packet_line(set_name, config, by_id[a.question_id], a) for a in log.answers]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set", required=True, dest="set_name", help='the set\'s name, e.g. "python-docs / demo model"'
    )
    parser.add_argument("--gold", required=True, type=Path, help="the gold file the answers answer")
    parser.add_argument(
        "--answers",
        required=True,
        action="append",
        type=_config_and_path,
        metavar="CONFIG=PATH",
        help="an answer log (evalgate score format) and its configuration or style; repeat for each",
    )
    parser.add_argument("--out", required=True, type=Path, help="the packet to write (JSON Lines)")
    args = parser.parse_args(argv)
    try:
        lines = build(args.set_name, args.gold, args.answers)
    except InputError as exc:
        print(f"label_packets: error: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    args.out.write_text(text, encoding="utf-8")
    counts = ", ".join(f"{config}: {sum(line['config'] == config for line in lines)}" for config, _ in args.answers)
    print(f"{args.out}: {len(lines)} answers ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

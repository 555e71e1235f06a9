"""Write a results folder's answers as answer logs (``evalgate score`` format), one per configuration.

The demo model's labelled answers are kept this way in ``labels/demo/``: the answer, and the
passages it was generated from (title, text, document id, retrieval similarity), so every
judge can be measured on them by ``evalgate agreement --sets`` without generating anything,
and ``evalgate score`` on the logs gives the run's own verdicts.

Usage::

    .venv/bin/python scripts/results_to_logs.py results/latest labels/demo/nimbus-answers
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import evalgate_lib as eg


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    results = eg.load_results(args.results)
    bodies = {a.id: a for a in results.articles()}
    lines: dict[str, list[str]] = {}
    for row in results.rows:
        passages = [
            {
                "doc_id": r.article_id,
                "title": bodies[r.article_id].title,
                "text": bodies[r.article_id].body[r.start : r.end],
                "score": r.similarity,
            }
            for r in row.retrieved
        ]
        line = {"question_id": row.question_id, "answer": row.answer, "passages": passages}
        lines.setdefault(row.config, []).append(json.dumps(line, ensure_ascii=False, sort_keys=True))
    args.out.mkdir(parents=True, exist_ok=True)
    for config, config_lines in lines.items():
        path = args.out / f"{config}.jsonl"
        path.write_text("\n".join(config_lines) + "\n", encoding="utf-8")
        print(f"{path}: {len(config_lines)} answers")


if __name__ == "__main__":
    main()

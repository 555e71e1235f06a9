"""The judge's tables as docs/judge.md prints them, made from the code: roles, rules, lexicon, thresholds.

The rule tables in docs/judge.md are not written by hand: this script renders them from the tables the judge
runs, in the order the one loop runs them (:data:`evalgate_lib.judging.reading.SENTENCE_RULES` and ``ROLE_RULES``;
:data:`~evalgate_lib.judging.support.CLAIM_TABLE`, ``CODE_TABLE``, ``COVERAGE_TABLE``, ``LEAN_TABLE``;
:data:`~evalgate_lib.judging.correctness.CORRECTNESS_TABLE` and ``MATCHING_TABLE``; ``lexicon.toml``; the thresholds
``scripts/judge_size.py`` counts), and ``tests/test_judge_docs.py`` checks that the page holds exactly what it
renders. After changing a rule, run it and paste:

    .venv/bin/python scripts/judge_tables.py --write     # rewrites the block between the markers in docs/judge.md
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.judging.correctness import CORRECTNESS_TABLE, MATCHING_TABLE  # noqa: E402
from evalgate_lib.judging.lexicon import LEXICON_FILE  # noqa: E402
from evalgate_lib.judging.reading import ROLE_RULES, SENTENCE_RULES  # noqa: E402
from evalgate_lib.judging.rules import Rule  # noqa: E402
from evalgate_lib.judging.support import CLAIM_TABLE, CODE_TABLE, COVERAGE_TABLE, LEAN_TABLE  # noqa: E402

#: Each judgement's table, with the heading it has on the page, in the order a verdict meets them.
TABLES: tuple[tuple[str, tuple[Rule, ...]], ...] = (
    ("Support of a claim (`judging/support.py`, `CLAIM_TABLE`), run in this order", CLAIM_TABLE),
    ("Support of a code line (`CODE_TABLE`)", CODE_TABLE),
    ("Support of a statement about the context (`COVERAGE_TABLE`)", COVERAGE_TABLE),
    ("The lean of an answer's undecided verdicts (`LEAN_TABLE`)", LEAN_TABLE),
    ("Correctness (`judging/correctness.py`, `CORRECTNESS_TABLE`), run in this order", CORRECTNESS_TABLE),
    ("Matching rules a run can choose instead (`MATCHING_TABLE`)", MATCHING_TABLE),
)

DOC = ROOT / "docs" / "judge.md"
START, END = "<!-- judge-tables:start -->", "<!-- judge-tables:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _size() -> object:
    spec = importlib.util.spec_from_file_location("judge_size", ROOT / "scripts" / "judge_size.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.count(ROOT)


def tables() -> str:
    """The Markdown block: every table of the judge, in the order a verdict meets them."""
    out = [
        "### Roles (the reading: `judging/reading.py`)",
        "",
        "| rule | role | decides | example |",
        "|---|---|---|---|",
    ]
    out += [f"| `{r.id}` | {r.role} | {_cell(r.decides)} | {_cell(r.example)} |" for r in SENTENCE_RULES]
    out += [f"| `{r.id}` | {r.role} | {_cell(r.decides)} | {_cell(r.example)} |" for r in ROLE_RULES]
    for heading, table in TABLES:
        out += ["", f"### {heading}", "", "| rule | decides | example → outcome | threshold |", "|---|---|---|---|"]
        out += [f"| `{r.id}` | {_cell(r.decides)} | {_cell(str(r.example))} | {r.threshold} |" for r in table]
    lexicon = tomllib.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    out += ["", "### The lexicon (`judging/lexicon.toml`)", ""]
    out += ["| table | entries | source | what the judge does with it |", "|---|---|---|---|"]
    for name, table in lexicon.items():
        entries = sum(len(v) for v in table.values() if isinstance(v, list))
        out.append(f"| `{name}` | {entries} | {_cell(table['source'])} | {_cell(table['why'])} |")
    size = _size()
    out += ["", "### Thresholds (every number a verdict is compared with)", "", "| name | value |", "|---|---|"]
    out += [f"| `{name}` | {value} |" for name, value in sorted(size.thresholds.items())]  # type: ignore[attr-defined]
    return "\n".join(out) + "\n"


def block() -> str:
    return f"{START}\n{tables()}{END}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the block in docs/judge.md")
    args = parser.parse_args(argv)
    if not args.write:
        print(block())
        return 0
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + block() + tail, encoding="utf-8")
    print(f"wrote the tables into {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

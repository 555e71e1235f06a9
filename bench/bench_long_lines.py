"""How reading and chunking a corpus scales with one very long line (issue 31), and how every reader and the judge
take pathological input (issue 45): linear, bounded, or not.

A document with one long line and no front-matter title made ``evalgate run`` spin: the
title regex backtracked over the line (50 KB: 11.4 s, 1 MB: over ten minutes). This script
times every step a run takes on a document before any model is called (scanning the corpus,
which finds the title; each built-in chunker) on one-line documents of several shapes, at
50 KB and 1 MB, and prints seconds and the ratio 1 MB ÷ 50 KB. Linear time gives a ratio
near 20 (the size ratio); quadratic time would give near 400. The earlier title regex is
timed on the plain line too (at 5 KB and 10 KB only: quadratic, it would not finish at 1 MB).

Run from the repository root (not part of the test suite; timings depend on the machine)::

    .venv/bin/python bench/bench_long_lines.py
    .venv/bin/python bench/bench_long_lines.py --sizes 50000,1000000,4000000

Each timing is the best of ``--repeats`` runs, the shapes interleaved, so a busy machine
slows every shape alike.

The second table (issue 45; ``--only pathological`` prints it alone) times what each reader and
the judge do with the inputs the third campaign found: an answer ending in 100,000 dots (the
judge's sentence-end search was quadratic: 40,000 dots took 41 s), a line of 5 MB in every
structured input (read, or refused past its limit), input nested 100,000 levels deep (it crashed
sixteen readers), a TOML key of 100,000 dotted parts, a line and a file past their limits, and HTML
nested deep (issue 56: 500 nested ``<div>``s or 330 nested lists raised ``RecursionError``, 20,000 to
200,000 levels ran past 180 s; below 10,000 levels a page is read, above it refused). Each must take
under 1 s (the ``goal`` column; issue 56 asks 5 s of a 200,000-level page). The earlier sentence-end
search is timed beside it at 10,000 and 20,000 dots, and a line below reads pages of 2,000 and 9,000
nested ``<div>``s (just below the bound), where linear time shows as a ratio near 4.5. The judge on
an answer of 40,000 numbers (``1, 1, …``: its unit search walked past every number after each
number, 445 s before issue 44's rebuild) is a row of the table, and a line below times it at 2,000
and 4,000 numbers, where a quadratic search shows as a ratio near 4.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.chunks.chunking import chunk_corpus  # noqa: E402
from evalgate_lib.errors import InputError  # noqa: E402
from evalgate_lib.inputs.corpus import scan_corpus  # noqa: E402

#: One-line document bodies of about ``n`` characters, each a shape a regex could backtrack on.
SHAPES: dict[str, Callable[[int], str]] = {
    "letters, no space": lambda n: "x" * n,
    "words": lambda n: ("lorem ipsum " * (n // 12 + 1))[:n],
    "'# ' then '# #...'": lambda n: "# " + "# " * (n // 2),
    "'(' then text": lambda n: "(" + "a" * n,
    "'<!--' repeated": lambda n: "<!--" * (n // 4),
    "dots (leaders)": lambda n: "." * n,
    "'. ' repeated": lambda n: ". " * (n // 2),
    "adornment '='": lambda n: "=" * n,
}

#: The built-in chunkers with the shipped configs' parameters.
CHUNKINGS = {
    "fixed": {"method": "fixed", "size": 120, "overlap": 20},
    "markdown": {"method": "markdown", "max_words": 250},
    "sentence": {"method": "sentence", "window": 5, "overlap": 1},
}

_OLD_RST_TITLE = re.compile(r"^(?:([=\-~^\"'`#*+]{3,})\n)?([^\n]*\S[^\n]*)\n([=\-~^\"'`#*+]{3,})$", re.MULTILINE)


def best_of(repeats: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def steps(folder: Path) -> dict[str, Callable[[], object]]:
    """The pre-model steps of a run on the one-document corpus in ``folder``."""
    out: dict[str, Callable[[], object]] = {"scan (read + title)": lambda: scan_corpus(folder)}
    for name, spec in CHUNKINGS.items():
        out[f"scan + {name} chunker"] = lambda spec=spec: chunk_corpus(scan_corpus(folder).articles, spec)
    return out


#: The sentence-end search of the judge before issue 45 (it retried every start inside a run of dots).
_OLD_SENTENCE_END = re.compile(
    r"(?<!\be\.g)(?<!\bi\.e)[.!?]+[\"')\]\u201d\u2019*_]*(?=\s+(?:[A-Z0-9\"'(\[*\u201c\u2018]|`[^`\s]))"
)
#: The limit every pathological input must be read (or refused) within.
GOAL_SECONDS = 1.0
DEEP = "[" * 100_000 + "]" * 100_000
FIVE_MB = 5 * 1024 * 1024


_CALLS = iter(range(1_000_000))


def _judge(answer: str) -> None:
    """The judge on ``answer`` (a new one each call: the judge's memos must not answer a repeat)."""
    from evalgate_lib.judging.answer import judge_answer

    answer = f"Take {next(_CALLS)}. {answer}"

    judge_answer(question="How many seats does Starter include?", answer=answer,
                 passages=[("Plans", "The Starter plan includes 3 seats.")], accept=["3 seats"], answerable=True,
                 top_similarity=0.7)  # fmt: skip


def _refused(work: Callable[[], object], folder: Path) -> Callable[[], str]:
    """``work`` made to say how it ended: "read", or the start of the one line that refused it."""

    def run() -> str:
        try:
            work()
        except InputError as exc:
            return "refused: " + str(exc).replace(str(folder), "<tmp>")[:56]
        return "read"

    return run


def _html_page(body: str) -> str:
    return f"<html><head><title>Deep</title></head><body>{body}</body></html>"


#: HTML nested deep (issue 56): read below the bound (text.html_page.MAX_DEPTH, 10,000 levels), refused above it.
DEEP_HTML = {
    "500 nested <div>s": _html_page("<div>" * 500 + "<p>Deep text.</p>" + "</div>" * 500),
    "330 nested lists": _html_page("<ul><li>level" * 330 + " Deep text." + "</li></ul>" * 330),
    "200,000 nested <div>s": _html_page("<div>" * 200_000 + "<p>Deep text.</p>" + "</div>" * 200_000),
    "200,000 nested lists": _html_page("<ul><li>level" * 200_000 + " Deep text." + "</li></ul>" * 200_000),
    "200,000 list items never closed": _html_page("<ul>" + "<li>item" * 200_000 + "</ul>"),
}


def _read_divs(levels: int) -> None:
    from evalgate_lib.text.html_page import read_html_page

    read_html_page(_html_page("<div>" * levels + "<p>Deep text.</p>" + "</div>" * levels))


def _html_folder(corpus: Path, markup: str) -> Path:
    """``corpus``, made, holding one page: ``markup``."""
    corpus.mkdir()
    (corpus / "deep.html").write_text(markup, encoding="utf-8")
    return corpus


def pathological(folder: Path) -> dict[str, Callable[[], str]]:
    """Each pathological input of issue 45 with the step that reads it (files written into ``folder`` first)."""
    from evalgate_lib.gold_tools.gold_files import import_gold_file
    from evalgate_lib.inputs.config import load_config
    from evalgate_lib.inputs.corpus import parse_article
    from evalgate_lib.inputs.jsonl import read_jsonl
    from evalgate_lib.inputs.labels import load_labels
    from evalgate_lib.inputs.structured import read_json
    from evalgate_lib.statistics.gate import load_gate
    from evalgate_lib.text.markup import read_blocks

    shipped = (ROOT / "configs" / "baseline.toml").read_text(encoding="utf-8")
    files = {
        "jsonl-5mb.jsonl": '{"question_id": "q1", "answer": "' + "x" * FIVE_MB + '", "passages": []}\n',
        "json-5mb.json": '{"note": "' + "x" * FIVE_MB + '"}',
        "toml-5mb.toml": shipped.replace('description = "', 'description = "' + "x" * FIVE_MB, 1),
        "csv-5mb.csv": "question,ground_truth\nHow many seats?," + "x" * FIVE_MB + "\n",
        "deep.jsonl": DEEP + "\n",
        "deep.json": DEEP,
        "deep-gate.toml": "alpha = " + DEEP + "\n",
        "dotted.toml": "a" + ".a" * 100_000 + " = 1\n",
        "deep.csv": 'question,ground_truth,contexts\nHow many seats?,3 seats,"' + DEEP + '"\n',
        "line-17mib.jsonl": '"' + "x" * (17 * 1024 * 1024) + '"\n',
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    with open(folder / "huge.json", "wb") as handle:  # sparse: past the size limit, no disk used
        handle.truncate(513 * 1024 * 1024)
    front = "---\nid: " + DEEP + "\n---\n# Deep\n\nText.\n"
    out = folder / "imported.jsonl"
    pages = {name: _html_folder(folder / f"h{n}", markup) for n, (name, markup) in enumerate(DEEP_HTML.items())}

    def check(work: Callable[[], object]) -> Callable[[], str]:
        return _refused(work, folder)

    return {
        "judge: answer ending in 100,000 dots": check(lambda: _judge("Starter includes 3 seats" + "." * 100_000)),
        "judge: answer of 40,000 numbers": check(lambda: _judge("1, " * 40_000)),
        "judge: answer of 100,000 '!?'": check(lambda: _judge("Starter includes 3 seats" + "!?" * 50_000)),
        "JSON Lines line of 5 MB (answer log, labels, gold)": check(
            lambda: list(read_jsonl(folder / "jsonl-5mb.jsonl", "answer log"))
        ),
        "JSON file of one 5 MB line (results files, plans)": check(
            lambda: read_json(folder / "json-5mb.json", "results file")
        ),
        "TOML config with a 5 MB value": check(lambda: load_config(folder / "toml-5mb.toml")),
        "CSV row of 5 MB (gold import)": check(lambda: import_gold_file(folder / "csv-5mb.csv", out, None, True)),
        "JSON Lines line nested 100,000 deep": check(lambda: load_labels(folder / "deep.jsonl")),
        "JSON file nested 100,000 deep": check(lambda: read_json(folder / "deep.json", "results file")),
        "TOML value nested 100,000 deep": check(lambda: load_gate(folder / "deep-gate.toml")),
        "TOML key of 100,001 dotted parts": check(lambda: load_gate(folder / "dotted.toml")),
        "YAML front matter nested 100,000 deep": check(lambda: parse_article(front, "deep.md")),
        "CSV list cell nested 100,000 deep": check(lambda: import_gold_file(folder / "deep.csv", out, None, True)),
        **{
            f"HTML page of {name} (corpus scan: run, gold check)": check(lambda page=page: scan_corpus(page))
            for name, page in pages.items()
        },
        "HTML passage nested 200,000 deep (the judge's reader)": check(
            lambda: read_blocks(DEEP_HTML["200,000 nested lists"] + f"<p>{next(_CALLS)}</p>", "html")  # no memo
        ),
        "JSON Lines line of 17 MiB (past the line limit)": check(lambda: load_labels(folder / "line-17mib.jsonl")),
        "JSON file of 513 MiB (past the size limit)": check(lambda: read_json(folder / "huge.json", "results file")),
    }


def pathological_table(repeats: int) -> list[str]:
    """The second table: each pathological input, how it ended, the best of ``repeats`` seconds, against the goal."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        steps = pathological(Path(tmp))
        _judge("warm up: load the judge's modules once")
        for name, work in steps.items():
            times, ended = [], ""
            for _ in range(repeats):
                started = time.perf_counter()
                ended = work()
                times.append(time.perf_counter() - started)
            best = min(times)
            rows.append([name, ended, f"{best:.4f}", "PASS" if best < GOAL_SECONDS else "FAIL"])
    head = ["input (issue 45)", "how it ended", "seconds", f"goal < {GOAL_SECONDS:g} s"]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)) for r in [head, *rows]]
    old = {n: best_of(1, lambda n=n: list(_OLD_SENTENCE_END.finditer("a" + "." * n))) for n in (10_000, 20_000)}
    lines.append(
        f"\nthe judge's earlier sentence-end search on a run of dots: 10,000 {old[10_000]:.3f} s, 20,000 "
        f"{old[20_000]:.3f} s (ratio {old[20_000] / old[10_000]:.1f} for twice the length: quadratic)"
    )
    divs = {n: best_of(1, lambda n=n: _read_divs(n)) for n in (2_000, 9_000)}
    lines.append(
        f"an HTML page of nested <div>s, read: 2,000 levels {divs[2_000]:.3f} s, 9,000 (just below the bound) "
        f"{divs[9_000]:.3f} s (ratio {divs[9_000] / divs[2_000]:.1f} for 4.5 times the depth: linear near 4.5)"
    )
    numbers = {n: best_of(1, lambda n=n: _judge("1, " * n)) for n in (2_000, 4_000)}
    lines.append(
        f"the judge on a line of numbers: 2,000 {numbers[2_000]:.3f} s, 4,000 {numbers[4_000]:.3f} s "
        f"(ratio {numbers[4_000] / numbers[2_000]:.1f} for twice the length; about 2: linear, "
        "judging.terms._units_after)"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50000,1000000", help="line lengths in characters, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="timings per figure (the best is kept)")
    parser.add_argument(
        "--only", choices=("long-lines", "pathological"), default=None, help="print one of the two tables only"
    )
    args = parser.parse_args(argv)
    if args.only != "long-lines":
        print("\n".join(pathological_table(args.repeats)))
        if args.only == "pathological":
            return 0
        print()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: list[tuple[str, str, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {}
        for shape, make in SHAPES.items():
            for size in sizes:
                folder = Path(tmp) / f"{len(folders)}"
                folder.mkdir()
                (folder / "long.md").write_text(make(size) + "\n", encoding="utf-8")
                folders[shape, size] = folder
        timings: dict[tuple[str, str, int], float] = {}
        for _ in range(args.repeats):  # interleaved: every shape and size once per round
            for (shape, size), folder in folders.items():
                for step, work in steps(folder).items():
                    seconds = best_of(1, work)
                    key = (shape, step, size)
                    timings[key] = min(seconds, timings.get(key, float("inf")))
        for shape in SHAPES:
            for step in steps(Path(tmp)):
                rows.append((shape, step, [timings[shape, step, size] for size in sizes]))
    head = ["shape", "step", *(f"{size:,} chars (s)" for size in sizes), f"ratio {sizes[-1]:,} / {sizes[0]:,}"]
    lines = [head]
    for shape, step, values in rows:
        ratio = values[-1] / values[0] if values[0] > 0 else float("nan")
        lines.append([shape, step, *(f"{v:.4f}" for v in values), f"{ratio:.1f}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)))
    print(f"\n(linear time: ratio near {sizes[-1] / sizes[0]:.0f}; quadratic: near {(sizes[-1] / sizes[0]) ** 2:,.0f})")
    old = {n: best_of(1, lambda n=n: _OLD_RST_TITLE.search("x" * n + "\n")) for n in (5_000, 10_000)}
    print(
        f"the earlier title regex on the plain line: 5,000 chars {old[5_000]:.3f} s, 10,000 chars {old[10_000]:.3f} s "
        f"(ratio {old[10_000] / old[5_000]:.1f} for twice the length: quadratic)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

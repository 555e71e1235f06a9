"""How reading and chunking a corpus scales with one very long line (issue 31): linear, or not.

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50000,1000000", help="line lengths in characters, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="timings per figure (the best is kept)")
    args = parser.parse_args(argv)
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

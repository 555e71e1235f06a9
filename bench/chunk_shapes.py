"""How the chunkers cut code blocks and headings: per corpus and chunker, EvalGate now beside an earlier revision.

For the shipped corpora (``corpus/``, ``datasets/*``) and every set of real documentation pages under
``tests/data/html-docs/`` (``mdbook-rust`` is the book: the rustdoc and rustc books as mdBook writes
them), under each built-in chunker with the shipped configs' parameters (``fixed`` 120/20, ``markdown``
250, and ``sentence`` 5/1, which no shipped config uses), it prints
:func:`evalgate_lib.chunks.chunk_checks.chunk_shape`'s counts:

* **inside a code block**: chunks that start between two lines of a code block that fits in one chunk;
* **inside an oversized block**: chunks that start inside a code block longer than a chunk may be (the
  chunker cuts it between its lines and logs a warning), with how many such blocks there are;
* **heading only**: chunks whose every line is a heading; **title-and-subtitle lead**: an article's first
  chunk, when more follow, holding only headings and at most one line of at most eight words.

``--before REV`` (default ``58c846d``, the revision before chunkers read code blocks; ``--before none``
leaves it out) reads and chunks each corpus with ``evalgate_lib`` of that revision (from git, in a
subprocess) and counts its chunks the same way, code blocks found in the articles as that revision read
them. The counting is this checkout's, so both columns count alike.

    .venv/bin/python bench/chunk_shapes.py [--before 58c846d] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_long_lines import CHUNKINGS  # noqa: E402  (bench/ is this script's own folder on sys.path)
from html_reading import export_revision, run_dump  # noqa: E402

from evalgate_lib.chunks.chunk_checks import ChunkShape, chunk_shape  # noqa: E402
from evalgate_lib.chunks.chunking import Chunk  # noqa: E402
from evalgate_lib.inputs.corpus import Article  # noqa: E402

SETS = ROOT / "tests" / "data" / "html-docs"

#: Run by a revision's Python with its evalgate_lib first on the path: each folder's articles and chunk spans.
_DUMP = """
import json, logging, sys
sys.path.insert(0, sys.argv[1])
logging.disable(logging.WARNING)
from evalgate_lib.inputs.corpus import scan_corpus
from evalgate_lib.chunks.chunking import chunk_corpus
chunkings = json.loads(sys.argv[2])
out = {}
for folder in sys.argv[3:]:
    articles = list(scan_corpus(folder).articles)
    out[folder] = {
        "articles": [[a.id, a.title, a.body, a.path] for a in articles],
        "chunks": {name: [[c.article_id, c.position, c.start, c.end] for c in chunk_corpus(articles, spec)]
                   for name, spec in chunkings.items()},
    }
print(json.dumps(out))
"""


def corpora() -> dict[str, Path]:
    """The corpora measured, by name: the shipped ones, then each set of HTML pages."""
    found = {"corpus (nimbus)": ROOT / "corpus"}
    found.update({f"datasets/{p.name}": p for p in sorted((ROOT / "datasets").iterdir()) if p.is_dir()})
    found.update({f"html-docs/{p.name}": p / "corpus" for p in sorted(SETS.iterdir()) if p.is_dir()})
    return found


def shapes(code_root: Path, folders: dict[str, Path]) -> dict[tuple[str, str], ChunkShape]:
    """Per (corpus, chunker): the counts of the ``evalgate_lib`` under ``code_root``'s chunks (in a subprocess)."""
    dumped = run_dump(_DUMP, code_root, CHUNKINGS, list(folders.values()))
    out = {}
    for name, folder in folders.items():
        found = dumped[str(folder)]
        articles = [Article(*fields) for fields in found["articles"]]
        bodies = {a.id: a for a in articles}
        for chunker, spans in found["chunks"].items():
            chunks = [
                Chunk(aid, bodies[aid].title, position, start, end, bodies[aid].body[start:end])
                for aid, position, start, end in spans
            ]
            out[name, chunker] = chunk_shape(articles, chunks, CHUNKINGS[chunker])
    return out


def cells(shape: ChunkShape) -> list[str]:
    return [
        str(shape.chunks),
        str(shape.inside_code),
        f"{shape.inside_oversized} ({shape.oversized_blocks} of {shape.code_blocks} blocks)",
        str(shape.heading_only),
        str(shape.lead_only),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="58c846d", help="a git revision to count beside this checkout ('none')")
    parser.add_argument("--json", type=Path, help="also write every count here")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the chunkers' warnings of oversized blocks: counted in the table instead
    folders = corpora()
    readers = {"now": shapes(ROOT, folders)}
    if args.before != "none":
        with tempfile.TemporaryDirectory() as temp:
            readers[args.before] = shapes(export_revision(args.before, Path(temp) / "before"), folders)
    print(
        "| corpus | chunker | EvalGate | chunks | starting inside a code block | starting inside an oversized block "
        "| heading only | title-and-subtitle lead |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rows: list[dict[str, Any]] = []
    for name in folders:
        for chunker in CHUNKINGS:
            for reader, found in reversed(readers.items()):
                shape = found[name, chunker]
                print(f"| {name} | {chunker} | {reader} | " + " | ".join(cells(shape)) + " |")
                rows.append({"corpus": name, "chunker": chunker, "reader": reader, **vars(shape)})
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How HTML documentation reads: EvalGate now, EvalGate at an earlier revision, and extraction libraries, side by side.

For every real documentation set under ``tests/data/html-docs/`` (pages as Debian ships them,
each set's navigation and titles written down in its ``set.toml``) and every reader, it prints:

* **chunks starting with navigation**: chunks, under the shipped baseline's chunking (fixed
  120-word windows) and the candidate's (Markdown sections), whose first word is a word of the
  page's navigation (:func:`evalgate_lib.text.html_checks.starts_with_navigation` on the
  reading of the page with its navigation marked by ``mark_navigation``);
* **navigation words kept**: words of the page's navigation anywhere in the articles;
* **wrong titles**: articles whose title is not the page's title in ``set.toml``;
* **hidden text kept**: what the page's reader never sees, kept in the articles: icon glyphs (private-use code
  points) and lines only the page's hidden code lines hold (mdBook's ``span.boring``)
  (:func:`evalgate_lib.text.html_checks.hidden_text`);
* **orphaned inline lines**: lines that are just the text of an inline element sitting inside a
  longer line on the page (:func:`evalgate_lib.text.html_checks.orphan_lines`), over all lines;
* **browser evidence found**: the set's ``gold.jsonl`` evidence, copied from the pages as
  Chromium renders them (``scripts/html_browser_evidence.py``), found as exact substrings of
  the gold article's body, as ``evalgate gold check`` requires.

Readers: ``now`` (this checkout), ``before`` (``evalgate_lib`` of ``--before REV``, default
``ba3a88b``, read from git in a subprocess; ``--before`` repeated, each revision), ``trafilatura``
(its Markdown output and title) and ``readability`` (readability-lxml's choice of the main
content, written out by EvalGate's own HTML reading) when importable (``--extra-path DIR`` adds a
folder they were ``pip install --target``-ed into; they are not EvalGate dependencies). Every
reader's articles are chunked by this checkout's chunkers, except ``before``'s, chunked by its own.

    .venv/bin/python bench/html_reading.py [--before ba3a88b ...] [--readers now,before,trafilatura,readability]
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.text.html_checks import (  # noqa: E402
    hidden_text,
    mark_navigation,
    navigation_words,
    orphan_lines,
    starts_with_navigation,
)

SETS = ROOT / "tests" / "data" / "html-docs"
#: The shipped configs' chunkings (configs/baseline.toml, configs/candidate.toml).
CHUNKINGS = {
    "baseline": {"method": "fixed", "size": 120, "overlap": 20},
    "candidate": {"method": "markdown", "max_words": 250},
}

#: Run by a reader's own Python with its evalgate_lib first on the path: articles and chunks of each folder as JSON.
_DUMP = """
import json, sys
sys.path.insert(0, sys.argv[1])
from evalgate_lib.inputs.corpus import scan_corpus
from evalgate_lib.chunks.chunking import chunk_corpus
chunkings = json.loads(sys.argv[2])
out = {}
for folder in sys.argv[3:]:
    articles = list(scan_corpus(folder).articles)
    out[folder] = {a.id: {"title": a.title, "body": a.body, "chunks": {name: [c.text for c in chunk_corpus([a], spec)]
                   for name, spec in chunkings.items()}} for a in articles}
print(json.dumps(out))
"""


@dataclass
class Reading:
    """One reader's articles of one set, read from the pages as shipped and from the pages with navigation marked."""

    plain: dict[str, dict[str, Any]]
    marked: dict[str, dict[str, Any]]


@dataclass
class Figures:
    nav_chunks: int = 0
    chunks: int = 0
    nav_words: int = 0
    wrong_titles: list[str] = field(default_factory=list)
    titled: int = 0
    orphans: int = 0
    lines: int = 0
    hidden: int = 0
    evidence_found: int = 0
    evidence: int = 0


def page_id(name: str) -> str:
    base = name.removesuffix(".gz")
    return base.rsplit(".", 1)[0]


def read_page(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")


def write_page(path: Path, markup: str) -> None:
    data = markup.encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.name.endswith(".gz") else data)


def prepare(folder: Path, work: Path, navigation: list[str]) -> tuple[Path, Path]:
    """Copies of a set's pages as shipped, and with their navigation marked."""
    plain, marked = work / "plain", work / "marked"
    plain.mkdir(parents=True)
    marked.mkdir(parents=True)
    for page in sorted((folder / "corpus").iterdir()):
        markup = read_page(page)
        write_page(plain / page.name, markup)
        write_page(marked / page.name, mark_navigation(markup, navigation))
    return plain, marked


def export_revision(revision: str, folder: Path) -> Path:
    """``evalgate_lib`` of the git ``revision``, extracted into ``folder`` (made here); returns ``folder``."""
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision, "evalgate_lib"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def evalgate_reading(code_root: Path, plain: Path, marked: Path) -> Reading:
    """EvalGate's articles and chunks, as the ``evalgate_lib`` under ``code_root`` reads them (in a subprocess)."""
    found = run_dump(_DUMP, code_root, CHUNKINGS, [plain, marked])
    return Reading(found[str(plain)], found[str(marked)])


def run_dump(script: str, code_root: Path, chunkings: dict[str, Any], folders: list[Path]) -> Any:
    """What ``script`` prints as JSON, run by this Python with the ``evalgate_lib`` under ``code_root`` first on its
    path (its arguments: that folder, ``chunkings`` as JSON, then ``folders``)."""
    command = [sys.executable, "-c", script, str(code_root), json.dumps(chunkings), *map(str, folders)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True, cwd=code_root).stdout)


def library_reading(extract: Callable[[str], tuple[str, str]], plain: Path, marked: Path) -> Reading:
    """A library's articles (``extract(markup) -> (title, body)``), chunked by this checkout's chunkers."""
    from evalgate_lib.chunks.chunking import chunk_corpus
    from evalgate_lib.inputs.corpus import Article

    def read(folder: Path) -> dict[str, dict[str, Any]]:
        out = {}
        for page in sorted(folder.iterdir()):
            title, body = extract(read_page(page))
            article = Article(page_id(page.name), title, body or " ")
            chunks = {name: [c.text for c in chunk_corpus([article], spec)] for name, spec in CHUNKINGS.items()}
            out[article.id] = {"title": title, "body": body, "chunks": chunks}
        return out

    return Reading(read(plain), read(marked))


def trafilatura_extract(markup: str) -> tuple[str, str]:
    import trafilatura

    body = trafilatura.extract(markup, output_format="markdown", include_tables=True, include_formatting=False) or ""
    meta = trafilatura.extract_metadata(markup)
    return (meta.title if meta is not None and meta.title else ""), body


def readability_extract(markup: str) -> tuple[str, str]:
    from readability import Document

    from evalgate_lib.text.html_page import read_html_page

    document = Document(markup)
    return document.short_title(), read_html_page(document.summary()).text


def measure(folder: Path, spec: dict[str, Any], reading: Reading) -> Figures:
    figures = Figures()
    titles: dict[str, str] = spec["titles"]
    for article in reading.marked.values():
        for chunks in article["chunks"].values():
            figures.chunks += len(chunks)
            figures.nav_chunks += sum(starts_with_navigation(text) for text in chunks)
        figures.nav_words += navigation_words(article["body"])
    pages = {page_id(p.name): p for p in (folder / "corpus").iterdir()}
    for article_id, article in reading.plain.items():
        if article_id in titles:
            figures.titled += 1
            if article["title"] != titles[article_id]:
                figures.wrong_titles.append(f"{article_id}: {article['title']!r}")
        found = orphan_lines(read_page(pages[article_id]), article["body"])
        figures.hidden += hidden_text(read_page(pages[article_id]), article["body"])
        figures.orphans += len(found.lines)
        figures.lines += found.total
    for line in (folder / "gold.jsonl").read_text(encoding="utf-8").splitlines():
        question = json.loads(line)
        body = reading.plain.get(question["article"], {}).get("body", "")
        for evidence in question["evidence"]:
            figures.evidence += 1
            figures.evidence_found += evidence in body
    return figures


def percent(part: int, whole: int) -> str:
    return f"{part} / {whole} ({100 * part / whole:.0f} %)" if whole else "0 / 0"


def table_row(folder: Path, spec: dict[str, Any], reader: str, reading: Reading) -> dict[str, Any]:
    """One table row: the set, its generator, the reader's name and its figures."""
    figures = measure(folder, spec, reading)
    return {"set": folder.name, "generator": spec["generator"], "reader": reader, **vars(figures)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--before", action="append", help="a git revision whose evalgate_lib is 'before' (repeatable; ba3a88b)"
    )
    parser.add_argument("--readers", default="before,now,trafilatura,readability")
    parser.add_argument("--extra-path", action="append", default=[], help="a folder to import extractors from")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the chunkers' warnings of code blocks cut between their lines: not figures here
    revisions: list[str] = args.before or ["ba3a88b"]
    sys.path[1:1] = args.extra_path
    readers = args.readers.split(",")
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        before_roots: dict[str, Path] = {}
        if "before" in readers:
            for revision in revisions:
                before_roots[revision] = export_revision(revision, work / "before" / revision)
        library: dict[str, Callable[[str], tuple[str, str]]] = {}
        for name, extract, module in (
            ("trafilatura", trafilatura_extract, "trafilatura"),
            ("readability", readability_extract, "readability"),
        ):
            if name in readers:
                try:
                    __import__(module)
                    library[name] = extract
                except ImportError:
                    print(f"{name}: not importable here, left out (pip install --target DIR {name}; --extra-path DIR)")
        rows: list[dict[str, Any]] = []
        for folder in sorted(p for p in SETS.iterdir() if p.is_dir()):
            spec = tomllib.loads((folder / "set.toml").read_text(encoding="utf-8"))
            plain, marked = prepare(folder, work / folder.name, spec["navigation"])
            for revision, root in before_roots.items():
                rows.append(table_row(folder, spec, f"EvalGate {revision}", evalgate_reading(root, plain, marked)))
            for reader in readers:
                if reader == "now":
                    reading = evalgate_reading(ROOT, plain, marked)
                    reader = "EvalGate now"
                elif reader in library:
                    reading = library_reading(library[reader], plain, marked)
                else:
                    continue
                rows.append(table_row(folder, spec, reader, reading))
    print(
        "| set (generator) | reader | chunks starting with navigation | navigation words kept | wrong titles "
        "| hidden text kept | orphaned inline lines | browser evidence found |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['set']} ({row['generator']}) | {row['reader']} | {percent(row['nav_chunks'], row['chunks'])} "
            f"| {row['nav_words']} | {len(row['wrong_titles'])} / {row['titled']} | {row['hidden']} "
            f"| {percent(row['orphans'], row['lines'])} | {percent(row['evidence_found'], row['evidence'])} |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

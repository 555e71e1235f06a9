"""The file side of ``evalgate gold``: which corpus and gold file to check, and writing an imported gold file.

The check (:mod:`~evalgate_lib.gold_tools.gold_check`) and the mapping
(:mod:`~evalgate_lib.gold_tools.gold_import`) read no files, so they are tested on
hand-made values; everything that touches the disk for them is here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.gold_tools.gold_check import GoldCheck, body_line_offsets, check_gold
from evalgate_lib.gold_tools.gold_import import ImportResult, gold_record, import_table
from evalgate_lib.inputs.config import load_config
from evalgate_lib.inputs.corpus import CorpusScan, scan_corpus
from evalgate_lib.inputs.foreign_rows import Declines
from evalgate_lib.inputs.gold import GoldQuestion, check_articles, load_gold, parse_question
from evalgate_lib.inputs.tables import read_table


def display_path(path: Path) -> Path:
    """``path`` relative to the working directory when it lies below it (configs resolve paths to absolute ones)."""
    relative = Path(os.path.relpath(path)) if path.is_absolute() else path
    return path if relative.parts[:1] == ("..",) else relative


def gold_sources(baseline: str | Path, candidate: str | Path) -> tuple[Path, Path, str]:
    """The corpus folder, gold file and ``answer_matching`` rule of a config pair; the two must agree on all three.

    ``evalgate run`` refuses a pair that differs there too; checking one gold set
    while the run would use another would check the wrong thing.
    """
    a, b = load_config(baseline), load_config(candidate)
    for key in ("corpus", "gold", "answer_matching"):
        if getattr(a, key) != getattr(b, key):
            raise InputError(
                f"configs {a.path} and {b.path} name different [shared] {key}: "
                f"{getattr(a, key)} vs {getattr(b, key)}; both must use the same one"
            )
    return display_path(a.corpus), display_path(a.gold), a.answer_matching


def check_gold_files(corpus: str | Path, gold: str | Path) -> tuple[GoldCheck, CorpusScan]:
    """Read the corpus and the gold file (schema errors raise :class:`InputError`) and check one against the other."""
    scan = scan_corpus(corpus)
    questions = load_gold(gold)
    return check_gold(questions, scan.articles, body_line_offsets(scan.articles)), scan


def refuse_overwrite(out: Path, force: bool) -> None:
    """Refuse to replace an existing file unless ``force``: a hand-edited gold set is hours of work."""
    if out.exists() and not force:
        raise InputError(f"{out} already exists; pass --force to overwrite it")
    if out.is_dir():
        raise InputError(f"{out} is a folder; --out must name a file")


def write_gold(questions: Sequence[GoldQuestion], out: Path, article_ids: Sequence[str] | None) -> None:
    """Write a gold JSONL file, each record first validated by the very parser ``load_gold`` uses."""
    lines = []
    for question in questions:
        record = gold_record(question)
        parse_question(record, f"{out}: question {question.id}")
        lines.append(json.dumps(record, ensure_ascii=False))
    if article_ids is not None:
        check_articles(questions, article_ids, str(out))
    atomic_write(out, "\n".join(lines) + "\n")


def import_gold_file(
    source: Path, out: Path, corpus: Path | None = None, force: bool = False, declines: Declines | None = None
) -> ImportResult:
    """Import ``source`` (JSONL or CSV) into the gold file ``out``; with ``corpus``, locate contexts there.

    Refuses when not one row could be imported (nothing useful to write), naming the first reasons.
    """
    refuse_overwrite(out, force)
    table = read_table(source)
    articles = scan_corpus(corpus).articles if corpus is not None else None
    result = import_table(table, articles, declines)
    if not result.questions:
        reasons = "; ".join(f"{n.where}: {n.message}" for n in result.skipped[:3])
        raise InputError(f"{source}: no row could be imported ({reasons})")
    write_gold(result.questions, out, [a.id for a in articles] if articles is not None else None)
    return result

"""Retrieval only (``evalgate retrieve``): EvalGate's chunker and retriever over a gold file, no generation.

A team that wants its own generator judged on EvalGate's retrieval (or wants passages to log
without copying them out of the documents by hand) asks for the top-k of each gold question
under one config's ``[chunking]`` and ``[shared] top_k``, and gets an answer-log *skeleton*:
one line per question in exactly the format ``evalgate score`` reads, with the question, every
passage's text, ``doc_id``, title, cosine similarity and its span in the article, and an empty
``answer`` for the team's generator to fill in. ``score`` refuses a line whose answer is still
empty, so an unfilled skeleton can never be scored by mistake.

The chunks, the embeddings and the ranking are the ones ``evalgate run`` makes for that config
(:func:`~evalgate_lib.run.pipeline.rank_chunks`, the same model cache), so a run and a retrieval
of the same config retrieve the same passages, and share their cached embeddings.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.generation.backends import resolve_backend
from evalgate_lib.inputs.answer_logs import LoggedPassage, LoggedSpan, answer_log_line
from evalgate_lib.inputs.config import load_config
from evalgate_lib.inputs.corpus import scan_corpus
from evalgate_lib.inputs.gold import GoldQuestion, load_gold
from evalgate_lib.run.context_fit import checked_chunks
from evalgate_lib.run.parallel import model_cache
from evalgate_lib.run.pipeline import RunOptions, checked_evidence, chunk_index, rank_chunks, select_questions


@dataclass
class Skeleton:
    """An answer-log skeleton: one line per gold question (empty answers), and what made it."""

    config: str
    gold: Path
    corpus: Path
    top_k: int
    lines: list[dict[str, Any]]
    chunks: int
    articles: int
    backend: dict[str, str]
    stats: dict[str, Any] = field(default_factory=dict)
    #: Files of the corpus folder that are not documents, with the reason each was skipped.
    skipped: tuple[tuple[str, str], ...] = ()

    def jsonl(self) -> str:
        """The skeleton as JSON Lines (one object per line, keys in a fixed order, UTF-8 kept)."""
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)


def _line(question: GoldQuestion, ranking: list[Any], meta: dict[str, Any]) -> dict[str, Any]:
    passages = [
        LoggedPassage(
            r.chunk.text,
            r.chunk.article_id,
            r.chunk.title,
            round(r.similarity, 6),
            (LoggedSpan(r.chunk.start, r.chunk.end),),
        )
        for r in ranking
    ]
    return answer_log_line(question.id, question.question, "", passages, meta)


def retrieve_skeleton(
    config: str | Path,
    options: RunOptions | None = None,
    gold: str | Path | None = None,
    top_k: int | None = None,
) -> Skeleton:
    """The top-k passages of every gold question under ``config``'s chunking, as an answer-log skeleton.

    ``gold`` overrides the config's ``[shared] gold`` and ``top_k`` its ``[shared] top_k``;
    ``options`` says which backend embeds (only its embedder is used), the cache folder and
    ``limit`` (the same question slice ``evalgate run --limit`` takes). The gold file is checked
    against the corpus as a run checks it, so a gold article the corpus lacks fails here, not
    after the generator ran.
    """
    started = time.perf_counter()
    options = options or RunOptions()
    cfg = load_config(config)
    k = cfg.top_k if top_k is None else top_k
    if k < 1:
        raise InputError(f"--top-k must be at least 1, got {k}")
    gold_path = cfg.gold if gold is None else Path(gold)
    scan = scan_corpus(cfg.corpus)
    articles = list(scan.articles)
    questions = load_gold(gold_path)
    checked_evidence(questions, articles, gold_path)
    picked = select_questions(questions, options.limit)
    chunks = checked_chunks(cfg, articles)
    spec = resolve_backend(options.backend, cfg.models, options.hosts, options.timeout, options.retries)
    cache = model_cache(spec, options.cache_dir)
    before = cache.stats.as_dict()
    identity = dict(cache.identity)
    vectors = cache.embed([q.question for q in picked])
    index = chunk_index(cache, chunks)
    meta = {"retrieved_by": "evalgate retrieve", "config": cfg.name, "chunking": cfg.chunking, "top_k": k}
    lines = [_line(q, rank_chunks(index, chunks, v, k), meta) for q, v in zip(picked, vectors, strict=True)]
    after = cache.stats.as_dict()
    return Skeleton(
        cfg.name,
        gold_path,
        cfg.corpus,
        k,
        lines,
        len(chunks),
        len(articles),
        {key: identity[key] for key in ("backend", "embedder", "embedder_digest") if key in identity},
        {
            "model_calls": {key: after[key] - before[key] for key in after},
            "wall_seconds": round(time.perf_counter() - started, 3),
            "questions": len(picked),
            "questions_in_file": len(questions),
        },
        tuple(scan.skipped),
    )


def write_skeleton(skeleton: Skeleton, out: str | Path, force: bool = False) -> Path:
    """Write the skeleton to ``out`` (atomically); an existing file is kept unless ``force``.

    A filled-in log overwritten by a second ``retrieve`` would lose the team's answers.
    """
    path = Path(out)
    if path.is_dir():
        raise InputError(f"--out {path} is a folder: name the answer-log file to write (e.g. {path / 'answers.jsonl'})")
    if path.exists() and not force:
        raise InputError(f"--out {path} exists (it may hold filled-in answers): name another file, or pass --force")
    atomic_write(path, skeleton.jsonl())
    return path

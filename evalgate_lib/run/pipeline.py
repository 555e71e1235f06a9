"""Orchestration: both configurations over the same corpus, gold set and models.

corpus → chunks → retrieval → generation → scores → flags. Embedding runs in
the parent process in batches; generation, the expensive per-question work, is
spread by :mod:`evalgate_lib.run.parallel` (threads, processes, a Dask or Ray
cluster). Every model call goes through :class:`ModelCache`: results come back in
question order whatever the parallelism, so parallel and serial runs give
identical rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import joblib
import numpy as np

from evalgate_lib.chunks.chunking import Chunk, check_chunking, chunk_corpus
from evalgate_lib.errors import BackendError, InputError
from evalgate_lib.generation.backends import BackendSpec, resolve_backend
from evalgate_lib.generation.cache import ModelCache, prompt_sha256
from evalgate_lib.inputs.config import RunConfig, check_fairness, load_config
from evalgate_lib.inputs.corpus import Article, scan_corpus
from evalgate_lib.inputs.gold import GoldQuestion, check_articles, load_gold
from evalgate_lib.inputs.prompts import render_context, render_prompt
from evalgate_lib.judging.evaluation import Retrieved, score_answer
from evalgate_lib.judging.rows import ResultRow
from evalgate_lib.judging.scorers import get_scorer
from evalgate_lib.retrieval.index import VectorIndex
from evalgate_lib.retrieval.metrics import locate_evidence
from evalgate_lib.run.context_fit import check_context_fit, checked_chunks, context_limit
from evalgate_lib.run.estimate import PRIOR_SECONDS_PER_GENERATION, CallPlan, GenerationProgress, format_plan
from evalgate_lib.run.parallel import (
    check_joblib_backend,
    generate_task,
    generation_workers,
    generations_at_once,
    joblib_parallel,
    model_cache,
    usable_cores,
)

#: Rank metrics look this deep (recall@10), whatever top-k the prompt uses.
RANKING_DEPTH = 10


@dataclass
class RunOptions:
    """How to run (never *what* is measured: that is the configs' job)."""

    backend: str = "auto"
    hosts: str | None = None
    cache_dir: Path = Path("cache")
    limit: int | None = None
    #: Generations at once; ``None``: automatic (one worker process per core for the embedded
    #: generator when there are generations to make, else 1; see :func:`generation_workers`).
    jobs: int | None = None
    #: ``None``: whatever ``joblib.parallel_config(backend=...)`` is active around the call.
    joblib_backend: str | None = "threading"
    progress: bool = True
    #: Seconds one Ollama request may wait, and retries after a transient failure (``None``: the
    #: config's ``[shared.models.ollama]`` value, else the backend's default). Never in a cache key.
    timeout: float | None = None
    retries: int | None = None
    #: Where the line counting the model calls cached and to make goes before the first
    #: generation (``None``: nowhere; the command line prints it, with or without the bar).
    announce: Callable[[str], None] | None = None


@dataclass
class Inputs:
    """Everything loaded and validated before any model is called."""

    baseline: RunConfig
    candidate: RunConfig
    differences: dict[str, tuple[Any, Any]]
    articles: list[Article]
    questions: list[GoldQuestion]
    all_questions: int
    evidence: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    #: Files of the corpus folder that are not documents, with the reason each was skipped.
    skipped: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Comparison:
    """The outcome of a two-config run."""

    inputs: Inputs
    backend: dict[str, str]
    rows: list[ResultRow]
    chunk_counts: dict[str, int]
    stats: dict[str, Any] = field(default_factory=dict)


def select_questions(questions: Sequence[GoldQuestion], limit: int | None) -> list[GoldQuestion]:
    """A deterministic slice for quick runs that keeps both question types.

    Takes the first questions of each type in file order, in proportion to the
    full set (at least one no-answer question when there are any and limit >= 2).
    """
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit} (leave it out to run every gold question)")
    if limit is None or limit >= len(questions):
        return list(questions)
    no_answer = [q for q in questions if not q.answerable]
    share = round(limit * len(no_answer) / len(questions))
    n_no = min(len(no_answer), max(share, 1 if no_answer and limit >= 2 else 0))
    keep = {q.id for q in no_answer[:n_no]} | {q.id for q in [q for q in questions if q.answerable][: limit - n_no]}
    return [q for q in questions if q.id in keep]


def checked_evidence(
    questions: Sequence[GoldQuestion], articles: Sequence[Article], gold: str | Path
) -> dict[str, list[tuple[int, int]]]:
    """Check that every gold article is in the corpus, then place each question's evidence in its article.

    Both ``evalgate run`` and ``evalgate score --corpus`` need this before anything is judged:
    a gold question whose article or evidence the corpus lacks fails here, naming the gold file.
    """
    check_articles(questions, [x.id for x in articles], str(gold))
    bodies = {x.id: x.body for x in articles}
    return {
        q.id: locate_evidence(bodies[q.article], q.evidence, where=f"{gold}: question {q.id}")
        for q in questions
        if q.evidence and q.article
    }


def load_inputs(baseline: str | Path, candidate: str | Path, limit: int | None = None) -> Inputs:
    """Load both configs, enforce the fairness contract, load and cross-check corpus and gold."""
    return load_candidate_inputs(baseline, [candidate], limit)[0]


def load_candidate_inputs(
    baseline: str | Path, candidates: Sequence[str | Path], limit: int | None = None
) -> list[Inputs]:
    """One :class:`Inputs` per candidate, each paired with the baseline under the fairness contract.

    Every pair is checked on its own (only ``[chunking]`` and ``[prompt]`` may differ from the
    baseline, so the candidates share the baseline's corpus, gold set and models); the corpus and
    gold set are read once. Candidates must have distinct names: each names its pair's results.
    """
    if not candidates:
        raise InputError("no candidate config given: name at least one --candidate")
    a = load_config(baseline)
    configs = [load_config(c) for c in candidates]
    diffs = [check_fairness(a, b) for b in configs]
    seen: dict[str, Path] = {}
    for b in configs:
        if b.name in seen:
            raise InputError(
                f"candidates {seen[b.name]} and {b.path} have the same name {b.name!r}; names label the results"
            )
        seen[b.name] = b.path
    scan = scan_corpus(a.corpus)
    articles = list(scan.articles)
    questions = load_gold(a.gold)
    evidence = checked_evidence(questions, articles, a.gold)
    for config in (a, *configs):
        check_chunking(config.chunking, f"{config.path}: [chunking]", search=(config.path.parent,))
    get_scorer(a.sentence_scorer)  # an unknown scorer name fails here, before any model call
    selected = select_questions(questions, limit)
    return [
        Inputs(a, b, d, articles, selected, len(questions), evidence, list(scan.skipped))
        for b, d in zip(configs, diffs, strict=True)
    ]


@dataclass
class Prepared:
    """One configuration up to its prompts: everything before generation."""

    config: RunConfig
    chunk_count: int
    #: (question, retrieved top-k, prompt, full ranking) in gold order.
    items: list[tuple[GoldQuestion, list[Retrieved], str, list[Retrieved]]]


def chunk_index(cache: ModelCache, chunks: Sequence[Chunk]) -> VectorIndex:
    """The chunks embedded (title and text, as the retriever has always seen them) and indexed."""
    return VectorIndex(cache.embed([f"{c.title}\n{c.text}" for c in chunks]))


def rank_chunks(index: VectorIndex, chunks: Sequence[Chunk], vector: np.ndarray, depth: int) -> list[Retrieved]:
    """The ``depth`` chunks nearest to one question's vector, best first, with their cosine similarity.

    The one retrieval step: ``evalgate run`` and ``evalgate retrieve`` both rank through it.
    """
    ids, sims = index.search(vector, depth)
    return [Retrieved(rank, chunks[i], float(s)) for rank, (i, s) in enumerate(zip(ids, sims, strict=True), 1)]


def prepare_config(
    config: RunConfig,
    inputs: Inputs,
    cache: ModelCache,
    question_vectors: np.ndarray,
    chunks: list[Chunk] | None = None,
) -> Prepared:
    """Chunk (unless ``chunks`` holds the corpus already chunked), embed and retrieve for one configuration
    and render its prompts (no generation)."""
    if chunks is None:
        chunks = chunk_corpus(inputs.articles, config.chunking, search=(config.path.parent,))
    index = chunk_index(cache, chunks)
    items = []
    for question, vector in zip(inputs.questions, question_vectors, strict=True):
        ranking = rank_chunks(index, chunks, vector, max(config.top_k, RANKING_DEPTH))
        retrieved = ranking[: config.top_k]
        passages = [(r.chunk.title, r.chunk.text) for r in retrieved]
        prompt = render_prompt(config.prompt_template, render_context(passages), question.question)
        items.append((question, retrieved, prompt, ranking))
    return Prepared(config, len(chunks), items)


def generate_config(
    prepared: Prepared,
    inputs: Inputs,
    spec: BackendSpec,
    options: RunOptions,
    progress: GenerationProgress,
    workers: tuple[int, str | None],
) -> list[ResultRow]:
    """All rows of one prepared configuration, in gold order; ``workers``: (jobs, joblib backend) to generate on."""
    config = prepared.config
    cache = model_cache(spec, options.cache_dir)
    parallel = joblib_parallel(workers[1], workers[0])
    tasks = (
        joblib.delayed(generate_task)(spec, str(options.cache_dir), config.generation, p[2]) for p in prepared.items
    )
    scorer = get_scorer(config.sentence_scorer)
    rows: list[ResultRow] = []
    try:
        for (question, retrieved, prompt, ranking), (answer, executed, corrupt) in zip(
            prepared.items, parallel(tasks), strict=True
        ):
            cache.stats.add("generate", executed, corrupt)
            row = score_answer(
                config.name,
                question,
                retrieved,
                answer,
                prompt_sha256(prompt),
                scorer=scorer,
                ranking=ranking,
                evidence_spans=inputs.evidence.get(question.id),
                matching=config.answer_matching,
            )
            rows.append(row)
            if executed:
                progress.made_one()
    except BackendError as exc:
        # Where the run stopped; every answer generated before this is already in the cache.
        exc.add_note(f"config {config.name!r} stopped after {len(rows)} of {len(prepared.items)} answers")
        raise
    return rows


def plan_calls(cache: ModelCache, prepared: Sequence[Prepared], embed_made: int, embed_cached: int) -> CallPlan:
    """Count the generations of every prepared configuration, and how many the cache already holds.

    A prompt two configurations share (the same options and text) is one generation: the first
    makes it and the second reads it from the cache.
    """
    prompts = list(dict.fromkeys((p.config.generation, item[2]) for p in prepared for item in p.items))
    cached = sum(cache.is_generation_cached(prompt, generation) for generation, prompt in prompts)
    return CallPlan(len(prompts), cached, embed_made + embed_cached, embed_cached)


def run_configs(baseline: str | Path, candidate: str | Path, options: RunOptions) -> Comparison:
    """Run both configurations and return every row (baseline rows first).

    Internal: the public door is :func:`evalgate_lib.run_comparison`, which also writes and verifies the folder.
    """
    return run_candidates(baseline, [candidate], options)[0]


def run_candidates(baseline: str | Path, candidates: Sequence[str | Path], options: RunOptions) -> list[Comparison]:
    """Run the baseline once and every candidate, and return one :class:`Comparison` per candidate.

    The baseline is chunked, embedded, retrieved and generated once, whatever the number of
    candidates: its rows are shared by every pair, and the call plan counts its prompts once.
    (A candidate whose prompt for a question equals another config's is served by the cache.)
    Every pair's rows are what a two-config run of that pair gives, byte for byte.

    Internal: the public doors are :func:`evalgate_lib.run_comparison` and :func:`evalgate_lib.run_candidates`.
    """
    started = time.perf_counter()
    pairs = load_candidate_inputs(baseline, candidates, options.limit)
    first = pairs[0]
    configs = [first.baseline, *(p.candidate for p in pairs)]
    check_joblib_backend(options.joblib_backend)
    spec = resolve_backend(
        options.backend, first.baseline.models, options.hosts, options.timeout, options.retries
    )
    # Chunk every config and check that its longest prompt fits the context, before any model call.
    chunks = {config.name: checked_chunks(config, first.articles) for config in configs}
    limit, limit_name = context_limit(spec, first.baseline.generation.num_ctx)
    for config in configs:
        check_context_fit(config, chunks[config.name], first.questions, limit, limit_name)
    cache = model_cache(spec, options.cache_dir)
    before = cache.stats.as_dict()
    identity = dict(cache.identity)
    question_vectors = cache.embed([q.question for q in first.questions])
    prepared = [prepare_config(c, first, cache, question_vectors, chunks[c.name]) for c in configs]
    embedded = cache.stats.as_dict()  # only embeddings so far: their hits are the cached batches
    plan = plan_calls(
        cache, prepared, embedded["embed_calls"] - before["embed_calls"], embedded["hits"] - before["hits"]
    )
    in_process = getattr(cache.backend, "generates_in_process", False)
    jobs, joblib_backend = generation_workers(
        in_process, options.jobs, options.joblib_backend, plan.to_make, usable_cores()
    )
    at_once = generations_at_once(in_process, jobs, joblib_backend)
    if in_process and at_once > 1 and plan.to_make:
        # Build (or verify) the kept ONNX model once, here, so that the worker processes only load it.
        cache.backend.prepare_generation()
    prior = PRIOR_SECONDS_PER_GENERATION.get(spec.kind)
    if options.announce is not None:
        options.announce(format_plan(plan, prior, at_once))
    progress = GenerationProgress(plan.to_make, None if prior is None else prior / at_once, options.progress)
    rows: list[list[ResultRow]] = []
    try:
        for one in prepared:
            rows.append(generate_config(one, first, spec, options, progress, (jobs, joblib_backend)))
    finally:
        progress.close()
    after = cache.stats.as_dict()
    stats: dict[str, Any] = {
        "model_calls": {k: after[k] - before[k] for k in after},
        "planned_calls": plan.as_dict(),
        "wall_seconds": round(time.perf_counter() - started, 3),
        "jobs": jobs,
        "joblib_backend": joblib_backend,
    }
    if len(pairs) > 1:  # the calls are the whole run's, shared by every pair
        stats["candidates"] = [p.candidate.name for p in pairs]
    if spec.kind == "ollama":  # how long a request could wait: how the run ran, not what it measured
        backend = cache.backend
        stats["ollama"] = {
            "timeout": getattr(backend, "read_timeout", None),
            "retries": getattr(backend, "max_retries", None),
        }
    counts = {p.config.name: p.chunk_count for p in prepared}
    base = first.baseline.name
    return [
        Comparison(
            pair,
            identity,
            rows[0] + rows[i],
            {base: counts[base], pair.candidate.name: counts[pair.candidate.name]},
            stats,
        )
        for i, pair in enumerate(pairs, start=1)
    ]

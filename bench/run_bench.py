"""EvalGate benchmark: cache speed-up, scoring throughput, retrieval latency, harness overhead, concurrency.

Run from the repository root (not part of the test suite)::

    .venv/bin/python bench/run_bench.py                # full gold set on the embedded backend
    .venv/bin/python bench/run_bench.py --limit 10     # a quicker slice

Every figure is a ratio or a rate measured within this one run, so it compares
like with like on whatever machine runs it. It prints a table (figure, value,
goal, pass/fail) and writes the same table as JSON to ``bench/out/bench.json``.
See bench/README.md for what each figure measures.

Throughput against Ollama-like servers over real HTTP (answers/s for --jobs 1, 2, 4, 8 and
two hosts, against the ideal jobs / delay) is measured by bench/bench_throughput.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # the fake Ollama server lives with the tests

import numpy as np  # noqa: E402

from evalgate_lib.generation.backends import resolve_backend  # noqa: E402
from evalgate_lib.inputs.config import load_config  # noqa: E402
from evalgate_lib.retrieval.index import VectorIndex  # noqa: E402
from evalgate_lib.run import pipeline  # noqa: E402
from evalgate_lib.run.pipeline import RANKING_DEPTH, RunOptions  # noqa: E402
from evalgate_lib.run.results import PUBLISHED_FILES, evaluate_and_write  # noqa: E402
from evalgate_lib.text.tokens import content_tokens  # noqa: E402

BASELINE = ROOT / "configs" / "baseline.toml"
CANDIDATE = ROOT / "configs" / "candidate.toml"

# Goals from issue 5.
GOAL_CACHE_SPEEDUP = 50.0
GOAL_SCORING_RATE = 10_000.0
GOAL_RETRIEVAL_MS = 50.0
GOAL_OVERHEAD = 0.05


# ----------------------------------------------------------------------------- helpers


class ModelTimer:
    """Wall time spent inside a backend's ``embed`` and ``generate`` (model loading included)."""

    def __init__(self) -> None:
        self.seconds = {"embed": 0.0, "generate": 0.0}
        self.calls = {"embed": 0, "generate": 0}
        self._lock = threading.Lock()

    def wrap(self, kind: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds[kind] += time.perf_counter() - start
                    self.calls[kind] += 1

        return timed

    @property
    def total(self) -> float:
        return sum(self.seconds.values())


def instrument(backend: Any) -> ModelTimer:
    """Time every model call of ``backend`` (the per-process instance the pipeline will use)."""
    timer = ModelTimer()
    backend.embed = timer.wrap("embed", backend.embed)
    backend.generate = timer.wrap("generate", backend.generate)
    return timer


@contextmanager
def recording_scores(calls: list[tuple[tuple, dict]]) -> Iterator[None]:
    """Record every ``score_answer`` call the pipeline makes, to replay them without a model."""
    original = pipeline.score_answer

    def record(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    pipeline.score_answer = record
    try:
        yield
    finally:
        pipeline.score_answer = original


def full_run(options: RunOptions, out: Path) -> tuple[float, dict[str, Any]]:
    """What ``evalgate run`` does (run both configs, summarise, write the folder); returns (seconds, stats)."""
    start = time.perf_counter()
    comparison, _, _ = evaluate_and_write(BASELINE, CANDIDATE, options, out)
    return time.perf_counter() - start, comparison.stats


def identical(a: Path, b: Path) -> bool:
    return all((a / name).read_bytes() == (b / name).read_bytes() for name in PUBLISHED_FILES)


def clear_scoring_memos() -> None:
    """Forget the scorers' per-process memos (tokens per context and line, refusal verdicts, span candidates)."""
    from evalgate_lib.judging import scoring, span_support
    from evalgate_lib.text import tokens as text

    memos = (content_tokens, getattr(text, "_line_content_tokens", None), text.sentences_of, scoring.is_refusal)
    spans = (span_support.words_of, span_support.exact_tokens, span_support.passage_spans)
    for memo in memos + spans:
        if hasattr(memo, "cache_clear"):
            memo.cache_clear()


def fresh_process_state() -> None:
    """Forget per-process memoisation so a second run reads everything from the cache folder."""
    pipeline._caches.clear()
    clear_scoring_memos()


def figure(name: str, value: float, unit: str, goal: str, ok: bool | None, note: str = "") -> dict[str, Any]:
    return {"figure": name, "value": value, "unit": unit, "goal": goal, "pass": ok, "note": note}


# ------------------------------------------------------------------------------ sections


def bench_cache(limit: int | None, work: Path) -> tuple[list[dict[str, Any]], list[tuple[tuple, dict]]]:
    """Cold vs cached two-config run on the embedded backend, plus the harness overhead of the cold run."""
    models = load_config(BASELINE).models
    spec = resolve_backend("local", models)
    timer = instrument(spec.build())
    cache = work / "cache"
    options = RunOptions(backend="local", cache_dir=cache, limit=limit, progress=False)
    calls: list[tuple[tuple, dict]] = []
    print(f"cold run (fresh cache {cache}) ...", flush=True)
    with recording_scores(calls):
        cold_s, cold_stats = full_run(options, work / "cold")
    model_s = timer.total
    print(f"  {cold_s:.1f} s, {model_s:.1f} s of it inside model calls: {cold_stats['model_calls']}", flush=True)

    fresh_process_state()
    warm_timer_calls = dict(timer.calls)
    cached_s, cached_stats = full_run(options, work / "cached")
    assert timer.calls == warm_timer_calls, "the cached run called a model"
    print(f"cached run: {cached_s:.2f} s: {cached_stats['model_calls']}", flush=True)

    # The same cached run as a user types it: a fresh interpreter, imports included.
    cmd = [
        sys.executable,
        "-m",
        "evalgate_lib.cli",
        "run",
        "--backend",
        "local",
        "--cache-dir",
        str(cache),
        "--out",
        str(work / "cli"),
        "--no-progress",
        "--baseline",
        str(BASELINE),
        "--candidate",
        str(CANDIDATE),
    ]
    if limit is not None:
        cmd += ["--limit", str(limit)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    cli_s = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"cached CLI run failed:\n{proc.stderr}")
    print(f"cached run, fresh `evalgate run` process: {cli_s:.2f} s", flush=True)

    same = identical(work / "cold", work / "cached") and identical(work / "cold", work / "cli")
    zero = all(cached_stats["model_calls"][k] == 0 for k in ("embed_calls", "generate_calls"))
    speedup = cold_s / cached_s
    overhead = (cold_s - model_s) / cold_s
    questions = limit or "all"
    return [
        figure(
            "cold two-config run",
            round(cold_s, 2),
            "s",
            "",
            None,
            f"{questions} questions x 2 configs, {cold_stats['model_calls']['generate_calls']} generations",
        ),
        figure(
            "cached two-config run (in process)",
            round(cached_s, 3),
            "s",
            "",
            None,
            "0 model calls" if zero else "MODEL CALLED",
        ),
        figure(
            "cache speed-up (cold / cached)",
            round(speedup, 1),
            "x",
            f">= {GOAL_CACHE_SPEEDUP:.0f}x",
            speedup >= GOAL_CACHE_SPEEDUP and zero,
        ),
        figure(
            "cache speed-up, cached run as a fresh CLI process",
            round(cold_s / cli_s, 1),
            "x",
            f">= {GOAL_CACHE_SPEEDUP:.0f}x",
            cold_s / cli_s >= GOAL_CACHE_SPEEDUP,
            f"{cli_s:.2f} s incl. interpreter start and imports",
        ),
        figure(
            "cached results byte-identical to cold", int(same), "bool", "identical", same, ", ".join(PUBLISHED_FILES)
        ),
        figure(
            "harness overhead share of the cold run",
            round(100 * overhead, 2),
            "%",
            f"< {100 * GOAL_OVERHEAD:.0f}%",
            overhead < GOAL_OVERHEAD,
            f"(wall {cold_s:.1f} s - model {model_s:.1f} s) / wall",
        ),
    ], calls


def bench_scoring(calls: list[tuple[tuple, dict]], seconds: float) -> list[dict[str, Any]]:
    """Answers scored per second on one core, replaying the run's own ``score_answer`` calls."""
    from evalgate_lib.judging.evaluation import score_answer

    if not calls:
        return []

    def rate(clear: bool) -> float:
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            if clear:
                clear_scoring_memos()
            for args, kwargs in calls:
                score_answer(*args, **kwargs)
            done += len(calls)
        return done / (time.perf_counter() - start)

    rate(clear=True)  # warm the interpreter (regex compilation, allocator)
    cold = rate(clear=True)
    warm = rate(clear=False)
    return [
        figure(
            "scoring throughput (fresh process)",
            round(cold),
            "answers/s",
            f">= {GOAL_SCORING_RATE:,.0f}/s",
            cold >= GOAL_SCORING_RATE,
            f"the run's {len(calls)} real score_answer calls replayed on one core, memos cleared before each "
            "pass: the figure a run sees",
        ),
        figure(
            "scoring throughput (memos warm)",
            round(warm),
            "answers/s",
            "",
            None,
            "same rows again, every context already tokenised",
        ),
    ]


def _search_latencies(index: VectorIndex, queries: np.ndarray, k: int) -> list[float]:
    for q in queries[:5]:
        index.search(q, k)
    times = []
    for q in queries:
        start = time.perf_counter()
        index.search(q, k)
        times.append(time.perf_counter() - start)
    return sorted(times)


def bench_retrieval(queries: int, dim: int = 384, k: int = RANKING_DEPTH) -> list[dict[str, Any]]:
    """Median search latency per query over random float32 embeddings, as the pipeline searches (top 10).

    Measured with numpy's default BLAS threading, and again with BLAS held to one
    thread (threadpoolctl, when installed): on small machines a multi-threaded
    matrix-vector product can be slower than a single-threaded one.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    rng = np.random.default_rng(0)
    out = []
    for n in (1_000, 10_000, 100_000):
        index = VectorIndex(rng.standard_normal((n, dim), dtype=np.float32))
        qs = rng.standard_normal((queries, dim), dtype=np.float32)
        times = _search_latencies(index, qs, k)
        single = None
        if threadpool_limits is not None:
            with threadpool_limits(limits=1, user_api="blas"):
                single = _search_latencies(index, qs, k)
        median_ms = 1000 * statistics.median(times)
        note = f"p95 {1000 * times[int(0.95 * len(times)) - 1]:.3f} ms"
        if single is not None:
            note += f"; with 1 BLAS thread: median {1000 * statistics.median(single):.3f} ms"
        note += f"; top-{k} of {dim}-d float32, {queries} queries"
        goal = f"< {GOAL_RETRIEVAL_MS:.0f} ms" if n == 100_000 else ""
        ok = median_ms < GOAL_RETRIEVAL_MS if n == 100_000 else None
        out.append(figure(f"retrieval latency, {n:,} chunks", round(median_ms, 3), "ms/query (median)", goal, ok, note))
    return out


def bench_server(limit: int, delay: float, jobs: int, work: Path) -> list[dict[str, Any]]:
    """Concurrent generation against a simulated Ollama server (fixed latency per request)."""
    from fake_ollama import FakeOllama, serving

    times, folders, embeds = {}, {}, {}
    for n in (1, jobs):
        srv = FakeOllama(delay=delay)
        with serving(srv):
            options = RunOptions(
                backend="ollama",
                hosts="bench-a.test,bench-b.test",
                cache_dir=work / f"srv{n}",
                limit=limit,
                jobs=n,
                progress=False,
            )
            times[n], _ = full_run(options, work / f"srv{n}-out")
        folders[n] = work / f"srv{n}-out"
        counts = srv.counts()
        embeds[n] = counts["/api/embed"]
    same = identical(folders[1], folders[jobs])
    speedup = times[1] / times[jobs]
    generations = 2 * limit
    return [
        figure(
            f"generation concurrency: --jobs {jobs} vs --jobs 1",
            round(speedup, 2),
            "x",
            "identical rows",
            same,
            f"simulated server, {1000 * delay:.0f} ms/request, {generations} generations: "
            f"{times[1]:.2f} s vs {times[jobs]:.2f} s; rows identical: {same}",
        ),
        figure(
            "embedding requests (batched)",
            embeds[1],
            "requests",
            "",
            None,
            f"all question and chunk texts of both configs in {embeds[1]} /api/embed requests",
        ),
    ]


# ---------------------------------------------------------------------------------- main


def print_table(rows: list[dict[str, Any]]) -> None:
    header = ("figure", "value", "unit", "goal", "pass")
    cells = [header] + [
        (
            r["figure"],
            f"{r['value']:,}" if isinstance(r["value"], (int, float)) else str(r["value"]),
            r["unit"],
            r["goal"],
            "" if r["pass"] is None else ("PASS" if r["pass"] else "FAIL"),
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    for n, c in enumerate(cells):
        line = [x.rjust(w) if i == 1 else x.ljust(w) for i, (x, w) in enumerate(zip(c, widths, strict=True))]
        print("  ".join(line).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for r in rows:
        if r["note"]:
            print(f"  * {r['figure']}: {r['note']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="gold questions for the model run (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "bench.json")
    parser.add_argument("--queries", type=int, default=300, help="retrieval queries per index size")
    parser.add_argument("--scoring-seconds", type=float, default=3.0)
    parser.add_argument("--server-delay", type=float, default=0.05, help="simulated seconds per server request")
    parser.add_argument("--jobs", type=int, default=4, help="concurrent requests for the server figure")
    parser.add_argument("--server-limit", type=int, default=40, help="gold questions for the server figure")
    parser.add_argument(
        "--skip-model-run",
        action="store_true",
        help="skip the embedded-backend run (no cache, scoring or overhead figures)",
    )
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="evalgate-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_model_run:
            cache_rows, calls = bench_cache(args.limit, work)
            rows += cache_rows
            rows += bench_scoring(calls, args.scoring_seconds)
        print("retrieval ...", flush=True)
        rows += bench_retrieval(args.queries)
        print("simulated server ...", flush=True)
        rows += bench_server(args.server_limit, args.server_delay, args.jobs, work)
    print()
    print_table(rows)
    report = {
        "figures": rows,
        "environment": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "numpy": np.__version__,
            "limit": args.limit,
            "bench_seconds": round(time.perf_counter() - started, 1),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {args.out}")
    return 0 if all(r["pass"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

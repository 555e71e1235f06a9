"""Generation throughput against Ollama-like servers with a fixed latency, over real HTTP on loopback.

Run from the repository root (not part of the test suite; about a minute on 2 cores)::

    .venv/bin/python bench/bench_throughput.py                  # 0.2 s per request, 40 questions
    .venv/bin/python bench/bench_throughput.py --dask           # also --jobs 8 on a local Dask cluster

Each server is ``python -m tests.fake_ollama_server --delay D --parallel P`` in its own
process on 127.0.0.1: every model request takes D seconds and at most P run at once per
server (Ollama's ``OLLAMA_NUM_PARALLEL``). For ``--jobs`` 1, 2, 4 and 8 on one server, and
for 8 jobs spread over two servers, it times a two-config run whose embeddings are already
cached, so the figure is generation alone (plus scoring and writing the results): answers/s
= generations / wall seconds. The ideal is ``min(jobs, P x hosts) / D``: every request slot
busy all the time. Two runs against a server with no delay (``--jobs`` 1 and 8) show the
harness's own cost per answer (HTTP round trip, cache write, scoring, writing the folder),
which is what keeps the delayed runs below the ideal. Every run's published files are
compared with the first run's.
Writes the table as JSON to ``bench/out/throughput.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import evalgate_lib as eg  # noqa: E402
from evalgate_lib.generation.store import LAYOUT  # noqa: E402
from evalgate_lib.run import parallel  # noqa: E402
from evalgate_lib.run.pipeline import RunOptions  # noqa: E402
from evalgate_lib.run.results import PUBLISHED_FILES  # noqa: E402

BASELINE = ROOT / "configs" / "baseline.toml"
CANDIDATE = ROOT / "configs" / "candidate.toml"


@contextmanager
def fake_server(work: Path, name: str, delay: float, parallel: int) -> Iterator[str]:
    """One ``tests.fake_ollama_server`` process on a free loopback port; yields its URL, always stops it."""
    port_file = work / f"{name}.port"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fake_ollama_server",
            "--port",
            "0",
            "--port-file",
            str(port_file),
            "--delay",
            str(delay),
            "--parallel",
            str(parallel),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"fake server {name} did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{int(port_file.read_text())}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def generation_run(
    hosts: str, jobs: int, limit: int, warm: Path, work: Path, backend: str, label: str = ""
) -> tuple[float, Path]:
    """Time one two-config run on a copy of ``warm`` (embeddings cached, no answers); returns (seconds, out)."""
    label = label or f"{backend}-j{jobs}-h{hosts.count(',') + 1}"
    cache, out = work / f"cache-{label}", work / f"out-{label}"
    shutil.copytree(warm, cache)
    parallel._caches.clear()  # nothing answered from this process's memory
    options = RunOptions(
        backend="ollama", hosts=hosts, cache_dir=cache, limit=limit, jobs=jobs, joblib_backend=backend, progress=False
    )
    start = time.perf_counter()
    results = eg.run_comparison(BASELINE, CANDIDATE, options, out)
    seconds = time.perf_counter() - start
    calls = results.run_stats["model_calls"]
    if calls["embed_calls"] or calls["generate_calls"] != 2 * limit:
        raise SystemExit(f"{label}: expected only {2 * limit} generations, got {calls}")
    return seconds, out


def warm_embeddings(hosts: str, limit: int, work: Path) -> Path:
    """A cache holding every embedding of the run and no answer (answers removed after a fast run)."""
    cache = work / "warm"
    parallel._caches.clear()
    options = RunOptions(backend="ollama", hosts=hosts, cache_dir=cache, limit=limit, jobs=8, progress=False)
    eg.run_comparison(BASELINE, CANDIDATE, options, work / "warm-out")
    shutil.rmtree(cache / LAYOUT / "generate")
    return cache


def same(a: Path, b: Path) -> bool:
    return all((a / f).read_bytes() == (b / f).read_bytes() for f in PUBLISHED_FILES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per model request (default 0.2)")
    parser.add_argument("--parallel", type=int, default=4, help="requests each server runs at once (default 4)")
    parser.add_argument("--limit", type=int, default=40, help="gold questions; 2 x limit generations per run")
    parser.add_argument("--dask", action="store_true", help="also run --jobs 8 on a local Dask cluster (2 workers)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "throughput.json")
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    answers = 2 * args.limit
    with tempfile.TemporaryDirectory(prefix="evalgate-throughput-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        a = stack.enter_context(fake_server(work, "a", args.delay, args.parallel))
        b = stack.enter_context(fake_server(work, "b", args.delay, args.parallel))
        instant = stack.enter_context(fake_server(work, "instant", 0.0, args.parallel))
        warm = warm_embeddings(a, args.limit, work)
        plan = [(instant, 1, "threading", 0.0), (instant, 8, "threading", 0.0)]
        plan += [(a, jobs, "threading", args.delay) for jobs in (1, 2, 4, 8)]
        plan.append((f"{a},{b}", 8, "threading", args.delay))
        if args.dask:
            from distributed import Client, LocalCluster

            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=2, threads_per_worker=4, processes=True, host="127.0.0.1", dashboard_address=None
                )
            )
            stack.enter_context(Client(cluster))
            plan.append((f"{a},{b}", 8, "dask", args.delay))
        reference: Path | None = None
        for hosts, jobs, backend, delay in plan:
            label = f"{backend}-j{jobs}-h{hosts.count(',') + 1}-d{delay}"
            seconds, out = generation_run(hosts, jobs, args.limit, warm, work, backend, label)
            reference = reference or out
            n_hosts = hosts.count(",") + 1
            rate = answers / seconds
            ideal = min(jobs, args.parallel * n_hosts) / delay if delay else None
            row = {
                "joblib_backend": backend,
                "delay_s": delay,
                "jobs": jobs,
                "hosts": n_hosts,
                "answers": answers,
                "seconds": round(seconds, 2),
                "answers_per_s": round(rate, 2),
                "ideal_per_s": round(ideal, 2) if ideal else None,
                "of_ideal_pct": round(100 * rate / ideal, 1) if ideal else None,
                "identical": same(reference, out),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)

    header = ("backend", "delay s", "jobs", "hosts", "answers", "seconds", "answers/s", "ideal/s", "% of ideal", "same")
    keys = (
        "joblib_backend",
        "delay_s",
        "jobs",
        "hosts",
        "answers",
        "seconds",
        "answers_per_s",
        "ideal_per_s",
        "of_ideal_pct",
        "identical",
    )
    table = [header] + [tuple("-" if r[k] is None else str(r[k]) for k in keys) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    print()
    print(
        f"fake Ollama over HTTP on 127.0.0.1, {args.parallel} requests at once per server, "
        f"{args.limit} questions x 2 configs, embeddings cached"
    )
    for n, line in enumerate(table):
        print("  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True)))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    report = {
        "rows": rows,
        "delay_s": args.delay,
        "parallel_per_server": args.parallel,
        "limit": args.limit,
        "environment": {"python": platform.python_version(), "cpus": os.cpu_count(), "machine": platform.machine()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {args.out}")
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""How many generations run at once: one worker process per core for the embedded generator, else one.

The embedded generator decodes one sequence on about one core and serves one request per
process, so a run uses the cores with ``loky`` worker processes; a server or a cluster keeps
``--jobs`` as given. The choice is a pure function (hand cases below); the real run at the end
checks that two worker processes give the shipped answers, byte for byte.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import ALL_CPUS, ROOT, CountingBackend, evalgate_cli

from evalgate_lib.generation import backends
from evalgate_lib.run import parallel, pipeline
from evalgate_lib.run.estimate import CallPlan, format_plan
from evalgate_lib.run.parallel import generation_workers, generations_at_once
from evalgate_lib.run.results import load_rows


@pytest.mark.parametrize(
    ("in_process", "jobs", "backend", "to_make", "cores", "expected"),
    [
        (True, None, "threading", 202, 2, (2, "loky")),  # the main command on 2 cores
        (True, None, "threading", 202, 8, (8, "loky")),
        (True, None, "threading", 3, 8, (3, "loky")),  # never more workers than generations
        (True, None, "threading", 1, 2, (1, "threading")),  # one generation: no pool to start
        (True, None, "threading", 0, 2, (1, "threading")),  # a warm cache: nothing to generate
        (True, None, "threading", 202, 1, (1, "threading")),  # one core
        (True, None, "dask", 202, 2, (1, "dask")),  # a cluster: --jobs says how many
        (True, None, None, 202, 2, (1, None)),  # the caller's parallel_config decides
        (False, None, "threading", 202, 2, (1, "threading")),  # Ollama: one request at a time
        (True, 4, "threading", 202, 2, (4, "threading")),  # --jobs given: as given
        (False, 4, "loky", 202, 2, (4, "loky")),
    ],
)
def test_the_automatic_worker_count(in_process, jobs, backend, to_make, cores, expected):
    assert generation_workers(in_process, jobs, backend, to_make, cores) == expected


@pytest.mark.parametrize(
    ("in_process", "jobs", "backend", "expected"),
    [
        (True, 2, "loky", 2),
        (True, 2, "multiprocessing", 2),
        (True, 4, "threading", 1),  # one model per process: threads wait for its lock
        (False, 4, "threading", 4),  # a server takes four requests at once
        (False, 1, "threading", 1),
    ],
)
def test_generations_at_once(in_process, jobs, backend, expected):
    assert generations_at_once(in_process, jobs, backend) == expected


def test_the_plan_line_divides_by_the_generations_at_once():
    plan = CallPlan(generations=202, generations_cached=0, embed_batches=7, embed_batches_cached=0)
    # 202 x 4 s / 2 = 404 s
    assert format_plan(plan, 4.0, 2) == (
        "model calls: 202 generations (0 cached, 202 to make) + 7 embedding batches (0 cached, 7 made); "
        "estimated 6 min 44 s at ~4 s per generation, 2 at once, on this backend"
    )
    assert format_plan(plan, 4.0, 1).endswith("estimated 13 min 28 s at ~4 s per generation on this backend")


def test_a_backend_that_does_not_say_it_runs_in_process_gets_one_worker(tmp_path, monkeypatch):
    backend = CountingBackend()
    monkeypatch.setattr(backends, "_built", {})
    monkeypatch.setattr(parallel, "_caches", {})
    monkeypatch.setattr(backends.BackendSpec, "_construct", lambda spec: backend)
    options = pipeline.RunOptions(backend="local", cache_dir=tmp_path, limit=2, progress=False)
    comparison = pipeline.run_configs(ROOT / "configs" / "baseline.toml", ROOT / "configs" / "candidate.toml", options)
    assert (comparison.stats["jobs"], comparison.stats["joblib_backend"]) == (1, "threading")
    assert backend.calls["generate"] == 4


def _shipped_answers(config: str) -> dict[str, str]:
    lines = (ROOT / "labels" / "demo" / "nimbus-answers" / f"{config}.jsonl").read_text(encoding="utf-8").splitlines()
    return {entry["question_id"]: entry["answer"] for entry in map(json.loads, lines)}


@pytest.mark.slow
@pytest.mark.skipif(len(ALL_CPUS) < 2, reason="needs two cores to start two worker processes")
def test_two_worker_processes_give_the_shipped_answers(tmp_path):
    # The run gets every core back (a pytest-xdist worker holds only its share), so the default applies.
    own = os.sched_getaffinity(0)
    os.sched_setaffinity(0, ALL_CPUS)
    try:
        proc = evalgate_cli(
            "run", "--backend", "local", "--limit", "3", "--cache-dir", tmp_path / "cache", "--out", tmp_path / "out",
            "--no-progress",
        )
    finally:
        os.sched_setaffinity(0, own)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = json.loads((tmp_path / "out" / "run_stats.json").read_text(encoding="utf-8"))
    workers = min(len(ALL_CPUS), 6)
    assert (stats["jobs"], stats["joblib_backend"]) == (workers, "loky")
    assert stats["model_calls"]["generate_calls"] == 6
    assert f"{workers} at once" in proc.stdout + proc.stderr
    rows = load_rows(tmp_path / "out")
    shipped = {config: _shipped_answers(config) for config in ("baseline", "candidate")}
    assert len(rows) == 6
    for row in rows:
        assert row.answer == shipped[row.config][row.question_id], (row.config, row.question_id)

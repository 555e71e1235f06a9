"""What a run says it will cost before its first generation, and the arithmetic of its estimate.

The count is checked against a counting fake backend and a half-warm cache: the line must
say exactly how many generations the run then really makes. The estimate is a pure function,
checked with hand-computed values. Nothing here depends on timing.
"""

from __future__ import annotations

import math

import pytest
from conftest import CountingBackend
from fake_ollama import ROOT, FakeOllama, evalgate_run, published, serving

from evalgate_lib.generation import backends
from evalgate_lib.run import parallel, pipeline
from evalgate_lib.run.estimate import (
    CallPlan,
    format_duration,
    format_plan,
    format_rate,
    seconds_per_call,
    time_left,
)

CONFIGS = ROOT / "configs"

# ------------------------------------------------------------------ arithmetic


def test_the_prior_counts_as_three_measured_calls():
    assert seconds_per_call(4.0, 0, 0.0) == 4.0  # nothing measured: the prior
    assert seconds_per_call(4.0, 3, 18.0) == 5.0  # (4*3 + 18) / (3 + 3)
    assert seconds_per_call(4.0, 9, 9.0) == 1.75  # (12 + 9) / 12: the measured rate takes over
    assert seconds_per_call(4.0, 1, 60.0) == 18.0  # one slow first call (loading) moves it, within reason: 72/4


def test_without_a_prior_the_estimate_waits_for_three_calls():
    assert seconds_per_call(None, 0, 0.0) is None
    assert seconds_per_call(None, 2, 10.0) is None
    assert seconds_per_call(None, 3, 10.5) == 3.5
    assert seconds_per_call(None, 4, 10.0) == 2.5


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0 s"), (45.4, "45 s"), (59.6, "1 min 0 s"), (208, "3 min 28 s"), (3599, "59 min 59 s"), (3725, "1 h 2 min")],
)
def test_durations(seconds, text):
    assert format_duration(seconds) == text


def test_rates_and_time_left():
    assert [format_rate(x) for x in (4.0, 4.26, 0.274, 12.4)] == ["4", "4.3", "0.27", "12"]
    assert time_left(4.0, 52) == "about 3 min 28 s left"
    assert time_left(None, 52) == "estimate after the first 3 calls"


def test_the_plan_line():
    plan = CallPlan(generations=202, generations_cached=150, embed_batches=14, embed_batches_cached=14)
    assert plan.to_make == 52
    assert format_plan(plan, 4.0) == (
        "model calls: 202 generations (150 cached, 52 to make) + 14 embedding batches (14 cached); "
        "estimated 3 min 28 s at ~4 s per generation on this backend"
    )
    assert format_plan(plan, None) == (
        "model calls: 202 generations (150 cached, 52 to make) + 14 embedding batches (14 cached); "
        "estimate after the first 3 calls"
    )
    cold = CallPlan(generations=8, generations_cached=0, embed_batches=6, embed_batches_cached=2)
    assert format_plan(cold, 4.3) == (
        "model calls: 8 generations (0 cached, 8 to make) + 6 embedding batches (2 cached, 4 made); "
        "estimated 34 s at ~4.3 s per generation on this backend"
    )
    warm = CallPlan(generations=8, generations_cached=8, embed_batches=6, embed_batches_cached=6)
    assert format_plan(warm, 4.0).endswith("+ 6 embedding batches (6 cached); nothing to generate")


# ---------------------------------------------------- a half-warm cache, counted


@pytest.fixture
def counted(monkeypatch):
    """``--backend local`` served by a :class:`CountingBackend`, so the local prior applies and calls are counted."""
    backend = CountingBackend()
    monkeypatch.setattr(backends, "_built", {})
    monkeypatch.setattr(parallel, "_caches", {})
    monkeypatch.setattr(backends.BackendSpec, "_construct", lambda spec: backend)
    return backend


def run(cache, limit, announce, progress=False):
    options = pipeline.RunOptions(backend="local", cache_dir=cache, limit=limit, announce=announce, progress=progress)
    return pipeline.run_configs(CONFIGS / "baseline.toml", CONFIGS / "candidate.toml", options)


def test_a_half_warm_cache_is_counted_before_the_first_generation(tmp_path, counted):
    said: list[str] = []
    run(tmp_path, 2, said.append)  # questions 1 answerable + 1 no-answer: 4 generations cached
    counted.calls.clear()

    calls_when_announced: list[int] = []
    comparison = run(
        tmp_path, 4, lambda line: (said.append(line), calls_when_announced.append(counted.calls["generate"]))
    )
    # --limit 4 keeps those two questions and adds two answerable ones: 8 generations, 4 cached.
    # Embedding batches of 64 texts: one of the 4 questions (new), and the chunks of each config (cached).
    chunk_batches = sum(math.ceil(n / 64) for n in comparison.chunk_counts.values())
    assert chunk_batches == 5  # 103 fixed windows -> 2 batches, 161 markdown sections -> 3 (manifest "chunks")
    assert said[1] == (
        "model calls: 8 generations (4 cached, 4 to make) + 6 embedding batches (5 cached, 1 made); "
        "estimated 16 s at ~4 s per generation on this backend"
    )
    assert calls_when_announced == [0]  # said before the first generation
    assert counted.calls["generate"] == 4  # and the run then made exactly the 4 it said
    assert comparison.stats["planned_calls"] == {
        "generations": 8,
        "generations_cached": 4,
        "embed_batches": 6,
        "embed_batches_cached": 5,
    }


def test_the_bar_counts_only_the_generations_to_make(tmp_path, counted, capsys):
    run(tmp_path, 2, None)
    capsys.readouterr()
    run(tmp_path, 4, None, progress=True)
    bar = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert bar.startswith("generating: 100%|") and "| 4/4 [" in bar


def test_the_command_line_prints_the_count_first_even_without_the_bar(tmp_path, capsys):
    srv = FakeOllama()
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "a", limit=2) == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert evalgate_run(tmp_path / "cache", tmp_path / "b", limit=2) == 0  # --no-progress, all cached
        again = capsys.readouterr().out.splitlines()[0]
    # Ollama has no prior: the estimate waits for measured calls.
    assert first == (
        "model calls: 4 generations (0 cached, 4 to make) + 6 embedding batches (0 cached, 6 made); "
        "estimate after the first 3 calls"
    )
    assert again == (
        "model calls: 4 generations (4 cached, 0 to make) + 6 embedding batches (6 cached); nothing to generate"
    )
    assert srv.seen["/api/chat"] == 4
    assert published(tmp_path / "a") == published(tmp_path / "b")

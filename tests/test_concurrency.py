"""Parallel and distributed runs give exactly the rows of a serial run (fake Ollama, no real server).

Generation goes through joblib: threads (``--jobs N``), a process pool (``loky``),
or any backend registered with joblib (how Dask and Ray plug in). Whatever runs
the per-question work, results come back in question order and the published
files are byte-identical. No assertion here depends on timing.
"""

from __future__ import annotations

from pathlib import Path

import joblib
import pytest
from fake_ollama import (
    DIGESTS,
    EMBEDDER,
    GENERATOR,
    FakeOllama,
    FakeTransport,
    evalgate_run,
    no_sleep,
    published,
    run_stats,
    server,
    serving,
)
from fake_ollama_server import FakeOllamaServer
from joblib._parallel_backends import ThreadingBackend

import evalgate_lib as eg
from evalgate_lib.cli import main
from evalgate_lib.generation import backends
from evalgate_lib.generation.backends import BackendSpec
from evalgate_lib.run import parallel, pipeline
from evalgate_lib.run.pipeline import RunOptions

LIMIT = 24
ROOT_CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The reference: one host, one job, its own cache."""
    base = tmp_path_factory.mktemp("serial")
    with serving(FakeOllama()):
        assert evalgate_run(base / "cache", base / "out", limit=LIMIT) == 0
    return published(base / "out")


def test_four_threads_equal_serial(tmp_path, serial):
    srv = FakeOllama(delay=0.001)
    srv.rendezvous(4)  # the first four chat requests must be in flight together, or this run fails
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", "--jobs", "4", limit=LIMIT) == 0
    assert srv.max_in_flight >= 4
    assert published(tmp_path / "out") == serial
    stats = run_stats(tmp_path / "out")
    assert stats["jobs"] == 4 and stats["model_calls"]["generate_calls"] == 2 * LIMIT


def test_several_hosts_share_the_load_and_give_identical_rows(tmp_path, serial):
    srv = FakeOllama()
    hosts = "http://a.test:11434,http://b.test:11434,http://c.test:11434"
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", "--jobs", "3", limit=LIMIT, hosts=hosts) == 0
    per_host = srv.hosts("/api/chat")
    assert set(per_host) == {"a.test", "b.test", "c.test"}
    assert sum(per_host.values()) == 2 * LIMIT
    assert max(per_host.values()) - min(per_host.values()) <= 4  # round-robin, embed requests interleaved
    # identity (digests) is checked on every host, and the cache key ignores which host answered
    assert srv.hosts("/api/show") == {"a.test": 2, "b.test": 2, "c.test": 2}
    assert published(tmp_path / "out") == serial


def test_threads_over_two_real_http_servers_equal_serial(tmp_path, serial):
    """The same, over real sockets: two loopback servers, keep-alive connection pools, four threads."""
    fakes = [FakeOllama(delay=0.001), FakeOllama(delay=0.001)]
    for fake in fakes:
        fake.rendezvous(2)  # each server has two chat requests in flight together, or the run fails
    with FakeOllamaServer(fakes[0]) as a, FakeOllamaServer(fakes[1]) as b, serving(None):
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", "--jobs", "4", limit=LIMIT, hosts=f"{a.url},{b.url}")
    assert rc == 0
    chats = [fake.counts()["/api/chat"] for fake in fakes]
    assert sum(chats) == 2 * LIMIT and min(chats) >= LIMIT - 4  # round-robin, embed requests interleaved
    assert all(fake.max_in_flight >= 2 for fake in fakes)
    assert all(fake.counts()["/api/show"] == len(DIGESTS) for fake in fakes)  # identity checked on each host
    assert published(tmp_path / "out") == serial


def test_a_cache_filled_by_threads_serves_a_serial_rerun(tmp_path, serial):
    with serving(FakeOllama()):
        assert evalgate_run(tmp_path / "cache", tmp_path / "a", "--jobs", "4", limit=LIMIT) == 0
    srv = FakeOllama()
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "b", limit=LIMIT) == 0
    assert srv.counts()["/api/chat"] == 0 and srv.counts()["/api/embed"] == 0
    assert published(tmp_path / "b") == serial


def _fake_spec(name: str) -> BackendSpec:
    """An Ollama spec whose transport pickles: process workers rebuild it against their own fake server."""
    options = {
        "generator": GENERATOR,
        "embedder": EMBEDDER,
        "hosts": "http://a.test:11434",
        "transport": FakeTransport(name),
        "sleep": no_sleep,
        "backoff": 0.0,
    }
    return BackendSpec("ollama", tuple(sorted(options.items())))


def _api_run(monkeypatch, tmp_path, joblib_backend: str, jobs: int, transport_name: str) -> dict[str, bytes]:
    monkeypatch.setattr(backends, "_built", {})
    monkeypatch.setattr(parallel, "_caches", {})
    monkeypatch.setattr(pipeline, "resolve_backend", lambda *args, **kwargs: _fake_spec(transport_name))
    options = RunOptions(
        backend="ollama",
        cache_dir=tmp_path / "cache",
        limit=LIMIT,
        jobs=jobs,
        joblib_backend=joblib_backend,
        progress=False,
    )
    eg.run_comparison(ROOT_CONFIGS / "baseline.toml", ROOT_CONFIGS / "candidate.toml", options, tmp_path / "out")
    return published(tmp_path / "out")


def test_loky_process_pool_equals_serial(monkeypatch, tmp_path, serial):
    """Generation in other processes (what a Dask or Ray cluster does), the cache folder shared."""
    assert _api_run(monkeypatch, tmp_path, "loky", 2, "loky-test") == serial
    # The parent only embedded: every answer came from a worker process's own fake server ...
    assert server("loky-test").counts()["/api/chat"] == 0
    assert server("loky-test").counts()["/api/embed"] > 0
    # ... and the workers wrote their answers to the shared cache folder: a rerun makes no call.
    srv = FakeOllama()
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "again", limit=LIMIT) == 0
    assert srv.counts()["/api/chat"] == 0
    assert published(tmp_path / "again") == serial


def test_a_registered_joblib_backend_is_used_by_name(monkeypatch, tmp_path, serial):
    """Dask and Ray plug in exactly like this: a joblib backend registered under a name."""
    used = []

    class RecordingBackend(ThreadingBackend):
        def configure(self, *args, **kwargs):
            used.append(True)
            return super().configure(*args, **kwargs)

    joblib.register_parallel_backend("evalgate-test", RecordingBackend)
    with serving(FakeOllama()):
        rc = evalgate_run(
            tmp_path / "cache", tmp_path / "out", "--jobs", "2", "--joblib-backend", "evalgate-test", limit=LIMIT
        )
    assert rc == 0 and used
    assert published(tmp_path / "out") == serial


def test_a_backend_without_result_generators_gives_the_same_rows(tmp_path, serial):
    """Ray's joblib backend cannot stream results (``return_as="generator"``); the run falls back to a list."""

    class ListOnlyBackend(ThreadingBackend):
        supports_return_generator = False

    joblib.register_parallel_backend("evalgate-list-only", ListOnlyBackend)
    with serving(FakeOllama()):
        rc = evalgate_run(
            tmp_path / "cache", tmp_path / "out", "--jobs", "2", "--joblib-backend", "evalgate-list-only", limit=LIMIT
        )
    assert rc == 0
    assert published(tmp_path / "out") == serial


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nonsense", "unknown joblib backend 'nonsense'"),
        ("dask", "--joblib-backend dask needs"),
        ("ray", "--joblib-backend ray needs"),
    ],
)
def test_unusable_joblib_backend_fails_before_any_model_call(tmp_path, capsys, monkeypatch, name, message):
    if name == "dask":
        monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
        try:
            import distributed
        except ImportError:
            pass
        else:
            try:
                distributed.get_client()
            except ValueError:
                message = "--joblib-backend dask needs a Dask cluster: set DASK_SCHEDULER_ADDRESS"
            else:
                pytest.skip("a Dask client is active in this process")
    if name == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            pass
        else:
            pytest.skip("ray is installed")
    srv = FakeOllama()
    with serving(srv):
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", "--joblib-backend", name)
    assert rc == 2
    assert message in capsys.readouterr().err
    assert sum(srv.seen.values()) == 0


def test_jobs_must_be_positive(tmp_path, capsys):
    with serving(FakeOllama()):
        rc = main(
            [
                "run",
                "--backend",
                "ollama",
                "--jobs",
                "0",
                "--cache-dir",
                str(tmp_path / "c"),
                "--out",
                str(tmp_path / "o"),
            ]
        )
    assert rc == 2
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err


def test_joblib_backend_none_defers_to_parallel_config(tmp_path, serial):
    """Python API: ``RunOptions(joblib_backend=None)`` runs generation on the active ``parallel_config``."""
    used = []

    class RecordingBackend(ThreadingBackend):
        def configure(self, *args, **kwargs):
            used.append(True)
            return super().configure(*args, **kwargs)

    joblib.register_parallel_backend("evalgate-context", RecordingBackend)
    options = RunOptions(
        backend="ollama",
        hosts="http://a.test:11434",
        cache_dir=tmp_path / "cache",
        limit=LIMIT,
        jobs=2,
        joblib_backend=None,
        progress=False,
    )
    with serving(FakeOllama()), joblib.parallel_config(backend="evalgate-context"):
        eg.run_comparison(ROOT_CONFIGS / "baseline.toml", ROOT_CONFIGS / "candidate.toml", options, tmp_path / "out")
    assert used
    assert published(tmp_path / "out") == serial

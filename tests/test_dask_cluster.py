"""A real Dask cluster on loopback runs generation, and the results are byte-identical to a serial run.

The cluster is what a user starts by hand: ``dask scheduler`` and two ``dask worker``
processes (one thread each), all on 127.0.0.1, started with the dask command line from
this interpreter. The Ollama server is the fake one over real HTTP on loopback
(tests/fake_ollama_server.py), so workers in other processes reach it by URL exactly as
they would reach a real Ollama host. The first test is the command from the bug report
(``DASK_SCHEDULER_ADDRESS=... evalgate run --joblib-backend dask --jobs 4``), run as its
own process; it failed on every task with ``Batch.__call__() got an unexpected keyword
argument 'nesting_level'`` before the fix. The second is the Python API with an existing
``distributed.Client``.

No assertion depends on timing; start-up waits are bounded so a broken cluster fails
the test instead of hanging it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client  # the `scale` extra, installed by scripts/install.sh
from fake_ollama import ROOT, FakeOllama, evalgate_run, published, run_stats, serving
from fake_ollama_server import FakeOllamaServer

import evalgate_lib as eg
from evalgate_lib.generation import backends
from evalgate_lib.run import parallel
from evalgate_lib.run.pipeline import RunOptions

LIMIT = 12
JOBS = 4
WORKERS = 2
STARTUP_SECONDS = 90


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group we started (a worker's nanny has a child), then SIGKILL if it lingers."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[tuple[str, Client]]:
    """``dask scheduler`` + two ``dask worker`` processes on 127.0.0.1; yields (scheduler address, client)."""
    folder = tmp_path_factory.mktemp("dask-cluster")
    scheduler_file = folder / "scheduler.json"
    dask_cli = [sys.executable, "-m", "dask"]
    procs: list[subprocess.Popen[bytes]] = []
    logs = []

    def spawn(name: str, *args: str) -> None:
        log = open(folder / f"{name}.log", "wb")  # noqa: SIM115  (closed at teardown)
        logs.append(log)
        procs.append(
            subprocess.Popen(
                [*dask_cli, *args], cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        )

    client = None
    try:
        spawn(
            "scheduler",
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(scheduler_file),
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        while not scheduler_file.exists() and time.monotonic() < deadline and procs[0].poll() is None:
            time.sleep(0.2)
        if not scheduler_file.exists():
            pytest.fail(f"dask scheduler did not start:\n{(folder / 'scheduler.log').read_text()}")
        for n in range(WORKERS):
            spawn(
                f"worker{n}",
                "worker",
                "--scheduler-file",
                str(scheduler_file),
                "--host",
                "127.0.0.1",
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--name",
                f"evalgate-worker-{n}",
            )
        client = Client(scheduler_file=str(scheduler_file), timeout=STARTUP_SECONDS, set_as_default=False)
        client.wait_for_workers(WORKERS, timeout=STARTUP_SECONDS)
        yield client.scheduler.address, client
    finally:
        if client is not None:
            client.close()
        for proc in reversed(procs):
            _stop(proc)
        for log in logs:
            log.close()


@pytest.fixture(scope="module")
def http_server() -> Iterator[FakeOllamaServer]:
    """One fake Ollama over HTTP on loopback, shared by the serial and the distributed runs."""
    with FakeOllamaServer(FakeOllama(delay=0.02)) as srv:
        yield srv


@pytest.fixture(scope="module")
def serial(tmp_path_factory, http_server) -> dict[str, bytes]:
    """The reference: one job, threads backend, in this process, against the same HTTP server."""
    base = tmp_path_factory.mktemp("serial")
    with serving(None):
        assert evalgate_run(base / "cache", base / "out", limit=LIMIT, hosts=http_server.url) == 0
    return published(base / "out")


def _workers_that_generated(client: Client, cache_dir: Path) -> list[str]:
    """Workers whose process built an answer cache for ``cache_dir``: each ran at least one generation task."""

    def has_cache(folder: str = str(cache_dir)) -> bool:  # defined here so it pickles by value
        from evalgate_lib.run import parallel as worker_parallel

        return any(key[1] == folder for key in worker_parallel._caches)

    return sorted(address for address, used in client.run(has_cache).items() if used)


def test_command_line_run_on_a_dask_cluster_equals_serial(tmp_path, cluster, http_server, serial):
    """The bug report's command, verbatim in shape: scheduler from the environment, its own process."""
    address, client = cluster
    chats_before = http_server.counts()["/api/chat"]
    cmd = [
        sys.executable,
        "-m",
        "evalgate_lib.cli",
        "run",
        "--backend",
        "ollama",
        "--hosts",
        http_server.url,
        "--joblib-backend",
        "dask",
        "--jobs",
        str(JOBS),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--out",
        str(tmp_path / "out"),
        "--limit",
        str(LIMIT),
        "--no-progress",
        "--baseline",
        str(ROOT / "configs" / "baseline.toml"),
        "--candidate",
        str(ROOT / "configs" / "candidate.toml"),
    ]
    env = {**os.environ, "DASK_SCHEDULER_ADDRESS": address}
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert published(tmp_path / "out") == serial
    stats = run_stats(tmp_path / "out")
    assert stats["joblib_backend"] == "dask" and stats["jobs"] == JOBS
    assert stats["model_calls"]["generate_calls"] == 2 * LIMIT
    assert http_server.counts()["/api/chat"] - chats_before == 2 * LIMIT
    # Both worker processes generated answers (the command's own process only embeds) ...
    assert len(_workers_that_generated(client, tmp_path / "cache")) == WORKERS
    # ... into the shared cache folder: a serial rerun makes no model call and writes the same bytes.
    with serving(None):
        assert evalgate_run(tmp_path / "cache", tmp_path / "again", limit=LIMIT, hosts=http_server.url) == 0
    assert run_stats(tmp_path / "again")["model_calls"]["generate_calls"] == 0
    assert published(tmp_path / "again") == serial


def test_python_api_with_an_existing_client_equals_serial(tmp_path, monkeypatch, cluster, http_server, serial):
    """README's Python example: create a ``distributed.Client``, then ``RunOptions(joblib_backend="dask")``."""
    address, probe = cluster
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    monkeypatch.setattr(backends, "_built", {})
    monkeypatch.setattr(parallel, "_caches", {})
    options = RunOptions(
        backend="ollama",
        hosts=http_server.url,
        cache_dir=tmp_path / "cache",
        limit=LIMIT,
        jobs=JOBS,
        joblib_backend="dask",
        progress=False,
    )
    with Client(address, timeout=STARTUP_SECONDS):
        results = eg.run_comparison(
            ROOT / "configs" / "baseline.toml", ROOT / "configs" / "candidate.toml", options, tmp_path / "out"
        )
    assert results.run_stats["model_calls"]["generate_calls"] == 2 * LIMIT
    assert published(tmp_path / "out") == serial
    assert len(_workers_that_generated(probe, tmp_path / "cache")) >= 1

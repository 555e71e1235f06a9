"""Faults mid-run: each is reported clearly, and a resumed run reuses everything already computed.

The server is the fake Ollama (tests/fake_ollama.py): it fails with HTTP 500, times
out, goes down, or raises KeyboardInterrupt inside a request, on the request we
choose. The server faults run twice: in process (``httpx.MockTransport``) and over
real HTTP on loopback (tests/fake_ollama_server.py), where a timeout is a request that
never answers and "down" is a closed listening socket. The command-line server's
fault options are tested at the end. Retries never really sleep. No assertion
depends on timing.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest
from fake_ollama import HOST, ROOT, FakeOllama, evalgate_run, published, run_stats, serving
from fake_ollama_server import FakeOllamaServer, server_process

from evalgate_lib import files
from evalgate_lib.errors import BackendError
from evalgate_lib.generation.backends.ollama import OllamaBackend
from evalgate_lib.generation.cache import ModelCache
from evalgate_lib.generation.store import LAYOUT
from evalgate_lib.inputs.options import GenerationOptions
from evalgate_lib.run import pipeline

LIMIT = 20
ANSWERS = 2 * LIMIT  # generations in a full two-config run


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run: the bytes every recovered run must reproduce, and its embedding batch count."""
    base = tmp_path_factory.mktemp("reference")
    with serving(FakeOllama()):
        assert evalgate_run(base / "cache", base / "out", limit=LIMIT) == 0
    return published(base / "out"), run_stats(base / "out")["model_calls"]["embed_calls"]


#: Read timeout against the real HTTP server: a hung request costs this long, a normal one takes milliseconds.
HTTP_READ_TIMEOUT = 1.0


@dataclass
class Served:
    """Where a run under test sends its requests, and how to bring a downed server back."""

    hosts: str
    come_up: Callable[[], None]


@pytest.fixture(params=["in-process", "http"])
def served(request) -> Callable[..., contextlib.AbstractContextManager[Served]]:
    """``served(srv, **backend_kwargs)``: run EvalGate against ``srv``, in process or over real HTTP on loopback."""

    @contextlib.contextmanager
    def serve(srv: FakeOllama, **backend_kwargs) -> Iterator[Served]:
        if request.param == "in-process":
            with serving(srv, **backend_kwargs):
                yield Served(HOST, srv.come_up)
            return
        with FakeOllamaServer(srv) as http, serving(http, **{"read_timeout": HTTP_READ_TIMEOUT, **backend_kwargs}):
            yield Served(http.url, http.come_up)

    return serve


def _entries(cache: Path, kind: str) -> list[Path]:
    """The entry records of one kind (``generate`` or ``embed``) in the store under ``cache``."""
    return sorted((cache / LAYOUT / kind).glob("*/*.json"))


# ------------------------------------------------------------------- server errors


def test_http_500_is_retried_and_the_results_are_unchanged(tmp_path, reference, served):
    srv = FakeOllama()
    srv.fail(500, times=3, path="/api/chat")  # three failed attempts, the fourth succeeds
    srv.fail(503, times=1, path="/api/embed")
    with served(srv) as at:
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts) == 0
    assert srv.seen["/api/chat"] == ANSWERS + 3
    assert published(tmp_path / "out") == reference[0]


def test_persistent_http_500_is_reported_with_url_status_and_fix(tmp_path, capsys, served):
    srv = FakeOllama()
    srv.fail(500, times=100, path="/api/chat")
    with served(srv, max_retries=2) as at:
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts)
    err = capsys.readouterr().err
    assert rc == 2
    assert f"evalgate: error: Ollama request to {at.hosts}/api/chat failed after 3 attempts" in err
    assert "HTTP 500: injected failure (HTTP 500)" in err
    assert "The server is up but failed with HTTP 500" in err and "ollama serve" not in err  # it answered: it runs
    assert "config 'baseline' stopped after 0 of 20 answers" in err
    assert "rerun the same command to resume" in err
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_timeouts_are_retried(tmp_path, reference, served):
    srv = FakeOllama()
    srv.time_out(times=2, path="/api/chat")
    with served(srv) as at:
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts) == 0
    assert published(tmp_path / "out") == reference[0]


def test_persistent_timeouts_are_reported(tmp_path, capsys, served):
    srv = FakeOllama()
    srv.time_out(times=100, path="/api/embed")
    with served(srv, max_retries=1) as at:
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts)
    err = capsys.readouterr().err
    assert rc == 2
    assert "/api/embed failed after 2 attempts: timed out (ReadTimeout: timed out)" in err


def test_server_down_mid_run_then_resume_makes_only_the_missing_calls(tmp_path, capsys, reference, served):
    srv = FakeOllama()
    srv.go_down(after=LIMIT + 7, path="/api/chat")  # all baseline answers and 7 candidate ones get through
    with served(srv) as at:
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts)
        err = capsys.readouterr().err
        assert rc == 2
        assert f"{at.hosts}/api/chat failed after 4 attempts: could not connect" in err
        assert "Connection refused" in err
        assert "config 'candidate' stopped after 7 of 20 answers" in err
        assert "everything computed so far is in the cache" in err
        assert not (tmp_path / "out").exists()

        at.come_up()
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts) == 0
    calls = run_stats(tmp_path / "out")["model_calls"]
    assert calls["generate_calls"] == ANSWERS - (LIMIT + 7)  # only what the first run had not finished
    assert calls["embed_calls"] == 0  # every embedding was done before the server went down
    assert calls["corrupt_entries"] == 0
    assert published(tmp_path / "out") == reference[0]


def test_server_down_during_embedding_then_resume(tmp_path, reference, served):
    srv = FakeOllama()
    srv.go_down(after=2, path="/api/embed")
    with served(srv) as at:
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts) == 2
        at.come_up()
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=at.hosts) == 0
    calls = run_stats(tmp_path / "out")["model_calls"]
    assert 0 < calls["embed_calls"] < reference[1]  # the batches embedded before the failure were reused
    assert calls["generate_calls"] == ANSWERS
    assert published(tmp_path / "out") == reference[0]


# ---------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_inside_a_request_exits_130_and_a_rerun_resumes(tmp_path, capsys, reference):
    srv = FakeOllama()
    srv.interrupt_on(6, path="/api/chat")
    with serving(srv):
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT)
        err = capsys.readouterr().err
        assert rc == 130
        assert "evalgate: interrupted; everything computed so far is in the cache, rerun to resume" in err
        assert not (tmp_path / "out").exists()
        assert len(_entries(tmp_path / "cache", "generate")) == 5
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT) == 0
    assert run_stats(tmp_path / "out")["model_calls"]["generate_calls"] == ANSWERS - 5
    assert published(tmp_path / "out") == reference[0]


@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")
def test_ctrl_c_while_threads_generate_exits_130_and_a_rerun_resumes(tmp_path, monkeypatch, capsys, reference):
    """A real Ctrl-C lands in the main thread, here while it scores answer 9 and 4 threads generate."""
    real_score = pipeline.score_answer
    scored = Counter()

    def score_then_interrupt(*args, **kwargs):
        scored["n"] += 1
        if scored["n"] == 9:
            raise KeyboardInterrupt
        return real_score(*args, **kwargs)

    with serving(FakeOllama(delay=0.001)):
        monkeypatch.setattr(pipeline, "score_answer", score_then_interrupt)
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", "--jobs", "4", limit=LIMIT) == 130
        assert "interrupted" in capsys.readouterr().err
        done = len(_entries(tmp_path / "cache", "generate"))
        assert 9 <= done < ANSWERS
        monkeypatch.setattr(pipeline, "score_answer", real_score)
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", "--jobs", "4", limit=LIMIT) == 0
    calls = run_stats(tmp_path / "out")["model_calls"]
    # A thread still in flight at Ctrl-C may finish its answer afterwards: it is cached too.
    assert calls["generate_calls"] <= ANSWERS - done and calls["corrupt_entries"] == 0
    assert published(tmp_path / "out") == reference[0]


# --------------------------------------------------------------- corrupt cache


def test_truncated_and_tampered_cache_entries_are_detected_and_recomputed(tmp_path, caplog, reference):
    with serving(FakeOllama()):
        assert evalgate_run(tmp_path / "cache", tmp_path / "first", limit=LIMIT) == 0
    generated = _entries(tmp_path / "cache", "generate")
    embedded = _entries(tmp_path / "cache", "embed")
    assert len(generated) == ANSWERS and embedded

    # 1. a generation entry cut in half (a disk filled up, a copy interrupted)
    data = generated[3].read_bytes()
    generated[3].write_bytes(data[: len(data) // 2])
    # 2. a generation entry that parses fine but whose text no longer matches its checksum
    record = json.loads(generated[7].read_text(encoding="utf-8"))
    record["text"] = "Tampered: the Starter plan includes 300 seats."
    generated[7].write_text(json.dumps(record), encoding="utf-8")
    # 3. an embedding entry whose vectors were altered (its array file keeps its name)
    record = json.loads(embedded[0].read_text(encoding="utf-8"))
    array = embedded[0].with_name(f"{record['key']}.{record['npy_sha256']}.npy")
    np.save(array, np.load(array) + np.float32(1.0))
    # 4. an entry replaced by something that is not a record at all
    generated[11].write_text('"just a string"', encoding="utf-8")

    srv = FakeOllama()
    with serving(srv):
        assert evalgate_run(tmp_path / "cache", tmp_path / "second", limit=LIMIT) == 0
    calls = run_stats(tmp_path / "second")["model_calls"]
    assert calls["corrupt_entries"] == 4
    assert calls["generate_calls"] == 3 and calls["embed_calls"] == 1  # exactly the bad entries, recomputed
    warnings = [r.getMessage() for r in caplog.records if "corrupt" in r.getMessage()]
    assert len(warnings) == 4 and all("recomputed it" in w for w in warnings)
    assert published(tmp_path / "second") == reference[0]

    # The recomputed entries were written back: a third run makes no call and finds nothing corrupt.
    with serving(FakeOllama()):
        assert evalgate_run(tmp_path / "cache", tmp_path / "third", limit=LIMIT) == 0
    assert run_stats(tmp_path / "third")["model_calls"] == {
        "embed_calls": 0,
        "generate_calls": 0,
        "hits": calls["hits"] + 4,
        "corrupt_entries": 0,
    }


def test_corrupt_entries_are_counted_on_the_command_line(tmp_path, capsys, caplog):
    with serving(FakeOllama()):
        assert evalgate_run(tmp_path / "cache", tmp_path / "a", limit=4) == 0
        entry = _entries(tmp_path / "cache", "generate")[0]
        entry.write_bytes(entry.read_bytes()[:10])
        capsys.readouterr()
        assert evalgate_run(tmp_path / "cache", tmp_path / "b", limit=4) == 0
    captured = capsys.readouterr()
    assert "corrupt cache entries detected and recomputed: 1" in captured.out
    assert [r.getMessage() for r in caplog.records if r.name == "evalgate_lib.generation.cache"] == [
        f"corrupt generate cache entry {entry}: not valid JSON; recomputed it"
    ]
    assert "Traceback" not in captured.err  # no traceback quoting the prompt


class CountingBackend:
    name = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def identity(self) -> dict[str, str]:
        return {"backend": "fake", "generator": "g", "generator_digest": "d", "embedder": "e", "embedder_digest": "d"}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 3), dtype=np.float32)

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        self.calls += 1
        return f"answer to {prompt}"


def test_ctrl_c_while_a_cache_entry_is_written_leaves_no_entry(tmp_path, monkeypatch):
    """An entry is written to a temporary file and renamed: an interrupted write never becomes an entry."""
    written: list[bytes] = []

    def interrupted_rename(src, dst):
        written.append(Path(src).read_bytes())  # the whole entry was in the temporary file ...
        raise KeyboardInterrupt  # ... and Ctrl-C came before the rename

    backend = CountingBackend()
    cache = ModelCache(backend, tmp_path)
    monkeypatch.setattr(files.os, "replace", interrupted_rename)
    with pytest.raises(KeyboardInterrupt):
        cache.generate("q1", GenerationOptions())
    monkeypatch.undo()
    assert json.loads(written[0])["text"] == "answer to q1"
    assert _entries(tmp_path, "generate") == []  # never under the final name
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []  # and the temporary file is gone

    fresh = ModelCache(backend, tmp_path)
    assert fresh.generate("q1", GenerationOptions()) == "answer to q1"
    assert backend.calls == 2 and fresh.stats.corrupt_entries == 0
    assert ModelCache(backend, tmp_path).generate("q1", GenerationOptions()) == "answer to q1"
    assert backend.calls == 2


# -------------------------------------------------------------- atomic results


def test_results_are_replaced_atomically_or_not_at_all(tmp_path, monkeypatch):
    with serving(FakeOllama()):
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=4) == 0
    before = published(tmp_path / "out")

    def interrupted_rename(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted_rename)
    with pytest.raises(KeyboardInterrupt):
        files.atomic_write(tmp_path / "out" / "results.jsonl", '{"half": ')
    assert published(tmp_path / "out") == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "manifest.json",
        "results.jsonl",
        "run_stats.json",
        "summary.json",
    ]  # the temporary file is gone too
    rows = [json.loads(line) for line in before["results.jsonl"].decode().splitlines()]
    assert len(rows) == 8


# ------------------------------------------------- the command-line fake server


def test_command_line_server_with_every_nth_request_failing_gives_the_same_results(tmp_path, reference):
    with server_process(tmp_path, "--status-5xx-every", "5", "--status", "503") as (url, _), serving(None):
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=url) == 0
    assert published(tmp_path / "out") == reference[0]  # real HTTP, retried 503s: the in-process bytes


def test_command_line_server_goes_down_after_n_requests(tmp_path, capsys):
    with server_process(tmp_path, "--fail-after", "10") as (url, proc), serving(None):
        rc = evalgate_run(tmp_path / "cache", tmp_path / "out", limit=LIMIT, hosts=url)
        assert proc.wait(timeout=30) == 0  # the server process ends by itself once it is down
        said = proc.stdout.read()
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{url}/api/" in err and "could not connect" in err and "Connection refused" in err
    assert '"down": true' in said


def test_command_line_server_hang_makes_the_client_time_out(tmp_path):
    with server_process(tmp_path, "--hang") as (url, _):
        with OllamaBackend(hosts=url, read_timeout=0.5, max_retries=1, sleep=lambda s: None) as backend:
            assert backend.ping()  # liveness endpoints still answer: only model requests hang
            with pytest.raises(BackendError, match=r"/api/chat failed after 2 attempts: timed out \(ReadTimeout"):
                backend.generate("Question: anything?", GenerationOptions())


def test_command_line_server_binds_loopback_only(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "tests.fake_ollama_server", "--host", "0.0.0.0", "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "loopback addresses only" in proc.stderr

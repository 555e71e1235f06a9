"""Unit tests for the Ollama backend against ``httpx.MockTransport`` (no server, no real sleeping).

They pin the exact wire format, because a field Ollama ignores (a misspelt option,
``stream`` left on) would not fail loudly: it would quietly change the answers.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import numpy as np
import pytest

from evalgate_lib.errors import BackendError
from evalgate_lib.generation.backends.base import Backend
from evalgate_lib.generation.backends.ollama import (
    DEFAULT_HOST,
    OllamaBackend,
    normalize_host,
    ollama_reachable,
    parse_hosts,
)
from evalgate_lib.inputs.options import GenerationOptions

HOST_A = "http://a.test:11434"
HOST_B = "http://b.test:11434"
GEN_DIGEST = "a" * 64
EMB_DIGEST = "b" * 64

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A MockTransport handler that records every request and delegates the answer."""

    def __init__(self, respond: Handler) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            self.requests.append(request)
        return self.respond(request)

    @property
    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]

    @property
    def paths(self) -> list[str]:
        return [r.url.path for r in self.requests]


def make_backend(
    respond: Handler, hosts: str | list[str] = HOST_A, **kwargs: Any
) -> tuple[OllamaBackend, Recorder, list[float]]:
    recorder = Recorder(respond)
    sleeps: list[float] = []
    backend = OllamaBackend(hosts=hosts, transport=httpx.MockTransport(recorder), sleep=sleeps.append, **kwargs)
    return backend, recorder, sleeps


def chat_ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"message": {"role": "assistant", "content": "  Three seats.\n"}, "done": True})


def fake_embed(request: httpx.Request) -> httpx.Response:
    """Embedding i of a batch is [len(text), 1.0, 2.0] so order can be checked."""
    body = json.loads(request.content)
    return httpx.Response(
        200, json={"model": body["model"], "embeddings": [[float(len(t)), 1.0, 2.0] for t in body["input"]]}
    )


def tags_response(*models: tuple[str, str]) -> httpx.Response:
    return httpx.Response(
        200,
        json={"models": [{"name": n, "model": n, "digest": d, "size": 1, "details": {}} for n, d in models]},
    )


def server(
    tags: tuple[tuple[str, str], ...] = (("qwen2.5:7b", GEN_DIGEST), ("nomic-embed-text:latest", EMB_DIGEST)),
    show_status: dict[str, int] | None = None,
) -> Handler:
    """A small fake Ollama: /api/show (no digest, like real servers), /api/tags, /api/chat, /api/embed."""
    show_status = show_status or {}

    def respond(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/api/show":
            model = json.loads(request.content)["model"]
            status = show_status.get(model, 200)
            if status != 200:
                return httpx.Response(status, json={"error": f"model '{model}' not found"})
            return httpx.Response(200, json={"modelfile": "FROM x", "details": {"format": "gguf"}, "model_info": {}})
        if path == "/api/tags":
            return tags_response(*tags)
        if path == "/api/chat":
            return chat_ok(request)
        if path == "/api/embed":
            return fake_embed(request)
        if path == "/api/version":
            return httpx.Response(200, json={"version": "0.9.0"})
        return httpx.Response(404, text="404 page not found")

    return respond


# ---------------------------------------------------------------- protocol / lifecycle


def test_implements_backend_protocol() -> None:
    backend, _, _ = make_backend(server())
    assert isinstance(backend, Backend)
    assert backend.name == "ollama"


def test_context_manager_closes_clients() -> None:
    backend, _, _ = make_backend(server(), hosts=[HOST_A, HOST_B])
    with backend as b:
        assert b is backend
    assert all(client.is_closed for client in backend._clients)


def test_timeouts_configured_per_client() -> None:
    backend, _, _ = make_backend(server(), hosts=[HOST_A, HOST_B], connect_timeout=2.0, read_timeout=99.0)
    for client, host in zip(backend._clients, backend.hosts, strict=True):
        assert client.timeout == httpx.Timeout(99.0, connect=2.0)
        assert str(client.base_url).rstrip("/") == host


# ------------------------------------------------------------------------------ embed


def test_embed_batches_and_wire_format() -> None:
    backend, rec, _ = make_backend(fake_embed, embedder="nomic-embed-text", embed_batch_size=32)
    texts = [f"text number {i:03d}" + "x" * i for i in range(70)]
    out = backend.embed(texts)

    assert [r.method for r in rec.requests] == ["POST"] * 3
    assert [str(r.url) for r in rec.requests] == [f"{HOST_A}/api/embed"] * 3
    assert [len(b["input"]) for b in rec.bodies] == [32, 32, 6]
    assert rec.bodies[0] == {"model": "nomic-embed-text", "input": texts[:32], "truncate": True}
    assert rec.bodies[1]["input"] == texts[32:64]
    assert rec.bodies[2]["input"] == texts[64:]
    assert rec.requests[0].headers["content-type"] == "application/json"

    assert out.dtype == np.float32
    assert out.shape == (70, 3)
    assert out[:, 0].tolist() == [float(len(t)) for t in texts]  # order preserved across batches


def test_embed_empty_makes_no_request() -> None:
    backend, rec, _ = make_backend(fake_embed)
    out = backend.embed([])
    assert out.shape == (0, 0)
    assert out.dtype == np.float32
    assert rec.requests == []


def test_embed_rejects_a_bare_string() -> None:
    backend, _, _ = make_backend(fake_embed)
    with pytest.raises(TypeError):
        backend.embed("not a list")


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"embedding": [1.0, 2.0]}, "no 'embeddings' list"),
        ({"embeddings": [[1.0, 2.0]]}, "asked for 2 embeddings, got 1"),
        ({"embeddings": [[1.0, 2.0], [1.0]]}, "differing dimensions"),
        ({"embeddings": [[1.0, 2.0], []]}, "non-empty list"),
        ({"embeddings": [[1.0, "x"], [1.0, 2.0]]}, "finite numbers"),
        ([1, 2], "no 'embeddings' list"),
    ],
)
def test_embed_malformed_response(body: Any, fragment: str) -> None:
    backend, _, sleeps = make_backend(lambda r: httpx.Response(200, json=body))
    with pytest.raises(BackendError) as info:
        backend.embed(["one", "two"])
    message = str(info.value)
    assert fragment in message
    assert f"{HOST_A}/api/embed" in message
    assert sleeps == []  # a malformed answer is not transient


def test_embed_non_finite_values_rejected() -> None:
    backend, _, _ = make_backend(lambda r: httpx.Response(200, content=b'{"embeddings": [[NaN, 1.0]]}'))
    with pytest.raises(BackendError, match="finite"):
        backend.embed(["x"])


def test_embed_dimension_change_between_batches() -> None:
    calls = iter([[[1.0, 2.0]], [[1.0, 2.0, 3.0]]])
    backend, _, _ = make_backend(lambda r: httpx.Response(200, json={"embeddings": next(calls)}), embed_batch_size=1)
    with pytest.raises(BackendError, match="dimension changed from 2 to 3"):
        backend.embed(["a", "b"])


def test_non_json_body() -> None:
    backend, _, _ = make_backend(lambda r: httpx.Response(200, text="<html>proxy login</html>"))
    with pytest.raises(BackendError, match="not JSON") as info:
        backend.embed(["a"])
    assert "proxy login" in str(info.value)


# --------------------------------------------------------------------------- generate


def test_generate_wire_format() -> None:
    backend, rec, _ = make_backend(chat_ok, generator="qwen2.5:7b")
    options = GenerationOptions(temperature=0.0, seed=7, max_tokens=64, num_ctx=2048, stop=("\nQuestion:",))
    answer = backend.generate("How many seats?", options)

    assert answer == "Three seats."
    assert len(rec.requests) == 1
    request = rec.requests[0]
    assert request.method == "POST"
    assert str(request.url) == f"{HOST_A}/api/chat"
    assert rec.bodies[0] == {
        "model": "qwen2.5:7b",
        "messages": [{"role": "user", "content": "How many seats?"}],
        "stream": False,
        "options": {"temperature": 0.0, "seed": 7, "num_predict": 64, "num_ctx": 2048, "stop": ["\nQuestion:"]},
    }


@pytest.mark.parametrize("body", [{"message": {"role": "assistant"}}, {"response": "hi"}, {"message": "hi"}])
def test_generate_malformed_response(body: Any) -> None:
    backend, _, _ = make_backend(lambda r: httpx.Response(200, json=body))
    with pytest.raises(BackendError, match="malformed response from http://a.test:11434/api/chat"):
        backend.generate("q", GenerationOptions())


# --------------------------------------------------------------------------- identity


def test_identity_uses_tags_digest_when_show_has_none() -> None:
    backend, rec, _ = make_backend(server(), generator="qwen2.5:7b", embedder="nomic-embed-text")
    ident = backend.identity()
    assert ident == {
        "backend": "ollama",
        "generator": "qwen2.5:7b",
        "generator_digest": GEN_DIGEST,
        "embedder": "nomic-embed-text",
        "embedder_digest": EMB_DIGEST,  # matched 'nomic-embed-text:latest' in the tags list
        "host": HOST_A,
    }
    show_requests = [r for r in rec.requests if r.url.path == "/api/show"]
    assert [r.method for r in show_requests] == ["POST", "POST"]
    assert [json.loads(r.content) for r in show_requests] == [
        {"model": "qwen2.5:7b"},
        {"model": "nomic-embed-text"},
    ]
    tags_requests = [r for r in rec.requests if r.url.path == "/api/tags"]
    assert tags_requests and all(r.method == "GET" for r in tags_requests)

    count = len(rec.requests)
    assert backend.identity() == ident  # cached: no further requests
    assert len(rec.requests) == count


def test_identity_prefers_digest_from_show() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/show":
            model = json.loads(request.content)["model"]
            return httpx.Response(200, json={"digest": f"sha-{model}", "details": {}})
        raise AssertionError(f"unexpected request to {request.url}")

    backend, rec, _ = make_backend(respond, generator="g:1", embedder="e:1")
    ident = backend.identity()
    assert ident["generator_digest"] == "sha-g:1"
    assert ident["embedder_digest"] == "sha-e:1"
    assert rec.paths == ["/api/show", "/api/show"]


def test_identity_matches_latest_suffix_the_other_way() -> None:
    respond = server(tags=(("qwen2.5:7b", GEN_DIGEST), ("nomic-embed-text", EMB_DIGEST)))
    backend, _, _ = make_backend(respond, embedder="nomic-embed-text:latest")
    assert backend.identity()["embedder_digest"] == EMB_DIGEST


def test_identity_matches_on_model_field() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/tags":
            return httpx.Response(
                200,
                json={
                    "models": [
                        {"name": "alias-g", "model": "qwen2.5:7b", "digest": GEN_DIGEST},
                        {"name": "alias-e", "model": "nomic-embed-text:latest", "digest": EMB_DIGEST},
                    ]
                },
            )
        return server()(request)

    backend, _, _ = make_backend(respond)
    ident = backend.identity()
    assert (ident["generator_digest"], ident["embedder_digest"]) == (GEN_DIGEST, EMB_DIGEST)


def test_identity_model_missing_from_show_404() -> None:
    backend, _, sleeps = make_backend(server(show_status={"qwen2.5:7b": 404}))
    with pytest.raises(BackendError) as info:
        backend.identity()
    assert str(info.value) == f"model 'qwen2.5:7b' is not available on {HOST_A}: run 'ollama pull qwen2.5:7b'"
    assert sleeps == []


def test_identity_model_missing_from_tags() -> None:
    backend, _, _ = make_backend(server(tags=(("qwen2.5:7b", GEN_DIGEST),)), embedder="bge-m3")
    with pytest.raises(
        BackendError,
        match=r"model 'bge-m3' is not available on http://a.test:11434: run 'ollama pull bge-m3'",
    ):
        backend.identity()


def test_identity_checks_every_host_for_same_weights() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/tags" and request.url.host == "b.test":
            return tags_response(("qwen2.5:7b", "c" * 64), ("nomic-embed-text:latest", EMB_DIGEST))
        return server()(request)

    backend, _, _ = make_backend(respond, hosts=[HOST_A, HOST_B])
    with pytest.raises(BackendError, match=r"model 'qwen2.5:7b' differs between Ollama hosts") as info:
        backend.identity()
    assert HOST_A in str(info.value) and HOST_B in str(info.value)


def test_identity_over_two_hosts_reports_first_host() -> None:
    backend, rec, _ = make_backend(server(), hosts=[HOST_A, HOST_B])
    assert backend.identity()["host"] == HOST_A
    assert {r.url.host for r in rec.requests} == {"a.test", "b.test"}


# ------------------------------------------------------------------------ round-robin


def test_round_robin_over_two_hosts() -> None:
    backend, rec, _ = make_backend(server(), hosts=f"{HOST_A},{HOST_B}")
    for _ in range(4):
        backend.generate("q", GenerationOptions())
    backend.embed(["x"])
    assert [r.url.host for r in rec.requests] == ["a.test", "b.test", "a.test", "b.test", "a.test"]


def test_round_robin_is_thread_safe() -> None:
    backend, rec, _ = make_backend(server(), hosts=[HOST_A, HOST_B])
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda i: backend.generate(f"q{i}", GenerationOptions()), range(40)))
    assert answers == ["Three seats."] * 40
    assert Counter(r.url.host for r in rec.requests) == {"a.test": 20, "b.test": 20}


def test_retries_stay_on_the_failing_host() -> None:
    failures = {"n": 0}

    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.host == "a.test" and failures["n"] < 1:
            failures["n"] += 1
            return httpx.Response(503, json={"error": "busy"})
        return chat_ok(request)

    backend, rec, sleeps = make_backend(respond, hosts=[HOST_A, HOST_B])
    backend.generate("q", GenerationOptions())
    backend.generate("q", GenerationOptions())
    assert [r.url.host for r in rec.requests] == ["a.test", "a.test", "b.test"]
    assert sleeps == [0.5]


# ----------------------------------------------------------------------------- errors


def flaky(failures: int, status: int = 500) -> Handler:
    state = {"left": failures}

    def respond(request: httpx.Request) -> httpx.Response:
        if state["left"] > 0:
            state["left"] -= 1
            return httpx.Response(status, json={"error": "llama runner process has terminated"})
        return chat_ok(request)

    return respond


def test_retries_on_500_then_succeeds() -> None:
    backend, rec, sleeps = make_backend(flaky(2), backoff=0.5, max_retries=3)
    assert backend.generate("q", GenerationOptions()) == "Three seats."
    assert len(rec.requests) == 3
    assert sleeps == [0.5, 1.0]


def test_retries_on_429() -> None:
    backend, rec, sleeps = make_backend(flaky(1, status=429), backoff=0.25)
    assert backend.generate("q", GenerationOptions()) == "Three seats."
    assert len(rec.requests) == 2
    assert sleeps == [0.25]


def test_retries_exhausted_gives_helpful_message() -> None:
    backend, rec, sleeps = make_backend(flaky(100, status=503), max_retries=3, backoff=0.5)
    with pytest.raises(BackendError) as info:
        backend.generate("q", GenerationOptions())
    message = str(info.value)
    assert len(rec.requests) == 4
    assert sleeps == [0.5, 1.0, 2.0]
    assert f"{HOST_A}/api/chat" in message
    assert "after 4 attempts" in message
    assert "HTTP 503: llama runner process has terminated" in message
    # the server answered: the advice is about a busy or failing server, never to start it or pull a model
    assert "The server is up but unavailable (overloaded, or still loading the model)" in message
    assert "ollama serve" not in message and "ollama pull" not in message


def test_connect_error_names_ollama_serve_and_configured_models() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    backend, rec, sleeps = make_backend(refuse, generator="llama3.2:1b", embedder="bge-m3", max_retries=2)
    with pytest.raises(BackendError) as info:
        backend.embed(["a"])
    message = str(info.value)
    assert len(rec.requests) == 3
    assert sleeps == [0.5, 1.0]
    assert f"{HOST_A}/api/embed" in message
    assert "Connection refused" in message
    assert "'ollama serve'" in message
    assert "'ollama pull llama3.2:1b' and 'ollama pull bge-m3'" in message


def test_timeout_is_retried() -> None:
    state = {"calls": 0}

    def slow_once(request: httpx.Request) -> httpx.Response:
        state["calls"] += 1
        if state["calls"] == 1:
            raise httpx.ReadTimeout("timed out", request=request)
        return chat_ok(request)

    backend, _, sleeps = make_backend(slow_once)
    assert backend.generate("q", GenerationOptions()) == "Three seats."
    assert sleeps == [0.5]


def test_zero_retries_fails_on_first_error() -> None:
    backend, rec, sleeps = make_backend(flaky(1), max_retries=0)
    with pytest.raises(BackendError, match="after 1 attempt:"):
        backend.generate("q", GenerationOptions())
    assert len(rec.requests) == 1
    assert sleeps == []


def test_4xx_not_retried_and_quotes_server_error() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": "invalid options: num_ctx"})

    backend, rec, sleeps = make_backend(respond)
    with pytest.raises(BackendError) as info:
        backend.generate("q", GenerationOptions())
    assert len(rec.requests) == 1
    assert sleeps == []
    assert "HTTP 400: invalid options: num_ctx" in str(info.value)
    assert f"{HOST_A}/api/chat" in str(info.value)


def test_404_model_on_chat_suggests_pull() -> None:
    body = {"error": 'model "qwen2.5:7b" not found, try pulling it first'}
    backend, _, sleeps = make_backend(lambda r: httpx.Response(404, json=body))
    with pytest.raises(BackendError) as info:
        backend.generate("q", GenerationOptions())
    message = str(info.value)
    assert sleeps == []
    assert 'model "qwen2.5:7b" not found' in message
    assert "ollama pull qwen2.5:7b" in message


# ------------------------------------------------------------------- hosts / OLLAMA_HOST


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", DEFAULT_HOST),
        ("127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("gpu-box:8080", "http://gpu-box:8080"),
        ("gpu-box", "http://gpu-box:11434"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        (":9999", "http://127.0.0.1:9999"),
        ("http://gpu-box:11434", "http://gpu-box:11434"),
        ("http://gpu-box:11434/", "http://gpu-box:11434"),
        ("HTTPS://ollama.example.com", "https://ollama.example.com:443"),
        ("http://ollama.example.com", "http://ollama.example.com:80"),
        ("https://proxy.example.com/ollama/", "https://proxy.example.com:443/ollama"),
        ("[::1]:11434", "http://[::1]:11434"),
        ("::1", "http://[::1]:11434"),
        ("  gpu-box:1234  ", "http://gpu-box:1234"),
    ],
)
def test_normalize_host(value: str, expected: str) -> None:
    assert normalize_host(value) == expected


@pytest.mark.parametrize("value", ["gpu-box:abc", "gpu-box:70000", "ftp://gpu-box", "[::1", "a:b:c"])
def test_normalize_host_rejects_garbage(value: str) -> None:
    with pytest.raises(BackendError, match="invalid Ollama host"):
        normalize_host(value)


def test_ollama_host_env_host_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    assert OllamaBackend().hosts == ["http://gpu-box:11500"]


def test_ollama_host_env_with_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "https://ollama.example.com:8443")
    assert OllamaBackend().hosts == ["https://ollama.example.com:8443"]


def test_ollama_host_env_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "a.test:11434, http://b.test:11435 ,,")
    assert OllamaBackend().hosts == ["http://a.test:11434", "http://b.test:11435"]


def test_ollama_host_env_unset_uses_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert OllamaBackend().hosts == [DEFAULT_HOST] == ["http://127.0.0.1:11434"]


def test_explicit_hosts_override_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "ignored:1")
    assert parse_hosts(["a.test", "b.test:2,c.test:3"]) == [
        "http://a.test:11434",
        "http://b.test:2",
        "http://c.test:3",
    ]
    assert OllamaBackend(hosts="a.test").hosts == ["http://a.test:11434"]


def test_env_host_used_for_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "a.test:1234,b.test:5678")
    rec = Recorder(chat_ok)
    backend = OllamaBackend(transport=httpx.MockTransport(rec), sleep=lambda s: None)
    backend.generate("q", GenerationOptions())
    backend.generate("q", GenerationOptions())
    assert [str(r.url) for r in rec.requests] == [
        "http://a.test:1234/api/chat",
        "http://b.test:5678/api/chat",
    ]


def test_path_prefix_is_kept_for_reverse_proxies() -> None:
    backend, rec, _ = make_backend(chat_ok, hosts="https://proxy.test/ollama")
    backend.generate("q", GenerationOptions())
    assert str(rec.requests[0].url) == "https://proxy.test/ollama/api/chat"  # httpx drops the default port


# ------------------------------------------------------------------------------ ping


def test_ping_true_when_every_host_answers() -> None:
    backend, rec, _ = make_backend(server(), hosts=[HOST_A, HOST_B])
    assert backend.ping() is True
    assert [(r.method, str(r.url)) for r in rec.requests] == [
        ("GET", f"{HOST_A}/api/version"),
        ("GET", f"{HOST_B}/api/version"),
    ]


def test_ping_false_on_error_status_or_connect_error() -> None:
    def respond(request: httpx.Request) -> httpx.Response:
        if request.url.host == "b.test":
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"version": "0.9.0"})

    backend, _, sleeps = make_backend(respond, hosts=[HOST_A, HOST_B])
    assert backend.ping() is False
    assert sleeps == []
    backend500, _, _ = make_backend(lambda r: httpx.Response(500))
    assert backend500.ping() is False


def test_ollama_reachable() -> None:
    assert ollama_reachable(HOST_A, transport=httpx.MockTransport(server())) is True

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    assert ollama_reachable(HOST_A, transport=httpx.MockTransport(refuse)) is False
    assert ollama_reachable("bad-host:notaport") is False


@pytest.mark.parametrize(
    ("value", "segment", "root"),
    [
        ("http://gpu-box:11434/v1", "v1", "http://gpu-box:11434"),
        ("gpu-box:11434/v1/", "v1", "http://gpu-box:11434"),
        ("https://proxy.example.com/ollama/v1", "v1", "https://proxy.example.com/ollama"),
        ("http://gpu-box:11434/api", "api", "http://gpu-box:11434"),
    ],
)
def test_a_host_ending_in_an_api_path_is_refused_with_the_root_to_use(value: str, segment: str, root: str) -> None:
    # /v1 is the OpenAI-compatible API; EvalGate would ask /v1/api/show, get a 404 and blame a missing model
    with pytest.raises(BackendError) as info:
        normalize_host(value)
    assert str(info.value).startswith(f"invalid Ollama host {value!r}: it ends in /{segment}, ")
    assert str(info.value).endswith(f"EvalGate adds Ollama's own /api/... paths to the server's root URL: use {root}")


def test_a_404_that_is_not_ollamas_model_error_names_the_url_not_a_pull() -> None:
    # a reverse proxy's or a wrong prefix's "404 page not found" (plain text, as Go servers send it)
    backend, _, _ = make_backend(lambda r: httpx.Response(404, text="404 page not found"))
    with pytest.raises(BackendError) as info:
        backend.identity()
    message = str(info.value)
    assert message == (
        f"Ollama at {HOST_A}/api/show rejected the request with HTTP 404: 404 page not found; no Ollama endpoint "
        f"answered there: is {HOST_A} the root URL of an Ollama server?"
    )


def test_429_says_rate_limit_not_start_ollama() -> None:
    backend, _, _ = make_backend(flaky(100, status=429), max_retries=1)
    with pytest.raises(BackendError) as info:
        backend.generate("q", GenerationOptions())
    assert str(info.value).endswith(
        "The server is up but refuses more requests (rate limit): lower --jobs, or raise --retries"
    )

"""A deterministic in-process Ollama server for tests and the benchmark, with fault injection.

:class:`FakeOllama` is an ``httpx.MockTransport`` handler implementing the five
endpoints EvalGate uses:

* ``POST /api/embed``: hashed bag-of-words vectors (SHA-256 of each content token
  picks a dimension and a sign, then L2-normalised), so similar texts are near each
  other and retrieval behaves like retrieval; identical in every process;
* ``POST /api/chat``: the context sentence sharing most content words with the
  question, or ``I don't know.`` when none shares two, a pure function of the prompt;
* ``POST /api/show``, ``GET /api/tags``, ``GET /api/version``: model identity and liveness.

Faults (all counted over *model* requests, i.e. ``/api/embed`` and ``/api/chat``):
:meth:`FakeOllama.fail` (an HTTP status, e.g. 500, for the next n requests),
:meth:`FakeOllama.time_out` (``httpx.ReadTimeout`` for the next n requests),
:meth:`FakeOllama.go_down` (connection refused after n more requests, until
:meth:`FakeOllama.come_up`), :meth:`FakeOllama.interrupt_on` (``KeyboardInterrupt``
raised inside request n, as if the user pressed Ctrl-C while it was in flight),
``delay`` (seconds slept per model request) and :meth:`FakeOllama.rendezvous`
(the next n chat requests wait for each other: proof that they were in flight together).
Standing faults, for long runs and the command-line server: :meth:`FakeOllama.fail_every`
(every n-th model request gets an HTTP status) and :meth:`FakeOllama.hang_after` (every
model request after the n-th times out).

tests/fake_ollama_server.py serves the same handler over real HTTP on loopback, where a
timeout becomes a request that never answers and "down" a closed listening socket.

:func:`fake_transport` returns a picklable transport bound to a named server, so a
:class:`~evalgate_lib.generation.backends.BackendSpec` that carries it can be shipped to joblib
process workers (``loky``), where it re-binds to that process's server of the same name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import numpy as np

GENERATOR = "qwen2.5:7b"
EMBEDDER = "nomic-embed-text"
DIGESTS = {GENERATOR: "1" * 64, EMBEDDER: "2" * 64}  # /api/tags lists bare hex digests
DIM = 64
MODEL_PATHS = ("/api/embed", "/api/chat")

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by can do does for from how i in is it of on or the to what when which with".split()
)
_SENTENCE = re.compile(r"[^\n.!?]+[.!?]?")


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def embed_text(text: str, dim: int = DIM) -> list[float]:
    """Hashed bag of words, L2-normalised; an empty text gets a fixed unit vector."""
    vector = np.zeros(dim, dtype=np.float64)
    for word in _words(text):
        h = hashlib.sha256(word.encode()).digest()
        vector[h[0] % dim] += 1.0 if h[1] & 1 else -1.0
    norm = np.linalg.norm(vector)
    if norm == 0:
        vector[0], norm = 1.0, 1.0
    return [round(float(x), 6) for x in vector / norm]


def answer_prompt(prompt: str) -> str:
    """The context sentence sharing most content words (at least 2) with the question, else a refusal."""
    head, _, tail = prompt.rpartition("Question:")
    question = set(_words(tail.split("\n", 1)[0]))
    context = head.split("Context:", 1)[-1]
    best, best_score = "", 0
    for match in _SENTENCE.finditer(context):
        sentence = match.group().strip()
        if sentence.startswith("[") or len(sentence) < 3:
            continue
        score = len(question & set(_words(sentence)))
        if score > best_score:
            best, best_score = sentence, score
    return best if best_score >= 2 else "I don't know."


class FakeOllama:
    """The handler: ``httpx.MockTransport(FakeOllama())`` behaves like an Ollama server.

    Every fault takes an optional ``path`` (``"/api/chat"`` or ``"/api/embed"``); without
    one it counts requests to both. Retries are requests too: a fault for the next 2
    requests is cleared by the first two attempts, whichever calls they belong to.
    """

    def __init__(self, delay: float = 0.0, dim: int = DIM, parallel: int | None = None) -> None:
        """``parallel`` caps model requests served at once, like ``OLLAMA_NUM_PARALLEL`` (others queue)."""
        self.delay = delay
        self.dim = dim
        self.parallel = parallel
        self._slots = threading.BoundedSemaphore(parallel) if parallel else None
        self._lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []  # (host, path) of every request answered normally
        # (method, path, request JSON, status, response JSON) of the same requests, for wire-format checks
        self.exchanges: list[tuple[str, str, Any, int, Any]] = []
        self.seen: Counter[str] = Counter()  # model requests received per path, faulty ones included
        self._faults: list[tuple[str | None, int, Any]] = []  # (path, request number on that path, fault)
        self._standing: list[tuple[str | None, int, int, Any]] = []  # (path, first number, period, fault)
        self._down_at: tuple[str | None, int] | None = None
        self._down = False
        self._barrier: threading.Barrier | None = None
        self._rendezvous_left = 0
        self.in_flight = 0
        self.max_in_flight = 0

    # -- fault injection

    def _count(self, path: str | None) -> int:
        return self.seen[path] if path else sum(self.seen[p] for p in MODEL_PATHS)

    def _schedule(self, fault: Any, times: int, path: str | None, after: int = 0) -> None:
        with self._lock:
            first = self._count(path) + after + 1
            self._faults.extend((path, n, fault) for n in range(first, first + times))

    def fail(self, status: int = 500, times: int = 1, path: str | None = None) -> None:
        """Answer the next ``times`` model requests with HTTP ``status`` and an Ollama-style error body."""
        self._schedule(status, times, path)

    def time_out(self, times: int = 1, path: str | None = None) -> None:
        """Raise ``httpx.ReadTimeout`` for the next ``times`` model requests."""
        self._schedule("timeout", times, path)

    def fail_every(self, every: int, status: int = 500, path: str | None = None) -> None:
        """Answer every ``every``-th model request from now on with HTTP ``status`` (a flaky server)."""
        if every < 1:
            raise ValueError("every must be >= 1")
        with self._lock:
            self._standing.append((path, self._count(path) + every, every, status))

    def hang_after(self, after: int = 0, path: str | None = None) -> None:
        """Serve ``after`` more model requests normally, then time out every one (a wedged server)."""
        with self._lock:
            self._standing.append((path, self._count(path) + after + 1, 1, "timeout"))

    def answer_malformed(self, after: int = 0, path: str | None = None) -> None:
        """Serve ``after`` more model requests normally, then answer every one with HTTP 200 and a non-JSON body."""
        with self._lock:
            self._standing.append((path, self._count(path) + after + 1, 1, "malformed"))

    def interrupt_on(self, n: int, path: str | None = None) -> None:
        """Raise ``KeyboardInterrupt`` inside the ``n``-th model request from now (1-based)."""
        self._schedule("interrupt", 1, path, after=n - 1)

    def go_down(self, after: int = 0, path: str | None = None) -> None:
        """Serve ``after`` more model requests, then refuse every connection until :meth:`come_up`."""
        with self._lock:
            self._down_at = (path, self._count(path) + after)

    def come_up(self) -> None:
        with self._lock:
            self._down_at, self._down = None, False

    def rendezvous(self, parties: int, timeout: float = 30.0) -> None:
        """Hold the next ``parties`` chat requests until all of them have arrived (proves concurrency)."""
        with self._lock:
            self._barrier = threading.Barrier(parties, timeout=timeout)
            self._rendezvous_left = parties

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def counts(self) -> Counter[str]:
        """Requests answered normally, per path."""
        with self._lock:
            return Counter(path for _, path in self.requests)

    def hosts(self, path: str) -> Counter[str]:
        """Requests to ``path`` answered normally, per host."""
        with self._lock:
            return Counter(host for host, p in self.requests if p == path)

    # -- the server

    def _fault_for(self, path: str) -> Any:
        """Count this model request and return its fault (``None`` for a normal answer)."""
        with self._lock:
            if self._down_at is not None and self._count(self._down_at[0]) >= self._down_at[1]:
                self._down = True
            self.seen[path] += 1
            if self._down:
                return "down"
            for i, (fpath, number, fault) in enumerate(self._faults):
                if (fpath == path and self.seen[path] == number) or (fpath is None and self._count(None) == number):
                    del self._faults[i]
                    return fault
            for fpath, first, period, fault in self._standing:
                number = self._count(fpath)
                if fpath in (None, path) and number >= first and (number - first) % period == 0:
                    return fault
            return None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path in MODEL_PATHS:
            fault = self._fault_for(path)
            if fault == "interrupt":
                raise KeyboardInterrupt
            if fault == "down":
                raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
            if fault == "timeout":
                raise httpx.ReadTimeout("timed out", request=request)
            if fault == "malformed":  # e.g. a proxy's HTML page where Ollama should be
                return httpx.Response(200, text="<html>502 Bad Gateway</html>")
            if isinstance(fault, int):
                return httpx.Response(fault, json={"error": f"injected failure (HTTP {fault})"})
            return self._timed(request, path)
        return self._answer(request, path)

    def _timed(self, request: httpx.Request, path: str) -> httpx.Response:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            barrier = None
            with self._lock:
                if self._barrier is not None and path == "/api/chat" and self._rendezvous_left > 0:
                    self._rendezvous_left -= 1
                    barrier = self._barrier
            if barrier is not None:
                barrier.wait()  # BrokenBarrierError after the timeout: the requests were not concurrent
            with self._slots or contextlib.nullcontext():
                if self.delay:
                    time.sleep(self.delay)
                return self._answer(request, path)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _answer(self, request: httpx.Request, path: str) -> httpx.Response:
        body: Any = json.loads(request.content) if request.content else None
        response = self._respond(path, body)
        with self._lock:
            self.requests.append((request.url.host, path))
            self.exchanges.append((request.method, path, body, response.status_code, json.loads(response.content)))
        return response

    def _respond(self, path: str, body: Any) -> httpx.Response:
        """Ollama's answer, with the fields a real server sends (tests/test_ollama_fidelity.py parses them).

        Durations and timestamps are fixed so every answer is a pure function of the request.
        """
        if path == "/api/version":
            return httpx.Response(200, json={"version": "0.6.8"})
        if path == "/api/tags":
            models = [
                {
                    "name": _tagged(m),
                    "model": _tagged(m),
                    "modified_at": _MODIFIED_AT,
                    "size": 4_683_087_332 if m == GENERATOR else 274_302_450,
                    "digest": d,
                    "details": _details(m),
                }
                for m, d in DIGESTS.items()
            ]
            return httpx.Response(200, json={"models": models})
        model = body.get("model") if isinstance(body, dict) else None
        if path in ("/api/show", "/api/embed", "/api/chat") and model not in DIGESTS:
            return httpx.Response(404, json={"error": f"model '{model}' not found"})
        if path == "/api/show":
            show = {
                "license": "fake",
                "modelfile": "# fake",
                "parameters": "temperature 0.7",
                "template": "{{ .Prompt }}",
                "details": _details(model),
                "model_info": {"general.architecture": _details(model)["family"]},
                "capabilities": ["completion"] if model == GENERATOR else ["embedding"],
                "modified_at": _MODIFIED_AT,
            }
            return httpx.Response(200, json=show)
        if path == "/api/embed":
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            embeddings = [embed_text(t, self.dim) for t in texts]
            return httpx.Response(
                200,
                json={
                    "model": model,
                    "embeddings": embeddings,
                    "total_duration": 1_000_000 * len(texts),
                    "load_duration": 1_000,
                    "prompt_eval_count": sum(len(t.split()) for t in texts),
                },
            )
        if path == "/api/chat":
            prompt = body["messages"][-1]["content"]
            answer = answer_prompt(prompt)
            chat = {
                "model": model,
                "created_at": _CREATED_AT,
                "message": {"role": "assistant", "content": answer},
                "done_reason": "stop",
                "done": True,
                "total_duration": 2_000_000,
                "load_duration": 1_000,
                "prompt_eval_count": len(prompt.split()),
                "prompt_eval_duration": 1_000_000,
                "eval_count": len(answer.split()),
                "eval_duration": 1_000_000,
            }
            return httpx.Response(200, json=chat)
        return httpx.Response(404, json={"error": f"unknown endpoint {path}"})


_MODIFIED_AT = "2025-01-01T00:00:00.000000000Z"
_CREATED_AT = "2025-01-01T00:00:00.000000000Z"


def _tagged(model: str) -> str:
    """Ollama lists every model with its tag: ``nomic-embed-text`` appears as ``nomic-embed-text:latest``."""
    return model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"


def _details(model: str) -> dict[str, Any]:
    family = "qwen2" if model == GENERATOR else "nomic-bert"
    return {
        "parent_model": "",
        "format": "gguf",
        "family": family,
        "families": [family],
        "parameter_size": "7.6B" if model == GENERATOR else "137M",
        "quantization_level": "Q4_K_M" if model == GENERATOR else "F16",
    }


# ------------------------------------------------------------------ named servers

SERVERS: dict[str, FakeOllama] = {}
_servers_lock = threading.Lock()


def server(name: str = "default") -> FakeOllama:
    """This process's fake server called ``name`` (created on first use)."""
    with _servers_lock:
        return SERVERS.setdefault(name, FakeOllama())


class FakeTransport(httpx.MockTransport):
    """A MockTransport bound to a named server: picklable, and equal to any other bound to the same name.

    Equality matters because backends are built once per (kind, options) and
    process: every unpickled copy in a worker maps to the same backend.
    """

    def __init__(self, name: str = "default") -> None:
        self.name = name
        super().__init__(server(name))

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return FakeTransport, (self.name,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeTransport) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("FakeTransport", self.name))


def fake_transport(name: str = "default") -> FakeTransport:
    return FakeTransport(name)


def no_sleep(seconds: float) -> None:
    """Retry back-off that does not really wait (module-level, so it pickles)."""


@contextlib.contextmanager
def serving(srv: Any, **backend_kwargs: Any) -> Iterator[Any]:
    """Within the block, ``--backend ollama`` talks to ``srv`` (retries never really sleep).

    ``srv`` is either an in-process :class:`FakeOllama` (plugged in as the transport, any
    ``--hosts`` value works) or anything else, e.g. a real HTTP server from
    tests/fake_ollama_server.py or ``None`` for one in another process (real sockets;
    pass its URL as ``--hosts``). Patches :meth:`BackendSpec._construct` and empties the per-process backend and
    cache registries, so nothing built against another server is reused. Only for
    in-process joblib backends (threading, sequential); process workers need a spec
    that carries a :class:`FakeTransport` instead.
    """
    from evalgate_lib.generation import backends
    from evalgate_lib.generation.backends.ollama import OllamaBackend
    from evalgate_lib.run import parallel

    def construct(spec: Any) -> OllamaBackend:
        if spec.kind != "ollama":
            raise AssertionError(f"only --backend ollama is served by the fake, not {spec.kind!r}")
        transport = srv.transport if isinstance(srv, FakeOllama) else None
        kwargs = {"transport": transport, "sleep": no_sleep, "backoff": 0.0, **backend_kwargs}
        return OllamaBackend(**{**kwargs, **dict(spec.options)})

    with (
        mock.patch.object(backends, "_built", {}),
        mock.patch.object(parallel, "_caches", {}),
        mock.patch.object(backends.BackendSpec, "_construct", construct),
    ):
        yield srv


ROOT = Path(__file__).resolve().parents[1]
HOST = "http://a.test:11434"


def evalgate_run(
    cache: Path, out: Path, *extra: str, limit: int | None = 24, hosts: str = HOST, configs: Path | None = None
) -> int:
    """``evalgate run --backend ollama`` in this process (inside :func:`serving`); returns the exit code."""
    folder = configs or ROOT / "configs"
    argv = [
        "run",
        "--backend",
        "ollama",
        "--hosts",
        hosts,
        "--cache-dir",
        str(cache),
        "--out",
        str(out),
        "--baseline",
        str(folder / "baseline.toml"),
        "--candidate",
        str(folder / "candidate.toml"),
        "--no-progress",
    ]
    if limit is not None:
        argv += ["--limit", str(limit)]
    from evalgate_lib.cli import main

    return main([*argv, *extra])


def published(out: Path) -> dict[str, bytes]:
    """The byte contents of the files a rerun must reproduce exactly."""
    from evalgate_lib.run.results import PUBLISHED_FILES

    return {name: (out / name).read_bytes() for name in PUBLISHED_FILES}


def run_stats(out: Path) -> dict[str, Any]:
    return json.loads((out / "run_stats.json").read_text())

"""Backend that talks to one or more Ollama servers over their HTTP API.

Only four endpoints are used: ``/api/embed`` (batched embeddings), ``/api/chat``
(one non-streamed answer per prompt), ``/api/show`` + ``/api/tags`` (model
identity and weight digests, which go into every cache key) and ``/api/version``
(a cheap liveness probe for ``--backend auto``).

Design choices, and why:

* One ``httpx.Client`` per host, reused for the whole run, so connections stay
  alive between the hundreds of small requests an evaluation makes.
* Several hosts (``OLLAMA_HOST=a:11434,b:11434``) are served round-robin behind a
  lock, so a thread pool generating answers concurrently spreads its load over
  all servers. A retry stays on the host that failed, so the error a user finally
  sees names the exact server that is down instead of a mix of them.
* Transient failures (connection refused, timeouts, HTTP 5xx and 429) are
  retried with exponential backoff; the sleep function is injectable so tests
  never really sleep. Other 4xx answers are the caller's fault (unknown model,
  bad request) and retrying cannot help, so they fail at once.
* Every failure surfaces as :class:`~evalgate_lib.errors.BackendError` with the
  URL, the cause and the command that fixes it, because the CLI prints it as is.
* A request that has not answered after a few seconds says so on stderr, every few
  seconds, naming the URL, the model, the time waited out of the timeout and the try
  (:class:`WaitNotice`): a wedged server must not look like a silent hang for the
  minutes the read timeout allows. Quick answers print nothing. The read timeout and
  the retries are options (``[shared.models.ollama] timeout/retries``, ``--timeout``,
  ``--retries``); they change how long a run waits, never an answer, so they are not
  part of the identity or any cache key.
"""

from __future__ import annotations

import ipaddress
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Self

import httpx
import numpy as np

from evalgate_lib.errors import BackendError
from evalgate_lib.inputs.options import GenerationOptions

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_RETRIES",
    "OllamaBackend",
    "OllamaHTTPError",
    "normalize_host",
    "ollama_reachable",
    "parse_hosts",
    "WaitNotice",
]

DEFAULT_PORT = 11434
DEFAULT_HOST = f"http://127.0.0.1:{DEFAULT_PORT}"

# Status codes worth retrying: the server is overloaded, restarting or briefly
# unable to load a model. Anything else in 4xx is a request problem.
_RETRY_STATUS_MIN = 500
_TOO_MANY_REQUESTS = 429

_BODY_SNIPPET = 200  # characters of a non-JSON body quoted in an error message

#: Seconds one request may wait for its answer. Long because a first request makes Ollama
#: load the model into memory, which can take minutes for a 7B model on a laptop.
DEFAULT_READ_TIMEOUT = 300.0
#: Retries after a transient failure (so ``DEFAULT_RETRIES + 1`` tries in all).
DEFAULT_RETRIES = 3
#: A request still unanswered after this many seconds says what it waits for, and again
#: every as many seconds (sooner under a short timeout: see :func:`notice_interval`).
WAIT_NOTICE_SECONDS = 10.0


class OllamaHTTPError(BackendError):
    """The server answered with a non-retryable 4xx status; ``status_code`` lets callers tell 404 apart.

    ``model_missing`` is whether the body is Ollama's own "model ... not found" error: a 404 from a
    path no Ollama endpoint has (a proxy's page, a wrong URL prefix) is not a missing model.
    """

    def __init__(self, message: str, url: str, status_code: int, model_missing: bool = False) -> None:
        super().__init__(message)
        self.url = url
        self.status_code = status_code
        self.model_missing = model_missing


# --------------------------------------------------------------------------- hosts


def normalize_host(value: str) -> str:
    """Turn one ``OLLAMA_HOST``-style value into a base URL such as ``http://127.0.0.1:11434``.

    Mirrors the Ollama CLI's own rules, so whatever works for ``ollama run`` works
    here: no scheme means ``http`` and port 11434; an explicit ``http://`` or
    ``https://`` without a port means 80 or 443; an empty host means 127.0.0.1;
    bare and bracketed IPv6 addresses are accepted; a path is kept (for servers
    behind a reverse proxy). Unlike the CLI, an invalid port is an error rather
    than silently replaced, because evaluating against the wrong server is worse
    than stopping.
    """
    text = value.strip()
    default_port = str(DEFAULT_PORT)
    if "://" in text:
        scheme, hostport = text.split("://", 1)
        scheme = scheme.lower()
        if scheme == "http":
            default_port = "80"
        elif scheme == "https":
            default_port = "443"
        else:
            raise BackendError(f"invalid Ollama host {value!r}: unsupported scheme {scheme!r}, use http:// or https://")
    else:
        scheme, hostport = "http", text

    hostport, _, path = hostport.partition("/")
    host, port = _split_host_port(hostport, value)
    host = host or "127.0.0.1"
    port = port or default_port
    if not port.isdigit() or not 0 < int(port) <= 65535:
        raise BackendError(f"invalid Ollama host {value!r}: port {port!r} is not a number in 1..65535")
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    path = path.strip("/")
    last = path.rsplit("/", 1)[-1].lower()
    if last in _API_SEGMENTS:
        root = f"{scheme}://{hostport}" + ("/" + path.rsplit("/", 1)[0] if "/" in path else "")
        raise BackendError(
            f"invalid Ollama host {value!r}: it ends in /{path.rsplit('/', 1)[-1]}, {_API_SEGMENTS[last]}; EvalGate "
            f"adds Ollama's own /api/... paths to the server's root URL: use {root}"
        )
    return f"{scheme}://{host}:{int(port)}" + (f"/{path}" if path else "")


#: Last path segments that name an API rather than a server behind a proxy: EvalGate would add its own
#: ``/api/chat`` after them and reach no endpoint (a 404 it could only read as a missing model).
_API_SEGMENTS = {
    "v1": "the path of Ollama's OpenAI-compatible API, which EvalGate does not use",
    "api": "the prefix of Ollama's own API, which EvalGate adds itself",
}


def _split_host_port(hostport: str, original: str) -> tuple[str, str]:
    """Split ``host:port`` (IPv6 in brackets, or bare without a port); missing parts are ``''``."""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            raise BackendError(f"invalid Ollama host {original!r}: unbalanced '[' in IPv6 address")
        host, rest = hostport[1:end], hostport[end + 1 :]
        if rest and not rest.startswith(":"):
            raise BackendError(f"invalid Ollama host {original!r}: unexpected {rest!r} after IPv6 address")
        return host, rest[1:]
    if hostport.count(":") > 1:  # bare IPv6 address, no port possible
        try:
            ipaddress.IPv6Address(hostport)
        except ValueError:
            raise BackendError(f"invalid Ollama host {original!r}: not a host:port pair") from None
        return hostport, ""
    host, _, port = hostport.partition(":")
    return host, port


def parse_hosts(hosts: str | Sequence[str] | None = None) -> list[str]:
    """Resolve the list of Ollama base URLs to use.

    ``hosts`` may be a comma-separated string or a sequence of strings; ``None``
    reads ``OLLAMA_HOST`` (itself possibly a comma list) and falls back to
    :data:`DEFAULT_HOST`. Duplicates are kept on purpose: listing a big server
    twice gives it twice the share of the round-robin.
    """
    if hosts is None:
        hosts = os.environ.get("OLLAMA_HOST", "")
    items = hosts.split(",") if isinstance(hosts, str) else [part for h in hosts for part in h.split(",")]
    urls = [normalize_host(item) for item in items if item.strip()]
    return urls or [DEFAULT_HOST]


# ------------------------------------------------------------------------ backend


class OllamaBackend:
    """:class:`~evalgate_lib.generation.backends.base.Backend` implemented on Ollama's HTTP API.

    Safe to share between threads: ``httpx.Client`` is thread-safe, and the
    round-robin counter and the identity cache are guarded by locks.
    """

    name = "ollama"

    def __init__(
        self,
        generator: str = "qwen2.5:7b",
        embedder: str = "nomic-embed-text",
        hosts: str | Sequence[str] | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        backoff: float = 0.5,
        embed_batch_size: int = 32,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        say: Callable[[str], None] | None = None,
    ) -> None:
        """Set up one client per host; no request is made until the backend is used.

        ``read_timeout`` is long because a first request makes Ollama load the model
        into memory, which can take minutes for a 7B model on a laptop.
        ``transport`` exists so tests can plug in ``httpx.MockTransport``.
        ``say`` receives the waiting notices of slow requests (default: one
        ``evalgate: waiting for ...`` line on stderr each).
        """
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if not read_timeout > 0:
            raise ValueError("read_timeout must be > 0")
        if embed_batch_size < 1:
            raise ValueError("embed_batch_size must be >= 1")
        self.generator = generator
        self.embedder = embedder
        self.hosts: list[str] = parse_hosts(hosts)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.embed_batch_size = embed_batch_size
        self._sleep = sleep
        self._say = say or say_on_stderr
        timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._clients: list[httpx.Client] = [
            httpx.Client(base_url=host, timeout=timeout, transport=transport) for host in self.hosts
        ]
        self._rr_lock = threading.Lock()
        self._rr_next = 0
        self._identity_lock = threading.Lock()
        self._identity: dict[str, str] | None = None

    # -- lifecycle

    def close(self) -> None:
        """Close every per-host connection pool."""
        for client in self._clients:
            client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OllamaBackend(generator={self.generator!r}, embedder={self.embedder!r}, hosts={self.hosts!r})"

    # -- Backend protocol

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in batches of ``embed_batch_size`` and return a float32 ``(n, dim)`` array.

        Batching keeps each request small enough to stay well inside the read
        timeout while still amortising the per-request overhead. ``truncate`` is
        on so an over-long chunk is cut by the server rather than failing the run.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings, not a single string")
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        parts: list[np.ndarray] = []
        dim: int | None = None
        for start in range(0, len(texts), self.embed_batch_size):
            batch = texts[start : start + self.embed_batch_size]
            body = {"model": self.embedder, "input": batch, "truncate": True}
            data, url = self._request("POST", "/api/embed", json=body)
            vectors = self._parse_embeddings(data, url, len(batch))
            if dim is None:
                dim = vectors.shape[1]
            elif vectors.shape[1] != dim:
                raise BackendError(
                    f"malformed response from {url}: embedding dimension changed from {dim} to "
                    f"{vectors.shape[1]} between batches (are the hosts serving different "
                    f"'{self.embedder}' models?)"
                )
            parts.append(vectors)
        return np.ascontiguousarray(np.concatenate(parts, axis=0), dtype=np.float32)

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        """Send ``prompt`` as a single user message and return the stripped answer.

        ``stream`` is off because the pipeline needs the whole answer anyway, and
        temperature/seed/num_predict/num_ctx/stop are always sent explicitly so a
        Modelfile's defaults can never change results behind the fairness contract
        (an empty stop list is sent as ``[]``, overriding a Modelfile's ``stop``).
        """
        body = {
            "model": self.generator,
            "messages": [{"role": "user", "content": prompt}],
            "stream": False,
            "options": {
                "temperature": options.temperature,
                "seed": options.seed,
                "num_predict": options.max_tokens,
                "num_ctx": options.num_ctx,
                "stop": list(options.stop),
            },
        }
        data, url = self._request("POST", "/api/chat", json=body)
        message = data.get("message") if isinstance(data, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise BackendError(f"malformed response from {url}: expected a 'message' with a string 'content'")
        return content.strip()

    def identity(self) -> dict[str, str]:
        """Model names and weight digests; computed once, then cached on the instance.

        The digest is what makes a cache key trustworthy: ``ollama pull`` can put
        new weights under an old name. ``/api/show`` confirms the model exists; as
        it does not always carry a digest, ``/api/tags`` supplies it. Every host is
        checked, because round-robin generation over hosts holding different
        weights under the same name would silently mix two models in one run.
        """
        with self._identity_lock:
            if self._identity is None:
                self._identity = self._compute_identity()
            return dict(self._identity)

    # -- liveness

    def ping(self, timeout: float = 1.0) -> bool:
        """True if every configured host answers ``GET /api/version`` with HTTP 200.

        All hosts must answer because requests are spread over all of them: one
        dead host would fail the run part-way. Never raises and never retries,
        since it only decides whether to use this backend at all.
        """
        for client in self._clients:
            try:
                response = client.get("/api/version", timeout=httpx.Timeout(timeout))
            except httpx.HTTPError:
                return False
            if response.status_code != 200:
                return False
        return True

    # -- internals

    def _fix_hint(self) -> str:
        return (
            "Start Ollama with 'ollama serve' (or set OLLAMA_HOST to a running server) and pull the models: "
            f"'ollama pull {self.generator}' and 'ollama pull {self.embedder}'"
        )

    def _timeout_hint(self) -> str:
        """A timeout means the server is up but slow or wedged: say how to wait longer, not how to start it."""
        return (
            f"No answer within {self.read_timeout:g} s; if the server is only slow (a first request loads "
            "the model into memory), wait longer with --timeout SECONDS or [shared.models.ollama] timeout"
        )

    def _pick_client(self) -> int:
        """Index of the next host in round-robin order (thread-safe)."""
        with self._rr_lock:
            index = self._rr_next
            self._rr_next = (index + 1) % len(self._clients)
        return index

    def _request(self, method: str, path: str, json: Any = None, host_index: int | None = None) -> tuple[Any, str]:
        """Send one request with retries; return ``(parsed JSON body, full URL)``.

        ``host_index`` pins a host (identity checks each one); otherwise the next
        host in round-robin order is used.
        """
        index = self._pick_client() if host_index is None else host_index
        client = self._clients[index]
        url = f"{self.hosts[index]}{path}"
        attempts = self.max_retries + 1
        model = json.get("model") if isinstance(json, dict) else None
        cause = ""
        hint = self._fix_hint()
        for attempt in range(attempts):
            if attempt:
                self._sleep(self.backoff * 2 ** (attempt - 1))
            waiting = _waiting_message(url, model, self.read_timeout, attempt + 1, attempts)
            try:
                with WaitNotice(waiting, notice_interval(self.read_timeout), self._say, until=self.read_timeout):
                    response = client.request(method, path, json=json)
            except httpx.TimeoutException as exc:
                cause = f"timed out ({_describe(exc)})"
                hint = self._timeout_hint()
                continue
            except httpx.TransportError as exc:
                cause = _connect_cause(exc, self.hosts[index])
                hint = self._fix_hint()
                continue
            except httpx.HTTPError as exc:  # e.g. an undecodable body: not transient
                raise BackendError(f"Ollama request to {url} failed: {_describe(exc)}") from None
            status = response.status_code
            if status >= _RETRY_STATUS_MIN or status == _TOO_MANY_REQUESTS:
                cause = f"HTTP {status}: {_error_text(response)}"
                hint = _status_hint(status)
                continue
            if status >= 400:
                missing = _model_missing(response)
                raise OllamaHTTPError(_client_error_message(url, response, model, missing), url, status, missing)
            try:
                return response.json(), url
            except ValueError:
                raise BackendError(
                    f"malformed response from {url}: body is not JSON: {_snippet(response.text)!r} "
                    "(is OLLAMA_HOST pointing at an Ollama server?)"
                ) from None
        tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
        raise BackendError(f"Ollama request to {url} failed after {tries}: {cause}. {hint}")

    def _parse_embeddings(self, data: Any, url: str, expected: int) -> np.ndarray:
        """Validate an ``/api/embed`` body and return its vectors as a float32 matrix."""
        embeddings = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(embeddings, list):
            raise BackendError(f"malformed response from {url}: no 'embeddings' list in the body")
        if len(embeddings) != expected:
            raise BackendError(f"malformed response from {url}: asked for {expected} embeddings, got {len(embeddings)}")
        if not all(isinstance(vec, list) and vec for vec in embeddings):
            raise BackendError(f"malformed response from {url}: every embedding must be a non-empty list")
        dims = {len(vec) for vec in embeddings}
        if len(dims) != 1:
            raise BackendError(f"malformed response from {url}: embeddings have differing dimensions {sorted(dims)}")
        if not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            for vec in embeddings
            for x in vec
        ):
            raise BackendError(f"malformed response from {url}: embeddings must contain only finite numbers")
        return np.asarray(embeddings, dtype=np.float32)

    def _compute_identity(self) -> dict[str, str]:
        digests: dict[str, str] = {}
        for model in (self.generator, self.embedder):
            per_host: dict[str, str] = {}
            for index, host in enumerate(self.hosts):
                per_host[host] = self._model_digest(index, model)
            if len(set(per_host.values())) > 1:
                listing = ", ".join(f"{h} has {d[:12]}" for h, d in per_host.items())
                raise BackendError(
                    f"model '{model}' differs between Ollama hosts ({listing}): "
                    f"run 'ollama pull {model}' on every host so they serve the same weights"
                )
            digests[model] = per_host[self.hosts[0]]
        return {
            "backend": self.name,
            "generator": self.generator,
            "generator_digest": digests[self.generator],
            "embedder": self.embedder,
            "embedder_digest": digests[self.embedder],
            "host": self.hosts[0],
        }

    def _model_digest(self, index: int, model: str) -> str:
        """Digest of ``model`` on host ``index``: from ``/api/show`` if present, else ``/api/tags``."""
        host = self.hosts[index]
        missing = f"model '{model}' is not available on {host}: run 'ollama pull {model}'"
        try:
            shown, _ = self._request("POST", "/api/show", json={"model": model}, host_index=index)
        except OllamaHTTPError as exc:
            if exc.status_code == 404 and exc.model_missing:
                raise BackendError(missing) from None
            if exc.status_code == 404:
                raise BackendError(
                    f"{exc}; no Ollama endpoint answered there: is {host} the root URL of an Ollama server?"
                ) from None
            raise
        digest = shown.get("digest") if isinstance(shown, dict) else None
        if isinstance(digest, str) and digest:
            return digest
        tags, url = self._request("GET", "/api/tags", host_index=index)
        models = tags.get("models") if isinstance(tags, dict) else None
        if not isinstance(models, list):
            raise BackendError(f"malformed response from {url}: no 'models' list in the body")
        wanted = _canonical_model(model)
        for entry in models:
            if not isinstance(entry, dict):
                continue
            names = {entry.get("name"), entry.get("model")}
            if any(isinstance(n, str) and _canonical_model(n) == wanted for n in names):
                found = entry.get("digest")
                if not isinstance(found, str) or not found:
                    raise BackendError(f"malformed response from {url}: model '{model}' has no digest")
                return found
        raise BackendError(missing)


def _canonical_model(name: str) -> str:
    """``nomic-embed-text`` and ``nomic-embed-text:latest`` name the same model; make them equal.

    Only the last path segment can carry a tag: in ``registry:5000/ns/model`` the
    colon belongs to the registry port.
    """
    name = name.strip()
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _BODY_SNIPPET else text[:_BODY_SNIPPET] + "..."


def _connect_cause(exc: httpx.TransportError, host: str) -> str:
    """What a transport error means: a host name that does not resolve is told apart from a refused connection.

    The DNS case names the host instead of quoting the resolver's wording, which differs
    between systems (``Name or service not known``, ``nodename nor servname provided``).
    """
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            name = httpx.URL(host).host
            return f"could not resolve the host name {name!r} (DNS lookup failed)"
        seen = seen.__cause__ or seen.__context__
    return f"could not connect ({_describe(exc)})"


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _client_error_message(url: str, response: httpx.Response, model: object, missing: bool) -> str:
    """Message for a non-retryable 4xx, quoting Ollama's ``error`` text and, for a missing model, the pull command."""
    message = f"Ollama at {url} rejected the request with HTTP {response.status_code}: {_error_text(response)}"
    if missing and isinstance(model, str):
        message += f"; if the model is missing, run 'ollama pull {model}'"
    return message


def _model_missing(response: httpx.Response) -> bool:
    """Whether a 404 is Ollama saying a model is not there (``{"error": "model 'x' not found"}``), not a wrong path."""
    text = _error_text(response) if response.status_code == 404 else ""
    try:
        ollama_json = isinstance(response.json(), dict)
    except ValueError:
        ollama_json = False
    return ollama_json and "model" in text.lower() and "not found" in text.lower()


def _status_hint(status: int) -> str:
    """What a retried 5xx or 429 means: the server is up and answering, so 'start Ollama' would be the wrong advice."""
    if status == _TOO_MANY_REQUESTS:
        return "The server is up but refuses more requests (rate limit): lower --jobs, or raise --retries"
    if status == 503:
        return (
            "The server is up but unavailable (overloaded, or still loading the model): wait and rerun, lower "
            "--jobs, or raise --retries; its own log says more"
        )
    return (
        f"The server is up but failed with HTTP {status}: its own log says why (often a model that could not be "
        "loaded, e.g. out of memory); fix that and rerun"
    )


def _error_text(response: httpx.Response) -> str:
    """The server's ``error`` field if the body is Ollama's JSON error, else a snippet of the body."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        return data["error"]
    return _snippet(response.text) or response.reason_phrase or "no detail"


# ----------------------------------------------------------------- waiting notices


def notice_interval(timeout: float) -> float:
    """Seconds between waiting notices: :data:`WAIT_NOTICE_SECONDS`, or half the timeout when that is shorter.

    Under a short timeout a hung request still says what it waits for once before it gives up.
    """
    return min(WAIT_NOTICE_SECONDS, timeout / 2)


def _waiting_message(url: str, model: object, timeout: float, attempt: int, attempts: int) -> Callable[[float], str]:
    about = f" (model {model})" if isinstance(model, str) else ""

    def message(elapsed: float) -> str:
        return f"waiting for {url}{about}, {int(elapsed)} s of {timeout:g} s, try {attempt} of {attempts}"

    return message


def say_on_stderr(message: str) -> None:
    """Print ``evalgate: <message>`` on stderr, above a progress bar if one is drawn (so it is not torn)."""
    line = f"evalgate: {message}"
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        print(line, file=sys.stderr, flush=True)
        return
    tqdm.write(line, file=sys.stderr)


class WaitNotice:
    """While the ``with`` block runs, say ``message(elapsed)`` every ``interval`` seconds (until ``until`` seconds).

    ``until`` is the request's timeout: a notice due when the timeout fires would race the
    error message, so the notices stop there.

    A small daemon thread per request rather than httpx timeouts split into short reads:
    httpx cannot resume reading a response after its read timeout fires, so shorter
    timeouts would turn a slow answer into a retry. The thread only waits on an event,
    so a quick request costs one thread start and prints nothing.
    """

    def __init__(
        self,
        message: Callable[[float], str],
        interval: float,
        say: Callable[[str], None],
        until: float | None = None,
    ) -> None:
        self.message = message
        self.interval = interval
        self.say = say
        self.until = until
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="evalgate-wait-notice", daemon=True)

    def _tick(self) -> None:
        started = time.monotonic()
        while not self._done.wait(self.interval):
            elapsed = time.monotonic() - started
            if self.until is not None and elapsed >= self.until:
                return
            self.say(self.message(elapsed))

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._done.set()
        self._thread.join()


def ollama_reachable(
    hosts: str | Sequence[str] | None = None,
    timeout: float = 1.0,
    *,
    transport: httpx.BaseTransport | None = None,
) -> bool:
    """Whether every Ollama host (``OLLAMA_HOST`` by default) answers within ``timeout`` seconds.

    Used by ``--backend auto`` to choose between Ollama and the embedded
    backend, so it never raises: a malformed ``OLLAMA_HOST`` simply counts as
    unreachable (selecting ``--backend ollama`` explicitly reports it properly).
    """
    try:
        backend = OllamaBackend(
            hosts=hosts, connect_timeout=timeout, read_timeout=timeout, max_retries=0, transport=transport
        )
    except BackendError:
        return False
    with backend:
        return backend.ping(timeout)

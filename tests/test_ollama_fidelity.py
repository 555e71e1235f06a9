"""EvalGate and the fake server speak Ollama's API as the official ``ollama`` Python client defines it.

Two fakes talking to each other can agree on a wrong API. So both sides are held to the
official client (PyPI ``ollama``, the `scale` extra), over real HTTP on loopback:

* every request body EvalGate sends validates against the client's own pydantic request
  types (``ChatRequest``, ``EmbedRequest``, ``ShowRequest``, ``Options``, ``Message``) with
  no field those types do not know (pydantic would silently drop one, and Ollama ignores
  one: a misspelt option would quietly change the answers);
* for the same call, EvalGate's body equals the one the official client sends;
* every answer the fake gives parses into the client's response types (``ChatResponse``,
  ``EmbedResponse``, ``ShowResponse``, ``ListResponse``), through the client itself and by
  validating every answer of a whole EvalGate run, and its errors become the client's
  ``ResponseError`` with the right status;
* host strings resolve to the same base URL as the client's own ``OLLAMA_HOST`` parsing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ollama  # the `scale` extra, installed by scripts/install.sh
import pytest
from fake_ollama import EMBEDDER, GENERATOR, FakeOllama, evalgate_run, serving
from fake_ollama_server import FakeOllamaServer
from ollama import _types as wire
from ollama._client import _parse_host
from pydantic import BaseModel

from evalgate_lib.generation.backends.ollama import OllamaBackend, normalize_host
from evalgate_lib.inputs.options import GenerationOptions

PROMPT = (
    "Context:\n[1] Plans\nThe Starter plan includes 3 seats. The Team plan includes 20 seats.\n\n"
    "Question: How many seats does the Starter plan include?\nAnswer:"
)
OPTIONS = GenerationOptions(temperature=0.0, seed=42, max_tokens=128, num_ctx=4096)

#: The request type the official client sends to each endpoint EvalGate uses.
REQUEST_TYPES: dict[str, type[BaseModel]] = {
    "/api/chat": wire.ChatRequest,
    "/api/embed": wire.EmbedRequest,
    "/api/show": wire.ShowRequest,
}
#: The response type the official client parses each endpoint's answer into.
RESPONSE_TYPES: dict[str, type[BaseModel]] = {
    "/api/chat": wire.ChatResponse,
    "/api/embed": wire.EmbedResponse,
    "/api/show": wire.ShowResponse,
    "/api/tags": wire.ListResponse,
}
#: Fields a real Ollama server sends that the client's models leave out (``/api/tags`` names every model twice).
KNOWN_EXTRA = {"ListResponse.Model": {"name"}}


def field_names(model: type[BaseModel]) -> set[str]:
    """Every key the model accepts: field names and their JSON aliases (``model_info`` for ``modelinfo``)."""
    return {n for name, f in model.model_fields.items() for n in (name, f.alias) if n}


def unknown(model: type[BaseModel], data: dict[str, Any], label: str) -> list[str]:
    """Keys of ``data`` that ``model`` does not declare, as ``label.key``."""
    allowed = field_names(model) | KNOWN_EXTRA.get(label, set())
    return [f"{label}.{key}" for key in data if key not in allowed]


def unknown_in_request(path: str, body: dict[str, Any]) -> list[str]:
    """Unknown keys anywhere in an EvalGate request body, nested messages and options included."""
    found = unknown(REQUEST_TYPES[path], body, REQUEST_TYPES[path].__name__)
    for message in body.get("messages") or []:
        found += unknown(wire.Message, message, "Message")
    if isinstance(body.get("options"), dict):
        found += unknown(wire.Options, body["options"], "Options")
    return found


def unknown_in_response(path: str, body: dict[str, Any]) -> list[str]:
    """Unknown keys anywhere in a fake answer: a field the fake made up that no client would read."""
    found = unknown(RESPONSE_TYPES[path], body, RESPONSE_TYPES[path].__name__)
    if isinstance(body.get("message"), dict):
        found += unknown(wire.Message, body["message"], "Message")
    if isinstance(body.get("details"), dict):
        found += unknown(wire.ModelDetails, body["details"], "ModelDetails")
    for entry in body.get("models") or []:
        found += unknown(wire.ListResponse.Model, entry, "ListResponse.Model")
        found += unknown(wire.ModelDetails, entry.get("details") or {}, "ModelDetails")
    return found


@pytest.fixture
def server() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer(FakeOllama()) as srv:
        yield srv


@pytest.fixture
def official(server) -> Iterator[ollama.Client]:
    client = ollama.Client(host=server.url, timeout=30)
    yield client
    client.close()


def _evalgate_calls(url: str) -> tuple[list[float], str]:
    """What a run asks of a server: identity (show, tags), batched embeddings, one chat."""
    with OllamaBackend(hosts=url, embed_batch_size=2, max_retries=0) as backend:
        backend.identity()
        vectors = backend.embed(["Starter plan seats", "Team plan seats", "refund policy"])
        answer = backend.generate(PROMPT, OPTIONS)
    return vectors[0].tolist(), answer


def test_evalgate_requests_validate_against_the_official_request_types(server):
    _evalgate_calls(server.url)
    bodies = [(path, body) for _, path, body, _, _ in server.exchanges if path in REQUEST_TYPES]
    assert {path for path, _ in bodies} == set(REQUEST_TYPES)
    for path, body in bodies:
        REQUEST_TYPES[path].model_validate(body, strict=True)
        assert unknown_in_request(path, body) == [], (path, body)
        if "options" in body:
            parsed = wire.Options.model_validate(body["options"], strict=True)
            assert parsed.model_dump(exclude_none=True) == body["options"]  # every value kept, as typed
        for message in body.get("messages") or []:
            wire.Message.model_validate(message, strict=True)


def test_evalgate_sends_the_bodies_the_official_client_sends(server, official):
    _evalgate_calls(server.url)
    ours = {path: body for _, path, body, _, _ in server.exchanges if path in REQUEST_TYPES}
    server.exchanges.clear()

    official.show(EMBEDDER)  # EvalGate's last /api/show is for the embedder
    official.embed(model=EMBEDDER, input=["refund policy"], truncate=True)
    official.chat(
        model=GENERATOR,
        messages=[{"role": "user", "content": PROMPT}],
        stream=False,
        options=wire.Options(
            temperature=OPTIONS.temperature,
            seed=OPTIONS.seed,
            num_predict=OPTIONS.max_tokens,
            num_ctx=OPTIONS.num_ctx,
            stop=list(OPTIONS.stop),
        ),
    )
    theirs = {path: body for _, path, body, _, _ in server.exchanges if path in REQUEST_TYPES}
    # The client always sends a (here empty) tool list; an absent one means the same to Ollama.
    assert theirs["/api/chat"].pop("tools") == []
    assert ours["/api/chat"] == theirs["/api/chat"]
    assert ours["/api/embed"] == theirs["/api/embed"]
    assert ours["/api/show"] == theirs["/api/show"] == {"model": EMBEDDER}


def test_the_official_client_parses_every_answer_of_the_fake(server, official):
    first_vector, answer = _evalgate_calls(server.url)

    chat = official.chat(
        model=GENERATOR,
        messages=[{"role": "user", "content": PROMPT}],
        options={"temperature": 0.0, "seed": 42, "num_predict": 128, "num_ctx": 4096},
    )
    assert isinstance(chat, wire.ChatResponse) and chat.done and chat.done_reason == "stop"
    assert (
        chat.message.role == "assistant"
        and chat.message.content.strip() == answer == "The Starter plan includes 3 seats."
    )

    embedded = official.embed(model=EMBEDDER, input=["Starter plan seats", "Team plan seats"])
    assert isinstance(embedded, wire.EmbedResponse) and len(embedded.embeddings) == 2
    assert list(embedded.embeddings[0]) == pytest.approx(first_vector, abs=1e-6)  # float32 on EvalGate's side

    shown = official.show(GENERATOR)
    assert isinstance(shown, wire.ShowResponse) and shown.details and shown.details.family
    assert shown.modelinfo is not None  # a required field: the fake once left it out

    listed = official.list()
    assert isinstance(listed, wire.ListResponse)
    assert {m.model for m in listed.models} == {GENERATOR, f"{EMBEDDER}:latest"}
    assert all(m.digest for m in listed.models)


def test_every_answer_in_a_whole_run_parses_into_the_official_response_types(tmp_path, server):
    with serving(None):
        assert evalgate_run(tmp_path / "cache", tmp_path / "out", limit=6, hosts=server.url) == 0
    answered = [(path, status, body) for _, path, _, status, body in server.exchanges]
    assert {path for path, _, _ in answered} >= set(RESPONSE_TYPES)
    for path, status, body in answered:
        assert status == 200, (path, body)
        if path == "/api/version":
            assert isinstance(body["version"], str)
            continue
        RESPONSE_TYPES[path].model_validate(body)
        assert unknown_in_response(path, body) == [], (path, body)


def test_fake_errors_become_the_official_clients_response_error(server, official):
    with pytest.raises(ollama.ResponseError) as missing:
        official.chat(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
    assert missing.value.status_code == 404 and missing.value.error == "model 'no-such-model' not found"

    server.fail(500, times=1, path="/api/embed")
    with pytest.raises(ollama.ResponseError) as failed:
        official.embed(model=EMBEDDER, input="x")
    assert failed.value.status_code == 500 and failed.value.error == "injected failure (HTTP 500)"


@pytest.mark.parametrize(
    "value",
    [
        "",
        "1.2.3.4",
        "1.2.3.4:56",
        "example.com",
        "example.com:56",
        "http://example.com",
        "https://example.com",
        "https://example.com:56",
        "http://example.com/path",
        "example.com:56/path/",
        "[0001:002:003:0004::1]",
        "[0001:002:003:0004::1]:56",
        "http://[0001:002:003:0004::1]",
        "https://[::1]:56/path",
        ":56",
        "localhost",
    ],
)
def test_hosts_resolve_like_the_official_client(value):
    assert normalize_host(value) == _parse_host(value)

"""Backend selection: ``auto`` uses Ollama when a server answers, else the embedded local models.

A :class:`BackendSpec` is a small picklable recipe for a backend, so that the
per-question work can be shipped to joblib workers (threads, processes, or a
Dask/Ray cluster) and each worker builds its own backend once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from evalgate_lib.errors import InputError
from evalgate_lib.generation.backends.base import Backend
from evalgate_lib.inputs.options import GenerationOptions

__all__ = ["Backend", "BackendSpec", "GenerationOptions", "resolve_backend", "BACKEND_CHOICES"]

BACKEND_CHOICES = ("auto", "ollama", "local")

_built: dict[tuple, Backend] = {}
_built_lock = threading.Lock()


@dataclass(frozen=True)
class BackendSpec:
    """Which backend to build, with its constructor arguments."""

    kind: str
    options: tuple[tuple[str, Any], ...] = field(default_factory=tuple)

    def build(self) -> Backend:
        """The backend for this spec, built once per process and then shared."""
        key = (self.kind, self.options)
        with _built_lock:
            if key not in _built:
                _built[key] = self._construct()
            return _built[key]

    def _construct(self) -> Backend:
        kwargs = dict(self.options)
        if self.kind == "ollama":
            from evalgate_lib.generation.backends.ollama import OllamaBackend

            return OllamaBackend(**kwargs)
        if self.kind == "local":
            from evalgate_lib.generation.backends.local import LocalBackend

            return LocalBackend(**kwargs)
        raise InputError(f"unknown backend {self.kind!r}; choose one of {BACKEND_CHOICES}")


def resolve_backend(
    choice: str,
    models: dict[str, dict[str, Any]],
    hosts: str | None = None,
    timeout: float | None = None,
    retries: int | None = None,
) -> BackendSpec:
    """Turn ``--backend auto|ollama|local`` into a spec; ``auto`` probes Ollama with a short timeout.

    ``models`` is the config's ``[shared.models]`` table: ``models["ollama"]`` names the
    Ollama generator and embedder (the local backend's models are fixed by its packages)
    and may set its ``timeout`` and ``retries``; ``timeout``/``retries`` here (the command
    line's) override those. Unset, the backend's defaults apply. They only govern waiting,
    so the local backend ignores them.
    """
    if choice not in BACKEND_CHOICES:
        raise InputError(f"unknown backend {choice!r}; choose one of {BACKEND_CHOICES}")
    if choice == "auto":
        from evalgate_lib.generation.backends.ollama import ollama_reachable

        choice = "ollama" if ollama_reachable(hosts) else "local"
    if choice == "local":
        return BackendSpec("local")
    ollama = models.get("ollama", {})
    options: dict[str, Any] = {
        "generator": ollama.get("generator", "qwen2.5:7b"),
        "embedder": ollama.get("embedder", "nomic-embed-text"),
    }
    timeout = timeout if timeout is not None else ollama.get("timeout")
    retries = retries if retries is not None else ollama.get("retries")
    if timeout is not None:
        options["read_timeout"] = float(timeout)
    if retries is not None:
        options["max_retries"] = int(retries)
    # Resolved here, in the parent, so that joblib workers on other machines (Dask, Ray)
    # talk to the hosts this process chose, not to whatever their own OLLAMA_HOST says.
    from evalgate_lib.generation.backends.ollama import parse_hosts

    options["hosts"] = ",".join(parse_hosts(hosts))
    return BackendSpec("ollama", tuple(sorted(options.items())))

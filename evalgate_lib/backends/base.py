"""The one small interface every model backend implements.

The pipeline only ever embeds a batch of texts and generates one answer from one
prompt, so a backend is exactly those two calls plus an identity. The identity
(backend name, model names and digests) is part of every cache key: a different
model, or the same name with different weights, can never reuse a cached result.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol, Sequence, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class GenerationOptions:
    """Decoding options shared by both configurations (the fairness contract holds them fixed)."""

    temperature: float = 0.0
    seed: int = 42
    max_tokens: int = 128
    num_ctx: int = 4096

    def as_dict(self) -> dict[str, float | int]:
        """Plain dict, used in cache keys and in the manifest."""
        return asdict(self)


@runtime_checkable
class Backend(Protocol):
    """A source of embeddings and generations."""

    name: str

    def identity(self) -> dict[str, str]:
        """Model identity: keys ``backend``, ``generator``, ``generator_digest``,
        ``embedder``, ``embedder_digest``. Stable across processes for the same weights."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` and return a float32 array of shape ``(len(texts), dim)``."""
        ...

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        """Answer ``prompt`` (sent as one user message) greedily and return the text."""
        ...

"""The one small interface every model backend implements.

The pipeline only ever embeds a batch of texts and generates one answer from one
prompt, so a backend is exactly those two calls plus an identity. The identity
(backend name, model names and digests) is part of every cache key: a different
model, or the same name with different weights, can never reuse a cached result.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from evalgate_lib.inputs.options import GenerationOptions


@runtime_checkable
class Backend(Protocol):
    """A source of embeddings and generations.

    Optional: ``generates_in_process = True`` with a ``prepare_generation()`` method marks a
    backend whose model runs in EvalGate's own process; a run then generates in worker processes
    by default (``evalgate_lib.run.parallel.generation_workers``). Without it, one request at a time.
    """

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

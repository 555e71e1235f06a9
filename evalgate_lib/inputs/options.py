"""Decoding options: part of a run's inputs, read from ``[shared]`` and held fixed by the fairness contract.

They live with the inputs (not with the backends) because the config loader
validates them and the backends only read them: data flows one way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The default stop sequences. A small instruction model that has answered tends to go
#: on writing its own "Question: … Answer: …" pairs until ``max_tokens``; those run-ons
#: cost most of the generation time and add claims nobody asked for. Stopping at a new
#: "Question:" line ends the answer where the model itself starts something else; the
#: answer text never contains the stop sequence (Ollama's behaviour, matched locally).
DEFAULT_STOP: tuple[str, ...] = ("\nQuestion:",)


@dataclass(frozen=True)
class GenerationOptions:
    """Decoding options shared by both configurations (the fairness contract holds them fixed)."""

    temperature: float = 0.0
    seed: int = 42
    max_tokens: int = 128
    num_ctx: int = 4096
    stop: tuple[str, ...] = field(default=DEFAULT_STOP)

    def __post_init__(self) -> None:
        # A cache entry stores the options as a dict (``stop`` as a list); keep them one canonical type.
        object.__setattr__(self, "stop", tuple(self.stop))

    def as_dict(self) -> dict[str, Any]:
        """Plain dict, used in cache keys and in the manifest (``stop`` as a list)."""
        return {
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "num_ctx": self.num_ctx,
            "stop": list(self.stop),
        }

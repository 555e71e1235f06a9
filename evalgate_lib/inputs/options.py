"""Decoding options: part of a run's inputs, read from ``[shared]`` and held fixed by the fairness contract.

They live with the inputs (not with the backends) because the config loader
validates them and the backends only read them: data flows one way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


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

"""Memoisation of every embedding and generation, keyed by the full input.

Model calls dominate a run, and a before/after number must be reproducible, so
each call goes through :class:`joblib.Memory`. The key is joblib's hash of every
argument that can change the output: the backend identity (backend name, model
names *and* weight digests), every decoding option, and the exact text. Change
any of them and the call misses the cache; change none and a rerun makes zero
model calls.

joblib writes each entry atomically (temporary file, then rename), so a crash
or Ctrl-C mid-write never leaves a half entry under the final name. On top of
that each entry stores a SHA-256 of its value, checked on every read: an entry
that fails to load or fails the check is reported (``corrupt_entries`` and a
warning) and recomputed, never silently used.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import joblib
import numpy as np

from evalgate_lib.errors import CacheError
from evalgate_lib.generation.backends.base import Backend
from evalgate_lib.inputs.options import GenerationOptions

log = logging.getLogger(__name__)

#: The identity fields that enter cache keys.
IDENTITY_KEYS = ("backend", "generator", "generator_digest", "generator_runtime", "embedder", "embedder_digest")


def _digest(value: Any) -> str:
    if isinstance(value, np.ndarray):
        payload = str(value.dtype).encode() + str(value.shape).encode() + np.ascontiguousarray(value).tobytes()
    else:
        payload = str(value).encode("utf-8")
    return hashlib.sha256(payload).hexdigest()


def _embed_entry(backend: Backend, identity: dict[str, str], texts: tuple[str, ...]) -> dict:
    """Memoised body: runs only on a cache miss. ``backend`` is not hashed; ``identity`` stands for it."""
    vectors = np.asarray(backend.embed(list(texts)), dtype=np.float32)
    if vectors.shape[0] != len(texts):
        raise CacheError(f"backend returned {vectors.shape[0]} embeddings for {len(texts)} texts")
    return {"value": vectors, "sha256": _digest(vectors)}


def _generate_entry(backend: Backend, identity: dict[str, str], options: dict[str, Any], prompt: str) -> dict:
    """Memoised body: runs only on a cache miss."""
    text = backend.generate(prompt, GenerationOptions(**options))
    return {"value": text, "sha256": _digest(text)}


@dataclass
class CacheStats:
    """What a run cost: model calls made (misses), hits, and corrupt entries recomputed."""

    embed_calls: int = 0
    generate_calls: int = 0
    hits: int = 0
    corrupt_entries: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, kind: str, executed: bool, corrupt: bool) -> None:
        with self._lock:
            if corrupt:
                self.corrupt_entries += 1
            if executed:
                setattr(self, f"{kind}_calls", getattr(self, f"{kind}_calls") + 1)
            else:
                self.hits += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "embed_calls": self.embed_calls,
            "generate_calls": self.generate_calls,
            "hits": self.hits,
            "corrupt_entries": self.corrupt_entries,
        }


#: joblib files each memoised function's entries under its module path. The entry functions
#: keep the module name they had when the first entries were written (0.1's flat layout), so
#: moving this module into ``generation/`` did not orphan every cached model call. Only the
#: folder name depends on it: the key is still the hash of the full input, and joblib still
#: drops a function's entries when its source changes.
CACHE_NAMESPACE = "evalgate_lib.cache"
_embed_entry.__module__ = CACHE_NAMESPACE
_generate_entry.__module__ = CACHE_NAMESPACE


class ModelCache:
    """A backend wrapped in joblib memoisation; the only way the pipeline reaches a model."""

    def __init__(self, backend: Backend, location: str | Path, embed_batch_size: int = 64) -> None:
        self.backend = backend
        self.location = Path(location)
        self.embed_batch_size = embed_batch_size
        self.stats = CacheStats()
        try:
            self.memory = joblib.Memory(str(self.location), verbose=0)
        except OSError as exc:
            raise CacheError(f"cannot use cache folder {self.location}: {exc}") from None
        self._embed = self.memory.cache(_embed_entry, ignore=["backend"])
        self._generate = self.memory.cache(_generate_entry, ignore=["backend"])
        self._identity: dict[str, str] | None = None

    @property
    def identity(self) -> dict[str, str]:
        """The backend's model identity, asked once: it is part of every key.

        Only the model-defining fields are kept; which host served a request does
        not change the weights, so it must not split the cache.
        """
        if self._identity is None:
            full = self.backend.identity()
            self._identity = {k: str(full[k]) for k in IDENTITY_KEYS if k in full}
        return self._identity

    def _fetch(self, kind: str, func: Any, *args: Any) -> tuple[Any, bool, bool]:
        """(value, whether the model was called, whether a corrupt entry was replaced).

        A cached entry is loaded here rather than by joblib's own call path, so an
        entry that cannot be unpickled (truncated, garbage) and an entry whose value
        fails its checksum are handled alike: one clear warning, then the model is
        called and the entry overwritten. (joblib would log a traceback quoting the
        whole prompt, and recompute only the first kind.)
        """
        corrupt = False
        if func.check_call_in_cache(self.backend, *args):
            try:
                record = func.call_and_shelve(self.backend, *args).get()
            except Exception:  # any unreadable entry is corrupt, whatever unpickling raised
                record = None
            if _valid(record):
                return record["value"], False, False
            corrupt = True
            log.warning("corrupt %s cache entry under %s: recomputed it", kind, self.location)
        record, _ = func.call(self.backend, *args)
        return record["value"], True, corrupt

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, one cache entry per batch of ``embed_batch_size`` texts."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        size = self.embed_batch_size
        parts = []
        for i in range(0, len(texts), size):
            value, executed, corrupt = self._fetch("embed", self._embed, self.identity, tuple(texts[i : i + size]))
            self.stats.add("embed", executed, corrupt)
            parts.append(value)
        return np.vstack(parts)

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        """The answer to ``prompt`` under ``options``, from the cache when it is there."""
        text, executed, corrupt = self.generate_with_status(prompt, options)
        self.stats.add("generate", executed, corrupt)
        return text

    def is_generation_cached(self, prompt: str, options: GenerationOptions) -> bool:
        """Whether the answer to ``prompt`` under ``options`` is in the cache, without loading it or calling the model.

        Lets a run count the generations it still has to make before it starts. An entry
        that turns out corrupt when read counts as cached here and is recomputed then.
        """
        return bool(self._generate.check_call_in_cache(self.backend, self.identity, options.as_dict(), prompt))

    def generate_with_status(self, prompt: str, options: GenerationOptions) -> tuple[str, bool, bool]:
        """Like :meth:`generate` but leaves counting to the caller (a joblib worker's parent)."""
        return self._fetch("generate", self._generate, self.identity, options.as_dict(), prompt)


def _valid(record: Any) -> bool:
    return isinstance(record, dict) and "value" in record and record.get("sha256") == _digest(record["value"])


def prompt_sha256(prompt: str) -> str:
    """Short, stable id of a prompt, shown in result rows so a reader can match cache entries."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()

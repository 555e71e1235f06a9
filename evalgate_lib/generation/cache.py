"""Memoisation of every embedding and generation, keyed by the full input.

Model calls dominate a run, and a before/after number must be reproducible, so
each call goes through :class:`ModelCache`. The key is the SHA-256 of the
canonical JSON of every input that can change the output: the kind of call, the
backend identity (backend name, model names *and* weight digests), every decoding
option, and the exact text. Change any of them and the call misses the cache;
change none and a rerun makes zero model calls.

Entries live in EvalGate's own content-addressed store
(:mod:`evalgate_lib.generation.store`), signed when the team has set a signing key
(:mod:`evalgate_lib.signing`): JSON for answers, ``.npy`` read without
pickle for embeddings, each value with a SHA-256 checked on every read. Nothing in
the folder is executed or unpickled, so a cache folder can be shared or received
from someone else: it is data, and it is checked. An entry that cannot be read,
does not parse, has the wrong shape or fails its checksum is reported
(``corrupt_entries`` and one warning naming its file) and recomputed, never used.

Releases before this store memoised through ``joblib.Memory``, which pickles: a
crafted ``output.pkl`` in such a cache ran code when read. That old layout
(``cache/joblib/``) is not read at all; a cache written by an earlier release is
recomputed once, and the old folder can be deleted.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from evalgate_lib.errors import BackendError, CacheError
from evalgate_lib.generation.backends.base import Backend
from evalgate_lib.generation.store import CorruptEntry, EntryStore, entry_key, is_unicode
from evalgate_lib.inputs.options import GenerationOptions
from evalgate_lib.signing import signing_key

log = logging.getLogger(__name__)

#: The identity fields that enter cache keys.
IDENTITY_KEYS = ("backend", "generator", "generator_digest", "generator_runtime", "embedder", "embedder_digest")


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


class ModelCache:
    """A backend wrapped in a content-addressed store of its outputs; the only way the pipeline reaches a model."""

    def __init__(self, backend: Backend, location: str | Path, embed_batch_size: int = 64) -> None:
        self.backend = backend
        self.location = Path(location)
        self.embed_batch_size = embed_batch_size
        self.stats = CacheStats()
        self.store = EntryStore(self.location, signing_key())
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

    def _fetch(
        self,
        kind: str,
        inputs: dict[str, Any],
        read: Callable[[str], Any],
        compute: Callable[[], Any],
        write: Callable[[str, Any], None],
    ) -> tuple[Any, bool, bool]:
        """(value, whether the model was called, whether a corrupt entry was replaced).

        A corrupt entry gets one warning naming its file and the reason (never its
        content: a prompt can be long and private), then the model is called and
        the entry overwritten.
        """
        key = entry_key(inputs)
        corrupt = False
        try:
            value = read(key)
        except CorruptEntry as exc:
            value, corrupt = None, True
            log.warning("corrupt %s cache entry %s: %s; recomputed it", kind, self.store.record_path(kind, key), exc)
        if value is not None:
            return value, False, False
        value = compute()
        write(key, value)
        return value, True, corrupt

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, one cache entry per batch of ``embed_batch_size`` texts."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        size = self.embed_batch_size
        parts = []
        for i in range(0, len(texts), size):
            value, executed, corrupt = self._embed_batch(list(texts[i : i + size]))
            self.stats.add("embed", executed, corrupt)
            parts.append(value)
        return np.vstack(parts)

    def _embed_batch(self, batch: list[str]) -> tuple[np.ndarray, bool, bool]:
        inputs = {"kind": "embed", "identity": self.identity, "texts": batch}

        def compute() -> np.ndarray:
            vectors = np.asarray(self.backend.embed(batch), dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(batch):
                raise CacheError(f"backend returned embeddings of shape {vectors.shape} for {len(batch)} texts")
            return vectors

        return self._fetch(
            "embed",
            inputs,
            read=lambda key: self.store.read_array(key, inputs, len(batch)),
            compute=compute,
            write=lambda key, vectors: self.store.write_array(key, inputs, vectors),
        )

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
        key = entry_key(self._generation_inputs(prompt, options))
        return self.store.record_path("generate", key).is_file()

    def _generation_inputs(self, prompt: str, options: GenerationOptions) -> dict[str, Any]:
        """Everything that can change an answer: the entry's key is the hash of exactly this."""
        return {"kind": "generate", "identity": self.identity, "options": options.as_dict(), "prompt": prompt}

    def generate_with_status(self, prompt: str, options: GenerationOptions) -> tuple[str, bool, bool]:
        """Like :meth:`generate` but leaves counting to the caller (a joblib worker's parent)."""
        inputs = self._generation_inputs(prompt, options)
        return self._fetch(
            "generate",
            inputs,
            read=lambda key: self.store.read_text(key, inputs),
            compute=lambda: _unicode_answer(self.backend.generate(prompt, options), self.identity),
            write=lambda key, text: self.store.write_text(key, inputs, text),
        )


def _unicode_answer(text: str, identity: dict[str, str]) -> str:
    """``text`` if it is valid Unicode; an answer holding a lone surrogate is the generator's fault, said now.

    Such text (a ``\\ud800`` escape in a server's JSON) has no UTF-8 form: it could be neither
    cached nor written to ``results.jsonl``, and the run would fail only after all its work.
    """
    if not is_unicode(text):
        at = next(i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff")
        raise BackendError(
            f"the generator ({identity.get('backend')} {identity.get('generator')}) returned an answer that is not "
            f"valid Unicode: {text[at]!r} at character {at:,} is half of a UTF-16 pair (a lone surrogate)"
        )
    return text


def prompt_sha256(prompt: str) -> str:
    """Short, stable id of a prompt, shown in result rows so a reader can match cache entries."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()

"""EvalGate's content-addressed store of model outputs: plain data files that cannot run code.

A cache folder may be shared (an NFS mount for a cluster, a copy from a colleague, a CI
artefact), so nothing in it is trusted. Entries are therefore only ever *parsed*, never
executed or unpickled: a generation is a JSON file, an embedding batch a ``.npy`` file read
with ``numpy.load(..., allow_pickle=False)`` beside a JSON record. Every value carries a
SHA-256 checked on read, and every record carries the inputs it answers, checked against
the key, so an entry that is truncated, tampered with, misfiled or of the wrong shape is
reported as corrupt and recomputed instead of used.

Layout under the cache folder (``key`` = SHA-256 of the canonical JSON of the inputs)::

    evalgate-v1/generate/<key[:2]>/<key>.json                    text + text_sha256 + inputs
    evalgate-v1/embed/<key[:2]>/<key>.json                       record: inputs, dtype, shape, npy_sha256
    evalgate-v1/embed/<key[:2]>/<key>.<npy_sha256>.npy           the float32 vectors

With a signing key (:mod:`evalgate_lib.signing`), every record also carries ``signature``, the
HMAC-SHA256 of the rest of the record under the team's key, and a record without one or whose
signature does not verify is corrupt: the ``text_sha256`` and ``npy_sha256`` checksums find a
damaged entry, but anyone who rewrites an answer can rewrite its checksum too; only the
signature tells a forged entry from one this team's runs wrote. Without a key, signatures are
neither written nor checked.

The store opens only the paths it computes from a key; any other file in the folder (an
old joblib cache with its ``output.pkl`` and ``func_code.py``, editor backups, half-written
temporary files) is never opened, so it can neither run code nor make the store drop
entries. The ``.npy`` file is named after its own checksum so that two writers of the same
key (threads, processes, cluster workers) each write a complete pair and the record that
lands last names an array that exists and matches it; the other array is left unreferenced
and harmless. Every file is written to a temporary name in its folder and renamed
(:func:`evalgate_lib.files.atomic_write`), so a crash or Ctrl-C never leaves half an entry.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evalgate_lib.errors import CacheError, InputError, OutputError
from evalgate_lib.files import atomic_write
from evalgate_lib.inputs.structured import parse_json
from evalgate_lib.signing import key_id, sign, verifies

#: Subfolder of the cache folder holding this layout; a future format gets a new one.
LAYOUT = "evalgate-v1"
#: The ``format`` field of every record.
FORMAT = "evalgate-cache-entry/1"

_HEX64 = re.compile(r"[0-9a-f]{64}")


class CorruptEntry(Exception):
    """An entry exists but cannot be used; the message says why without quoting its content."""


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, fixed separators, non-ASCII kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _utf8(text: str) -> bytes:
    # surrogatepass: a lone surrogate (from a file decoded with surrogateescape) still has one encoding.
    return text.encode("utf-8", "surrogatepass")


def is_unicode(text: str) -> bool:
    """False for text holding a lone surrogate (half a UTF-16 pair): it has no UTF-8 form to write or hash."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def sha256_text(text: str) -> str:
    return hashlib.sha256(_utf8(text)).hexdigest()


def entry_key(inputs: dict[str, Any]) -> str:
    """The SHA-256 of the canonical JSON of everything that can change the output."""
    return sha256_text(canonical_json(inputs))


@dataclass(frozen=True)
class EntryStore:
    """Reads and writes entries under ``location/evalgate-v1``; see the module docstring for the layout.

    ``signing_key`` (the team's key, or ``None``) signs every record written and is required of every record read.
    """

    location: Path
    signing_key: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cannot use cache folder {self.location}: {exc.strerror or exc}") from None

    @property
    def root(self) -> Path:
        return self.location / LAYOUT

    def record_path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / f"{key}.json"

    def array_path(self, key: str, npy_sha256: str) -> Path:
        return self.root / "embed" / key[:2] / f"{key}.{npy_sha256}.npy"

    # ------------------------------------------------------------------ generation

    def read_text(self, key: str, inputs: dict[str, Any]) -> str | None:
        """The cached text for ``inputs``; ``None`` if there is no entry. Raises :class:`CorruptEntry`."""
        record = self._read_record("generate", key, inputs)
        if record is None:
            return None
        text, digest = record.get("text"), record.get("text_sha256")
        if not isinstance(text, str) or not isinstance(digest, str):
            raise CorruptEntry("no text or no text_sha256")
        if sha256_text(text) != digest:
            raise CorruptEntry("the text does not match its text_sha256")
        if not is_unicode(text):
            raise CorruptEntry("its text is not valid Unicode (a lone surrogate)")
        return text

    def write_text(self, key: str, inputs: dict[str, Any], text: str) -> None:
        record = {"format": FORMAT, "key": key, "inputs": inputs, "text": text, "text_sha256": sha256_text(text)}
        self._write(self.record_path("generate", key), _dump(self._signed(record)))

    # ------------------------------------------------------------------- embedding

    def read_array(self, key: str, inputs: dict[str, Any], rows: int) -> np.ndarray | None:
        """The cached ``rows`` x d float32 vectors for ``inputs``; ``None`` if none. Raises :class:`CorruptEntry`."""
        record = self._read_record("embed", key, inputs)
        if record is None:
            return None
        digest, shape = record.get("npy_sha256"), record.get("shape")
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise CorruptEntry("no valid npy_sha256")
        if record.get("dtype") != "float32":
            raise CorruptEntry("its record does not say dtype float32")
        path = self.array_path(key, digest)
        try:
            data = _read_regular_file(path)
        except FileNotFoundError:
            raise CorruptEntry(f"its array {path.name} is missing") from None
        except OSError as exc:
            raise CorruptEntry(f"its array {path.name} cannot be read ({exc.strerror or exc})") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise CorruptEntry(f"its array {path.name} does not match its npy_sha256")
        try:
            vectors = np.load(io.BytesIO(data), allow_pickle=False)
        except Exception as exc:  # not a .npy, or an object array (a pickle): refused, never unpickled
            raise CorruptEntry(f"its array {path.name} is not a valid .npy file ({type(exc).__name__})") from None
        if not isinstance(vectors, np.ndarray) or vectors.dtype != np.float32 or vectors.ndim != 2:
            raise CorruptEntry(f"its array {path.name} is not a 2-d float32 array")
        if vectors.shape[0] != rows:
            raise CorruptEntry(f"its array has {vectors.shape[0]} rows for {rows} texts")
        if shape != list(vectors.shape):
            raise CorruptEntry(f"its array has shape {tuple(vectors.shape)}, its record says {shape!r:.40}")
        return vectors

    def write_array(self, key: str, inputs: dict[str, Any], vectors: np.ndarray) -> None:
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
        data = buffer.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        record = {
            "format": FORMAT,
            "key": key,
            "inputs": inputs,
            "dtype": "float32",
            "shape": list(vectors.shape),
            "npy_sha256": digest,
        }
        self._write(self.array_path(key, digest), data)  # the array first: a record never names a missing one
        self._write(self.record_path("embed", key), _dump(self._signed(record)))

    # --------------------------------------------------------------------- shared

    def _read_record(self, kind: str, key: str, inputs: dict[str, Any]) -> dict[str, Any] | None:
        path = self.record_path(kind, key)
        try:
            data = _read_regular_file(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CorruptEntry(f"cannot be read ({exc.strerror or exc})") from None
        try:
            record = parse_json(data.decode("utf-8", "surrogatepass"), str(path))
        except (ValueError, RecursionError):  # includes UnicodeDecodeError and JSONDecodeError
            raise CorruptEntry("not valid JSON") from None
        except InputError as exc:  # nested past the limit: what the line says, after "corrupt ... entry <path>:"
            raise CorruptEntry(str(exc).removeprefix(f"{path}: ")) from None
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise CorruptEntry(f"not a {FORMAT} record")
        if record.get("key") != key or canonical_json(record.get("inputs")) != canonical_json(inputs):
            raise CorruptEntry("its inputs do not match its key")
        if self.signing_key is not None:
            self._check_signature(record)
        return record

    def _signed(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with its signature (and the signing key's id), when a key is set."""
        if self.signing_key is None:
            return record
        record = {**record, "key_id": key_id(self.signing_key)}
        return {**record, "signature": sign(self.signing_key, _utf8(canonical_json(record)))}

    def _check_signature(self, record: dict[str, Any]) -> None:
        assert self.signing_key is not None
        signature = record.get("signature")
        if signature is None:
            raise CorruptEntry("not signed, and a signing key is set (written without the key, or forged)")
        if record.get("key_id") != key_id(self.signing_key):
            raise CorruptEntry("signed with another key than the one set")
        unsigned = {k: v for k, v in record.items() if k != "signature"}
        if not verifies(self.signing_key, _utf8(canonical_json(unsigned)), signature):
            raise CorruptEntry("its signature does not match it (changed after it was written)")

    def _write(self, path: Path, data: bytes) -> None:
        try:
            atomic_write(path, data)
        except OutputError as exc:
            raise CacheError(f"cannot write cache entry {path}: {exc.reason}") from None


def _dump(record: dict[str, Any]) -> bytes:
    """A record as indented, sorted JSON: diffable and readable with ``cat``."""
    return _utf8(json.dumps(record, sort_keys=True, indent=1, ensure_ascii=False) + "\n")


def _read_regular_file(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file; a FIFO or device placed there cannot block or stream forever."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)

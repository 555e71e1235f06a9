"""Keyed signatures (HMAC-SHA256) for results folders and cache entries, with a key the team holds.

The SHA-256 checksums EvalGate writes beside its files protect against accidents: a truncated
copy, a half-synced folder, a hand edit that forgot a file, bit rot. They do not protect against
forgery: whoever edits a file can recompute its checksum, since the algorithm is public and takes
no secret. A signature does take one. With a key set, ``evalgate run`` and ``evalgate score``
sign the results folder (``signature.json``: the HMAC of ``manifest.json``, which holds the
SHA-256 of every other published file) and the model-call cache signs each entry it writes;
every reader verifies them and refuses (a results folder) or recomputes (a cache entry) what
does not verify. Without the key nobody can make a signature that verifies, so a forged row,
summary, manifest or cached answer is found, as long as the key stays secret.

The key is read from, in this order:

* ``EVALGATE_SIGNING_KEY_FILE``, a file holding the key (what ``evalgate --key-file FILE`` sets
  for the command and for the notebook kernels it starts), or
* ``EVALGATE_SIGNING_KEY``, the key itself (a CI secret).

Either is used as its text, surrounding whitespace stripped (so ``openssl rand -hex 32 > key``
works), and must be at least :data:`MIN_KEY_BYTES` bytes: a short key could be guessed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from evalgate_lib.errors import InputError
from evalgate_lib.files import read_input

KEY_ENV = "EVALGATE_SIGNING_KEY"
KEY_FILE_ENV = "EVALGATE_SIGNING_KEY_FILE"
#: A key shorter than this is refused: 16 bytes of hex is 64 bits, already at the edge of guessable.
MIN_KEY_BYTES = 16
ALGORITHM = "HMAC-SHA256"


def signing_key() -> bytes | None:
    """The team's signing key from the environment (see the module docstring), or ``None`` when none is set."""
    path, text = os.environ.get(KEY_FILE_ENV), os.environ.get(KEY_ENV)
    if path and text:
        raise InputError(f"both {KEY_FILE_ENV} and {KEY_ENV} are set: set one, so it is clear which key signs")
    if path:
        return _key_from_file(Path(path))
    if text is None:
        return None
    return _checked(text.strip().encode("utf-8", "surrogateescape"), KEY_ENV)


def _key_from_file(file: Path) -> bytes:
    return _checked(read_input(file, "signing key file", "file").strip(), f"signing key file {file}")


def _checked(key: bytes, source: str) -> bytes:
    if len(key) < MIN_KEY_BYTES:
        raise InputError(
            f"{source} holds a key of {len(key)} bytes; a signing key needs at least {MIN_KEY_BYTES} (make one with "
            "'openssl rand -hex 32')"
        )
    return key


def sign(key: bytes, data: bytes) -> str:
    """The HMAC-SHA256 of ``data`` under ``key``, hex."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def verifies(key: bytes, data: bytes, signature: object) -> bool:
    """Whether ``signature`` is the HMAC of ``data`` under ``key`` (compared in constant time)."""
    return isinstance(signature, str) and hmac.compare_digest(sign(key, data), signature)


def key_id(key: bytes) -> str:
    """A short public name of ``key`` (an HMAC of a fixed text): tells "another key" from "forged", reveals nothing."""
    return sign(key, b"evalgate signing key id")[:16]

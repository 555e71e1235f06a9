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
works), and must be at least :data:`MIN_KEY_BYTES` bytes: a short key could be guessed. A
variable that is set but empty is an error, never "no key": ``EVALGATE_SIGNING_KEY_FILE=`` left
by a CI template that failed to fill it in would otherwise turn every check off without a word.
The key file must be a regular file: the key is read again for every folder signed or checked
and by every notebook kernel a report starts, which a pipe (``<(cat key)``) cannot give twice.

Besides the results folder's ``signature.json`` (the HMAC of ``manifest.json``), a JSON file the
gate or the report reads that the manifest does not cover carries its signature inside itself
(:func:`sign_json`, :func:`check_signed_json`): the several-candidates index ``candidates.json``,
each ``run_stats.json``, a sampling plan, and each reviewer's label.

A file that belongs to one folder is signed *bound* to that folder's identity: a pair folder's
``run_stats.json`` to the SHA-256 of its ``manifest.json``, a family's ``run_stats.json`` to its
index ``candidates.json`` (:func:`json_digest`). The HMAC then covers the file and that identity
(``bound_to`` in the signature names it), so a signed file moved from another run, which verifies
as a file, is refused in this folder: a signature covers a file *and the folder it belongs to*. A
signature made before this binding (no ``bound_to``) is refused with that reason, not as forged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any, Mapping

from evalgate_lib.errors import InputError
from evalgate_lib.files import read_input, special_file_kind

KEY_ENV = "EVALGATE_SIGNING_KEY"
KEY_FILE_ENV = "EVALGATE_SIGNING_KEY_FILE"
#: A key shorter than this is refused: 16 bytes of hex is 64 bits, already at the edge of guessable.
MIN_KEY_BYTES = 16
#: A key file larger than this is not a key file (a key is 32 to 128 characters).
MAX_KEY_FILE_BYTES = 64 * 1024
ALGORITHM = "HMAC-SHA256"
#: The key under which a JSON file carries its own signature (:func:`sign_json`).
SIGNATURE_KEY = "signature"


def signing_key() -> bytes | None:
    """The team's signing key from the environment (see the module docstring), or ``None`` when none is set."""
    path, text = os.environ.get(KEY_FILE_ENV), os.environ.get(KEY_ENV)
    for name, value in ((KEY_FILE_ENV, path), (KEY_ENV, text)):
        if value is not None and not value.strip():
            raise InputError(
                f"{name} is set but empty: a signing variable that is set must hold the key"
                + (" file's path" if name == KEY_FILE_ENV else "")
                + "; unset it to run without a key (then nothing is signed or checked), or give it a value"
            )
    if path is not None and text is not None:
        raise InputError(f"both {KEY_FILE_ENV} and {KEY_ENV} are set: set one, so it is clear which key signs")
    if path is not None:
        return _key_from_file(Path(path))
    if text is None:
        return None
    return _checked(text.strip().encode("utf-8", "surrogateescape"), KEY_ENV)


def _key_from_file(file: Path) -> bytes:
    special = special_file_kind(file)
    if special is not None:
        why = (
            ": EvalGate reads the key again for every folder it signs or checks and in each notebook a report runs, "
            "which a pipe cannot give twice"
            if special.startswith("a pipe")
            else ""
        )
        raise InputError(
            f"signing key file {file} is {special}, not a regular file holding the key{why}; write the key into a "
            f"file (chmod 600) and name that, or set {KEY_ENV}"
        )
    if file.is_file() and file.stat().st_size > MAX_KEY_FILE_BYTES:
        raise InputError(
            f"signing key file {file} holds {file.stat().st_size:,} bytes, not a key (one is 32 to 128 characters, "
            "e.g. 'openssl rand -hex 32'): name the key's own file"
        )
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


def _canonical(value: Mapping[str, Any]) -> bytes:
    """What a JSON object's own signature covers: the object without it, as canonical JSON (sorted, compact)."""
    rest = {k: v for k, v in value.items() if k != SIGNATURE_KEY}
    return json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def json_digest(value: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a JSON object's canonical text without its own signature: its identity, however indented."""
    return hashlib.sha256(_canonical(value)).hexdigest()


#: What a signed file is bound to: the file that names its folder and that file's SHA-256 (module docstring).
Binding = tuple[str, str]


def _covered(value: Mapping[str, Any], bound_to: Binding | None) -> bytes:
    """The bytes a signature's HMAC covers: the canonical object, then the identity of the folder it belongs to."""
    data = _canonical(value)
    return data if bound_to is None else data + f"\nbound to {bound_to[0]} {bound_to[1]}".encode()


def sign_json(value: Mapping[str, Any], key: bytes | None = None, *, bound_to: Binding | None = None) -> dict[str, Any]:
    """``value`` with its own signature under ``key`` (default: the environment's), or as it is when no key is set.

    The signature covers the object's canonical JSON, so re-indenting the file keeps it valid while any
    change of a value breaks it; with ``bound_to`` (``("manifest.json", its SHA-256)``) it covers the
    identity of the folder the file belongs to as well, and names it.
    """
    key = signing_key() if key is None else key
    out = {k: v for k, v in value.items() if k != SIGNATURE_KEY}
    if key is None:
        return out
    signature: dict[str, Any] = {"algorithm": ALGORITHM, "key_id": key_id(key)}
    signature["hmac"] = sign(key, _covered(out, bound_to))
    if bound_to is not None:
        signature["bound_to"] = {"file": bound_to[0], "sha256": bound_to[1]}
    out[SIGNATURE_KEY] = signature
    return out


def signature_problem(value: Mapping[str, Any], key: bytes, bound_to: Binding | None = None) -> str | None:
    """Why ``value``'s own signature does not verify under ``key`` (in words), or ``None`` when it does.

    ``bound_to``: the identity of the folder ``value`` was read from; the signature must cover it.
    """
    found = value.get(SIGNATURE_KEY)
    if found is None:
        return "not signed, but a signing key is set (written without the key, or its signature was removed)"
    if not isinstance(found, dict) or found.get("algorithm") != ALGORITHM:
        return f"its signature is not an {ALGORITHM} signature"
    if found.get("key_id") != key_id(key):
        return f"signed with another key (key id {found.get('key_id')!r}; the key set here has {key_id(key)!r})"
    recorded = found.get("bound_to")
    if bound_to is not None and not isinstance(recorded, dict):
        return (
            f"signed without the identity of the folder it belongs to (by an EvalGate before signatures covered "
            f"the folder's {bound_to[0]}), so a copy from another run would pass as this one's; it is not trusted"
        )
    if verifies(key, _covered(value, bound_to), found.get("hmac")):
        return None
    if bound_to is not None and isinstance(recorded, dict):
        theirs = (str(recorded.get("file")), str(recorded.get("sha256")))
        if theirs != bound_to and verifies(key, _covered(value, theirs), found.get("hmac")):
            return (
                f"signed for another folder: it belongs with the {theirs[0]} of SHA-256 {theirs[1][:12]}…, and this "
                f"folder's has {bound_to[1][:12]}… (a file moved or copied from another run)"
            )
    return "its signature does not match it: it was changed after it was signed"


def check_signed_json(value: Any, where: str, hint: str = "", *, bound_to: Binding | None = None) -> None:
    """With a signing key set, refuse ``value`` (a JSON object read from ``where``) unless its own signature verifies
    (and, with ``bound_to``, covers the identity of the folder it was read from).

    Without a key nothing is checked (a signature, if any, is left as it is). ``hint`` ends the line
    (the command that writes the file again).
    """
    key = signing_key()
    if key is None or not isinstance(value, Mapping):
        return
    problem = signature_problem(value, key, bound_to)
    if problem is not None:
        raise InputError(f"{where}: {problem}" + (f"; {hint}" if hint else ""))

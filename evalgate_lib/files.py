"""Files every layer writes or checks: written so that a reader never sees half of one, and their SHA-256."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write via a temporary file in the same folder and rename, so a reader never sees half a file.

    ``os.replace`` is atomic on one file system: a concurrent reader, another writer of the
    same path (a thread, a process, a cluster worker on a shared mount) or a Ctrl-C leaves
    either the old file or the new one, never a mixture. Text is written as UTF-8.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; results are meant to be read by others
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sha256_file(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB blocks so a 540 MB weight file is never held whole."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()

"""Files every layer writes or checks: written so that a reader never sees half of one, and their SHA-256."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

from evalgate_lib.errors import InputError, OutputError


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write via a temporary file in the same folder and rename, so a reader never sees half a file.

    ``os.replace`` is atomic on one file system: a concurrent reader, another writer of the
    same path (a thread, a process, a cluster worker on a shared mount) or a Ctrl-C leaves
    either the old file or the new one, never a mixture. Text is written as UTF-8.

    A path that is a symbolic link is written through: its target gets the new content (as a
    shell redirection would), the link stays. Any refusal of the system (permissions, a full
    disk, a folder where the file should be) is an :class:`~evalgate_lib.errors.OutputError`
    naming the path, and the old file, if any, is left as it was.
    """
    payload = data if isinstance(data, bytes) else _utf8(data, path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; results are meant to be read by others
        os.replace(tmp, target)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {path} ({reason})", reason) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _utf8(text: str, path: Path) -> bytes:
    """``text`` as UTF-8; a lone surrogate (text that is not valid Unicode) is named, never written half."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OutputError(
            f"cannot write {path}: the text holds {text[exc.start]!r} at character {exc.start:,}, half of a UTF-16 "
            "pair (a lone surrogate), which is not valid Unicode"
        ) from None


def sha256_file(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB blocks so a 540 MB weight file is never held whole."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_input(path: str | Path, what: str, kind: str) -> bytes:
    """The bytes of an input file, or one line naming it as ``what`` (``"config file"``) and why it is not one.

    The one reader behind every named input file (configs, thresholds, JSONL files, the signing key),
    so each says the same: a directory "is a directory, not a {kind}", a missing file "does not
    exist", an unreadable one "cannot be read (Permission denied)".
    """
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{what} {file} is a directory, not a {kind}")
    if not file.is_file():
        if file.is_symlink() and not file.exists():
            raise InputError(f"{what} {file} is a symbolic link to {os.readlink(file)}, which does not exist")
        special = special_file_kind(file)
        if special is not None:
            raise InputError(f"{what} {file} is {special}, not a {kind}")
        raise InputError(f"{what} {file} does not exist")
    try:
        return file.read_bytes()
    except OSError as exc:
        raise InputError(f"{what} {file} cannot be read ({exc.strerror})") from None


def special_file_kind(path: Path) -> str | None:
    """What ``path`` is when it exists but is neither a regular file nor a folder ("a character device", "a pipe")."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, name in (
        (stat.S_ISCHR, "a character device (as /dev/null is)"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a pipe (a FIFO, or what <(cat FILE) passes)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return None

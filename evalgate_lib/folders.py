"""Folders written whole: a folder's new content staged and swapped in at the end, and the lock its writer and
readers share.

:func:`~evalgate_lib.files.atomic_write` keeps a reader from seeing half of one file. A folder of
several files needs the same two guarantees at its own scale:

* **Replaced whole** (:func:`staged_folder`). ``evalgate report`` writes ``index.html`` and the
  executed notebooks it links to over minutes; a Ctrl-C half-way used to leave the old
  ``index.html`` linking to the new run's notebooks. The new content is now written into a fresh
  folder and moved into place only when it is complete: each of its entries replaces the one of
  the same name in one ``rename``, all of them one after another with Ctrl-C held back (a few
  microseconds), so an interrupted or failed command leaves the old folder exactly as it was. The
  staging folder is made *inside* the target (``.evalgate-staging-*``), not beside it: a rename
  only works within one file system, and the target may be a mount point; entries the new
  content does not have (a ``results/`` folder a report given ``--results`` does not write, a
  user's own file) are kept.
* **One writer, or readers** (:func:`folder_lock`). A report that reads a results folder while
  ``evalgate run`` rewrites it mixed two runs' title and figures. The writer of a results folder
  holds an exclusive lock while it writes the folder's files; a report holds a shared one while it
  reads. The lock is a ``flock`` on a file beside the folder (``.<name>.evalgate-lock``), so the
  folder holds only what its run wrote; a reader never creates that file (a folder no writer of
  this version wrote has none, and a read-only one can still be read), and on a system without
  ``flock`` there is no lock. A command that has to wait says so once, naming the folder.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Iterator

from evalgate_lib.errors import OutputError

try:  # POSIX; elsewhere a folder is written without a lock (docs/troubleshooting.md says so)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: The prefix of a staging folder inside the target (:func:`staged_folder`).
STAGING_PREFIX = ".evalgate-staging-"
_REPLACED_PREFIX = ".evalgate-replaced-"
LOCK_SUFFIX = ".evalgate-lock"

_log = logging.getLogger(__name__)
#: The folders this process holds the write lock of: a folder inside one is written under that lock.
_written: set[Path] = set()


@contextlib.contextmanager
def staged_folder(target: str | Path) -> Iterator[Path]:
    """A fresh, empty folder inside ``target`` to write its new content into; swapped in when the block ends.

    When the ``with`` block completes, each entry of the staging folder replaces ``target``'s entry of
    the same name (module docstring); when it raises (an error, a Ctrl-C), the staging folder is
    removed and ``target`` is as it was (a ``target`` the call created is removed again).
    """
    folder = Path(target)
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=folder))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write into {folder} ({reason})", reason) from None
    try:
        yield staging
        _swap_in(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when still empty: the block failed before anything was swapped in


def _swap_in(staging: Path, target: Path) -> None:
    """Move every entry of ``staging`` over ``target``'s of the same name; on a refusal, put everything back."""
    trash = Path(tempfile.mkdtemp(prefix=_REPLACED_PREFIX, dir=target))
    done: list[tuple[Path, Path | None]] = []  # (entry now in target, the old one set aside or None)
    try:
        with _interrupts_held():
            try:
                for entry in sorted(staging.iterdir()):
                    place, old = target / entry.name, None
                    if place.exists() or place.is_symlink():
                        old = trash / entry.name
                        os.rename(place, old)
                    os.rename(entry, place)
                    done.append((place, old))
            except OSError as exc:
                for place, old in reversed(done):
                    os.rename(place, staging / place.name)
                    if old is not None:
                        os.rename(old, place)
                reason = exc.strerror or str(exc)
                raise OutputError(
                    f"cannot replace the content of {target} ({reason}); it is as it was", reason
                ) from None
    finally:
        shutil.rmtree(trash, ignore_errors=True)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C (SIGINT) held back until the block ends, then raised: a swap is never left half done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def lock_path(folder: str | Path) -> Path:
    """The lock file of ``folder``: beside it, ``.<name>.evalgate-lock``."""
    resolved = Path(folder).resolve()
    return resolved.parent / f".{resolved.name}{LOCK_SUFFIX}"


@contextlib.contextmanager
def folder_lock(folder: str | Path, *, write: bool) -> Iterator[None]:
    """Hold ``folder``'s lock for the block: exclusive to ``write`` it, shared to read it (module docstring).

    A writer creates the lock file (and the folder's parent; where it cannot, it writes without the lock and says
    so, rather than lose the work before it); a reader uses it only when it exists. A
    lock held by another command is waited for, with one log line saying whose lock and why. A folder
    inside one this process is writing (a pair folder of a family) is covered by that folder's lock.
    """
    path = lock_path(folder)
    resolved = Path(folder).resolve()
    if fcntl is None or (write and any(held in (resolved, *resolved.parents) for held in _written)):
        yield  # this process already writes the folder or one holding it (a family writes its pairs)
        return
    try:
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        else:
            fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        if write:  # a folder whose parent is not writable (a mount point's): written as before, said once
            _log.warning(
                "cannot create the lock file %s (%s): %s is written without it, so a report reading it now "
                "would not wait for the write to end",
                path,
                exc.strerror or exc,
                folder,
            )
        yield  # a reader: no writer of this version has written the folder, or its lock cannot be opened
        return
    try:
        mode = fcntl.LOCK_EX if write else fcntl.LOCK_SH
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            doing = "write it" if write else "read it"
            _log.warning(
                "waiting for %s: another EvalGate command holds it (a run writing it, or a report reading it) "
                "and this one waits to %s (lock %s)",
                folder,
                doing,
                path,
            )
            fcntl.flock(fd, mode)
        if write:
            _written.add(resolved)
        try:
            yield
        finally:
            _written.discard(resolved)
    finally:
        os.close(fd)  # releases the lock

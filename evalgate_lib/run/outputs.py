"""Where a command writes: every output folder and file is checked the same way, before any work.

A run that spends twenty minutes generating answers and only then finds it cannot write its
folder wastes the work (the cache keeps the model calls, but the user learns of the problem
last), and an output written inside the corpus becomes an article of the next run: a report's
``index.html`` holds every gold answer. So every option that names where EvalGate writes
(``--out``, ``--json``, ``--cache-dir``) goes through :func:`check_output` before anything is
computed, and it refuses, with the option, the path and the reason:

* a path that is not what it should be: an existing file where a folder goes, a folder where a
  file goes, a file in the way of the folders to create;
* a dangling symbolic link (on the path or in its folders): following it would write wherever
  the link once pointed, creating folders there, e.g. on the root disk under an unmounted one;
* a place inside a corpus folder, also through a symbolic link (paths are compared resolved);
* an empty path: it would be the current folder (``--out ""`` wrote a run into it, over a user's
  ``summary.json``), never what was meant;
* a file the command reads (rows, labels, a plan, a gold file, an answer log, a config, the gate's
  thresholds): an output never overwrites an input, and a folder output never writes one of its
  files or folders over one (nor over a file inside a folder it replaces);
* a place inside a results folder the command reads (``--json R/results.jsonl``, a pair folder of a
  family included): a results folder holds what its run wrote, and its checksums and signature
  cover exactly that;
* two outputs of one command naming one file (``--junit X --markdown X``): one would silently
  replace the other (:func:`check_distinct_outputs`);
* a place that cannot be written: the nearest folder that exists gets a small probe file,
  written and removed, so permissions, a read-only file system and a full disk are found now.

What can still fail later (the disk fills during the run) fails in
:func:`evalgate_lib.files.atomic_write`, which names the path, and the cache keeps what was
computed. A live symbolic link is followed: its target is where the output goes. Standard
output is an output too: :class:`GuardedStdout`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from evalgate_lib.errors import InputError, OutputError
from evalgate_lib.text.escaping import terminal_text

#: Bytes the probe writes: enough that a full file system refuses it, small enough to cost nothing.
PROBE_BYTES = 4096
#: Why an empty path is refused, and what to write instead (also the command line's words for an empty value).
EMPTY_PATH = (
    "an empty path names no file or folder (it would be the current folder); name one, e.g. '.' for the current folder"
)


def check_distinct_outputs(outputs: Sequence[tuple[str, str | Path | None]]) -> None:
    """Refuse two outputs of one command that name one file or folder (``--junit X --markdown X``): each is written
    whole, so one would replace the other without a word. ``outputs`` are ``(option, path)``; ``None`` is unset."""
    seen: list[tuple[str, Path]] = []
    for option, given in outputs:
        if given is None:
            continue
        path = Path(given)
        for first, other in seen:
            if _same_file(path, other):
                raise InputError(
                    f"{first} and {option} both name {path}: each output is written whole, so one would replace the "
                    "other; give each its own file"
                )
        seen.append((option, path))


def check_output(
    path: str | Path,
    option: str,
    *,
    folder: bool,
    corpora: Sequence[str | Path | None] = (),
    inputs: Sequence[tuple[str, str | Path | None]] = (),
    writes: Sequence[str] = (),
    results: Sequence[str | Path | None] = (),
) -> None:
    """Refuse ``path`` as the output ``option`` names (a folder, or with ``folder=False`` a file), or return.

    ``corpora`` are the corpus folders the command reads or a later run will read; an output
    inside any of them is refused. ``inputs`` are ``(what, path)`` of the files the command reads: a
    file output that is one of them is refused, and so is a folder output that would write one of
    ``writes`` (the names it writes into the folder, files or folders it replaces whole) over one or
    over anything inside one. ``results`` are the results folders the command reads: an output at or
    inside one is refused. Nothing is created: a missing folder is made when written.
    """
    if not str(path).strip():
        raise InputError(f"{option} is empty: {EMPTY_PATH}")
    out = Path(path)
    shown = f"{option} {out}"
    kind = "folder" if folder else "file"
    _refuse_dangling(out, shown, kind)
    if folder and out.exists() and not out.is_dir():
        raise InputError(f"{shown} is an existing file, not a folder: name a folder to write into")
    if not folder and out.is_dir():
        raise InputError(f"{shown} is a folder, not a file: name a file to write into, e.g. {out / 'out.json'}")
    _refuse_inside_corpus(out, shown, corpora)
    _refuse_inputs(out, shown, folder, inputs, writes)
    _refuse_inside_results(out, shown, results)
    probe_writable(_nearest_existing(out if folder else out.parent, shown), shown)


def results_inputs(results: str | Path | None) -> list[tuple[str, Path]]:
    """The files of a results folder a command reads, as :func:`check_output` takes them: rows, summary, manifest,
    signature, run stats, the several-candidates index and the sampling plans drawn into it."""
    if results is None:
        return []
    folder = Path(results)
    names = ("results.jsonl", "summary.json", "manifest.json", "signature.json", "run_stats.json", "candidates.json")
    found = [(f"results folder's {name}", folder / name) for name in names]
    return found + [("sampling plan", plan) for plan in sorted(folder.glob("label-plan*.json"))]


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or (both existing) the same inode (a hard link)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_inputs(
    out: Path, shown: str, folder: bool, inputs: Sequence[tuple[str, str | Path | None]], writes: Sequence[str]
) -> None:
    for what, given in inputs:
        if given is None:
            continue
        source = Path(given)
        if not folder and _same_file(out, source):
            raise InputError(
                f"{shown} is the {what} this command reads ({source}): an output never overwrites an input; name "
                "another file"
            )
        if not folder:
            continue
        for name in writes:
            if _same_file(out / name, source) or (source.exists() and _within(source, out / name)):
                written = f"its {name}" if _same_file(out / name, source) else f"its {name}/ (replaced whole)"
                raise InputError(
                    f"{shown} would write {written} over the {what} this command reads ({source}): an output "
                    "never overwrites an input; name another folder"
                )


def _within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both resolved: a symbolic link is where it points)."""
    target, base = path.resolve(), folder.resolve()
    return target == base or base in target.parents


def _refuse_inside_results(out: Path, shown: str, results: Sequence[str | Path | None]) -> None:
    for given in results:
        if given is None:
            continue
        folder = Path(given)  # not yet written (a gate that runs first) is still the folder it will read
        if _within(out, folder):
            raise InputError(
                f"{shown} lies inside the results folder {folder} this command reads: a results folder holds only "
                "what its run wrote (its manifest and signature cover those files), so an output there could "
                f"replace one of them or be taken for one; write it outside {folder}"
            )


def _refuse_dangling(out: Path, shown: str, kind: str) -> None:
    """A dangling symbolic link on the path itself or among its folders is refused, naming the link."""
    for part in (out, *out.parents):
        if part.is_symlink() and not part.exists():
            where = "is" if part == out else f"lies under {part}, which is"
            raise InputError(
                f"{shown} {where} a symbolic link to {os.readlink(part)}, which does not exist: create its target, "
                f"or name another {kind}"
            )


def _refuse_inside_corpus(out: Path, shown: str, corpora: Sequence[str | Path | None]) -> None:
    target = out.resolve()
    for corpus in corpora:
        if corpus is None:
            continue
        folder = Path(corpus).resolve()
        if target == folder or folder in target.parents:
            raise InputError(
                f"{shown} is inside the corpus folder {folder}: the next run would read what is written there as "
                "articles; write it outside the corpus"
            )


def _nearest_existing(start: Path, shown: str) -> Path:
    """The first of ``start`` and its parents that exists; it must be a folder (folders are made under it)."""
    for candidate in (start, *start.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise InputError(f"{shown}: {candidate} is a file, so no folder can be made there")
            return candidate
    return Path.cwd()


def probe_writable(folder: Path, shown: str) -> None:
    """Write and remove a small file in ``folder``; a refusal (permissions, read-only, full) is one line."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".evalgate-write-check-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(b"\0" * PROBE_BYTES)
    except OSError as exc:
        raise InputError(
            f"{shown}: cannot write into {folder} ({exc.strerror or exc}); name a place you can write to, or fix "
            "its permissions or free space"
        ) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


class GuardedStdout:
    """``sys.stdout`` for one command: control characters and text that cannot be encoded are escaped, a refused
    write is one error.

    Every control character is shown as its escape (:func:`~evalgate_lib.text.escaping.terminal_text`):
    what EvalGate prints holds config names, answers and paths it was given, and an ``ESC`` or a carriage
    return in one of them would be a command to the terminal (clear the screen, overwrite a ``FAIL``
    with a faked ``PASS``) instead of text. Two faults of the terminal side used to end as internal
    errors after the work was done:

    * an encoding that cannot show a character (``PYTHONIOENCODING=ascii``, a C locale on an old
      system): every character the stream cannot encode is written as a backslash escape
      (``\\u2248``), the rule stderr already follows, so a line is never lost for one character;
    * a standard output that refuses writes (``> /dev/full``: no space left; ``| head -1``: the
      reader closed the pipe). The refusal becomes an :class:`~evalgate_lib.errors.OutputError`
      naming standard output, and the stream is pointed at ``/dev/null``, so the interpreter's
      last flush cannot fail a second time with a traceback.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._errors = getattr(stream, "errors", None)
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")

    def write(self, text: str) -> int:
        try:
            return self._stream.write(terminal_text(text))
        except OSError as exc:
            raise self._refused(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise self._refused(exc) from None

    def restore(self) -> Any:
        """The stream as it was given (its own error rule back), to put back as ``sys.stdout``."""
        if self._errors is not None and hasattr(self._stream, "reconfigure"):
            self._stream.reconfigure(errors=self._errors)
        return self._stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _refused(self, exc: OSError) -> OutputError:
        try:  # what is still buffered goes nowhere, instead of failing again at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, AttributeError, ValueError):
            pass  # not a real file descriptor (a test's captured stream): nothing to silence
        reason = exc.strerror or str(exc)
        return OutputError(f"cannot write to standard output ({reason}): what the command prints was cut short", reason)

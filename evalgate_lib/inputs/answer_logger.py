"""Writing an answer log from a team's own Python pipeline: one call per answer, each line checked before it is written.

A log written by hand (``json.dumps`` in a loop) fails only when ``evalgate score`` reads it, after
the generations it records were paid for: a score of 1.3 or NaN, a passage with no text, an id
answered twice, an id of another gold file. :class:`AnswerLogger` runs the very parser
``evalgate score`` runs (:func:`~evalgate_lib.inputs.answer_logs.parse_line`) on every line before
writing it, and the bounds of its reader (a line of at most 16 MiB, nested at most 64 levels), so a
bad value raises at the call that made it, and the file only ever holds lines ``evalgate score``
accepts::

    import evalgate_lib as eg

    with eg.AnswerLogger("answers-v2.jsonl", gold="gold/questions.jsonl") as log:
        for q in questions:
            docs = retriever.invoke(q["question"])
            log.write(q["id"], chain.invoke(q["question"]), question=q["question"], passages=[
                {"text": d.page_content, "doc_id": d.metadata["source"], "score": d.metadata["score"]}
                for d in docs])

**Appended line by line, not written on close.** A pipeline's answers cost minutes to hours of
generation; a log held in memory until ``close`` would lose all of them to a crash or a Ctrl-C at
the last question. Each call appends one complete line with a single ``write`` on a file opened
for appending, then ``fsync``: when :meth:`AnswerLogger.write` returns, the answer is on disk. A
write the system refuses part-way (a full disk) is cut back to the line before it, so the file
never ends in half a line; only a process killed inside that one ``write`` can leave one, and
``resume=True`` removes such an unterminated last line (saying so) before appending. An interrupted
run is continued with ``resume=True``: the lines already there are checked, their ids kept
(:attr:`AnswerLogger.logged`, to skip those questions), and logging one of them again is refused.

One writer per file: the logger holds an exclusive lock on it (``flock``, where the system has
it), so a second logger of the same file, in this process or another, is refused instead of
interleaving lines. Calls from several threads of one logger are serialised.
"""

from __future__ import annotations

import difflib
import json
import numbers
import os
import threading
import warnings
from pathlib import Path
from types import TracebackType
from typing import Any, Iterable, Mapping

from evalgate_lib.errors import InputError, OutputError
from evalgate_lib.inputs.answer_logs import parse_line
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.inputs.jsonl import refuse_lone_surrogates
from evalgate_lib.inputs.structured import MAX_DEPTH, MAX_LINE_CHARS, check_depth, parse_json

try:  # POSIX: one writer per file; elsewhere the lock is skipped (and said so in the docs)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class AnswerLogger:
    """Append one checked answer-log line per call to :meth:`write`; use as a context manager or :meth:`close` it.

    ``path``: the log to write (its folder is created). An existing file that holds lines is
    refused unless ``resume=True``, which continues it. ``gold`` (a gold JSONL file): each
    question id must be one of its questions, and a logged ``question`` must be that question's
    text, checked at the call, as ``evalgate score`` checks them; :attr:`missing` then lists the
    gold questions not logged yet.
    """

    def __init__(self, path: str | Path, *, gold: str | Path | None = None, resume: bool = False) -> None:
        self.path = Path(path)
        self._gold = {q.id: q.question for q in load_gold(gold)} if gold is not None else None
        self._lock = threading.Lock()
        self._lines: dict[str, int] = {}
        self._fd: int | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise OutputError(f"cannot open answer log {self.path} ({exc.strerror})", exc.strerror or "") from None
        try:
            self._take_lock(fd)
            self._read_existing(fd, resume)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    # -- the public side ---------------------------------------------------------------------------

    def write(
        self,
        question_id: str,
        answer: str,
        passages: Iterable[str | Mapping[str, Any]],
        *,
        question: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Check one answer and append it as a line; returns the line written.

        ``passages`` in rank order, as the pipeline put them in its prompt: each a string (its text)
        or a mapping with ``text`` and optional ``doc_id`` (the corpus article id: the retrieval
        metrics need it), ``title``, ``score`` (a cosine similarity in [-1, 1]; a NumPy float is
        taken as a float) and ``spans``. ``meta``: anything JSON can hold (latency, model name),
        kept and never judged. A bad value raises :class:`~evalgate_lib.errors.InputError` naming
        the question and the key; nothing is written then.
        """
        where = f"{self.path}: answer to {question_id!r}"
        line: dict[str, Any] = {"question_id": question_id}
        if question is not None:
            line["question"] = question
        line["answer"] = answer
        line["passages"] = [_passage(p) for p in _listed(passages, where)]
        if meta is not None:
            if not isinstance(meta, Mapping):
                raise InputError(f"{where}: 'meta' must be a mapping, got {type(meta).__name__}")
            line["meta"] = dict(meta)
        parsed = parse_line(line, where)
        self._check_gold(parsed.question_id, parsed.question, where)
        data = _encoded(line, where)
        with self._lock:
            if self._fd is None:
                raise InputError(f"{where}: answer log {self.path} is closed: open a new AnswerLogger (resume=True)")
            first = self._lines.get(question_id)
            if first is not None:
                raise InputError(f"{where}: already logged (answer {first} of the log)")
            self._append(data)
            self._lines[question_id] = len(self._lines) + 1
        return line

    @property
    def logged(self) -> tuple[str, ...]:
        """The question ids the log holds, in file order (a resumed log's earlier ones first)."""
        with self._lock:
            return tuple(self._lines)

    @property
    def missing(self) -> tuple[str, ...]:
        """The gold questions not logged yet, in gold order (``gold`` must have been given)."""
        if self._gold is None:
            raise InputError("AnswerLogger.missing needs the gold set: pass gold='gold/questions.jsonl'")
        with self._lock:
            return tuple(q for q in self._gold if q not in self._lines)

    def close(self) -> None:
        """Release the file (and its lock); every line is already on disk. Closing twice is harmless."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> AnswerLogger:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            self.close()

    # -- the file ----------------------------------------------------------------------------------

    def _take_lock(self, fd: int) -> None:
        if fcntl is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise InputError(
                f"answer log {self.path} is open in another AnswerLogger (this process or another): one writer per "
                "file, or the lines of two would interleave"
            ) from None

    def _read_existing(self, fd: int, resume: bool) -> None:
        """Check the lines a file already holds (``resume``), or refuse a file that holds any."""
        data = _read_all(fd)
        if not data.strip():
            return
        if not resume:
            raise InputError(
                f"answer log {self.path} already holds answers: pass resume=True to continue it (its questions are "
                "then refused again, see .logged), or write a new file"
            )
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a last line without its newline: a writer stopped inside its write
            tail = data[end:]
            line = data.count(b"\n") + 1
            try:
                parse_json(tail.decode("utf-8"), f"{self.path}:{line}")
            except ValueError:  # not UTF-8 or not JSON: a torn write (nested past the limit stays an error)
                os.ftruncate(fd, end)
                warnings.warn(
                    f"{self.path}:{line}: removed an unterminated last line ({len(tail)} bytes: a writer was "
                    "stopped in the middle of it); its question is not logged",
                    stacklevel=3,
                )
                data = data[:end]
            else:
                os.write(fd, b"\n")  # a complete line someone wrote without its newline
                data += b"\n"
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"answer log {self.path}: not UTF-8 text ({exc})") from None
        for number, raw in enumerate(text.split("\n"), start=1):
            if not raw.strip():
                continue
            where = f"{self.path}:{number}"
            try:
                obj = parse_json(raw, where)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            answer = parse_line(obj, where)
            self._check_gold(answer.question_id, answer.question, where)
            first = self._lines.get(answer.question_id)
            if first is not None:
                raise InputError(
                    f"{where}: question {answer.question_id!r} answered twice (answer {first} of the log): "
                    "evalgate score refuses this log; remove one of the two"
                )
            self._lines[answer.question_id] = len(self._lines) + 1

    def _check_gold(self, question_id: str, question: str | None, where: str) -> None:
        if self._gold is None:
            return
        if question_id not in self._gold:
            near = difflib.get_close_matches(question_id, list(self._gold), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise InputError(f"{where}: question id {question_id!r} is not in the gold set{hint}")
        if question is not None and question.split() != self._gold[question_id].split():
            raise InputError(
                f"{where}: 'question' {question[:60]!r} is not the text of gold question {question_id!r} "
                f"({self._gold[question_id][:60]!r})"
            )

    def _append(self, data: bytes) -> None:
        """One line, whole: a write refused part-way is cut back, so the file never ends in half a line."""
        assert self._fd is not None
        before = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, before)
            except OSError:
                pass
            raise OutputError(f"cannot write answer log {self.path} ({exc.strerror})", exc.strerror or "") from None


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _listed(passages: Iterable[str | Mapping[str, Any]], where: str) -> list[str | Mapping[str, Any]]:
    if isinstance(passages, (str, bytes, Mapping)) or not isinstance(passages, Iterable):
        raise InputError(
            f"{where}: 'passages' must be a list of passages in rank order (strings or mappings), "
            f"got {type(passages).__name__}"
        )
    return list(passages)


def _passage(value: str | Mapping[str, Any]) -> str | dict[str, Any]:
    """A passage as the line holds it: a mapping copied, a NumPy (or other real) score as a float."""
    if not isinstance(value, Mapping):
        return value  # a string, or a wrong type parse_line names
    passage = dict(value)
    score = passage.get("score")
    if isinstance(score, numbers.Real) and not isinstance(score, (bool, int, float)):
        passage["score"] = float(score)
    return passage


def _encoded(line: dict[str, Any], where: str) -> bytes:
    """The line as UTF-8 JSON and its newline; what JSON cannot hold (NaN, an object, a lone surrogate) is named, and
    so is a line ``evalgate score`` would refuse to read (nested past its depth, longer than its longest line)."""
    too_deep = (
        f"{where}: the line would nest more than {MAX_DEPTH} levels of arrays and objects, which evalgate score "
        f"refuses to read (it reads at most {MAX_DEPTH}); flatten 'meta'. Nothing was written"
    )
    try:
        text = json.dumps(line, ensure_ascii=False, allow_nan=False)
    except RecursionError:
        raise InputError(too_deep) from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: 'meta' cannot be written as JSON ({exc})") from None
    try:
        check_depth(text, where)
    except InputError:
        raise InputError(too_deep) from None
    refuse_lone_surrogates(line, where, "")
    if len(text) > MAX_LINE_CHARS:
        raise InputError(
            f"{where}: the line would be {len(text):,} characters, and evalgate score reads lines of at most "
            f"{MAX_LINE_CHARS:,} (16 MiB): log shorter passages (the text the prompt held) or a smaller 'meta'. "
            "Nothing was written"
        )
    return (text + "\n").encode("utf-8")

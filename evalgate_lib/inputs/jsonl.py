"""Reading JSON Lines input files (gold questions, reviewer labels) with errors that name ``file:line``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, TypeVar

from evalgate_lib.errors import InputError

T = TypeVar("T")


def read_jsonl(path: str | Path, what: str) -> Iterator[tuple[int, str, Any]]:
    """``(line number, "file:line", parsed object)`` for every non-blank line of a JSONL file.

    ``what`` names the file's role in the missing-file message ("gold file", "label file").
    Lines are split on ``\\n`` only: JSON strings may hold U+2028 and friends, which
    :meth:`str.splitlines` would break on.
    """
    file = Path(path)
    if file.is_dir():
        raise InputError(f"{what} {file} is a directory, not a JSONL file")
    if not file.is_file():
        raise InputError(f"{what} {file} does not exist")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{file}: not UTF-8 text ({exc})") from None
    except OSError as exc:
        raise InputError(f"{what} {file} cannot be read ({exc.strerror})") from None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        try:
            yield number, where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None


def read_unique(
    path: str | Path,
    what: str,
    parse: Callable[[Any, str], T],
    key: Callable[[T], Hashable],
    describe: Callable[[Hashable], str],
) -> list[T]:
    """Every record of a JSONL file, parsed, in file order; a second record with the same key is refused.

    The refusal names the line of the duplicate and of the first occurrence, because a set
    holding one question or label twice would count it twice in every figure.
    """
    records: list[T] = []
    seen: dict[Hashable, int] = {}
    for number, where, obj in read_jsonl(path, what):
        record = parse(obj, where)
        k = key(record)
        if k in seen:
            raise InputError(f"{where}: duplicate {describe(k)} (first on line {seen[k]})")
        seen[k] = number
        records.append(record)
    return records

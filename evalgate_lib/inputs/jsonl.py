"""Reading JSON Lines input files (gold questions, reviewer labels, answer logs) with errors that name ``file:line``.

JSON can spell text that is not Unicode: a ``\\ud800`` escape without its other half (a *lone
surrogate*, what a writer that cut a UTF-16 string in two leaves). Python parses it, but such a
string has no UTF-8 form, so it could be neither hashed (a label names its answer by SHA-256)
nor written to ``results.jsonl``, and a run failed only after its work. It is refused here with
the line and the key: EvalGate does not replace or escape it, because any replacement would
change the text being judged and labelled without anyone deciding so, and the writer's own
hash of its answer would no longer match.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, TypeVar

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.structured import jsonl_lines, read_text

T = TypeVar("T")

#: A ``\\u`` escape of a UTF-16 surrogate (``\\ud800``-``\\udfff``): only lines holding one are searched.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def read_jsonl(path: str | Path, what: str) -> Iterator[tuple[int, str, Any]]:
    """``(line number, "file:line", parsed object)`` for every non-blank line of a JSONL file.

    ``what`` names the file's role in the missing-file message ("gold file", "label file"). The
    file's size, each line's length and its nesting are bounded (:mod:`evalgate_lib.inputs.structured`).
    """
    file = Path(path)
    for number, where, line, obj in jsonl_lines(read_text(file, what, "JSONL file"), file):
        if _SURROGATE_ESCAPE.search(line):
            refuse_lone_surrogates(obj, where, "")
        yield number, where, obj


def refuse_lone_surrogates(value: Any, where: str, key: str) -> None:
    """Refuse the first string of ``value`` (keys included) that holds a lone surrogate, naming its key and place.

    ``key`` is the path of ``value`` itself (``""`` for a whole record). Readers of JSONL files call it
    on the lines that spell such an escape; the answer logger on every line before it writes one.
    """
    if isinstance(value, dict):
        for name, item in value.items():
            refuse_lone_surrogates(name, where, key or "a key")
            refuse_lone_surrogates(item, where, f"{key}.{name}" if key else str(name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            refuse_lone_surrogates(item, where, f"{key}[{index}]")
    elif isinstance(value, str):
        at = next((i for i, ch in enumerate(value) if "\ud800" <= ch <= "\udfff"), None)
        if at is not None:
            raise InputError(
                f"{where}: {key or 'the value'} holds \\u{ord(value[at]):04x} at character {at:,}, half of a UTF-16 "
                "pair (a lone surrogate), which is not valid Unicode text; fix the writer's encoding (EvalGate refuses "
                "it rather than change the text)"
            )


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

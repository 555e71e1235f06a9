"""Bounded readers of structured text: every JSON, JSON Lines, TOML, YAML and CSV input goes through here.

Python's parsers take whatever they are given. A file of 100,000 ``[`` crashed sixteen readers
with ``RecursionError`` (the JSON and TOML parsers recurse once per level), a 5 GB file would be
read whole into memory, and a single line of gigabytes would be parsed before anything could
say it is not a line of a gold file. So every reader of structured input reads through here,
and each of three limits is refused with one line naming the file (and line) and the limit:

* **file size**: at most :data:`MAX_FILE_BYTES`, checked from the file's size before a byte is read;
* **line length**: a JSON Lines line or a CSV record at most :data:`MAX_LINE_CHARS` characters;
* **nesting depth**: arrays and objects (tables, lists) nested at most :data:`MAX_DEPTH` levels.
  The depth is measured before parsing, by one linear scan of the text (strings and comments
  set aside, so a ``[`` inside a string is text), so the parser never recurses past it; the
  parsed value is measured again without recursion, since TOML's dotted keys (``a.b.c = 1``)
  and YAML's indentation nest without brackets.

The limits are far above anything EvalGate writes or a team's data needs (EvalGate's own files
nest at most six levels) and far below what exhausts the interpreter: a value at the limit can
still be walked, copied and hashed by the recursive code that reads it next. The two other input
limits live here too, so every bound on input is in one place: a corpus document of at most
:data:`MAX_DOCUMENT_BYTES` (read and decompressed, :mod:`evalgate_lib.inputs.corpus`) and an
answer of at most :data:`MAX_ANSWER_CHARS` (:mod:`evalgate_lib.inputs.answer_logs`).
"""

from __future__ import annotations

import csv
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Iterator

from evalgate_lib.errors import InputError
from evalgate_lib.files import read_input

#: The largest structured input file read (512 MiB): a results file of 50,000 answers is about 250 MB.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: The longest JSON Lines line or CSV record (16 MiB characters): an answer with its passages is kilobytes.
MAX_LINE_CHARS = 16 * 1024 * 1024
#: The deepest nesting of arrays and objects read (EvalGate's own files nest at most 6 levels).
MAX_DEPTH = 64
#: The largest corpus document read, decompressed (64 MiB): a ``.gz`` of a megabyte can hold gigabytes.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
#: The longest answer an answer log may hold (1 MiB characters): judging is linear in it, a few seconds a MiB.
MAX_ANSWER_CHARS = 1024 * 1024

#: A JSON string (escapes included): set aside before brackets are counted.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
#: TOML and YAML strings and comments, set aside before brackets are counted. Conservative: a
#: bracket this leaves in place can only make the measured depth larger than the parser's.
_TOML_SKIPPED = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*')
#: A TOML dotted key of more than :data:`MAX_DEPTH` parts (``a.b.c...``, strings already set aside), each part
#: matched from its first character and without backtracking, so a long line of letters is one linear scan.
_DOTTED_KEY = re.compile(r"(?<![\w-])[\w-]++(?:[ \t]*+\.[ \t]*+[\w-]++)" + f"{{{MAX_DEPTH}}}")
#: A YAML line of more than :data:`MAX_DEPTH` nested block sequences (``- - - 1``).
_YAML_DASHES = re.compile(r"(?:-[ \t]++)" + f"{{{MAX_DEPTH + 1}}}")
_BRACKETS = str.maketrans({"[": "(", "{": "(", "]": ")", "}": ")"})
_NOT_BRACKET = re.compile(r"[^()]+")


def _too_deep(where: str, depth: int | None = None) -> InputError:
    found = f"nested {depth:,} levels deep" if depth is not None else f"nested more than {MAX_DEPTH} levels deep"
    return InputError(
        f"{where}: {found}; EvalGate reads at most {MAX_DEPTH} levels of arrays and objects (its own files use 6): "
        "the file is damaged or not the file meant"
    )


def bracket_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` in ``text`` (strings already removed), in linear time.

    Only the brackets are kept (``translate`` and one ``sub``, both in C), then the running depth is
    followed over runs of equal brackets, so 100,000 ``[`` in a row are one step.
    """
    marks = _NOT_BRACKET.sub("", text.translate(_BRACKETS))
    depth = deepest = 0
    for run in re.finditer(r"\(+|\)+", marks):
        size = run.end() - run.start()
        if marks[run.start()] == "(":
            depth += size
            deepest = max(deepest, depth)
        else:
            depth = max(0, depth - size)
    return deepest


def value_depth(value: Any) -> int:
    """The nesting depth of a parsed value (lists and dicts), without recursion; stops past :data:`MAX_DEPTH`."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_depth(text: str, where: str, skipped: re.Pattern[str] = _JSON_STRING) -> None:
    """Refuse ``text`` whose brackets nest deeper than :data:`MAX_DEPTH` (strings set aside by ``skipped``)."""
    if text.count("[") + text.count("{") > MAX_DEPTH:  # fewer brackets than the limit cannot nest past it
        depth = bracket_depth(skipped.sub("s", text))
        if depth > MAX_DEPTH:
            raise _too_deep(where, depth)


def _too_long(where: str, found: str) -> InputError:
    return InputError(
        f"{where}: {found}; EvalGate reads lines of at most {MAX_LINE_CHARS:,} characters (16 MiB): one record is "
        "never that long, so the file is damaged or not the file meant"
    )


def check_line(line: str, where: str) -> None:
    """Refuse a line longer than :data:`MAX_LINE_CHARS` characters."""
    if len(line) > MAX_LINE_CHARS:
        raise _too_long(where, f"a line of {len(line):,} characters")


def check_size(path: Path, what: str) -> None:
    """Refuse a file larger than :data:`MAX_FILE_BYTES`, from its size alone (nothing is read)."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # missing or unreadable: the reader says which, with its own words
    if path.is_file() and size > MAX_FILE_BYTES:
        raise InputError(
            f"{what} {path} holds {size:,} bytes; EvalGate reads structured input files of at most "
            f"{MAX_FILE_BYTES:,} bytes (512 MiB): split it, or name the file meant"
        )


def read_bytes(path: str | Path, what: str, kind: str) -> bytes:
    """The bytes of an input file, its size bounded first (:func:`check_size`); every other refusal is read_input's."""
    file = Path(path)
    check_size(file, what)
    return read_input(file, what, kind)


def read_text(path: str | Path, what: str, kind: str) -> str:
    """The UTF-8 text of an input file, its size bounded; one line naming the file when it cannot be one."""
    file = Path(path)
    data = read_bytes(file, what, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{file}: not UTF-8 text ({exc})") from None


def parse_json(text: str, where: str) -> Any:
    """``json.loads(text)``, its nesting bounded (:func:`check_depth`); a ``JSONDecodeError`` is the caller's."""
    check_depth(text, where)
    try:
        return json.loads(text)
    except RecursionError:  # the scan above keeps the parser far from this; a backstop, never a traceback
        raise _too_deep(where) from None


def read_json(path: str | Path, what: str) -> Any:
    """A whole JSON file, bounded: size, nesting. Not valid JSON is one line naming the line and column."""
    file = Path(path)
    text = read_text(file, what, "JSON file")
    try:
        return parse_json(text, str(file))
    except json.JSONDecodeError as exc:
        raise InputError(f"{file}: not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None


def jsonl_lines(text: str, file: Path) -> Iterator[tuple[int, str, str, Any]]:
    """``(line number, "file:line", the line, parsed object)`` for every non-blank line, each bounded (length, nesting).

    Lines are split on ``\\n`` only: JSON strings may hold U+2028 and friends, which
    :meth:`str.splitlines` would break on.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        check_line(line, where)
        try:
            yield number, where, line, parse_json(line, where)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None


def parse_toml(data: str | bytes, where: str) -> dict[str, Any]:
    """``tomllib.loads``, bounded: brackets and dotted keys before parsing, the parsed tables after.

    Bytes are decoded as UTF-8 first (TOML's encoding); text that is not is "not valid TOML", naming the byte.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not valid TOML ({exc})") from None
    check_depth(text, where, _TOML_SKIPPED)
    if text.count(".") > MAX_DEPTH and _DOTTED_KEY.search(_TOML_SKIPPED.sub("s", text)):
        raise _too_deep(where)
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML ({exc})") from None
    except RecursionError:
        raise _too_deep(where) from None
    depth = value_depth(value)
    if depth > MAX_DEPTH:
        raise _too_deep(where, None if depth > MAX_DEPTH + 1 else depth)
    return value


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """A whole TOML file, bounded (size, nesting); not UTF-8 or not TOML is one line naming the file."""
    file = Path(path)
    return parse_toml(read_bytes(file, what, "TOML file"), str(file))


def parse_yaml(text: str, where: str) -> Any:
    """``yaml.safe_load(text)`` (a document's front matter), bounded like TOML; ``YAMLError`` is the caller's."""
    import yaml

    check_depth(text, where, _TOML_SKIPPED)
    if _YAML_DASHES.search(text):
        raise _too_deep(where)
    try:
        value = yaml.safe_load(text)
    except RecursionError:
        raise _too_deep(where) from None
    if value_depth(value) > MAX_DEPTH:
        raise _too_deep(where)
    return value


def csv_records(handle: Any, file: Path) -> Iterator[tuple[int, list[str]]]:
    """``(line number where it starts, fields)`` of every CSV record of an open text ``handle``, the header
    included, each at most :data:`MAX_LINE_CHARS` characters (the csv module's own limit, 128 KiB per field,
    is raised to that for this reader and put back after)."""
    saved = csv.field_size_limit()
    csv.field_size_limit(MAX_LINE_CHARS)
    reader = csv.reader(handle)
    start = 1
    try:
        for record in reader:
            check_line("".join(record), f"{file}:{start}")
            yield start, record
            start = reader.line_num + 1
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise _too_long(f"{file}:{start}", f"a field of more than {MAX_LINE_CHARS:,} characters") from None
        raise InputError(f"{file}:{reader.line_num}: not valid CSV ({exc})") from None
    finally:
        csv.field_size_limit(saved)

"""Reading a question table someone else wrote: JSON Lines or CSV, each row with its ``file:line``.

Teams keep evaluation sets as JSONL (RAGAS, Hugging Face ``to_json``) or CSV
(spreadsheets, ``to_csv``). Both become the same :class:`Table` so the mapping onto
EvalGate's gold schema is written once. A CSV cannot hold a list, so list columns
arrive as text ("['a', 'b']" from pandas, '["a"]' from JSON tools):
:func:`parse_list_cell` reads both and names the cell when it can do neither.
"""

from __future__ import annotations

import ast
import io
import json
from dataclasses import dataclass
from pathlib import Path

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.jsonl import read_jsonl
from evalgate_lib.inputs.structured import csv_records, parse_json, read_text

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)


@dataclass(frozen=True)
class Row:
    """One record: where it starts (``file:line``) and its values by column name (CSV values are strings)."""

    where: str
    values: dict[str, object]


@dataclass(frozen=True)
class Table:
    """A whole input file: its format, every column in first-seen order, and the rows."""

    path: str
    format: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]


def read_table(path: str | Path) -> Table:
    """Read a ``.jsonl``/``.ndjson`` or ``.csv`` file; any other suffix is refused, naming the ones read."""
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return _read_jsonl(file)
    if suffix in CSV_SUFFIXES:
        return _read_csv(file)
    kinds = ", ".join(JSONL_SUFFIXES + CSV_SUFFIXES)
    raise InputError(f"{file}: cannot tell the format from the suffix {suffix or '(none)'!r}; use one of {kinds}")


def _read_jsonl(file: Path) -> Table:
    rows: list[Row] = []
    columns: dict[str, None] = {}
    for _, where, obj in read_jsonl(file, "input file"):
        if not isinstance(obj, dict):
            raise InputError(f"{where}: each line must be a JSON object (one question), got {type(obj).__name__}")
        columns.update(dict.fromkeys(obj))
        rows.append(Row(where, dict(obj)))
    if not rows:
        raise InputError(f"input file {file} holds no rows")
    return Table(str(file), "JSONL", tuple(columns), tuple(rows))


def _read_csv(file: Path) -> Table:
    text = read_text(file, "input file", "CSV file").removeprefix("\ufeff")  # a spreadsheet's byte-order mark
    records = csv_records(io.StringIO(text, newline=""), file)
    first = next(records, None)
    if first is None:
        raise InputError(f"input file {file} is empty (no header row)")
    columns = _check_header(first[1], file)
    rows: list[Row] = []
    for start, record in records:
        where = f"{file}:{start}"
        if not record or not any(cell.strip() for cell in record):
            continue
        if len(record) != len(columns):
            raise InputError(f"{where}: {len(record)} fields, but the header has {len(columns)} columns")
        rows.append(Row(where, dict(zip(columns, record, strict=True))))
    if not rows:
        raise InputError(f"input file {file} holds a header but no rows")
    return Table(str(file), "CSV", columns, tuple(rows))


def _check_header(header: list[str], file: Path) -> tuple[str, ...]:
    names = [name.strip() for name in header]
    for number, name in enumerate(names, start=1):
        if not name:
            raise InputError(f"{file}:1: column {number} of the header has no name")
        if names.index(name) != number - 1:
            raise InputError(f"{file}:1: column {name!r} appears twice in the header")
    return tuple(names)


def parse_list_cell(text: str, where: str) -> list[object]:
    """A list written as text: JSON first (``["a", "b"]``), then a Python literal (``['a', "b's"]``).

    Called only for text that starts with ``[``; ``where`` names the file, line and column.
    """
    try:
        value = parse_json(text, where)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise InputError(
                f"{where}: looks like a list but is neither JSON nor a Python list literal ({exc}): {text[:60]!r}"
            ) from None
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list, got {type(value).__name__}: {text[:60]!r}")
    return value

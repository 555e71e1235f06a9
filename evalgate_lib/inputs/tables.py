"""Reading a table someone else wrote: JSON Lines, CSV or a Hugging Face ``datasets`` folder, each row with its place.

Teams keep evaluation sets as JSONL (RAGAS, Hugging Face ``to_json``), CSV (spreadsheets,
``to_csv``) or a folder written by ``Dataset.save_to_disk``. All three become the same
:class:`Table`, so the mapping of their rows onto EvalGate's gold questions (``evalgate gold
import``) and answer logs (``evalgate score``) is written once. A CSV cannot hold a list, so list
columns arrive as text ("['a', 'b']" from pandas, '["a"]' from JSON tools): :func:`parse_list_cell`
reads both and names the cell when it can do neither.

A ``datasets`` folder is read with the ``datasets`` package itself (``load_from_disk``: Arrow
files and JSON, nothing executed) when it is installed; EvalGate does not depend on it, and
without it the folder is refused in one line that says so. Its rows are named ``folder row N``
(1-based), as a file's are named ``file:line``.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from evalgate_lib.errors import InputError
from evalgate_lib.files import sha256_file
from evalgate_lib.inputs.jsonl import read_jsonl
from evalgate_lib.inputs.structured import csv_records, parse_json, read_text

JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)
#: The format name of a ``save_to_disk`` folder.
DATASETS = "Hugging Face datasets folder"


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
    """Read a ``.jsonl``/``.ndjson`` or ``.csv`` file or a ``datasets`` folder; any other suffix is refused."""
    file = Path(path)
    if file.is_dir():
        return read_datasets_folder(file)
    suffix = file.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        return table_of_records(file, "JSONL", ((where, obj) for _, where, obj in read_jsonl(file, "input file")))
    if suffix in CSV_SUFFIXES:
        return read_csv(file)
    kinds = ", ".join(JSONL_SUFFIXES + CSV_SUFFIXES)
    raise InputError(
        f"{file}: cannot tell the format from the suffix {suffix or '(none)'!r}; use one of {kinds}, "
        "or a Hugging Face datasets folder"
    )


def table_of_records(file: Path, format: str, records: Iterable[tuple[str, Any]]) -> Table:
    """A table of already-decoded records (``(where, object)``): each must be a JSON object; none is refused."""
    rows: list[Row] = []
    columns: dict[str, None] = {}
    for where, obj in records:
        if not isinstance(obj, dict):
            raise InputError(f"{where}: each line must be a JSON object (one question), got {type(obj).__name__}")
        columns.update(dict.fromkeys(obj))
        rows.append(Row(where, dict(obj)))
    if not rows:
        raise InputError(f"input file {file} holds no rows")
    return Table(str(file), format, tuple(columns), tuple(rows))


def read_csv(file: Path) -> Table:
    """A CSV file with a header row; every row keeps the line it starts on (cells may span lines)."""
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


def read_datasets_folder(folder: Path) -> Table:
    """A folder ``Dataset.save_to_disk`` wrote (or a ``DatasetDict`` of one split), read by the ``datasets`` package.

    Refused in one line when the package is not installed, when the folder is not one
    ``save_to_disk`` wrote, and when it holds several splits (each split's own folder is named).
    """
    try:
        import datasets
    except ImportError:
        raise InputError(
            f"{folder} is a folder: reading a Hugging Face datasets folder needs the 'datasets' package "
            "(pip install datasets), or export it first with Dataset.to_json('rows.jsonl') or .to_csv('rows.csv')"
        ) from None
    try:
        loaded = datasets.load_from_disk(str(folder))
    except FileNotFoundError:
        raise InputError(
            f"{folder} is a folder but not one Dataset.save_to_disk wrote (no dataset_info.json and state.json, "
            "nor dataset_dict.json); name a .jsonl or .csv file, or the folder save_to_disk wrote"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the package's own reader of a damaged folder raises what it meets
        raise _damaged(folder, exc) from None
    if isinstance(loaded, datasets.DatasetDict):
        splits = list(loaded)
        if len(splits) != 1:
            named = ", ".join(str(folder / split) for split in splits)
            raise InputError(f"{folder} holds {len(splits)} splits ({', '.join(splits)}): name one ({named})")
        folder, loaded = folder / splits[0], loaded[splits[0]]
    try:  # the rows are read from the Arrow files here, lazily: a truncated one fails now
        rows = tuple(Row(f"{folder} row {n}", dict(record)) for n, record in enumerate(loaded, start=1))
    except Exception as exc:  # noqa: BLE001 - as above
        raise _damaged(folder, exc) from None
    if not rows:
        raise InputError(f"{DATASETS} {folder} holds no rows")
    return Table(str(folder), DATASETS, tuple(loaded.column_names), rows)


def _damaged(folder: Path, exc: Exception) -> InputError:
    """A datasets folder its package cannot read (``state.json`` emptied, an ``.arrow`` file cut short), in one line.

    The ``datasets`` package raises whatever its readers meet (``KeyError``, ``JSONDecodeError``,
    ``ArrowInvalid``); each means the folder is not the one ``save_to_disk`` wrote, whole.
    """
    detail = " ".join(str(exc).split())[:200] or "no detail"
    return InputError(
        f"{DATASETS} {folder} cannot be read ({type(exc).__name__}: {detail}): one of its files (state.json, "
        "dataset_info.json, the .arrow data) is damaged or was changed after Dataset.save_to_disk wrote it; save the "
        "dataset again, or export it with Dataset.to_json('rows.jsonl') and name that file"
    )


def source_sha256(path: str | Path) -> str:
    """SHA-256 of what a table was read from: a file's bytes, or a folder's files (relative path and content).

    A folder's digest covers every file under it in sorted order, so the manifest can name a
    ``datasets`` folder by hash as it names a file.
    """
    source = Path(path)
    if not source.is_dir():
        return sha256_file(source)
    digest = hashlib.sha256()
    for file in sorted(p for p in source.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(source).as_posix()}\0{sha256_file(file)}\n".encode())
    return digest.hexdigest()


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

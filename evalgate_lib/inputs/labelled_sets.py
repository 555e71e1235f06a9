"""Labelled sets: answers, the passages they were written from, and reviewers' labels, kept together.

A judge's agreement with reviewers differs from one kind of answer to another (a small
demo model's pasted lists, a capable model's fluent prose) and from one domain to
another, so agreement is only meaningful per set, never pooled. A set file
(``labels/sets.toml``) names each set once::

    [[set]]
    name = "nimbus / fluent"
    generator = "fluent"               # "demo model" or "fluent": reported as its own column
    gold = "../gold/questions.jsonl"
    labels = "fluent/nimbus.jsonl"
    answers = { strict = "fluent/nimbus-answers/strict.jsonl", chatty = "fluent/nimbus-answers/chatty.jsonl" }
    held_out = true                    # optional: measured only, never tuned on (said beside every figure)

``answers`` maps a configuration (or generator style) name, the ``config`` of the labels,
to an answer log in ``evalgate score`` format: the answers with the passages each was
written from, so every judge can be rerun on them without generating anything. Paths are
relative to the set file. Unknown keys, missing files and duplicate names are refused
with the file and the key. ``held_out`` marks a set whose figures test the judge where
nobody tuned it: agreement prints "held out" beside it, and the scripts that choose a rule
or a threshold by the worst set (``scripts/ablation.py``, ``scripts/threshold_curves.py``)
leave it out of that choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.config import check_keys
from evalgate_lib.inputs.structured import read_toml

SET_KEYS = ("name", "generator", "gold", "labels", "answers", "description", "held_out")
GENERATORS = ("demo model", "fluent")


@dataclass(frozen=True)
class LabelledSet:
    """One labelled set: which generator kind wrote it, its gold file, labels and answer logs by config."""

    name: str
    generator: str
    gold: Path
    labels: Path
    answers: tuple[tuple[str, Path], ...]
    description: str = ""
    #: Measured only, never tuned on: kept out of every choice made by the worst set.
    held_out: bool = False


def _path(base: Path, value: Any, file: Path, where: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{file}: {where} must be a non-empty path string")
    path = (base / value).resolve()
    if not path.is_file():
        raise InputError(f"{file}: {where} names {value!r}, which is not a file ({path})")
    return path


def load_sets(path: str | Path) -> list[LabelledSet]:
    """Every ``[[set]]`` of a set file, checked (keys, generator kind, files, unique names)."""
    file = Path(path)
    data = read_toml(file, "set file")
    check_keys(data, ("set",), file, "the top level")
    entries = data.get("set")
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{file}: no [[set]] tables")
    sets: list[LabelledSet] = []
    seen: set[str] = set()
    for number, entry in enumerate(entries, 1):
        where = f"[[set]] number {number}"
        if not isinstance(entry, dict):
            raise InputError(f"{file}: {where} is not a table")
        check_keys(entry, SET_KEYS, file, where)
        for key in ("name", "generator", "gold", "labels", "answers"):
            if key not in entry:
                raise InputError(f"{file}: {where} lacks the key {key!r}")
        name = entry["name"]
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{file}: {where}: 'name' must be a non-empty string")
        if name in seen:
            raise InputError(f"{file}: {where}: the set name {name!r} is used twice")
        seen.add(name)
        where = f"set {name!r}"
        if entry["generator"] not in GENERATORS:
            raise InputError(f"{file}: {where}: 'generator' must be one of {', '.join(map(repr, GENERATORS))}")
        held_out = entry.get("held_out", False)
        if not isinstance(held_out, bool):
            raise InputError(f"{file}: {where}: 'held_out' must be true or false, got {held_out!r}")
        answers = entry["answers"]
        if not isinstance(answers, dict) or not answers:
            raise InputError(f"{file}: {where}: 'answers' must be a table of config name = answer log path")
        sets.append(
            LabelledSet(
                name=name,
                generator=entry["generator"],
                gold=_path(file.parent, entry["gold"], file, f"{where}: 'gold'"),
                labels=_path(file.parent, entry["labels"], file, f"{where}: 'labels'"),
                answers=tuple(
                    (config, _path(file.parent, log, file, f"{where}: answers.{config}"))
                    for config, log in answers.items()
                ),
                description=str(entry.get("description", "")),
                held_out=held_out,
            )
        )
    return sets

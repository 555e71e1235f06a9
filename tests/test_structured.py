"""The bounded readers (evalgate_lib/inputs/structured.py): depth, line and size limits, each one line.

Every JSON, JSON Lines, TOML, YAML and CSV input goes through them (issue 45: a file of 100,000
``[`` crashed sixteen readers with RecursionError). The values here are counted by hand.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evalgate_lib.errors import InputError
from evalgate_lib.inputs import structured
from evalgate_lib.inputs.structured import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    bracket_depth,
    csv_records,
    parse_json,
    parse_toml,
    parse_yaml,
    read_json,
    value_depth,
)

TOO_DEEP = r"nested (more than 64|[\d,]+) levels deep; EvalGate reads at most 64 levels of arrays and objects"


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("", 0),
        ("[]", 1),
        ("[[]][[[]]]", 3),  # two siblings: the deeper one counts
        ("{[{}]}", 3),  # objects and arrays alike
        ("]]][[", 2),  # a stray closer does not go below zero
        ("[" * 100_000, 100_000),
    ],
)
def test_bracket_depth(text: str, depth: int) -> None:
    assert bracket_depth(text) == depth


def test_value_depth_counts_lists_and_dicts_and_stops_past_the_limit() -> None:
    assert value_depth(1) == 0
    assert value_depth({"a": [1, {"b": []}]}) == 4  # dict, list, dict, list
    deep: list = []
    for _ in range(10_000):  # deeper than the interpreter's recursion limit: measured without recursion
        deep = [deep]
    assert MAX_DEPTH < value_depth(deep) <= MAX_DEPTH + 1


def test_brackets_inside_strings_are_text() -> None:
    text = json.dumps({"answer": "[" * 1000 + "{" * 1000})
    assert parse_json(text, "x") == {"answer": "[" * 1000 + "{" * 1000}
    toml = 'a = "' + "[" * 100 + '"  # ' + "[" * 100 + "\nb = '{{{{' # a comment's brackets are text too\n"
    assert parse_toml(toml, "x.toml") == {"a": "[" * 100, "b": "{{{{"}


def test_json_at_the_limit_reads_and_one_past_is_one_line() -> None:
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "x") is not None
    with pytest.raises(InputError, match=r"^x\.json: nested 65 levels deep; "):
        parse_json("[" * 65 + "]" * 65, "x.json")
    with pytest.raises(InputError, match=r"^x\.json: nested 100,000 levels deep; "):
        parse_json('{"a":' * 100_000 + "1" + "}" * 100_000, "x.json")


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000 + "]" * 100_000,  # inline arrays
        "a = " + "{b = " * 100 + "1" + "}" * 100,  # inline tables
        "a" + ".a" * 100_000 + " = 1",  # a dotted key: nests without a bracket (tomllib took gigabytes on it)
        '"a"' + '."a"' * 100 + " = 1",  # a dotted key of quoted parts
        "[" + "a." * 100 + "a]\nx = 1\n",  # a table header
    ],
)
def test_toml_nesting_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(InputError, match=r"^x\.toml: " + TOO_DEEP):
        parse_toml(text, "x.toml")


def test_toml_not_utf8_names_the_byte() -> None:
    with pytest.raises(InputError, match=r"^x\.toml: not valid TOML \('utf-8' codec can't decode byte 0xe8"):
        parse_toml("# r\xe8gle\n".encode("latin-1"), "x.toml")


@pytest.mark.parametrize(
    "text", ["id: " + "[" * 100_000, "- " * 100_000 + "x", "a:\n" + "".join(" " * i + "a:\n" for i in range(1, 300))]
)
def test_yaml_front_matter_nesting_is_refused(text: str) -> None:
    with pytest.raises(InputError, match=r"^doc\.md: front matter: " + TOO_DEEP):
        parse_yaml(text, "doc.md: front matter")


def test_a_line_past_the_limit_is_refused_with_its_line_number(tmp_path: Path) -> None:
    from evalgate_lib.inputs.jsonl import read_jsonl

    path = tmp_path / "labels.jsonl"
    path.write_text('{"a": 1}\n' + '"' + "x" * MAX_LINE_CHARS + '"\n')
    with pytest.raises(
        InputError, match=rf"^{path}:2: a line of 16,777,218 characters; EvalGate reads lines of at most"
    ):
        list(read_jsonl(path, "label file"))


def test_a_file_past_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    with open(path, "wb") as handle:  # sparse: no disk used, and nothing is read
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(InputError, match=rf"^results file {path} holds 536,870,913 bytes; EvalGate reads structured"):
        read_json(path, "results file")


def test_csv_field_past_the_limit_names_the_record_and_the_module_limit_is_put_back(tmp_path: Path) -> None:
    import csv

    before = csv.field_size_limit()
    text = "question,answer\nq,a\n" + "q2," + "x" * (MAX_LINE_CHARS + 1) + "\n"
    with pytest.raises(InputError, match=r"^t\.csv:3: a field of more than 16,777,216 characters"):
        list(csv_records(io.StringIO(text, newline=""), Path("t.csv")))
    assert csv.field_size_limit() == before
    big = "x" * 200_000  # above the csv module's own 128 KiB field limit, far below EvalGate's
    assert list(csv_records(io.StringIO(f"a\n{big}\n", newline=""), Path("t.csv"))) == [(1, ["a"]), (2, [big])]


def test_every_limit_is_named_once() -> None:
    """One place: the limits are module constants, and the readers named in the issue import them from here."""
    assert (MAX_FILE_BYTES, MAX_LINE_CHARS, MAX_DEPTH) == (512 * 2**20, 16 * 2**20, 64)
    assert (structured.MAX_DOCUMENT_BYTES, structured.MAX_ANSWER_CHARS) == (64 * 2**20, 2**20)
    root = Path(structured.__file__).parents[1]
    for module in root.rglob("*.py"):
        if module.name == "structured.py":
            continue
        text = module.read_text(encoding="utf-8")
        for call in ("json.loads(", "tomllib.loads(", "yaml.safe_load(", "csv.reader("):
            assert call not in text, f"{module.relative_to(root)} parses with {call} instead of inputs/structured.py"

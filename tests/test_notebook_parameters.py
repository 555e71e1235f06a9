"""Notebook parameters arrive as papermill passes them: lists, JSON strings or comma lists, or a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_row

from evalgate_lib.api import Results, label_files, question_id_list
from evalgate_lib.errors import InputError


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (["q001", "q045"], ["q001", "q045"]),
        ('["q001", "q045"]', ["q001", "q045"]),  # the README's `-p question_ids '["q001", "q045"]'`
        ("q001,q045", ["q001", "q045"]),
        (" q001 , q045 ", ["q001", "q045"]),
    ],
)
def test_question_ids_accept_the_forms_the_recipes_show(value, expected) -> None:
    assert question_id_list(value) == expected


def test_a_malformed_list_is_refused_with_the_value() -> None:
    with pytest.raises(InputError, match=r"question_ids: '\[q001' is not a JSON list"):
        question_id_list("[q001")
    with pytest.raises(InputError, match="must be a list of id strings"):
        question_id_list("[1, 2]")


def test_examples_draw_the_chosen_answers_and_refuse_unknown_ids() -> None:
    rows = [make_row(question_id="q001"), make_row(question_id="q002")]
    results = Results(folder=Path("."), rows=tuple(rows), summary={}, manifest={})
    assert [r.question_id for r in results.examples('["q002", "q001"]')] == ["q002", "q001"]
    with pytest.raises(InputError, match=r"'q999' not in this run \(2 questions"):
        results.examples("q999")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("../labels/nimbus.jsonl", ["../labels/nimbus.jsonl"]),  # `-p labels ../labels/nimbus.jsonl`: one file
        (Path("labels/nimbus.jsonl"), ["labels/nimbus.jsonl"]),
        (["a.jsonl", "b.jsonl"], ["a.jsonl", "b.jsonl"]),  # `-y 'labels: [a.jsonl, b.jsonl]'`, and Python
        ('["a.jsonl", "b.jsonl"]', ["a.jsonl", "b.jsonl"]),
        (None, []),
        ("", []),
        ([], []),
    ],
)
def test_labels_accept_one_path_or_a_list(value, expected) -> None:
    assert label_files(value) == [Path(p) for p in expected]


def test_labels_of_another_shape_are_refused_with_the_value() -> None:
    for bad, message in ((3, "labels: 3 must be"), ([1], r"labels: \[1\] must be"), ("[a", "not a JSON list")):
        with pytest.raises(InputError, match=message):
            label_files(bad)


def test_one_label_path_reaches_every_view_that_reads_labels(tmp_path: Path) -> None:
    """A path string was read as a list of one-character paths ("label file . is a directory").

    (``agreement_html`` rejudges with the corpus, which this crafted folder has not: the papermill
    recipe of notebook 05 with ``-p labels PATH`` covers it, tests/test_report_recipes.py.)
    """
    from conftest import write_results_folder

    from evalgate_lib.api import load_results
    from evalgate_lib.inputs.labels import Label, LabelStore, answer_sha256

    rows = [make_row(config=c, question_id=q) for c in ("baseline", "candidate") for q in ("q001", "q002")]
    results = load_results(write_results_folder(tmp_path / "results", rows))
    store = LabelStore(tmp_path / "labels.jsonl")
    for r in rows:
        store.put(Label(r.config, r.question_id, answer_sha256(r.answer), True, False, "ana", verdicts_hidden=True))
    path = str(tmp_path / "labels.jsonl")
    assert results.label_correction(path).basis == "census"
    assert "4 reviewer label(s) of these exact answers" in results.results_table_html(path)
    assert 'data-basis="census"' in results.first_screen_html("configs/gate.toml", path)

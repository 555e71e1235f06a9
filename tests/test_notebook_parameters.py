"""Notebook parameters arrive as papermill passes them: lists, JSON strings or comma lists, or a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_row

from evalgate_lib.api import Results, question_id_list
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

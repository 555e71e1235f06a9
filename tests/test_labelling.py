"""Labelling in the explorer: each mark saved at once, a session resumes where it stopped, no verdicts shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_row

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.labels import LabelStore, answer_sha256, load_labels
from evalgate_lib.reporting.labelling import LabellingSession, labelling_widget, review_html

ANSWER = "Starter includes 3 seats. It costs $40."


def rows():
    return [
        make_row(question_id="q001", answer=ANSWER),
        make_row(question_id="q002", answer="Business includes 10 seats."),
        make_row(question_id="q003", answer="I don't know."),
    ]


def test_marks_are_saved_at_once_and_derive_the_claim_fields(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    assert session.position == 0 and session.progress() == (0, 3)
    session.mark_correct(True)
    saved = load_labels(path)
    assert len(saved) == 1 and saved[0].correct is True and saved[0].answer_sha256 == answer_sha256(ANSWER)
    assert [s.text for s in saved[0].sentences] == ["Starter includes 3 seats.", "It costs $40."]
    session.mark_sentence(0, True)
    label = session.mark_sentence(1, False)
    assert label.unsupported_claim is True and label.unsupported_sentences == ("It costs $40.",)
    assert load_labels(path)[0] == label  # what is in memory is what is on disk
    session.mark_sentence(1, None)
    assert load_labels(path)[0].unsupported_claim is False
    assert session.progress() == (1, 3)


def test_a_new_session_resumes_at_the_first_unlabelled_answer(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    first = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    first.mark_correct(True)
    first.go(1)
    first.mark_correct(False)
    resumed = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    assert resumed.position == 2 and resumed.current.question_id == "q003"
    other = LabellingSession(rows(), LabelStore(path), reviewer="ben")  # another reviewer starts at the top
    assert other.position == 0


def test_a_label_of_a_changed_answer_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    LabellingSession(rows(), LabelStore(path), reviewer="ana").mark_correct(True)
    changed = [make_row(question_id="q001", answer="Starter includes three seats."), *rows()[1:]]
    assert LabellingSession(changed, LabelStore(path), reviewer="ana").position == 0


def test_sentence_index_out_of_range(tmp_path: Path) -> None:
    session = LabellingSession(rows(), LabelStore(tmp_path / "l.jsonl"), reviewer="ana")
    with pytest.raises(IndexError, match="2 sentence"):
        session.mark_sentence(5, True)


def test_reviewer_is_required(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="reviewer"):
        LabellingSession(rows(), LabelStore(tmp_path / "l.jsonl"), reviewer=" ")


def test_the_review_view_shows_no_verdict() -> None:
    row = make_row(question_id="q001", answer=ANSWER)
    body = "Intro.\n" + "Starter includes 3 seats.\n" * 3
    page = review_html(row, {a.article_id: Article(a.article_id, "Plans", body) for a in row.retrieved})
    assert "Starter includes 3 seats." in page and "Question:" in page
    for verdict_word in ("hallucination", "grounded", "review queue", "coverage", "flag", "supported"):
        assert verdict_word not in page.lower()


def test_the_widget_builds_and_saves_a_click(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    box = labelling_widget(session, [])
    verdict = box.children[3]
    verdict.value = "wrong"
    assert load_labels(path)[0].correct is False

"""Labelling (notebook 06): each mark saved at once, a session resumes where it stopped, verdicts only once saved.

The blind flow renders no verdict of an answer before its label is saved, and each label's
``verdicts_hidden`` is what the session rendered; the audit flow shows them and says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_flags, make_row

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.labels import LabelStore, answer_sha256, load_labels
from evalgate_lib.workbench.labelling import (
    UNSET,
    VERDICTS_LATER,
    LabellingSession,
    labelling_widget,
    review_html,
)

ANSWER = "Starter includes 3 seats. It costs $40."


def rows():
    return [
        make_row(question_id="q001", answer=ANSWER),
        make_row(question_id="q002", answer="Business includes 10 seats."),
        make_row(question_id="q003", answer="I don't know."),
    ]


def test_an_answer_is_saved_only_when_its_verdict_and_every_sentence_are_marked(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    assert session.position == 0 and session.progress() == (0, 3)
    assert session.mark_correct(True) is None  # verdict only: two sentences still unmarked
    assert not path.exists() and session.draft().missing == ["sentence 1", "sentence 2"]
    assert session.mark_sentence(0, True) is None
    assert not path.exists()
    label = session.mark_sentence(1, False)
    assert label is not None
    saved = load_labels(path)
    assert len(saved) == 1 and saved[0] == label and saved[0].answer_sha256 == answer_sha256(ANSWER)
    assert label.correct is True and label.unsupported_claim is True
    assert label.verdicts_hidden is True and label.mode == "blind"  # nothing of the verdicts was rendered
    assert '"verdicts_hidden": true' in path.read_text(encoding="utf-8")
    assert label.unsupported_sentences == ("It costs $40.",)
    assert [(s.text, s.supported) for s in label.sentences] == [
        ("Starter includes 3 seats.", True),
        ("It costs $40.", False),
    ]
    with pytest.raises(ValueError, match="already has your label: relabel"):
        session.mark_sentence(1, None)  # a saved label changes only on request
    session.relabel()
    session.mark_sentence(1, None)  # opened: each click re-saves, the first label kept in the history
    (changed,) = load_labels(path)
    assert changed.unsupported_claim is False and changed.history == (label.earlier(),)
    assert session.progress() == (1, 3)


def test_marking_a_sentence_first_stores_no_verdict(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    session.mark_sentence(0, False)
    session.mark_sentence(1, True)
    assert not path.exists() and session.draft().missing == ["the answer's verdict"]
    assert session.mark_correct(False).correct is False
    assert load_labels(path)[0].unsupported_sentences == ("Starter includes 3 seats.",)


def _label_fully(session: LabellingSession, correct: bool) -> None:
    session.mark_correct(correct)
    for i in range(len(session.draft().marks)):
        session.mark_sentence(i, True)


def test_a_new_session_resumes_at_the_first_unlabelled_answer(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    first = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    _label_fully(first, True)
    first.go(1)
    _label_fully(first, False)
    first.go(1)
    first.mark_correct(True)  # the third answer is only half marked: it does not count
    resumed = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    assert resumed.position == 2 and resumed.current.question_id == "q003"
    assert resumed.draft().correct is UNSET  # a half-marked answer was never written
    other = LabellingSession(rows(), LabelStore(path), reviewer="ben")  # another reviewer starts at the top
    assert other.position == 0


def test_a_saved_label_is_shown_back_as_its_marks(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    _label_fully(LabellingSession(rows(), LabelStore(path), reviewer="ana"), False)
    again = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    again.go(-1)  # back to the labelled first answer
    assert again.draft().correct is False and again.draft().marks == [True, True] and again.draft().complete


def test_a_label_of_a_changed_answer_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    _label_fully(LabellingSession(rows(), LabelStore(path), reviewer="ana"), True)
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


def _toggles(box) -> tuple:
    verdict = box.children[5]
    sentences = [child.children[1] for child in box.children[6].children]
    return verdict, sentences


def test_the_widget_starts_with_nothing_selected(tmp_path: Path) -> None:
    session = LabellingSession(rows(), LabelStore(tmp_path / "labels.jsonl"), reviewer="ana")
    verdict, sentences = _toggles(labelling_widget(session, []))
    assert verdict.value is None and verdict.options == ("correct", "wrong")
    assert len(sentences) == 2 and all(t.value is None for t in sentences)


def test_clicking_only_wrong_saves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    box = labelling_widget(session, [])
    verdict, sentences = _toggles(box)
    verdict.value = "wrong"
    assert not path.exists() or load_labels(path) == []
    status = box.children[1].value
    assert "not saved yet" in status and "sentence 1, sentence 2" in status
    assert all(t.value is None for t in sentences)


def test_the_widget_saves_once_every_sentence_is_clicked(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(rows(), LabelStore(path), reviewer="ana")
    box = labelling_widget(session, [])
    verdict, sentences = _toggles(box)
    sentences[0].value = "supported"
    verdict.value = "wrong"
    assert not path.exists()
    sentences[1].value = "unsupported"
    saved = load_labels(path)
    assert len(saved) == 1 and saved[0].correct is False
    assert [s.supported for s in saved[0].sentences] == [True, False]
    assert "this answer: saved" in box.children[1].value


def _reasons(row) -> list[str]:
    """Strings only EvalGate's verdict view of ``row`` holds: its flags' reasons and the sentence reasons (as HTML)."""
    import html

    return [html.escape(r) for reasons in row.flags.reasons.values() for r in reasons] + [
        html.escape(s.reason) for s in row.sentences
    ]


def flagged_rows():
    return [
        make_row(question_id="q001", answer=ANSWER, correct=False, flags=make_flags(wrong=True, hallucination=True)),
        make_row(question_id="q002", answer="Business includes 10 seats."),
    ]


def test_blind_verdicts_are_rendered_only_after_the_label_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(flagged_rows(), LabelStore(path), reviewer="ana")
    assert session.mode == "blind" and not session.verdicts_due()
    assert session.render_verdicts() == "" and not session.verdicts_rendered()
    session.mark_correct(False)
    session.mark_sentence(0, True)
    assert session.render_verdicts() == ""  # half marked: not saved, nothing shown
    saved = session.mark_sentence(1, False)
    assert saved is not None and saved.verdicts_hidden is True and saved.mode == "blind"
    shown = session.render_verdicts()
    assert session.verdicts_rendered() and all(reason in shown for reason in _reasons(session.current))
    # the reviewer changes a mark after the verdicts appeared: the file no longer calls the label blind, and keeps
    # the blind one in its history
    session.relabel()
    again = session.mark_sentence(0, None)
    assert again.verdicts_hidden is False and load_labels(path)[0].verdicts_hidden is False
    assert [h.verdicts_hidden for h in load_labels(path)[0].history] == [True]
    session.go(1)
    assert session.render_verdicts() == ""  # the next answer: nothing until it is saved


def test_audit_labels_are_made_seeing_the_verdicts_and_say_so(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    session = LabellingSession(flagged_rows(), LabelStore(path), reviewer="ana", mode="audit")
    assert session.verdicts_due()
    session.mark_sentence(0, True)
    session.mark_sentence(1, False)
    with pytest.raises(ValueError, match="an audit label is made seeing EvalGate's verdicts"):
        session.mark_correct(False)  # complete, but nothing was rendered: no audit label claims otherwise
    assert not path.exists()
    assert "Flags and why they fired" in session.render_verdicts()
    label = session.mark_correct(False)
    assert (label.mode, label.verdicts_hidden) == ("audit", False)
    assert '"mode": "audit"' in path.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="mode must be one of 'blind', 'audit'"):
        LabellingSession(flagged_rows(), LabelStore(path), reviewer="ana", mode="peek")


def test_the_widget_shows_verdicts_below_only_once_the_answer_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    session = LabellingSession(flagged_rows(), LabelStore(path), reviewer="ana")
    box = labelling_widget(session, [])
    panel = box.children[7]
    row = session.current
    html_now = " ".join(child.value for child in (box.children[1], box.children[4], panel))
    assert panel.value == VERDICTS_LATER and not any(reason in html_now for reason in _reasons(row))
    assert "Hallucination" not in html_now and "eg-describe" not in html_now and "blind" in box.children[1].value
    verdict, sentences = _toggles(box)
    verdict.value = "wrong"
    sentences[0].value = "supported"
    assert panel.value == VERDICTS_LATER  # one sentence still unmarked
    sentences[1].value = "unsupported"
    assert load_labels(path)[0].verdicts_hidden is True
    assert "shown because your label of this answer is saved" in panel.value
    assert all(reason in panel.value for reason in _reasons(row))
    box.children[0].children[1].click()  # next answer: unlabelled, so its verdicts are gone again
    assert box.children[7].value == VERDICTS_LATER


def test_the_audit_widget_shows_the_verdicts_from_the_start(tmp_path: Path) -> None:
    session = LabellingSession(flagged_rows(), LabelStore(tmp_path / "a.jsonl"), reviewer="ana", mode="audit")
    box = labelling_widget(session, [])
    assert "audit: judge them as you label" in box.children[7].value
    assert all(reason in box.children[7].value for reason in _reasons(session.current))
    assert "audit (EvalGate's verdicts shown)" in box.children[1].value


def test_the_progress_chart_is_redrawn_after_every_save(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn: list[int] = []

    def progress():
        drawn.append(len(load_labels(tmp_path / "labels.jsonl")) if (tmp_path / "labels.jsonl").exists() else 0)
        fig, ax = plt.subplots()
        ax.set_title(f"{drawn[-1]} labelled")
        return ax

    session = LabellingSession(rows(), LabelStore(tmp_path / "labels.jsonl"), reviewer="ana")
    box = labelling_widget(session, [], progress)
    assert drawn == [0]  # drawn once when the widget appears
    verdict, sentences = _toggles(box)
    verdict.value = "correct"
    sentences[0].value = "supported"
    assert drawn == [0]  # nothing saved yet: not redrawn
    sentences[1].value = "supported"
    assert drawn == [0, 1]  # counted the moment the label is saved

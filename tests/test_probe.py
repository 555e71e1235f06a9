"""The probe: faithful answers edited one way at a time, judged, and counted per kind (``evalgate probe``).

Each edit kind is checked by hand on a small faithful answer: what it changes, and that the same base always gets
the same edit. The figures (a kind's rate, detection, false alarms, balanced accuracy) are checked with hand-computed
values, and the command end to end on the shipped corpus and on a folder of real HTML documentation.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.probing.bases import evidence_answer
from evalgate_lib.probing.edits import (
    EDIT_KINDS,
    Base,
    baseless_addition,
    hedged_frame,
    name_invented,
    name_swapped,
    negation,
    number_format,
    number_invented,
    number_swapped,
    paraphrase,
    partial,
    qualifier_flipped,
    unchanged,
    unit_changed,
)
from evalgate_lib.probing.probe import CAVEAT, balanced_accuracy, flag_rate, run_probe

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "tests" / "data" / "html-docs" / "docbook-pam"

BACKUPS = Base(
    key="b1",
    question="How long are backups of Pro workspaces kept?",
    answer="Backups of Pro workspaces are kept for 90 days. You can restore them from the admin console.",
    passages=(
        (
            "Backups",
            "Backups of Starter workspaces are kept for 30 days. Backups of Pro workspaces are kept for 90 days. "
            "You can restore a backup from the admin console; restores are not available on Free.",
        ),
    ),
    elsewhere=(
        "The mobile app keeps offline files for 14 days on every plan.",
        "Workspace backups are encrypted with a key that rotates every quarter.",
    ),
)
INDEXES = Base(
    key="i1",
    question="Which option replaces the package index?",
    answer="Pass `--index-url` to replace the package index.",
    passages=(
        ("Indexes", "Pass --index-url to replace the package index. Pass --extra-index-url to add an index."),
    ),
)
SEATS = Base(
    key="s1",
    question="What is the minimum number of seats on Business?",
    answer="Business requires a minimum of 5 seats. It supports up to 500 seats.",
    passages=(("Seats", "Business requires a minimum of 5 seats and supports up to 500 seats."),),
)


def test_a_number_invented_is_one_no_passage_gives() -> None:
    edit = number_invented(BACKUPS)
    assert edit is not None and (edit.before, edit.after) == ("90", "180")  # 90 × 2: in no passage
    assert edit.answer.startswith("Backups of Pro workspaces are kept for 180 days.")


def test_a_number_swapped_is_one_the_passages_give_for_something_else() -> None:
    edit = number_swapped(BACKUPS)
    assert edit is not None and (edit.before, edit.after) == ("90", "30")  # the Starter workspaces' 30 days


def test_a_unit_changed_keeps_the_number_and_its_dimension() -> None:
    edit = unit_changed(BACKUPS)
    assert edit is not None and edit.before == "90 days" and edit.after in ("90 hours", "90 weeks")


def test_a_negation_flips_one_claim() -> None:
    edit = negation(BACKUPS)
    assert edit is not None and edit.after in ("are not", "cannot")
    assert edit.answer.count(" not ") + edit.answer.count("cannot") == 1


def test_a_qualifier_is_replaced_by_its_opposite() -> None:
    edit = qualifier_flipped(SEATS)
    assert edit is not None and (edit.before, edit.after) == ("minimum", "maximum")


def test_names_are_swapped_for_one_of_their_shape_or_invented() -> None:
    swapped = name_swapped(INDEXES)
    assert swapped is not None and (swapped.before, swapped.after) == ("--index-url", "--extra-index-url")
    invented = name_invented(INDEXES)  # "url" → "host": a part of the name and its plausible neighbour
    assert invented is not None and (invented.before, invented.after) == ("--index-url", "--index-host")
    assert invented.after not in INDEXES.passages[0][1]


def test_a_name_is_never_swapped_for_its_own_plural() -> None:
    # "An Admin must open a ticket" → "An Admins must …" names nothing else: the plural is no rival of its name
    alone = "Only the Admins can restore items: an Admin must open a support ticket."
    base = Base("a1", "Who can restore deleted items?", "An Admin must open a support ticket.", (("Restores", alone),))
    assert name_swapped(base) is None
    beside = alone.replace("an Admin must", "an Admin or the Owner must")
    edit = name_swapped(dataclasses.replace(base, passages=(("Restores", beside),)))
    assert edit is not None and (edit.before, edit.after) == ("Admin", "Owner")


def test_a_baseless_addition_is_a_sentence_from_elsewhere_on_the_topic() -> None:
    edit = baseless_addition(BACKUPS)
    # the second sentence shares "backups" and "workspace" with the question; the first shares nothing
    assert edit is not None and edit.after == "Workspace backups are encrypted with a key that rotates every quarter."
    assert edit.answer == BACKUPS.answer + " " + edit.after


def test_consistent_rewrites_keep_what_the_answer_says() -> None:
    assert unchanged(BACKUPS).answer == BACKUPS.answer  # type: ignore[union-attr]
    assert partial(BACKUPS).answer == "Backups of Pro workspaces are kept for 90 days."  # type: ignore[union-attr]
    rewritten = paraphrase(BACKUPS)
    assert rewritten is not None and "It is possible to restore them" in rewritten.answer
    framed = hedged_frame(BACKUPS)
    assert framed is not None and "backups of pro workspaces are kept for 90 days" in framed.answer.casefold()
    words = number_format(Base("n1", "How many seats?", "Starter includes 3 seats.", (("Plans", "3 seats"),)))
    assert words is not None and words.answer == "Starter includes three seats."


def test_a_partial_answer_keeps_whole_sentences_as_the_judge_reads_them() -> None:
    # the probe had its own sentence ends and cut at "eg.", printing "Your program will run much slower (eg." as an
    # example of a partial answer
    one = "Your program will run much slower (eg. 20 to 30 times) than normal."
    assert partial(Base("p1", "How much slower?", one, (("Quick start", one),))) is None  # one sentence: no part
    two = one + " It also uses a lot more memory."
    edit = partial(Base("p2", "How much slower?", two, (("Quick start", two),)))
    assert edit is not None and edit.answer == one


def test_the_digits_after_a_thousands_separator_are_not_a_number_of_their_own() -> None:
    # "$5,000" once became "$5,zero": the "000" after the comma was read as a count; money is left alone
    base = Base("n2", "When is invoicing offered?", "Invoicing needs over $5,000 per year.", (("Billing", "x"),))
    assert number_format(base) is None


def test_every_edit_is_the_same_on_every_run() -> None:
    for kind in EDIT_KINDS:
        for base in (BACKUPS, INDEXES, SEATS):
            assert kind.apply(base) == kind.apply(base)


def test_a_kind_that_finds_no_place_makes_no_answer() -> None:
    assert unit_changed(INDEXES) is None and qualifier_flipped(INDEXES) is None and partial(SEATS.__class__(
        "x", "q", "One sentence only.", ())) is None  # fmt: skip


def test_the_figures_by_hand() -> None:
    assert flag_rate(3, 4) == 0.75 and flag_rate(0, 0) is None
    # detection 0.8, false alarms 0.1: (0.8 + 0.9) / 2 = 0.85
    assert balanced_accuracy(0.8, 0.1) == pytest.approx(0.85)
    assert balanced_accuracy(None, 0.1) is None


def test_a_probe_counts_each_kind_from_its_cases() -> None:
    report = run_probe([BACKUPS, INDEXES, SEATS])
    for result in report.kinds:
        cases = [c for c in report.cases if c.edit.kind == result.kind.id]
        assert result.made == len(cases) and result.flagged == sum(c.flagged for c in cases)
    edited = [k for k in report.kinds if k.kind.unsupported]
    kept = [k for k in report.kinds if not k.kind.unsupported]
    assert report.detection == pytest.approx(sum(k.flagged for k in edited) / sum(k.made for k in edited))
    assert report.false_alarms == pytest.approx(sum(k.flagged for k in kept) / sum(k.made for k in kept))
    # the faithful answers themselves are not flagged, and a swapped value is
    assert next(k for k in report.kinds if k.kind.id == "unchanged").flagged == 0
    assert next(k for k in report.kinds if k.kind.id == "number_swapped").flagged == 1


def test_the_gold_evidence_reads_as_an_answer() -> None:
    assert evidence_answer(["Run `pip cache purge` to clear it"]) == "Run `pip cache purge` to clear it."
    row = evidence_answer(["| Business | minimum 5 | 2 TB |"])
    assert row.endswith(".")  # a row without its header is written as read


def test_the_command_on_the_shipped_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "probe.json"
    code = main(["probe", "--corpus", str(ROOT / "corpus"), "--gold", str(ROOT / "gold" / "questions.jsonl"),
                 "--limit", "8", "--json", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "8 faithful answers, each edited one way at a time and judged:" in printed
    for kind in EDIT_KINDS:
        assert kind.title in printed
    assert "balanced accuracy" in printed and CAVEAT in printed
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["bases"] == 8 and {k["kind"] for k in data["kinds"]} == {k.id for k in EDIT_KINDS}
    assert all({"answer", "before", "after", "flagged", "rule"} <= set(c) for c in data["cases"])


def test_the_command_on_a_folder_of_real_html_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["probe", "--corpus", str(HTML / "corpus"), "--gold", str(HTML / "gold.jsonl")])
    printed = capsys.readouterr().out
    assert code == 0 and "faithful answers, each edited one way at a time" in printed and CAVEAT in printed


def test_a_gold_set_without_evidence_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "q1", "question": "How many seats?", "type": "answerable",
                                "article": "plans-and-pricing-2026", "accept": ["3 seats"]}) + "\n")  # fmt: skip
    assert main(["probe", "--corpus", str(ROOT / "corpus"), "--gold", str(gold)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no answerable question with evidence" in err[0] and str(gold) in err[0]
    assert main(["probe", "--corpus", str(tmp_path / "missing"), "--gold", str(gold)]) == 2
    assert "missing" in capsys.readouterr().err

"""Agreement per labelled set: the set file, the review-queue capture, and a tiny set measured end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.cli import main
from evalgate_lib.errors import InputError
from evalgate_lib.inputs.labelled_sets import load_sets
from evalgate_lib.inputs.labels import Label, answer_sha256, dumps_labels
from evalgate_lib.statistics.set_agreement import Judge, format_set, measure_set, queue_capture

PASSAGE = {"doc_id": "plans", "title": "Plans", "text": "Starter includes 3 seats in its flat price.", "score": 0.9}
ANSWERS = {
    "q1": "Starter includes 3 seats.",  # correct, supported
    "q2": "Starter includes 7 seats.",  # wrong, unsupported
    "q3": "I don't know.",  # a no-answer question, declined: correct
}


def make_set(tmp_path: Path, human: dict[str, tuple[bool, bool]]) -> Path:
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "\n".join(
            json.dumps(q)
            for q in [
                {
                    "id": "q1",
                    "question": "How many seats does Starter include?",
                    "type": "answerable",
                    "article": "plans",
                    "accept": ["3 seats"],
                    "evidence": ["Starter includes 3 seats"],
                },
                {
                    "id": "q2",
                    "question": "How many seats come with Starter?",
                    "type": "answerable",
                    "article": "plans",
                    "accept": ["3 seats"],
                    "evidence": ["Starter includes 3 seats"],
                },
                {
                    "id": "q3",
                    "question": "Who founded Nimbus?",
                    "type": "no_answer",
                    "article": None,
                    "accept": [],
                    "evidence": None,
                },
            ]
        )
        + "\n"
    )
    log = tmp_path / "style.jsonl"
    log.write_text(
        "\n".join(json.dumps({"question_id": q, "answer": a, "passages": [PASSAGE]}) for q, a in ANSWERS.items()) + "\n"
    )
    labels = [
        Label(
            "style",
            q,
            answer_sha256(ANSWERS[q]),
            correct,
            unsupported,
            "r1",
            unsupported_sentences=(ANSWERS[q],) if unsupported else (),
        )
        for q, (correct, unsupported) in human.items()
    ]
    (tmp_path / "labels.jsonl").write_text(dumps_labels(labels))
    sets = tmp_path / "sets.toml"
    sets.write_text(
        '[[set]]\nname = "tiny"\ngenerator = "fluent"\ngold = "gold.jsonl"\nlabels = "labels.jsonl"\n'
        'answers = { style = "style.jsonl" }\n'
    )
    return sets


def test_queue_capture_counts_by_hand() -> None:
    capture = queue_capture([True, True, False, False, True], [True, False, True, False, False])
    assert (capture.n, capture.size, capture.errors, capture.caught) == (5, 3, 2, 1)
    assert capture.share == pytest.approx(0.6) and capture.recall == pytest.approx(0.5)
    assert queue_capture([False], [False]).recall is None
    with pytest.raises(ValueError, match="paired"):
        queue_capture([True], [])


def test_a_tiny_set_is_measured_per_set(tmp_path: Path) -> None:
    # the reviewer agrees with the judge on everything: correct 1,0,1 and unsupported 0,1,0
    sets = make_set(tmp_path, {"q1": (True, False), "q2": (False, True), "q3": (True, False)})
    result = measure_set(load_sets(sets)[0], [Judge("prose + claim", "prose", "claim")], resamples=200)
    judge = result.overall[0]
    assert result.labelled == 3 and result.stale == 0
    c = judge.correct.confusion
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 0, 0, 1) and judge.correct.kappa.value == 1.0
    u = judge.unsupported.confusion
    assert (u.tp, u.fp, u.fn, u.tn) == (1, 0, 0, 2) and judge.unsupported.kappa.value == 1.0
    assert judge.queue.errors == 0
    text = format_set(result)
    assert "set 'tiny' (fluent answers; configurations style): 3 labelled answers" in text


def test_a_disagreement_is_an_error_the_queue_is_measured_on(tmp_path: Path) -> None:
    # the reviewer calls q2's answer supported: the judge (unsupported, 7 is nowhere) disagrees once
    sets = make_set(tmp_path, {"q1": (True, False), "q2": (False, False), "q3": (True, False)})
    judge = measure_set(load_sets(sets)[0], [Judge("p", "prose", "claim")], resamples=200).overall[0]
    assert judge.queue.errors == 1
    assert judge.queue.caught == 0  # a clear miss (a number no span holds) is not a doubtful verdict


def test_set_file_errors_name_the_file_and_key(tmp_path: Path) -> None:
    sets = make_set(tmp_path, {"q1": (True, False)})
    text = sets.read_text()
    sets.write_text(text.replace("generator", "genrator"))
    with pytest.raises(InputError, match=r"sets.toml: unknown key 'genrator' in \[\[set\]\] number 1; did you mean"):
        load_sets(sets)
    sets.write_text(text.replace('labels = "labels.jsonl"', 'labels = "nope.jsonl"'))
    with pytest.raises(InputError, match=r"set 'tiny': 'labels' names 'nope.jsonl', which is not a file"):
        load_sets(sets)
    sets.write_text(text + text)
    with pytest.raises(InputError, match="the set name 'tiny' is used twice"):
        load_sets(sets)


def test_the_command_prints_one_block_per_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sets = make_set(tmp_path, {"q1": (True, False), "q2": (False, True), "q3": (True, False)})
    out = tmp_path / "agreement.json"
    assert main(["agreement", "--sets", str(sets), "--resamples", "100", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "set 'tiny'" in printed and "default (prose + claim)" in printed
    assert "lexical + raw (EvalGate 0.1)" in printed
    figures = json.loads(out.read_text())
    assert figures[0]["set"] == "tiny" and figures[0]["judges"][0]["judge"]["scorer"] == "prose"
    assert main(["agreement", "--sets", str(sets), "--set", "other"]) == 2
    assert main(["agreement", "--sets", str(sets), "--judge", "prose:fuzzy"]) == 2
    assert main(["agreement", "--sets", str(sets), "--judge", "nosuch:token"]) == 2
    err = capsys.readouterr().err
    assert "no set named 'other'" in err and "unknown matching 'fuzzy'" in err
    assert "unknown sentence scorer 'nosuch'" in err


def test_the_report_table_names_each_set_and_escapes_it(tmp_path: Path) -> None:
    from evalgate_lib.reporting.report_html import sets_agreement_html
    from evalgate_lib.statistics.set_agreement import set_json

    sets = make_set(tmp_path, {"q1": (True, False), "q2": (False, True), "q3": (True, False)})
    sets.write_text(sets.read_text().replace('name = "tiny"', 'name = "<b>tiny</b>"'))
    result = measure_set(load_sets(sets)[0], [Judge("prose + claim", "prose", "claim")], resamples=100)
    page = sets_agreement_html([set_json(result)])
    assert "&lt;b&gt;tiny&lt;/b&gt;" in page and "<b>tiny</b>" not in page
    assert "1.00" in page and "0 of 0 errors" in page  # κ 1.00 on both verdicts; the judge made no error
    assert "in one domain (one gold file each)" in page


def test_the_report_counts_the_shipped_domains_from_the_sets_file() -> None:
    """The shipped sets.toml: eleven sets over six gold files (the page said "three domains" once a fourth came),
    the two of the PostgreSQL domain held out (the Valgrind set is development)."""
    from evalgate_lib.reporting.report_html import domain_count

    shipped = load_sets(Path(__file__).resolve().parents[1] / "labels" / "sets.toml")
    items = [{"set": s.name, "gold": s.gold.name} for s in shipped]
    assert len(items) == 11 and domain_count(items) == 6
    assert [s.name for s in shipped if s.held_out] == ["postgresql-docs / fluent", "postgresql-docs / demo model"]


def test_a_held_out_set_says_so_wherever_its_figures_are_shown(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from evalgate_lib.reporting.report_html import sets_agreement_html
    from evalgate_lib.statistics.set_agreement import set_json

    sets = make_set(tmp_path, {"q1": (True, False), "q2": (False, True), "q3": (True, False)})
    text = sets.read_text()
    assert load_sets(sets)[0].held_out is False  # the default: a development set
    sets.write_text(text + "held_out = true\n")
    assert main(["agreement", "--sets", str(sets), "--resamples", "100"]) == 0
    assert "set 'tiny' (held out: measured, never tuned on; fluent answers;" in capsys.readouterr().out
    result = measure_set(load_sets(sets)[0], [Judge("prose + claim", "prose", "claim")], resamples=100)
    assert set_json(result)["held_out"] is True
    assert "(held out: measured, never tuned on; fluent answers, 3 labelled)" in sets_agreement_html([set_json(result)])
    sets.write_text(text + 'held_out = "yes"\n')
    with pytest.raises(InputError, match=r"set 'tiny': 'held_out' must be true or false, got 'yes'"):
        load_sets(sets)

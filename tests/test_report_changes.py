"""What changed per question, which deltas are significant, and the report's first screen.

Hand-built rows (``make_row``) with known verdicts and flags give the expected kinds, counts
and texts by hand; one test checks on a real run (the session's small run, and the whole gold set
under ``-m full_gold``) that "fixed" and "broken" are exactly the discordant pairs McNemar's test
counts in ``summary.json``.
"""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup
from conftest import make_flags, make_row, write_results_folder

from evalgate_lib.api import load_results
from evalgate_lib.cli import main
from evalgate_lib.reporting.changes_view import changes_html
from evalgate_lib.reporting.diff_text import changes_json, format_changes, summary_line, unsupported_line
from evalgate_lib.reporting.first_screen import first_screen_html
from evalgate_lib.reporting.report_html import headline_html
from evalgate_lib.statistics.beyond_noise import significance_evidence, significant_metrics
from evalgate_lib.statistics.changes import (
    classify,
    count_changes,
    question_changes,
    select_changes,
)
from evalgate_lib.statistics.gate import GateConfig, Rule
from evalgate_lib.statistics.metrics import compare
from evalgate_lib.statistics.paired_tests import mcnemar_exact


def wrong(**overrides):
    """A wrong answer (the ``wrong`` flag fired, plus any flag given as ``flag=True``); a hallucination is an
    unsupported claim too, as the judge flags it."""
    flags = {k: overrides.pop(k) for k in ("hallucination", "grounded_but_wrong", "review") if k in overrides}
    unsupported = flags.get("hallucination", False)
    return make_row(correct=False, flags=make_flags(wrong=True, unsupported_claim=unsupported, **flags), **overrides)


def right(**overrides):
    flags = {k: overrides.pop(k) for k in ("review", "unsupported_claim") if k in overrides}
    return make_row(correct=True, flags=make_flags(**flags), **overrides)


#: (question id, baseline row, candidate row, expected kind, gained, lost)
CASES = [
    ("q1", wrong(hallucination=True), right(), "fixed", (), ("wrong", "hallucination", "unsupported_claim")),
    ("q2", right(), wrong(grounded_but_wrong=True), "broken", ("wrong", "grounded_but_wrong"), ()),
    ("q3", wrong(), wrong(hallucination=True, review=True), "flags", ("hallucination", "review", "unsupported_claim"),
     ()),
    ("q4", right(review=True), right(), "flags", (), ("review",)),
    ("q5", right(), right(answer="Starter has 3 seats."), "same", (), ()),
    ("q6", wrong(), right(), "fixed", (), ("wrong",)),
    # issue 53: still right, but chattier: a claim the passages do not make, and no verdict moved
    ("q7", right(), right(unsupported_claim=True, answer="Starter includes 3 seats and free SSO."), "flags",
     ("unsupported_claim",), ()),
]  # fmt: skip


def paired_rows() -> list:
    rows = []
    for qid, base, cand, *_ in CASES:
        rows.append(make_row(**{**base.__dict__, "config": "baseline", "question_id": qid}))
        rows.append(make_row(**{**cand.__dict__, "config": "candidate", "question_id": qid}))
    return rows


@pytest.mark.parametrize(("qid", "base", "cand", "kind", "gained", "lost"), CASES, ids=[c[0] for c in CASES])
def test_classify_by_hand(qid, base, cand, kind, gained, lost):
    change = classify(base, make_row(**{**cand.__dict__, "config": "candidate"}))
    assert (change.kind, change.flags_gained, change.flags_lost) == (kind, gained, lost)
    assert change.changed == (kind != "same")


def test_classify_refuses_two_questions():
    with pytest.raises(ValueError, match="two answers of one question"):
        classify(make_row(question_id="q1"), make_row(question_id="q2", config="candidate"))


def test_same_verdict_and_flags_is_same_even_when_the_wording_changed():
    change = classify(right(), right(config="candidate", answer="Starter has 3 seats."))
    assert change.kind == "same" and change.answer_changed


def test_question_changes_pairs_by_id_counts_and_selects():
    rows = paired_rows() + [make_row(config="baseline", question_id="only-in-baseline")]
    changes = question_changes(rows, "baseline", "candidate")
    assert [c.question_id for c in changes] == ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
    assert count_changes(changes) == {"fixed": 2, "broken": 1, "flags": 3, "same": 1}
    assert [c.question_id for c in select_changes(changes, "fixed")] == ["q1", "q6"]
    assert [c.question_id for c in select_changes(changes)] == ["q1", "q2", "q3", "q4", "q6", "q7"]
    with pytest.raises(ValueError, match="unknown kind"):
        select_changes(changes, "same")


def test_fixed_and_broken_are_mcnemars_discordant_pairs_by_hand():
    rows = paired_rows()
    counts = count_changes(question_changes(rows, "baseline", "candidate"))
    base = [r.correct for r in rows if r.config == "baseline"]
    cand = [r.correct for r in rows if r.config == "candidate"]
    test = mcnemar_exact(base, cand)
    assert (counts["fixed"], counts["broken"]) == (test.c, test.b) == (2, 1)


@pytest.mark.slow
def test_fixed_and_broken_equal_the_shipped_runs_discordant_pairs(run_of_pair):
    results, questions = run_of_pair
    loaded = load_results(results)
    rows, summary = loaded.rows, loaded.summary
    assert len(rows) == 2 * questions
    changes = question_changes(rows, summary.baseline, summary.candidate)
    counts = count_changes(changes)
    accuracy = summary.significance["accuracy_overall"]
    assert counts["fixed"] == accuracy["c"] and counts["broken"] == accuracy["b"]
    # and straight from the rows, without classify: the questions whose verdict differs
    by_id = {(r.config, r.question_id): r.correct for r in rows}
    discordant = {q for (c, q), ok in by_id.items() if c == "baseline" and ok != by_id[("candidate", q)]}
    assert {c.question_id for c in select_changes(changes) if c.kind in ("fixed", "broken")} == discordant
    assert len(discordant) == accuracy["b"] + accuracy["c"] > 0


# --------------------------------------------------------------------------- significance marks


@pytest.mark.parametrize(
    ("stat", "expected"),
    [
        # the old shipped hallucination delta: its interval excludes 0, but a yes/no metric is McNemar's to decide
        ({"ci_low": 1.0, "ci_high": 25.0, "p_value": 0.053}, ()),
        ({"ci_low": -0.16, "ci_high": 0.012, "p_value": 0.18}, ()),
        ({"ci_low": -0.111, "ci_high": 0.0, "p_value": 0.21}, ()),  # touching 0 does not exclude it
        ({"ci_low": -2.0, "ci_high": 3.0, "p_value": 0.049}, ("mcnemar",)),
        ({"ci_low": -0.3, "ci_high": -0.1, "p_value": 0.001}, ("mcnemar",)),
        ({"ci_low": -0.08, "ci_high": -0.01}, ("interval",)),  # a score: no p-value
        ({"ci_low": None, "ci_high": None, "p_value": None}, ()),
        ({}, ()),
    ],
)
def test_significance_evidence_by_hand(stat, expected):
    assert significance_evidence(stat) == expected


def hand_summary() -> dict:
    """The summary of ``paired_rows`` with hand-set significance for two metrics."""
    summary = compare(paired_rows(), "baseline", "candidate")
    summary.significance["hallucination"].update(ci_low=1.0, ci_high=25.0, p_value=0.053)
    summary.significance["mean_groundedness"].update(ci_low=-0.2, ci_high=-0.01)
    return summary


def test_significant_metrics_and_headline_marks():
    summary = hand_summary()
    assert significant_metrics(summary) == {"mean_groundedness": ("interval",)}  # p = 0.053: the gate's noise
    soup = BeautifulSoup(headline_html(summary), "html.parser")
    marked = {tr["data-metric"] for tr in soup.select('tr[data-significant="1"]')}
    assert marked == {"mean_groundedness"}  # the headline table and the gate make one decision per metric
    for tr in soup.select("tr[data-metric]"):
        assert bool(tr.select(".eg-sig")) == (tr["data-metric"] in marked)
    assert "excludes 0" in soup.select_one('tr[data-metric="mean_groundedness"] .eg-sig')["title"]


# --------------------------------------------------------------------------- the first screen


GATE = GateConfig(
    (Rule("accuracy_answerable", max_drop=0.05), Rule("hallucination", max_increase=0)), "significant", 0.05
)


def _screen_rows():
    """10 answerable questions. Accuracy: baseline right on q0-q5, candidate on q0-q4, q6, q7 (2 fixed, 1 broken);
    hallucination: the candidate newly flagged on q8 and q9 (b = 0, c = 2)."""
    from conftest import make_matching

    rows = []
    for i in range(10):
        for config, correct, flagged in (("baseline", i < 6, False), ("candidate", i < 5 or i in (6, 7), i in (8, 9))):
            rows.append(
                make_row(
                    config=config,
                    question_id=f"q{i}",
                    correct=correct,
                    matching=make_matching(correct),
                    retrieval_metrics=None,
                    flags=make_flags(wrong=not correct, hallucination=flagged),
                )  # fmt: skip
            )
    return rows


def test_first_screen_pass_names_the_rules_and_what_changed():
    from evalgate_lib.statistics.decision import decide
    from evalgate_lib.statistics.paired_tests import mcnemar_interval

    rows = _screen_rows()
    summary = compare(rows, "baseline", "candidate")
    decision = decide(summary, GATE, "configs/gate.toml")
    assert [(v.breached, v.failed) for v in decision.rules] == [(False, False), (True, False)]
    counts = count_changes(question_changes(rows, "baseline", "candidate"))
    soup = BeautifulSoup(first_screen_html(decision, counts), "html.parser")
    box = soup.select_one("#eg-verdict")
    # issue 53: ten questions show neither rule within its limit: INCONCLUSIVE, not PASS
    assert box["data-verdict"] == "INCONCLUSIVE" and box.select_one(".eg-verdict-word").text == "INCONCLUSIVE"
    assert "the data cannot show the candidate within the limit of accuracy on answerable, hallucination flags" in (
        box.text
    )
    assert "McNemar" not in box.text and "p =" not in box.text  # no statistician's words in the verdict box
    plain = {li["data-rule"]: li for li in soup.select(".eg-plain li")}
    # accuracy: 6 -> 7 of 10, b = 1, c = 2: the exact interval of (c - b) / 10 = +0.1 and McNemar p = 1
    low, high = mcnemar_interval(1, 2, 10)
    accuracy = plain["accuracy_answerable"].text
    assert accuracy.startswith("accuracy on answerable: 6 → 7 of 10 answerable questions, 10.0 points higher")
    assert f"[{low * 100:+.1f}, {high * 100:+.1f}] at 95%; McNemar p against no change = 1.000 ≥ 0.05" in accuracy
    assert plain["accuracy_answerable"]["data-source"] == "judge" and accuracy.rstrip().endswith("judge")
    halluc = plain["hallucination"].text
    assert halluc.startswith("hallucination flags: 0 → 2 of 10 answers, 2 answers more (plausibly anywhere from")
    assert "McNemar p against no change = 0.500 ≥ 0.05" in halluc  # 2 · 0.5² = 0.5
    how = soup.select_one("details.eg-how")  # the test, its p-values and the thresholds file one click away
    assert "configs/gate.toml" in how.text and "significant mode" in how.text
    rules = {tr["data-rule"]: tr for tr in soup.select("tr[data-rule]")}
    assert set(rules) == {"accuracy_answerable", "hallucination"}
    # what decided: Tango's score test of the limit (0): Z = 2 / sqrt(2) = 1.414, p = 2 (1 - Φ(1.414)) = 0.157
    assert (
        "INCONCLUSIVE" in rules["hallucination"].text
        and "p against the limit = 0.157 ≥ 0.05" in rules["hallucination"].text
    )
    assert "; against its limit: [-1.3, +5.1] at 95% (Tango), holding it; p = 0.157 ≥ 0.05" in halluc
    assert rules["accuracy_answerable"].text.endswith("any breach") is False
    for tr in rules.values():  # the interval shown excludes 0 exactly when the deciding p < alpha
        assert tr["data-excludes-zero"] == str(int(float(tr["data-p"]) < float(tr["data-alpha"])))
    changed = soup.select_one(".eg-what-changed").text
    assert "on 10 questions: 2 fixed (wrong before, right now) and 1 broken (right before, wrong now)" in changed
    assert "2 changed a flag with the same verdict" in changed
    assert "no delta is beyond noise" in changed and "By the judge's figures" in changed
    assert soup.select_one(".eg-what-changed a")["href"] == "#eg-changes"


def test_first_screen_fail_names_the_regressed_metric():
    from conftest import make_matching

    from evalgate_lib.statistics.decision import decide

    rows = [
        make_row(
            config=c,
            question_id=f"q{i}",
            correct=ok,
            matching=make_matching(ok),
            retrieval_metrics=None,
            flags=make_flags(wrong=not ok),
        )  # fmt: skip
        for i in range(8)
        for c, ok in (("baseline", True), ("candidate", i >= 7))
    ]  # 7 broken, none fixed: -87.5 points, p = 2 / 2^7 = 0.0156
    decision = decide(compare(rows, "baseline", "candidate"), GATE, "g.toml")
    counts = count_changes(question_changes(rows, "baseline", "candidate"))
    soup = BeautifulSoup(first_screen_html(decision, counts), "html.parser")
    assert soup.select_one("#eg-verdict")["data-verdict"] == "FAIL"
    assert "candidate regresses on accuracy on answerable" in soup.select_one("#eg-verdict").text
    assert soup.select_one('tr[data-rule="accuracy_answerable"]')["data-failed"] == "1"
    assert soup.select_one('tr[data-rule="accuracy_answerable"]')["data-excludes-zero"] == "1"
    assert "8 → 1 of 8 answerable questions" in soup.select_one('li[data-rule="accuracy_answerable"]').text
    # hallucination flagged nowhere: both configs at 0, said so
    assert "both 0 of 8 answers" in soup.select_one('li[data-rule="hallucination"]').text


# --------------------------------------------------------------------------- what changed: view, text, CLI


def test_changes_view_lists_changed_questions_side_by_side():
    changes = question_changes(paired_rows(), "baseline", "candidate")
    changes[0] = classify(
        make_row(**{**changes[0].baseline.__dict__, "answer": "<script>window.__pwned=1</script>"}),
        changes[0].candidate,
    )
    page = changes_html(changes)
    soup = BeautifulSoup(page, "html.parser")
    shown = {tr["data-question-id"]: tr["data-change"] for tr in soup.select("tr.eg-change")}
    assert shown == {"q1": "fixed", "q2": "broken", "q3": "flags", "q4": "flags", "q6": "fixed", "q7": "flags"}
    options = {o["value"]: o.text for o in soup.select("select.eg-change-filter option")}
    assert list(options) == ["verdict", "fixed", "broken", "flags", "any"]
    assert options["verdict"].endswith("(3)") and options["flags"].endswith("(3)") and options["any"].endswith("(6)")
    assert "answers with an unsupported claim: baseline 1 → candidate 2 of 7 (2 gained the flag, 1 lost it)." in (
        soup.get_text(" ")
    )
    q2 = soup.select_one('tr[data-question-id="q2"]')
    base, cand = q2.select('td[data-side="baseline"]'), q2.select('td[data-side="candidate"]')
    assert "correct" in base[0].text and "wrong" in cand[0].text and "Grounded-but-wrong" in cand[0].text
    assert cand[0].select_one("a.eg-goto")["href"] == "#eg-row-candidate-q2"
    assert "<script>window" not in page and "&lt;script&gt;window" in page


def test_diff_text_and_json_by_hand():
    changes = question_changes(paired_rows(), "baseline", "candidate")
    assert summary_line(changes) == (
        "candidate vs baseline: 7 questions; 2 fixed, 1 broken (the discordant pairs of McNemar's test on "
        "accuracy), 3 flag changed with the same verdict, 1 unchanged"
    )
    # q1 (a hallucination) lost the unsupported-claim flag; q3 and q7 gained it: 1 → 2
    assert unsupported_line(changes) == (
        "answers with an unsupported claim: baseline 1 → candidate 2 of 7 (2 gained the flag, 1 lost it)"
    )
    assert format_changes(changes).splitlines()[1] == unsupported_line(changes)
    assert "q7  flags   baseline: correct  →  candidate: correct [Unsupported claim]  (flags +Unsupported claim)" in (
        format_changes(changes, "flags")
    )
    text = format_changes(changes, "broken")
    assert "showing broken (correct → wrong): 1" in text
    assert "q2  broken  baseline: correct  →  candidate: wrong [Wrong, Grounded-but-wrong]" in text
    assert "q1 " not in text
    data = changes_json(changes, "fixed")
    assert data["counts"] == {"fixed": 2, "broken": 1, "flags": 3, "same": 1}
    assert data["unsupported_claim"] == {"questions": 7, "baseline": 1, "candidate": 2, "gained": 2, "lost": 1}
    assert [c["question_id"] for c in data["changes"]] == ["q1", "q6"]
    assert data["changes"][0]["baseline"]["flags"] == ["wrong", "hallucination", "unsupported_claim"]
    assert data["changes"][0]["candidate"] == {"config": "candidate", "answer": "Starter includes 3 seats.",
                                               "correct": True, "flags": []}  # fmt: skip


def test_evalgate_diff_command(tmp_path, capsys):
    folder = write_results_folder(tmp_path / "run", paired_rows())
    out_json = tmp_path / "changes.json"
    assert main(["diff", "--results", str(folder), "--only", "flags", "--json", str(out_json)]) == 0
    printed = capsys.readouterr().out
    assert "2 fixed, 1 broken" in printed and "showing flag changed, same verdict: 3" in printed
    assert "answers with an unsupported claim: baseline 1 → candidate 2 of 7" in printed
    assert "q3  flags" in printed and "q4  flags" in printed and "q1  fixed" not in printed
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["only"] == "flags" and [c["question_id"] for c in data["changes"]] == ["q3", "q4", "q7"]
    assert main(["diff", "--results", str(tmp_path / "missing")]) == 2
    assert "not a results folder" in capsys.readouterr().err


def test_prompt_templates_side_by_side_with_the_difference_marked():
    from evalgate_lib.reporting.report_html import prompts_side_by_side_html
    from evalgate_lib.run.manifest import Manifest

    manifest = {
        "baseline": "baseline",
        "candidate": "candidate",
        "configs": {
            "baseline": {"prompt_template": "Context:\n{context}\n\nQuestion: {question}\nAnswer:"},
            "candidate": {
                "prompt_template": "Answer only from <the context>.\n"
                "Context:\n{context}\n\nQuestion: {question}\nAnswer:"
            },
        },
    }
    soup = BeautifulSoup(prompts_side_by_side_html(Manifest.from_json(manifest)), "html.parser")
    left, right = soup.select("pre.eg-prompt")
    assert [m.text for m in right.select(".eg-prompt-diff")] == ["Answer only from <the context>."]  # escaped, marked
    assert left.select(".eg-prompt-diff") == [] and "Question: {question}" in left.text
    assert "lines that differ are marked" in soup.text
    # an older manifest has no templates: nothing shown
    assert prompts_side_by_side_html(Manifest.from_json({"configs": {}})) == ""


def test_model_calls_are_said_in_words_not_as_a_dict():
    from evalgate_lib.run.results import format_model_calls

    stats = {
        "model_calls": {"generate_calls": 2, "embed_calls": 1, "hits": 207, "corrupt_entries": 0},
        "wall_seconds": 1.73,
    }
    assert (
        format_model_calls(stats) == "model calls: 2 generations, 1 embedding batches; cache hits: 207; wall time 1.7 s"
    )
    stats["model_calls"]["corrupt_entries"] = 3
    assert format_model_calls(stats).splitlines()[1] == "corrupt cache entries detected and recomputed: 3"


def test_a_rule_in_plain_words_by_hand():
    from evalgate_lib.reporting.first_screen import plain_words
    from evalgate_lib.statistics.decision import decide

    decision = decide(compare(_screen_rows(), "baseline", "candidate"), GATE, "g.toml")
    accuracy, halluc = decision.rules
    words = BeautifulSoup(plain_words(accuracy, decision), "html.parser").text
    assert words.startswith("accuracy on answerable: 6 → 7 of 10 answerable questions, 10.0 points higher (plausibly")
    words = BeautifulSoup(plain_words(halluc, decision), "html.parser").text
    assert words.startswith("hallucination flags: 0 → 2 of 10 answers, 2 answers more")


def test_paths_in_a_shared_report_are_never_this_machines(tmp_path, monkeypatch):
    from evalgate_lib.reporting.paths import shareable_path

    project = tmp_path / "project"
    (project / "notebooks").mkdir(parents=True)
    monkeypatch.chdir(project / "notebooks")  # where the report's notebooks run
    assert shareable_path(project / "configs" / "gate.toml") == "configs/gate.toml"
    assert shareable_path(project / "notebooks" / "x.toml") == "x.toml"
    assert shareable_path("/somewhere/else/corpus") == "corpus"

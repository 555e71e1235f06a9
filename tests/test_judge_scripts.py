"""The scripts whose figures docs/judge.md publishes, by hand: the ablation's κ and the threshold curves' setting.

``scripts/ablation.py`` and ``scripts/threshold_curves.py`` re-judge the labelled sets; what they add to the
judge is small and checked here on answers whose verdicts and labels are written out: Cohen's κ of the judge
against the labels (one function, :func:`ablation.kappas`), a rule switched off, and a threshold set wherever the
judge reads it and put back after.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from project_scripts import load_script

from evalgate_lib.inputs.answer_logs import LoggedAnswer, LoggedPassage
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.inputs.labels import Label, answer_sha256

ROOT = Path(__file__).resolve().parents[1]
PASSAGE = LoggedPassage("Nimbus plans: Starter includes 3 seats in its flat price.", "plans", "Plans", 0.8)
QUESTION = GoldQuestion("q1", "How many seats does Starter include?", "answerable", "plans", ("3 seats",))


def _item(ablation: ModuleType, answer: str, correct: bool, unsupported: bool) -> object:
    logged = LoggedAnswer("q1", answer, (PASSAGE,), "log.jsonl:1")
    label = Label("c", "q1", answer_sha256(answer), correct, unsupported, "r1")
    return ablation.LabelledAnswer(logged, QUESTION, label, "c")


def test_kappa_of_the_judge_against_labels_by_hand() -> None:
    """Judge: correct T F T F, unsupported F T F T (9 seats is a number no passage gives). Labels: correct
    T F F F, unsupported F T F F. Each pair: agreement 3/4, chance (2/4)(1/4) + (2/4)(3/4) = 1/2, so
    κ = (3/4 - 1/2) / (1 - 1/2) = 0.5 for both."""
    ablation = load_script("ablation")
    items = [
        _item(ablation, "Starter includes 3 seats.", True, False),
        _item(ablation, "Starter includes 9 seats.", False, True),
        _item(ablation, "Starter includes 3 seats.", False, False),
        _item(ablation, "Starter includes 9 seats.", False, False),
    ]
    assert ablation.kappas(items) == pytest.approx((0.5, 0.5))
    # S.absent off: S.binding still reads 9 as given for nothing the claim is about (the claim's words stand by 3),
    # and S.swap the span's sentence with one value swapped; with all three off, the words rule holds it (the span
    # has every other word), the judge flags nothing, and κ of a constant is 0
    assert ablation.kappas(items, frozenset({"S.absent"}))[1] == pytest.approx(0.5)
    assert ablation.kappas(items, frozenset({"S.absent", "S.swap", "S.binding"}))[1] == pytest.approx(0.0)


def test_a_threshold_is_set_wherever_the_judge_reads_it_and_put_back() -> None:
    from evalgate_lib.judging import correctness, question, support

    curves = load_script("threshold_curves")
    shipped = question.ABOUT_QUESTION
    assert correctness.ABOUT_QUESTION == support.ABOUT_QUESTION == shipped  # imported by name: three places
    assert curves._set("ABOUT_QUESTION", 0.4) == shipped
    assert question.ABOUT_QUESTION == correctness.ABOUT_QUESTION == support.ABOUT_QUESTION == 0.4
    curves._set("ABOUT_QUESTION", shipped)
    assert question.ABOUT_QUESTION == correctness.ABOUT_QUESTION == support.ABOUT_QUESTION == shipped
    assert type(curves._set("FRAGMENT_WORDS", 3.0)) is int and support.FRAGMENT_WORDS == 3  # a count stays a count
    curves._set("FRAGMENT_WORDS", 2)
    with pytest.raises(SystemExit, match="no module of the judge has a threshold NO_SUCH"):
        curves._set("NO_SUCH", 1)

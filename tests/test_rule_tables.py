"""Every judgement is a table that runs: each rule's example decides as documented, in the documented order.

The support and correctness rules are rows of ordered tuples (``CLAIM_TABLE``, ``CODE_TABLE``, ``COVERAGE_TABLE``,
``LEAN_TABLE``, ``CORRECTNESS_TABLE``) run by one loop (:func:`evalgate_lib.judging.rules.run_rules`), and the
reading's roles are two more (``SENTENCE_RULES``, ``ROLE_RULES``). These tests hold the tables to what docs/judge.md
says of them: every rule's own example is decided by that rule with its stated outcome; every trace lists the rules
it tried in the table's order and stops at the first that decides; switching a rule off takes it out of the loop;
and the page lists each table in the order it runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate_lib.judging.answer import judge_answer
from evalgate_lib.judging.correctness import CORRECTNESS_TABLE
from evalgate_lib.judging.reading import ROLE_RULES, SENTENCE_RULES
from evalgate_lib.judging.rules import ABSTAINS, Example, Rule, Step, run_rules
from evalgate_lib.judging.support import CLAIM_TABLE, CODE_TABLE, COVERAGE_TABLE, LEAN_TABLE

ROOT = Path(__file__).resolve().parents[1]
SUPPORT = (*CLAIM_TABLE, *CODE_TABLE, *COVERAGE_TABLE, *LEAN_TABLE)


def _judged(example: Example, disabled: frozenset[str] = frozenset()):  # type: ignore[no-untyped-def]
    return judge_answer(
        question=example.question or "What does it say?",
        answer=example.text,
        passages=example.passages,
        accept=example.accept or ("(nothing accepted)",),
        answerable=example.answerable,
        disabled=disabled,
    )


@pytest.mark.parametrize("rule", SUPPORT, ids=lambda r: r.id)
def test_each_support_rule_decides_its_own_example(rule: Rule) -> None:
    assert isinstance(rule.example, Example) and rule.example.expected
    verdict = _judged(rule.example)
    decided = [s for s in verdict.sentences if s.steps and s.steps[-1].rule == rule.id]
    assert decided, [(s.text, s.rule) for s in verdict.sentences]
    assert any(s.steps[-1].outcome == rule.example.expected for s in decided), [s.steps[-1] for s in decided]


@pytest.mark.parametrize("rule", CORRECTNESS_TABLE, ids=lambda r: r.id)
def test_each_correctness_rule_decides_its_own_example(rule: Rule) -> None:
    assert isinstance(rule.example, Example) and rule.example.expected
    verdict = _judged(rule.example)
    assert verdict.matching.rule == rule.id, verdict.matching.steps
    assert ("correct" if verdict.correct else "wrong") == rule.example.expected


def _table_order(steps: tuple[Step, ...], table: tuple[Rule, ...]) -> None:
    """The steps of ``table`` in a trace: in the table's order, and only the last one decides."""
    ids = [rule.id for rule in table]
    tried = [step for step in steps if step.rule in ids]
    order = [step.rule for step in tried]
    assert order == sorted(order, key=ids.index), order
    assert all(step.outcome == ABSTAINS for step in tried[:-1]), tried


@pytest.mark.parametrize("rule", SUPPORT, ids=lambda r: r.id)
def test_the_trace_is_the_table_run_in_its_documented_order(rule: Rule) -> None:
    verdict = _judged(rule.example)  # type: ignore[arg-type]
    for sentence in verdict.sentences:
        for table in (CLAIM_TABLE, CODE_TABLE, COVERAGE_TABLE):
            _table_order(sentence.steps, table)
    _table_order(verdict.matching.steps, CORRECTNESS_TABLE)


def test_every_rule_before_the_deciding_one_is_listed_as_tried() -> None:
    """The trace skips nothing: a claim decided by S.words lists every claim rule before it, each abstaining."""
    example = next(r for r in CLAIM_TABLE if r.id == "S.words").example
    (sentence,) = _judged(example).sentences  # type: ignore[arg-type]
    assert [s.rule for s in sentence.steps] == [r.id for r in CLAIM_TABLE]
    assert all(s.outcome == ABSTAINS for s in sentence.steps[:-1])


@pytest.mark.parametrize("rule", [r for r in CLAIM_TABLE if r.id != "S.words"], ids=lambda r: r.id)
def test_switching_a_rule_off_takes_it_out_of_the_loop(rule: Rule) -> None:
    verdict = _judged(rule.example, frozenset({rule.id}))  # type: ignore[arg-type]
    for sentence in verdict.sentences:
        assert rule.id not in {s.rule for s in sentence.steps}


def test_the_loop_stops_at_the_first_rule_that_decides() -> None:
    seen: list[str] = []

    def rule(rule_id: str, outcome: str | None) -> Rule:
        def check(case: object) -> Step | None:
            seen.append(rule_id)
            return None if outcome is None else Step(rule_id, outcome)

        return Rule(rule_id, "decides", "example", "reason", check=check)

    table = (rule("A", None), rule("B", ABSTAINS), rule("C", "supported"), rule("D", "unsupported"))
    steps = run_rules(table, object())
    assert [s.rule for s in steps] == ["A", "B", "C"] and seen == ["A", "B", "C"]  # D never runs: nothing overturns C
    assert [s.outcome for s in steps] == [ABSTAINS, ABSTAINS, "supported"]
    assert [s.rule for s in run_rules(table, object(), frozenset({"C"}))] == ["A", "B", "D"]


def test_the_page_lists_each_table_in_the_order_it_runs() -> None:
    text = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    for table in (SENTENCE_RULES, ROLE_RULES, CLAIM_TABLE, CODE_TABLE, COVERAGE_TABLE, LEAN_TABLE, CORRECTNESS_TABLE):
        places = [text.index(f"| `{rule.id}` |") for rule in table]
        assert places == sorted(places), [rule.id for rule in table]

"""The public API: ``import evalgate_lib as eg`` promises exactly ``__all__``, and judge_answer on hand-made strings."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import make_row

import evalgate_lib as eg
from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.judging.evaluation import Retrieved, score_answer

PUBLIC = [
    "AnswerLogger",
    "BackendError",
    "CacheError",
    "Candidates",
    "DrawnPlan",
    "EvalGateError",
    "FairnessError",
    "Flags",
    "InputError",
    "Inputs",
    "Judgement",
    "Manifest",
    "ResultRow",
    "Results",
    "RunOptions",
    "ScoringContext",
    "SentenceScorer",
    "SentenceVerdict",
    "Summary",
    "__version__",
    "available_scorers",
    "draw_label_plan",
    "get_scorer",
    "judge_answer",
    "labelled_set_agreement",
    "labelled_set_agreement_html",
    "load_candidates",
    "load_inputs",
    "load_results",
    "prepare_configs",
    "register_scorer",
    "results_or_run",
    "retrieve",
    "run_candidates",
    "run_comparison",
    "show_chart",
]

# content tokens of the context (title and text): plans, starter, plan, includes, 3, seats, business,
# costs, 18, user, month ("the", "per" are stopwords)
PASSAGES = [("Plans", "The Starter plan includes 3 seats. Business costs $18 per user per month.")]
LOW_CONFIDENCE = "confidence 0.300 < 0.35 (confidence = min(top similarity, groundedness))"
NONE_OF_3_SEATS = (
    "the answer states none of the accepted strings ('3 seats') by the raw rule"
)


def judge(answer: str, accept: tuple[str, ...] = ("3 seats",), **kwargs: object) -> eg.Judgement:
    """The seed rules (raw containment, lexical scorer) unless a test asks for others: their hand-computed values."""
    kwargs = {"matching": "raw", "scorer": "lexical", **kwargs}
    return eg.judge_answer(
        question="How many seats does Starter include?", answer=answer, passages=PASSAGES, accept=accept, **kwargs
    )


def test_all_is_pinned() -> None:
    assert eg.__all__ == PUBLIC  # adding or removing a public name is a decision: update this list with it


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_importable(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from evalgate_lib import {name}", namespace)
    assert namespace[name] is getattr(eg, name)


def test_errors_share_one_base() -> None:
    for error in (eg.BackendError, eg.CacheError, eg.FairnessError, eg.InputError):
        assert issubclass(error, eg.EvalGateError)
    assert isinstance(eg.__version__, str) and eg.__version__


def test_correct_and_grounded() -> None:
    # starter, includes, 3, seats → 4/4 = 1.0; confidence = min(0.9, 1.0) = 0.9
    v = judge("Starter includes 3 seats.", top_similarity=0.9)
    assert (v.correct, v.refused, v.matched) == (True, False, "3 seats")
    assert [(s.coverage, s.supported) for s in v.sentences] == [(1.0, True)]
    assert v.groundedness == 1.0 and v.confidence == 0.9
    assert v.unsupported_sentences == []
    assert not (v.hallucination or v.grounded_but_wrong or v.review or v.flags.wrong)
    assert v.reasons == {"correct": ("the answer contains '3 seats' (case-insensitive containment)",)}
    assert v.scorer == "lexical@1"


def test_hallucination() -> None:
    # starter, costs, 25 → "25" missing → 2/3 = 0.667 < 0.70: unsupported, and the answer is wrong
    v = judge("Starter costs $25.", top_similarity=0.9)
    assert v.correct is False and v.matched is None
    assert v.unsupported_sentences == ["Starter costs $25."]
    assert v.groundedness == pytest.approx(2 / 3) and v.confidence == pytest.approx(2 / 3)
    assert v.hallucination and not v.grounded_but_wrong and v.review
    assert v.reasons == {
        "correct": (NONE_OF_3_SEATS,),
        "wrong": (NONE_OF_3_SEATS,),
        "hallucination": (
            "wrong",
            "1 sentence(s) judged unsupported; e.g. 'Starter costs $25.': "
            "2/3 content tokens in the context = 0.67 < 0.70; missing: 25",
        ),
        "review": ("1 sentence(s) judged unsupported by the context",),
        "unsupported_claim": (
            "'Starter costs $25.' (unsupported): 2/3 content tokens in the context = 0.67 < 0.70; missing: 25",
        ),
    }
    assert v.unsupported_claim


def test_grounded_but_wrong() -> None:
    # business, costs, 18, user, month → 5/5 = 1.0: every claim is in the context, but it answers another question
    v = judge("Business costs $18 per user per month.", top_similarity=0.9)
    assert v.correct is False and v.unsupported_sentences == []
    assert v.groundedness == 1.0 and v.confidence == 0.9
    assert v.grounded_but_wrong and not v.hallucination and not v.review and not v.unsupported_claim
    assert v.reasons == {
        "correct": (NONE_OF_3_SEATS,),
        "wrong": (NONE_OF_3_SEATS,),
        "grounded_but_wrong": (
            "wrong",
            "every claiming sentence is supported by the context (groundedness 1.000): "
            "the context itself misled the model, or the wrong passage was retrieved",
        ),
    }


def test_correct_but_partly_unsupported_goes_to_review_only() -> None:
    # s1 4/4 = 1.0, s2 "Starter costs $25." 2/3 → groundedness (1 + 2/3) / 2 = 0.8333; correct by containment
    v = judge("Starter includes 3 seats. Starter costs $25.", top_similarity=0.9)
    assert v.correct and v.unsupported_sentences == ["Starter costs $25."]
    assert v.groundedness == pytest.approx(5 / 6) and v.confidence == pytest.approx(5 / 6)
    assert v.review and not v.hallucination and not v.grounded_but_wrong
    assert v.reasons["review"] == ("1 sentence(s) judged unsupported by the context",)
    # issue 53: right, but a claim the passages do not make: the unsupported-claim flag says which sentence
    assert v.unsupported_claim and set(v.reasons) == {"correct", "review", "unsupported_claim"}
    assert v.reasons["unsupported_claim"] == (
        "'Starter costs $25.' (unsupported): 2/3 content tokens in the context = 0.67 < 0.70; missing: 25",
    )


def test_refusal_of_a_no_answer_question_with_low_similarity() -> None:
    # a refusal claims nothing: groundedness None, confidence = top similarity 0.3 < 0.35 → review only
    v = judge("I don't know.", accept=(), answerable=False, top_similarity=0.3)
    assert (v.correct, v.refused, v.matched) == (True, True, None)
    assert v.groundedness is None and v.confidence == 0.3
    assert [(s.refusal, s.coverage, s.supported) for s in v.sentences] == [(True, None, None)]
    assert v.review and not v.flags.wrong and not v.hallucination
    assert v.reasons == {
        "correct": ("a no-answer question, and the answer declines",),
        "review": (LOW_CONFIDENCE,),
    }


def test_normalised_matching_and_scorer_choice() -> None:
    # "three seats" is missed by literal containment, caught by the normalised match
    assert judge("Starter includes three seats.").correct is False
    v = judge("Starter includes three seats.", matching="normalised", scorer=eg.get_scorer("lexical"))
    assert v.correct is True and v.matching.mode == "normalised" and v.matching.raw.correct is False
    assert v.reasons["correct"] == ("the answer states '3 seats' after normalisation (number words, units, money)",)
    assert "lexical" in eg.available_scorers()


def _real_row() -> eg.ResultRow:
    text = "The Starter plan includes 3 seats. Business costs $18 per user per month."
    chunk = Chunk("plans-and-pricing-2026", "Plans", 0, 10, 10 + len(text), text)
    question = GoldQuestion(
        "q001", "How many seats?", "answerable", "plans-and-pricing-2026", ("3 seats",), evidence=("includes 3 seats",)
    )
    start = 10 + text.index("includes 3 seats")
    return score_answer(
        "candidate",
        question,
        [Retrieved(1, chunk, 0.812345)],
        "Starter includes 3 seats. It costs $25.",
        "f" * 64,
        scorer=eg.get_scorer("lexical"),
        evidence_spans=[(start, start + len("includes 3 seats"))],
    )


@pytest.mark.parametrize(
    "row",
    [_real_row(), make_row(), make_row(type="no_answer", question_id="q061")],
    ids=["scored", "built", "no-answer"],
)
def test_result_row_round_trip(row: eg.ResultRow) -> None:
    assert eg.ResultRow.from_json(row.to_json()) == row
    # and through the file format (JSON text, as results.jsonl holds it)
    assert eg.ResultRow.from_json(json.loads(json.dumps(row.to_json(), sort_keys=True))) == row


def test_real_row_carries_every_verdict() -> None:
    row = _real_row()
    assert row.to_json()["schema"] == 7
    assert row.unsupported_sentences == ["It costs $25."]
    assert row.flags.review and row.flags.reasons["review"] == ("1 sentence(s) judged unsupported by the context",)
    assert row.retrieval_metrics is not None and row.retrieval_metrics.evidence_hit is True


def test_unknown_schema_is_refused() -> None:
    data = make_row().to_json()
    with pytest.raises(ValueError, match="schema 1 is not 7"):
        eg.ResultRow.from_json({**data, "schema": 1})
    old = {k: v for k, v in data.items() if k != "schema"}
    with pytest.raises(ValueError, match="schema None is not 7"):
        eg.ResultRow.from_json(old)


def test_rows_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        make_row().correct = False  # type: ignore[misc]


def test_design_api_table_names_every_exported_name() -> None:
    """docs/DESIGN.md's public API table lists every name of ``__all__`` (it missed four once)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    table = text[text.index("## Public API") : text.index("## One function per published number")]
    named = {m for cell in re.findall(r"^\| (.+?) \|", table, flags=re.M) for m in re.findall(r"`(\w+)", cell)}
    assert sorted(set(eg.__all__) - named) == []


def test_a_scoring_context_takes_passages_as_a_list_and_a_removed_scorer_says_what_replaced_it() -> None:
    passages = [["Plans", "The Starter plan includes 3 seats."]]  # lists, as JSON holds them
    context = eg.ScoringContext("How many seats does Starter include?", passages)
    assert context.passages == (("Plans", "The Starter plan includes 3 seats."),)
    verdict = eg.get_scorer("prose").judge("Starter includes 3 seats.", context)
    assert verdict.supported is True and verdict.rule == "S.words"
    removed = r"unknown sentence scorer 'span' \(removed with prose@4: .*docs/judge\.md\)"
    with pytest.raises(eg.InputError, match=removed):
        eg.get_scorer("span")

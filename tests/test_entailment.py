"""Tests for evalgate_lib.judging.sentence_scorers (pluggable sentence scorers); no model is loaded."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from evalgate_lib.errors import BackendError, InputError
from evalgate_lib.judging.grounding import sentence_coverage
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.judging.scorers import BUILT_IN, available_scorers, get_scorer, register_scorer
from evalgate_lib.judging.sentence_scorers import (
    LexicalCoverageScorer,
    ScoringContext,
    SentenceScorer,
    TransformersNLIScorer,
    scorer_id,
)
from evalgate_lib.text.tokens import content_tokens


def context(text: str, title: str = "Plans") -> ScoringContext:
    return ScoringContext("How many seats?", ((title, text),))


def test_lexical_is_the_default_and_satisfies_the_protocol() -> None:
    scorer = get_scorer("lexical")
    assert isinstance(scorer, LexicalCoverageScorer)
    assert isinstance(scorer, SentenceScorer)
    assert scorer.name == "lexical" and scorer.version == "1"
    assert scorer_id(scorer) == "lexical@1"
    assert {"lexical", "transformers-nli"} <= set(available_scorers())


def test_lexical_coverage_full_partial_none() -> None:
    scorer = LexicalCoverageScorer()
    ctx = context("The Starter plan includes 3 seats and 10 GB of storage.")
    # Content tokens {starter, plan, 3, seats} are all in the context.
    assert scorer.judge("The Starter plan has 3 seats.", ctx).coverage == 1.0
    assert scorer.judge("Starter includes 3 seats", ctx).coverage == 1.0
    # {starter, 5, seats}: "5" is missing → 2/3 (numbers are always content).
    partial = scorer.judge("Starter 5 seats", ctx)
    assert partial.coverage == pytest.approx(2 / 3) and partial.supported is False and partial.missing == ("5",)
    # {lifetime, licence}: neither in context.
    assert scorer.judge("lifetime licence", ctx).coverage == 0.0


def test_lexical_coverage_matches_the_formula() -> None:
    sentence = "Pro costs $12 per user and includes SSO."
    ctx = context("Pro is priced at $12 per user per month.", title="Pricing")
    claimed = content_tokens(sentence)
    expected = len(claimed & content_tokens(ctx.text)) / len(claimed)
    assert LexicalCoverageScorer().judge(sentence, ctx).coverage == expected
    assert 0.0 < expected < 1.0
    # the scorer is the coverage rule of scoring.py, applied to the context's tokens (one implementation)
    assert LexicalCoverageScorer().judge(sentence, ctx) == sentence_coverage(sentence, ctx.tokens)


def test_context_is_titles_and_texts_without_labels() -> None:
    ctx = ScoringContext("q", (("Plans", "Starter includes 3 seats."), ("Legacy", "Business cost $15.")))
    assert ctx.text == "Plans\nStarter includes 3 seats.\n\nLegacy\nBusiness cost $15."
    assert ctx.tokens == content_tokens(ctx.text)


def test_sentence_without_content_tokens_claims_nothing() -> None:
    verdict = LexicalCoverageScorer().judge("", context("anything"))
    assert verdict == SentenceVerdict("", (), (), None, None, reason="no content words: claims nothing")
    assert not verdict.claims


def test_a_plug_in_scorer_is_handed_only_the_claiming_sentences_in_order() -> None:
    from evalgate_lib.judging.answer import judge_answer

    verdict = judge_answer(question="Seats?", answer="I don't know. Starter includes 3 seats. Pro has 9 seats.",
                           passages=[("", "Starter includes 3 seats.")], scorer="lexical")  # fmt: skip
    assert [v.supported for v in verdict.sentences] == [None, True, False]
    assert [v.refusal for v in verdict.sentences] == [True, False, False]
    assert [v.role for v in verdict.sentences] == ["decline", "claim", "claim"]


def test_registry_register_get_and_duplicates() -> None:
    class Constant:
        name = "constant-test"
        version = "0"

        def __init__(self, value: float = 0.5) -> None:
            self.value = value

        def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
            return SentenceVerdict(sentence, (), (), self.value, self.value >= 0.7, reason="constant")

    register_scorer("constant-test", Constant)
    try:
        scorer = get_scorer("constant-test", value=0.25)
        assert isinstance(scorer, SentenceScorer)
        assert scorer.judge("a", context("b")).coverage == 0.25
        assert scorer_id(scorer) == "constant-test@0"
        with pytest.raises(ValueError, match="already registered"):
            register_scorer("constant-test", Constant)
        register_scorer("constant-test", lambda: Constant(0.75), replace=True)
        assert get_scorer("constant-test").judge("a", context("b")).coverage == 0.75
    finally:
        from evalgate_lib.judging import scorers

        scorers._registered.pop("constant-test", None)


def test_the_registry_lists_every_built_in_scorer_and_protects_them() -> None:
    assert sorted(BUILT_IN) == ["lexical", "prose", "transformers-nli"]
    assert set(BUILT_IN) <= set(available_scorers())
    with pytest.raises(ValueError, match="built-in scorer and cannot be replaced"):
        register_scorer("prose", LexicalCoverageScorer, replace=True)
    assert get_scorer("prose").name == "prose"


def test_unknown_scorer_is_an_input_error_listing_choices() -> None:
    with pytest.raises(InputError, match="lexical"):
        get_scorer("no-such-scorer")


def test_nli_scorer_rejects_a_missing_model_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        TransformersNLIScorer(tmp_path / "absent")


class _FakePipe:
    """Stands in for a transformers text-classification pipeline; records its inputs."""

    def __init__(self, labels: dict[int, str], scores: list[float]) -> None:
        self.model = types.SimpleNamespace(config=types.SimpleNamespace(id2label=labels))
        self.scores = scores
        self.calls: list[tuple[Any, dict[str, Any]]] = []

    def __call__(self, inputs: Any, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append((inputs, kwargs))
        labels = self.model.config.id2label.values()
        return [{"label": label, "score": s} for label, s in zip(labels, self.scores, strict=True)]


def _fake_transformers(monkeypatch: pytest.MonkeyPatch, pipe: _FakePipe) -> list[tuple[Any, ...]]:
    created: list[tuple[Any, ...]] = []

    def pipeline(task: str, **kwargs: Any) -> _FakePipe:
        created.append((task, kwargs))
        return pipe

    module = types.ModuleType("transformers")
    module.pipeline = pipeline  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "transformers", module)
    return created


def test_nli_scorer_returns_entailment_probability(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pipe = _FakePipe({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, [0.1, 0.2, 0.7])
    created = _fake_transformers(monkeypatch, pipe)
    scorer = get_scorer("transformers-nli", model_path=tmp_path)
    assert isinstance(scorer, SentenceScorer)
    verdict = scorer.judge("Starter has 3 seats.", context("Starter includes 3 seats."))
    assert verdict.coverage == 0.7 and verdict.supported is True  # 0.7 >= the 0.70 floor
    assert verdict.reason == "entailment probability 0.70 >= 0.70"
    assert verdict.tokens == ("starter", "3", "seats")
    assert created[0][0] == "text-classification"
    assert created[0][1]["model"] == str(tmp_path)
    inputs, kwargs = pipe.calls[0]
    # The context (titles and texts) is the premise ("text"), the sentence the hypothesis ("text_pair").
    assert inputs == {"text": "Plans\nStarter includes 3 seats.", "text_pair": "Starter has 3 seats."}
    assert kwargs["top_k"] is None
    assert scorer.entailment("Starter has 3 seats.", "Starter includes 3 seats.") == 0.7
    # a refusal claims nothing and never reaches the model: the reading gives it its role first
    from evalgate_lib.judging.answer import judge_answer

    calls = len(pipe.calls)
    refusal = judge_answer(question="Seats?", answer="I don't know.", passages=[("", "x")], scorer=scorer)
    assert [(s.coverage, s.supported, s.refusal) for s in refusal.sentences] == [(None, None, True)]
    assert len(pipe.calls) == calls


def test_nli_scorer_needs_an_entailment_label(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_transformers(monkeypatch, _FakePipe({0: "LABEL_0", 1: "LABEL_1"}, [0.4, 0.6]))
    with pytest.raises(BackendError, match="LABEL_0"):
        TransformersNLIScorer(tmp_path)
    scorer = TransformersNLIScorer(tmp_path, entailment_label="label_1")
    assert scorer.entailment("s", "c") == 0.6
    verdict = scorer.judge("Starter has 3 seats.", context("c"))
    assert verdict.coverage == 0.6 and verdict.supported is False
    assert verdict.reason == "entailment probability 0.60 < 0.70"

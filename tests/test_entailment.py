"""Tests for evalgate_lib.judging.sentence_scorers (pluggable sentence scorers); no model is loaded."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from evalgate_lib.errors import BackendError, InputError
from evalgate_lib.judging.sentence_scorers import (
    LexicalCoverageScorer,
    SentenceScorer,
    TransformersNLIScorer,
    available_scorers,
    get_scorer,
    register_scorer,
)


def test_lexical_is_the_default_and_satisfies_the_protocol() -> None:
    scorer = get_scorer("lexical")
    assert isinstance(scorer, LexicalCoverageScorer)
    assert isinstance(scorer, SentenceScorer)
    assert scorer.name == "lexical"
    assert {"lexical", "transformers-nli"} <= set(available_scorers())


def test_lexical_coverage_full_partial_none() -> None:
    scorer = LexicalCoverageScorer()
    context = "The Starter plan includes 3 seats and 10 GB of storage."
    # Content tokens {starter, plan, 3, seats} are all in the context.
    assert scorer.score("The Starter plan has 3 seats.", context) == 1.0
    assert scorer.score("Starter includes 3 seats", context) == 1.0
    # {starter, 5, seats}: "5" is missing → 2/3 (numbers are always content).
    assert scorer.score("Starter 5 seats", context) == pytest.approx(2 / 3)
    # {lifetime, licence}: neither in context.
    assert scorer.score("lifetime licence", context) == 0.0


def test_lexical_coverage_matches_the_formula() -> None:
    from evalgate_lib.text.tokens import content_tokens

    sentence = "Pro costs $12 per user and includes SSO."
    context = "Pro is priced at $12 per user per month."
    claimed = content_tokens(sentence)
    expected = len(claimed & content_tokens(context)) / len(claimed)
    assert LexicalCoverageScorer().score(sentence, context) == expected
    assert 0.0 < expected < 1.0


def test_sentence_without_content_tokens_is_vacuously_supported() -> None:
    assert LexicalCoverageScorer().score("", "anything") == 1.0


def test_registry_register_get_and_duplicates() -> None:
    class Constant:
        name = "constant-test"

        def __init__(self, value: float = 0.5) -> None:
            self.value = value

        def score(self, sentence: str, context: str) -> float:
            return self.value

    register_scorer("constant-test", Constant)
    try:
        scorer = get_scorer("constant-test", value=0.25)
        assert isinstance(scorer, SentenceScorer)
        assert scorer.score("a", "b") == 0.25
        with pytest.raises(ValueError, match="already registered"):
            register_scorer("constant-test", Constant)
        register_scorer("constant-test", lambda: Constant(0.75), replace=True)
        assert get_scorer("constant-test").score("a", "b") == 0.75
    finally:
        from evalgate_lib.judging import sentence_scorers as entailment

        entailment._REGISTRY.pop("constant-test", None)


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
    assert scorer.score("Starter has 3 seats.", "Starter includes 3 seats.") == 0.7
    assert created[0][0] == "text-classification"
    assert created[0][1]["model"] == str(tmp_path)
    inputs, kwargs = pipe.calls[0]
    # The context is the premise ("text"), the sentence the hypothesis ("text_pair").
    assert inputs == {"text": "Starter includes 3 seats.", "text_pair": "Starter has 3 seats."}
    assert kwargs["top_k"] is None


def test_nli_scorer_needs_an_entailment_label(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_transformers(monkeypatch, _FakePipe({0: "LABEL_0", 1: "LABEL_1"}, [0.4, 0.6]))
    with pytest.raises(BackendError, match="LABEL_0"):
        TransformersNLIScorer(tmp_path)
    scorer = TransformersNLIScorer(tmp_path, entailment_label="label_1")
    assert scorer.score("s", "c") == 0.6

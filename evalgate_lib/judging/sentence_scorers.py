"""Pluggable per-sentence faithfulness scorers (how well the context supports a sentence).

EvalGate's default groundedness signal is lexical: the share of a sentence's
content tokens that also occur in the retrieved context. It is transparent and
reproducible by hand, but it cannot see paraphrase or negation. This module
defines the small interface a stronger scorer (an NLI model, say) has to meet,
so one can be swapped in without touching the scoring code. It is **off by
default**: unless a config names another scorer, :class:`LexicalCoverageScorer`
is used, and nothing here imports a model library at import time.

Usage::

    from evalgate_lib.judging.sentence_scorers import get_scorer
    scorer = get_scorer("lexical")
    scorer.score("Starter includes 3 seats.", context)   # 0.0 .. 1.0

    # an NLI model you already have on disk (nothing is downloaded):
    scorer = get_scorer("transformers-nli", model_path="/models/my-nli-model")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from evalgate_lib.errors import BackendError, InputError


@runtime_checkable
class SentenceScorer(Protocol):
    """Scores how well ``context`` supports ``sentence``, from 0.0 (not at all) to 1.0 (fully).

    ``name`` identifies the scorer in the manifest, so results scored by
    different scorers are never compared as if they were the same metric.
    Implementations must be deterministic: the same inputs give the same score.
    """

    name: str

    def score(self, sentence: str, context: str) -> float:
        """Support of ``sentence`` by ``context`` in [0, 1]."""
        ...


class LexicalCoverageScorer:
    """Default scorer: ``|content(sentence) ∩ content(context)| / |content(sentence)|``.

    Content tokens come from :func:`evalgate_lib.text.tokens.content_tokens` (lower-cased
    tokens minus stopwords, numbers always kept), the same tokeniser the rest of
    the scoring uses, so a coverage value can be recomputed by hand from the
    ``tokens``/``missing`` lists in a result row. Stopwords in the context cannot
    change the result: only tokens of the sentence's content set are looked up.

    A sentence with no content tokens claims nothing and scores 1.0 (vacuously
    supported); the groundedness aggregate skips such sentences anyway (see
    docs/DESIGN.md), so this value never lowers or raises a score on its own.
    """

    name = "lexical"

    def score(self, sentence: str, context: str) -> float:
        """Fraction of the sentence's content tokens that occur in the context."""
        # Imported here so this module (and the registry) can be imported on its own.
        from evalgate_lib.text.tokens import content_tokens

        claimed = content_tokens(sentence)
        if not claimed:
            return 1.0
        return len(claimed & content_tokens(context)) / len(claimed)


class TransformersNLIScorer:
    """Example NLI scorer: entailment probability of ``sentence`` given ``context``.

    Not used by default and not exercised against a model in the test-suite. To
    plug in a natural-language-inference model you already have locally (any
    sequence-classification checkpoint whose labels include an entailment class,
    e.g. an MNLI-fine-tuned cross-encoder saved with ``save_pretrained``):

    1. ``pip install transformers torch``;
    2. point ``model_path`` at the local directory (``config.json``, weights and
       tokenizer files). A path that does not exist is rejected instead of being
       treated as a Hub id, so nothing is ever downloaded behind your back;
    3. if the entailment label is not called ``entailment`` (case-insensitive
       substring of the model's ``id2label`` names), pass ``entailment_label``;
    4. ``get_scorer("transformers-nli", model_path=...)`` or instantiate directly.

    The context is the premise and the sentence the hypothesis; the returned
    score is the softmax probability of the entailment label. Long contexts are
    truncated to the model's maximum input length, which can hide support that
    sits past the cut; keep ``top_k`` retrieval small or score per chunk if that
    matters. ``transformers`` is imported only when the class is instantiated.
    """

    name = "transformers-nli"

    def __init__(self, model_path: str | Path, *, entailment_label: str = "entailment", device: int = -1):
        path = Path(model_path)
        if not path.is_dir():
            raise InputError(f"NLI model directory not found: {path} (give a local model directory)")
        try:
            from transformers import pipeline
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise BackendError("the transformers-nli scorer needs `pip install transformers torch`") from exc
        self.model_path = str(path)
        self.name = f"transformers-nli:{path.name}"
        self._pipe = pipeline("text-classification", model=str(path), tokenizer=str(path), device=device)
        self._label = self._find_label(entailment_label)

    def _find_label(self, wanted: str) -> str:
        """The model's label name that contains ``wanted`` (checked once, at load time)."""
        labels = [str(v) for v in getattr(self._pipe.model.config, "id2label", {}).values()]
        for label in labels:
            if wanted.lower() in label.lower():
                return label
        message = f"NLI model {self.model_path} has no label containing {wanted!r}; its labels are {labels}"
        raise BackendError(message)

    def score(self, sentence: str, context: str) -> float:
        """Probability that ``context`` entails ``sentence``."""
        outputs = self._pipe({"text": context, "text_pair": sentence}, top_k=None, truncation=True)
        if outputs and isinstance(outputs[0], list):  # some versions wrap a single input in a list
            outputs = outputs[0]
        for item in outputs:
            if item["label"] == self._label:
                return float(item["score"])
        raise BackendError(f"NLI model {self.model_path} returned no score for label {self._label!r}")


ScorerFactory = Callable[..., SentenceScorer]

_REGISTRY: dict[str, ScorerFactory] = {}


def register_scorer(name: str, factory: ScorerFactory, *, replace: bool = False) -> None:
    """Make ``factory`` available as ``get_scorer(name, **kwargs)``.

    Registering an existing name is an error unless ``replace=True``, so two
    plug-ins cannot silently shadow each other.
    """
    if not name:
        raise ValueError("scorer name must be non-empty")
    if name in _REGISTRY and not replace:
        raise ValueError(f"a scorer named {name!r} is already registered (pass replace=True to override)")
    _REGISTRY[name] = factory


def available_scorers() -> list[str]:
    """Registered scorer names, sorted."""
    return sorted(_REGISTRY)


def get_scorer(name: str, **kwargs: Any) -> SentenceScorer:
    """A new scorer instance; ``kwargs`` go to its factory (e.g. ``model_path``).

    An unknown name is a user error (it comes from a config file) and raises
    :class:`InputError` listing the registered names.
    """
    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(available_scorers())
        raise InputError(f"unknown sentence scorer {name!r}; available: {known}") from None
    return factory(**kwargs)


register_scorer(LexicalCoverageScorer.name, LexicalCoverageScorer)
register_scorer(TransformersNLIScorer.name, TransformersNLIScorer)

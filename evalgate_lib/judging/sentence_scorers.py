"""Pluggable per-sentence scorers: how well the retrieved context supports one answer sentence.

A scorer turns (sentence, context) into a :class:`~evalgate_lib.judging.rows.SentenceVerdict`:
a support score, a supported / unsupported / not-a-claim verdict, the tokens it
checked and missed, the supporting span when it has one, and the reason in words.
The hallucination and grounded-but-wrong flags and the review queue follow the
verdicts of whichever scorer a run uses.

A run picks its scorer with ``[shared] sentence_scorer = "<name>"`` (the same for
both configs, under the fairness contract); the default is :data:`~evalgate_lib.judging.scorers.DEFAULT_SCORER`.
The scorer's name and version go into every row (``scorer``) and into the
manifest. Judgements are not cached (scoring is pure and takes milliseconds), so
no cache entry can outlive a change of scorer; the model-call cache keys do not
depend on it.

Scorers are found by name in one registry, :mod:`evalgate_lib.judging.scorers`. Usage::

    from evalgate_lib.judging.scorers import get_scorer
    from evalgate_lib.judging.sentence_scorers import ScoringContext
    scorer = get_scorer("lexical")
    verdict = scorer.judge("Starter includes 3 seats.", ScoringContext("How many seats?", (("Plans", text),)))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol, runtime_checkable

from evalgate_lib.errors import BackendError, InputError
from evalgate_lib.inputs.prompts import context_text
from evalgate_lib.judging.grounding import COVERAGE_FLOOR, sentence_coverage
from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.text.tokens import content_token_list, content_tokens


@dataclass(frozen=True)
class ScoringContext:
    """What an answer is judged against: the question and the retrieved ``(title, text)`` passages.

    ``text`` is exactly what the model saw minus the ``[1]``..``[k]`` layout labels
    (:func:`evalgate_lib.inputs.prompts.context_text`); ``tokens`` its content-token set.
    Both are computed once per answer and shared by its sentences. ``code`` holds the
    answer's lines that sit inside fenced code blocks (a sentence alone cannot tell).
    """

    question: str
    passages: tuple[tuple[str, str], ...]
    #: The answer's lines inside fenced code blocks: a scorer may read them as commands, not prose.
    code: frozenset[str] = frozenset()
    #: The answer's first sentence: what it gives as the answer, whatever words it uses.
    lead: str = ""

    def __post_init__(self) -> None:
        # passages given as a list of lists (as JSON and most callers hold them) become the tuples the
        # memoised readings key on
        object.__setattr__(self, "passages", tuple((str(t), str(x)) for t, x in self.passages))

    @cached_property
    def text(self) -> str:
        return context_text(self.passages)

    @cached_property
    def tokens(self) -> frozenset[str]:
        return content_tokens(self.text)


@runtime_checkable
class SentenceScorer(Protocol):
    """Judges one claiming sentence against a context. Must be deterministic: same inputs, same verdict.

    The engine reads the answer once (:mod:`evalgate_lib.judging.reading`) and hands a scorer only the
    sentences whose role claims something (as read: markup read, citation marks and frames removed); the
    others get their role's verdict whatever the scorer.

    ``name`` and ``version`` identify the scorer in every row and in the manifest, so
    results judged by different scorers (or versions) are never compared unawares.
    """

    name: str
    version: str

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        """The verdict on ``sentence``."""
        ...


class LexicalCoverageScorer:
    """The seed scorer: share of the sentence's content tokens found anywhere in the whole context.

    Supported at coverage >= :data:`~evalgate_lib.judging.grounding.COVERAGE_FLOOR` (0.70).
    Transparent and recomputable by hand from a row's ``tokens``/``missing``, but blind
    to where in the context a word occurs: kept as a named scorer so its figures stay
    reproducible and comparable. The rule itself is :func:`~evalgate_lib.judging.grounding.sentence_coverage`.
    """

    name = "lexical"
    version = "1"
    floor = COVERAGE_FLOOR  # the support score at which a sentence counts as supported

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        return sentence_coverage(sentence, context.tokens)


def scorer_id(scorer: SentenceScorer) -> str:
    """``name@version``, as rows and the manifest record it."""
    return f"{scorer.name}@{scorer.version}"


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
    version = "1"
    floor = COVERAGE_FLOOR

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

    def entailment(self, sentence: str, context: str) -> float:
        """Probability that ``context`` entails ``sentence``."""
        outputs = self._pipe({"text": context, "text_pair": sentence}, top_k=None, truncation=True)
        if outputs and isinstance(outputs[0], list):  # some versions wrap a single input in a list
            outputs = outputs[0]
        for item in outputs:
            if item["label"] == self._label:
                return float(item["score"])
        raise BackendError(f"NLI model {self.model_path} returned no score for label {self._label!r}")

    def judge(self, sentence: str, context: ScoringContext) -> SentenceVerdict:
        """Supported when the entailment probability reaches the floor; refusals and empty sentences claim nothing."""
        tokens = tuple(content_token_list(sentence))
        if not tokens:
            return SentenceVerdict(sentence, tokens, (), None, None, reason="claims nothing")
        p = self.entailment(sentence, context.text)
        supported = p >= COVERAGE_FLOOR
        reason = f"entailment probability {p:.2f} " + (">=" if supported else "<") + f" {COVERAGE_FLOOR:.2f}"
        return SentenceVerdict(sentence, tokens, (), p, supported, reason=reason)

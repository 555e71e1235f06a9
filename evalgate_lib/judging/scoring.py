"""The scorers: every judgement EvalGate makes is a pure function of strings here.

No model judges another model. Each function below is short enough to check by
hand, and the tests do exactly that. The thresholds are module constants so the
report can print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from evalgate_lib.text.tokens import content_token_list, content_tokens, fold, sentences_of

#: A sentence whose coverage is below this is *unsupported* by the context.
COVERAGE_FLOOR = 0.70

#: The refusal rule. A sentence is a refusal when any of these matches it (lower-cased,
#: straight quotes). Kept as a visible list so a reader can see why an answer counted
#: as "I don't know"; the candidate prompt asks the model to answer exactly "I don't know".
#: Negations are refusals only when they are about the *context* ("the context does not
#: mention ..."): a factual negative ("the Free plan does not include API access") is a
#: claim, and is checked against the context like any other sentence.
REFUSAL_PATTERNS: tuple[str, ...] = (
    r"\bi (?:do not|don't|dont) know\b",
    r"\b(?:cannot|can't|can not|unable to|not able to) (?:answer|determine)\b",
    r"\b(?:cannot|can't|can not|unable to|not able to) find (?:the|an|any) (?:answer|information)\b",
    r"\b(?:context|documents?|articles?|passages?|texts?|sources?|information provided|provided information) "
    r"(?:does|do|did) not (?:mention|say|state|contain|provide|specify|include|cover|give)\b",
    r"\bnot (?:mentioned|stated|provided|specified|covered|included|given|available) in the "
    r"(?:context|documents?|articles?|passages?|texts?|sources?|information)\b",
    r"\b(?:no|not enough|insufficient) (?:information|details?)\b",
    r"\bthere is no answer\b",
)
_REFUSAL = re.compile("|".join(REFUSAL_PATTERNS))


def retrieval_hit(retrieved_articles: Sequence[str], gold_article: str | None) -> bool | None:
    """Document-level hit: the gold article is the source of at least one retrieved chunk.

    ``None`` for a no-answer question, which has no gold article to find.
    """
    if gold_article is None:
        return None
    return gold_article in retrieved_articles


@lru_cache(maxsize=65536)
def is_refusal(text: str) -> bool:
    """True when ``text`` declines to answer, by the :data:`REFUSAL_PATTERNS` rule."""
    return bool(_REFUSAL.search(fold(text)))


def answer_refuses(answer: str) -> bool:
    """An answer is a refusal when its first sentence is one ("I don't know. ..." counts)."""
    sentences = sentences_of(answer)
    return bool(sentences) and is_refusal(sentences[0])


def matched_accept(answer: str, accept: Sequence[str]) -> str | None:
    """First accepted string contained in ``answer``, case-insensitively (``casefold``); ``None`` if none is.

    An empty accept string never matches: it is contained in everything.
    """
    folded = answer.casefold()
    for candidate in accept:
        if candidate and candidate.casefold() in folded:
            return candidate
    return None


@dataclass(frozen=True)
class Correctness:
    correct: bool
    refused: bool
    matched: str | None


def correctness(answer: str, answerable: bool, accept: Sequence[str]) -> Correctness:
    """Answerable: correct iff an accepted string is contained. No-answer: correct iff the model refused.

    Containment is literal: "three seats" does not contain "3 seats". That limit is
    documented and visible; opt-in normalisation lives in :mod:`evalgate_lib.judging.normalise`.
    """
    refused = answer_refuses(answer)
    if answerable:
        matched = matched_accept(answer, accept)
        return Correctness(matched is not None, refused, matched)
    return Correctness(refused, refused, None)


@dataclass(frozen=True)
class SentenceScore:
    """Coverage of one answer sentence by the context.

    ``coverage`` is ``None`` for a sentence that claims nothing: a refusal, or a
    sentence made only of stopwords. Such a sentence is neither supported nor not.
    """

    text: str
    tokens: tuple[str, ...]
    missing: tuple[str, ...]
    coverage: float | None
    refusal: bool = False

    @property
    def supported(self) -> bool | None:
        return None if self.coverage is None else self.coverage >= COVERAGE_FLOOR


def sentence_coverage(sentence: str, context_tokens: frozenset[str]) -> SentenceScore:
    """coverage = |content tokens ∩ context tokens| / |content tokens| for one sentence."""
    tokens = tuple(content_token_list(sentence))
    refusal = is_refusal(sentence)
    if refusal or not tokens:
        return SentenceScore(sentence, tokens, (), None, refusal=refusal)
    missing = tuple(t for t in tokens if t not in context_tokens)
    return SentenceScore(sentence, tokens, missing, (len(tokens) - len(missing)) / len(tokens))


@dataclass(frozen=True)
class Groundedness:
    sentences: tuple[SentenceScore, ...]
    score: float | None

    @property
    def unsupported(self) -> int:
        """How many sentences fall under the coverage floor."""
        return sum(1 for s in self.sentences if s.supported is False)


def groundedness(answer: str, context: str) -> Groundedness:
    """Per-sentence coverage of ``answer`` by ``context`` and their mean over scored sentences.

    The score is ``None`` when no sentence makes a claim (a plain refusal, an empty
    answer): there is nothing to ground, and averaging in a 0 or a 1 would be a lie
    either way.
    """
    ctx = content_tokens(context)
    scores = tuple(sentence_coverage(s, ctx) for s in sentences_of(answer))
    scored = [s.coverage for s in scores if s.coverage is not None]
    return Groundedness(scores, sum(scored) / len(scored) if scored else None)


def confidence(top_similarity: float, grounded: float | None) -> float:
    """min(top retrieval similarity, groundedness): both are production signals, no gold needed.

    When groundedness is undefined (nothing claimed), the retrieval signal stands alone.
    """
    return top_similarity if grounded is None else min(top_similarity, grounded)

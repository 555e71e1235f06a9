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

from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.text.tokens import content_token_list, fold, sentences_of

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
    """A correctness verdict and the reason for it, in words a reader can check against the answer."""

    correct: bool
    refused: bool
    matched: str | None
    reason: str = ""
    #: Decided by a rule of thumb a person should confirm (a decline that also answers, competing values, ...).
    doubtful: bool = False


def accept_list(accept: Sequence[str]) -> str:
    """The accepted strings as a verdict's reason quotes them."""
    return ", ".join(repr(a) for a in accept) or "(none)"


def correctness(answer: str, answerable: bool, accept: Sequence[str]) -> Correctness:
    """Answerable: correct iff an accepted string is contained. No-answer: correct iff the model refused.

    Containment is literal: "three seats" does not contain "3 seats". That limit is
    documented and visible; opt-in normalisation lives in :mod:`evalgate_lib.judging.normalise`.
    """
    refused = answer_refuses(answer)
    if answerable:
        matched = matched_accept(answer, accept)
        if matched is not None:
            return Correctness(True, refused, matched, f"the answer contains the accepted string {matched!r}")
        if refused:
            return Correctness(False, True, None, "the question is answerable, but the answer is a refusal")
        reason = (
            f"the answer contains none of the accepted strings ({accept_list(accept)}); "
            "containment is literal and case-insensitive"
        )
        return Correctness(False, False, None, reason)
    if refused:
        return Correctness(True, True, None, "a no-answer question, and the answer is a refusal")
    return Correctness(
        False, False, None, "the question has no answer in the knowledge base, and the answer is not a refusal"
    )


def sentence_coverage(sentence: str, context_tokens: frozenset[str]) -> SentenceVerdict:
    """coverage = |content tokens ∩ context tokens| / |content tokens| for one sentence.

    A refusal, or a sentence without content tokens, claims nothing: coverage and
    ``supported`` are ``None``. Otherwise the sentence is supported when its coverage
    reaches :data:`COVERAGE_FLOOR`.
    """
    tokens = tuple(content_token_list(sentence))
    refusal = is_refusal(sentence)
    if refusal:
        return SentenceVerdict(sentence, tokens, (), None, None, refusal=True, reason="a refusal: claims nothing")
    if not tokens:
        return SentenceVerdict(sentence, tokens, (), None, None, reason="no content words: claims nothing")
    missing = tuple(t for t in tokens if t not in context_tokens)
    coverage = (len(tokens) - len(missing)) / len(tokens)
    supported = coverage >= COVERAGE_FLOOR
    found = len(tokens) - len(missing)
    reason = f"{found}/{len(tokens)} content tokens in the context = {coverage:.2f} " + (
        f">= {COVERAGE_FLOOR:.2f}" if supported else f"< {COVERAGE_FLOOR:.2f}; missing: {', '.join(missing)}"
    )
    return SentenceVerdict(sentence, tokens, missing, coverage, supported, reason=reason)


@dataclass(frozen=True)
class Groundedness:
    """The verdicts of every sentence of one answer and their mean support (``None``: nothing claimed)."""

    sentences: tuple[SentenceVerdict, ...]
    score: float | None

    @property
    def unsupported(self) -> int:
        """How many sentences the scorer judged unsupported."""
        return sum(1 for s in self.sentences if s.supported is False)


def mean_support(verdicts: Sequence[SentenceVerdict]) -> float | None:
    """Groundedness of an answer: the mean score of the sentences that claim something.

    ``None`` when no sentence makes a claim (a plain refusal, an empty answer):
    there is nothing to ground, and averaging in a 0 or a 1 would be a lie either way.
    """
    scored = [s.coverage for s in verdicts if s.coverage is not None]
    return sum(scored) / len(scored) if scored else None


def confidence(top_similarity: float, grounded: float | None) -> float:
    """min(top retrieval similarity, groundedness): both are production signals, no gold needed.

    When groundedness is undefined (nothing claimed), the retrieval signal stands alone.
    """
    return top_similarity if grounded is None else min(top_similarity, grounded)

"""How grounded an answer is: the lexical sentence rule, groundedness and confidence.

:func:`sentence_coverage` is EvalGate 0.1's sentence rule (the ``lexical`` scorer);
:func:`mean_support` turns any scorer's sentence verdicts into an answer's groundedness and
:func:`confidence` combines it with the retriever's best similarity. Whether an answer is
*correct* is decided elsewhere, in :mod:`evalgate_lib.judging.correctness`. Each function is
short enough to check by hand, and the tests do exactly that; the floor is a module constant
so the report can print it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from evalgate_lib.judging.rows import SentenceVerdict
from evalgate_lib.text.tokens import content_token_list

#: A sentence whose coverage is below this is *unsupported* by the context.
COVERAGE_FLOOR = 0.70


def sentence_coverage(sentence: str, context_tokens: frozenset[str]) -> SentenceVerdict:
    """coverage = |content tokens ∩ context tokens| / |content tokens| for one claiming sentence.

    A sentence without content tokens claims nothing: coverage and ``supported`` are ``None``. Otherwise
    it is supported when its coverage reaches :data:`COVERAGE_FLOOR`. (Which sentences claim at all is the
    answer's reading, :mod:`evalgate_lib.judging.reading`, the same for every scorer.)
    """
    tokens = tuple(content_token_list(sentence))
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

"""Flags: which answers a human should look at, and why.

``hallucination`` and ``grounded_but_wrong`` use the gold label (they explain a
miss). ``review`` has two rules, chosen by the sentence scorer (:func:`review_reasons`):
under ``span`` and ``lexical`` it is what a production system could compute without
gold (an unsupported sentence, or low confidence); under ``prose`` it is the queue of
verdicts a person should confirm first, measured by how many of the judge's own errors
it holds (``evalgate agreement --sets``).
"""

from __future__ import annotations

import math

from evalgate_lib.judging.correctness import Correctness
from evalgate_lib.judging.grounding import Groundedness
from evalgate_lib.judging.rows import Flags

#: An answer whose confidence is below this goes to the review queue.
REVIEW_CONFIDENCE = 0.50


def _floor3(value: float) -> float:
    # rounded down, so a value just under a threshold never prints as equal to it
    return math.floor(value * 1000) / 1000


def review_reasons(
    grounded: Groundedness, confidence: float, verdict: Correctness | None = None, by_doubt: bool = False
) -> tuple[str, ...]:
    """Why an answer enters the review queue; empty when it does not.

    Two rules, chosen by the scorer. The span and lexical scorers (``by_doubt=False``, their
    figures kept reproducible): any unsupported sentence, or low confidence; no gold data.
    The prose scorers mark the verdicts that sit at the edge of their rules (``doubtful``),
    and the queue holds what a person should confirm first (``by_doubt=True``): a doubtful
    sentence verdict, a correctness verdict decided by a rule of thumb, a wrong answer whose
    every claim is judged supported (it reads the correctness verdict, hence the gold answer:
    a review of the judge, not a production signal), or low confidence.
    A clear-cut unsupported claim (a number or name no span holds) is flagged as such and
    needs no second look to be believed.
    """
    reasons = []
    if by_doubt:
        doubtful = [s for s in grounded.sentences if s.doubtful]
        if doubtful:
            reasons.append(f"{len(doubtful)} sentence verdict(s) at the edge of the rule, e.g. {doubtful[0].text!r}")
        if verdict is not None and verdict.doubtful:
            reasons.append(f"correctness decided by a rule of thumb: {verdict.reason}")
        if verdict is not None and not verdict.correct and grounded.score is not None and not grounded.unsupported:
            reasons.append(
                "wrong, yet every claim is judged supported: confirm that the context really says what the answer "
                "claims (or that the context misled the model)"
            )
    elif grounded.unsupported:
        reasons.append(f"{grounded.unsupported} sentence(s) judged unsupported by the context")
    if confidence < REVIEW_CONFIDENCE:
        reasons.append(
            f"confidence {_floor3(confidence):.3f} < {REVIEW_CONFIDENCE:.2f} "
            "(confidence = min(top similarity, groundedness))"
        )
    return tuple(reasons)


def _unsupported_reason(grounded: Groundedness) -> str:
    unsupported = [s for s in grounded.sentences if s.supported is False]
    worst = min(unsupported, key=lambda s: s.coverage if s.coverage is not None else 0.0)
    return f"{len(unsupported)} sentence(s) judged unsupported; e.g. {worst.text!r}: {worst.reason}"


def flag_answer(verdict: Correctness, grounded: Groundedness, confidence: float, by_doubt: bool = False) -> Flags:
    """All flags of one answer, each with the reasons it fired.

    * wrong: the correctness verdict says so (its reason is the flag's reason);
    * hallucination: wrong, and at least one sentence is unsupported;
    * grounded-but-wrong: wrong, something was claimed, and every claim is supported
      (the context itself misled, or the wrong passage was retrieved);
    * review: :func:`review_reasons` is non-empty (``by_doubt``: the prose scorers' rule).
    """
    wrong = not verdict.correct
    review = review_reasons(grounded, confidence, verdict, by_doubt)
    hallucination = wrong and grounded.unsupported > 0
    grounded_but_wrong = wrong and grounded.score is not None and grounded.unsupported == 0
    reasons: dict[str, tuple[str, ...]] = {}
    if wrong:
        reasons["wrong"] = (verdict.reason,)
    if hallucination:
        reasons["hallucination"] = ("wrong", _unsupported_reason(grounded))
    if grounded_but_wrong:
        reasons["grounded_but_wrong"] = (
            "wrong",
            f"every claiming sentence is supported by the context (groundedness {_floor3(grounded.score or 0):.3f}): "
            "the context itself misled the model, or the wrong passage was retrieved",
        )
    if review:
        reasons["review"] = review
    return Flags(wrong, hallucination, grounded_but_wrong, bool(review), reasons)

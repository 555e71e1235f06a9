"""Flags: which answers a human should look at, and why.

``hallucination`` and ``grounded_but_wrong`` use the gold label (they explain a
miss). ``review`` is what a production system could compute *without* gold:
an unsupported sentence, or low confidence. It never reads the gold label, so
the report can show how well the no-gold signal catches the gold-known misses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from evalgate_lib.judging.scoring import Groundedness

#: An answer whose confidence is below this goes to the review queue.
REVIEW_CONFIDENCE = 0.50

FLAG_NAMES = ("wrong", "hallucination", "grounded_but_wrong", "review")


@dataclass(frozen=True)
class Flags:
    wrong: bool
    hallucination: bool
    grounded_but_wrong: bool
    review: bool
    review_reasons: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, object]:
        return {
            "wrong": self.wrong,
            "hallucination": self.hallucination,
            "grounded_but_wrong": self.grounded_but_wrong,
            "review": self.review,
            "review_reasons": list(self.review_reasons),
        }


def review_reasons(grounded: Groundedness, confidence: float) -> tuple[str, ...]:
    """Why an answer enters the review queue; empty when it does not. Uses no gold data."""
    reasons = []
    if grounded.unsupported:
        reasons.append(f"{grounded.unsupported} sentence(s) under the coverage floor")
    if confidence < REVIEW_CONFIDENCE:
        # rounded down, so a value just under the threshold never prints as equal to it
        shown = math.floor(confidence * 1000) / 1000
        reasons.append(f"confidence {shown:.3f} < {REVIEW_CONFIDENCE:.2f}")
    return tuple(reasons)


def flag_answer(correct: bool, grounded: Groundedness, confidence: float) -> Flags:
    """All flags of one answer.

    * hallucination: wrong, and at least one sentence is unsupported;
    * grounded-but-wrong: wrong, something was claimed, and every claim passes the floor
      (the context itself misled, or the wrong passage was retrieved);
    * review: :func:`review_reasons` is non-empty.
    """
    wrong = not correct
    reasons = review_reasons(grounded, confidence)
    return Flags(
        wrong=wrong,
        hallucination=wrong and grounded.unsupported > 0,
        grounded_but_wrong=wrong and grounded.score is not None and grounded.unsupported == 0,
        review=bool(reasons),
        review_reasons=reasons,
    )

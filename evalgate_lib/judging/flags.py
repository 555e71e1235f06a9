"""Flags: which answers a human should look at, and why.

``hallucination`` and ``grounded_but_wrong`` use the gold label (they explain a
miss). ``review`` never does (:func:`review_reasons`): it is what a production system can
compute from its own log, so the same queue runs on a team's traffic. Under ``span`` and
``lexical`` it holds an unsupported sentence or low confidence; under ``prose`` the verdicts
the judge left undecided, answers that decline and answer at once, and low confidence,
measured by how many of the judge's own errors it holds (``evalgate agreement --sets``).
"""

from __future__ import annotations

import math
from typing import Sequence

from evalgate_lib.judging.correctness import Correctness
from evalgate_lib.judging.grounding import Groundedness
from evalgate_lib.judging.rows import Flags, SentenceVerdict

#: An answer whose confidence is below this goes to the review queue (span and lexical scorers).
REVIEW_CONFIDENCE = 0.50

#: The same for the scorers that mark undecided verdicts: their queue is led by those verdicts, and only a
#: retrieval this weak adds an answer by itself (measured: below 0.5 it held the judge's errors no more
#: often than their base rate, on every labelled set).
UNDECIDED_REVIEW_CONFIDENCE = 0.35


def _floor3(value: float) -> float:
    # rounded down, so a value just under a threshold never prints as equal to it
    return math.floor(value * 1000) / 1000


def review_reasons(
    grounded: Groundedness, confidence: float, decline: tuple[bool, str] | None = None, by_doubt: bool = False
) -> tuple[str, ...]:
    """Why an answer enters the review queue; empty when it does not. No rule reads the gold answer.

    The queue reads only what a production log has: the question, the passages, the answer, the
    retrieval similarity and the judge's own undecided support verdicts, so it runs unchanged on a
    team's live traffic, and replacing every accept list changes no row's ``review`` or its reasons.
    Two rules, chosen by the scorer. The span and lexical scorers (``by_doubt=False``, their figures
    kept reproducible): any unsupported sentence, or low confidence. The scorers that mark undecided
    verdicts (``by_doubt=True``, the prose scorer): an undecided sentence verdict, an answer that
    declines and also gives an answer (``decline``, the one decline reading, which reads the question
    and the answer only), or low confidence. A decided verdict (a number the context never gives, a
    claim held word for word) needs no second look to be believed.
    """
    reasons = []
    if by_doubt:
        undecided = [s for s in grounded.sentences if s.undecided]
        if undecided:
            leaning = sum(1 for s in undecided if s.supported is False)
            reasons.append(
                f"{len(undecided)} sentence verdict(s) undecided ({leaning} leaning unsupported), "
                f"e.g. {undecided[0].text!r}"
            )
        if decline is not None and not decline[0] and decline[1].startswith("it declines, but"):
            reasons.append(f"declines and answers in one breath: {decline[1]}")
    elif grounded.unsupported:
        reasons.append(f"{grounded.unsupported} sentence(s) judged unsupported by the context")
    if confidence < (UNDECIDED_REVIEW_CONFIDENCE if by_doubt else REVIEW_CONFIDENCE):
        reasons.append(
            f"confidence {_floor3(confidence):.3f} < "
            f"{UNDECIDED_REVIEW_CONFIDENCE if by_doubt else REVIEW_CONFIDENCE:.2f} "
            "(confidence = min(top similarity, groundedness))"
        )
    return tuple(reasons)


def review_priority(judgement_flags: Flags, sentences: Sequence[SentenceVerdict], confidence: float) -> tuple:
    """How early a reviewer should read an answer, from what a production log has (no gold): the reading order
    of the review queue (the explorer's "Review queue", the ranked curve of ``evalgate agreement --sets``).

    1. Answers whose verdict the judge left **open**: a sentence verdict is undecided and no sentence is
       decided unsupported (so the undecided verdicts decide whether the answer has an unsupported claim,
       the same "decided" that ``evalgate agreement`` reports coverage by), or the answer declines and
       answers in one breath. An answer with a decided unsupported sentence holds an unsupported claim
       whatever its undecided verdicts say, so they cannot change its outcome.
    2. Then the **thinnest decided support**: 1 − the lowest support figure among the decided supporting
       sentences (a claim held at 0.56 against a floor of 0.55 is nearer to the other verdict than one
       held at 1.00; the distance from the decision is what selective classifiers rank doubt by).
    3. Then, as before: undecided verdicts leaning unsupported and mixed declines, other undecided
       verdicts, the number of review reasons, lower confidence.

    Measured on the eight labelled sets (docs/methodology.md): the first 35 % of answers in this order hold
    24-50 % of the judge's errors on the demo model's sets, where the order of 3 alone held 5-36 % (chance:
    35 %), and 60-88 % on the fluent sets (40-92 % before).
    """
    reasons = judgement_flags.reasons.get("review", ())
    leaning = sum(1 for s in sentences if s.undecided and s.supported is False)
    undecided = sum(1 for s in sentences if s.undecided)
    mixed = sum(1 for r in reasons if r.startswith("declines and answers"))
    decided_unsupported = any(s.supported is False and not s.undecided for s in sentences)
    is_open = int((undecided > 0 and not decided_unsupported) or mixed > 0)
    held = [s.coverage for s in sentences if s.supported is True and not s.undecided and s.coverage is not None]
    thinnest = round(1.0 - min(held), 6) if held else 0.0
    return (is_open, thinnest, leaning + mixed, undecided, len(reasons), round(1.0 - confidence, 6))


def _unsupported_reason(grounded: Groundedness) -> str:
    unsupported = [s for s in grounded.sentences if s.supported is False]
    worst = min(unsupported, key=lambda s: s.coverage if s.coverage is not None else 0.0)
    return f"{len(unsupported)} sentence(s) judged unsupported; e.g. {worst.text!r}: {worst.reason}"


def flag_answer(
    verdict: Correctness,
    grounded: Groundedness,
    confidence: float,
    by_doubt: bool = False,
    decline: tuple[bool, str] | None = None,
) -> Flags:
    """All flags of one answer, each with the reasons it fired.

    * wrong: the correctness verdict says so (its reason is the flag's reason);
    * hallucination: wrong, and at least one sentence is unsupported;
    * grounded-but-wrong: wrong, something was claimed, and every claim is supported
      (the context itself misled, or the wrong passage was retrieved);
    * review: :func:`review_reasons` is non-empty (``by_doubt``: the prose scorers' rule); it never reads
      ``verdict``, which depends on the gold answer.
    """
    wrong = not verdict.correct
    review = review_reasons(grounded, confidence, decline, by_doubt)
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

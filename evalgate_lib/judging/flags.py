"""Flags: which answers a human should look at, and why.

``hallucination`` and ``grounded_but_wrong`` use the gold label (they explain a miss). ``unsupported_claim``
does not: it reads only the judge's sentence verdicts, so a chatty answer that is right but adds claims the
passages do not make is flagged too. ``review`` never reads the gold either (:func:`review_causes`): it is
what a production system can compute from its own log, so the same queue runs on a team's traffic. Under
``span`` and ``lexical`` it holds an unsupported sentence or low confidence; under ``prose`` the verdicts
the judge left undecided, answers that decline and answer at once, and low confidence, measured by how many
of the judge's own errors it holds (``evalgate agreement --sets``). The queue's order reads the typed causes
(``Flags.causes``), never a reason's words.
"""

from __future__ import annotations

import math
from typing import Sequence

from evalgate_lib.judging.correctness import Correctness
from evalgate_lib.judging.grounding import Groundedness
from evalgate_lib.judging.rows import Flags, SentenceVerdict

#: An answer whose confidence (min(top retrieval similarity, groundedness)) is below this goes to the review queue.
#: Measured on the labelled sets: below 0.5 it held the judge's errors no more often than their base rate, and a
#: retrieval this weak adds an answer by itself (docs/judge.md).
REVIEW_CONFIDENCE = 0.35


def _floor3(value: float) -> float:
    # rounded down, so a value just under a threshold never prints as equal to it
    return math.floor(value * 1000) / 1000


def review_causes(
    grounded: Groundedness, confidence: float, mixed_decline: bool = False, by_doubt: bool = False
) -> tuple[tuple[str, str], ...]:
    """Why an answer enters the review queue, as ``(cause, reason in words)``; empty when it does not.

    No cause reads the gold answer: the queue reads only what a production log has (the question, the
    passages, the answer, the retrieval similarity and the judge's own undecided verdicts), so it runs
    unchanged on a team's live traffic. Under a scorer that marks undecided verdicts (``by_doubt``, the prose
    scorer) the causes are ``undecided`` (a sentence verdict the judge left undecided),
    ``declines_and_answers`` (the answer declines and gives an answer in one breath: ``mixed_decline``, the one
    decline reading of :func:`~evalgate_lib.judging.correctness.declining`) and ``low_confidence``; under the
    other scorers, ``unsupported`` (any unsupported sentence) and ``low_confidence``.
    """
    causes: list[tuple[str, str]] = []
    if by_doubt:
        undecided = [s for s in grounded.sentences if s.undecided]
        if undecided:
            leaning = sum(1 for s in undecided if s.supported is False)
            causes.append((
                "undecided",
                f"{len(undecided)} sentence verdict(s) undecided ({leaning} leaning unsupported), "
                f"e.g. {undecided[0].text!r}",
            ))  # fmt: skip
        if mixed_decline:
            causes.append(("declines_and_answers", "declines and answers in one breath"))
    elif grounded.unsupported:
        causes.append(("unsupported", f"{grounded.unsupported} sentence(s) judged unsupported by the context"))
    floor = REVIEW_CONFIDENCE
    if confidence < floor:
        causes.append((
            "low_confidence",
            f"confidence {_floor3(confidence):.3f} < {floor:.2f} (confidence = min(top similarity, groundedness))",
        ))  # fmt: skip
    return tuple(causes)


def review_priority(judgement_flags: Flags, sentences: Sequence[SentenceVerdict], confidence: float) -> tuple:
    """How early a reviewer should read an answer, from what a production log has (no gold): the reading order
    of the review queue (the explorer's "Review queue", the ranked curve of ``evalgate agreement --sets``).

    1. Answers whose verdict the judge left **open**: a sentence verdict is undecided and no sentence is
       decided unsupported (the undecided verdicts decide whether the answer has an unsupported claim), or the
       answer declines and answers in one breath.
    2. Then the **thinnest decided support**: 1 − the lowest support figure among the decided supporting
       sentences (the distance from the decision is what selective classifiers rank doubt by).
    3. Then: undecided verdicts leaning unsupported and mixed declines, other undecided verdicts, the number of
       review causes, lower confidence.

    It reads the flags' typed ``causes``, never a reason's words.
    """
    causes = judgement_flags.causes
    leaning = sum(1 for s in sentences if s.undecided and s.supported is False)
    undecided = sum(1 for s in sentences if s.undecided)
    mixed = int("declines_and_answers" in causes)
    decided_unsupported = any(s.supported is False and not s.undecided for s in sentences)
    is_open = int((undecided > 0 and not decided_unsupported) or mixed > 0)
    held = [s.coverage for s in sentences if s.supported is True and not s.undecided and s.coverage is not None]
    thinnest = round(1.0 - min(held), 6) if held else 0.0
    return (is_open, thinnest, leaning + mixed, undecided, len(causes), round(1.0 - confidence, 6))


def _unsupported_reason(grounded: Groundedness) -> str:
    """How many sentences are unsupported, in the words the trace uses: decided, or undecided and leaning so."""
    unsupported = [s for s in grounded.sentences if s.supported is False]
    decided = sum(1 for s in unsupported if not s.undecided)
    counts = [f"{decided} sentence(s) judged unsupported"] if decided else []
    if len(unsupported) > decided:
        counts.append(f"{len(unsupported) - decided} undecided, leaning unsupported")
    worst = min(unsupported, key=lambda s: (s.undecided, s.coverage if s.coverage is not None else 0.0))
    shown = f" ({worst.outcome})" if worst.undecided else ""
    return f"{' and '.join(counts)}; e.g. {worst.text!r}{shown}: {worst.reason}"


def _unsupported_sentences(grounded: Groundedness) -> tuple[str, ...]:
    """Which sentences are unsupported, one reason each: the sentence, its verdict in words and the judge's reason.

    It only reads the sentence verdicts the judge made (``supported is False``, an undecided one leaning so
    included, as :attr:`~evalgate_lib.judging.rows.Judgement.unsupported_sentences`).
    """
    return tuple(f"{s.text!r} ({s.outcome}): {s.reason}" for s in grounded.sentences if s.supported is False)


def flag_answer(
    verdict: Correctness,
    grounded: Groundedness,
    confidence: float,
    by_doubt: bool = False,
    mixed_decline: bool = False,
) -> Flags:
    """All flags of one answer, each with the reasons it fired.

    * wrong: the correctness verdict says so (its reason is the flag's reason);
    * hallucination: wrong, and at least one sentence is unsupported;
    * grounded-but-wrong: wrong, something was claimed, and every claim is supported
      (the context itself misled, or the wrong passage was retrieved);
    * review: :func:`review_causes` is non-empty; it never reads ``verdict``, which depends on the gold answer;
    * unsupported claim: at least one sentence is unsupported, right answer or wrong (no gold read); its reasons
      are the unsupported sentences.
    """
    wrong = not verdict.correct
    causes = review_causes(grounded, confidence, mixed_decline, by_doubt)
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
    if causes:
        reasons["review"] = tuple(why for _, why in causes)
    unsupported = _unsupported_sentences(grounded)
    if unsupported:
        reasons["unsupported_claim"] = unsupported
    return Flags(
        wrong, hallucination, grounded_but_wrong, bool(causes), reasons, tuple(c for c, _ in causes), bool(unsupported)
    )

"""Judging one answer from strings alone: correctness, per-sentence support, confidence, flags.

:func:`judge_answer` is the function the pipeline calls for every answer and the
one a user calls on a single answer of their own (the public API exports it):
the same code either way, so a verdict seen in a notebook is the verdict the
run published. It needs no model, no cache and no retrieval index.
"""

from __future__ import annotations

from typing import Sequence

from evalgate_lib.inputs.config import DEFAULT_ANSWER_MATCHING
from evalgate_lib.judging.answer_lean import lean_by_answer
from evalgate_lib.judging.correctness import answer_declines, answer_part, decide_correctness
from evalgate_lib.judging.discourse import fenced_lines
from evalgate_lib.judging.flags import flag_answer
from evalgate_lib.judging.grounding import Groundedness, confidence, mean_support
from evalgate_lib.judging.rows import Judgement
from evalgate_lib.judging.scorers import DEFAULT_SCORER, get_scorer
from evalgate_lib.judging.sentence_scorers import ScoringContext, SentenceScorer, judge_sentences, scorer_id
from evalgate_lib.text.tokens import answer_sentences


def judge_answer(
    *,
    question: str,
    answer: str,
    passages: Sequence[tuple[str, str]],
    accept: Sequence[str] = (),
    answerable: bool = True,
    top_similarity: float = 1.0,
    matching: str = DEFAULT_ANSWER_MATCHING,
    scorer: SentenceScorer | str = DEFAULT_SCORER,
) -> Judgement:
    """Judge one answer against the passages it was given and the accepted answers.

    ``passages`` are the retrieved ``(title, text)`` pairs in rank order, exactly as the
    prompt showed them; ``accept`` the accepted answer strings (empty for a no-answer
    question, where only a refusal is correct); ``top_similarity`` the retriever's best
    cosine similarity (a production signal behind ``confidence`` and the review queue).
    ``scorer`` is a registered sentence-scorer name or an instance.
    """
    judge = get_scorer(scorer) if isinstance(scorer, str) else scorer
    decision = decide_correctness(answer, answerable, accept, matching, question)
    verdict, record = decision.verdict, decision.matching
    split = answer_sentences(answer)
    context = ScoringContext(
        question, tuple((str(t), str(x)) for t, x in passages), fenced_lines(answer), split[0] if split else ""
    )
    sentences = judge_sentences(split, context, judge)
    undecided_kinds = bool(getattr(judge, "marks_undecided", False))
    if undecided_kinds:  # an undecided verdict's lean may follow what the rest of the answer shows
        sentences = lean_by_answer(sentences, answer)
    grounded = Groundedness(sentences, mean_support(sentences))
    conf = confidence(top_similarity, grounded.score)
    return Judgement(
        correct=verdict.correct,
        refused=verdict.refused,
        matched=verdict.matched,
        matching=record,
        sentences=sentences,
        groundedness=grounded.score,
        confidence=conf,
        flags=flag_answer(
            verdict,
            grounded,
            conf,
            by_doubt=undecided_kinds,
            decline=answer_declines(answer_part(answer), question),
        ),
        scorer=scorer_id(judge),
    )

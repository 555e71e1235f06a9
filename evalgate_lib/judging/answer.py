"""Judging one answer from strings alone: correctness, per-sentence support, confidence, flags.

:func:`judge_answer` is the function the pipeline calls for every answer and the one a user calls on a
single answer of their own (the public API exports it): the same code either way, so a verdict seen in a
notebook is the verdict the run published. It needs no model, no cache and no retrieval index.

The answer is read once (:func:`~evalgate_lib.judging.reading.read_answer`: blocks, sentences, clauses and
their roles), and every judgement reads that one reading: correctness (:mod:`~evalgate_lib.judging.correctness`),
support (:mod:`~evalgate_lib.judging.support`) and the review queue (:mod:`~evalgate_lib.judging.flags`).
"""

from __future__ import annotations

from typing import Sequence

from evalgate_lib.inputs.config import DEFAULT_ANSWER_MATCHING
from evalgate_lib.judging.correctness import decide_correctness, declining
from evalgate_lib.judging.flags import flag_answer
from evalgate_lib.judging.grounding import Groundedness, confidence, mean_support
from evalgate_lib.judging.reading import read_answer
from evalgate_lib.judging.rows import Judgement
from evalgate_lib.judging.scorers import DEFAULT_SCORER, get_scorer
from evalgate_lib.judging.sentence_scorers import SentenceScorer, scorer_id
from evalgate_lib.judging.support import support_verdicts


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
    disabled: frozenset[str] = frozenset(),
) -> Judgement:
    """Judge one answer against the passages it was given and the accepted answers.

    ``passages`` are the retrieved ``(title, text)`` pairs in rank order, exactly as the prompt showed them;
    ``accept`` the accepted answer strings (empty for a no-answer question, where only a refusal is correct);
    ``top_similarity`` the retriever's best cosine similarity (a production signal behind ``confidence`` and
    the review queue). ``scorer`` is a registered sentence-scorer name or an instance. ``disabled`` names rules
    switched off (their ids, docs/judge.md): for the ablation study only.
    """
    judge = get_scorer(scorer) if isinstance(scorer, str) else scorer
    reading = read_answer(answer, question, disabled)
    decision = decide_correctness(reading, answerable, accept, matching, disabled)
    verdict = decision.verdict
    sentences = support_verdicts(reading, tuple((str(t), str(x)) for t, x in passages), judge, disabled)
    grounded = Groundedness(sentences, mean_support(sentences))
    conf = confidence(top_similarity, grounded.score)
    by_doubt = bool(getattr(judge, "marks_undecided", False))
    return Judgement(
        correct=verdict.correct,
        refused=verdict.refused,
        matched=verdict.matched,
        matching=decision.matching,
        sentences=sentences,
        groundedness=grounded.score,
        confidence=conf,
        flags=flag_answer(verdict, grounded, conf, by_doubt=by_doubt, mixed_decline=declining(reading).mixed),
        scorer=scorer_id(judge),
    )

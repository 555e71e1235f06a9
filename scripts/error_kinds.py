"""The default judge's remaining errors on every labelled set, grouped by the reason its verdict gives.

This is the listing in docs/judge.md ("What the judge still gets wrong"). For each set it counts three kinds of
disagreement with the pass-1 labels, each by the rule that decided the verdict (its id, read from the verdict's
trace; no reason's words are read):

* sentences the judge holds unsupported (decided or leaning) in an answer the reviewer found fully
  supported ("flags a supported claim");
* sentences the reviewer flagged in an answer the judge found fully supported ("misses an
  unsupported claim");
* answers whose correctness verdict differs ("correctness").

Usage::

    .venv/bin/python scripts/error_kinds.py [labels/sets.toml]
"""

from __future__ import annotations

import argparse
import collections

from evalgate_lib.inputs.answer_logs import load_answer_log
from evalgate_lib.inputs.gold import load_gold
from evalgate_lib.inputs.labelled_sets import load_sets
from evalgate_lib.inputs.labels import load_labels, match_labels
from evalgate_lib.judging.correctness import CLAIM_RULES
from evalgate_lib.judging.lexicon import reading_tokens
from evalgate_lib.judging.rows import Judgement, SentenceVerdict
from evalgate_lib.judging.support import SUPPORT_RULES
from evalgate_lib.statistics.run_agreement import split_passes
from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, judge_logged

RULE_NAMES: dict[str, str] = {rule_id: rule.decides for rule_id, rule in {**SUPPORT_RULES, **CLAIM_RULES}.items()}


def flag_kind(sentence: SentenceVerdict) -> str:
    """The kind of an unsupported verdict on a sentence of a fully supported answer: the rule that decided it."""
    how = "undecided, leaning unsupported" if sentence.undecided else "decided"
    return f"{sentence.rule} ({how})"


def missed_kind(sentence: SentenceVerdict) -> str:
    """The kind of a verdict on a sentence the reviewer flagged in an answer the judge found fully supported."""
    if sentence.supported is None:
        return f"read as no claim: {sentence.role} ({sentence.rule})"
    how = "undecided, leaning supported" if sentence.undecided else "decided supported"
    return f"{sentence.steps[-1].rule if sentence.steps else sentence.rule} ({how})"


def correctness_kind(judged: Judgement, human: bool) -> str:
    """The kind of a correctness verdict the reviewer disagrees with: the deciding rule and which way it erred."""
    said = "correct" if judged.correct else "wrong"
    reviewer = "correct" if human else "wrong"
    return f"{judged.matching.rule or judged.matching.mode} judged it {said}, the reviewer {reviewer}"


def _same_sentence(text: str, labelled: str) -> bool:
    """Whether the judge's sentence (as read) is the reviewer's (as written in the answer): most of its words."""
    ours, theirs = set(reading_tokens(text)), set(reading_tokens(labelled))
    return bool(ours) and len(ours & theirs) >= 0.6 * len(ours)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="?", default="labels/sets.toml")
    args = parser.parse_args(argv)
    judge = DEFAULT_JUDGES[0]
    for labelled_set in load_sets(args.sets):
        questions = load_gold(labelled_set.gold)
        by_id = {q.id: q for q in questions}
        ids = [q.id for q in questions]
        logs = {config: load_answer_log(path, ids) for config, path in labelled_set.answers}
        answers = {(config, a.question_id): a for config, log in logs.items() for a in log.answers}
        match = match_labels(load_labels(labelled_set.labels), {k: a.answer for k, a in answers.items()})
        reference, _ = split_passes(match.matched)
        counts: collections.Counter[str] = collections.Counter()
        for key in (k for k in answers if k in reference):
            label = reference[key]
            judged = judge_logged(answers[key], by_id[key[1]], judge)
            for sentence in judged.sentences:
                flagged = any(_same_sentence(sentence.text, u) for u in label.unsupported_sentences)
                if flagged and sentence.supported is not False and not judged.unsupported_sentences:
                    counts["misses an unsupported claim: " + missed_kind(sentence)] += 1
                elif not label.unsupported_claim and sentence.supported is False:
                    counts["flags a supported claim: " + flag_kind(sentence)] += 1
            if judged.correct != label.correct:
                counts["correctness: " + correctness_kind(judged, label.correct)] += 1
        print(f"== {labelled_set.name} {sum(counts.values())}")
        for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{n:6d} {kind}")


if __name__ == "__main__":
    main()

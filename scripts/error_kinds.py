"""The default judge's remaining errors on every labelled set, grouped by the reason its verdict gives.

This is the listing in docs/methodology.md ("What the judge still gets wrong"). For each set it counts
three kinds of disagreement with the pass-1 labels:

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
from evalgate_lib.judging.rows import Judgement
from evalgate_lib.statistics.run_agreement import split_passes
from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, judge_logged

#: (a phrase of a flagging verdict's reason, the kind it is listed as), first match wins.
FLAG_KINDS = (
    ("a near miss", "a near-miss paraphrase"),
    ("no span holds it", "a value held apart from the rest of its claim"),
    ("never gives", "a name or value the context never gives"),
    ("may be about something else", "a name the span lacks"),
    ("not clearly about the question", "a span not clearly about the question"),
    ("says nothing negative", "a negation the span does not state"),
    ("barely holds", "a short claim the best span barely holds"),
    ("holds only", "under a third of the words in one span"),
    ("lacks what the answer adds", "what the answer adds is not in the span"),
    ("code", "a code line"),
)


#: The same for a supporting verdict on a sentence the reviewer flagged ("and every number and identifier"
#: comes last: every decided supporting reason ends with it).
MISSED_KINDS = (
    ("; leans supported:", "undecided, leaning supported as the rest of its answer vouched for it"),
    ("copied verbatim", "a verbatim copy"),
    ("clauses (of", "clause by clause"),
    ("also gives", "a second value of the same kind in the span"),
    ("that holds only", "a value bound by only some of the question's words"),
    ("a command or code line", "a code line"),
    ("and every number and identifier", "held by one span (a reading the words cannot tell)"),
)


def missed_kind(reason: str) -> str:
    """The kind of a supporting verdict on a sentence the reviewer flagged."""
    return next((kind for phrase, kind in MISSED_KINDS if phrase in reason), reason[:60])


def flag_kind(reason: str) -> str:
    """The kind of an unsupported verdict on a sentence of a fully supported answer."""
    return next((kind for phrase, kind in FLAG_KINDS if phrase in reason), reason[:60])


def correctness_kind(judged: Judgement, human: bool) -> str:
    """The kind of a correctness verdict the reviewer disagrees with."""
    reason = judged.matching.reason
    if "competing values" in reason:
        return "competing values"
    if "declines, but also gives" in reason:
        return "a decline that also gives an answer (no-answer question)"
    if reason.startswith("a no-answer question, and the answer declines"):
        return "a no-answer decline that goes on to answer"
    if judged.correct and not human:
        return "an accepted string stated in an answer that does not answer"
    return "the accepted answer in words no rule reads"


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
                flagged = any(sentence.text.strip() in u or u in sentence.text for u in label.unsupported_sentences)
                if flagged and sentence.supported is not False and not judged.unsupported_sentences:
                    kind = "read as no claim" if sentence.supported is None else missed_kind(sentence.reason)
                    counts["misses an unsupported claim: " + kind] += 1
                elif not label.unsupported_claim and sentence.supported is False:
                    counts["flags a supported claim: " + flag_kind(sentence.reason)] += 1
            if judged.correct != label.correct:
                counts["correctness: " + correctness_kind(judged, label.correct)] += 1
        print(f"== {labelled_set.name} {sum(counts.values())}")
        for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{n:6d} {kind}")


if __name__ == "__main__":
    main()

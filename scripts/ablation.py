"""Ablation of the judge: every labelled set re-judged with each rule switched off, Δκ per rule and set.

A rule switched off is not tried by the loop that runs its table; when every rule that could decide a claim is
off (S.words, the last, included), the claim is left undecided, leaning supported (``S.none``).

A rule stays in the judge when it earns its place on the worst set; this script says what each earns. For
every rule id of the judge's tables (the reading's roles, the support rules, the correctness rules), every
answer of every set in ``labels/sets.toml`` is judged again by the default judge with that one rule off
(``judge_answer(..., disabled={id})``), and Cohen's κ against the pass-1 labels is compared with the full
judge's: correctness and "has an unsupported claim", per set. The table it prints (``--markdown``) is the one
in docs/judge.md, "What each rule earns". Its last column is the worst *development* set's: a held-out set
(``held_out = true`` in the set file) is measured beside the others and never decides whether a rule stays.

    .venv/bin/python scripts/ablation.py                       # every rule (about 8 minutes on 2 cores)
    .venv/bin/python scripts/ablation.py --rule S.negation     # one rule
    .venv/bin/python scripts/ablation.py --markdown            # the docs' table
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.inputs.answer_logs import LoggedAnswer, load_answer_log  # noqa: E402
from evalgate_lib.inputs.gold import GoldQuestion, load_gold  # noqa: E402
from evalgate_lib.inputs.labelled_sets import load_sets  # noqa: E402
from evalgate_lib.inputs.labels import Label, load_labels, match_labels  # noqa: E402
from evalgate_lib.judging.answer import judge_answer  # noqa: E402
from evalgate_lib.judging.correctness import CLAIM_RULES  # noqa: E402
from evalgate_lib.judging.reading import ROLE_RULES, SENTENCE_RULES  # noqa: E402
from evalgate_lib.judging.support import SUPPORT_RULES  # noqa: E402
from evalgate_lib.statistics.agreement_measures import cohen_kappa, confusion  # noqa: E402
from evalgate_lib.statistics.run_agreement import split_passes  # noqa: E402

SETS = ROOT / "labels" / "sets.toml"


@dataclass(frozen=True)
class LabelledAnswer:
    answer: LoggedAnswer
    question: GoldQuestion
    label: Label
    config: str = ""


def held_out(path: Path = SETS) -> set[str]:
    """The sets measured only (``held_out = true``): never part of a choice made by the worst set."""
    return {s.name for s in load_sets(path) if s.held_out}


def labelled_sets(path: Path = SETS) -> list[tuple[str, list[LabelledAnswer]]]:
    """Every set's pass-1-labelled answers, in the set's order."""
    out = []
    for labelled in load_sets(path):
        questions = {q.id: q for q in load_gold(labelled.gold)}
        answers = {
            (config, a.question_id): a
            for config, log in labelled.answers
            for a in load_answer_log(log, list(questions)).answers
        }
        match = match_labels(load_labels(labelled.labels), {key: a.answer for key, a in answers.items()})
        reference, _ = split_passes(match.matched)
        out.append(
            (
                labelled.name,
                [LabelledAnswer(answers[k], questions[k[1]], reference[k], k[0]) for k in answers if k in reference],
            )
        )
    return out


def kappas(items: Sequence[LabelledAnswer], disabled: frozenset[str] = frozenset()) -> tuple[float, float]:
    """``(correctness κ, unsupported-claim κ)`` of the default judge with ``disabled`` rules off."""
    auto_correct, auto_unsupported = [], []
    for item in items:
        a, q = item.answer, item.question
        top = a.passages[0].score if a.passages and a.passages[0].score is not None else 1.0
        verdict = judge_answer(
            question=q.question,
            answer=a.answer,
            passages=[(p.title or p.doc_id or "", p.text) for p in a.passages],
            accept=q.accept,
            answerable=q.answerable,
            top_similarity=top,
            disabled=disabled,
        )
        auto_correct.append(verdict.correct)
        auto_unsupported.append(bool(verdict.unsupported_sentences))
    correct = cohen_kappa(confusion(auto_correct, [i.label.correct for i in items]))
    unsupported = cohen_kappa(confusion(auto_unsupported, [i.label.unsupported_claim for i in items]))
    return correct or 0.0, unsupported or 0.0


def rule_ids() -> list[str]:
    """Every rule the judge can switch off, in table order: the reading's roles, support, correctness."""
    return [r.id for r in SENTENCE_RULES] + [r.id for r in ROLE_RULES] + list(SUPPORT_RULES) + list(CLAIM_RULES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", action="append", help="only this rule id (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="print the docs' Markdown table")
    args = parser.parse_args(argv)
    sets = labelled_sets()
    full = {name: kappas(items) for name, items in sets}
    names = [name for name, _ in sets]
    development = [n for n in names if n not in held_out()] or names
    rows = []
    for rule in args.rule or rule_ids():
        off = {name: kappas(items, frozenset({rule})) for name, items in sets}
        du = [full[n][1] - off[n][1] for n in names]  # what the rule earns: κ with it minus κ without it
        dc = [full[n][0] - off[n][0] for n in names]
        worst_u = min(development, key=lambda n: full[n][1])  # the worst development set decides
        worst_c = min(development, key=lambda n: full[n][0])
        rows.append((rule, du, dc, full[worst_u][1] - off[worst_u][1], full[worst_c][0] - off[worst_c][0]))
        if not args.markdown:
            print(
                f"{rule:16} unsupported Δκ "
                + " ".join(f"{d:+.2f}" for d in du)
                + "   correct Δκ "
                + " ".join(f"{d:+.2f}" for d in dc),
                flush=True,
            )
    if args.markdown:
        short = [n.replace(" / demo model", " demo").replace(" / fluent", " fl.") for n in names]
        short = [f"{s} (held out)" if n not in development else s for s, n in zip(short, names, strict=True)]
        print("| rule | " + " | ".join(short) + " | worst development set |")
        print("|---|" + "---|" * (len(names) + 1))
        print(
            "| (full judge: unsupported κ / correct κ) | "
            + " | ".join(f"{full[n][1]:.2f} / {full[n][0]:.2f}" for n in names)
            + " | |"
        )
        for rule, du, dc, wu, wc in rows:
            cells = [f"{u:+.2f} / {c:+.2f}" for u, c in zip(du, dc, strict=True)]
            print(f"| `{rule}` | " + " | ".join(cells) + f" | {wu:+.2f} / {wc:+.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

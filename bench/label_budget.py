"""How far a label budget corrects the before/after delta: coverage, width and bias, measured on the labelled sets.

On every shipped labelled set every answer is labelled, so the *all-labels delta* (what a census
of labels says) is known. This script judges every answer from its strings (the default judge,
:func:`evalgate_lib.statistics.set_agreement.judge_logged`, as ``evalgate agreement --sets`` does),
then, for each pair of configurations and each budget (10 %, 20 %, 40 % of the pair's answers),
draws ``--plans`` sampling plans with the code ``evalgate sample`` uses
(:func:`evalgate_lib.statistics.sampling_plan.draw_strata`, seeds 0 … plans − 1) and computes the
corrected paired delta (:func:`evalgate_lib.statistics.label_estimates.corrected_delta`) from the
drawn questions' labels. It reports, per metric:

* ``cover``: the share of plans whose 95 % label-sampling interval holds the all-labels delta
  (target ≥ 93 %); ``cover gate``: the same for the interval the gate uses (label + question sampling);
* ``width``: the mean width of the corrected label-sampling interval, and ``classical`` of the
  labels-only interval at the same budget (same plans, the judge ignored): their ratio is what the
  judge buys;
* ``judge bias``: judge-only delta − all-labels delta (no sampling: the judge's error on the delta);
  ``bias``: the corrected delta's mean error over the plans.

Run it from the repository root (one command, about 2.5 minutes on 2 cores; re-run it whenever the
judge changes)::

    .venv/bin/python bench/label_budget.py            # --plans 1000 --json bench/out/label_budget.json
    .venv/bin/python bench/label_budget.py --markdown bench/out/label_budget.json   # the docs' table of that run
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.inputs.answer_logs import load_answer_log  # noqa: E402
from evalgate_lib.inputs.gold import load_gold  # noqa: E402
from evalgate_lib.inputs.labelled_sets import load_sets  # noqa: E402
from evalgate_lib.inputs.labels import load_labels, match_labels  # noqa: E402
from evalgate_lib.statistics.label_correction import CORRECTED  # noqa: E402
from evalgate_lib.statistics.label_estimates import StratumValues, corrected_delta  # noqa: E402
from evalgate_lib.statistics.metrics import in_population  # noqa: E402
from evalgate_lib.statistics.run_agreement import split_passes  # noqa: E402
from evalgate_lib.statistics.sampling_plan import draw_strata  # noqa: E402
from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, judge_logged  # noqa: E402

BUDGETS = (0.1, 0.2, 0.4)
METRICS = ("accuracy_answerable", "hallucination", "unsupported_claim")
#: Which configurations to compare: the demo sets' own pair; the fluent styles, strict as the baseline.
PAIRS = {"demo model": (("baseline", "candidate"),), "fluent": (("strict", "chatty"), ("strict", "cited"))}


@dataclass(frozen=True)
class Question:
    """One question of a pair: its type, review-queue membership, and per config the judge's and the label's values."""

    qid: str
    type: str
    review: bool
    judge: dict[str, dict[str, float]]
    human: dict[str, dict[str, float]]


def judged_questions(labelled_set, pair: tuple[str, str]) -> list[Question]:  # noqa: ANN001 - LabelledSet
    """Every question of the set with both configs answered and labelled, judged by the default judge."""
    questions = load_gold(labelled_set.gold)
    by_id = {q.id: q for q in questions}
    logs = {c: load_answer_log(path, [q.id for q in questions]) for c, path in labelled_set.answers if c in pair}
    answers = {(c, a.question_id): a for c, log in logs.items() for a in log.answers}
    match = match_labels(load_labels(labelled_set.labels), {k: a.answer for k, a in answers.items()})
    reference, _ = split_passes(match.matched)
    judge = DEFAULT_JUDGES[0]
    out = []
    for q in questions:
        if not all((c, q.id) in answers and (c, q.id) in reference for c in pair):
            continue
        judged = {c: judge_logged(answers[(c, q.id)], by_id[q.id], judge) for c in pair}
        out.append(
            Question(
                q.id,
                "answerable" if q.answerable else "no_answer",
                any(j.review for j in judged.values()),
                {c: {m.key: float(m.judge(judged[c])) for m in CORRECTED} for c in pair},
                {c: {m.key: float(m.human(reference[(c, q.id)])) for m in CORRECTED} for c in pair},
            )
        )
    return out


def _values(questions: list[Question], strata, metric, config: str) -> list[StratumValues]:  # noqa: ANN001
    by_id = {q.qid: q for q in questions}
    out = []
    for s in strata:

        def judge(qid: str) -> float | None:
            q = by_id[qid]
            return q.judge[config][metric.key] if in_population(q, metric.population) else None

        def human(qid: str) -> float | None:
            q = by_id[qid]
            return q.human[config][metric.key] if in_population(q, metric.population) else None

        out.append(StratumValues(tuple(judge(q) for q in s.questions), tuple((judge(q), human(q)) for q in s.drawn)))
    return out


def measure(
    questions: list[Question], pair: tuple[str, str], share: float, plans: int, tuned: bool = False
) -> dict[str, dict]:
    """Coverage, widths and bias of every metric at one budget, over ``plans`` seeded plans."""
    base, cand = pair
    budget_questions = round(share * 2 * len(questions)) // 2
    review = {q.qid: q.review for q in questions}
    stats: dict[str, dict] = {}
    metrics = [m for m in CORRECTED if m.key in METRICS]
    drawn = [draw_strata(review, budget_questions, seed) for seed in range(plans)]
    for metric in metrics:
        census = corrected_delta(
            _values(questions, [_census(drawn[0])], metric, base), _values(questions, [_census(drawn[0])], metric, cand)
        )
        truth, judge_delta = census.estimate, census.judge_only
        cover = cover_gate = cover_classical = 0
        widths, classical, gate_widths, errors, undefined = [], [], [], [], 0
        for strata in drawn:
            try:
                est = corrected_delta(
                    _values(questions, strata, metric, base), _values(questions, strata, metric, cand), tuned=tuned
                )
            except ValueError:  # a stratum drew no question of this metric's population
                undefined += 1
                continue
            if est.label_se is None or est.ci_low is None:
                undefined += 1
                continue
            half = est.label_high - est.estimate  # type: ignore[operator]
            cover += abs(est.estimate - truth) <= half + 1e-9
            cover_gate += est.ci_low - 1e-9 <= truth <= est.ci_high + 1e-9  # type: ignore[operator]
            c_half = est.labels_only_label_half or 0.0
            cover_classical += abs(est.labels_only - truth) <= c_half + 1e-9
            widths.append(2 * half)
            classical.append(2 * c_half)
            gate_widths.append(est.ci_high - est.ci_low)  # type: ignore[operator]
            errors.append(est.estimate - truth)
        used = len(widths)
        stats[metric.key] = {
            "questions": census.n_population,
            "budget_questions": budget_questions,
            "truth": truth,
            "judge_bias": round(judge_delta - truth, 6),
            "plans": used,
            "undefined": undefined,
            "cover": cover / used if used else None,
            "cover_gate": cover_gate / used if used else None,
            "cover_classical": cover_classical / used if used else None,
            "width": sum(widths) / used if used else None,
            "classical_width": sum(classical) / used if used else None,
            "gate_width": sum(gate_widths) / used if used else None,
            "bias": sum(errors) / used if used else None,
        }
    return stats


def _census(strata):  # noqa: ANN001, ANN202
    from evalgate_lib.statistics.sampling_plan import PlanStratum

    every = tuple(q for s in strata for q in s.questions)
    return PlanStratum("all", every, every)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f}"


def _ratio(s: dict) -> str:
    """Width over classical width: what the judge buys (below 1: a narrower interval)."""
    return "—" if not s["classical_width"] else f"{s['width'] / s['classical_width']:.2f}"


def table(name: str, pair: tuple[str, str], share: float, stats: dict[str, dict], review: int, total: int) -> str:
    first = next(iter(stats.values()))
    head = (
        f"{name}: {pair[1]} − {pair[0]}, {total} questions ({review} in the review stratum), budget "
        f"{share:.0%} = {first['budget_questions']} questions ({2 * first['budget_questions']} answers)"
    )
    rows = [("metric", "all-labels Δ", "judge bias", "cover", "cover gate", "classical cover",
             "width", "classical width", "ratio", "bias", "plans")]  # fmt: skip
    for key, s in stats.items():
        rows.append((
            key, f"{s['truth'] * 100:+.1f}", f"{s['judge_bias'] * 100:+.1f}", _pct(s["cover"]), _pct(s["cover_gate"]),
            _pct(s["cover_classical"]), _pct(s["width"]), _pct(s["classical_width"]),
            _ratio(s), "—" if s["bias"] is None else f"{s['bias'] * 100:+.2f}",
            f"{s['plans']}" + (f" ({s['undefined']} n/a)" if s["undefined"] else ""),
        ))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  " + "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]  # fmt: skip
    return "\n".join([head, *lines])


def markdown(report: list[dict]) -> str:
    """The docs' table (docs/benchmark.md) of a saved run, so the published table is remade, not retyped."""
    lines = [
        "| set: candidate − baseline | budget (answers) | metric | all-labels Δ | judge bias | cover | "
        "cover, gate's interval | width | classical width | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in report:
        name = f"{entry['set']}: {entry['pair'][1]} − {entry['pair'][0]}"
        for key, s in entry["metrics"].items():
            lines.append(
                f"| {name} | {entry['budget']:.0%} ({2 * s['budget_questions']}) | {key} | {s['truth'] * 100:+.1f} | "
                f"{s['judge_bias'] * 100:+.1f} | {_pct(s['cover'])} % | {_pct(s['cover_gate'])} % | "
                f"{_pct(s['width'])} | {_pct(s['classical_width'])} | {_ratio(s)} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=Path, default=ROOT / "labels" / "sets.toml")
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--tuned", action="store_true", help="PPI++: tune the judge's weight λ (default: λ = 1)")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "label_budget.json")
    parser.add_argument("--markdown", type=Path, metavar="JSON", help="print the docs' table of a saved run and exit")
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())["results"]))
        return 0
    started = time.perf_counter()
    report = []
    for labelled_set in load_sets(args.sets):
        for pair in PAIRS[labelled_set.generator]:
            questions = judged_questions(labelled_set, pair)
            review = sum(q.review for q in questions)
            for share in BUDGETS:
                stats = measure(questions, pair, share, args.plans, args.tuned)
                print(table(labelled_set.name, pair, share, stats, review, len(questions)), flush=True)
                print()
                report.append({"set": labelled_set.name, "pair": list(pair), "budget": share, "metrics": stats})
    elapsed = time.perf_counter() - started
    print(f"{args.plans} plans per set, pair and budget; {elapsed:.1f} s")
    print("cover: the 95% label-sampling interval holds the all-labels delta; cover gate: the gate's interval "
          "(label + question sampling) does; width, classical width: mean widths in points of the corrected and "
          "the labels-only label-sampling intervals; judge bias: judge-only minus all-labels delta; bias: the "
          "corrected delta's mean error (points)")  # fmt: skip
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"plans": args.plans, "seconds": round(elapsed, 1), "results": report},
                                    indent=1) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How far a label budget corrects the before/after delta, and whether its gate decides as all labels would.

On every shipped labelled set every answer is labelled, so the *all-labels delta* and the *all-labels
verdict* (what a census of labels says) are known. This script judges every answer from its strings
(the default judge, :func:`evalgate_lib.statistics.set_agreement.judge_logged`, as ``evalgate agreement
--sets`` does), then, for each pair of configurations and each budget (10 %, 20 %, 40 % of the pair's
answers), draws ``--plans`` sampling plans with the code ``evalgate sample`` uses
(:func:`evalgate_lib.statistics.sampling_plan.draw_strata`, seeds 0 … plans − 1) and, from the drawn
questions' labels, computes what the gate computes. Per metric and cell:

* ``cover``: the share of plans whose printed corrected interval (the PPI++ estimate's 95 % t interval,
  label and question sampling) holds the all-labels delta (target ≥ 93 %); ``cover, label part``: the
  same for the label-sampling part alone;
* ``width``, ``labels-only width``: mean widths of the corrected interval and of the labels-only
  interval of the same plan (λ = 0); ``wider than labels alone``: the share of plans whose corrected
  interval is the wider one, and by how much at most (target 0 %);
* for the metrics a shipped gate rule reads (``configs/gate.toml``: accuracy on answerable, refusal
  accuracy, hallucination): ``labels decide``, the share of plans whose labels decide the rule exactly
  (:func:`evalgate_lib.statistics.label_bounds.decide_by_labels`; otherwise the judge's delta does);
  ``verdict = all labels``, the share whose corrected verdict equals the all-labels one (goal ≥ 95 %);
  ``false FAIL``, where the all-labels verdict passes, the share that fail (≤ 5 %); and the count of
  decided deltas whose printed interval and p disagree (excludes 0 but p ≥ α, or the reverse: must be 0);
* ``judge bias``: judge-only delta − all-labels delta; ``bias``: the corrected delta's mean error.

Run it from the repository root (one command, minutes on 2 cores; re-run it whenever the judge or the
statistics change)::

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
from evalgate_lib.statistics.gate import census_rule, load_gate  # noqa: E402
from evalgate_lib.statistics.label_bounds import CANNOT_TELL, FAIL, PairStratum, decide_by_labels  # noqa: E402
from evalgate_lib.statistics.label_correction import CORRECTED  # noqa: E402
from evalgate_lib.statistics.label_estimates import StratumValues, corrected_delta  # noqa: E402
from evalgate_lib.statistics.metrics import in_population  # noqa: E402
from evalgate_lib.statistics.paired_tests import mcnemar_interval, mcnemar_p  # noqa: E402
from evalgate_lib.statistics.run_agreement import split_passes  # noqa: E402
from evalgate_lib.statistics.sampling_plan import draw_strata  # noqa: E402
from evalgate_lib.statistics.set_agreement import DEFAULT_JUDGES, judge_logged  # noqa: E402

BUDGETS = (0.1, 0.2, 0.4)
METRICS = ("accuracy_answerable", "refusal_accuracy", "hallucination", "unsupported_claim")
#: The gate whose rules the verdict columns read (its rules on the metrics above).
GATE = ROOT / "configs" / "gate.toml"
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


def _pairs(questions: list[Question], strata, metric, pair: tuple[str, str], labelled: set[str]):  # noqa: ANN001, ANN202
    """Each stratum's population questions as (judge pair, label pair or None): what the exact decision reads."""
    base, cand = pair
    by_id = {q.qid: q for q in questions}
    out = []
    for s in strata:
        ids = [q for q in s.questions if in_population(by_id[q], metric.population)]
        judge = tuple((bool(by_id[q].judge[base][metric.key]), bool(by_id[q].judge[cand][metric.key])) for q in ids)
        labels = tuple(
            (bool(by_id[q].human[base][metric.key]), bool(by_id[q].human[cand][metric.key])) if q in labelled else None
            for q in ids
        )
        out.append(PairStratum(judge, labels))
    return out


def _counts(questions: list[Question], metric, pair: tuple[str, str], side: str) -> tuple[int, int, int]:  # noqa: ANN001
    """(b, c, n) of the judge's (``side="judge"``) or the labels' (``"human"``) verdicts over the population."""
    base, cand = pair
    b = c = n = 0
    for q in questions:
        if not in_population(q, metric.population):
            continue
        values = getattr(q, side)
        x, y = bool(values[base][metric.key]), bool(values[cand][metric.key])
        n += 1
        b += x and not y
        c += y and not x
    return b, c, n


def _t_fails(est, rule, n: int) -> bool:  # noqa: ANN001
    """What a gate deciding on the estimate's t test would say (the design this one replaced): a breach, t p < α."""
    delta = est.estimate * n if rule.count else est.estimate
    breached = delta > rule.limit if rule.bad == (False, True) else delta < -rule.limit
    return breached and (rule.mode == "point" or est.p_value < rule.alpha)


def _agrees(low: float, high: float, p: float, alpha: float) -> bool:
    """The printed interval excludes 0 exactly when the deciding p is below alpha."""
    return (low > 0 or high < 0) == (p < alpha)


def measure(
    questions: list[Question], pair: tuple[str, str], share: float, plans: int, tuned: bool = True
) -> dict[str, dict]:
    """Coverage, widths, bias and the gate's verdicts of every metric at one budget, over ``plans`` seeded plans."""
    base, cand = pair
    budget_questions = round(share * 2 * len(questions)) // 2
    review = {q.qid: q.review for q in questions}
    stats: dict[str, dict] = {}
    metrics = [m for m in CORRECTED if m.key in METRICS]
    drawn = [draw_strata(review, budget_questions, seed) for seed in range(plans)]
    gate = load_gate(GATE)
    rules = {r.metric: census_rule(r, gate) for r in gate.rules}
    for metric in metrics:
        b_l, c_l, n = _counts(questions, metric, pair, "human")
        if n == 0:
            continue
        census = corrected_delta(
            _values(questions, [_census(drawn[0])], metric, base), _values(questions, [_census(drawn[0])], metric, cand)
        )
        truth, judge_delta = census.estimate, census.judge_only
        rule = rules.get(metric.key)
        verdicts = None
        if rule is not None:
            b_j, c_j, _ = _counts(questions, metric, pair, "judge")
            census_fails, judge_fails = rule.fails(b_l, c_l, n), rule.fails(b_j, c_j, n)
            low, high = mcnemar_interval(b_j, c_j, n, 1 - rule.alpha)
            verdicts = {"census": census_fails, "judge": judge_fails, "decided": 0, "agree": 0, "false_fail": 0,
                        "mismatch": int(not _agrees(low, high, mcnemar_p(b_j, c_j), rule.alpha)),
                        "t_agree": 0, "t_false_fail": 0}  # fmt: skip
        cover = cover_label = 0
        widths, lo_widths, errors, wider, excess, undefined = [], [], [], 0, 0.0, 0
        for strata in drawn:
            if verdicts is not None:
                labelled = {q for s in strata for q in s.drawn}
                decision = decide_by_labels(_pairs(questions, strata, metric, pair, labelled), rule)
                fails = verdicts["judge"] if decision.outcome == CANNOT_TELL else decision.outcome == FAIL
                if decision.outcome != CANNOT_TELL:
                    verdicts["decided"] += 1
                    verdicts["mismatch"] += not _agrees(decision.low, decision.high, decision.p_value, rule.alpha)
                verdicts["agree"] += fails == verdicts["census"]
                verdicts["false_fail"] += fails and not verdicts["census"]
            try:
                est = corrected_delta(
                    _values(questions, strata, metric, base), _values(questions, strata, metric, cand), tuned=tuned
                )
            except ValueError:  # a stratum drew no question of this metric's population: not corrected
                est = None
            if verdicts is not None:  # the t test of the estimate, for comparison (not what the gate does)
                t_fails = verdicts["judge"] if est is None or est.p_value is None else _t_fails(est, rule, n)
                verdicts["t_agree"] += t_fails == verdicts["census"]
                verdicts["t_false_fail"] += t_fails and not verdicts["census"]
            if est is None:
                undefined += 1
                continue
            if est.ci_low is None or est.label_low is None or est.labels_only_low is None:
                undefined += 1
                continue
            cover += est.ci_low - 1e-9 <= truth <= est.ci_high + 1e-9  # type: ignore[operator]
            cover_label += est.label_low - 1e-9 <= truth <= est.label_high + 1e-9  # type: ignore[operator]
            width = est.ci_high - est.ci_low  # type: ignore[operator]
            lo_width = est.labels_only_high - est.labels_only_low  # type: ignore[operator]
            widths.append(width)
            lo_widths.append(lo_width)
            if width > lo_width + 1e-9:
                wider += 1
                excess = max(excess, width - lo_width)
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
            "cover_label": cover_label / used if used else None,
            "width": sum(widths) / used if used else None,
            "labels_only_width": sum(lo_widths) / used if used else None,
            "wider_share": wider / used if used else None,
            "wider_max": excess,
            "bias": sum(errors) / used if used else None,
            "verdict": None
            if verdicts is None
            else {
                "all_labels": "FAIL" if verdicts["census"] else "PASS",
                "judge": "FAIL" if verdicts["judge"] else "PASS",
                "labels_decide": verdicts["decided"] / plans,
                "agreement": verdicts["agree"] / plans,
                "false_fail": None if verdicts["census"] else verdicts["false_fail"] / plans,
                "interval_p_mismatches": verdicts["mismatch"],
                "t_agreement": verdicts["t_agree"] / plans,
                "t_false_fail": None if verdicts["census"] else verdicts["t_false_fail"] / plans,
            },
        }
    return stats


def _census(strata):  # noqa: ANN001, ANN202
    from evalgate_lib.statistics.sampling_plan import PlanStratum

    every = tuple(q for s in strata for q in s.questions)
    return PlanStratum("all", every, every)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f}"


def _wider(s: dict) -> str:
    """ "0.0 %", or "3.1 % (up to +4.2)" points."""
    if s["wider_share"] is None:
        return "—"
    said = f"{s['wider_share'] * 100:.1f} %"
    return said + (f" (up to +{s['wider_max'] * 100:.1f})" if s["wider_share"] else "")


def _verdict_cells(s: dict) -> tuple[str, ...]:
    v = s["verdict"]
    if v is None:
        return ("—",) * 7
    return (
        f"{v['all_labels']} (judge {v['judge']})",
        _pct(v["labels_decide"]),
        _pct(v["agreement"]),
        _pct(v["false_fail"]),
        str(v["interval_p_mismatches"]),
        _pct(v["t_agreement"]),
        _pct(v["t_false_fail"]),
    )


def table(name: str, pair: tuple[str, str], share: float, stats: dict[str, dict], review: int, total: int) -> str:
    first = next(iter(stats.values()))
    head = (
        f"{name}: {pair[1]} − {pair[0]}, {total} questions ({review} in the review stratum), budget "
        f"{share:.0%} = {first['budget_questions']} questions ({2 * first['budget_questions']} answers)"
    )
    rows = [("metric", "all-labels Δ", "judge bias", "cover", "cover label", "width", "labels-only", "wider",
             "verdict", "labels decide", "= all labels", "false FAIL", "mismatch", "t: = all", "t: false FAIL",
             "bias", "plans")]  # fmt: skip
    for key, s in stats.items():
        rows.append((
            key, f"{s['truth'] * 100:+.1f}", f"{s['judge_bias'] * 100:+.1f}", _pct(s["cover"]), _pct(s["cover_label"]),
            _pct(s["width"]), _pct(s["labels_only_width"]), _wider(s), *_verdict_cells(s),
            "—" if s["bias"] is None else f"{s['bias'] * 100:+.2f}",
            f"{s['plans']}" + (f" ({s['undefined']} n/a)" if s["undefined"] else ""),
        ))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  " + "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]  # fmt: skip
    return "\n".join([head, *lines])


def markdown(report: list[dict]) -> str:
    """The docs' table (docs/benchmark.md) of a saved run, so the published table is remade, not retyped."""
    lines = [
        "| set: candidate − baseline | budget (answers) | metric | all-labels Δ | judge bias | cover | cover, label "
        "part | width | labels-only width | wider than labels alone (share, largest excess) | all-labels verdict "
        "(judge's) | labels decide | verdict = all labels | false FAIL | interval ≠ p | t test: = all labels | "
        "t test: false FAIL |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in report:
        name = f"{entry['set']}: {entry['pair'][1]} − {entry['pair'][0]}"
        for key, s in entry["metrics"].items():
            verdict, decide, agree, false_fail, mismatch, t_agree, t_false = _verdict_cells(s)

            def pc(x: str) -> str:
                return x if x == "—" else f"{x} %"

            lines.append(
                f"| {name} | {entry['budget']:.0%} ({2 * s['budget_questions']}) | {key} | {s['truth'] * 100:+.1f} | "
                f"{s['judge_bias'] * 100:+.1f} | {_pct(s['cover'])} % | {_pct(s['cover_label'])} % | "
                f"{_pct(s['width'])} | {_pct(s['labels_only_width'])} | {_wider(s)} | {verdict} | "
                f"{pc(decide)} | {pc(agree)} | {pc(false_fail)} | {mismatch} | {pc(t_agree)} | {pc(t_false)} |"
            )
    return "\n".join(lines)


def summary(report: list[dict]) -> list[str]:
    """The lines under the table: each target, and every cell that misses it."""
    cells = [(e, k, s) for e in report for k, s in e["metrics"].items()]

    def where(e: dict, k: str) -> str:
        return f"{e['set']} {e['pair'][1]}−{e['pair'][0]} {e['budget']:.0%} {k}"

    low_cover = [
        f"{where(e, k)} {_pct(s['cover'])} %" for e, k, s in cells if s["cover"] is not None and s["cover"] < 0.93
    ]
    wider = [f"{where(e, k)} {_wider(s)}" for e, k, s in cells if s["wider_share"]]
    judged = [(e, k, s) for e, k, s in cells if s["verdict"] is not None]
    disagree = [
        f"{where(e, k)} {_pct(s['verdict']['agreement'])} %" for e, k, s in judged if s["verdict"]["agreement"] < 0.95
    ]
    false_fail = [f"{where(e, k)} {_pct(s['verdict']['false_fail'])} %" for e, k, s in judged
                  if s["verdict"]["false_fail"] is not None and s["verdict"]["false_fail"] > 0.05]  # fmt: skip
    mismatches = sum(s["verdict"]["interval_p_mismatches"] for _, _, s in judged)
    t_false = [f"{where(e, k)} {_pct(s['verdict']['t_false_fail'])} %" for e, k, s in judged
               if s["verdict"]["t_false_fail"] is not None and s["verdict"]["t_false_fail"] > 0.05]  # fmt: skip
    t_disagree = sum(s["verdict"]["t_agreement"] < 0.95 for _, _, s in judged)
    return [
        f"cells: {len(cells)} (metric × pair × budget); with a gate rule: {len(judged)}",
        f"cover < 93 %: {len(low_cover)}" + ("" if not low_cover else ": " + "; ".join(low_cover)),
        f"corrected interval wider than labels alone: {len(wider)} cell(s)"
        + ("" if not wider else ": " + "; ".join(wider)),
        f"verdict = all labels < 95 %: {len(disagree)}" + ("" if not disagree else ": " + "; ".join(disagree)),
        f"false FAIL > 5 %: {len(false_fail)}" + ("" if not false_fail else ": " + "; ".join(false_fail)),
        f"decided deltas whose interval and p disagree: {mismatches}",
        f"for comparison, a gate on the estimate's t test: false FAIL > 5 % in {len(t_false)} cell(s)"
        + ("" if not t_false else ": " + "; ".join(t_false))
        + f"; verdict = all labels < 95 % in {t_disagree}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=Path, default=ROOT / "labels" / "sets.toml")
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--plain", action="store_true", help="plain PPI (λ = 1) instead of the width-minimising λ")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "label_budget.json")
    parser.add_argument("--markdown", type=Path, metavar="JSON", help="print the docs' table of a saved run and exit")
    args = parser.parse_args(argv)
    if args.markdown:
        saved = json.loads(args.markdown.read_text())["results"]
        print(markdown(saved))
        print()
        print("\n".join(summary(saved)))
        return 0
    started = time.perf_counter()
    report = []
    for labelled_set in load_sets(args.sets):
        for pair in PAIRS[labelled_set.generator]:
            questions = judged_questions(labelled_set, pair)
            review = sum(q.review for q in questions)
            for share in BUDGETS:
                stats = measure(questions, pair, share, args.plans, not args.plain)
                print(table(labelled_set.name, pair, share, stats, review, len(questions)), flush=True)
                print()
                report.append({"set": labelled_set.name, "pair": list(pair), "budget": share, "metrics": stats})
    elapsed = time.perf_counter() - started
    print(f"{args.plans} plans per set, pair and budget; {elapsed:.1f} s")
    print("cover: the printed 95% interval (label + question sampling) holds the all-labels delta; cover label: its "
          "label-sampling part does; width, labels-only: mean widths in points of the corrected and the labels-only "
          "intervals of the same plans; wider: share of plans whose corrected interval is wider (largest excess); "
          "verdict: the all-labels verdict of the gate rule (the judge's); labels decide: share of plans whose labels "
          "decide it exactly; = all labels: share whose verdict is the all-labels one; false FAIL: share that fail "
          "where all labels pass; mismatch: decided deltas whose interval and p disagree")  # fmt: skip
    print("\n".join(summary(report)))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"plans": args.plans, "seconds": round(elapsed, 1), "results": report},
                                    indent=1) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

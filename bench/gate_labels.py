"""Whether a plan's labels give the gate the all-labels verdict on pairs where the judge's verdict is wrong.

On the shipped labelled sets every answer is labelled, so a pair's *all-labels verdict* (the gate's
rule decided on a census of labels) and its *judge-only verdict* are both known. Where the judge is
right on the full pairs there is little to correct, so this script **builds** pairs where it is wrong:
for each gate rule on a labelled metric, subsets of the questions of one labelled pair (the demo
model's baseline → candidate, its five corpora pooled; the fluent styles' strict → chatty) whose
judge-only verdict differs from the all-labels verdict, in both directions:

* ``judge false-FAIL``: the judge alone fails the rule, a census of labels does not;
* ``judge false-PASS``: the judge alone does not fail it, a census of labels does.

A subset keeps every question on which the judge's error pushes the verdict the wanted way and draws
the others at random (seeded), until a subset of about ``--size`` questions shows the wanted
disagreement with at least ``--errors`` judge errors in the rule's population; the first ``--pairs``
found per rule and direction are measured. The full pairs (where the judge is right about the
verdict) are measured too.

For each pair and budget (20 %, 40 %, 60 % of its questions, both answers each) ``--plans`` sampling
plans are drawn with the code ``evalgate sample`` uses (:func:`evalgate_lib.statistics.sampling_plan.draw_strata`,
seeds 0 … plans − 1), and the rule is decided as ``evalgate gate`` decides it from a plan's labels
(:func:`evalgate_lib.statistics.label_estimates.corrected_delta` at its λ, the bootstrap of
:mod:`evalgate_lib.statistics.label_bootstrap`, the census bound as fallback, the judge last, each
through :func:`evalgate_lib.statistics.gate.decide_rule`: FAIL when the deciding interval lies wholly past the
rule's limit, PASS wholly within it, else INCONCLUSIVE; the all-labels verdict is the same rule on a census)
and, beside it, from the labels alone (the same bootstrap at λ = 0). Published per budget: **agreement**
with the all-labels verdict, the share of plans the **labels decided** (not the judge), and **false FAIL**
where the all-labels verdict is not FAIL (target ≤ α).

Run it from the repository root (minutes on 2 cores)::

    .venv/bin/python bench/gate_labels.py                 # --plans 200 --json bench/out/gate_labels.json
    .venv/bin/python bench/gate_labels.py --markdown bench/out/gate_labels.json   # the docs' tables
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from label_budget import PAIRS, Question, judged_questions  # noqa: E402

from evalgate_lib.inputs.labelled_sets import load_sets  # noqa: E402
from evalgate_lib.statistics.gate import (  # noqa: E402
    GateConfig,
    Rule,
    census_rule,
    decide_rule,
    exact_stat,
    limit_of,
    load_gate,
    margin_interval,
)
from evalgate_lib.statistics.label_bootstrap import bootstrap_interval, bootstrap_replicates, plan_figure  # noqa: E402
from evalgate_lib.statistics.label_bounds import CANNOT_TELL, PairStratum, decide_by_labels  # noqa: E402
from evalgate_lib.statistics.label_bounds import FAIL as LABELS_FAIL  # noqa: E402
from evalgate_lib.statistics.label_bounds import PASS as LABELS_PASS  # noqa: E402
from evalgate_lib.statistics.label_correction import CORRECTED, LabelledMetric  # noqa: E402
from evalgate_lib.statistics.label_estimates import StratumValues, corrected_delta, paired_values  # noqa: E402
from evalgate_lib.statistics.metrics import METRICS, in_population  # noqa: E402
from evalgate_lib.statistics.paired_tests import mcnemar_p  # noqa: E402
from evalgate_lib.statistics.sampling_plan import draw_strata  # noqa: E402

BUDGETS = (0.2, 0.4, 0.6)
#: The plan's deciding interval: the gate's hull (of the stratified percentile bootstrap and the floored t interval),
#: or, to measure whether the hull is more cautious than FAIL-past-the-limit needs, either side of it alone.
INTERVALS = ("hull", "bootstrap", "t")
GATE = ROOT / "configs" / "gate.toml"
COUNTS = {m.key for m in CORRECTED if m.kind == "count"}
FAIL = "FAIL"


def outcome(rule: Rule, delta: float, stat: dict, gate: GateConfig) -> str:
    """The rule's verdict as :func:`~evalgate_lib.statistics.gate.judge` reaches it: FAIL, PASS or INCONCLUSIVE
    (:func:`~evalgate_lib.statistics.gate.decide_rule` on :func:`~evalgate_lib.statistics.gate.margin_interval`:
    FAIL when the interval lies wholly past the limit, PASS wholly within it)."""
    kind = "count" if rule.metric in COUNTS else "rate"
    margin = margin_interval(stat, kind, gate.alpha, limit_of(rule))
    return decide_rule(rule, delta, margin, gate.mode)[2]


def _census_stat(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str], side: str,
                 gate: GateConfig) -> tuple[float, dict] | None:  # fmt: skip
    """A census's delta and its exact statistic (Tango's interval, McNemar's p), or None with no question."""
    base, cand = pair
    b = c = n = 0
    for q in questions:
        if in_population(q, metric.population):
            values = getattr(q, side)
            x, y = bool(values[base][metric.key]), bool(values[cand][metric.key])
            n, b, c = n + 1, b + (x and not y), c + (y and not x)
    if n == 0:
        return None
    count = metric.kind == "count"
    delta = float(c - b) if count else round((c - b) / n, 6)
    return delta, exact_stat(b, c, n, count, 1.0 - gate.alpha, mcnemar_p(b, c))


def census(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str], side: str,
           rule: Rule, gate: GateConfig) -> str:  # fmt: skip
    """The verdict of a census of the judge's (``side="judge"``) or the labels' (``"human"``) verdicts."""
    found = _census_stat(questions, metric, pair, side, gate)
    return "INCONCLUSIVE" if found is None else outcome(rule, found[0], found[1], gate)


def census_margin(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str], rule: Rule,
                  gate: GateConfig) -> tuple[float, float, float, float] | None:  # fmt: skip
    """The labels' census against the rule's limit: ``(delta, interval low, interval high, clearance)``, the
    clearance being how far the interval's nearer end lies past the limit (FAIL side, positive) or within it (PASS
    side, negative), in the metric's unit. A plan's interval carries the census' question sampling and its own
    label sampling besides, so a plan can only repeat a census verdict whose interval clears the limit by more than
    the label sampling adds: this is the figure the agreement of a pair follows."""
    found = _census_stat(questions, metric, pair, "human", gate)
    if found is None:
        return None
    delta, stat = found
    margin = margin_interval(stat, "count" if rule.metric in COUNTS else "rate", gate.alpha, limit_of(rule))
    low, high = margin["ci_low"], margin["ci_high"]
    return delta, low, high, clearance(low, high, limit_of(rule), rule.max_increase is not None)


def clearance(low: float, high: float, limit: float, worse_up: bool) -> float:
    """How far ``[low, high]`` clears ``limit``: its nearer end's distance past it (+, FAIL side) or within it (−,
    PASS side); 0 when the interval holds the limit. ``worse_up``: a rise is the bad move (the limit is a ceiling)."""
    past = (low - limit) if worse_up else (limit - high)
    within = (limit - high) if worse_up else (low - limit)
    return round(past if past > 0 else -within if within > 0 else 0.0, 4)


def all_labels_delta(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str]) -> float:
    """The labels' delta over the pair, in the metric's unit (a count: answers; a rate: a share)."""
    base, cand = pair
    moves = [q.human[cand][metric.key] - q.human[base][metric.key] for q in questions
             if in_population(q, metric.population)]  # fmt: skip
    return float(sum(moves)) if metric.kind == "count" else sum(moves) / len(moves) if moves else 0.0


def census_breached(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str], rule: Rule) -> bool:
    """Whether the all-labels delta is past the rule's limit (a FAIL where it is not is a false FAIL by any test)."""
    base, cand = pair
    moves = [(q.human[base][metric.key], q.human[cand][metric.key]) for q in questions
             if in_population(q, metric.population)]  # fmt: skip
    change = sum(y - x for x, y in moves)
    if not moves:
        return False
    delta = float(change) if metric.kind == "count" else round(change / len(moves), 6)
    if rule.max_increase is not None:  # a rise is the bad move (a count, or a rate such as unsupported claims)
        return delta > float(rule.max_increase)
    return delta < -float(rule.max_drop)  # type: ignore[arg-type]


def _values(questions: list[Question], strata, metric: LabelledMetric, config: str) -> list[StratumValues]:  # noqa: ANN001
    by_id = {q.qid: q for q in questions}

    def value(qid: str, side: str) -> float | None:
        q = by_id[qid]
        return getattr(q, side)[config][metric.key] if in_population(q, metric.population) else None

    return [
        StratumValues(tuple(value(q, "judge") for q in s.questions),
                      tuple((value(q, "judge"), value(q, "human")) for q in s.drawn))  # fmt: skip
        for s in strata
    ]


def _pair_strata(questions: list[Question], strata, metric: LabelledMetric, pair: tuple[str, str]) -> list[PairStratum]:  # noqa: ANN001
    by_id = {q.qid: q for q in questions}
    base, cand = pair
    out = []
    for s in strata:
        drawn = set(s.drawn)
        ids = [q for q in s.questions if in_population(by_id[q], metric.population)]
        judge = tuple((bool(by_id[q].judge[base][metric.key]), bool(by_id[q].judge[cand][metric.key])) for q in ids)
        labels = tuple((bool(by_id[q].human[base][metric.key]), bool(by_id[q].human[cand][metric.key]))
                       if q in drawn else None for q in ids)  # fmt: skip
        out.append(PairStratum(judge, labels))
    return out


def plan_verdict(questions: list[Question], strata, metric: LabelledMetric, pair: tuple[str, str], rule: Rule,
                 gate: GateConfig, judge_verdict: str, labels_only: bool = False,
                 interval: str = "hull") -> tuple[str, bool, tuple[float, float] | None]:  # noqa: ANN001  # fmt: skip
    """``(verdict, decided by the labels, the deciding interval)`` of one plan, as the gate decides a rule from a
    plan's labels (the interval ``None`` where the judge decided). ``interval``: ``hull`` (the gate's), or a
    variant measured against it (:data:`INTERVALS`)."""
    base = _values(questions, strata, metric, pair[0])
    cand = _values(questions, strata, metric, pair[1])
    try:
        est = corrected_delta(base, cand)
    except ValueError:  # a stratum drew no question of the population: not corrected, the judge decides
        return judge_verdict, False, None
    power = 0.0 if labels_only else est.power
    reps = bootstrap_replicates(paired_values(base, cand), power)
    count = metric.kind == "count"
    if reps is not None:
        estimate = est.labels_only if labels_only else est.estimate
        if labels_only:  # the labels alone: their own bootstrap (λ = 0), no judge to widen it with
            fig = bootstrap_interval(reps, 1.0 - gate.alpha, est.n_population if count else 1)
        else:
            # the gate's hull; a variant keeps one side of it: the bootstrap alone (no t), or the floored t interval
            # alone (one replicate at the estimate: the percentile interval is a point inside the t interval)
            kept = [est.estimate] if interval == "t" else reps
            se = None if interval == "bootstrap" else est.total_se
            fig = plan_figure(kept, est.estimate, se, est.total_df, 1.0 - gate.alpha,
                              est.n_population if count else 1)  # fmt: skip
        delta = round(estimate * est.n_population, 4) if count else estimate
        stat = {"ci_low": fig.ci_low, "ci_high": fig.ci_high, "p_value": fig.p_value, "confidence": fig.confidence}
        return outcome(rule, delta, stat, gate), True, (fig.ci_low, fig.ci_high)
    decision = decide_by_labels(_pair_strata(questions, strata, metric, pair), census_rule(rule, gate), False)
    if decision.outcome == CANNOT_TELL:
        return judge_verdict, False, None
    verdict = {LABELS_FAIL: FAIL, LABELS_PASS: "PASS"}.get(decision.outcome, "INCONCLUSIVE")
    return verdict, True, (decision.margin_low, decision.margin_high)


def rule_rises(metric: LabelledMetric) -> bool:
    """Whether a rise of the metric is the bad move (a flag count, or a rate of faults such as unsupported claims)."""
    return next(m for m in METRICS if m.key == metric.key).lower_is_better


def _errors(q: Question, metric: LabelledMetric, pair: tuple[str, str]) -> tuple[bool, bool]:
    """Whether the judge's error on ``q`` pushes toward FAIL, toward PASS (a rule on a bad move)."""
    base, cand = pair
    j = (q.judge[base][metric.key], q.judge[cand][metric.key])
    h = (q.human[base][metric.key], q.human[cand][metric.key])
    score = {(1.0, 0.0): -1, (0.0, 1.0): 1}
    judged, labelled = score.get(j, 0), score.get(h, 0)
    if rule_rises(metric):  # a rule on a rise (a count, the unsupported-claim rate): its bad move is a rise
        judged, labelled = -judged, -labelled
    return judged < labelled, judged > labelled


def build_pairs(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str], rule: Rule,
                gate: GateConfig, size: int, errors: int, wanted: int,
                seed: int = 0) -> dict[str, list[list[Question]]]:  # fmt: skip
    """Up to ``wanted`` subsets per direction whose judge-only verdict is wrong (module docstring)."""
    rng = np.random.default_rng(seed)
    found: dict[str, list[list[Question]]] = {"judge false-FAIL": [], "judge false-PASS": []}
    seen: set[frozenset[str]] = set()
    for direction, index in (("judge false-FAIL", 0), ("judge false-PASS", 1)):
        push = [q for q in questions if in_population(q, metric.population) and _errors(q, metric, pair)[index]]
        if len(push) < errors:
            continue
        others = [q for q in questions if q not in push]
        for _ in range(4000):
            keep = [push[i] for i in rng.permutation(len(push))[: rng.integers(errors, len(push) + 1)]]
            fill = [others[i] for i in rng.permutation(len(others))[: max(0, size - len(keep))]]
            chosen = sorted(keep + fill, key=lambda q: q.qid)
            ids = frozenset(q.qid for q in chosen)
            if ids in seen:
                continue
            judge, labels = (census(chosen, metric, pair, side, rule, gate) for side in ("judge", "human"))
            if judge != labels and (judge == FAIL) == (index == 0):
                seen.add(ids)
                found[direction].append(chosen)
                if len(found[direction]) >= wanted:
                    break
    return found


def measure(questions: list[Question], metric: LabelledMetric, pair: tuple[str, str], rule: Rule, gate: GateConfig,
            plans: int, interval: str = "hull") -> dict:  # fmt: skip
    """Agreement, labels-decided and false-FAIL shares per budget, and how often the deciding interval holds the
    all-labels delta, for the gate and for the labels alone."""
    truth = census(questions, metric, pair, "human", rule, gate)
    target = all_labels_delta(questions, metric, pair)
    judge = census(questions, metric, pair, "judge", rule, gate)
    review = {q.qid: q.review for q in questions}
    refusals = [q.qid for q in questions if q.type == "no_answer"]
    out = {"questions": len(questions), "all_labels": truth, "judge_only": judge,
           "census_within_limit": not census_breached(questions, metric, pair, rule), "budgets": {}}  # fmt: skip
    for share in BUDGETS:
        budget = max(2, round(share * len(questions)))
        cells = {"gate": [0, 0, 0, 0, 0], "labels only": [0, 0, 0, 0, 0]}
        for seed in range(plans):
            strata = draw_strata(review, budget, seed, no_answer=refusals)
            for name, alone in (("gate", False), ("labels only", True)):
                verdict, decided, bounds = plan_verdict(questions, strata, metric, pair, rule, gate, judge, alone,
                                                        interval)  # fmt: skip
                cell = cells[name]
                cell[0] += verdict == truth
                cell[1] += decided
                cell[2] += verdict == FAIL and truth != FAIL
                if bounds is not None:
                    cell[3] += 1
                    cell[4] += bounds[0] - 1e-9 <= target <= bounds[1] + 1e-9
        out["budgets"][f"{share:.0%}"] = {
            name: {"agreement": a / plans, "labels_decided": d / plans,
                   "false_fail": None if truth == FAIL else f / plans,
                   "cover": None if not n else c / n}  # fmt: skip
            for name, (a, d, f, n, c) in cells.items()
        }
    return out


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.1f}"


def markdown(results: list[dict]) -> str:
    """One table: a row per pair and budget, the gate's figures beside the labels-only ones."""
    head = ("| pair | rule | kind | questions | all labels (judge only) | census within limit | budget | agreement "
            "| labels decided | false FAIL | cover | labels-only agreement | labels-only false FAIL "
            "| labels-only cover |")  # fmt: skip
    rows = [head, "|" + "---|" * 14]
    for r in results:
        for budget, cell in r["budgets"].items():
            g, lo = cell["gate"], cell["labels only"]
            rows.append(
                f"| {r['name']} | {r['metric']} | {r['kind']} | {r['questions']} "
                f"| {r['all_labels']} ({r['judge_only']}) | {'yes' if r['census_within_limit'] else 'no'} "
                f"| {budget} | {_pct(g['agreement'])} | {_pct(g['labels_decided'])} | {_pct(g['false_fail'])} "
                f"| {_pct(g['cover'])} | {_pct(lo['agreement'])} | {_pct(lo['false_fail'])} | {_pct(lo['cover'])} |"
            )
    return "\n".join(rows)


def summary(results: list[dict]) -> str:
    """The issue's criteria per budget: agreement on the pairs where the judge false-FAILs, false-PASSes or is
    right (the smallest over pairs, and the mean), and the largest false-FAIL share where the census is within
    its limit; the gate's beside the labels alone."""
    lines = ["| criterion | budget | gate: min (mean) | labels only: min (mean) |", "|---|---|---|---|"]
    kinds = (("agreement, judge false-FAIL", "judge false-FAIL"), ("agreement, judge false-PASS", "judge false-PASS"),
             ("agreement, judge right", "judge right"))  # fmt: skip
    for budget in (f"{b:.0%}" for b in BUDGETS):
        for title, kind in kinds:
            cells = []
            for side in ("gate", "labels only"):
                values = [r["budgets"][budget][side]["agreement"] for r in results if r["kind"] == kind]
                mean = sum(values) / len(values) if values else 0.0
                cells.append("—" if not values else f"{min(values) * 100:.0f} % ({mean * 100:.0f} %)")
            lines.append(f"| {title} | {budget} | {cells[0]} | {cells[1]} |")
        cells = []
        for side in ("gate", "labels only"):
            values = [r["budgets"][budget][side]["false_fail"] for r in results if r["census_within_limit"]
                      and r["budgets"][budget][side]["false_fail"] is not None]  # fmt: skip
            cells.append("—" if not values else f"{max(values) * 100:.0f} % (max)")
        lines.append(f"| FAIL where the census delta is within its limit | {budget} | {cells[0]} | {cells[1]} |")
        cells = []
        for side in ("gate", "labels only"):
            values = [r["budgets"][budget][side]["cover"] for r in results
                      if r["budgets"][budget][side]["cover"] is not None]  # fmt: skip
            mean = sum(values) / len(values) if values else 0.0
            cells.append("—" if not values else f"{min(values) * 100:.0f} % ({mean * 100:.0f} %)")
        lines.append(f"| 95 % interval holds the all-labels delta | {budget} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def pooled(sets_file: Path, generator: str, pair: tuple[str, str]) -> list[Question]:
    """Every judged question of ``pair`` over the sets of ``generator``, ids prefixed by their set."""
    out = []
    for labelled in load_sets(sets_file):
        if labelled.generator != generator or pair not in PAIRS[generator]:
            continue
        for q in judged_questions(labelled, pair):
            out.append(Question(f"{labelled.name}:{q.qid}", q.type, q.review, q.judge, q.human))
    return out


#: The labelled pairs the pairs are cut from: the demo model's, and the fluent styles' careful and chatty answers.
SOURCES = (("demo model", ("baseline", "candidate")), ("fluent", ("strict", "chatty")))


def _cases(args: argparse.Namespace, gate: GateConfig, metrics: dict[str, LabelledMetric]):  # noqa: ANN202
    """Every pair measured, as ``(name, number, pair, rule, metric, kind, questions)``: per source and gate rule
    with a judgement to correct, the whole pooled pair (number 0: the judge right or wrong on it) and then the
    constructed pairs (:func:`build_pairs`, numbered from 1)."""
    for generator, pair in SOURCES:
        questions = pooled(args.sets, generator, pair)
        label = f"{generator} {pair[0]}→{pair[1]}"
        for rule in gate.rules:
            metric = metrics.get(rule.metric)
            if metric is None:
                continue  # no judgement to correct (retrieval)
            right = census(questions, metric, pair, "judge", rule, gate) == census(
                questions, metric, pair, "human", rule, gate
            )
            cases = [("judge right" if right else "judge wrong", questions)]
            built = build_pairs(questions, metric, pair, rule, gate, args.size, args.errors, args.pairs)
            cases += [(kind, subset) for kind, found in built.items() for subset in found]
            for number, (kind, subset) in enumerate(cases):
                name = f"{label} (all {len(questions)})" if number == 0 else f"{label} #{number}"
                yield name, number, pair, rule, metric, kind, subset


def margins(args: argparse.Namespace, gate: GateConfig, metrics: dict[str, LabelledMetric]) -> str:
    """The docs' table of :func:`census_margin` for every constructed pair (the pairs ``main`` measures)."""
    rows = ["| pair | rule | kind | all-labels verdict | all-labels Δ | its 95 % interval | limit | clearance |",
            "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, number, pair, rule, metric, kind, subset in _cases(args, gate, metrics):
        found = census_margin(subset, metric, pair, rule, gate) if number else None
        if found is None:
            continue  # the whole pooled pair, or no question of the rule's population
        delta, low, high, clearance = found
        verdict = census(subset, metric, pair, "human", rule, gate)
        interval = f"[{low:+.3f}, {high:+.3f}]"
        rows.append(f"| {name} | {rule.metric} | {kind} | {verdict} | "
                    f"{delta:+g} | {interval} | {limit_of(rule):g} | {clearance:+.3f} |")  # fmt: skip
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=Path, default=ROOT / "labels" / "sets.toml")
    parser.add_argument("--plans", type=int, default=200)
    parser.add_argument("--size", type=int, default=68, help="questions per constructed pair (about)")
    parser.add_argument("--errors", type=int, default=3, help="judge errors a constructed pair holds at least")
    parser.add_argument("--pairs", type=int, default=2, help="constructed pairs per rule and direction")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "gate_labels.json")
    parser.add_argument("--markdown", type=Path, metavar="JSON", help="print the docs' table of a saved run and exit")
    parser.add_argument("--interval", choices=INTERVALS, default="hull",
                        help="the plan's deciding interval: the gate's hull (default), or a variant of it")  # fmt: skip
    parser.add_argument("--thresholds", type=Path, default=GATE, help="the gate's thresholds (configs/gate.toml)")
    parser.add_argument("--margins", action="store_true",
                        help="print each constructed pair's census interval against its limit, and exit")  # fmt: skip
    args = parser.parse_args(argv)
    if args.markdown:
        saved = json.loads(args.markdown.read_text())["results"]
        print(markdown(saved))
        print()
        print(summary(saved))
        return 0
    started = time.perf_counter()
    gate = load_gate(args.thresholds)
    metrics = {m.key: m for m in CORRECTED}
    if args.margins:
        print(margins(args, gate, metrics))
        return 0
    results = []
    for name, _, pair, rule, metric, kind, subset in _cases(args, gate, metrics):
        measured = measure(subset, metric, pair, rule, gate, args.plans, args.interval)
        r = {"name": name, "metric": rule.metric, "kind": kind, **measured}
        results.append(r)
        print("\n".join(markdown([r]).splitlines()[2:]), flush=True)
    elapsed = time.perf_counter() - started
    print(f"{args.plans} plans per pair and budget; {elapsed:.1f} s")
    print(summary(results))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"plans": args.plans, "interval": args.interval, "seconds": round(elapsed, 1),
                                     "results": results}, indent=1) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

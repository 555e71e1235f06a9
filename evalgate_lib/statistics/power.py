"""Which gate rules can fail at all on a gold set of this size: the smallest detectable change per rule.

A gate in ``significant`` mode fails a rule only when the breach is beyond noise, by the exact test
:func:`~evalgate_lib.statistics.gate.judge` uses. On a small gold set that test may be unable to
say "beyond noise" whatever happens: with 5 no-answer questions even 5 of 5 broken is McNemar's
exact p = 2 × 0.5⁵ = 0.0625 ≥ 0.05, so the refusal rule passes every candidate. A gate that cannot
fail must say so, or its PASS reads as evidence. :func:`smallest_detectable_change` is the one
function that decides it (``gold check``, ``gate`` and the report's first screen all print its result).

The change it reports is the most favourable case for the test: every question that moves, moves
the rule's way (all discordant pairs on one side, ``b`` broken and ``c = 0`` fixed). McNemar's p
for ``k`` such pairs is ``2 × 0.5^k`` (capped at 1), and for a fixed net change ``b - c`` it only
grows with more pairs on the other side, so no real change smaller than this one can fail the
rule. A rule over a score (MRR, groundedness) is judged by its bootstrap interval lying wholly past
the limit; when every question moves by the same amount that interval is the amount itself, so any
breach can fail as soon as there is one question.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from evalgate_lib.statistics.gate import GateConfig, Rule
from evalgate_lib.statistics.metrics import METRICS, Summary
from evalgate_lib.statistics.paired_tests import mcnemar_exact

_METRICS = {m.key: m for m in METRICS}

#: How each population is named in a sentence ("on 5 no-answer questions").
POPULATION_WORDS = {"answerable": "answerable questions", "no_answer": "no-answer questions", "all": "questions"}


@dataclass(frozen=True)
class RulePower:
    """What one gate rule can detect on ``questions`` questions of its population.

    ``smallest`` is the smallest change, in answers, that makes the rule fail (``None``: no change
    can); ``delta`` the same in the metric's unit (a share for a rate, answers for a count, the
    limit itself for a score); ``p_value`` McNemar's exact p of that change (``None`` for a score
    rule or in ``point`` mode); ``p_all`` McNemar's p when every one of the ``questions`` moves the
    rule's way (``None`` for a score rule). ``questions_needed`` is the smallest population at which
    the rule can fail at all, ``questions_for_limit`` the smallest at which every breach of its limit
    can fail; ``None`` when no gold-set size gives it.
    """

    rule: Rule
    population: str
    questions: int
    smallest: int | None
    delta: float | None
    p_value: float | None
    p_all: float | None
    questions_needed: int | None
    questions_for_limit: int | None
    #: How many of the questions can move the rule's way at all (``None``: not known, all of them): a
    #: baseline at 0 of 20 cannot drop, a count already on every question cannot rise.
    room: int | None = None
    #: The baseline's count on the rule's metric, when ``room`` came from it.
    baseline_count: int | None = None

    @property
    def can_fail(self) -> bool:
        return self.smallest is not None

    #: The smallest failing change were every question free to move (what ``smallest`` is without ``room``).
    smallest_free: int | None = None

    @property
    def blocked(self) -> bool:
        """No change can fail the rule because the baseline sits at (or near) the bound it would move past."""
        return self.smallest is None and self.smallest_free is not None


def _one_way_p(k: int, comparisons: int = 1) -> float:
    """McNemar's exact p when ``k`` questions all move one way, rounded as ``summary.json`` holds it; for one of
    ``comparisons`` candidates, Holm's adjustment of the family's smallest p (``m × p``, capped at 1), the best an
    adjusted p can be (:func:`evalgate_lib.statistics.multiple_testing.holm_adjust`)."""
    p = round(mcnemar_exact([True] * k, [False] * k).p_value, 6)
    return p if comparisons <= 1 else round(min(1.0, comparisons * p), 6)


def _significant_from(alpha: float, mode: str, comparisons: int = 1) -> int | None:
    """The fewest one-way moves the gate calls beyond noise: 1 in ``point`` mode, else the first k with p < alpha.

    ``None`` when none does (alpha ≤ 0): 2 × 0.5^k is below any alpha > 0 for k large enough.
    """
    if mode == "point":
        return 1
    if alpha <= 0:
        return None
    k = 1
    while _one_way_p(k, comparisons) >= alpha:
        k += 1
    return k


def smallest_detectable_change(
    rule: Rule,
    questions: int,
    mode: str,
    alpha: float,
    comparisons: int = 1,
    room: int | None = None,
    baseline_count: int | None = None,
) -> RulePower:
    """The smallest change that fails ``rule`` on ``questions`` questions of its metric's population.

    A breach is what :func:`~evalgate_lib.statistics.gate.judge` calls one: for a rate, ``k`` moved
    answers out of ``questions`` are a change of ``k / questions``, past ``max_drop`` (or
    ``max_increase``) when strictly larger (compared exactly, the limit as written in the file); for a
    count, ``k`` answers are past the limit when ``k`` is larger. In ``significant`` mode a yes/no rule
    also needs McNemar's exact p < ``alpha``, which ``k`` one-way moves reach from
    :func:`_significant_from` on. Examples (α = 0.05, significant mode): 5 no-answer questions under
    ``max_drop = 0.10`` cannot fail (5 of 5 broken: p = 0.0625); 6 can, at 6 of 6 (p = 0.03125); every
    breach of the 10-point limit can fail from 50 questions (6 of 50 = 12 points, the smallest breach).
    With ``comparisons`` candidates against one baseline the gate decides on Holm-adjusted p, at best
    ``comparisons × p``: 3 candidates need 7 one-way moves (3 × 0.015625 = 0.047). ``room`` is how
    many questions can move the rule's way at all (a rate's drop: the baseline's yes answers; a rise:
    its no answers): a baseline at 0 of 20 cannot drop, so a drop rule on it cannot fail.
    """
    metric = _METRICS[rule.metric]
    limit = Fraction(str(rule.max_drop if rule.max_drop is not None else rule.max_increase))
    if not metric.binary:  # a score: a uniform change makes the bootstrap interval a point
        possible = limit < 1
        return RulePower(
            rule, metric.population, questions, 1 if possible and questions >= 1 else None,
            float(limit) if possible and questions >= 1 else None, None, None,
            1 if possible else None, 1 if possible else None,
        )  # fmt: skip
    from_k = _significant_from(alpha, mode, comparisons)
    if metric.kind == "rate":
        # k / n > limit  <=>  k > limit * n: the first breach is floor(limit * n) + 1 answers
        breach = math.floor(limit * questions) + 1
        needed = None if limit >= 1 or from_k is None else from_k
        if needed is None or from_k == 1:
            for_limit = needed
        else:  # floor(limit * n) + 1 >= from_k  <=>  n >= (from_k - 1) / limit
            for_limit = None if limit <= 0 else max(needed, math.ceil((from_k - 1) / limit))
    else:
        breach = math.floor(limit) + 1
        needed = None if from_k is None else max(from_k, breach)
        for_limit = None if needed is None or breach < from_k else needed
    free = None if from_k is None else max(from_k, breach)
    if free is not None and free > questions:
        free = None
    smallest = free if free is None or room is None or free <= room else None
    delta = None
    if smallest is not None:
        delta = smallest / questions if metric.kind == "rate" else float(smallest)
    p_value = None if smallest is None or mode == "point" else _one_way_p(smallest, comparisons)
    p_all = _one_way_p(questions, comparisons) if questions else None
    return RulePower(
        rule, metric.population, questions, smallest, delta, p_value, p_all, needed, for_limit, room, baseline_count,
        free,
    )  # fmt: skip


def rule_powers(gate: GateConfig, sizes: Mapping[str, int]) -> list[RulePower]:
    """:func:`smallest_detectable_change` of every rule, ``sizes`` giving each population's question count."""
    return [
        smallest_detectable_change(rule, sizes[_METRICS[rule.metric].population], gate.mode, gate.alpha)
        for rule in gate.rules
    ]


def gold_sizes(types: Sequence[str]) -> dict[str, int]:
    """Questions per population of a gold set, from its questions' types (``answerable`` / ``no_answer``)."""
    return {
        "answerable": sum(t == "answerable" for t in types),
        "no_answer": sum(t == "no_answer" for t in types),
        "all": len(types),
    }


def summary_powers(gate: GateConfig, summary: Summary, comparisons: int = 1) -> list[RulePower]:
    """Every rule's power on a run: each rule's population is the pairs its paired test compared.

    That is ``summary.significance[metric]["n"]``: the questions where both configs have a value (a
    retrieval metric left empty for logs without document ids has none). ``comparisons``: the number of
    candidates tried against the baseline (their p-values Holm-adjusted). The baseline's own count
    bounds how far a yes/no metric can move the rule's way (``room``): refusal accuracy at 0 of 20
    cannot drop. A rule the gate decides on reviewers' labels is tested otherwise; its figure here is
    the judge's test's.
    """
    out = []
    for rule in gate.rules:
        n = int((summary.significance.get(rule.metric) or {}).get("n") or 0)
        count = _baseline_count(summary, rule.metric, n)
        room = None if count is None else (count if rule.max_drop is not None else n - count)
        out.append(smallest_detectable_change(rule, n, gate.mode, gate.alpha, comparisons, room, count))
    return out


def _baseline_count(summary: Summary, key: str, n: int) -> int | None:
    """How many of the ``n`` compared questions the baseline answers yes on a yes/no metric (``None``: a score)."""
    metric = _METRICS[key]
    value = (summary.significance.get(key) or {}).get("baseline")
    if not metric.binary or value is None or not n:
        return None
    return round(value * n)


#: How a one-way change reads, by (metric kind, rule direction): "5 of 5 broken", "6 answers newly flagged".
_MOVES = {
    ("rate", "drop"): "broken",
    ("rate", "rise"): "moved up",
    ("count", "rise"): "newly flagged",
    ("count", "drop"): "no longer flagged",
}


def _moved(power: RulePower, answers: int, p_value: float | None = None, alpha: float = 0.05) -> str:
    """ "5 of 5 broken (100.0 points, McNemar p = 0.0625)", "6 answers newly flagged (McNemar p = 0.03125 < 0.05)"."""
    kind = _METRICS[power.rule.metric].kind
    move = _MOVES[(kind, "drop" if power.rule.max_drop is not None else "rise")]
    notes = [f"{100 * answers / power.questions:.1f} points"] if kind == "rate" else []
    if p_value is not None:
        notes.append(f"McNemar p = {p_value:.4g} {'<' if p_value < alpha else '≥'} {alpha:g}")
    if kind == "rate" or answers == power.questions:
        said = f"{answers} of {power.questions} {move}"
    else:
        said = f"{answers} answer{'' if answers == 1 else 's'} {move}"
    return said + (f" ({', '.join(notes)})" if notes else "")


def smallest_change_text(power: RulePower) -> str:
    """The report's rule-table cell: the smallest change that can fail the rule, or "cannot fail at this size"."""
    if not power.can_fail:
        return "cannot fail at this size"
    if not _METRICS[power.rule.metric].binary:
        return "any breach"
    return _moved(power, power.smallest or 0)


def power_sentence(power: RulePower, alpha: float, mode: str) -> str:
    """One rule's power in words: whether it can fail at this size, its smallest detectable change, what would help.

    "refusal accuracy on no-answer cannot fail on 5 no-answer questions: even 5 of 5 broken (100.0
    points, McNemar p = 0.0625 ≥ 0.05); it can fail from 6 no-answer questions, and every breach of
    its limit can fail from 50 no-answer questions".
    """
    metric = _METRICS[power.rule.metric]
    words = POPULATION_WORDS[power.population]
    if power.questions == 0:
        return f"{metric.label} cannot fail: not measured on any question in this run"
    if not metric.binary:
        if power.can_fail:
            return (
                f"{metric.label}: any breach can fail on {power.questions} {words} (its bootstrap interval "
                "is wholly past the limit when every question moves alike)"
            )
        return f"{metric.label} cannot fail: its limit is beyond the score's range"
    if power.questions_needed is None:
        return f"{metric.label} cannot fail on {power.questions} {words}, nor on any number: its limit is out of reach"
    if power.blocked:
        way = "drop" if power.rule.max_drop is not None else "rise"
        return (
            f"{metric.label} cannot fail: the baseline's is {power.baseline_count} of {power.questions} {words}, so it "
            f"can {way} on at most {power.room} of them, and failing it takes {power.smallest_free}"
        )
    every = (
        ""
        if power.questions_for_limit is None
        else f"every breach of its limit can fail from {power.questions_for_limit} {words}"
    )
    if not power.can_fail:
        if mode == "significant" and power.p_all is not None and power.p_all >= alpha:
            why = "even " + _moved(power, power.questions, power.p_all, alpha)
        else:
            why = f"no change of {power.questions} {words} is past its limit"
        more = f"it can fail from {power.questions_needed} {words}"
        if power.questions_for_limit is not None and power.questions_for_limit > power.questions_needed:
            more += f", and {every}"
        return f"{metric.label} cannot fail on {power.questions} {words}: {why}; {more}"
    smallest = _moved(power, power.smallest or 0, power.p_value, alpha)
    if power.questions_for_limit is not None and power.questions_for_limit <= power.questions:
        return (
            f"{metric.label}: every breach of its limit can fail on {power.questions} {words}; the smallest: {smallest}"
        )
    later = every if power.questions_for_limit is not None else "at any gold-set size"
    return (
        f"{metric.label}: the smallest change that can fail it on {power.questions} {words} is {smallest}; "
        f"a smaller breach cannot fail ({later})"
    )


def cannot_fail(powers: Sequence[RulePower]) -> list[RulePower]:
    """The rules no change can fail at this size, in gate order."""
    return [p for p in powers if not p.can_fail]


def format_powers(powers: Sequence[RulePower], alpha: float, mode: str) -> list[str]:
    """The lines ``gate`` and ``gold check`` print: which rules cannot fail, then one line per rule."""
    stuck = cannot_fail(powers)
    head = (
        f"power: {len(stuck)} of {len(powers)} gate rule(s) cannot fail at this size ({mode} mode, α = {alpha:g}): "
        + ", ".join(_METRICS[p.rule.metric].label for p in stuck)
        if stuck
        else f"power: every gate rule can fail at this size ({mode} mode, α = {alpha:g})"
    )
    return [head] + [("  CANNOT FAIL  " if not p.can_fail else "  ") + power_sentence(p, alpha, mode) for p in powers]


#: How far the projection of :func:`questions_to_decide` looks: this many times the gold set, at most.
DECIDE_SEARCH = 200


def questions_to_decide(rule: Rule, b: int, c: int, n: int, alpha: float) -> tuple[int, str] | None:
    """The smallest population at which ``rule`` would be decided, were the same shares of questions to move.

    An INCONCLUSIVE rule (its interval reaches past the limit, its drop not beyond noise) is decided by
    more questions: at ``m`` questions the projection moves ``round(b m / n)`` the bad way and
    ``round(c m / n)`` the good way, and decides as the gate does (a breach with McNemar's exact p < α
    fails; Tango's interval within the limit passes: :func:`~evalgate_lib.statistics.gate.rule_outcome`).
    Returns ``(m, "PASS" or "FAIL")`` for the first ``m`` (on a 2 % grid) that decides, ``None`` when up to
    :data:`DECIDE_SEARCH` times ``n`` none does (a limit of 0: no size shows it).
    """
    from evalgate_lib.statistics.gate import FAILED, INCONCLUSIVE, rule_outcome
    from evalgate_lib.statistics.paired_tests import mcnemar_p, tango_interval

    metric = _METRICS[rule.metric]
    count = metric.kind == "count"
    m = n
    while m <= DECIDE_SEARCH * max(n, 1):
        m = max(m + 1, math.ceil(m * 1.02))
        bb, cc = round(b * m / n), round(c * m / n)
        delta = float(cc - bb) if count else round((cc - bb) / m, 6)
        limit = -float(rule.max_drop) if rule.max_drop is not None else float(rule.max_increase)  # type: ignore[arg-type]
        breached = delta < limit if rule.max_drop is not None else delta > limit
        failed = breached and mcnemar_p(bb, cc) < alpha
        low, high = tango_interval(bb, cc, m, 1.0 - alpha)
        scale = m if count else 1
        margin = {"ci_low": low * scale, "ci_high": high * scale}
        outcome = rule_outcome(rule, delta, breached, failed, margin, "significant")
        if outcome != INCONCLUSIVE:
            return m, "FAIL" if outcome == FAILED else "PASS"
    return None


def decide_sentence(rule: Rule, b: int, c: int, n: int, alpha: float) -> str:
    """What would decide an INCONCLUSIVE rule: "about 85 answerable questions (now 81) would decide it (FAIL, if the
    same shares of them move as here)", or that no gold-set size would."""
    words = POPULATION_WORDS[_METRICS[rule.metric].population]
    found = questions_to_decide(rule, b, c, n, alpha)
    if found is None:
        return f"no gold set up to {DECIDE_SEARCH}× this one ({n} {words}) would decide it at the same shares moving"
    m, outcome = found
    return f"about {m} {words} (now {n}) would decide it ({outcome}, if the same shares of them move as here)"

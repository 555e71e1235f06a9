"""Which gate rules can fail at all on a gold set of this size: the smallest detectable change per rule.

A gate in ``significant`` mode fails a rule only when the data show the candidate worse than the rule's
limit beyond chance: Tango's score interval at 1 − α lies wholly past the limit (issue 53; the test
:func:`~evalgate_lib.statistics.gate.judge` uses, :func:`~evalgate_lib.statistics.gate.rule_outcome`).
On a small gold set no change may get there: with 4 no-answer questions even 4 of 4 broken leaves
Tango's interval reaching back past a 10-point limit, so the refusal rule cannot fail any candidate.
A gate that cannot fail must say so, or its PASS reads as evidence. :func:`smallest_detectable_change`
is the one function that decides it (``gold check``, ``gate`` and the report's first screen all
print its result), by asking the gate's own decision.

The change it reports is the most favourable case for the test: every question that moves, moves
the rule's way (all discordant pairs on one side, ``b`` broken and ``c = 0`` fixed). For a fixed net
change, pairs on the other side only widen the interval, so no real change smaller than this one can
fail the rule. Since the interval must clear the limit, a breach just past the limit never fails, at
any size: only a change far enough past it does. A rule over a score (MRR, groundedness) is judged by
its bootstrap interval lying wholly past the limit; when every question moves by the same amount that
interval is the amount itself, so any breach can fail as soon as there is one question.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

from evalgate_lib.statistics.gate import FAILED, GateConfig, Rule, limit_of, margin_interval, rule_outcome
from evalgate_lib.statistics.metrics import METRICS, Summary
from evalgate_lib.statistics.paired_tests import tango_p

_METRICS = {m.key: m for m in METRICS}

#: How each population is named in a sentence ("on 5 no-answer questions").
POPULATION_WORDS = {"answerable": "answerable questions", "no_answer": "no-answer questions", "all": "questions"}


@dataclass(frozen=True)
class RulePower:
    """What one gate rule can detect on ``questions`` questions of its population.

    ``smallest`` is the smallest change, in answers, that makes the rule fail (``None``: no change
    can); ``delta`` the same in the metric's unit (a share for a rate, answers for a count, the
    limit itself for a score); ``p_value`` the p against the limit of that change (Tango's score test,
    Holm's best case for several candidates; ``None`` for a score rule or in ``point`` mode); ``p_all``
    the same when every one of the ``questions`` moves the rule's way (``None`` for a score rule).
    ``questions_needed`` is the smallest population at which the rule can fail at all,
    ``questions_for_limit`` the smallest at which every breach of its limit can fail; ``None`` when no
    gold-set size gives it (in ``significant`` mode, always: a breach just past the limit never fails).
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


#: The largest population :func:`_needed` looks at for the first size at which a rule can fail.
NEEDED_SEARCH = 100_000


def _one_way(rule: Rule, k: int, n: int) -> tuple[int, int]:
    """``(b, c)`` of ``k`` of ``n`` questions all moving the rule's bad way: a drop breaks (``b``), a rise adds
    (``c``)."""
    return (k, 0) if rule.max_drop is not None else (0, k)


def _one_way_p(rule: Rule, k: int, n: int, comparisons: int = 1) -> float:
    """The p against the rule's limit when ``k`` of ``n`` questions all move its bad way (Tango's score test,
    :func:`~evalgate_lib.statistics.paired_tests.tango_p`); for one of ``comparisons`` candidates, Holm's best
    case (``m × p``, capped at 1: the family's smallest p,
    :func:`evalgate_lib.statistics.multiple_testing.holm_adjust`)."""
    b, c = _one_way(rule, k, n)
    kind = _METRICS[rule.metric].kind
    limit = limit_of(rule) / n if kind == "count" else limit_of(rule)
    p = tango_p(b, c, n, max(-1.0, min(1.0, limit)))
    return p if comparisons <= 1 else round(min(1.0, comparisons * p), 6)


def _fails(rule: Rule, k: int, n: int, alpha: float, mode: str, comparisons: int = 1) -> bool:
    """Whether the gate fails ``rule`` when ``k`` of ``n`` questions all move its bad way: the gate's own decision
    (:func:`~evalgate_lib.statistics.gate.rule_outcome` on :func:`~evalgate_lib.statistics.gate.margin_interval`),
    Tango's interval at the level Holm's best case for ``comparisons`` candidates allows (1 − α / m)."""
    if n < 1 or k > n:
        return False
    kind = _METRICS[rule.metric].kind
    b, c = _one_way(rule, k, n)
    delta = float(c - b) if kind == "count" else round((c - b) / n, 6)
    if mode == "point":
        return rule_outcome(rule, delta, None, mode) == FAILED
    margin = margin_interval({"b": b, "c": c, "n": n}, kind, alpha, None, 1.0 - alpha / max(1, comparisons))
    return rule_outcome(rule, delta, margin, mode) == FAILED


def _smallest(rule: Rule, n: int, alpha: float, mode: str, comparisons: int) -> int | None:
    """The fewest one-way moves of ``n`` that fail the rule (failing only grows with ``k``: bisection), or ``None``."""
    if not _fails(rule, n, n, alpha, mode, comparisons):
        return None
    low, high = 0, n  # low does not fail, high does
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if _fails(rule, mid, n, alpha, mode, comparisons) else (mid, high)
    return high


def _needed(rule: Rule, alpha: float, mode: str, comparisons: int) -> int | None:
    """The smallest population at which some change fails the rule (all of it moving the bad way), or ``None``."""
    n = 1
    while n <= NEEDED_SEARCH:
        if _fails(rule, n, n, alpha, mode, comparisons):
            return n
        n = n + 1 if n < 200 else math.ceil(n * 1.05)  # past 200: a 5 % grid (a limit near 100 points)
    return None


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
    ``max_increase``) when strictly larger; for a count, ``k`` answers are past the limit when ``k`` is
    larger. In ``significant`` mode a yes/no rule also needs Tango's interval wholly past the limit, and
    the gate's own decision (:func:`_fails`) is asked for each ``k``. Examples (α = 0.05, significant
    mode): 4 no-answer questions under ``max_drop = 0.10`` cannot fail (4 of 4 broken: Tango's interval
    reaches up to -2.0 points); 5 can, at 5 of 5. With ``comparisons`` candidates against one baseline the
    gate decides on the Holm-adjusted p against the limit, at best ``comparisons × p``: the interval is
    then at 1 − α / ``comparisons``. ``room`` is how many questions can move the rule's way at all (a
    rate's drop: the baseline's yes answers; a rise: its no answers): a baseline at 0 of 20 cannot drop,
    so a drop rule on it cannot fail.
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
    reachable = metric.kind == "count" or limit < 1  # a rate cannot move by more than 100 points
    needed = _needed(rule, alpha, mode, comparisons) if reachable else None
    free = None if needed is None or questions < needed else _smallest(rule, questions, alpha, mode, comparisons)
    for_limit = needed if mode == "point" else None  # point mode: any breach fails, so every one can once one can
    smallest = free if free is None or room is None or free <= room else None
    delta = None
    if smallest is not None:
        delta = smallest / questions if metric.kind == "rate" else float(smallest)
    p_value = None if smallest is None or mode == "point" else _one_way_p(rule, smallest, questions, comparisons)
    p_all = _one_way_p(rule, questions, questions, comparisons) if questions else None
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
    """ "4 of 4 broken (100.0 points, p against the limit = 0.0571 ≥ 0.05)", "9 answers newly flagged (p against the
    limit = 0.0421 < 0.05)"."""
    kind = _METRICS[power.rule.metric].kind
    move = _MOVES[(kind, "drop" if power.rule.max_drop is not None else "rise")]
    notes = [f"{100 * answers / power.questions:.1f} points"] if kind == "rate" else []
    if p_value is not None:
        notes.append(f"p against the limit = {p_value:.4g} {'<' if p_value < alpha else '≥'} {alpha:g}")
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

    "refusal accuracy on no-answer cannot fail on 4 no-answer questions: even 4 of 4 broken (100.0
    points, p against the limit = 0.0571 ≥ 0.05); it can fail from 5 no-answer questions".
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
    if power.questions_for_limit is None:  # significant mode: the interval must clear the limit
        return (
            f"{metric.label}: the smallest change that can fail it on {power.questions} {words} is {smallest}; "
            "a smaller one cannot fail at this size (FAIL needs the interval wholly past the limit)"
        )
    return (
        f"{metric.label}: the smallest change that can fail it on {power.questions} {words} is {smallest}; "
        f"a smaller breach cannot fail ({every})"
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

    An INCONCLUSIVE rule (Tango's interval holds its limit) is decided by more questions: at ``m`` questions
    the projection moves ``round(b m / n)`` the bad way and ``round(c m / n)`` the good way, and decides as the
    gate does (Tango's interval wholly past the limit fails, wholly within it passes:
    :func:`~evalgate_lib.statistics.gate.rule_outcome`).
    Returns ``(m, "PASS" or "FAIL")`` for the first ``m`` (on a 2 % grid) that decides, ``None`` when up to
    :data:`DECIDE_SEARCH` times ``n`` none does (a limit of 0: no size shows it).
    """
    from evalgate_lib.statistics.gate import FAILED, INCONCLUSIVE, rule_outcome
    from evalgate_lib.statistics.paired_tests import tango_interval

    metric = _METRICS[rule.metric]
    count = metric.kind == "count"
    m = n
    while m <= DECIDE_SEARCH * max(n, 1):
        m = max(m + 1, math.ceil(m * 1.02))
        bb, cc = round(b * m / n), round(c * m / n)
        delta = float(cc - bb) if count else round((cc - bb) / m, 6)
        low, high = tango_interval(bb, cc, m, 1.0 - alpha)
        scale = m if count else 1
        margin = {"ci_low": low * scale, "ci_high": high * scale}
        outcome = rule_outcome(rule, delta, margin, "significant")
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

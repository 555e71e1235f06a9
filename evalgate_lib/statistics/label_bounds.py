"""Whether a plan's labels decide a gate rule as labelling every answer would: an exact test that holds its level.

Since issue 53 the gate's fallback only: a plan's rule is decided on the PPI++ estimate and its bootstrap
(:mod:`evalgate_lib.statistics.label_bootstrap`), which uses the judge on the unlabelled answers; this bound
ignores them, so it seldom decides, and is used where a plan stratum has a single label (nothing to resample).

Labelling every answer (a census) decides a yes/no rule by McNemar's exact test on the labels: ``B``
questions the labels say regressed (baseline yes, candidate no), ``C`` that improved. A plan labels
a few questions; the rest of ``B`` and ``C`` is unknown. A t test on the corrected estimate (what
:mod:`evalgate_lib.statistics.label_estimates` reports) does not hold its level at a few labels: a
plan that happens to draw the judge's errors of one sign gets a narrow interval and fails a pair
whose census passes. This module decides instead only what every census the labels allow would
decide.

**The bounds.** In each stratum of the plan, and for each of ``B`` and ``C``, the questions fall in
two cells by the *judge's* verdict pair: those the judge counts the same way (cell 1) and the others
(cell 0). The labelled questions of a cell are a simple random sample of it (the plan drew a simple
random sample of the stratum), so the cell's unknown count has exact hypergeometric confidence
bounds. Where the bound can only move one way the sample gives it for certain: a cell holds at least
the labelled questions counted, and cell 1 at most all but the labelled ones not counted. So

* ``B ≥ Σ_h (exact lower bound in cell 1 + labelled count in cell 0)``,
* ``B ≤ Σ_h (all unrefuted questions of cell 1 + exact upper bound in cell 0)``,

and the same for ``C``. The better the judge, the fewer the cell-0 members that count and the
cell-1 members that do not, and the tighter the bounds.

**The decision.** The census' verdict is the gate's three-way rule on it (issue 53: FAIL when Tango's score
interval at 1 − α lies wholly past the rule's limit, PASS when wholly within it, else INCONCLUSIVE;
:mod:`~evalgate_lib.statistics.limit_decision`), and it only grows more failing with more bad moves and fewer
good ones (the delta and both ends of its interval move the bad way). So the labels decide FAIL when the
*least* failing census the bounds allow fails — the fewest bad moves and the most good ones — PASS when
the *most* failing one passes, INCONCLUSIVE when none fails and the most failing one cannot be shown within
the limit; otherwise (some census fails, some does not) they cannot tell, and the gate keeps the judge's
decision and says so. The two one-sided bounds a decision reads share α (Bonferroni over the cells
whose bound is not certain), so:

    P(the labels decide FAIL | the census does not) ≤ α,   P(the labels decide PASS | the census does not) ≤ α,

at every budget, whatever the judge's errors: exact in the bounds (the census' own verdict rests on Tango's
asymptotic interval). The cost is power: with few labels the bounds are wide and the judge decides.

**What is printed.** Beside a rule the labels decide: the hull of the censuses' Tango intervals, which decides
(it lies past the limit exactly when the least failing census' interval does, within it exactly when the
most failing one's does), and, against no change, the hull of the census' exact McNemar intervals
(:func:`~evalgate_lib.statistics.paired_tests.mcnemar_interval` at 1 − α) over every census the bounds
allow with the largest McNemar p among them (that hull excludes 0 exactly when that largest p is below α).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.stats import beta, binom, hypergeom

from evalgate_lib.statistics.limit_decision import FAIL as LIMIT_FAIL
from evalgate_lib.statistics.limit_decision import INCONCLUSIVE as LIMIT_INCONCLUSIVE
from evalgate_lib.statistics.limit_decision import PASS as LIMIT_PASS
from evalgate_lib.statistics.limit_decision import three_way
from evalgate_lib.statistics.paired_tests import mcnemar_interval, tango_interval

#: One question's (baseline, candidate) yes/no values.
Pair = tuple[bool, bool]
REGRESSED: Pair = (True, False)  # counted in B
IMPROVED: Pair = (False, True)  # counted in C


@dataclass(frozen=True)
class PairStratum:
    """One stratum of a plan, restricted to a rule's population.

    ``judge``: the judge's (baseline, candidate) verdicts of every question of the stratum in the
    population; ``labels``: the reviewer's for the same questions, ``None`` where not labelled (the
    labelled ones a simple random sample of the stratum).
    """

    judge: tuple[Pair, ...]
    labels: tuple[Pair | None, ...]


@dataclass(frozen=True)
class CensusBox:
    """The discordant counts every census consistent with the labels may have: ``b`` and ``c`` within these bounds.

    ``n``: the population's questions; ``delta_fail``/``delta_pass``: the one-sided level of each bound
    the FAIL and the PASS decision read (α split over the cells whose bound is not certain).
    """

    b_low: int
    b_high: int
    c_low: int
    c_high: int
    n: int
    labelled: int


def _upper(total: int, drawn: int, counted: int, level: float) -> int:
    """The exact one-sided upper bound of how many of ``total`` count, ``counted`` of ``drawn`` drawn doing so.

    The largest R the one-sided hypergeometric test does not reject at ``level``: P(X ≤ counted | R) > level.
    """
    if drawn >= total:
        return counted
    candidates = np.arange(counted, counted + total - drawn + 1)
    keep = hypergeom.cdf(counted, total, candidates, drawn) > level
    return int(candidates[keep].max())


def _lower(total: int, drawn: int, counted: int, level: float) -> int:
    """The exact one-sided lower bound: the smallest R with P(X ≥ counted | R) > ``level``."""
    if drawn >= total:
        return counted
    candidates = np.arange(counted, counted + total - drawn + 1)
    keep = hypergeom.sf(counted - 1, total, candidates, drawn) > level
    return int(candidates[keep].min())


@dataclass(frozen=True)
class _Cells:
    """One stratum, one count (``B`` or ``C``): cell 1 (the judge counts it) and cell 0.

    Each cell is (size, labelled, counted among the labelled).
    """

    one: tuple[int, int, int]
    zero: tuple[int, int, int]


def _cells(stratum: PairStratum, kind: Pair) -> _Cells:
    sizes = {True: [0, 0, 0], False: [0, 0, 0]}
    for judged, label in zip(stratum.judge, stratum.labels, strict=True):
        cell = sizes[judged == kind]
        cell[0] += 1
        if label is not None:
            cell[1] += 1
            cell[2] += label == kind
    return _Cells(tuple(sizes[True]), tuple(sizes[False]))  # type: ignore[arg-type]


def _uncertain(cell: tuple[int, int, int]) -> bool:
    return cell[1] < cell[0]


def census_box(strata: Sequence[PairStratum], alpha: float, bad: Pair) -> CensusBox:
    """The bounds of ``B`` and ``C`` (module docstring), for a rule whose bad move is ``bad`` (``REGRESSED``: a
    drop; ``IMPROVED``: a rise of what the rule counts).

    The FAIL decision reads the bad count's lower bound and the good count's upper bound; the PASS
    decision the other two. Each decision's uncertain bounds share α equally.
    """
    good = IMPROVED if bad == REGRESSED else REGRESSED
    cells = {kind: [_cells(s, kind) for s in strata] for kind in (bad, good)}
    # FAIL reads: bad's lower (its cell 1 is uncertain), good's upper (its cell 0 is uncertain)
    fail = sum(_uncertain(c.one) for c in cells[bad]) + sum(_uncertain(c.zero) for c in cells[good])
    passing = sum(_uncertain(c.zero) for c in cells[bad]) + sum(_uncertain(c.one) for c in cells[good])
    at_fail, at_pass = alpha / max(1, fail), alpha / max(1, passing)

    def low(kind: Pair, level: float) -> int:
        return sum(_lower(*c.one, level) + c.zero[2] for c in cells[kind])

    def high(kind: Pair, level: float) -> int:
        return sum(c.one[0] - (c.one[1] - c.one[2]) + _upper(*c.zero, level) for c in cells[kind])

    bounds = {
        bad: (low(bad, at_fail), high(bad, at_pass)),
        good: (low(good, at_pass), high(good, at_fail)),
    }
    n = sum(len(s.judge) for s in strata)
    labelled = sum(label is not None for s in strata for label in s.labels)
    return CensusBox(*bounds[REGRESSED], *bounds[IMPROVED], n, labelled)


@dataclass(frozen=True)
class CensusRule:
    """A gate rule as the census would apply it: the bad move, the limit in the delta's unit, the mode and α.

    ``count``: the delta is ``c - b`` (a count metric), else ``(c - b) / n`` rounded to 6 places, as
    ``summary.json`` holds a rate's delta; a drop breaches below ``-limit``, a rise above ``limit``.
    """

    bad: Pair
    limit: float
    count: bool
    mode: str
    alpha: float

    def delta(self, b: int, c: int, n: int) -> float:
        return float(c - b) if self.count else round((c - b) / n, 6)

    def interval(self, b: int, c: int, n: int) -> tuple[float, float]:
        """The census' deciding interval: Tango's score interval at 1 − α, in the delta's unit."""
        low, high = tango_interval(b, c, n, 1.0 - self.alpha)
        scale = n if self.count else 1
        return round(low * scale, 6), round(high * scale, 6)

    def outcome(self, b: int, c: int, n: int) -> str:
        """The census' verdict as the gate reaches it (:func:`~evalgate_lib.statistics.limit_decision.three_way`):
        FAIL when Tango's interval lies wholly past the limit, PASS wholly within it, else INCONCLUSIVE."""
        interval = None if self.mode == "point" else self.interval(b, c, n)
        return three_way(self.delta(b, c, n), interval, self.limit, self.bad == REGRESSED, self.mode)

    def fails(self, b: int, c: int, n: int) -> bool:
        return self.outcome(b, c, n) == LIMIT_FAIL


#: What the labels said of a rule: every census they allow FAILs, every one PASSes, none FAILs but some cannot be
#: shown within the limit (INCONCLUSIVE), or some FAIL and some do not: they cannot tell (the judge decides).
FAIL, PASS, INCONCLUSIVE, CANNOT_TELL = "fail", "pass", "inconclusive", "cannot tell"


@dataclass(frozen=True)
class LabelDecision:
    """The labels' exact decision of one rule, and what is printed beside it.

    ``outcome``: :data:`FAIL`, :data:`PASS`, :data:`INCONCLUSIVE` or :data:`CANNOT_TELL`. ``low``/``high``: the
    hull of the census' exact McNemar intervals (1 − α) over the box, in the delta's unit; ``p_value``: the
    largest census McNemar p over the box, against no change (it is below α exactly when the hull excludes 0).
    ``margin_low``/``margin_high``: the hull of the censuses' Tango intervals, which decides: the outcome is
    :func:`~evalgate_lib.statistics.limit_decision.three_way` of every census, and this hull lies wholly past
    the limit exactly when the least failing census' interval does (FAIL), wholly within it exactly when the
    most failing one's does (PASS).
    """

    outcome: str
    box: CensusBox
    low: float
    high: float
    p_value: float
    margin_low: float = float("nan")
    margin_high: float = float("nan")

    @property
    def decided(self) -> bool:
        return self.outcome != CANNOT_TELL


def _box_points(box: CensusBox) -> tuple[np.ndarray, np.ndarray]:
    b, c = np.meshgrid(np.arange(box.b_low, box.b_high + 1), np.arange(box.c_low, box.c_high + 1), indexing="ij")
    keep = b + c <= box.n
    return b[keep], c[keep]


def box_interval(box: CensusBox, confidence: float, count: bool) -> tuple[float, float, float]:
    """``(low, high, p)``: the hull of :func:`mcnemar_interval` over every census in ``box`` and its largest p.

    Vectorised over the box; each point's interval is the one :func:`mcnemar_interval` gives (the same
    beta quantiles), and the hull's side of 0 is settled by the points' p-values, as there.
    """
    b, c = _box_points(box)
    if b.size == 0:  # the lower bounds alone pass b + c <= n (both loose): the census nearest them
        b, c = np.array([box.b_low]), np.array([min(box.c_low, box.n - box.b_low)])
    alpha = round(1.0 - confidence, 12)
    d = b + c
    with np.errstate(invalid="ignore", divide="ignore"):
        pi_low = np.where(c == 0, 0.0, beta.ppf(alpha / 2.0, np.maximum(c, 1), d - c + 1))
        pi_high = np.where(c == d, 1.0, beta.ppf(1.0 - alpha / 2.0, c + 1, np.maximum(d - c, 1)))
    share = d / box.n
    low, high = share * (2 * pi_low - 1), share * (2 * pi_high - 1)
    tail = binom.cdf(np.minimum(b, c), d, 0.5)
    p = np.where(d == 0, 1.0, np.round(np.minimum(1.0, 2 * tail), 6))
    low = np.where(p < alpha, np.where(c > b, np.maximum(low, 1e-12), low), np.minimum(low, 0.0))
    high = np.where(p < alpha, np.where(b > c, np.minimum(high, -1e-12), high), np.maximum(high, 0.0))
    scale = box.n if count else 1
    # the exact function at the two extreme points, so a census of one point reads exactly as mcnemar_interval
    lo_i, hi_i = int(np.argmin(low)), int(np.argmax(high))
    lo = mcnemar_interval(int(b[lo_i]), int(c[lo_i]), box.n, confidence)[0]
    hi = mcnemar_interval(int(b[hi_i]), int(c[hi_i]), box.n, confidence)[1]
    return round(lo * scale, 6), round(hi * scale, 6), float(p.max())


def decide_by_labels(strata: Sequence[PairStratum], rule: CensusRule, with_interval: bool = True) -> LabelDecision:
    """What every census the labels allow says of ``rule`` (module docstring): FAIL, PASS, INCONCLUSIVE, or cannot
    tell.

    Each census is decided as the gate decides a census (:meth:`CensusRule.outcome`: Tango's interval against
    the limit). A census fails more with more bad moves and fewer good ones (its delta and both ends of its
    interval move the bad way), so the two corners of the box settle it: FAIL when the least failing census
    fails; PASS when the most failing one passes; INCONCLUSIVE when none fails but the most failing one is not
    shown within the limit; otherwise the labels cannot tell. ``with_interval`` False skips the McNemar hull
    (the benchmark reads only the outcome).
    """
    box = census_box(strata, rule.alpha, rule.bad)
    bad_low, good_high = (box.b_low, box.c_high) if rule.bad == REGRESSED else (box.c_low, box.b_high)
    bad_high, good_low = (box.b_high, box.c_low) if rule.bad == REGRESSED else (box.c_high, box.b_low)

    def census(bad: int, good: int) -> tuple[int, int]:
        return (bad, good) if rule.bad == REGRESSED else (good, bad)

    # the least failing census: the fewest bad moves, the most good ones (b + c <= n: fewer good if need be);
    # the most failing: the most bad moves, the fewest good ones
    least = census(bad_low, min(good_high, box.n - bad_low))
    most = census(min(bad_high, box.n - good_low), good_low)
    at_least, at_most = rule.outcome(*least, box.n), rule.outcome(*most, box.n)
    if at_least == LIMIT_FAIL:
        outcome = FAIL
    elif at_most == LIMIT_PASS:
        outcome = PASS
    elif at_most == LIMIT_INCONCLUSIVE:
        outcome = INCONCLUSIVE
    else:
        outcome = CANNOT_TELL
    # the hull of the Tango intervals: its low end at the census of the lowest delta, its high end at the highest
    lowest, highest = (most, least) if rule.bad == REGRESSED else (least, most)
    margin_low, margin_high = rule.interval(*lowest, box.n)[0], rule.interval(*highest, box.n)[1]
    low = high = p = float("nan")
    if with_interval:
        low, high, p = box_interval(box, 1.0 - rule.alpha, rule.count)
    return LabelDecision(outcome, box, low, high, p, margin_low, margin_high)

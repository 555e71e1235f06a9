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

**The decision.** The census' verdict (a breach past the rule's limit and, in ``significant`` mode,
McNemar's exact p < α) only grows more failing with more bad moves and fewer good ones (McNemar's p
falls as ``C`` grows or ``B`` shrinks when ``C > B``, and the mirror). So the labels decide FAIL when
the *least* failing census the bounds allow fails — the fewest bad moves and the most good ones — and
PASS when the *most* failing one passes; otherwise they cannot tell, and the gate keeps the judge's
decision and says so. The two one-sided bounds a decision reads share α (Bonferroni over the cells
whose bound is not certain), so:

    P(the labels decide FAIL | the census passes) ≤ α,   P(the labels decide PASS | the census fails) ≤ α,

at every budget, whatever the judge's errors: exact, not asymptotic. The cost is power: with few
labels the bounds are wide and the judge decides.

**What is printed.** Beside a rule the labels decide: the hull of the census' exact McNemar intervals
(:func:`~evalgate_lib.statistics.paired_tests.mcnemar_interval` at 1 − α) over every census the bounds
allow, and the largest McNemar p among them. The hull excludes 0 exactly when every allowed census
is significant the same way, which is exactly when that largest p is below α: the interval and the
test agree, as for the judge's own delta.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.stats import beta, binom, hypergeom

from evalgate_lib.statistics.paired_tests import mcnemar_interval, mcnemar_p

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

    def fails(self, b: int, c: int, n: int) -> bool:
        delta = self.delta(b, c, n)
        breached = delta < -self.limit if self.bad == REGRESSED else delta > self.limit
        return breached and (self.mode == "point" or mcnemar_p(b, c) < self.alpha)


#: What the labels said of a rule: they decide it FAIL or PASS, or they cannot tell (the judge decides).
FAIL, PASS, CANNOT_TELL = "fail", "pass", "cannot tell"


@dataclass(frozen=True)
class LabelDecision:
    """The labels' exact decision of one rule, and what is printed beside it.

    ``outcome``: :data:`FAIL`, :data:`PASS` or :data:`CANNOT_TELL`. ``low``/``high``: the hull of the
    census' exact intervals (1 − α) over the box, in the delta's unit; ``p_value``: the largest census
    McNemar p over the box (it is below α exactly when the hull excludes 0).
    """

    outcome: str
    box: CensusBox
    low: float
    high: float
    p_value: float

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
    """What every census the labels allow says of ``rule`` (module docstring): FAIL, PASS, or cannot tell.

    ``with_interval`` False skips the hull (the benchmark reads only the outcome).
    """
    box = census_box(strata, rule.alpha, rule.bad)
    bad_low, good_high = (box.b_low, box.c_high) if rule.bad == REGRESSED else (box.c_low, box.b_high)
    bad_high, good_low = (box.b_high, box.c_low) if rule.bad == REGRESSED else (box.c_high, box.b_low)

    def fails(bad: int, good: int) -> bool:
        b, c = (bad, good) if rule.bad == REGRESSED else (good, bad)
        return rule.fails(b, c, box.n)

    # the least failing census: the fewest bad moves, the most good ones (b + c <= n: fewer good if need be);
    # the most failing: the most bad moves, the fewest good ones
    if fails(bad_low, min(good_high, box.n - bad_low)):
        outcome = FAIL
    elif not fails(min(bad_high, box.n - good_low), good_low):
        outcome = PASS
    else:
        outcome = CANNOT_TELL
    low = high = p = float("nan")
    if with_interval:
        low, high, p = box_interval(box, 1.0 - rule.alpha, rule.count)
    return LabelDecision(outcome, box, low, high, p)

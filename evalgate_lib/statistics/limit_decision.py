"""A rule's three outcomes from one interval and its limit: FAIL and PASS are mirror images (issue 53).

A gate rule bounds how far a delta may move the bad way: a drop of at most ``limit`` (``drop``) or a rise
of at most ``limit``. Given the deciding interval at the gate's level (Tango's score interval for a
yes/no delta, a plan's interval, a score's bootstrap interval; all two-sided at 1 − α), the data show

* **PASS** — the candidate within the limit: the whole interval on the good side of it (non-inferiority);
* **FAIL** — the candidate worse than the limit beyond chance: the whole interval past it;
* **INCONCLUSIVE** — neither: the interval holds the limit.

FAIL used to be a breach of the limit by the point estimate with a test *against 0*: with a limit above 0 a
true delta between 0 and the limit could FAIL (``bench/gate_labels.py`` measured it FAIL 6-8 % of plans on a
pair within its limit). Testing the limit on both sides with one interval gives both claims the same
error rate: each side of a two-sided interval at 1 − α is a one-sided test at α / 2, so a candidate exactly
at the limit is called FAIL in at most α / 2 of gold sets and PASS in at most α / 2. ``point`` mode keeps its
two outcomes: any breach of the point estimate fails.
"""

from __future__ import annotations

FAIL, PASS, INCONCLUSIVE = "FAIL", "PASS", "INCONCLUSIVE"
#: Slack for a bound that equals the limit up to the 6 places every bound is rounded to.
_TOLERANCE = 1e-9


def breaches(delta: float | None, limit: float, drop: bool) -> bool:
    """Whether the point estimate lies past the limit: below ``-limit`` for a drop rule, above ``limit`` for a rise."""
    if delta is None:
        return False
    return delta < -limit if drop else delta > limit


def past_limit(low: float, high: float, limit: float, drop: bool) -> bool:
    """Whether the whole interval ``[low, high]`` lies past the limit (worse than it beyond chance)."""
    return high < -limit - _TOLERANCE if drop else low > limit + _TOLERANCE


def within_limit(low: float, high: float, limit: float, drop: bool) -> bool:
    """Whether the whole interval lies on the good side of the limit (non-inferiority shown); touching it counts."""
    return low >= -limit - _TOLERANCE if drop else high <= limit + _TOLERANCE


def three_way(delta: float | None, interval: tuple[float, float] | None, limit: float, drop: bool, mode: str) -> str:
    """:data:`FAIL`, :data:`PASS` or :data:`INCONCLUSIVE` (module docstring); ``point`` mode: FAIL on any breach.

    ``interval`` ``None`` (no question of the population, no interval) or a ``delta`` of ``None`` shows
    nothing: INCONCLUSIVE. FAIL also needs the point estimate past the limit, PASS it within, so a verdict
    never contradicts the delta printed beside it.
    """
    breached = breaches(delta, limit, drop)
    if mode == "point":
        return FAIL if breached else PASS
    if delta is None or interval is None:
        return INCONCLUSIVE
    low, high = interval
    if breached and past_limit(low, high, limit, drop):
        return FAIL
    if not breached and within_limit(low, high, limit, drop):
        return PASS
    return INCONCLUSIVE

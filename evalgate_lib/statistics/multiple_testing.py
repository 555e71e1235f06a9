"""Several candidates against one baseline: p-values adjusted for how many were tried.

Testing three candidates against the same baseline at ``alpha = 0.05`` gives three chances to
see a "significant" regression that is noise; with ten candidates, a clean set of candidates
would show one such false regression about 40% of the time. Holm's step-down method keeps the
chance of *any* false call within the family at ``alpha`` while giving up less power than
Bonferroni's ``p × m``, and it needs no assumption about how the tests depend on each other
(the candidates share the baseline's answers, so they do depend on each other).

Method (Holm 1979): sort the ``m`` p-values ascending, ``p(1) ≤ … ≤ p(m)``; the ``i``-th smallest
is multiplied by ``m - i + 1``; each adjusted value is the running maximum of those products
(so the order of the p-values is kept) and capped at 1. A hypothesis is rejected at level
``alpha`` exactly when its adjusted p is below ``alpha``. With one p-value nothing changes.
"""

from __future__ import annotations

import math
from typing import Sequence


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (not sorted), each in [0, 1], rounded to 6
    places as every published float is (so a rerun is byte-identical and ``0.0125 × 4`` is ``0.05``).

    Ties keep their input order when sorted, which does not change any value (tied p-values
    get the same adjusted p through the running maximum). Raises ``ValueError`` for a value
    outside [0, 1] or NaN: a missing p-value must be left out of the family by the caller, not
    passed as NaN, so that ``m`` counts only the tests really made.
    """
    for i, p in enumerate(p_values):
        if not isinstance(p, (int, float)) or math.isnan(p) or not 0.0 <= p <= 1.0:
            raise ValueError(f"p_values[{i}] = {p!r} is not a p-value in [0, 1]")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[index])))
        adjusted[index] = round(running, 6)
    return adjusted

"""Token-bounded containment: the one definition of "this accepted string occurs in that text".

It lives in the lowest layer because two places must agree on it exactly: the
correctness judge (:mod:`evalgate_lib.judging.correctness`, ``token`` rule) and the
gold-set check (:mod:`evalgate_lib.gold_tools.gold_check`), which shows where an accept
string occurs. If they used different rules, the check would report an accept
string as found where the judge would never match it, or the other way round.
"""

from __future__ import annotations

import re


def bounded_pattern(needle: str) -> re.Pattern[str]:
    """A pattern finding ``needle`` with no letter or digit glued to its ends (no ``1,`` / ``1.`` before a number).

    ``needle`` and the searched text must both be case-folded by the caller. An edge
    that is itself punctuation (``$10``, ``--no-cache-dir``) needs no boundary there.
    So "3 seats" is not inside "13 seats", and "10" is not inside "10.5". An underscore glues like a letter:
    ``params`` is not inside ``get_response_params`` (an identifier is never part of a longer one).
    """
    left = r"(?<![0-9a-z_])(?<!\d[.,])" if needle[0].isalnum() else ""
    right = r"(?![0-9a-z_])(?![.,]\d)" if needle[-1].isalnum() else ""
    return re.compile(left + re.escape(needle) + right)

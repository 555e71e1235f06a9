"""Token-bounded containment: the one definition of "this accepted string occurs in that text".

It lives in the lowest layer because two places must agree on it exactly: the
correctness judge (:mod:`evalgate_lib.judging.correctness`, ``token`` rule) and the
gold-set check (:mod:`evalgate_lib.gold_tools.gold_check`), which shows where an accept
string occurs. If they used different rules, the check would report an accept
string as found where the judge would never match it, or the other way round.

Unicode has two spellings of an accented letter: composed (NFC, ``é`` one code point, what most
editors write) and decomposed (NFD, ``e`` + U+0301, what macOS file names and some copy-paste
paths give). A reader sees one word; a comparison of code points sees two. The pattern accepts
both spellings of every letter of the needle, and the searched text keeps its own (a match's
position is a position in the text as given, which the gold check shows). For the same reason a
character a reader does not see (a soft hyphen, a zero-width joiner:
:data:`~evalgate_lib.text.tokens.INVISIBLE`) may sit between any two letters of a match.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from evalgate_lib.text.tokens import INVISIBLE

#: Combining marks (U+0300-U+036F): an accent written after its letter glues to it like a letter.
_COMBINING = "\u0300-\u036f"
#: What may sit unseen between two letters of a match (a soft hyphen, zero-width characters).
_UNSEEN = f"[{INVISIBLE}]*"
_DROPPED = dict.fromkeys(map(ord, INVISIBLE))


@lru_cache(maxsize=4096)
def _either_form(char: str) -> str:
    """``char`` (composed) or its decomposed spelling, as a regular expression."""
    decomposed = unicodedata.normalize("NFD", char)
    if decomposed == char:
        return re.escape(char)
    return f"(?:{re.escape(char)}|{re.escape(decomposed)})"


def bounded_pattern(needle: str) -> re.Pattern[str]:
    """A pattern finding ``needle`` with no letter or digit glued to its ends (no ``1,`` / ``1.`` before a number).

    ``needle`` and the searched text must both be case-folded by the caller. An edge
    that is itself punctuation (``$10``, ``--no-cache-dir``) needs no boundary there.
    So "3 seats" is not inside "13 seats", and "10" is not inside "10.5". An underscore glues like a letter:
    ``params`` is not inside ``get_response_params`` (an identifier is never part of a longer one).
    Each accented letter matches in either Unicode spelling (module docstring), an invisible character
    may sit between two letters, and a combining accent after the needle's last letter glues to it:
    "cafe" is not inside "café" spelled decomposed.
    """
    composed = unicodedata.normalize("NFC", needle.translate(_DROPPED))
    body = _UNSEEN.join(re.escape(ch) if ch.isascii() else _either_form(ch) for ch in composed)
    left = r"(?<![0-9a-z_])(?<!\d[.,])" if composed[0].isalnum() else ""
    right = rf"(?![0-9a-z_{_COMBINING}])(?![.,]\d)" if composed[-1].isalnum() else ""
    return re.compile(left + body + right)


def canonical(text: str) -> str:
    """``text`` in its composed Unicode spelling (NFC): the one spelling of an id that is compared with another.

    An article id from a file name written on macOS (decomposed) and the same id typed into a gold
    file (composed) are one id to a reader; every id EvalGate reads (article, question, passage
    ``doc_id``) goes through here, so they are one id to EvalGate too.
    """
    return text if text.isascii() else unicodedata.normalize("NFC", text)

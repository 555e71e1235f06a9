"""What a piece of text states, in the terms the judge compares: words, exact tokens, quantities, negation.

A claim and the span that may hold it are read the same way, by :func:`terms_of`:

* **words** — its content words, compared by their Snowball English stem ("requires" = "requirement"),
  number words as digits, English stopwords and the lexicon's ``filler`` words left out, list numbering
  dropped. Word order does not matter here: a paraphrase reorders.
* **exact tokens** — what a paraphrase may not change: numbers (``1,000`` = ``1000``, ``95.0`` = ``95``,
  number words as digits except the pronoun "one"), command-line options (``--no-cache-dir``), dotted,
  slashed and underscored names (``pip.conf``, ``~/.cache/pip``, ``PIP_INDEX_URL``), names written like
  code (``crlfDelay``, ``uuid4``, ``HTTPDigestAuth``), the names among its code spans (``C``), and menu
  paths (``Settings > Security``, one name). Compared case-folded, as written.
* **quantities** — each number with its unit of measure (the lexicon's ``units``): "10 days" is
  ``("10", "day")``, "$18" ``("18", "$")``, "95 %" ``("95", "%")``; a range gives its unit to both ends.
* **negated** — whether it negates (the lexicon's ``negations``, "n't" read as "not") outside a
  conditional clause ("if it is not set, …" states a condition, not a negation).

Everything is a pure, memoised function of the string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from evalgate_lib.judging.lexicon import (
    FILLER,
    NEGATIONS,
    NUMBER_WORDS,
    RANGES,
    STOPWORDS,
    UNITS,
    reading_tokens,
    spell_out,
)
from evalgate_lib.judging.normalise import normalise_text
from evalgate_lib.text.tokens import distinct_tokens, fold

_STEMMER = snowballstemmer.stemmer("english")

#: Exact tokens as written (case-folded): options, dotted/slashed/underscored names, numbers.
_EXACT = re.compile(
    r"(?<![\w.-])-{1,2}[a-z][\w-]*(?:=[\w.:/-]+)?"  # --no-cache-dir, -r, --use-feature=truststore
    r"|(?<![\w\\%])(?:[a-z]:|%[a-z_]+%)(?:\\+[\w.$-]+)+"  # c:\programdata\pip\pip.ini, %appdata%\pip: one path
    r"|(?<![\w~])~?[a-z_][\w-]*(?:[./][\w-]+)+"  # pip.conf, a/b/c, ~/.cache/pip
    r"|(?<![\w.])\.[a-z_][\w-]*"  # .netrc
    r"|(?<![\w.-])[a-z_][a-z0-9]*(?:_\w+|\d\w*)"  # pip_index_url, lib3_db_config, sha256: one name, never a number
    r"|(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*(?:-\d\w*)+"  # sha-1, utf-8, iso-8859-1: a name ending in digits
    r"|(?<![\w.-])(?=[\da-f-]{8,}(?![\w.-]))(?=[\da-f-]*[a-f])(?=[\da-f-]*\d)[\da-f]+(?:-[\da-f]+)+"  # a uuid
    r"|(?<![\w.])(?<![a-z]-)\d+(?:[.,]\d+)*"  # 10, 1.10, 1,000, 3.7 (a digit inside a name is the name's)
)
_BACKSLASHES = re.compile(r"\\+")
#: Two words joined by a slash in prose ("Reads/Writes", "read/write", "and/or"): an alternation of the two words,
#: not a path (a path in prose has a dot, a tilde or a third part; one in a code span stays a name).
_ALTERNATION = re.compile(r"(?<![\w./~\\-])[a-z]{2,}/[a-z]{2,}(?![\w/.\\-])")
#: A placeholder an example writes for the reader's own value (``<column>``, ``<package-name>``), or its choices
#: (``<yes|no>``): its data, never a name the documentation gives and never a menu path.
_PLACEHOLDER = re.compile(r"<[A-Za-z][\w .|-]{0,40}>")
#: An option written with its choices (``--stacks=<yes|no>``, ``--color=[auto|never]``, ``--mode={a,b}``): it gives
#: the option with each of them, as a claim writes it (``--stacks=no``).
_CHOICES = re.compile(r"(?<![\w.-])(-{1,2}[a-z][\w-]*)=[<\[{]([\w.-]+(?:[|,][\w.-]+)+)[>\]}]")
#: A name written like code, in its own case: an inner capital (``crlfDelay``, ``HTTPDigestAuth``) or letters and
#: digits together (``uuid4``, ``ipv4first``, ``sha256``); not a folder of a Windows path (``C:\\ProgramData``).
_CODE_SHAPED = re.compile(
    r"(?<![\w$.\\-])(?:[a-z]+[A-Z]\w*|[A-Z]\w*[a-z]\w*[A-Z]\w*|[A-Za-z]+\d+[A-Za-z\d]*)(?![\w$-])"
)
#: A code span that names one thing: an identifier, a dotted name, a call without arguments, a quoted word.
_CODE_NAME = re.compile(r"^(['\"]?)([A-Za-z_$][\w$+-]*(?:(?:\.|::?|->)[A-Za-z_$][\w$+-]*)*)(?:\(\))?\1$")
#: A menu or breadcrumb path ("Admin console > Billing > Add-ons").
_MENU = re.compile(r"[^\s>][^>\n]*?(?:\s*>\s*[^\s>][^>\n]*?)+(?=[.,;:)!?]*(?:\s|$))")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•]\s+|\(?\d{1,2}[.)]\s+)")
#: A conditional or relative clause ("if it is not set", "users who can't migrate"), and "not only": a negation
#: there is the condition's or the relative's, not the claim's.
_CONDITION = re.compile(r"\b(?:if|unless|when|whenever|whether|in case|who|that|which)\b[^,;:.]*|\bnot only\b")


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """One compared word: a number word as its digits, a number as written, else its Snowball English stem."""
    if token in NUMBER_WORDS and token != "one":
        return str(NUMBER_WORDS[token])
    if token[0].isdigit():
        return canonical_number(token)
    return _STEMMER.stemWord(token)


def canonical_number(token: str) -> str:
    """A number as compared: thousands separators dropped, an all-zero fraction dropped (``95.0`` = ``95``)."""
    token = token.replace(",", "")
    if re.fullmatch(r"\d+\.0+", token):
        return token.split(".")[0]
    return token


def code_names(code: tuple[str, ...]) -> frozenset[str]:
    """The names among code spans, case-folded, without quotes or a call's ``()`` (a command adds nothing)."""
    out = set()
    for span in code:
        found = _CODE_NAME.match(span.strip())
        if found and len(found.group(2)) <= 60:
            out.add(fold(found.group(2)))
    return frozenset(out)


def menu_paths(text: str) -> frozenset[str]:
    """The menu paths of ``text`` ("Open Settings > Security > 2FA and click Save" → ``settings > security > 2fa``):
    the first step read as its last word, the last as its capitalised words, so the sentence around a path never
    becomes part of it."""
    out = set()
    for found in _MENU.finditer(text):
        steps = [step.strip(" *_`'\"") for step in found.group().split(">")]
        if len(steps) < 2 or not all(steps):
            continue
        words = steps[-1].split()
        if not words:  # a step of other white space only ("a >\u00a0b")
            continue
        last = [words[0]]
        for word in words[1:3]:
            if not (word[:1].isupper() or word[:1].isdigit()):
                break
            last.append(word)
        shown = [steps[0].split()[-1], *steps[1:-1], " ".join(last)]
        if all(re.search(r"[A-Za-z]", step) for step in shown):
            out.add(" > ".join(fold(step) for step in shown))
    return frozenset(out)


@dataclass(frozen=True)
class Terms:
    """What a text states: counted words, exact tokens, quantities and whether it negates (module docstring)."""

    words: frozenset[str]
    exact: frozenset[str]
    quantities: frozenset[tuple[str, str]]
    negated: bool

    @property
    def own_words(self) -> frozenset[str]:
        """Its words that are not numbers: what it says in words of its own."""
        return frozenset(w for w in self.words if not w[0].isdigit())


def _without_marker(text: str) -> str:
    return _LIST_MARKER.sub("", text, count=1) if text[:4].strip()[:1] in "-*+•(0123456789" else text


@lru_cache(maxsize=65536)
def terms_of(text: str, code: tuple[str, ...] = ()) -> Terms:
    """The terms of ``text`` (module docstring); ``code`` are its code spans, whose names are exact tokens."""
    text = _without_marker(text)
    choices = {f"{option}={c}" for option, listed in _CHOICES.findall(fold(text)) for c in re.split("[|,]", listed)}
    text = _PLACEHOLDER.sub(" ", text)
    tokens = distinct_tokens(text)
    words = frozenset(stem(t) for t in tokens - STOPWORDS - FILLER if len(t) > 1 or t.isdigit())
    folded = fold(text)
    exact = {canonical_number(m.rstrip(".")) if m[0].isdigit() else m.rstrip(".:") for m in _EXACT.findall(folded)}
    exact |= choices
    exact = {_BACKSLASHES.sub(r"\\", m) if "\\" in m else m for m in exact}  # a path escaped in source: one separator
    in_code = fold(" ".join(code))
    exact -= {m for m in _ALTERNATION.findall(folded) if m not in in_code}
    exact.update(fold(m) for m in _CODE_SHAPED.findall(text))
    exact.update(code_names(code))
    if ">" in text:
        exact.update(menu_paths(text))
    runs = {run for t in tokens for run in t.split("'")}
    exact.update(str(NUMBER_WORDS[t]) for t in runs if t in NUMBER_WORDS and t != "one")
    exact.discard("")
    return Terms(words, frozenset(exact) - FILLER, quantities(text), negates(text))


@lru_cache(maxsize=65536)
def negates(text: str) -> bool:
    """Whether ``text`` negates outside a conditional clause (the lexicon's ``negations``; "n't" is "not")."""
    spelled = _CONDITION.sub(" ", spell_out(text))
    return bool(NEGATIONS.intersection(reading_tokens(spelled)))


_NUMBER = re.compile(r"^\$?\d+(?:\.\d+)?%?$")


@lru_cache(maxsize=65536)
def quantities(text: str, number_words: bool = True) -> frozenset[tuple[str, str]]:
    """Each number of ``text`` with its unit of measure: ``("10", "day")``, ``("18", "$")``, ``("95", "%")``.

    A number's unit is the word right after it, or after a range's other end ("30 to 365 days"); a number with no
    unit there is not a quantity (a count's noun is a word of the claim).
    ``number_words=False`` reads only numbers written in digits.
    """
    out: set[tuple[str, str]] = set()
    for line in text.split("\n"):
        tokens = normalise_text(line.replace("€", " euro "), number_words).split()
        units = _units_after(tokens)
        for i, token in enumerate(tokens):
            if not _NUMBER.match(token):
                continue
            number = token.strip("$%")
            if token.startswith("$"):
                out.add((number, "$"))
            elif token.endswith("%"):
                out.add((number, "%"))
            elif units[i]:
                out.add((number, units[i]))
    return frozenset(out)


def _units_after(tokens: list[str]) -> list[str | None]:
    """For each position, the unit that follows it across numbers and range words ("30 to 365 days", "1, 2 or
    5 GB"), else ``None``: read once from the right, so a line of 40,000 numbers costs 40,000 steps, not their
    square (each number once walked past every number after it)."""
    after: list[str | None] = [None] * len(tokens)
    following: str | None = None  # what the token at i + 1 passes on to i
    for i in range(len(tokens) - 1, -1, -1):
        after[i] = following
        token = tokens[i]
        if token in UNITS:
            following = token
        elif not (token in RANGES or _NUMBER.match(token)):
            following = None
    return after

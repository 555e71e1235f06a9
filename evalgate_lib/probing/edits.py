"""Edits of a faithful answer, one kind at a time, whose construction is the label (CheckList / SummEdits style).

A probe takes an answer the passages support and changes it in exactly one way. Eight kinds make it
unsupported — a value or name the passages never give, a value or name they give *for something else*, a
unit, a negation, a flipped qualifier, one baseless sentence — and five keep it supported: the answer
unchanged, its numbers written another way, a part of it, a hedged or polite frame, light paraphrase. The
judge is then asked about each edited answer: an unsupported kind it does not flag is a miss; a supported
kind it flags is a false alarm.

Every edit is a pure function of the answer, its passages and (for a baseless sentence) sentences from
documents outside the passages; where several places could be edited, the choice is made by a hash of the
base's key, so a probe is the same on every machine. The word lists below are the **probe's own**: the
judge has a lexicon of opposing qualifiers and units too, but a probe that flipped only the judge's pairs
would measure the judge against its own word list. These lists are deliberately wider than the judge's.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from evalgate_lib.text.tokens import answer_sentences


@dataclass(frozen=True)
class Base:
    """A faithful answer to edit: its question, the passages it was written from, and what the edits need."""

    key: str
    question: str
    answer: str
    passages: tuple[tuple[str, str], ...]
    accept: tuple[str, ...] = ()
    #: Sentences of documents the passages do not come from: a baseless addition is one of them.
    elsewhere: tuple[str, ...] = ()
    #: Where the base came from: ``evidence`` (the gold evidence as the answer) or ``labelled`` (a reviewer's
    #: faithful answer).
    source: str = "evidence"


@dataclass(frozen=True)
class Edit:
    """One edited answer: its kind, the whole new answer, and the text changed (before → after)."""

    kind: str
    answer: str
    before: str
    after: str


@dataclass(frozen=True)
class EditKind:
    """One kind of edit: its id, how it reads in a table, whether it makes the answer unsupported, and the edit."""

    id: str
    title: str
    unsupported: bool
    what: str
    apply: Callable[[Base], Edit | None]


# --------------------------------------------------------------------------------------------- where to edit

#: Sentences that decline or ask are not edited: an edit there changes no claim.
_NO_CLAIM = re.compile(
    r"\b(?:do(?:es)?\s*n[o']t\s+(?:know|say|mention|specify|cover|state|provide)|not\s+(?:mentioned|specified|"
    r"stated|provided|covered|documented|say)|no\s+information|could\s*n[o']t\s+find|can\s*n[o']t\s+find|"
    r"unable\s+to|i\s+don't\s+know)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_URL = re.compile(r"\bhttps?://\S+|\]\([^)]*\)")
_CITATION = re.compile(r"\[\d+(?:\s*[,-]\s*\d+)*\]")


def _pick(key: str, kind: str, count: int) -> int:
    """A stable choice among ``count`` places: the same on every machine for the same base and kind."""
    digest = hashlib.sha256(f"{key}\x00{kind}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % count


def _blocked(answer: str, code_too: bool = True) -> list[tuple[int, int]]:
    """Ranges an edit must not touch: code blocks, URLs, citation marks, and sentences that decline or ask (and
    inline code, unless a name there is what is edited)."""
    out = [m.span() for m in _FENCE.finditer(answer)]
    out += [m.span() for m in _URL.finditer(answer)] + [m.span() for m in _CITATION.finditer(answer)]
    if code_too:
        out += [m.span() for m in _INLINE_CODE.finditer(answer)]
    for start, end in _sentences(answer):
        text = answer[start:end]
        if _NO_CLAIM.search(text) or text.rstrip().endswith("?") or text.rstrip().endswith(":"):
            out.append((start, end))
    return out


def _free(span: tuple[int, int], blocked: Sequence[tuple[int, int]]) -> bool:
    return not any(a < span[1] and span[0] < b for a, b in blocked)


def _replace(answer: str, span: tuple[int, int], new: str) -> str:
    return answer[: span[0]] + new + answer[span[1] :]


def _context(base: Base) -> str:
    return "\n".join(f"{title}\n{text}" for title, text in base.passages)


def _same_case(model: str, word: str) -> str:
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _choose(base: Base, kind: str, options: Sequence[Edit]) -> Edit | None:
    return options[_pick(base.key, kind, len(options))] if options else None


# --------------------------------------------------------------------------------------------- numbers and units

#: Units a probe changes, in families of one dimension, smallest first. Each entry is (singular, plural).
UNIT_FAMILIES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("byte", "bytes"), ("KB", "KB"), ("MB", "MB"), ("GB", "GB"), ("TB", "TB")),
    (("KiB", "KiB"), ("MiB", "MiB"), ("GiB", "GiB"), ("TiB", "TiB")),
    (("kilobyte", "kilobytes"), ("megabyte", "megabytes"), ("gigabyte", "gigabytes"), ("terabyte", "terabytes")),
    (
        ("millisecond", "milliseconds"),
        ("second", "seconds"),
        ("minute", "minutes"),
        ("hour", "hours"),
        ("day", "days"),
        ("week", "weeks"),
        ("month", "months"),
        ("year", "years"),
    ),
    (("ms", "ms"), ("s", "s"), ("min", "min"), ("h", "h")),
    (("dollar", "dollars"), ("euro", "euros")),
    (("USD", "USD"), ("EUR", "EUR")),
)
_UNIT_STEP: dict[str, tuple[str, str]] = {}
for _family in UNIT_FAMILIES:
    for _i, (_one, _many) in enumerate(_family):
        _up = _family[_i + 1] if _i + 1 < len(_family) else None
        _down = _family[_i - 1] if _i else None
        for _form, _plural in ((_one, False), (_many, True)):
            _UNIT_STEP.setdefault(
                _form,
                ((_up or _down)[int(_plural)], (_down or _up)[int(_plural)]),  # type: ignore[index]
            )

_NUMBER = re.compile(
    r"(?<![\w.$/\\#-])(?<!\d,)(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?P<glued>[A-Za-z%]+)?(?![\w/]|[.,]\d)"
    r"(?P<space>[ \u00a0])?(?P<unit>[A-Za-z]+)?"
)
_LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s")


@dataclass(frozen=True)
class _Number:
    span: tuple[int, int]  # the number itself
    text: str
    value: str  # canonical: no thousands separators
    unit: str | None
    unit_span: tuple[int, int] | None


def canonical(number: str) -> str:
    """A number as compared: no thousands separators, no all-zero fraction ("1,000" = "1000", "5.0" = "5")."""
    plain = number.replace(",", "")
    return plain.split(".")[0] if re.fullmatch(r"\d+\.0+", plain) else plain


def _numbers_of(text: str) -> list[_Number]:
    out = []
    for m in _NUMBER.finditer(text):
        glued, unit = m.group("glued"), m.group("unit")
        if glued and glued not in _UNIT_STEP and glued != "%":
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        if _LIST_NUMBER.match(text[line_start : m.end("num") + 2]) and text[line_start : m.start()].strip() == "":
            continue
        if glued:
            found_unit, span = glued, m.span("glued")
        elif unit and unit in _UNIT_STEP:
            found_unit, span = unit, m.span("unit")
        else:
            found_unit, span = None, None
        out.append(_Number(m.span("num"), m.group("num"), canonical(m.group("num")), found_unit, span))
    return out


def context_numbers(text: str) -> dict[str, set[str | None]]:
    """Every number of ``text`` (canonical) with the units it is given with (``None``: bare)."""
    out: dict[str, set[str | None]] = {}
    for n in _numbers_of(text):
        out.setdefault(n.value, set()).add(n.unit.casefold() if n.unit else None)
    return out


def _editable_numbers(base: Base) -> list[_Number]:
    blocked = _blocked(base.answer)
    return [n for n in _numbers_of(base.answer) if _free(n.span, blocked)]


def _formatted(value: str, like: str) -> str:
    if "," in like and "." not in value:
        return f"{int(value):,}"
    return value


def _invent_number(value: str, taken: set[str]) -> str | None:
    if "." in value:
        whole, _, frac = value.partition(".")
        options = [f"{whole}.{int(frac) + 5}", f"{int(whole) + 1}.{frac}"]
    else:
        n = int(value)
        options = [str(n * 2), str(n + 1), str(n * 10), str(n + 7)] if n else ["1", "2"]
    return next((o for o in options if o not in taken), None)


def number_invented(base: Base) -> Edit | None:
    """A number the passages give, replaced by one that appears nowhere in them."""
    given = context_numbers(_context(base))
    taken = set(given) | set(context_numbers(base.answer))
    options = []
    for n in _editable_numbers(base):
        if n.value not in given:
            continue
        new = _invent_number(n.value, taken)
        if new is not None:
            shown = _formatted(new, n.text)
            options.append(Edit("number_invented", _replace(base.answer, n.span, shown), n.text, shown))
    return _choose(base, "number_invented", options)


def number_swapped(base: Base) -> Edit | None:
    """A number of the answer replaced by another the passages give for something else (with the same unit when
    the answer gives one)."""
    context = _context(base)
    given = context_numbers(context)
    in_answer = set(context_numbers(base.answer))
    options = []
    for n in _editable_numbers(base):
        if n.value not in given:
            continue
        unit = n.unit.casefold() if n.unit else None
        year = len(n.value) == 4 and n.value[:2] in ("19", "20")
        rivals = sorted(
            v
            for v, units in given.items()
            if v != n.value
            and v not in in_answer
            and (unit in units if unit else True)
            and (len(v) == 4 and v[:2] in ("19", "20")) == year
            and not (unit is None and len(v) > 6)
        )
        if not rivals:
            continue
        new = rivals[_pick(base.key, f"swap{n.value}", len(rivals))]
        shown = _formatted(new, n.text)
        options.append(Edit("number_swapped", _replace(base.answer, n.span, shown), n.text, shown))
    return _choose(base, "number_swapped", options)


def unit_changed(base: Base) -> Edit | None:
    """A number's unit replaced by another of its dimension (KB → MB, seconds → minutes)."""
    context = _context(base).casefold()
    options = []
    for n in _editable_numbers(base):
        if n.unit is None or n.unit_span is None or n.unit not in _UNIT_STEP:
            continue
        up, down = _UNIT_STEP[n.unit]
        new = up if _pick(base.key, f"unit{n.value}", 2) else down
        if new == n.unit:
            continue
        sep = base.answer[n.span[1] : n.unit_span[0]]
        if f"{n.text}{sep}{new}".casefold() in context:
            continue
        before = base.answer[n.span[0] : n.unit_span[1]]
        options.append(Edit("unit_changed", _replace(base.answer, n.unit_span, new), before, f"{n.text}{sep}{new}"))
    return _choose(base, "unit_changed", options)


# --------------------------------------------------------------------------------------------- names

#: Identifiers as documentation writes them: options, calls, dotted, snake, constant, camel case, letters with digits.
_NAME = re.compile(
    r"(?<![\w./$-])(?:--?[A-Za-z][\w-]*|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_]\w*\(\)"
    r"|[a-z]+_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Za-z]+\d+[A-Za-z\d]*)(?![\w-])"
)
#: A capitalised word inside a sentence: a product, plan, role or mode name when the passages write it so too.
_PROPER = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]{2,}(?![\w-])")


def _shape(name: str) -> str:
    if name.startswith("--"):
        return "long option"
    if name.startswith("-"):
        return "short option"
    if name.endswith("()"):
        return "call"
    if "." in name:
        return "dotted"
    if re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+", name):
        return "constant"
    if "_" in name:
        return "snake"
    if re.search(r"\d", name):
        return "digits"
    if re.fullmatch(r"[A-Z][a-z]{2,}", name):
        return "proper"
    return "camel"


#: Abbreviations written like dotted names: never a name.
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "a.k.a", "e.g.", "i.e."})
#: Capitalised words that are not names when they stand inside a sentence.
_NOT_PROPER = frozenset({"The", "This", "That", "These", "Those", "There", "Then", "When", "If", "For", "And", "But"})


def _names_of(text: str) -> list[tuple[tuple[int, int], str]]:
    out = [(m.span(), m.group()) for m in _NAME.finditer(text) if m.group().casefold() not in _ABBREVIATIONS]
    out += [(m.span(), m.group()) for m in _PROPER.finditer(text) if m.group() not in _NOT_PROPER]
    return sorted(out)


def _proper_names(text: str) -> set[str]:
    return {m.group() for m in _PROPER.finditer(text)}


def _editable_names(base: Base) -> list[tuple[tuple[int, int], str]]:
    blocked = _blocked(base.answer, code_too=False)
    context = _context(base)
    proper = _proper_names(context)
    folded = context.casefold()
    out = []
    for span, name in _names_of(base.answer):
        if not _free(span, blocked):
            continue
        if _shape(name) == "proper":
            if name not in proper or name.casefold() in base.question.casefold():
                continue
        elif name.casefold() not in folded:
            continue
        out.append((span, name))
    return out


def _same_name(a: str, b: str) -> bool:
    """Whether two names are one: the same, one the other's qualified form (requests.auth,
    requests.auth.HTTPDigestAuth), or one the other's plural ("an Admin", "the Admins"; --alloc-fn, "the
    --alloc-fns"): a swap between them names nothing else, so its construction would label a faithful answer
    unsupported."""
    if a + "s" == b or b + "s" == a:
        return True
    return a == b or a.startswith(b + ".") or b.startswith(a + ".") or a.endswith("." + b) or b.endswith("." + a)


def name_swapped(base: Base) -> Edit | None:
    """A name of the answer replaced by another name of its shape that the passages give (another option, mode,
    function or plan), preferring one the passages write on the same line as it."""
    context = _context(base)
    lines = context.split("\n")
    in_answer = {n.casefold() for _, n in _names_of(base.answer)}
    by_shape: dict[str, list[str]] = {}
    for _, name in _names_of(context):
        if name.casefold() not in in_answer:
            by_shape.setdefault(_shape(name), [])
            if name not in by_shape[_shape(name)]:
                by_shape[_shape(name)].append(name)
    options = []
    for span, name in _editable_names(base):
        low = name.casefold().rstrip("()")
        rivals = [r for r in by_shape.get(_shape(name), []) if not _same_name(low, r.casefold().rstrip("()"))]
        if _shape(name) == "proper":
            rivals = [r for r in rivals if r.casefold() not in base.question.casefold()]
        near = [r for r in rivals if any(name in line and r in line for line in lines)]
        # a product, plan or mode name is swapped only for one the passages name beside it (one of its kind)
        pool = sorted(near if _shape(name) == "proper" else near or rivals)
        if not pool:
            continue
        new = pool[_pick(base.key, f"name{name}", len(pool))]
        options.append(Edit("name_swapped", _replace(base.answer, span, new), name, new))
    return _choose(base, "name_swapped", options)


#: Parts of identifiers and their plausible neighbours: an invented name is one a writer could believe exists.
NAME_PARTS: dict[str, str] = {
    "dir": "path",
    "path": "dir",
    "url": "host",
    "host": "url",
    "cache": "store",
    "index": "registry",
    "timeout": "deadline",
    "user": "account",
    "config": "settings",
    "file": "path",
    "name": "label",
    "size": "length",
    "max": "limit",
    "min": "floor",
    "get": "fetch",
    "set": "update",
    "read": "load",
    "write": "save",
    "enable": "allow",
    "disable": "block",
    "token": "key",
    "auth": "login",
    "request": "call",
    "response": "reply",
    "header": "meta",
    "headers": "metadata",
    "list": "items",
    "count": "total",
    "default": "fallback",
    "mode": "style",
    "level": "depth",
    "retries": "attempts",
    "proxy": "gateway",
    "cert": "certificate",
    "verify": "check",
    "session": "context",
    "stream": "chunked",
    "json": "yaml",
    "data": "payload",
    "install": "setup",
    "upgrade": "update",
}


def _invented(name: str, taken: str) -> str | None:
    parts = re.split(r"([-_.]|(?<=[a-z])(?=[A-Z]))", name)
    for i in range(len(parts) - 1, -1, -1):
        low = parts[i].casefold()
        if low in NAME_PARTS:
            new_part = _same_case(parts[i], NAME_PARTS[low])
            candidate = "".join(parts[:i] + [new_part] + parts[i + 1 :])
            if candidate.casefold() not in taken:
                return candidate
    suffix = {"long option": "-all", "snake": "_all", "constant": "_ALL", "dotted": "_all", "call": ""}.get(
        _shape(name)
    )
    if suffix is None:
        return None
    if name.endswith("()"):
        candidate = name[:-2] + "_all()"
    else:
        candidate = name + suffix
    return candidate if candidate.casefold() not in taken else None


def name_invented(base: Base) -> Edit | None:
    """A code-like name of the answer (option, function, variable) turned into one the passages never give."""
    taken = _context(base).casefold() + "\n" + base.answer.casefold()
    options = []
    for span, name in _editable_names(base):
        if _shape(name) == "proper":
            continue
        new = _invented(name, taken)
        if new is not None:
            options.append(Edit("name_invented", _replace(base.answer, span, new), name, new))
    return _choose(base, "name_invented", options)


# --------------------------------------------------------------------------------------------- polarity

#: Negations removed (the verb kept) and added: the probe's own list.
_NEGATED = re.compile(
    r"\b(?P<aux>is|are|was|were|can|could|will|would|should|must|does|do|did|has|have|may|might)\s+not\b"
    r"|\b(?P<short>isn't|aren't|wasn't|weren't|can't|cannot|won't|doesn't|don't|didn't|shouldn't|mustn't|hasn't|"
    r"haven't|wouldn't|couldn't)\b|\b(?P<never>never)\s+|\b(?P<nolonger>no longer)\b",
    re.IGNORECASE,
)
_POSITIVE_FORM = {
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "can't": "can",
    "cannot": "can",
    "won't": "will",
    "doesn't": "does",
    "don't": "do",
    "didn't": "did",
    "shouldn't": "should",
    "mustn't": "must",
    "hasn't": "has",
    "haven't": "have",
    "wouldn't": "would",
    "couldn't": "could",
}
_AUXILIARY = re.compile(r"\b(is|are|was|were|can|will|should|must|does|do|may)\b(?!\s+not\b|n't)", re.IGNORECASE)
_SWITCHED = re.compile(r"\b(true|false|on|off)\b(?=[`'\"]?\s*(?:[.,;)]|$|by default|in\b|for\b))", re.IGNORECASE)
_SWITCH = {"true": "false", "false": "true", "on": "off", "off": "on"}


def negation(base: Base) -> Edit | None:
    """A claim's polarity flipped: a negation removed ("is not" → "is", "cannot" → "can") or added ("is" → "is
    not", "can" → "cannot"), or a boolean setting switched (true ↔ false, on ↔ off)."""
    blocked = _blocked(base.answer)
    options = []
    for m in _NEGATED.finditer(base.answer):
        if not _free(m.span(), blocked):
            continue
        if m.group("aux"):
            new = m.group("aux")
        elif m.group("short"):
            new = _same_case(m.group("short"), _POSITIVE_FORM[m.group("short").casefold()])
        elif m.group("never"):
            new = ""
        else:
            new = _same_case(m.group("nolonger"), "still")
        options.append(Edit("negation", _replace(base.answer, m.span(), new), m.group(), new))
    if not options:
        for m in _AUXILIARY.finditer(base.answer):
            if _free(m.span(), blocked):
                word = m.group(1)
                new = "cannot" if word.casefold() == "can" else f"{word} not"
                options.append(Edit("negation", _replace(base.answer, m.span(), _same_case(word, new)), word, new))
                break
    if not options:
        for m in _SWITCHED.finditer(base.answer):
            if _free(m.span(), blocked):
                new = _same_case(m.group(1), _SWITCH[m.group(1).casefold()])
                options.append(Edit("negation", _replace(base.answer, m.span(), new), m.group(1), new))
    return _choose(base, "negation", options)


#: Qualifiers and their opposites: the probe's own pairs, wider than the judge's lexicon on purpose.
OPPOSITES: tuple[tuple[str, str], ...] = (
    ("minimum", "maximum"),
    ("minimal", "maximal"),
    ("min", "max"),
    ("at least", "at most"),
    ("before", "after"),
    ("always", "never"),
    ("must", "may"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("enables", "disables"),
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("more than", "less than"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("longer", "shorter"),
    ("first", "last"),
    ("earlier", "later"),
    ("above", "below"),
    ("older", "newer"),
    ("oldest", "newest"),
    ("upper", "lower"),
    ("include", "exclude"),
    ("includes", "excludes"),
    ("included", "excluded"),
    ("allow", "deny"),
    ("allowed", "denied"),
    ("allows", "blocks"),
    ("inbound", "outbound"),
    ("upload", "download"),
    ("uploads", "downloads"),
    ("public", "private"),
    ("leading", "trailing"),
    ("absolute", "relative"),
    ("synchronous", "asynchronous"),
    ("automatically", "manually"),
    ("local", "remote"),
    ("ascending", "descending"),
    ("highest", "lowest"),
    ("largest", "smallest"),
    ("accept", "reject"),
    ("accepts", "rejects"),
    ("success", "failure"),
    ("lowercase", "uppercase"),
    ("only when", "always"),
    ("by default", "only when configured"),
)
_OPPOSITE = {**{a: b for a, b in OPPOSITES}, **{b: a for a, b in OPPOSITES if b not in {x for x, _ in OPPOSITES}}}
_QUALIFIER = re.compile(
    r"\b(" + "|".join(sorted((re.escape(w) for w in _OPPOSITE), key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def qualifier_flipped(base: Base) -> Edit | None:
    """A qualifier replaced by its opposite: minimum ↔ maximum, before ↔ after, must ↔ may, enabled ↔ disabled."""
    blocked = _blocked(base.answer)
    options = []
    for m in _QUALIFIER.finditer(base.answer):
        if not _free(m.span(), blocked):
            continue
        new = _same_case(m.group(), _OPPOSITE[m.group().casefold()])
        options.append(Edit("qualifier_flipped", _replace(base.answer, m.span(), new), m.group(), new))
    return _choose(base, "qualifier_flipped", options)


# --------------------------------------------------------------------------------------------- a sentence added

_WORD = re.compile(r"[a-z]{3,}")
_COMMON = frozenset(
    "the and for are was were with that this from have has you your can will not but all any its their they "
    "them than then there when which what who how does did into also use used using may must should would "
    "could each per via one two more most such other only just like about over under".split()
)


def _content(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold())) - _COMMON


def baseless_addition(base: Base) -> Edit | None:
    """One plausible sentence appended that the passages do not state: a sentence of another document of the same
    corpus, on the question's topic (it shares a word with the question), whose words no passage line holds most of."""
    topic = _content(base.question)
    lines = [_content(line) for _, text in base.passages for line in re.split(r"(?<=[.!?])\s+|\n", text)]
    options = []
    for sentence in base.elsewhere:
        words = _content(sentence)
        if not words & topic or not 7 <= len(sentence.split()) <= 40:
            continue
        if any(len(words & line) >= 0.6 * len(words) for line in lines if line):
            continue
        joiner = "\n\n" if base.answer.rstrip().endswith(("```", "|")) or "\n- " in base.answer else " "
        options.append(Edit("baseless_addition", base.answer.rstrip() + joiner + sentence, "", sentence))
    return _choose(base, "baseless_addition", options)


# --------------------------------------------------------------------------------------------- consistent rewrites

_WORDS_OF = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()


def unchanged(base: Base) -> Edit | None:
    """The faithful answer itself."""
    return Edit("unchanged", base.answer, "", "")


def number_format(base: Base) -> Edit | None:
    """A number written another way: a small count in words, thousands with or without separators, "%" as
    "percent", a unit glued to its number or spaced."""
    options = []
    for n in _editable_numbers(base):
        after = base.answer[n.span[1] :]
        if n.unit == "%" or after.startswith("%"):
            end = n.span[1] + 1
            options.append(
                Edit(
                    "number_format",
                    _replace(base.answer, (n.span[0], end), f"{n.text} percent"),
                    f"{n.text}%",
                    f"{n.text} percent",
                )
            )
        elif "." not in n.value and int(n.value) <= 20 and re.match(r" [a-z]", after) and n.unit is None:
            word = _WORDS_OF[int(n.value)]
            options.append(Edit("number_format", _replace(base.answer, n.span, word), n.text, word))
        elif "," in n.text:
            options.append(Edit("number_format", _replace(base.answer, n.span, n.value), n.text, n.value))
        elif "." not in n.value and int(n.value) >= 10000 and not (len(n.value) == 4):
            shown = f"{int(n.value):,}"
            options.append(Edit("number_format", _replace(base.answer, n.span, shown), n.text, shown))
        elif n.unit and n.unit_span and n.unit in ("KB", "MB", "GB", "TB", "ms"):
            gap = (n.span[1], n.unit_span[0])
            sep = base.answer[gap[0] : gap[1]]
            new = "" if sep else " "
            options.append(
                Edit(
                    "number_format", _replace(base.answer, gap, new), f"{n.text}{sep}{n.unit}", f"{n.text}{new}{n.unit}"
                )
            )
    return _choose(base, "number_format", options)


def _sentences(answer: str) -> list[tuple[int, int]]:
    """Where each of the answer's sentences is, read as the judge reads them (``answer_sentences``): a partial answer
    keeps whole sentences, never "Your program will run much slower (eg." cut at an abbreviation."""
    spans: list[tuple[int, int]] = []
    at = 0
    for sentence in answer_sentences(answer):
        start = answer.find(sentence, at)
        if start < 0:
            continue
        at = start + len(sentence)
        spans.append((start, at))
    return spans


def partial(base: Base) -> Edit | None:
    """Part of the answer: its first half of sentences (at least one), the rest left out."""
    spans = _sentences(base.answer)
    if len(spans) < 2 or "```" in base.answer:
        return None
    keep = spans[(len(spans) + 1) // 2 - 1][1]
    kept = base.answer[:keep].rstrip()
    return Edit("partial", kept, base.answer[keep:].strip(), "")


#: Hedged and polite frames a fluent generator puts around an answer.
FRAMES: tuple[tuple[str, str], ...] = (
    ("Based on the documentation, ", ""),
    ("According to the provided context, ", ""),
    ("From what the passages say, ", ""),
    ("If I read the documentation correctly, ", ""),
    ("Sure! ", " Hope this helps!"),
    ("Good question. ", " Let me know if you need anything else."),
    ("", " I hope that answers your question."),
)


def hedged_frame(base: Base) -> Edit | None:
    """The answer inside a hedged or polite frame ("Based on the documentation, …", "… Hope this helps!")."""
    opening, closing = FRAMES[_pick(base.key, "frame", len(FRAMES))]
    text = base.answer.strip()
    if opening.endswith(", ") and text[:1].isupper() and not re.match(r"[A-Z]{2}|[A-Z][a-z]*[A-Z]|I\b", text):
        text = text[:1].lower() + text[1:]
    if opening and text.startswith(("-", "*", "|", "#", "`", "1.")):
        # a list, a table or code cannot follow a comma: the frame leads into it
        opening, text = opening.rstrip(", ") + ":", "\n\n" + text
    return Edit("hedged_frame", f"{opening}{text}{closing}", "", f"{opening}…{closing}")


#: Meaning-keeping rewrites of plain English: the probe's own list.
PARAPHRASES: tuple[tuple[str, str], ...] = (
    (r"\bdoes not\b", "doesn't"),
    (r"\bdo not\b", "don't"),
    (r"\bis not\b", "isn't"),
    (r"\bcannot\b", "can't"),
    (r"\bdoesn't\b", "does not"),
    (r"\bdon't\b", "do not"),
    (r"\bisn't\b", "is not"),
    (r"\bYou can\b", "It is possible to"),
    (r"\byou can\b", "it is possible to"),
    (r"\bin order to\b", "to"),
    (r"\bIt is recommended to\b", "You should"),
    (r"\bis used to\b", "serves to"),
    (r"\ballows you to\b", "lets you"),
    (r"\blets you\b", "allows you to"),
    (r"\bneed to\b", "have to"),
    (r"\bHowever, ", "That said, "),
    (r"\bNote that ", "Keep in mind that "),
    (r"\be\.g\.", "for example"),
    (r"\bIn addition, ", "Also, "),
    (r"\bautomatically\b", "on its own"),
    (r"\bspecify\b", "give"),
    (r"\bcontains\b", "holds"),
    (r"\bprovides\b", "offers"),
    (r"\brequires\b", "needs"),
)


def paraphrase(base: Base) -> Edit | None:
    """Light paraphrase: contractions, "you can" ↔ "it is possible to", "requires" → "needs" … (at least one)."""
    blocked = _blocked(base.answer)
    answer = base.answer
    changed: list[str] = []
    for pattern, new in PARAPHRASES:
        found = re.search(pattern, answer)
        if found is None or not _free(found.span(), blocked) or found.group() in changed:
            continue
        answer = _replace(answer, found.span(), new)
        blocked = _blocked(answer)
        changed.append(new)
    if not changed:
        return None
    return Edit("paraphrase", answer, "", ", ".join(changed))


# --------------------------------------------------------------------------------------------- the table

EDIT_KINDS: tuple[EditKind, ...] = (
    EditKind(
        "number_invented", "number invented", True, "a value that appears nowhere in the passages", number_invented
    ),
    EditKind(
        "name_invented", "name invented", True, "an option, function or variable the passages never name", name_invented
    ),
    EditKind(
        "baseless_addition",
        "baseless addition",
        True,
        "one sentence of another document, on the topic",
        baseless_addition,
    ),
    EditKind("unit_changed", "unit changed", True, "KB → MB, seconds → minutes", unit_changed),
    EditKind("number_swapped", "number swapped", True, "a value the passages give for something else", number_swapped),
    EditKind("negation", "negation", True, "is → is not, can → cannot, true → false", negation),
    EditKind("name_swapped", "name swapped", True, "another option, mode or name the passages give", name_swapped),
    EditKind(
        "qualifier_flipped",
        "qualifier flipped",
        True,
        "minimum ↔ maximum, before ↔ after, must ↔ may",
        qualifier_flipped,
    ),
    EditKind("unchanged", "faithful answer (unchanged)", False, "—", unchanged),
    EditKind("paraphrase", "paraphrase", False, "contractions, 'you can' ↔ 'it is possible to', …", paraphrase),
    EditKind("number_format", "number format", False, "3 → three, 10,000 → 10000, 5% → 5 percent", number_format),
    EditKind("partial", "partial answer", False, "the first half of its sentences", partial),
    EditKind(
        "hedged_frame", "hedged frame", False, "'Based on the documentation, …', '… Hope this helps!'", hedged_frame
    ),
)

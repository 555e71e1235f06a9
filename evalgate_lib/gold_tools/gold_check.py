"""Checking a gold set against its corpus: where each accept string and evidence span occurs, and what looks wrong.

A gold set can be valid JSON and still make the headline number meaningless: an
accept string that also sits inside other words ("certifi" in "certificate") or in
the question itself marks answers correct that are not; one that never occurs in
its gold article cannot come from retrieval. :func:`check_gold` finds these, as
typed findings with stable codes (:data:`CODES`), without printing anything;
:mod:`evalgate_lib.gold_tools.gold_check_format` renders them.

"Occurs" for an accept string means exactly what the correctness judge's ``token``
rule means (the default ``answer_matching``): case-folded, on token boundaries,
via :func:`evalgate_lib.text.matching.bounded_pattern`, the same primitive the judge
calls. "Occurs" for evidence is the pipeline's rule: an exact substring of the body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

from evalgate_lib.inputs.corpus import Article, read_document
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.text.locate import count_evidence, find_evidence, find_exact, line_of, loose_pattern
from evalgate_lib.text.markup import format_of_name, read_blocks
from evalgate_lib.text.matching import bounded_pattern

WARNING = "warning"
ERROR = "error"

#: Every finding code with its severity. Codes are stable (``--json`` and scripts read them);
#: an error means the run itself would refuse the gold file or judge the question wrongly.
CODES: dict[str, str] = {
    "inside-word": WARNING,
    "in-question": WARNING,
    "not-in-article": WARNING,
    "evidence-repeated": WARNING,
    "evidence-markup": WARNING,
    "evidence-whitespace": WARNING,
    "unknown-article": ERROR,
    "evidence-not-found": ERROR,
    "no-answer-has-accept": ERROR,
    "empty-accept": ERROR,
}

_WORD_CHARS = "._-'"
#: What the reading of an HTML page writes before a line's text (text.html_page): a list item's ``- `` or ``3. ``,
#: a heading's ``## ``, a table row's ``| ``, a code fence.
_ADDED_MARKUP = re.compile(r"^(?:[-*] |\d+\. |#{1,6} |\| |```)")


@dataclass(frozen=True)
class Place:
    """One occurrence: the article, its file and the line in that file (of an HTML page: in the text EvalGate reads
    from it, which ``evalgate corpus show ARTICLE --lines N`` prints)."""

    article: str
    path: str
    line: int

    @property
    def as_read(self) -> bool:
        """True when the line is one of the text EvalGate reads from an HTML page, not of the file."""
        return format_of_name(self.path) == "html"

    @property
    def shown(self) -> str:
        """``path:line``, and for an HTML page the command that prints that line of the text EvalGate reads."""
        where = f"{self.path}:{self.line}"
        return f"{where} (as read: evalgate corpus show {self.article} --lines {self.line})" if self.as_read else where


@dataclass(frozen=True)
class InsideWord:
    """An accept string found inside a longer word: one example, and how many such places the corpus has."""

    word: str
    place: Place
    count: int


@dataclass(frozen=True)
class AcceptCheck:
    """Where one accept string occurs (token-bounded, as the judge matches it)."""

    text: str
    in_article: int
    first: Place | None
    other_articles: tuple[str, ...]
    inside_word: InsideWord | None
    in_question: bool


@dataclass(frozen=True)
class EvidenceCheck:
    """Where one evidence string occurs in the gold article (exactly, else up to whitespace:
    :func:`~evalgate_lib.text.locate.find_evidence`, as the run locates it); ``hint`` when it does not."""

    text: str
    count: int
    first: Place | None
    hint: str | None = None


@dataclass(frozen=True)
class Finding:
    """One problem: a stable ``code`` (see :data:`CODES`), the question, the string concerned, and why it matters."""

    code: str
    question: str
    subject: str
    message: str

    @property
    def severity(self) -> str:
        return CODES[self.code]


@dataclass(frozen=True)
class QuestionCheck:
    """Everything checked for one gold question."""

    id: str
    question: str
    article: str | None
    answerable: bool
    accept: tuple[AcceptCheck, ...]
    evidence: tuple[EvidenceCheck, ...]
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class GoldCheck:
    """The whole check: one entry per question, in gold-file order."""

    questions: tuple[QuestionCheck, ...]
    articles: int
    findings: tuple[Finding, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(f for q in self.questions for f in q.findings))

    def counts(self) -> dict[str, int]:
        """Number of findings per code, every code listed (zero included), in :data:`CODES` order."""
        return {code: sum(f.code == code for f in self.findings) for code in CODES}

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == WARNING)


@dataclass(frozen=True)
class _Folded:
    """An article with its case-folded body, computed once for every accept string."""

    article: Article
    folded: str
    offset: int

    @property
    def read(self) -> str:
        r"""The body as its markup reads (``\`\`--cert\`\``` is ``--cert``, a wrapped paragraph one line), case-folded:
        an accept string the judge finds in an answer's reading is looked for in the article's reading too."""
        return _read_body(self.article.body, self.article.path)


@lru_cache(maxsize=256)
def _read_body(body: str, path: str) -> str:
    fmt = format_of_name(path)
    if fmt == "html":  # the body of an HTML page is already its reading, Markdown-shaped (text.html_page)
        fmt = "markdown"
    return "\n".join(block.text for block in read_blocks(body, fmt)).casefold()


def _word_around(text: str, start: int, end: int) -> str:
    """The whole word holding ``text[start:end]``: letters, digits and ``._-'``, minus a trailing full stop or quote.

    Dashes and underscores stay at the edges (``--no-cache-dirs`` is the word an option name sits in).
    """
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in _WORD_CHARS):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] in _WORD_CHARS):
        end += 1
    return text[start:end].strip(".'")


def _occurrences(doc: _Folded, needle: str, pattern: re.Pattern[str]) -> tuple[list[int], list[int]]:
    """Start offsets in the folded body: ``(token-bounded, inside a longer word)``; together every raw occurrence."""
    bounded: list[int] = []
    inside: list[int] = []
    for found in re.finditer(re.escape(needle), doc.folded):
        (bounded if pattern.match(doc.folded, found.start()) else inside).append(found.start())
    return bounded, inside


def _place(doc: _Folded, index: int, text: str | None = None) -> Place:
    """The place of ``index`` in ``text`` (default: the folded body, whose line breaks are the body's)."""
    return Place(doc.article.id, doc.article.path, line_of(doc.folded if text is None else text, index) + doc.offset)


def _check_accept(q: GoldQuestion, text: str, docs: Sequence[_Folded]) -> tuple[AcceptCheck, list[Finding]]:
    needle = text.casefold().strip()
    if not needle:
        finding = Finding("empty-accept", q.id, text, "an empty accept string would match every answer")
        return AcceptCheck(text, 0, None, (), None, False), [finding]
    pattern = bounded_pattern(needle)
    in_article, first, others, inside_example, inside_count = 0, None, [], None, 0
    for doc in docs:
        bounded, inside = _occurrences(doc, needle, pattern)
        if doc.article.id == q.article:
            in_article = len(bounded)
            first = _place(doc, bounded[0]) if bounded else None
            if not bounded:  # markup may stand between its words ("``C`` and ``CXX``"): look in the reading
                read = [m.start() for m in pattern.finditer(doc.read)]
                if read:
                    word = max(needle.split(), key=len)
                    at = doc.folded.find(word)
                    in_article, first = len(read), _place(doc, max(at, 0))
        elif bounded:
            others.append(doc.article.id)
        if inside and inside_example is None:
            start = inside[0]
            source = doc.article.body if len(doc.article.body) == len(doc.folded) else doc.folded
            inside_example = (_word_around(source, start, start + len(needle)), _place(doc, start))
        inside_count += len(inside)
    in_question = pattern.search(q.question.casefold()) is not None
    inside_word = InsideWord(*inside_example, inside_count) if inside_example else None
    check = AcceptCheck(text, in_article, first, tuple(others), inside_word, in_question)
    return check, _accept_findings(q, check, known_article=any(d.article.id == q.article for d in docs))


def _accept_findings(q: GoldQuestion, check: AcceptCheck, known_article: bool) -> list[Finding]:
    findings: list[Finding] = []
    if check.inside_word is not None:
        w = check.inside_word
        more = f" and {w.count - 1} more place(s)" if w.count > 1 else ""
        findings.append(
            Finding(
                "inside-word",
                q.id,
                check.text,
                f"also occurs inside the longer word {w.word!r} ({w.place.path}:{w.place.line}{more}): "
                f"under answer_matching 'raw' any answer containing such a word is marked correct "
                f"(the 'token' rule does not match there)",
            )
        )
    if check.in_question:
        message = "occurs in the question itself: an answer that repeats the question is marked correct"
        findings.append(Finding("in-question", q.id, check.text, message))
    if known_article and check.in_article == 0:
        elsewhere = f"; it does occur in {', '.join(check.other_articles)}" if check.other_articles else ""
        findings.append(
            Finding(
                "not-in-article",
                q.id,
                check.text,
                f"occurs nowhere in the gold article {q.article!r} (token-bounded, case-insensitive){elsewhere}",
            )
        )
    return findings


def _evidence_hint(text: str, doc: _Folded, docs: Sequence[_Folded]) -> str | None:
    """Why an evidence string was not found, when an obvious near miss explains it."""
    body = doc.article.body
    pattern = loose_pattern(text, re.IGNORECASE)
    found = pattern.search(body) if pattern is not None else None
    if found is not None:
        line = _place(doc, found.start(), body).line
        return f"it matches at line {line} only if case is ignored; evidence is case-sensitive"
    hosts = [d.article.id for d in docs if d is not doc and find_exact(d.article.body, text)]
    return f"it is in {', '.join(hosts)} instead" if hosts else None


def _check_evidence(
    q: GoldQuestion, doc: _Folded, docs: Sequence[_Folded]
) -> tuple[list[EvidenceCheck], list[Finding]]:
    checks: list[EvidenceCheck] = []
    findings: list[Finding] = []
    for text in q.evidence or ():
        span = find_evidence(doc.article.body, text)
        if span is None:
            hint = _evidence_hint(text, doc, docs)
            checks.append(EvidenceCheck(text, 0, None, hint))
            message = f"not in the gold article {q.article!r}, even ignoring whitespace (the run refuses it)"
            findings.append(Finding("evidence-not-found", q.id, text, message + (f": {hint}" if hint else "")))
            continue
        count = count_evidence(doc.article.body, text)
        first = _place(doc, span[0], doc.article.body)
        checks.append(EvidenceCheck(text, count, first))
        if find_exact(doc.article.body, text) is None:
            message = (
                f"matches at line {first.line} only if whitespace is ignored: the run finds it there (evidence is "
                "matched whitespace-insensitively); copy the article's text to match it exactly"
            )
            findings.append(Finding("evidence-whitespace", q.id, text, message))
        added = _ADDED_MARKUP.match(text)
        if first.as_read and added:
            message = (
                f"starts with {added.group().strip()!r}, markup EvalGate added when it read the page (a list item, "
                "heading, table row or code fence): copy the text after it, which the page shows"
            )
            findings.append(Finding("evidence-markup", q.id, text, message))
        if count > 1:
            message = f"occurs {count} times in {q.article!r}; the evidence metrics use the first (line {first.line})"
            findings.append(Finding("evidence-repeated", q.id, text, message))
    return checks, findings


def _check_question(q: GoldQuestion, docs: Sequence[_Folded]) -> QuestionCheck:
    findings: list[Finding] = []
    if not q.answerable and q.accept:
        message = "a no-answer question must have no accept strings: only a refusal is correct for it"
        findings.append(Finding("no-answer-has-accept", q.id, ", ".join(q.accept), message))
    gold = next((d for d in docs if d.article.id == q.article), None)
    if q.article is not None and gold is None:
        findings.append(Finding("unknown-article", q.id, q.article, f"gold article {q.article!r} is not in the corpus"))
    accepts: list[AcceptCheck] = []
    for text in q.accept:
        check, found = _check_accept(q, text, docs)
        accepts.append(check)
        findings += found
    evidence: list[EvidenceCheck] = []
    if gold is not None:
        evidence, found = _check_evidence(q, gold, docs)
        findings += found
    return QuestionCheck(q.id, q.question, q.article, q.answerable, tuple(accepts), tuple(evidence), tuple(findings))


def check_gold(
    questions: Sequence[GoldQuestion], articles: Sequence[Article], line_offsets: Mapping[str, int] | None = None
) -> GoldCheck:
    """Check every gold question against the corpus; pure (reads no file), so it is tested on hand-made strings.

    ``line_offsets`` maps an article id to the number of file lines above its body (the
    front matter), so that reported lines are lines of the file; absent ids count 0.
    """
    offsets = line_offsets or {}
    docs = [_Folded(a, a.body.casefold(), offsets.get(a.id, 0)) for a in articles]
    return GoldCheck(tuple(_check_question(q, docs) for q in questions), len(articles))


def body_line_offsets(articles: Sequence[Article]) -> dict[str, int]:
    """Lines above each article's body in its file (its front matter), read back from the file.

    For HTML and gzip files the lines are those of the text EvalGate reads (decompressed,
    markup removed), the only text the line numbers can refer to.
    """
    offsets: dict[str, int] = {}
    for article in articles:
        if not article.path or not Path(article.path).is_file():
            continue
        text = read_document(Path(article.path))
        if text.endswith(article.body):
            offsets[article.id] = text.count("\n", 0, len(text) - len(article.body))
    return offsets

"""Deep HTML through the real command line (issue 56, item 3): read without recursion, or refused in one line.

The fourth campaign found ``RecursionError`` in ``gold check`` and ``run`` on a page of about 500 nested
``<div>``s or 330 nested lists, and pages of 20,000-200,000 levels running past 180 s. Each case here goes
through the campaign's harness (:func:`test_campaign.run_case`: a fresh workspace, the real command in
process, ``run`` against the fake Ollama, the exit code and the first line checked exactly): such pages are
read, their text found where the gold says, and a page nested past
:data:`evalgate_lib.text.html_page.MAX_DEPTH` is refused before it is parsed, naming the file. The judge's
reader takes the same pages as logged passages (``score``). Timings are ``bench/bench_long_lines.py``'s.
"""

from __future__ import annotations

import json
from typing import Callable

import pytest
from test_campaign import ERR, GOLD, Case, Workspace, run_case

from evalgate_lib.text.html_page import MAX_DEPTH

DIVS = "How many archives does deep storage hold?", "deep", "Deep storage holds 7 archives per account.", "7 archives"
LISTS = "How many levels of notes do lists keep?", "lists", "Lists keep 9 levels of notes.", "9 levels"
REFUSED = (
    ERR + r"{ws}/corpus/deep\.html: its elements nest more than 10,000 levels deep \(as the HTML parser reads its "
    r"open tags\); EvalGate reads pages nested at most 10,000 levels: close the elements the page leaves open, or "
    r"move it out of the corpus"
)
RECORDED: dict[str, tuple[int, str]] = {}


def nested_divs(levels: int, text: str = DIVS[2]) -> str:
    inner = f"{'<div>' * levels}<p>{text}</p>{'</div>' * levels}"
    return f"<html><head><title>Deep</title></head><body>{inner}</body></html>"


def nested_lists(levels: int, text: str = LISTS[2]) -> str:
    """``levels`` lists, each the one item of the list around it, the sentence in the innermost."""
    return (
        "<html><head><title>Lists</title></head><body><p>Levels of the notes:</p>"
        + "<ul><li>level" * levels
        + f" {text}"
        + "</li></ul>" * levels
        + "</body></html>"
    )


def unclosed_items(levels: int) -> str:
    """A hand-written list whose items are never closed: Python's HTML parser nests each in the one before."""
    return "<html><body><ul>" + "<li>item" * levels + f"<li>{DIVS[2]}</ul></body></html>"


def _deep(pages: dict[str, str], *questions: tuple[str, str, str, str]) -> Callable[[Workspace], None]:
    """Put ``pages`` (file name → markup) in the corpus and a question on each of ``questions`` in the gold."""

    def setup(ws: Workspace) -> None:
        for name, markup in pages.items():
            (ws.corpus / name).write_text(markup, encoding="utf-8")
        rows = [*GOLD] + [
            {"id": f"d{n}", "question": q, "type": "answerable", "article": article, "accept": [accept],
             "evidence": [evidence]}
            for n, (q, article, evidence, accept) in enumerate(questions, 1)
        ]  # fmt: skip
        ws.gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    return setup


def _then(setup: Callable[[Workspace], None], argv: Callable[[Workspace], list[str]]) -> Callable[[Workspace], list]:
    def both(ws: Workspace) -> list[str]:
        setup(ws)
        return argv(ws)

    return both


def _rows(ws: Workspace) -> list[dict]:
    return [json.loads(line) for line in (ws.root / "out" / "results.jsonl").read_text().splitlines()]


def _read_deep(ws: Workspace) -> None:
    """``run`` read both deep pages and the gold's evidence in them: every row of their questions has its gold
    article's rank (the fake embedder finds it) and the evidence span placed in the article."""
    rows = [r for r in _rows(ws) if r["question_id"] in ("d1", "d2")]
    assert len(rows) == 4 and all(r["gold_article"] in ("deep", "lists") for r in rows)
    assert all(r["retrieval_metrics"] is not None for r in rows)


def _passage_log(ws: Workspace, name: str, markup: str) -> str:
    """An answer log whose every passage is the HTML ``markup`` (the judge's reader reads it)."""
    path = ws.root / f"{name}.jsonl"
    lines = [{"question_id": q["id"], "answer": "Starter includes 3 seats.", "passages": [{"text": markup}]}
             for q in GOLD]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _score_deep(levels: int) -> Callable[[Workspace], list[str]]:
    def setup(ws: Workspace) -> list[str]:
        shallow = _passage_log(ws, "v1", "<p>The Starter plan includes 3 seats.</p>")
        deep = _passage_log(ws, "v2", nested_lists(levels, "The Starter plan includes 3 seats."))
        return ["score", shallow, deep, "--gold", str(ws.gold), "--out", str(ws.root / "scored")]

    return setup


SUMMARY = (
    r"summary: 4 questions \(3 answerable, 1 no-answer\), 3 accept strings, 3 evidence strings, 5 articles; .* 0 errors"
)
DEEP_PAGES = {"deep.html": nested_divs(500), "lists.html": nested_lists(330)}
CASES = [
    Case("gold-check-500-divs-330-lists", "gold check on a page of 500 nested divs and one of 330 nested lists",
         _then(_deep(DEEP_PAGES, DIVS, LISTS), lambda ws: ws.gold_check()), 0, SUMMARY, stdout=True),
    Case("run-500-divs-330-lists", "run on the same corpus (fake Ollama)",
         _then(_deep(DEEP_PAGES, DIVS, LISTS), lambda ws: ws.run()), 0, r"results: .*", stdout=True,
         check=_read_deep),
    Case("gold-check-9000-divs", "gold check on a page of 9,000 nested divs (read, below the bound)",
         _then(_deep({"deep.html": nested_divs(9_000)}, DIVS), lambda ws: ws.gold_check()), 0,
         SUMMARY.replace("4 questions", "3 questions").replace(r"\(3 answerable", r"\(2 answerable")
         .replace("3 accept", "2 accept").replace("3 evidence", "2 evidence").replace("5 articles", "4 articles"),
         stdout=True),
    Case("gold-check-200000-divs", "gold check on a page of 200,000 nested divs",
         _then(_deep({"deep.html": nested_divs(200_000)}, DIVS), lambda ws: ws.gold_check()), 2, REFUSED),
    Case("run-200000-divs", "run on a page of 200,000 nested divs",
         _then(_deep({"deep.html": nested_divs(200_000)}, DIVS), lambda ws: ws.run()), 2, REFUSED),
    Case("run-200000-lists", "run on a page of 200,000 nested lists",
         _then(_deep({"deep.html": nested_lists(200_000)}, DIVS), lambda ws: ws.run()), 2, REFUSED),
    Case("run-200000-unclosed-items", "run on a list of 200,000 items never closed (each nested in the last)",
         _then(_deep({"deep.html": unclosed_items(200_000)}, DIVS), lambda ws: ws.run()), 2, REFUSED),
    Case("score-passage-330-lists", "score a log whose passages are HTML of 330 nested lists (the judge's reader)",
         _score_deep(330), 0, r"scored 4 answers in .*", stdout=True),
    Case("score-passage-200000-lists", "score a log whose passages are HTML nested 200,000 levels (read as lines)",
         _score_deep(200_000), 0, r"scored 4 answers in .*", stdout=True),
]  # fmt: skip


def test_the_bound_is_the_one_the_messages_name() -> None:
    assert MAX_DEPTH == 10_000


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_deep_html(case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    run_case(case, capsys, monkeypatch, RECORDED)

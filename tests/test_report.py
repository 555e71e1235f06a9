"""The report: HTML pieces from hand-made rows (no model), and ``evalgate report`` end to end.

The unit tests build result rows with :func:`score_answer` from crafted answers,
so every flag is known in advance. The end-to-end test runs the real command on
the embedded local backend with a small ``--limit`` against the shared ``cache/``
folder (a warm cache makes it fast) and parses the rendered HTML.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from evalgate_lib.chunks.chunking import Chunk
from evalgate_lib.inputs.gold import GoldQuestion
from evalgate_lib.judging.evaluation import Retrieved, score_answer
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow
from evalgate_lib.judging.sentence_scorers import LexicalCoverageScorer
from evalgate_lib.reporting.explorer import FLAG_CHOICES, describe_row, filter_rows, flag_counts, flag_reasons
from evalgate_lib.reporting.notebook_support import override_shared
from evalgate_lib.reporting.plots import pick_examples, sentences_html, token_marks_html
from evalgate_lib.reporting.report_html import (
    fairness_html,
    headline_html,
    manifest_html,
    methodology_html,
    results_table_html,
    table_page_html,
)
from evalgate_lib.run.results import load_rows
from evalgate_lib.statistics.metrics import METRICS, compare

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 4

CONTEXT = (
    "The Starter plan includes 3 seats in its flat price. Business costs $18 per user per month. "
    "Every new workspace can try Business free for 30 days."
)
XSS = '<script>window.__pwned = 1;</script><img src="x" onerror="window.__pwned = 1">'

#: (question id, type, accepted strings, answer), chosen so the flags are known:
CASES = (
    ("q001", "answerable", ["3 seats"], "The Starter plan includes 3 seats."),  # correct, grounded
    ("q002", "answerable", ["$18"], "Business costs $25 per user, billed quarterly via wire."),  # hallucination
    ("q003", "answerable", ["30 days"], "Business costs $18 per user per month."),  # grounded but wrong
    ("q004", "no_answer", [], "I don't know."),  # correct refusal
    ("q005", "no_answer", [], XSS + " Lifetime licences cost $999 forever."),  # hallucination + escaping
)


def crafted_row(
    config: str, qid: str, qtype: str, accept: list[str], answer: str, similarity: float = 0.8
) -> ResultRow:
    question = GoldQuestion(
        qid,
        f"Question {qid} <b>bold?</b>",
        qtype,
        "plans-and-pricing-2026" if qtype == "answerable" else None,
        tuple(accept),
    )
    chunk = Chunk("plans-and-pricing-2026", "Plans", 0, 0, len(CONTEXT), CONTEXT)
    return score_answer(
        config, question, [Retrieved(1, chunk, similarity)], answer, "0" * 64, scorer=LexicalCoverageScorer()
    )


@pytest.fixture
def rows() -> list[ResultRow]:
    out = []
    for config, sim in (("baseline", 0.8), ("candidate", 0.4)):
        out += [crafted_row(config, *case, similarity=sim) for case in CASES]
    return out


def test_crafted_rows_have_the_intended_flags(rows):
    base = {r.question_id: r.flags for r in rows if r.config == "baseline"}
    assert not base["q001"].wrong and not base["q004"].wrong
    assert base["q002"].hallucination and base["q005"].hallucination
    assert base["q003"].grounded_but_wrong and not base["q003"].hallucination
    # the candidate's low similarity sends everything to the review queue
    assert all(r.flags.review for r in rows if r.config == "candidate")


def test_table_escapes_model_output(rows):
    page = results_table_html(rows)
    assert "<script>window.__pwned" not in page
    assert 'onerror="window' not in page
    assert html.escape(XSS) in page
    assert "&lt;b&gt;bold?&lt;/b&gt;" in page  # gold strings are escaped too
    soup = BeautifulSoup(page, "html.parser")
    scripts = soup.find_all("script")
    assert len(scripts) == 1 and "eg-flag-filter" in scripts[0].text  # only the filter script
    assert not soup.find_all("img")


def test_table_rows_carry_flags_and_filter_control(rows):
    soup = BeautifulSoup(results_table_html(rows), "html.parser")
    select = soup.select_one("select.eg-flag-filter")
    assert select is not None
    values = [o["value"] for o in select.find_all("option")]
    assert values == ["all", "wrong", "hallucination", "grounded-but-wrong", "review"]
    labels = " ".join(o.text for o in select.find_all("option"))
    for label in ("Wrong", "Hallucination", "Grounded-but-wrong", "Review queue"):
        assert label in labels
    trs = soup.select("tr.eg-row")
    assert len(trs) == len(rows)
    for tr, row in zip(trs, rows, strict=True):
        assert tr["data-config"] == row.config and tr["data-question-id"] == row.question_id
        for key in FLAG_NAMES:
            assert tr[f"data-{key.replace('_', '-')}"] == ("1" if row.flags.fired(key) else "0")


def test_table_page_is_offline(rows):
    page = table_page_html(rows, "t <x>")
    assert page.startswith("<!DOCTYPE html>") and "<title>t &lt;x&gt;</title>" in page
    assert not re.search(r"""(src|href)=["']?https?:""", page)


def test_headline_numbers_are_the_library_numbers(rows):
    summary = compare(rows, "baseline", "candidate")
    soup = BeautifulSoup(headline_html(summary), "html.parser")
    for key in (m.key for m in METRICS):
        for config, expected in (
            ("baseline", summary["configs"]["baseline"][key]),
            ("candidate", summary["configs"]["candidate"][key]),
            ("delta", summary["delta"][key]),
        ):
            cell = soup.select_one(f'td[data-metric="{key}"][data-config="{config}"]')
            assert cell is not None, (key, config)
            assert (float(cell["data-value"]) if cell["data-value"] else None) == expected


def test_token_marks_mark_missing_tokens_and_escape():
    row = crafted_row("baseline", "q002", "answerable", ["$18"], "Business costs $25 <per> seat, billed weekly.")
    sentence = row.sentences[0]
    marked = token_marks_html(sentence)
    assert "25" in sentence.missing
    assert re.search(r'eg-tok-missing"[^>]*>25<', marked)
    assert re.search(r'eg-tok-found"[^>]*>Business<', marked)
    assert "&lt;" in marked and "<per>" not in marked
    # the scorer's own reason is shown: business, costs, 25, seat, billed, weekly → 2 of 6 found
    assert sentence.reason == "2/6 content tokens in the context = 0.33 < 0.70; missing: 25, seat, billed, weekly"
    assert html.escape(sentence.reason) in sentences_html(row)


def test_explorer_filters_and_explains(rows):
    assert {r.question_id for r in filter_rows(rows, "baseline", "Hallucination")} == {"q002", "q005"}
    assert filter_rows(rows, "baseline", "hallucination") == filter_rows(rows, "baseline", "Hallucination")
    assert len(filter_rows(rows, None, "All answers")) == len(rows)
    assert flag_counts(rows)["baseline"]["grounded_but_wrong"] == 1
    with pytest.raises(ValueError):
        filter_rows(rows, None, "nonsense")
    gbw = next(r for r in rows if r.config == "baseline" and r.question_id == "q003")
    reasons = flag_reasons(gbw)
    assert set(reasons) == {"wrong", "grounded_but_wrong"}
    assert "'30 days'" in reasons["wrong"]
    assert reasons["wrong"] == "; ".join(gbw.flags.reasons["wrong"])  # the explorer shows the row's own reasons
    hall = next(r for r in rows if r.config == "baseline" and r.question_id == "q002")
    assert "judged unsupported" in flag_reasons(hall)["hallucination"]
    assert "< 0.70" in flag_reasons(hall)["hallucination"]
    assert "25" in flag_reasons(hall)["hallucination"]
    xss = next(r for r in rows if r.config == "candidate" and r.question_id == "q005")
    described = describe_row(xss, {"plans-and-pricing-2026": CONTEXT})
    assert "<script>" not in described and 'onerror="' not in described
    assert "Review queue" in described and "0.400" in described and "Starter plan includes" in described
    assert set(FLAG_CHOICES) >= {"Wrong", "Hallucination", "Grounded-but-wrong", "Review queue"}


def test_flag_explorer_widget_steps_through_flagged_rows(rows):
    from evalgate_lib.reporting.explorer import flag_explorer

    box = flag_explorer(rows, flag="Hallucination")
    (config_box, flag_box), (_, next_button, position), status, body = (
        box.children[0].children,
        box.children[1].children,
        box.children[2],
        box.children[3],
    )
    assert config_box.value == "baseline" and "of <b>2</b>" in status.value and "q002" in body.value
    next_button.click()
    assert "q005" in body.value and "&lt;script&gt;" in body.value
    next_button.click()
    assert "q002" in body.value  # wraps around
    flag_box.value = "Grounded-but-wrong"
    assert "of <b>1</b>" in status.value and "q003" in body.value
    config_box.value = "candidate"
    flag_box.value = "Wrong"
    assert position.max == 2


def test_pick_examples_prefers_hallucinations(rows):
    picked = pick_examples(rows, n=2)
    assert [r.config for r in picked] == ["baseline", "candidate"]
    assert all(r.flags.hallucination for r in picked)
    assert [r.question_id for r in pick_examples(rows, ["q003"])] == ["q003", "q003"]


def test_override_shared_keeps_both_configs_fair(tmp_path):
    from evalgate_lib.inputs.config import check_fairness, load_config

    a = override_shared(ROOT / "configs/baseline.toml", tmp_path / "a.toml", top_k=2)
    b = override_shared(ROOT / "configs/candidate.toml", tmp_path / "b.toml", top_k=2)
    ca, cb = load_config(a), load_config(b)
    assert ca.top_k == cb.top_k == 2
    assert ca.corpus == (ROOT / "corpus").resolve() and ca.gold == (ROOT / "gold/questions.jsonl").resolve()
    assert sorted(check_fairness(ca, cb)) == sorted(
        check_fairness(load_config(ROOT / "configs/baseline.toml"), load_config(ROOT / "configs/candidate.toml"))
    )
    assert (
        tomllib.loads(a.read_text())["prompt"] == tomllib.loads((ROOT / "configs/baseline.toml").read_text())["prompt"]
    )


def test_fairness_manifest_methodology_html_from_a_manifest():
    manifest = {
        "evalgate_version": "0.1.0",
        "configs": {
            "baseline": {"chunking": {"method": "fixed"}, "chunks": 10, "sha256": "a" * 64, "prompt_sha256": "b" * 64},
            "candidate": {"chunking": {"method": "<md>"}, "chunks": 8, "sha256": "c" * 64, "prompt_sha256": "d" * 64},
        },
        "fairness": {"differs": ["chunking.method", "prompt.template"], "shared": {"shared.top_k": 4}},
        "corpus": {"articles": 18, "sha256": "e" * 64},
        "gold": {"questions_run": 4, "questions_in_file": 101, "sha256": "f" * 64},
        "backend": {"backend": "local", "generator": "SmolLM2", "embedder": "MiniLM"},
        "generation": {"temperature": 0.0},
        "top_k": 4,
        "packages": {"numpy": "2.0"},
        "python": "3.11",
    }
    fair = fairness_html(manifest)
    assert "chunking.method" in fair and "shared.top_k" in fair and "&lt;md&gt;" in fair
    assert "e" * 64 in manifest_html(manifest)
    method = methodology_html(manifest)
    assert "partial run" in method and "4 of the 101" in method and "0.70" in method


# --------------------------------------------------------------------------- end to end


def build_real_report(base: Path) -> Path:
    """``evalgate report --limit 4 --backend local`` into ``base/report`` (once per pytest session)."""
    from evalgate_lib.cli import main

    out = base / "report"
    if not (out / "index.html").is_file():
        code = main(
            [
                "report",
                "--backend",
                "local",
                "--limit",
                str(LIMIT),
                "--cache-dir",
                str(ROOT / "cache"),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        assert code == 0
    return out


@pytest.fixture(scope="session")
def real_report(tmp_path_factory) -> Path:
    return build_real_report(tmp_path_factory.getbasetemp())


@pytest.mark.slow
def test_report_headline_equals_library(real_report):
    rows = load_rows(real_report / "results")
    manifest = json.loads((real_report / "results" / "manifest.json").read_text())
    summary = compare(rows, manifest["baseline"], manifest["candidate"])
    soup = BeautifulSoup((real_report / "index.html").read_text(encoding="utf-8"), "html.parser")
    cells = soup.select("td[data-metric]")
    assert len(cells) == 3 * len(METRICS)
    for cell in cells:
        key, config = cell["data-metric"], cell["data-config"]
        expected = summary["delta"][key] if config == "delta" else summary["configs"][config][key]
        assert (float(cell["data-value"]) if cell["data-value"] else None) == expected, (key, config)


@pytest.mark.slow
def test_report_lists_every_question_of_both_configs(real_report):
    rows = load_rows(real_report / "results")
    assert len({r.config for r in rows}) == 2 and len(rows) == 2 * LIMIT
    soup = BeautifulSoup((real_report / "index.html").read_text(encoding="utf-8"), "html.parser")
    shown = {(tr["data-config"], tr["data-question-id"]) for tr in soup.select("tr.eg-row")}
    assert shown == {(r.config, r.question_id) for r in rows}
    for tr in soup.select("tr.eg-row"):
        row = next(r for r in rows if (r.config, r.question_id) == (tr["data-config"], tr["data-question-id"]))
        assert tr.select_one("td.answer").get_text() == row.answer


@pytest.mark.slow
def test_report_is_self_contained_with_filter_and_sections(real_report):
    page = (real_report / "index.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(page, "html.parser")
    assert soup.select_one("select.eg-flag-filter") is not None
    assert soup.select_one("table.eg-headline") is not None
    for heading in (
        "Headline metrics and deltas",
        "Fairness contract",
        "Methodology and honest limits",
        "Every answer, both configs",
        "Run manifest",
    ):
        assert any(heading in h.get_text() for h in soup.find_all(["h1", "h2"])), heading
    assert "Honest limits" in page and "partial run" in page
    assert len(soup.select('img[src^="data:image/png;base64,"]')) >= 3  # delta chart, distribution, heatmaps
    assert not re.search(r"""<(script|link|img)[^>]+(src|href)=["']?(https?:)?//""", page)
    assert not soup.select(".jp-CodeCell .jp-InputArea") and "from evalgate_lib" not in page  # code hidden
    for name in ("01_corpus_inspection", "02_two_config_run", "03_coverage_heatmaps", "04_flag_explorer"):
        assert (real_report / "notebooks" / f"{name}.html").is_file()

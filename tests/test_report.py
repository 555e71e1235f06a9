"""The report: HTML pieces from hand-made rows (no model), and ``evalgate report`` end to end.

The unit tests build result rows with :func:`score_answer` from crafted answers
(``crafted_row`` in conftest.py), so every flag is known in advance. The end-to-end tests parse
the reports of the session's small real run on the embedded local backend (conftest.py's
``small_report`` and ``small_shipped_report``); the shipped report's own checks repeat on the
whole gold set under ``-m full_gold``.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import CONTEXT, SMALL_LIMIT, XSS, crafted_row, crafted_rows, machine_paths_in, make_flags, make_row

from evalgate_lib.api import load_results
from evalgate_lib.inputs.labels import Label, SentenceLabel, answer_sha256
from evalgate_lib.judging.flags import review_priority
from evalgate_lib.judging.rows import FLAG_NAMES, ResultRow, RetrievedChunk, SentenceVerdict
from evalgate_lib.reporting.explorer import FLAG_CHOICES, describe_row, filter_rows, flag_counts, flag_reasons
from evalgate_lib.reporting.plots import pick_examples, sentences_html, token_marks_html
from evalgate_lib.reporting.report_html import (
    fairness_html,
    headline_html,
    manifest_html,
    methodology_html,
    results_table_html,
    table_page_html,
    unused_model_keys,
)
from evalgate_lib.reporting.spans import span_segments, span_unit
from evalgate_lib.run.manifest import Manifest
from evalgate_lib.run.results import load_rows
from evalgate_lib.statistics.beyond_noise import significant_metrics
from evalgate_lib.statistics.changes import question_changes
from evalgate_lib.statistics.gate import judge, load_gate
from evalgate_lib.statistics.metrics import METRICS, compare
from evalgate_lib.workbench.notebook_support import override_shared

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def rows() -> list[ResultRow]:
    return crafted_rows()


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
    assert values == ["all", "wrong", "hallucination", "grounded-but-wrong", "review", "unsupported-claim"]
    labels = " ".join(o.text for o in select.find_all("option"))
    for label in ("Wrong", "Hallucination", "Grounded-but-wrong", "Review queue", "Unsupported claim"):
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
            ("baseline", summary.configs["baseline"][key]),
            ("candidate", summary.configs["candidate"][key]),
            ("delta", summary.delta[key]),
        ):
            cell = soup.select_one(f'td[data-metric="{key}"][data-config="{config}"]')
            assert cell is not None, (key, config)
            assert (float(cell["data-value"]) if cell["data-value"] else None) == expected


def test_token_marks_mark_missing_tokens_and_escape():
    row = crafted_row("baseline", "q002", "answerable", ["$18"], "Business costs $25 `<per>` seat, billed weekly.")
    sentence = row.sentences[0]
    marked = token_marks_html(sentence)
    assert "25" in sentence.missing
    assert re.search(r'eg-tok-missing"[^>]*>25<', marked)
    assert re.search(r'eg-tok-found"[^>]*>Business<', marked)
    assert "&lt;" in marked and "<per>" not in marked  # a code span keeps "<per>" as text: escaped
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
    # the review queue is every flagged row, in its reading order (review_priority, highest first; ties in row order)
    queue = filter_rows(rows, None, "Review queue")
    flagged = [r for r in rows if r.flags.review]
    assert sorted(id(r) for r in queue) == sorted(id(r) for r in flagged) and queue
    priorities = [review_priority(r.flags, r.sentences, r.confidence) for r in queue]
    assert priorities == sorted(priorities, reverse=True)
    position = {id(r): i for i, r in enumerate(rows)}
    for i in range(len(queue) - 1):
        assert priorities[i] > priorities[i + 1] or position[id(queue[i])] < position[id(queue[i + 1])]
    hall = next(r for r in rows if r.config == "baseline" and r.question_id == "q002")
    assert "judged unsupported" in flag_reasons(hall)["hallucination"]
    assert "< 0.70" in flag_reasons(hall)["hallucination"]
    assert "25" in flag_reasons(hall)["hallucination"]
    xss = next(r for r in rows if r.config == "candidate" and r.question_id == "q005")
    described = describe_row(xss, {"plans-and-pricing-2026": CONTEXT})
    assert "<script>" not in described and 'onerror="' not in described
    assert "Review queue" in described and "0.300" in described and "Starter plan includes" in described
    assert set(FLAG_CHOICES) >= {"Wrong", "Hallucination", "Grounded-but-wrong", "Review queue"}


def test_flag_explorer_widget_steps_through_flagged_rows(rows):
    from evalgate_lib.workbench.explorer_widget import flag_explorer

    box = flag_explorer(rows, flag="Hallucination")
    (config_box, flag_box), (prev_button, next_button, position), status, body = (
        box.children[0].children,
        box.children[1].children,
        box.children[2],
        box.children[3],
    )
    assert config_box.value == "baseline" and "of <b>2</b>" in status.value and "q002" in body.value
    assert position.value == 1 and "answer <b>1</b>" in status.value  # the slider counts as the words do
    assert prev_button.disabled and not next_button.disabled  # "previous" on the first answer goes nowhere
    prev_button.click()
    assert "q002" in body.value and position.value == 1
    next_button.click()
    assert "q005" in body.value and "&lt;script&gt;" in body.value and position.value == 2
    assert next_button.disabled  # the last answer: no wrap-around to the first
    next_button.click()
    assert "q005" in body.value
    flag_box.value = "Grounded-but-wrong"
    assert "of <b>1</b>" in status.value and "q003" in body.value
    config_box.value = "candidate"
    flag_box.value = "Wrong"
    assert (position.min, position.max) == (1, 3)


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
        "fairness": {
            "differs": ["chunking.method", "prompt.template"],
            # as a run records them (inputs.config.shared_settings): resolved, so absolute on this machine
            "shared": {"shared.top_k": 4, "shared.corpus": str(ROOT / "corpus"),
                       "shared.gold": str(ROOT / "gold" / "questions.jsonl")},
        },  # fmt: skip
        "corpus": {"articles": 18, "sha256": "e" * 64},
        "gold": {"questions_run": 4, "questions_in_file": 101, "sha256": "f" * 64},
        "backend": {"backend": "local", "generator": "SmolLM2", "embedder": "MiniLM"},
        "generation": {"temperature": 0.0},
        "top_k": 4,
        "packages": {"numpy": "2.0"},
        "python": "3.11",
    }
    manifest = Manifest.from_json(manifest)
    fair = fairness_html(manifest)
    assert "chunking.method" in fair and "shared.top_k" in fair and "&lt;md&gt;" in fair
    assert str(ROOT) not in fair and "<td>gold/questions.jsonl</td>" in fair  # relative to the project
    assert "e" * 64 in manifest_html(manifest)
    method = methodology_html(manifest)
    assert "partial run" in method and "4 of the 101" in method and "0.70" in method


# --------------------------------------------------------------------------- the answer table's details


BODY = "# Plans\nThe Starter plan includes 3 seats.\nBusiness costs $18 per user per month."


def test_span_segments_by_hand():
    text = "Title\nThe Starter plan includes 3 seats. Business  costs\n$18."
    spans = ["Plans\n## Pricing\nThe Starter plan includes 3 seats.", None, "business costs $18"]
    assert span_unit(spans[0]) == "The Starter plan includes 3 seats."
    assert span_segments(text, spans) == [
        ("Title\n", frozenset()),
        ("The Starter plan includes 3 seats", frozenset({1})),
        (". ", frozenset()),
        ("Business  costs\n$18", frozenset({3})),  # case and line breaks do not matter
        (".", frozenset()),
    ]
    assert "".join(piece for piece, _ in span_segments(text, spans)) == text
    assert span_segments("abc", [None, ""]) == [("abc", frozenset())]
    overlapping = span_segments("a b c", ["a b", "b c"])
    assert overlapping == [("a ", frozenset({1})), ("b", frozenset({1, 2})), (" c", frozenset({2}))]


def spanned_row(config: str = "baseline", answer: str = "Starter includes 3 seats. It costs $25.") -> ResultRow:
    """A row whose first sentence is supported by a span of the chunk, the second not (its best span marked)."""
    supported = SentenceVerdict(
        "Starter includes 3 seats.", ("starter", "includes", "3", "seats"), (), 1.0, True,
        span="Plans\nThe Starter plan includes 3 seats.", reason="one span holds every word",
    )  # fmt: skip
    unsupported = SentenceVerdict(
        "It costs $25.", ("costs", "25"), ("25",), 0.5, False,
        span="Plans\nBusiness costs $18 per user per month.", reason="no span holds 25",
    )  # fmt: skip
    chunk = RetrievedChunk(1, "plans#0", "plans", 0, 0, len(BODY), 0.81)
    return make_row(
        config=config, answer=answer, sentences=(supported, unsupported), retrieved=(chunk,), gold_article="plans",
        correct=False, flags=make_flags(wrong=True, hallucination=True, unsupported_claim=True),
    )  # fmt: skip


def test_details_open_as_a_full_width_row_with_chunk_text_and_marked_spans():
    row = spanned_row()
    soup = BeautifulSoup(results_table_html([row], bodies={"plans": BODY}), "html.parser")
    tr = soup.select_one("tr.eg-row")
    detail = soup.select_one(f"tr#{tr['data-detail']}")
    assert "eg-detail" in detail["class"] and detail["style"] == "display:none"  # closed until asked
    assert detail.find_previous_sibling("tr") is tr  # directly below its answer
    columns = len(soup.select("table.eg-results-table colgroup col"))
    assert int(detail.td["colspan"]) == columns == len(tr.find_all("td", recursive=False))
    assert sum(float(c["style"].split(":")[1].rstrip("%")) for c in soup.select("colgroup col")) == 100
    chunk = detail.select_one(".eg-chunk-text")
    assert chunk.get_text() == BODY  # the chunk's text, not only its id
    # its lines kept even where the page's <style> is dropped (JupyterLab, an untrusted notebook): a <pre>, and the
    # rule on the element itself
    assert chunk.name == "pre" and "white-space:pre-wrap" in chunk["style"]
    marks = {m.get_text(): (m["data-sentences"], m["class"]) for m in chunk.select("mark.eg-span")}
    assert marks == {
        "The Starter plan includes 3 seats": ("1", ["eg-span", "eg-span-supported"]),
        "Business costs $18 per user per month": ("2", ["eg-span", "eg-span-unsupported"]),
    }
    sentences = detail.select("table.eg-sentences tbody tr")
    assert [s.select("td")[2].get_text() for s in sentences] == ["supported (1.00)", "unsupported (0.50)"]
    assert [s.select("td")[3].get_text() for s in sentences] == ["one span holds every word", "no span holds 25"]
    assert "marked in chunk #1" in sentences[0].select("td")[4].get_text()
    assert "test row: hallucination" in detail.get_text()  # the flag's own reasons
    # without the corpus, the details say so instead of showing nothing
    bare = BeautifulSoup(results_table_html([row]), "html.parser")
    assert "chunk text not available" in bare.select_one("tr.eg-detail").get_text()


def test_search_text_is_the_rows_visible_text_only():
    row = spanned_row()
    soup = BeautifulSoup(results_table_html([row], bodies={"plans": BODY}), "html.parser")
    tr = soup.select_one("tr.eg-row")
    searched = tr["data-search"]
    visible = " ".join(tr.get_text(" ").lower().split())
    for word in searched.split():
        assert word in visible, word
    hidden = soup.select_one("tr.eg-detail").get_text().lower()
    assert "plans#0" in hidden and "business costs $18" in hidden  # only in the details ...
    assert "plans#0" not in searched and "business costs" not in searched  # ... so never matched


def test_reviewer_labels_beside_automatic_verdicts_and_stale_ones_left_out():
    row = spanned_row()
    digest = answer_sha256(row.answer)
    fresh = Label(
        "baseline", row.question_id, digest, False, True, "ana", unsupported_sentences=("It costs $25.",),
        comment="25 is not in the context",
        sentences=(SentenceLabel("Starter includes 3 seats.", True), SentenceLabel("It costs $25.", False)),
    )  # fmt: skip
    stale = Label("baseline", row.question_id, "0" * 64, True, False, "bo")
    soup = BeautifulSoup(results_table_html([row], bodies={"plans": BODY}, labels=[fresh, stale]), "html.parser")
    detail = soup.select_one("tr.eg-detail")
    table = detail.select_one("table.eg-labels")
    assert [th.get_text() for th in table.select("th")] == ["judgement", "EvalGate", "ana (pass 1)"]
    assert [[td.get_text() for td in tr.select("td")] for tr in table.select(":scope > tbody > tr")] == [
        ["answer correct", "no", "no"],
        ["an unsupported claim", "yes", "yes"],
        ["a refusal", "no", "—"],
    ]
    assert "25 is not in the context" in detail.get_text() and "bo (pass" not in detail.get_text()
    reviewer_cells = [tr.select("td")[-1].get_text() for tr in detail.select("table.eg-sentences tbody tr")]
    assert reviewer_cells == ["supported", "unsupported"]
    assert "1 reviewer label(s) of these exact answers" in soup.get_text()
    assert "1 label(s) of answers that have changed since are not" in soup.get_text()


LOCAL_MANIFEST_JSON = {
    "backend": {
        "backend": "local",
        "generator": "SmolLM2-135M-Instruct.Q4_1",
        "generator_digest": "sha256:" + "b" * 64,
        "embedder": "all-MiniLM-L6-v2",
        "embedder_digest": "sha256:" + "5" * 64,
    },
    "configs": {
        "baseline": {"chunking": {"method": "fixed"}, "chunks": 10, "sha256": "a" * 64, "prompt_sha256": "b" * 64},
        "candidate": {"chunking": {"method": "md"}, "chunks": 8, "sha256": "c" * 64, "prompt_sha256": "d" * 64},
    },
    "fairness": {
        "differs": ["chunking.method"],
        "shared": {
            "shared.top_k": 4,
            "shared.models.ollama.generator": "qwen2.5:7b",
            "shared.models.ollama.embedder": "nomic-embed-text",
        },
    },
    "corpus": {"articles": 18, "sha256": "e" * 64},
    "gold": {"questions_run": 101, "questions_in_file": 101, "sha256": "f" * 64},
    "generation": {"temperature": 0.0},
    "top_k": 4,
}
LOCAL_MANIFEST = Manifest.from_json(LOCAL_MANIFEST_JSON)


def test_a_local_run_names_its_own_models_and_no_ollama_model():
    assert unused_model_keys(LOCAL_MANIFEST) == ["shared.models.ollama.embedder", "shared.models.ollama.generator"]
    page = fairness_html(LOCAL_MANIFEST) + manifest_html(LOCAL_MANIFEST) + methodology_html(LOCAL_MANIFEST)
    assert "qwen2.5:7b" not in page and "nomic-embed-text" not in page
    assert "shared.top_k" in page and "this run used the local backend" in page
    used = BeautifulSoup(manifest_html(LOCAL_MANIFEST), "html.parser").select_one(".eg-models-used").get_text()
    assert "embedded local backend" in used and "SmolLM2-135M-Instruct.Q4_1" in used and "all-MiniLM-L6-v2" in used
    # an Ollama run used those models: they are listed
    ollama = Manifest.from_json(
        {**LOCAL_MANIFEST_JSON, "backend": {"backend": "ollama", "generator": "qwen2.5:7b", "embedder": "x"}}
    )
    assert unused_model_keys(ollama) == [] and "nomic-embed-text" in fairness_html(ollama)


# --------------------------------------------------------------------------- end to end


@pytest.mark.slow
def test_report_headline_equals_library(small_report):
    rows = load_rows(small_report / "results")
    manifest = json.loads((small_report / "results" / "manifest.json").read_text())
    summary = compare(rows, manifest["baseline"], manifest["candidate"])
    soup = BeautifulSoup((small_report / "index.html").read_text(encoding="utf-8"), "html.parser")
    for appendix in soup.select("details.eg-appendix"):  # notebook 02, inside the page, shows the same table
        appendix.decompose()
    cells = soup.select("td[data-metric]")
    assert len(cells) == 3 * len(METRICS)
    for cell in cells:
        key, config = cell["data-metric"], cell["data-config"]
        expected = summary.delta[key] if config == "delta" else summary.configs[config][key]
        assert (float(cell["data-value"]) if cell["data-value"] else None) == expected, (key, config)


@pytest.mark.slow
def test_report_lists_every_question_of_both_configs(small_report):
    rows = load_rows(small_report / "results")
    assert len({r.config for r in rows}) == 2 and len(rows) == 2 * SMALL_LIMIT
    soup = BeautifulSoup((small_report / "index.html").read_text(encoding="utf-8"), "html.parser")
    shown = {(tr["data-config"], tr["data-question-id"]) for tr in soup.select("tr.eg-row")}
    assert shown == {(r.config, r.question_id) for r in rows}
    for tr in soup.select("tr.eg-row"):
        row = next(r for r in rows if (r.config, r.question_id) == (tr["data-config"], tr["data-question-id"]))
        assert tr.select_one("td.answer").get_text() == row.answer


@pytest.mark.slow
def test_report_is_self_contained_with_filter_and_sections(small_report):
    page = (small_report / "index.html").read_text(encoding="utf-8")
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
        assert (small_report / "notebooks" / f"{name}.html").is_file()
        appendix = soup.select_one(f"details.eg-appendix#appendix-{name}")  # and inside the page itself
        assert appendix is not None and appendix.find_parent(class_="jp-Cell") is None


def test_no_page_of_the_report_names_an_absolute_path_of_this_machine(small_report, model_cache):
    """Every page, appendices included (01 and 03 once printed the corpus, gold and results folders in full)."""
    assert machine_paths_in(small_report, small_report.parent, model_cache) == []


@pytest.mark.slow
def test_shipped_report_names_the_models_it_used_and_no_ollama_model(report_of_run):
    report, results = report_of_run
    manifest = json.loads((results / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["backend"]["backend"] == "local"
    page = (report / "index.html").read_text(encoding="utf-8")
    used = BeautifulSoup(page, "html.parser").select_one(".eg-models-used").get_text(" ")
    assert "SmolLM2" in used and "MiniLM" in used and "local backend" in used
    ollama = tomllib.loads((ROOT / "configs" / "baseline.toml").read_text())["shared"]["models"]["ollama"]
    assert ollama  # the configs do name Ollama models ...
    for name in ollama.values():
        assert name not in page, name  # ... and the report of a local run names none of them


@pytest.mark.slow
def test_shipped_report_opens_with_the_verdict_and_lists_what_changed(report_of_run):
    report, results = report_of_run
    loaded = load_results(results)
    rows, summary = loaded.rows, loaded.summary
    soup = BeautifulSoup((report / "index.html").read_text(encoding="utf-8"), "html.parser")
    first = soup.select_one(".eg-report")
    assert first is soup.select_one("#eg-first-screen")  # the first piece of the page is the verdict
    # built with the shipped labels, which cover every answer (a census): the verdict is the gate's with --labels
    correction = loaded.label_correction([ROOT / "labels" / "nimbus.jsonl"])
    assert correction.basis == "census"
    verdicts = judge(summary, load_gate(ROOT / "configs" / "gate.toml"), correction.metrics)
    failed = any(v.failed for v in verdicts)
    unsure = any(v.inconclusive for v in verdicts)
    expected = "FAIL" if failed else "INCONCLUSIVE" if unsure else "PASS"
    assert soup.select_one("#eg-verdict")["data-verdict"] == expected
    assert soup.select_one("#eg-corrected")["data-basis"] == "census"
    assert {li["data-rule"] for li in soup.select('#eg-first-screen li[data-basis="labels"]')} == {
        "accuracy_answerable", "refusal_accuracy", "hallucination", "unsupported_claim",
    }  # fmt: skip
    assert {tr["data-rule"] for tr in soup.select("#eg-first-screen tr[data-rule]")} == {
        "accuracy_answerable", "refusal_accuracy", "retrieval_recall", "hallucination", "unsupported_claim",
    }  # fmt: skip
    changes = question_changes(rows, summary.baseline, summary.candidate)
    listed = {tr["data-question-id"]: tr["data-change"] for tr in soup.select("tr.eg-change")}
    assert listed and listed == {c.question_id: c.kind for c in changes if c.changed}
    marked = {tr["data-metric"] for tr in soup.select('#eg-headline tr[data-significant="1"]')}
    assert marked == set(significant_metrics(summary))
    assert any("What changed" in h.get_text() for h in soup.find_all("h2"))
    # the shipped labels match the run: every answer's details show a reviewer's verdicts
    assert len(soup.select("tr.eg-detail table.eg-labels")) == len(rows)


def test_every_page_of_the_report_is_marked_and_a_corpus_holding_it_skips_it(small_report, tmp_path):
    """The report holds every gold answer: copied or linked into a corpus, it must not become an article."""
    import shutil

    from evalgate_lib.inputs.corpus import OUTPUT_MARKER, scan_corpus

    pages = sorted(small_report.rglob("*.html"))
    assert len(pages) == 5 and all(OUTPUT_MARKER in page.read_text(encoding="utf-8") for page in pages)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nText.\n")
    shutil.copy(small_report / "index.html", corpus / "index.html")
    (corpus / "appendix.html").symlink_to(pages[-1])
    scan = scan_corpus(corpus)
    assert [a.id for a in scan.articles] == ["a"]
    assert sorted(Path(p).name for p, _ in scan.skipped) == ["appendix.html", "index.html"]

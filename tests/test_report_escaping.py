"""Every HTML builder of the report escapes what users wrote: config names, questions, answers, corpus text, paths.

Without a browser: each builder gets a payload (a ``<script>`` and an ``<img onerror>``) in every
string it takes from a config, the gold file, the model, the corpus, a label file or a path,
and the HTML it returns is parsed back: no ``<img>``, no ``onerror``, no ``<script>`` holding
the payload, and the payload in the page's text, character for character. The notebooks,
which once built HTML and Markdown from f-strings in their cells, are checked to call only
these builders. ``tests/test_report_escaping_browser.py`` feeds the same kind of payload
through a real report in Chromium.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from conftest import make_flags, make_row

from evalgate_lib.inputs.corpus import Article
from evalgate_lib.inputs.labels import Label, answer_sha256
from evalgate_lib.judging.rows import RetrievedChunk, SentenceVerdict
from evalgate_lib.reporting import changes_view, explorer, first_screen, plots, report_html
from evalgate_lib.run.manifest import Manifest
from evalgate_lib.statistics.changes import question_changes
from evalgate_lib.statistics.metrics import compare
from evalgate_lib.workbench import labelling
from evalgate_lib.workbench.report import kernel_config

ROOT = Path(__file__).resolve().parents[1]


def payload(vector: str) -> str:
    """A script and an image whose error handler would run, naming the input they came through."""
    return f"<script>window.egPwned='{vector}'</script><img src=x onerror=window.egPwned='{vector}'>"


BASE, CAND = payload("name-base"), payload("name-cand")
ARTICLE = f"plans {payload('article-id')}"
BODY = f"# Plans\nThe Starter plan includes 3 seats. {payload('corpus')}\nBusiness costs $18."


def inert(fragment: str, *vectors: str) -> BeautifulSoup:
    """Parse ``fragment``: nothing of any payload is markup, and each of ``vectors`` is in its text verbatim."""
    soup = BeautifulSoup(fragment, "html.parser")
    assert soup.find_all("img") == []
    assert [el.name for el in soup.find_all(True) if el.has_attr("onerror")] == []
    assert [s for s in soup.find_all("script") if "egPwned" in s.get_text()] == []
    text = soup.get_text()
    assert [v for v in vectors if payload(v) not in text] == []
    return soup


def row(config: str, answer_vector: str, **overrides):
    """A wrong, hallucinated answer of ``config`` with payloads in the question, reference, answer and its sentence."""
    answer = f"Starter has 40 seats. {payload(answer_vector)}"
    sentence = SentenceVerdict(answer, ("starter", "40", "seats"), ("40",), 0.67, False, reason=payload("reason"))
    fields = {
        "config": config,
        "question_id": "q1",
        "question": f"How many seats? {payload('question')}",
        "gold_article": ARTICLE,
        "accept": (f"3 seats {payload('reference')}",),
        "answer": answer,
        "correct": False,
        "matched": None,
        "sentences": (sentence,),
        "retrieved": (RetrievedChunk(1, f"{ARTICLE}#0", ARTICLE, 0, 0, len(BODY), 0.8),),
        "flags": make_flags(wrong=True, hallucination=True, review=True),
    }
    return make_row(**{**fields, **overrides})


@pytest.fixture
def rows():
    fixed = SentenceVerdict("Starter includes 3 seats.", ("starter", "3", "seats"), (), 1.0, True, reason="found")
    return [
        row(BASE, "answer-base"),
        row(CAND, "answer-cand"),
        row(BASE, "answer-base-2", question_id="q2"),
        row(CAND, "x", question_id="q2", answer="Starter includes 3 seats.", correct=True, sentences=(fixed,),
            flags=make_flags()),
    ]  # fmt: skip


# --------------------------------------------------------------------------- the appendix notebooks' pieces


def test_example_html_of_notebook_03(rows):
    soup = inert(plots.example_html(rows[0]), "name-base", "answer-base", "reason")
    assert soup.b.get_text() == f"{BASE} · q1"


def test_flagged_html_of_notebook_04(rows):
    bodies = {ARTICLE: BODY}
    soup = inert(
        explorer.flagged_html(rows, BASE, "Hallucination", bodies, shown=2),
        "name-base", "answer-base", "answer-base-2", "question", "reference", "article-id", "corpus",
    )  # fmt: skip
    assert soup.h3.get_text() == f"{BASE}: 2 answer(s) flagged Hallucination"
    assert len(soup.select("div.eg-describe")) == 2
    # the flag is a papermill parameter: its label is escaped too, and an unknown one is refused
    with pytest.raises(ValueError, match="unknown flag"):
        explorer.flagged_html(rows, BASE, payload("flag"))
    one = inert(explorer.flagged_html(rows, CAND, "review", shown=0), "name-cand")
    assert one.h3.get_text() == f"{CAND}: 1 answer(s) flagged review" and not one.select("div.eg-describe")


def test_appendix_links_of_the_report():
    name = "<img src=x onerror=alert(1)>"
    for given in (name, f"notebooks/{name}.html"):  # a notebook's name, or a link to its page as callers gave it
        soup = BeautifulSoup(report_html.appendix_links_html([given]), "html.parser")
        assert soup.find_all("img") == [] and soup.a["href"] == f"#appendix-{name}"
        assert soup.a.get_text() == f"{name}.ipynb"
        assert soup.select_one("div.eg-appendix-slot")["data-notebook"] == name
    assert report_html.appendix_links_html([]) == ""


# --------------------------------------------------------------------------- index.html's pieces


def test_headline_intro_and_first_screen_escape_config_names(rows, tmp_path):
    summary = compare(rows, BASE, CAND)
    inert(report_html.headline_html(summary), "name-base", "name-cand")
    intro = Manifest.from_json({"gold": {"questions_run": 2, "questions_in_file": 2}, "corpus": {"articles": 1},
                                "backend": {"backend": payload("backend")}})  # fmt: skip
    inert(report_html.report_intro_html(intro, summary), "name-base", "name-cand", "backend")
    # the thresholds file is named on the page: a file name is user text (with no "/" in it)
    thresholds = tmp_path / "<img src=x onerror=window.egPwned='path'>.toml"
    shutil.copy(ROOT / "configs" / "gate.toml", thresholds)
    soup = inert(first_screen.first_screen(summary, rows, thresholds), "name-cand")
    assert soup.select_one("details.eg-how code").get_text().endswith(thresholds.name)


def test_changes_view_escapes_names_questions_references_and_answers(rows):
    changes = question_changes(rows, BASE, CAND)
    assert [c.kind for c in changes] == ["same", "fixed"]
    inert(changes_view.changes_html(changes), "name-base", "name-cand", "question", "reference", "answer-base-2")


def test_results_table_and_details_escape_every_field_and_labels(rows):
    # a label is shown beside the answer whose text it hashes
    label = Label(
        CAND, "q1", answer_sha256(rows[1].answer), False, True, payload("reviewer"), comment=payload("comment")
    )
    table = report_html.results_table_html(rows, bodies={ARTICLE: BODY}, labels=[label])
    inert(table, "name-base", "name-cand", "question", "reference", "answer-base", "answer-cand", "reason",
          "article-id", "corpus", "reviewer", "comment")  # fmt: skip
    page = report_html.table_page_html(rows, title=payload("title"))
    assert BeautifulSoup(page, "html.parser").title.get_text() == payload("title")
    inert(page, "title", "name-base")


def _manifest(external: bool = False) -> Manifest:
    chunking = {"method": payload("chunking")}
    configs = {
        name: {"chunking": chunking, "chunks": 3, "sha256": "a" * 64, "prompt_sha256": "b" * 64,
               "prompt_template": f"Context: {{context}}\n{payload('prompt-' + side)}\nQuestion: {{question}}",
               "path": f"/logs/{payload('log-' + side).replace('/', '')}.jsonl",
               "answer_log": {"answers": 2, "passages": 2, "doc_ids": True}}
        for name, side in ((BASE, "base"), (CAND, "cand"))
    }  # fmt: skip
    return Manifest.from_json({
        "evalgate_version": "0.1.0",
        "baseline": BASE,
        "candidate": CAND,
        "pipeline": {"kind": "external", "fairness": payload("fairness")} if external else {"kind": "evalgate"},
        "configs": configs,
        "fairness": {"differs": [payload("differs")], "shared": {"corpus": payload("corpus-path"), "top_k": 4}},
        "corpus": {"articles": 1, "sha256": payload("corpus-sha")},
        "gold": {"questions_run": 2, "questions_in_file": 2, "sha256": "f" * 64},
        "backend": {"backend": payload("backend"), "generator": payload("generator"), "embedder": "e"},
        "judging": {"sentence_scorer": payload("scorer"), "answer_matching": "token"},
        "generation": {"temperature": 0.0},
        "top_k": 4,
        "packages": {"numpy": payload("package")},
        "python": "3.11",
    })  # fmt: skip


def test_fairness_manifest_and_methodology_escape_the_manifest():
    manifest = _manifest()
    inert(report_html.fairness_html(manifest), "name-base", "name-cand", "chunking", "prompt-base", "prompt-cand",
          "differs")  # fmt: skip
    inert(report_html.manifest_html(manifest), "corpus-sha", "backend", "generator", "package")
    inert(report_html.methodology_html(manifest), "generator", "scorer")
    external = _manifest(external=True)
    soup = inert(report_html.fairness_html(external), "name-base", "name-cand")
    # the log's path as a shared page shows it: its name, never the machine's absolute folder
    assert soup.select("code")[0].get_text() == Path(external.configs[BASE]["path"]).name


def test_labelled_set_agreement_escapes_set_and_generator_names():
    inert(report_html.sets_agreement_html([{"set": payload("set"), "generator": payload("gen"), "labelled": 3,
                                            "judges": []}]), "set", "gen")  # fmt: skip


def test_labelling_view_escapes_what_the_reviewer_reads(rows):
    articles = {ARTICLE: Article(ARTICLE, f"Plans {payload('title')}", BODY)}
    inert(labelling.review_html(rows[0], articles), "name-base", "question", "reference", "answer-base", "title",
          "corpus")  # fmt: skip


# --------------------------------------------------------------------------- the notebooks call the builders

_DISPLAY = re.compile(r"\b(HTML|Markdown)\(\s*")


@pytest.mark.parametrize("notebook", sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_notebooks_build_no_html_or_markdown_in_cells(notebook):
    """Each ``HTML(...)`` takes a builder's result; each ``Markdown(...)`` a fixed string, never an f-string."""
    nb = nbformat.read(ROOT / "notebooks" / notebook, as_version=4)
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for match in _DISPLAY.finditer(source):
        rest = source[match.end() :]
        if match.group(1) == "HTML":
            assert rest.startswith(("results.", "eg.")), f"{notebook}: HTML({rest[:60]}"
        else:
            literal = re.match(r'"[^"\\{]*"\)', rest)
            assert literal, f"{notebook}: Markdown({rest[:60]}"


# --------------------------------------------------------------------------- the kernel the report starts


def test_report_kernels_get_curve_keys_so_ipykernel_has_nothing_to_warn_about():
    import zmq
    from jupyter_client.manager import KernelManager

    if "transport_encryption" not in KernelManager.class_trait_names() or not zmq.has("curve"):
        assert kernel_config() == {}
    else:
        assert json.loads(json.dumps(kernel_config())) == {"KernelManager": {"transport_encryption": "auto"}}

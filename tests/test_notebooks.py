"""The numbered notebooks: committed clean, and runnable top to bottom by papermill.

The numbered notebooks run on the embedded local backend with a small question limit: as
``evalgate report --limit 4`` executes them (the session's ``small_report``), and one by one here
through ``execute_notebook`` with the session's model cache (conftest.py's ``model_cache``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from evalgate_lib.errors import EvalGateError
from evalgate_lib.run.results import has_results
from evalgate_lib.workbench.report import NOTEBOOKS, REPORT_NOTEBOOK, execute_notebook

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
#: Every numbered notebook: the report's (01-05) and the labelling flow (06), which the report does not run.
ALL = tuple(sorted(p.stem for p in NB_DIR.glob("[0-9][0-9]_*.ipynb")))


@pytest.mark.parametrize("name", ALL)
def test_notebook_is_committed_clean(name):
    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code), "commit notebooks without outputs"
    tagged = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[0]
    for parameter in (
        "baseline_config",
        "candidate_config",
        "corpus_dir",
        "gold_path",
        "backend",
        "top_k",
        "limit",
        "cache_dir",
        "out_dir",
        "results_dir",
    ):
        assert f"\n{parameter} = " in "\n" + tagged[0].source, parameter
    # the notebooks after the run only read results_dir, unless told to (re)run into it
    if name not in NOTEBOOKS[:2]:
        assert "\nrun = False " in "\n" + tagged[0].source, name
    assert "import evalgate_lib as eg" in "\n".join(c.source for c in code)
    assert "from evalgate_lib" not in "\n".join(c.source for c in code), "notebooks use only the public API"
    # a chart is shown with its alt text (eg.show_chart), never by plt.show(), which gives the report's image none
    assert "plt.show()" not in "\n".join(c.source for c in code), name


def test_every_numbered_notebook_is_listed():
    assert {*NOTEBOOKS, REPORT_NOTEBOOK} < set(ALL) and "06_label" in ALL


@pytest.fixture(scope="module")
def executed(small_report):
    """01..04 as ``evalgate report --limit 4`` ran them with papermill (conftest.py's ``small_report``).

    02 ran the evaluation into the report's results folder, which 03 and 04 read (they do not run it again).
    """
    return small_report, {name: small_report / "notebooks" / f"{name}.ipynb" for name in NOTEBOOKS}


def _outputs(path: Path) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _text(path: Path) -> str:
    parts = []
    for o in _outputs(path):
        parts.append(o.get("text", ""))
        parts.extend(str(v) for k, v in o.get("data", {}).items() if k in ("text/html", "text/plain", "text/markdown"))
    return "\n".join(parts)


@pytest.mark.slow
def test_notebooks_run_top_to_bottom(executed):
    out, done = executed
    assert has_results(out / "results")
    for name, path in done.items():
        outputs = _outputs(path)
        assert outputs, name
        assert not [o for o in outputs if o["output_type"] == "error"], name


@pytest.mark.slow
def test_notebook_contents(executed):
    out, done = executed
    corpus = _text(done["01_corpus_inspection"])
    assert "all 18 gold articles exist" in corpus and "median words" in corpus
    run = _text(done["02_two_config_run"])
    assert 'data-metric="accuracy_overall"' in run and "Held constant" in run and "sha256" in run
    heat = _text(done["03_coverage_heatmaps"])
    assert "eg-tok-" in heat
    images = sum(1 for o in _outputs(done["03_coverage_heatmaps"]) if "image/png" in o.get("data", {}))
    assert images >= 3
    explorer = _text(done["04_flag_explorer"])
    assert "application/vnd.jupyter.widget-view+json" in str(_outputs(done["04_flag_explorer"]))
    assert "Hallucination" in explorer


@pytest.mark.slow
def test_reading_notebook_refuses_a_missing_results_folder_without_running(tmp_path):
    # run=False (the default) and no results: a clear error, never minutes of model calls
    params = {"backend": "local", "limit": 2, "cache_dir": str(tmp_path / "cache"), "out_dir": str(tmp_path / "w")}
    params["results_dir"] = str(tmp_path / "none")
    with pytest.raises(EvalGateError, match="InputError: .*holds no results"):
        execute_notebook(NB_DIR / "03_coverage_heatmaps.ipynb", tmp_path / "03.ipynb", params, cwd=NB_DIR)
    assert not (tmp_path / "cache").exists() and not (tmp_path / "none").exists()

"""No path of the machine that built a report anywhere in its folder (issue 47, item 4).

papermill records the parameters it injected (absolute config, cache, label and results paths) in each
executed notebook's parameters cell and metadata; ``evalgate report`` rewrites them, and any output that
printed one, relative to the folder it ran in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.workbench.report import machine_roots, without_machine_paths

ROOT = Path(__file__).resolve().parents[1]


def test_an_executed_notebook_loses_the_machines_paths(tmp_path) -> None:
    checkout = tmp_path / "checkout"
    report = checkout / "report"
    notebook = report / "notebooks" / "05_report.ipynb"
    notebook.parent.mkdir(parents=True)
    cell = f'# Parameters\nbaseline_config = "{checkout}/configs/baseline.toml"\nout_dir = "{report}"\n'
    notebook.write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "metadata": {"tags": ["injected-parameters"]}, "source": cell}],
                "metadata": {
                    "papermill": {
                        "parameters": {"labels": [f"{checkout}/labels/nimbus.jsonl"]},
                        "input_path": f"{checkout}/notebooks/05_report.ipynb",
                        "cwd": str(checkout),
                    }
                },
            }  # fmt: skip
        ),
        encoding="utf-8",
    )
    roots = machine_roots(checkout, report, checkout)
    assert roots == [str(report), str(checkout)]  # the longest first: a report path reads relative to the report
    without_machine_paths(notebook, roots)
    text = notebook.read_text(encoding="utf-8")
    assert str(tmp_path) not in text
    data = json.loads(text)
    assert data["metadata"]["papermill"]["parameters"]["labels"] == ["labels/nimbus.jsonl"]
    assert data["metadata"]["papermill"]["input_path"] == "notebooks/05_report.ipynb"
    assert data["metadata"]["papermill"]["cwd"] == "."
    assert 'baseline_config = "configs/baseline.toml"' in data["cells"][0]["source"]
    assert 'out_dir = "report"' in data["cells"][0]["source"]  # relative to the folder it was built in
    assert machine_roots("/") == []  # never the file system's root: that would cut every path


@pytest.mark.slow
def test_the_shipped_recipe_report_names_no_path_of_this_checkout(small_shipped_report) -> None:
    """``grep -r`` of the checkout's absolute path in the report folder (the README's recipe, on the small run)."""
    found = [
        str(path.relative_to(small_shipped_report))
        for path in small_shipped_report.rglob("*")
        if path.is_file() and str(ROOT) in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert found == []

"""The papermill recipes of docs/notebooks.md, run as written: each draws what the docs say it draws.

The commands are read from the docs (the bash block under "Rerunning a notebook with papermill")
and run in a copy of the project's layout, so the recipe a user copies is the recipe tested. Only
the path of the papermill executable is this venv's; every argument is the documented one.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalgate_lib.api import load_results

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def documented_block() -> str:
    """The bash block under "Rerunning a notebook with papermill", exactly as the docs print it."""
    text = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    return text.split("## Rerunning a notebook with papermill", 1)[1].split("```bash", 1)[1].split("```", 1)[0]


def documented_commands() -> list[str]:
    joined = re.sub(r"\\\n\s*", "", documented_block())
    return [line.strip() for line in joined.splitlines() if "papermill" in line]


def _outputs(path: Path) -> list[dict]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [o for c in notebook["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


def _text(path: Path) -> str:
    return json.dumps(_outputs(path))


@pytest.fixture(scope="module")
def project(tmp_path_factory, model_cache) -> Path:
    """The project's layout (notebooks, configs, corpus, gold, and ``cache/``: the session's model cache), elsewhere."""
    root = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    for name in ("configs", "corpus", "gold"):
        (root / name).symlink_to(ROOT / name, target_is_directory=True)
    (root / "cache").symlink_to(model_cache, target_is_directory=True)
    return root


def run_as_written(project: Path) -> None:
    """The whole block in bash, from the project folder; only papermill's path is this venv's."""
    papermill = str(Path(sys.executable).with_name("papermill"))
    script = documented_block().replace("../.venv/bin/papermill", shlex.quote(papermill))
    done = subprocess.run(["bash", "-e", "-c", script], cwd=project, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_docs_hold_three_recipes() -> None:
    commands = documented_commands()
    assert [shlex.split(c)[1] for c in commands] == [
        "02_two_config_run.ipynb",
        "03_coverage_heatmaps.ipynb",
        "02_two_config_run.ipynb",
    ]


def test_each_recipe_draws_what_it_says(project: Path) -> None:
    run_as_written(project)
    loaded = load_results(project / "results" / "nb" / "results")
    rows, manifest = loaded.rows, loaded.manifest
    assert manifest.gold["questions_run"] == 4 and manifest.limit == 4 and len(rows) == 8
    assert 'data-metric=\\"accuracy_overall' in _text(project / "results" / "nb" / "02.ipynb")  # the summary table

    drawn = project / "results" / "nb" / "03.ipynb"  # question_ids arrived from -p as a string
    images = sum(1 for o in _outputs(drawn) if "image/png" in o.get("data", {}))
    assert images >= 4  # q001 and q082, each for both configs (then the distribution)
    text = _text(drawn)
    assert "q001" in text and "q082" in text and '"output_type": "error"' not in text

    loaded = load_results(project / "results" / "nb" / "top2" / "results")
    rows, manifest = loaded.rows, loaded.manifest
    assert manifest.top_k == 2 and rows and all(len(r.retrieved) == 2 for r in rows)

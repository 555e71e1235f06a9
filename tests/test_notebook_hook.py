"""Committed notebooks stay output-free whatever JupyterLab saves: the pre-save hook and its wiring.

The hook runs inside a real Jupyter ``FileContentsManager`` configured from the very file
``install_save_hook`` writes (what ``scripts/install.sh`` runs), so the test covers the
config key, the dotted path Jupyter imports and the hook together. That the notebooks in
the repository are committed clean is checked in ``test_notebooks.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from evalgate_lib.workbench import notebook_support
from evalgate_lib.workbench.notebook_support import (
    SAVE_HOOK,
    clear_outputs,
    install_save_hook,
    is_committed_notebook,
    strip_committed_outputs,
)

ROOT = Path(__file__).resolve().parents[1]


def executed_notebook() -> nbformat.NotebookNode:
    """A notebook as JupyterLab saves it after a run: outputs, counts, timing and widget state."""
    code = new_code_cell("print(1 + 1)", execution_count=3)
    code.outputs = [new_output("stream", name="stdout", text="2\n")]
    code.metadata["execution"] = {"iopub.status.busy": "2026-12-02T10:00:00Z"}
    code.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[new_markdown_cell("# Title"), code])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7", "codemirror_mode": {"name": "ipython"}}
    return nb


def test_clear_outputs_by_hand():
    nb = clear_outputs(executed_notebook())
    markdown, code = nb.cells
    assert code.outputs == [] and code.execution_count is None
    assert "execution" not in code.metadata and code.metadata["tags"] == ["parameters"]  # tags are content
    assert code.source == "print(1 + 1)" and markdown.source == "# Title"
    assert "widgets" not in nb.metadata and nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.metadata["language_info"] == {"name": "python"}  # the kernel's version details are not content
    nbformat.validate(nb)


def test_is_committed_notebook(tmp_path):
    folder = tmp_path / "notebooks"
    assert is_committed_notebook(folder / "05_report.ipynb", folder)
    assert is_committed_notebook(folder / "sub" / "x.ipynb", folder)
    assert not is_committed_notebook(tmp_path / "results" / "05_report.ipynb", folder)
    assert not is_committed_notebook(folder / "notes.py", folder)
    assert notebook_support.COMMITTED_NOTEBOOKS == ROOT / "notebooks"  # the checkout's own folder by default
    assert is_committed_notebook(ROOT / "notebooks" / "05_report.ipynb")
    # a second clone: notebooks/ beside evalgate_lib/, wherever it lives
    clone = tmp_path / "second-clone"
    (clone / "evalgate_lib").mkdir(parents=True)
    assert is_committed_notebook(clone / "notebooks" / "03_coverage_heatmaps.ipynb")
    assert not is_committed_notebook(tmp_path / "elsewhere" / "notebooks" / "mine.ipynb")


@pytest.fixture
def contents_manager(tmp_path, monkeypatch):
    """A Jupyter FileContentsManager rooted at a fake checkout, configured from the installed config file."""
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from traitlets.config.loader import JSONFileConfigLoader

    checkout = tmp_path / "checkout"
    (checkout / "notebooks").mkdir(parents=True)
    (checkout / "results").mkdir()
    monkeypatch.setattr(notebook_support, "COMMITTED_NOTEBOOKS", checkout / "notebooks")
    config_file = install_save_hook(tmp_path / "venv")
    assert config_file == tmp_path / "venv" / "etc" / "jupyter" / "jupyter_server_config.json"
    config = JSONFileConfigLoader(config_file.name, str(config_file.parent)).load_config()
    return checkout, FileContentsManager(config=config, root_dir=str(checkout))


def test_jupyter_saves_committed_notebooks_without_outputs(contents_manager):
    checkout, manager = contents_manager
    assert manager.pre_save_hook is strip_committed_outputs  # Jupyter imported the dotted path
    model = {"type": "notebook", "format": "json", "content": executed_notebook()}
    manager.save(model, "notebooks/05_report.ipynb")
    saved = nbformat.read(checkout / "notebooks" / "05_report.ipynb", as_version=4)
    code = saved.cells[1]
    assert code.outputs == [] and code.execution_count is None and "widgets" not in saved.metadata
    assert code.source == "print(1 + 1)"
    # a notebook outside notebooks/ (an executed copy) is saved as it is
    manager.save({"type": "notebook", "format": "json", "content": executed_notebook()}, "results/run.ipynb")
    kept = nbformat.read(checkout / "results" / "run.ipynb", as_version=4)
    assert kept.cells[1].outputs[0]["text"] == "2\n" and kept.cells[1].execution_count == 3


def test_jupyter_in_a_second_clone_saves_its_notebooks_clean(tmp_path):
    """The hook is not tied to the clone the venv was installed from (no monkeypatching here)."""
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from traitlets.config.loader import JSONFileConfigLoader

    clone = tmp_path / "second-clone"
    (clone / "evalgate_lib").mkdir(parents=True)
    (clone / "notebooks").mkdir()
    config_file = install_save_hook(tmp_path / "venv")
    config = JSONFileConfigLoader(config_file.name, str(config_file.parent)).load_config()
    manager = FileContentsManager(config=config, root_dir=str(clone))
    notebook = executed_notebook()
    notebook.metadata["language_info"] = {"name": "python", "version": "3.11.7", "mimetype": "text/x-python"}
    manager.save({"type": "notebook", "format": "json", "content": notebook}, "notebooks/05_report.ipynb")
    saved = nbformat.read(clone / "notebooks" / "05_report.ipynb", as_version=4)
    assert saved.cells[1].outputs == [] and saved.metadata["language_info"] == {"name": "python"}


def test_hook_leaves_other_files_alone():
    model = {"type": "file", "format": "text", "content": "not a notebook"}
    strip_committed_outputs(model=model, path="notebooks/x.txt", contents_manager=None)
    assert model["content"] == "not a notebook"


def test_install_keeps_other_settings_and_install_script_runs_it(tmp_path):
    config_file = tmp_path / "etc" / "jupyter" / "jupyter_server_config.json"
    config_file.parent.mkdir(parents=True)
    config_file.write_text(json.dumps({"ServerApp": {"open_browser": False}}), encoding="utf-8")
    install_save_hook(tmp_path)
    install_save_hook(tmp_path)  # idempotent
    assert json.loads(config_file.read_text(encoding="utf-8")) == {
        "ServerApp": {"open_browser": False},
        "ContentsManager": {"pre_save_hook": SAVE_HOOK},
    }
    script = (ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")
    assert "from evalgate_lib.workbench.notebook_support import install_save_hook; install_save_hook()" in script


# --------------------------------------------------------------------------- the committed notebooks round-trip


def _clone_of_notebooks(tmp_path: Path) -> Path:
    """The committed notebooks in a git repository of their own, laid out as a checkout (``evalgate_lib/`` beside)."""
    import shutil
    import subprocess

    clone = tmp_path / "clone"
    (clone / "evalgate_lib").mkdir(parents=True)
    shutil.copytree(ROOT / "notebooks", clone / "notebooks")
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "committed notebooks"]
    for args in (["init", "-q"], ["add", "notebooks"], commit):
        subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True)
    return clone


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_saving_a_committed_notebook_unchanged_leaves_git_diff_empty(tmp_path, monkeypatch, name):
    """Open and save through the Jupyter contents API, as JupyterLab does (Ctrl+S), with a kernel attached.

    JupyterLab GETs the notebook, fills in the kernel's ``language_info`` once a kernel starts, and
    PUTs it back; the server writes it with nbformat's writer (sorted keys, indent 1) after the
    pre-save hook. A committed notebook written any other way (a key out of order) dirties git.
    """
    import subprocess

    from jupyter_server.services.contents.filemanager import FileContentsManager
    from traitlets.config.loader import JSONFileConfigLoader

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))  # the notary's database, not the user's
    clone = _clone_of_notebooks(tmp_path)
    config_file = install_save_hook(tmp_path / "venv")
    config = JSONFileConfigLoader(config_file.name, str(config_file.parent)).load_config()
    manager = FileContentsManager(config=config, root_dir=str(clone))
    model = manager.get(f"notebooks/{name}", content=True, type="notebook")
    model["content"]["metadata"]["language_info"] = {
        "name": "python", "version": "3.11.2", "mimetype": "text/x-python", "file_extension": ".py",
    }  # fmt: skip
    manager.save({"type": "notebook", "format": "json", "content": model["content"]}, f"notebooks/{name}")
    diff = subprocess.run(["git", "diff", "--stat"], cwd=clone, capture_output=True, text=True, check=True)
    assert diff.stdout == "", diff.stdout

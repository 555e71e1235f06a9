"""Notebook support: fair config overrides, and committed notebooks that stay output-free.

The notebooks take papermill parameters (corpus, gold file, top-k) that must
reach *both* configs, or the pair would break the fairness contract. The
override lives here, where tests reach it; the public API exposes it as
:func:`evalgate_lib.api.prepare_configs`.

The numbered notebooks are committed without outputs (a test checks it), but JupyterLab's
autosave writes whatever the open notebook shows. :func:`strip_committed_outputs` is a
Jupyter ``ContentsManager.pre_save_hook``: every save of a notebook under the ``notebooks/`` folder
of an EvalGate checkout (this one or any other clone: a ``notebooks/`` folder beside an
``evalgate_lib/`` folder) is written without outputs, execution counts, widget state or the
kernel's version details, while the open notebook keeps showing them, so opening and saving a
notebook leaves ``git status`` clean. ``scripts/install.sh`` sets it in the venv's Jupyter config
with :func:`install_save_hook`; notebooks anywhere else (executed copies, your own) are saved as they are.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from evalgate_lib.errors import InputError
from evalgate_lib.files import atomic_write
from evalgate_lib.inputs.structured import parse_toml, read_json

#: The committed notebooks: ``notebooks/`` of the checkout the package is (editable-)installed from.
COMMITTED_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

#: The hook as Jupyter's config names it (a dotted path Jupyter imports).
SAVE_HOOK = "evalgate_lib.workbench.notebook_support.strip_committed_outputs"

#: Cell metadata keys that record a run rather than the notebook (nbstripout's list).
_RUN_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def override_shared(config: str | Path, dest: str | Path, **values: Any) -> Path:
    """Copy a config to ``dest`` with ``[shared]`` keys replaced (``corpus``, ``gold``, ``top_k``, ...).

    Used by the notebooks' parameters. Relative paths of the original are made
    absolute so the copy works from any folder. Both configs get the same
    overrides, so the fairness contract still holds; the manifest records the copies.
    """
    source = Path(config)
    text = source.read_text(encoding="utf-8")
    raw = parse_toml(text, str(source))
    shared = raw.get("shared", {})
    for key in ("corpus", "gold"):
        if key in shared and values.get(key) is None:
            values[key] = str((source.parent / shared[key]).resolve())
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "[shared]")
    except StopIteration:
        raise InputError(f"{source}: no [shared] table to override") from None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    for key, value in values.items():
        if value is None:
            continue
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        new = f"{key} = {_toml_value(value)}"
        hit = next((i for i in range(start + 1, end) if pattern.match(lines[i])), None)
        if hit is None:
            lines.insert(start + 1, new)
            end += 1
        else:
            lines[hit] = new
    out = Path(dest)
    out.parent.mkdir(parents=True, exist_ok=True)
    rendered = "\n".join(lines) + "\n"
    check = parse_toml(rendered, str(out))["shared"]
    for key, value in values.items():
        if value is not None and check.get(key) != value:
            raise InputError(f"{source}: could not override [shared] {key} (got {check.get(key)!r})")
    out.write_text(rendered, encoding="utf-8")
    return out


def resolve_configs(
    baseline: str | Path,
    candidate: str | Path,
    work_dir: str | Path,
    corpus: str | Path | None = None,
    gold: str | Path | None = None,
    top_k: int | None = None,
) -> tuple[Path, Path]:
    """The two config paths to run: the originals, or copies in ``work_dir/configs`` with the same overrides."""
    overrides = {
        "corpus": None if corpus is None else str(Path(corpus).resolve()),
        "gold": None if gold is None else str(Path(gold).resolve()),
        "top_k": None if top_k is None else int(top_k),
    }
    if all(v is None for v in overrides.values()):
        return Path(baseline), Path(candidate)
    folder = Path(work_dir) / "configs"
    return (
        override_shared(baseline, folder / Path(baseline).name, **overrides),
        override_shared(candidate, folder / Path(candidate).name, **overrides),
    )


# --------------------------------------------------------------------------- output-free committed notebooks


def clear_outputs(notebook: dict[str, Any]) -> dict[str, Any]:
    """Empty every code cell's outputs and execution count, drop run-only metadata; in place, and returned.

    ``notebook`` is the notebook as JSON (nbformat 4). Run-only metadata is the saved widget
    state and the cells' timing / collapse state, which change on every run and are no part
    of the notebook's content.
    """
    metadata = notebook.get("metadata", {})
    metadata.pop("widgets", None)
    language = metadata.get("language_info")
    if isinstance(language, dict):  # the kernel fills in its version, mimetype, ...: keep what is committed
        metadata["language_info"] = {"name": language.get("name", "python")}
    for cell in notebook.get("cells", []):
        metadata = cell.get("metadata", {})
        for key in _RUN_CELL_METADATA:
            metadata.pop(key, None)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return notebook


def is_committed_notebook(os_path: str | Path, folder: str | Path | None = None) -> bool:
    """Whether ``os_path`` is a committed notebook: under ``folder`` when given, else under the
    ``notebooks/`` folder of an EvalGate checkout (this package's own, or any clone: a ``notebooks/``
    folder that has an ``evalgate_lib/`` folder beside it)."""
    path = Path(os_path).resolve()
    if path.suffix != ".ipynb":
        return False
    if folder is not None:
        return Path(folder).resolve() in path.parents
    if COMMITTED_NOTEBOOKS in path.parents:
        return True
    return any(p.name == "notebooks" and (p.parent / "evalgate_lib").is_dir() for p in path.parents)


def strip_committed_outputs(model: dict[str, Any], path: str, contents_manager: Any, **_: Any) -> None:
    """``ContentsManager.pre_save_hook``: save a committed notebook without outputs (see the module docstring).

    Jupyter calls it with the contents model about to be written, the API path (relative to the
    server's root folder) and the contents manager. Only the saved file changes; the notebook
    open in the browser keeps its outputs.
    """
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    root = Path(getattr(contents_manager, "root_dir", "."))
    if is_committed_notebook(root / path.lstrip("/")):
        clear_outputs(model["content"])


def install_save_hook(prefix: str | Path = sys.prefix) -> Path:
    """Set the hook in ``<prefix>/etc/jupyter/jupyter_server_config.json``; returns that path.

    ``prefix`` is the venv: Jupyter reads ``etc/jupyter`` of ``sys.prefix``, so JupyterLab started
    from this venv, in any folder, uses the hook, and nothing outside the venv changes. The file
    is JSON config that Jupyter merges with its other config (the ``jupyter_server_config.d``
    folder would not do: the server reads only extension switches from it). Other settings
    already in the file are kept.
    """
    dest = Path(prefix) / "etc" / "jupyter" / "jupyter_server_config.json"
    config: dict[str, Any] = read_json(dest, "Jupyter server config") if dest.is_file() else {}
    if not isinstance(config, dict):
        raise InputError(f"{dest}: not a JSON object (Jupyter's server config); fix or remove it")
    config.setdefault("ContentsManager", {})["pre_save_hook"] = SAVE_HOOK
    atomic_write(dest, json.dumps(config, indent=2, sort_keys=True) + "\n")
    return dest

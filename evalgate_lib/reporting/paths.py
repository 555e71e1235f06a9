"""Paths as a report meant to be shared shows them: never the absolute path of the machine that ran it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable


def shareable_path(path: str | Path, root: str | Path | None = None) -> str:
    """``path`` relative to the working folder or its parent (the project, when the report's notebooks run in
    ``notebooks/``), else relative to ``root`` (the folder the run's inputs share: :func:`input_root`), else only
    its name. ``manifest.json`` keeps the full paths for whoever needs them.

    A report rebuilt elsewhere from a copied results folder still says ``gold/questions.jsonl``, not
    ``questions.jsonl``: the run's corpus, gold file and configs name their project between them.
    """
    resolved = Path(path).resolve()
    here = Path.cwd().resolve()
    bases = [here, here.parent] + ([Path(root)] if root is not None else [])
    for base in bases:
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return resolved.name


def input_root(paths: Iterable[str | Path | None]) -> Path | None:
    """The folder the run's inputs share (their deepest common folder), or ``None`` when they share none but ``/``.

    ``/work/main/corpus``, ``/work/main/gold/questions.jsonl`` and ``/work/main/configs/baseline.toml`` give
    ``/work/main``; a single input gives its own folder.
    """
    found = [Path(os.path.abspath(str(p))) for p in paths if p]
    if not found:
        return None
    common = Path(os.path.commonpath(found))
    if common in found:  # one input holds the others (or there is only one): name it from its own folder
        common = common.parent
    return common if len(common.parts) > 1 else None

"""Paths as a report meant to be shared shows them: never the absolute path of the machine that ran it."""

from __future__ import annotations

from pathlib import Path


def shareable_path(path: str | Path) -> str:
    """``path`` relative to the working folder or its parent (the project, when the report's notebooks run in
    ``notebooks/``), else only its name. ``manifest.json`` keeps the full paths for whoever needs them."""
    resolved = Path(path).resolve()
    here = Path.cwd().resolve()
    for base in (here, here.parent):
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            continue
    return resolved.name

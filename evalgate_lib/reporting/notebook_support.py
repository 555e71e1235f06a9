"""Notebook support: fair config overrides.

The notebooks take papermill parameters (corpus, gold file, top-k) that must
reach *both* configs, or the pair would break the fairness contract. The
override lives here, where tests reach it; the public API exposes it as
:func:`evalgate_lib.api.prepare_configs`.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from evalgate_lib.errors import InputError


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
    raw = tomllib.loads(text)
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
    check = tomllib.loads(rendered)["shared"]
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

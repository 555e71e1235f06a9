"""Load one of the project's `scripts/*.py` as a module, for the tests that check what a script prints or counts.

The scripts are command-line tools, not a package, so the tests load them by path. Each load registers the
module under a private name in `sys.modules` first, because a script's dataclasses look their module up there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str) -> ModuleType:
    """The module `scripts/<name>.py`, freshly executed."""
    spec = importlib.util.spec_from_file_location(f"_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module

"""The layers: no module of evalgate_lib imports from a layer above its own.

The library is organised along the data flow (text → inputs → chunks → retrieval →
generation → judging → statistics (and probing, which measures the judge) → run → reporting, with the API and
the command line on top). A lower layer importing a higher one, even inside a function, would
tie e.g. the judging code to the report or the command line. Checked on the source
with :mod:`ast`, so nothing is imported and type-checking-only imports count too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "evalgate_lib"

#: Layer of each top-level module or folder of evalgate_lib; a module may import only its own layer or lower.
LAYERS: dict[str, int] = {
    "errors": 0,
    "version": 0,
    "files": 0,
    "folders": 0,
    "signing": 0,
    "text": 1,
    "inputs": 2,
    "gold_tools": 3,
    "chunks": 4,
    "retrieval": 5,
    "generation": 6,
    "judging": 7,
    "statistics": 8,
    "probing": 8,
    "run": 9,
    "reporting": 10,
    "workbench": 11,
    "api": 12,
    "cli": 12,
    "__init__": 12,
}


#: Known violations, each reported to the maintainers: the test for that module is a strict xfail, so it
#: fails (and asks for its entry to be removed) as soon as the import is gone.
KNOWN_VIOLATIONS: dict[str, str] = {}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _checked_modules() -> list:
    params = []
    for path in _modules():
        name = path.relative_to(PACKAGE).as_posix()
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_VIOLATIONS[name])] if name in KNOWN_VIOLATIONS else []
        params.append(pytest.param(path, id=name, marks=marks))
    return params


def _dotted(path: Path) -> str:
    parts = ["evalgate_lib", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """Layer of a dotted module name inside evalgate_lib (``evalgate_lib`` itself is the top)."""
    parts = module.split(".")
    assert parts[0] == "evalgate_lib", module
    if len(parts) == 1:
        return LAYERS["__init__"]
    if parts[1] not in LAYERS:
        raise AssertionError(f"{module}: not assigned to a layer; add its top-level name to LAYERS in {__file__}")
    return LAYERS[parts[1]]


def _resolve(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every evalgate_lib import in ``path``, at module level or inside functions.

    ``from evalgate_lib.x import y`` counts as importing ``evalgate_lib.x.y`` when ``y``
    is a submodule, so ``from evalgate_lib import reporting`` is seen as the reporting layer.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    module = _dotted(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(node, package)
            if source == "evalgate_lib":  # from evalgate_lib import x: the layer is x's
                found += [(node.lineno, f"evalgate_lib.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, source))
    return [(line, name) for line, name in found if name == "evalgate_lib" or name.startswith("evalgate_lib.")]


def violations(path: Path) -> list[str]:
    own = layer_of(_dotted(path))
    out = []
    for line, name in imported_modules(path):
        if name.split(".")[1:2] == ["__init__"] or name == "evalgate_lib":
            target = LAYERS["__init__"]
        else:
            target = layer_of(name)
        if target > own:
            out.append(f"{path.relative_to(PACKAGE.parent)}:{line}: layer {own} imports {name} (layer {target})")
    return out


def test_every_module_is_assigned_a_layer() -> None:
    names = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in _modules()}
    assert names <= set(LAYERS), sorted(names - set(LAYERS))


@pytest.mark.parametrize("path", _checked_modules())
def test_no_module_imports_from_a_higher_layer(path: Path) -> None:
    assert violations(path) == []


def test_judging_never_imports_reporting_or_cli() -> None:
    for path in (PACKAGE / "judging").glob("*.py"):
        names = [name for _, name in imported_modules(path)]
        assert not [n for n in names if n.startswith(("evalgate_lib.reporting", "evalgate_lib.cli"))], path


def test_the_checker_sees_imports_inside_functions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "evalgate_lib"
    (fake / "judging").mkdir(parents=True)
    module = fake / "judging" / "bad.py"
    module.write_text(
        "from evalgate_lib.text.tokens import fold\n"
        "from . import rows\n"
        "def late():\n"
        "    from evalgate_lib.reporting.plots import sentences_html\n"
        "    import evalgate_lib.cli\n"
        "    from evalgate_lib import api\n"
        "    from ..run import results\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert imported_modules(module) == [
        (1, "evalgate_lib.text.tokens"),
        (2, "evalgate_lib.judging"),
        (4, "evalgate_lib.reporting.plots"),
        (5, "evalgate_lib.cli"),
        (6, "evalgate_lib.api"),
        (7, "evalgate_lib.run"),
    ]
    assert [v.split(": ", 1)[1] for v in violations(module)] == [
        "layer 7 imports evalgate_lib.reporting.plots (layer 10)",
        "layer 7 imports evalgate_lib.cli (layer 12)",
        "layer 7 imports evalgate_lib.api (layer 12)",
        "layer 7 imports evalgate_lib.run (layer 9)",
    ]


# ------------------------------------------------------------- docs/DESIGN.md matches the code

DESIGN = PACKAGE.parent / "docs" / "DESIGN.md"


def _section(title: str) -> list[str]:
    """The lines of DESIGN.md's ``## title`` section."""
    text = DESIGN.read_text(encoding="utf-8")
    body = text.split(f"\n## {title}\n", 1)[1]
    return body.split("\n## ", 1)[0].splitlines()


def _table_rows(lines: list[str]) -> list[list[str]]:
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
    return [r for r in rows[2:]]  # header and separator rows dropped


def _ticked(cell: str) -> list[str]:
    return [t.strip() for t in cell.split("`")[1::2]]


def test_design_layer_table_lists_every_room_its_layer_and_every_module() -> None:
    rows = _table_rows(_section("Layers"))
    documented = {}
    for layer, room, modules, _what in rows:
        name = _ticked(room)[0].removesuffix("/").removesuffix(".py")
        assert LAYERS[name] == int(layer), f"DESIGN.md puts {name} at layer {layer}; this file: {LAYERS[name]}"
        documented[name] = set(_ticked(modules))
    assert set(documented) == set(LAYERS) - {"__init__"}, "a room of the package is missing from DESIGN.md's table"
    for name, modules in documented.items():
        folder = PACKAGE / name
        if not folder.is_dir():
            continue
        actual = {p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.py")}
        actual = {m for m in actual if not m.endswith("__init__") and "__pycache__" not in m}
        assert modules == actual, f"{name}/: DESIGN.md lists {sorted(modules)}, the folder holds {sorted(actual)}"


def _resolves(reference: str) -> bool:
    import importlib

    parts = reference.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(["evalgate_lib", *parts[:cut]]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_design_names_one_existing_function_for_every_published_number_and_flag() -> None:
    rows = _table_rows(_section("One function per published number"))
    assert len(rows) >= 12
    missing = []
    for number, functions in rows:
        references = [r for r in _ticked(functions) if "." in r and r.split(".")[0] in LAYERS]
        assert references, f"DESIGN.md names no function for {number!r}"
        missing += [r for r in references if not _resolves(r)]
    assert missing == [], f"DESIGN.md names functions that do not exist: {missing}"


@pytest.mark.parametrize("path", _checked_modules())
def test_every_import_names_a_module_that_exists(path: Path) -> None:
    """Imports inside functions run only on their code path: a renamed module must fail here, not for a user."""
    import importlib.util

    missing = []
    for line, name in imported_modules(path):
        parent, _, leaf = name.rpartition(".")
        if importlib.util.find_spec(name) is None and not (
            parent and importlib.util.find_spec(parent) is not None and _has_attribute(parent, leaf)
        ):
            missing.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name}")
    assert missing == []


def _has_attribute(module: str, name: str) -> bool:
    import importlib

    return hasattr(importlib.import_module(module), name)

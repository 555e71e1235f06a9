"""The judge's size, counted: what a reader must hold in mind to recompute a verdict by hand.

Shorter is not the aim, a reader's understanding is: these counts are a symptom to watch, stated in
docs/judge.md ("How big the judge is"). Over every module of ``evalgate_lib/judging/`` it counts:

* **lines** and **files**;
* **regular expressions** (every pattern given to ``re.compile``, ``re.search``, ``re.match``, …, as the module
  builds it: literals, f-strings and ``"|".join`` of its named constants filled in) and their **alternation
  branches** (each unescaped ``|`` outside a character class, plus one per expression);
* **listed words**: string constants inside a module-level list, tuple, set or frozenset of five or more, or a
  triple-quoted string split into words (the lexicon's words are data, counted apart in ``lexicon.toml``);
* **thresholds**: module-level names bound to a number (every share, count or window that can move a verdict);
* **places where a reason string decides a verdict**: a ``.reason`` / ``.reasons`` attribute (or a rendered
  reason, ``why``) read in the test of an ``if``, a ``while`` or a conditional expression, or inspected with
  ``startswith`` / ``endswith``;
* **word lists**: how many module-level collections of words exist outside the lexicon (the goal: none).

    .venv/bin/python scripts/judge_size.py                  # this tree
    .venv/bin/python scripts/judge_size.py --root OTHER     # another checkout (e.g. an older commit, extracted)
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
_NOT_THRESHOLDS = {"SCHEMA_VERSION", "DECIMALS"}  # a format version and a rounding, not verdict thresholds


@dataclass
class Size:
    files: int = 0
    lines: int = 0
    regexes: int = 0
    branches: int = 0
    listed_words: int = 0
    word_lists: int = 0
    thresholds: dict[str, float] = field(default_factory=dict)
    reason_decides: list[str] = field(default_factory=list)
    lexicon_words: int = 0


def branches(pattern: str) -> int:
    """Alternation branches of one regular expression: unescaped ``|`` outside ``[...]``, plus one."""
    count, escaped, in_class = 1, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        elif char == "|" and not in_class:
            count += 1
    return count


def _string(node: ast.AST, names: dict[str, object] | None = None) -> str | None:
    """The text of a pattern as the module builds it: a literal, concatenations, f-strings and ``"|".join(...)``,
    with the module's own named string constants (and tuples of them) filled in, so a pattern assembled from
    pieces counts every branch of its pieces."""
    names = names or {}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and isinstance(names.get(node.id), str):
        return str(names[node.id])
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
            elif isinstance(v, ast.FormattedValue):
                parts.append(_string(v.value, names) or "")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left, names), _string(node.right, names)
        return None if left is None and right is None else (left or "") + (right or "")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" and node.args:
        glue = _string(node.func.value, names)
        arg = node.args[0]
        items = names.get(arg.id) if isinstance(arg, ast.Name) else None
        if glue is not None and isinstance(items, tuple):
            return glue.join(str(i) for i in items)
    return None


def _constants(tree: ast.Module) -> dict[str, object]:
    """The module's named string constants and tuples of strings, resolved in order (later ones may use earlier)."""
    names: dict[str, object] = {}
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        for target in targets:
            if not isinstance(target, ast.Name) or value is None:
                continue
            if isinstance(value, (ast.Tuple, ast.List)):
                items = [_string(e, names) for e in value.elts]
                if items and all(i is not None for i in items):
                    names[target.id] = tuple(items)
            else:
                text = _string(value, names)
                if text is not None:
                    names[target.id] = text
    return names


def _reads_reason(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr in ("reason", "reasons") or isinstance(n, ast.Name) and n.id == "why"
        for n in ast.walk(node)
    )


def count(root: Path) -> Size:
    """The counts of the module docstring over ``root/evalgate_lib/judging``."""
    size = Size()
    judging = root / "evalgate_lib" / "judging"
    for path in sorted(judging.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        size.files += 1
        size.lines += len(text.splitlines())
        tree = ast.parse(text)
        names = _constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RE_CALLS:
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "re" and node.args:
                    pattern = _string(node.args[0], names)
                    size.regexes += 1
                    size.branches += branches(pattern) if pattern is not None else 1
            if isinstance(node, (ast.If, ast.While, ast.IfExp)) and _reads_reason(node.test):
                size.reason_decides.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in ("startswith", "endswith") and _reads_reason(node.func.value):
                    size.reason_decides.append(f"{path.name}:{node.lineno}")
        for node in tree.body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            value = getattr(node, "value", None)
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if not names or value is None:
                continue
            if (
                isinstance(value, ast.Constant)
                and isinstance(value.value, (int, float))
                and not isinstance(value.value, bool)
            ):
                for name in names:
                    if name not in _NOT_THRESHOLDS:
                        size.thresholds[f"{path.stem}.{name}"] = value.value
            words = _words_in(value) if "__all__" not in names else 0
            if words >= 5:
                size.listed_words += words
                size.word_lists += 1
    lexicon = judging / "lexicon.toml"
    if lexicon.exists():
        data = tomllib.loads(lexicon.read_text(encoding="utf-8"))
        size.lexicon_words = sum(
            len(v) for t in data.values() for k, v in t.items() if isinstance(v, list) and k not in ("source", "why")
        )
    size.reason_decides = sorted(set(size.reason_decides))
    return size


def _words_in(value: ast.AST) -> int:
    """How many word constants a module-level value lists (a collection of strings, or a ``"…".split()``)."""
    inner = value
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id in ("frozenset", "set", "tuple")
    ):
        inner = inner.args[0] if inner.args else inner
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "split":
        text = _string(inner.func.value)
        return len(text.split()) if text else 0
    if isinstance(inner, (ast.List, ast.Tuple, ast.Set)):
        return sum(1 for e in inner.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to count (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    size = count(args.root)
    if args.json:
        print(json.dumps(asdict(size), indent=1, sort_keys=True))
        return 0
    print(f"judging/: {size.lines} lines in {size.files} files")
    print(f"regular expressions: {size.regexes}, alternation branches: {size.branches}")
    print(
        f"words listed in code: {size.listed_words} in {size.word_lists} lists; in lexicon.toml: {size.lexicon_words}"
    )
    print(f"thresholds: {len(size.thresholds)}: " + ", ".join(f"{k} = {v}" for k, v in sorted(size.thresholds.items())))
    print(
        f"places where a reason string decides a verdict: {len(size.reason_decides)}"
        + (": " + ", ".join(size.reason_decides) if size.reason_decides else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Each threshold of the judge against reviewers' labels: κ on every labelled set as the threshold moves.

Every number a verdict is compared with is a named constant (``scripts/judge_size.py`` lists them). This
script measures what each one does: for each threshold and each value in its range, every answer of every
set in ``labels/sets.toml`` is judged again by the default judge (``judge_answer``) with that one constant
changed, and Cohen's κ against the pass-1 labels is printed for "has an unsupported claim" and for
correctness, per set. The shipped value is marked ``*``. The tables in docs/judge.md ("Thresholds and their
curves") are this script's ``--markdown`` output.

A threshold was chosen on the development sets by the worst set's κ, never by the mean; the held-out sets
(``held_out = true`` in ``labels/sets.toml``) were added after, and their columns are measured, not chosen by:
the last column is the worst development set's.

    .venv/bin/python scripts/threshold_curves.py                   # every threshold (about 10 minutes, 2 cores)
    .venv/bin/python scripts/threshold_curves.py --only WORD_FLOOR
    .venv/bin/python scripts/threshold_curves.py --markdown
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalgate_lib.inputs.labelled_sets import load_sets  # noqa: E402
from evalgate_lib.judging import context, correctness, flags, question, reading, slots, support  # noqa: E402

#: The modules of the judge that read a threshold (a threshold imported by name is set where it is read).
JUDGE_MODULES: tuple[ModuleType, ...] = (context, correctness, flags, question, reading, slots, support)


@dataclass(frozen=True)
class Curve:
    """One threshold and the values it is measured at (the shipped value among them)."""

    name: str
    values: tuple[float, ...]


#: Each threshold that decides a verdict, and the range it is measured over. ``REVIEW_CONFIDENCE`` and
#: ``COVERAGE_FLOOR`` are left out: the first decides only the review flag (its curve is the review queue's
#: in ``evalgate agreement``), the second only the lexical scorer, which is not the default.
CURVES: tuple[Curve, ...] = (
    Curve("WORD_FLOOR", (0.45, 0.5, 0.55, 0.6, 0.65, 0.7)),
    Curve("NEAR_MISS", (0.2, 0.27, 0.34, 0.4, 0.45)),
    Curve("FRAGMENT_WORDS", (1, 2, 3)),
    Curve("SHORT_CLAIM", (3, 4, 5, 6)),
    Curve("VERBATIM_CHARS", (8, 12, 20, 30)),
    Curve("PHRASE_WINDOW", (3, 4, 5, 6, 8)),
    Curve("ADJACENT_UNITS", (1, 2, 3)),
    Curve("ABOUT_QUESTION", (0.4, 0.5, 0.6)),
    Curve("RESTATES_QUESTION", (0.65, 0.75, 0.85)),
    Curve("BIND_FLOOR", (0.4, 0.5, 0.6, 0.75)),
)


def _ablation() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ablation", ROOT / "scripts" / "ablation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _set(name: str, value: float) -> float:
    """Set threshold ``name`` to ``value`` wherever the judge reads it; the shipped value is returned."""
    holders = [m for m in JUDGE_MODULES if hasattr(m, name)]
    if not holders:
        raise SystemExit(f"no module of the judge has a threshold {name}")
    shipped = getattr(holders[0], name)
    for module in holders:
        setattr(module, name, type(shipped)(value))
    _clear_caches()
    return shipped


def _clear_caches() -> None:
    """Memoised readings were made with the old value: drop them."""
    for module in JUDGE_MODULES:
        for value in vars(module).values():
            if callable(value) and hasattr(value, "cache_clear"):
                value.cache_clear()


def measure(curves: Sequence[Curve], sets_path: Path) -> list[tuple[str, float, bool, list[tuple[float, float]]]]:
    """``(threshold, value, shipped?, [(correct κ, unsupported κ) per set])`` for every value of every curve."""
    ablation = _ablation()
    sets = ablation.labelled_sets(sets_path)
    out = []
    for curve in curves:
        shipped = _set(curve.name, curve.values[0])
        _set(curve.name, shipped)
        for value in curve.values:
            _set(curve.name, value)
            out.append((curve.name, value, value == shipped, [ablation.kappas(items) for _, items in sets]))
        _set(curve.name, shipped)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="only this threshold (repeatable)")
    parser.add_argument("--sets", type=Path, default=ROOT / "labels" / "sets.toml")
    parser.add_argument("--markdown", action="store_true", help="print the docs' Markdown table")
    args = parser.parse_args(argv)
    curves = [c for c in CURVES if not args.only or c.name in args.only]
    loaded = load_sets(args.sets)
    names = [s.name for s in loaded]
    development = [i for i, s in enumerate(loaded) if not s.held_out] or list(range(len(loaded)))
    short = [
        n.replace(" / demo model", " demo").replace(" / fluent", " fl.") + (" (held out)" if s.held_out else "")
        for n, s in zip(names, loaded, strict=True)
    ]
    if args.markdown:
        print("| threshold = value | " + " | ".join(short) + " | worst development set |")
        print("|---|" + "---|" * (len(names) + 1))
    for name, value, shipped, kappas in measure(curves, args.sets):
        mark = " *" if shipped else ""
        worst_u = min(kappas[i][1] for i in development)  # held-out sets are measured, never chosen by
        worst_c = min(kappas[i][0] for i in development)
        if args.markdown:
            cells = " | ".join(f"{u:.2f} / {c:.2f}" for c, u in kappas)
            print(f"| `{name}` = {value:g}{mark} | {cells} | {worst_u:.2f} / {worst_c:.2f} |", flush=True)
        else:
            print(
                f"{name:18} = {value:<5g}{mark:2} unsupported κ "
                + " ".join(f"{u:.2f}" for _, u in kappas)
                + "   correct κ "
                + " ".join(f"{c:.2f}" for c, _ in kappas)
                + f"   worst {worst_u:.2f} / {worst_c:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

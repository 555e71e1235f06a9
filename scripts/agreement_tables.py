"""Markdown tables of `evalgate agreement --sets --json` output: the README's and docs' agreement figures.

Usage::

    .venv/bin/evalgate agreement --sets labels/sets.toml --json build/agreement.json
    .venv/bin/python scripts/agreement_tables.py build/agreement.json            # the README table
    .venv/bin/python scripts/agreement_tables.py build/agreement.json --by-config  # per configuration (docs)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evalgate_lib.reporting.report_html import kappa_cell


def with_agreement(stat: dict) -> str:
    """κ and the raw agreement: κ is 0 (or undefined) when the reviewers marked no positive at all."""
    share = stat["agreement"]["value"]
    return f"{kappa_cell(stat)}; agree {share:.0%}" if share is not None else kappa_cell(stat)


def point(stat: dict) -> str:
    value = stat["kappa"]["value"]
    return "—" if value is None else f"{value:.2f}"


def queue(judge: dict) -> str:
    q = judge["queue"]
    ranked = next(r for r in judge["ranked_queue"] if abs(r["share"] - 0.35) < 1e-9)
    held = "—" if not q["errors"] else f"{q['caught'] / q['errors']:.0%}"
    ranked_held = "—" if not ranked["errors"] else f"{ranked['caught'] / ranked['errors']:.0%}"
    return f"{q['size'] / q['n']:.0%} of answers, {held} of errors; top 35 %: {ranked_held}"


def decided(judge: dict, name: str) -> str:
    """κ over the answers the judge decided, and their share: ``0.90 (83 %)``."""
    d = (judge.get("decided") or {}).get(name)
    if not d:
        return "—"
    k = d["agreement"]["kappa"]["value"]
    return f"{'—' if k is None else f'{k:.2f}'} ({d['coverage']:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("json", type=Path)
    parser.add_argument("--by-config", action="store_true")
    args = parser.parse_args()
    sets = json.loads(args.json.read_text())
    print(
        "| set (answers) | correct κ | decided: κ (share) | unsupported claim κ | decided: κ (share) "
        "| hallucination κ | EvalGate 0.1 (lexical + raw): correct / unsupported "
        "| review queue: errors held at 35 % of answers |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for s in sets:
        default, first = s["judges"][:2]  # the default judge, then EvalGate 0.1's (lexical + raw) for comparison
        top = next(r for r in default["ranked_queue"] if abs(r["share"] - 0.35) < 1e-9)
        held = "—" if not top["errors"] else f"{top['caught'] / top['errors']:.0%} ({top['caught']}/{top['errors']})"
        print(
            f"| {s['set']}{' (held out)' if s.get('held_out') else ''} ({s['labelled']}) "
            f"| {kappa_cell(default['correct'])} | {decided(default, 'correct')} "
            f"| {kappa_cell(default['unsupported_claim'])} | {decided(default, 'unsupported_claim')} "
            f"| {kappa_cell(default['hallucination'])} "
            f"| {point(first['correct'])} / {point(first['unsupported_claim'])} "
            f"| {held} |"
        )
    if args.by_config:
        print()
        print("| set | configuration | n | correct κ | unsupported claim κ | decided: κ (share) | review queue |")
        print("|---|---|---|---|---|---|---|")
        for s in sets:
            for config, judges in s["by_config"].items():
                d = judges[0]
                n = sum(d["correct"]["confusion"].values())
                print(
                    f"| {s['set']} | {config} | {n} | {with_agreement(d['correct'])} "
                    f"| {with_agreement(d['unsupported_claim'])} | {decided(d, 'unsupported_claim')} | {queue(d)} |"
                )


if __name__ == "__main__":
    main()

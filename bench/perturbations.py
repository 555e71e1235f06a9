"""The judge on constructed edits, per kind of error, on the development domains (docs/judge.md).

Two sources of faithful answers, each edited one way at a time by :mod:`evalgate_lib.probing.edits` (the
construction is the label):

* **evidence** — every domain's gold evidence as the answer, its gold article's chunks as the passages
  (:func:`evalgate_lib.probing.bases.evidence_bases`: what ``evalgate probe`` builds for a team's own docs);
* **labelled** — the fluent answers reviewers labelled faithful (pass 1: no unsupported claim, not a refusal),
  with the passages they were written from; a baseless addition draws on the domain's other documents.

The held-out domain (``held_out = true`` in labels/sets.toml: postgresql-docs) is measured and printed apart:
no rule or threshold is chosen by it.

    .venv/bin/python bench/perturbations.py              # the per-kind table, every domain (about 2 minutes)
    .venv/bin/python bench/perturbations.py --markdown   # the table of docs/judge.md
    .venv/bin/python bench/perturbations.py --misses KIND --source labelled   # what the judge misses, to read
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from ablation import labelled_sets  # noqa: E402

from evalgate_lib.inputs.config import load_config  # noqa: E402
from evalgate_lib.inputs.corpus import load_corpus  # noqa: E402
from evalgate_lib.inputs.gold import load_gold  # noqa: E402
from evalgate_lib.inputs.labelled_sets import load_sets  # noqa: E402
from evalgate_lib.probing.bases import article_sentences, evidence_bases  # noqa: E402
from evalgate_lib.probing.edits import EDIT_KINDS, Base  # noqa: E402
from evalgate_lib.probing.probe import ProbeReport, balanced_accuracy, flag_rate, run_probe  # noqa: E402

SETS = ROOT / "labels" / "sets.toml"
#: Each domain's config (its corpus and gold set), in the order of labels/sets.toml.
DOMAINS = {
    "nimbus": ROOT / "configs" / "candidate.toml",
    "pip-topics": ROOT / "configs" / "pip-topics" / "candidate.toml",
    "requests-docs": ROOT / "configs" / "requests-docs" / "candidate.toml",
    "python-docs": ROOT / "configs" / "python-docs" / "candidate.toml",
    "valgrind-docs": ROOT / "configs" / "valgrind-docs" / "candidate.toml",
    "postgresql-docs": ROOT / "configs" / "postgresql-docs" / "candidate.toml",
}


@dataclass(frozen=True)
class Measured:
    domain: str
    source: str
    held_out: bool
    report: ProbeReport


def labelled_bases(domain: str, corpus_sentences: dict[str, list[str]]) -> list[Base]:
    """The fluent answers of ``domain`` that pass-1 reviewers found faithful, as bases with their passages (the
    labelled sets read as the ablation reads them: ``scripts/ablation.py``)."""
    out = []
    fluent = {s.name for s in load_sets(SETS) if s.generator == "fluent" and s.name.startswith(f"{domain} /")}
    for name, items in labelled_sets(SETS):
        if name not in fluent:
            continue
        for item in sorted(items, key=lambda i: (i.config, i.answer.question_id)):
            a, q, label = item.answer, item.question, item.label
            if label.unsupported_claim or label.refusal or not q.answerable:
                continue
            used = {p.doc_id for p in a.passages}
            elsewhere = tuple(s for doc, found in corpus_sentences.items() if doc not in used for s in found)
            out.append(
                Base(
                    key=f"{item.config}/{a.question_id}",
                    question=q.question,
                    answer=a.answer,
                    passages=tuple((p.title or p.doc_id or "", p.text) for p in a.passages),
                    accept=tuple(q.accept),
                    elsewhere=elsewhere,
                    source="labelled",
                )
            )
    return out


def measure(domains: list[str], sources: list[str]) -> list[Measured]:
    held = {s.name.split(" / ")[0] for s in load_sets(SETS) if s.held_out}
    out = []
    for domain in domains:
        config = load_config(DOMAINS[domain])
        articles = load_corpus(config.corpus)
        questions = load_gold(config.gold)
        if "evidence" in sources:
            bases = evidence_bases(articles, questions, where=str(config.gold))
            out.append(Measured(domain, "evidence", domain in held, run_probe(bases)))
        if "labelled" in sources:
            sentences = {a.id: article_sentences(a) for a in articles}
            out.append(Measured(domain, "labelled", domain in held, run_probe(labelled_bases(domain, sentences))))
    return out


def _cell(flagged: int, made: int) -> str:
    rate = flag_rate(flagged, made)
    return "—" if rate is None else f"{100 * rate:.0f} % ({flagged}/{made})"


def pooled(measured: list[Measured]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for m in measured:
        for k in m.report.kinds:
            f, n = out.get(k.kind.id, (0, 0))
            out[k.kind.id] = (f + k.flagged, n + k.made)
    return out


def summary(counts: dict[str, tuple[int, int]]) -> tuple[float | None, float | None, float | None]:
    """Pooled detection, false alarms and balanced accuracy of per-kind ``(flagged, made)`` counts."""
    unsupported = {k.id for k in EDIT_KINDS if k.unsupported}
    edited = [c for k, c in counts.items() if k in unsupported]
    kept = [c for k, c in counts.items() if k not in unsupported]
    detection = flag_rate(sum(f for f, _ in edited), sum(n for _, n in edited))
    false_alarms = flag_rate(sum(f for f, _ in kept), sum(n for _, n in kept))
    return detection, false_alarms, balanced_accuracy(detection, false_alarms)


def table(measured: list[Measured], markdown: bool) -> str:
    columns: list[tuple[str, list[Measured]]] = []
    for source in ("labelled", "evidence"):
        dev = [m for m in measured if m.source == source and not m.held_out]
        held = [m for m in measured if m.source == source and m.held_out]
        if dev:
            columns.append((f"{source}, development ({len(dev)} domains)", dev))
        if held:
            columns.append((f"{source}, held out ({', '.join(m.domain for m in held)})", held))
    counts = [pooled(ms) for _, ms in columns]
    lines = []
    if markdown:
        lines.append("| edit | should be | " + " | ".join(name for name, _ in columns) + " |")
        lines.append("|---|---|" + "---|" * len(columns))
    else:
        lines.append("edit".ljust(28) + "should be     " + "".join(name[:34].ljust(36) for name, _ in columns))
    for kind in EDIT_KINDS:
        should = "flagged" if kind.unsupported else "not flagged"
        cells = [_cell(*c.get(kind.id, (0, 0))) for c in counts]
        if markdown:
            lines.append(f"| {kind.title} | {should} | " + " | ".join(cells) + " |")
        else:
            lines.append(kind.title.ljust(28) + should.ljust(14) + "".join(c.ljust(36) for c in cells))
    sums = [summary(c) for c in counts]
    shown = [
        "—" if d is None else f"detection {100 * d:.0f} %, false alarms {100 * f:.0f} %, balanced accuracy {b:.2f}"
        for d, f, b in sums
    ]
    if markdown:
        lines.append("| **all kinds** | | " + " | ".join(shown) + " |")
    else:
        lines.append("all kinds".ljust(42) + "".join(s.ljust(36) if len(s) < 36 else s + "  " for s in shown))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", action="append", choices=list(DOMAINS), help="only this domain (repeatable)")
    parser.add_argument("--source", action="append", choices=["evidence", "labelled"], help="only this source")
    parser.add_argument("--markdown", action="store_true", help="the docs' Markdown table")
    parser.add_argument("--per-domain", action="store_true", help="also one table per domain")
    parser.add_argument(
        "--misses",
        metavar="KIND",
        choices=[k.id for k in EDIT_KINDS],
        help="print every answer of KIND the judge gets wrong (one of: %(choices)s)",
    )
    args = parser.parse_args(argv)
    measured = measure(args.domain or list(DOMAINS), args.source or ["labelled", "evidence"])
    if args.misses:
        kind = {k.id: k for k in EDIT_KINDS}[args.misses]
        for m in measured:
            for case in m.report.cases:
                if case.edit.kind == kind.id and case.flagged != kind.unsupported:
                    print(f"== {m.domain} {m.source} {case.base}: {case.edit.before!r} -> {case.edit.after!r}")
                    print(f"   rule={case.rule} sentence={case.sentence!r}")
                    print("   " + case.edit.answer.replace("\n", "\n   ")[:600])
        return 0
    print(table(measured, args.markdown))
    if args.per_domain:
        for m in measured:
            print(f"\n{m.domain} / {m.source}: {m.report.bases} bases")
            print(table([Measured(m.domain, m.source, False, m.report)], args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

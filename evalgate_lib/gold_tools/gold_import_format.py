"""The report of ``evalgate gold import``: what was mapped where, and everything that was not.

The report is the point of the import: a column or row that quietly vanished would
make the gold set smaller than the team believes, so every one is listed.
"""

from __future__ import annotations

from evalgate_lib.gold_tools.gold_import import WHITESPACE_NOTE, ImportResult
from evalgate_lib.inputs.foreign_rows import LONG_ACCEPT_TOKENS


def format_import(result: ImportResult, out: str, corpus: str | None) -> str:
    """The text report: columns used, columns not mapped, rows imported with notes, rows not imported.

    ``corpus`` (the folder given to the import, if any) goes into the suggested next command.
    """
    answerable = sum(q.answerable for q in result.questions)
    used = ", ".join(f"{role} ← {column!r}" for role, column in result.columns.items())
    if "id" not in result.columns:
        used += ", id ← generated from the row position (q001, q002, …)"
    lines = [
        f"gold import: {result.source} ({result.format}, {result.rows} rows) → {out}",
        f"columns used: {used}",
    ]
    if result.unmapped:
        lines.append("not mapped: " + ", ".join(f"{c!r} ({why})" for c, why in result.unmapped.items()))
    declined = (
        f", {len(result.declined)} of them because the reference declines ({', '.join(result.declined[:5])}"
        f"{', …' if len(result.declined) > 5 else ''}; --declined-references answerable keeps them answerable)"
        if result.declined
        else ""
    )
    lines.append(
        f"imported: {len(result.questions)} of {result.rows} rows "
        f"({answerable} answerable, {len(result.questions) - answerable} no-answer{declined})"
    )
    minor = [n for n in result.notes if WHITESPACE_NOTE in n.message]
    lines += [f"  note {n.id} ({n.where}): {n.message}" for n in result.notes if n not in minor]
    if minor:
        rows = list(dict.fromkeys(n.id or n.where for n in minor))
        lines.append(
            f"  {len(minor)} context(s) in {len(rows)} row(s) match only if whitespace is ignored: the article's text "
            f"is their evidence ({', '.join(map(str, rows[:8]))}{', …' if len(rows) > 8 else ''})"
        )
    if result.long_accepts:
        lines.append(
            f"accept strings longer than {LONG_ACCEPT_TOKENS} tokens in {', '.join(result.long_accepts)}: an answer "
            "is correct only if it contains one verbatim; shorten each to the key fact"
        )
    if not result.corpus_checked:
        lines.append("no --corpus: gold article ids and evidence were taken as given, not checked against a corpus")
    if result.skipped:
        lines.append(f"NOT imported: {len(result.skipped)} row(s)")
        lines += [f"  {n.where} ({n.id}): {n.message}" for n in result.skipped]
    lines.append(f"next: evalgate gold check --corpus {corpus or 'DIR'} --gold {out}")
    return "\n".join(lines) + "\n"

"""Prompt rendering: the other thing (beside chunking) the two configurations may differ in.

A template is plain text with exactly two placeholders, ``{context}`` and
``{question}``. They are substituted by plain string replacement, not
``str.format``, so that braces elsewhere in a prompt (JSON examples, say) are safe.
"""

from __future__ import annotations

import re
from typing import Sequence

from evalgate_lib.errors import InputError

PLACEHOLDERS = ("{context}", "{question}")
_PLACEHOLDER = re.compile(r"\{context\}|\{question\}")


def validate_template(template: str, source: str = "prompt template") -> None:
    """Refuse a template that lacks a placeholder or repeats one."""
    for placeholder in PLACEHOLDERS:
        count = template.count(placeholder)
        if count != 1:
            what = "is missing" if count == 0 else f"appears {count} times"
            raise InputError(f"{source}: the prompt template {what} the placeholder {placeholder}; it needs each once")


def render_context(passages: Sequence[tuple[str, str]]) -> str:
    """Context block from ``(title, text)`` pairs, numbered in retrieval order.

    The groundedness scorer checks answers against the same passages
    (:func:`context_text`), so what the model saw and what it is judged against
    cannot drift apart.
    """
    return "\n\n".join(f"[{i}] {title}\n{text}" for i, (title, text) in enumerate(passages, start=1))


def context_text(passages: Sequence[tuple[str, str]]) -> str:
    """What an answer is checked against: the passages (titles and texts) of :func:`render_context`.

    The ``[1]``..``[k]`` labels are left out on purpose: they are layout, not
    evidence, and would otherwise let any small number in an answer count as
    supported.
    """
    return "\n\n".join(f"{title}\n{text}" for title, text in passages)


def render_prompt(template: str, context: str, question: str) -> str:
    """Substitute context and question into ``template``."""
    validate_template(template)
    values = {"{context}": context, "{question}": question}
    # One pass, so a question or chunk that itself contains "{context}" is left alone.
    return _PLACEHOLDER.sub(lambda m: values[m.group()], template)

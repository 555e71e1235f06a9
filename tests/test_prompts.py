"""Tests for evalgate_lib.inputs.prompts: template validation, context rendering, placeholder substitution."""

from __future__ import annotations

import pytest

from evalgate_lib.errors import InputError
from evalgate_lib.inputs.prompts import PLACEHOLDERS, context_text, render_context, render_prompt, validate_template

TEMPLATE = "Context:\n{context}\n\nQuestion: {question}\nAnswer:"


def test_placeholders() -> None:
    assert PLACEHOLDERS == ("{context}", "{question}")


def test_valid_template_passes() -> None:
    validate_template(TEMPLATE)


@pytest.mark.parametrize(
    ("template", "placeholder"),
    [("Question: {question}", "{context}"), ("Context: {context}", "{question}"), ("no placeholders", "{context}")],
)
def test_missing_placeholder_is_named(template: str, placeholder: str) -> None:
    with pytest.raises(InputError, match=f"is missing the placeholder {placeholder}"):
        validate_template(template, "configs/x.toml")


def test_error_names_source() -> None:
    with pytest.raises(InputError, match=r"^configs/x\.toml: "):
        validate_template("{question}", "configs/x.toml")


def test_duplicated_placeholder_is_refused() -> None:
    with pytest.raises(InputError, match=r"appears 2 times the placeholder \{context\}"):
        validate_template("{context} {question} {context}")
    with pytest.raises(InputError, match=r"appears 3 times the placeholder \{question\}"):
        validate_template("{context} {question}{question} {question}")


def test_misspelt_placeholder_counts_as_missing() -> None:
    with pytest.raises(InputError, match=r"missing the placeholder \{question\}"):
        validate_template("{context} { question } {Question}")


def test_render_context_numbers_passages_in_order() -> None:
    assert render_context([("Refunds", "Refunds take 7 days."), ("Billing", "Invoices are in USD.")]) == (
        "[1] Refunds\nRefunds take 7 days.\n\n[2] Billing\nInvoices are in USD."
    )
    assert render_context([]) == ""


def test_context_text_is_render_context_without_labels() -> None:
    # what answers are scored against: the same titles and texts, minus the "[i] " layout labels
    passages = [("Refunds", "Refunds take 7 days."), ("Billing", "Invoices are in USD.")]
    assert context_text(passages) == "Refunds\nRefunds take 7 days.\n\nBilling\nInvoices are in USD."
    assert render_context(passages).replace("[1] ", "").replace("[2] ", "") == context_text(passages)
    assert context_text([]) == ""


def test_render_prompt_substitutes_both() -> None:
    assert (
        render_prompt(TEMPLATE, "[1] T\nText.", "How long?") == "Context:\n[1] T\nText.\n\nQuestion: How long?\nAnswer:"
    )


def test_braces_elsewhere_in_template_are_left_alone() -> None:
    # str.format would choke on these; plain replacement does not
    template = 'Reply as JSON {"answer": "..."} or {}.\n{context}\n{question} {0} {{name}}'
    assert render_prompt(template, "CTX", "Q?") == 'Reply as JSON {"answer": "..."} or {}.\nCTX\nQ? {0} {{name}}'
    # "{{context}}" contains "{context}": it counts as the one placeholder and keeps its outer braces
    assert render_prompt("{{context}} {question}", "CTX", "Q") == "{CTX} Q"


def test_question_containing_placeholder_is_left_alone() -> None:
    # one pass: "{context}" inside the question is not replaced by the context
    out = render_prompt(TEMPLATE, "the context", "What does {context} mean?")
    assert out == "Context:\nthe context\n\nQuestion: What does {context} mean?\nAnswer:"


def test_context_containing_placeholder_is_left_alone() -> None:
    out = render_prompt("{context} | {question}", "chunk says {question} and {context}", "Q")
    assert out == "chunk says {question} and {context} | Q"


def test_render_prompt_validates_template() -> None:
    with pytest.raises(InputError, match=r"\{question\}"):
        render_prompt("Context: {context}", "c", "q")


def test_question_first_template() -> None:
    assert render_prompt("Q: {question}\nC: {context}", "ctx", "why?") == "Q: why?\nC: ctx"

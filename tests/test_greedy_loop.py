"""The hand-written greedy loop (issue 22) picks the same tokens as transformers' ``generate()`` on the real model."""

from __future__ import annotations

from typing import Any

import pytest

from evalgate_lib.generation.backends import local
from evalgate_lib.generation.backends.greedy import greedy_tokens
from evalgate_lib.inputs.options import GenerationOptions

pytestmark = pytest.mark.slow

PROMPTS = (
    "Context:\nThe Nimbus 3 battery lasts 14 hours.\n\nQuestion: How long does the battery last?\nAnswer:",
    "What is the capital of France?",
    "Write one sentence about rain.",
)


@pytest.fixture(scope="module")
def backend() -> local.LocalBackend:
    loaded = local.LocalBackend()
    loaded._load_generator()
    return loaded


def prompt_ids(backend: local.LocalBackend, prompt: str) -> Any:
    text = backend._tokenizer.apply_chat_template(
        [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
    )
    return backend._tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"]


def generate_tokens(backend: local.LocalBackend, ids: Any, max_new_tokens: int) -> list[int]:
    """The reference: transformers' ``generate()``, greedy, as the backend called it before issue 22."""
    import torch

    with torch.inference_mode():
        out = backend._model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=max_new_tokens,
            pad_token_id=backend._tokenizer.eos_token_id,
            do_sample=False,
        )
    return out[0, ids.shape[1] :].tolist()


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_loop_matches_generate_token_for_token(backend: local.LocalBackend, prompt: str) -> None:
    import torch

    ids = prompt_ids(backend, prompt)
    expected = generate_tokens(backend, ids, 12)
    with torch.inference_mode():
        got = greedy_tokens(backend._model, ids, 12, backend._tokenizer.eos_token_id)
    assert got == expected
    assert 1 <= len(got) <= 12


def test_greedy_loop_stops_where_told(backend: local.LocalBackend) -> None:
    import torch

    ids = prompt_ids(backend, PROMPTS[2])
    with torch.inference_mode():
        got = greedy_tokens(backend._model, ids, 12, backend._tokenizer.eos_token_id, lambda new: len(new) == 3)
    assert got == generate_tokens(backend, ids, 3)


def test_temperature_zero_answers_come_from_the_greedy_loop(
    backend: local.LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = local.greedy_tokens

    def spy(*args: Any, **kwargs: Any) -> list[int]:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(local, "greedy_tokens", spy)
    options = GenerationOptions(temperature=0.0, max_tokens=12, stop=())
    answer = backend.generate(PROMPTS[0], options)
    assert calls == [1]
    ids = prompt_ids(backend, PROMPTS[0])
    expected = backend._tokenizer.decode(generate_tokens(backend, ids, 12), skip_special_tokens=True).strip()
    assert answer == expected

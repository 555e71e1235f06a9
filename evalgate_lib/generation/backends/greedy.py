"""Greedy decoding as a plain loop over the model's ``forward``, without ``generate()``'s per-step machinery.

``generate()`` re-prepares its inputs, runs an (empty) logits-processor list, its stopping
criteria and its cache bookkeeping on every token; for a 135 M-parameter model on a CPU that
is per-token overhead, not arithmetic. This loop makes the same ``forward`` calls that
``generate()`` makes for greedy decoding in transformers 5 (the whole prompt once with a
fresh ``DynamicCache``, an all-ones attention mask and ``logits_to_keep=1``; then one token at
a time with the mask grown by one) and picks ``argmax`` of the same float32 logits, so its
tokens are the same token for token (tests/test_greedy_loop.py checks it on the real model).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence


def greedy_tokens(
    model: Any,
    input_ids: Any,
    max_new_tokens: int,
    eos_token_id: int | None,
    should_stop: Callable[[Sequence[int]], bool] | None = None,
    clock: list[float] | None = None,
) -> list[int]:
    """The new token ids of greedy decoding from ``input_ids`` (shape ``(1, n)``), end-of-sequence included.

    Stops after ``max_new_tokens``, at ``eos_token_id`` or when ``should_stop(new_ids)`` says so
    (checked after each token, as ``generate()`` checks its stopping criteria). ``clock``, when
    given, gets the ``time.perf_counter()`` at which each token was chosen (the benchmark's
    prefill/decode split). Call it under ``torch.inference_mode()``.
    """
    import torch
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    mask = torch.ones_like(input_ids)
    step_ids = input_ids
    new: list[int] = []
    while len(new) < max_new_tokens:
        out = model(input_ids=step_ids, cache=cache, attention_mask=mask, use_cache=True, logits_to_keep=1)
        token = int(out.logits[0, -1].to(dtype=torch.float32).argmax())
        new.append(token)
        if clock is not None:
            clock.append(time.perf_counter())
        if token == eos_token_id or (should_stop is not None and should_stop(new)):
            break
        step_ids = torch.tensor([[token]], dtype=input_ids.dtype)
        mask = torch.cat([mask, mask.new_ones((1, 1))], dim=-1)
    return new

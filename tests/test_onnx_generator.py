"""The generator run by ONNX Runtime GenAI (issue 29) answers as the torch model it was built from, token for token.

The slow tests load the real model (built once per weights folder, then kept) and compare it
with transformers' ``generate()`` on the kept conversion; the others check, on hand-made
``genai_config.json`` files, that a built folder is loaded only with the settings the builder
writes, so a folder cannot make ONNX Runtime load a library.
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from evalgate_lib.generation.backends import converted, local, onnx_genai
from evalgate_lib.inputs.options import GenerationOptions

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


@pytest.fixture(scope="module")
def torch_model(backend: local.LocalBackend) -> Any:
    return backend.torch_generator()[1]


def torch_tokens(model: Any, ids: list[int], max_new_tokens: int, eos: int) -> list[int]:
    """The reference: transformers' ``generate()``, greedy, float32, the generator's runtime before issue 29."""
    import torch

    tensor = torch.tensor([ids])
    with torch.inference_mode():
        out = model.generate(input_ids=tensor, attention_mask=torch.ones_like(tensor), max_new_tokens=max_new_tokens,
                             pad_token_id=eos, do_sample=False)  # fmt: skip
    return out[0, tensor.shape[1] :].tolist()


@pytest.mark.slow
@pytest.mark.parametrize("prompt", PROMPTS)
def test_the_onnx_model_answers_as_the_torch_model_token_for_token(backend, torch_model, prompt: str) -> None:
    options = GenerationOptions(max_tokens=12, stop=())
    ids = backend.prompt_ids(prompt, options)
    got = backend._tokens(ids, options)
    assert got == torch_tokens(torch_model, ids, 12, backend._tokenizer.eos_token_id)
    assert 1 <= len(got) <= 12


@pytest.mark.slow
def test_decoding_stops_at_the_stop_sequence_and_the_text_is_cut_there(backend) -> None:
    unstopped = backend.generate(PROMPTS[0], GenerationOptions(max_tokens=24, stop=()))
    word = unstopped.split()[1]
    stopped = backend.generate(PROMPTS[0], GenerationOptions(max_tokens=24, stop=(word,)))
    assert stopped == unstopped[: unstopped.index(word)].strip()


@pytest.mark.slow
def test_the_built_model_is_kept_and_loaded_again_without_a_build(backend) -> None:
    again = local.LocalBackend()
    again._load_generator()
    key = onnx_genai.build_key(local.file_sha256(local.generator_path()))
    assert again.build_seconds is None
    assert again.generator_folder == converted.folder_for(key)
    assert converted.verify(again.generator_folder, key) is None
    assert sorted(p.name for p in again.generator_folder.iterdir()) == [
        "chat_template.jinja", "genai_config.json", "model.onnx", "model.onnx.data", "record.json", "tokenizer.json",
        "tokenizer_config.json",
    ]  # fmt: skip
    options = GenerationOptions(max_tokens=8)
    assert again.generate(PROMPTS[1], options) == backend.generate(PROMPTS[1], options)


@pytest.mark.slow
def test_seeded_sampling_gives_the_same_answer_for_the_same_seed(backend) -> None:
    options = GenerationOptions(temperature=0.8, seed=7, max_tokens=16, stop=())
    first = backend.generate(PROMPTS[2], options)
    assert first and backend.generate(PROMPTS[2], options) == first


def test_the_runtime_names_every_package_that_builds_or_runs_the_model() -> None:
    parts = onnx_genai.runtime_id().split("/")
    assert parts[-2:] == ["float32", "last-token-head"]
    assert parts[:-2] == [f"{p}-{metadata.version(p)}" for p in onnx_genai.RUNTIME_PACKAGES]
    assert onnx_genai.build_key("a" * 64) == {
        "format": onnx_genai.FORMAT, "gguf_sha256": "a" * 64, "runtime": onnx_genai.runtime_id()
    }  # fmt: skip


#: What the builder writes for SmolLM2 (its ``genai_config.json``, the search section left out).
BUILT = {
    "model": {
        "bos_token_id": 1, "context_length": 8192, "eos_token_id": 2, "pad_token_id": 2, "type": "llama",
        "vocab_size": 49152,
        "decoder": {
            "session_options": {"log_id": "onnxruntime-genai", "provider_options": []},
            "filename": "model.onnx", "head_size": 64, "hidden_size": 576, "num_attention_heads": 9,
            "num_hidden_layers": 30, "num_key_value_heads": 3,
            "inputs": {"input_ids": "input_ids", "attention_mask": "attention_mask"},
            "outputs": {"logits": "logits"},
        },
    },
    "search": {"do_sample": False, "max_length": 8192},
}  # fmt: skip


def _config(tmp_path: Path, config: Any) -> Path:
    (tmp_path / "genai_config.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def test_the_builders_configuration_is_accepted(tmp_path) -> None:
    assert onnx_genai.unsafe_config(_config(tmp_path, BUILT)) is None


def test_a_custom_operator_library_is_refused(tmp_path) -> None:
    config = json.loads(json.dumps(BUILT))
    config["model"]["decoder"]["session_options"]["custom_ops_library"] = "/tmp/evil.so"
    why = onnx_genai.unsafe_config(_config(tmp_path, config))
    assert why == (
        "genai_config.json holds settings EvalGate does not write: {'session_options': ['custom_ops_library']}"
    )


def test_another_provider_or_model_file_or_section_is_refused(tmp_path) -> None:
    config = json.loads(json.dumps(BUILT))
    config["model"]["decoder"]["session_options"]["provider_options"] = [{"cuda": {}}]
    assert "execution provider" in onnx_genai.unsafe_config(_config(tmp_path, config))
    config = json.loads(json.dumps(BUILT))
    config["model"]["decoder"]["filename"] = "../elsewhere.onnx"
    assert "model file" in onnx_genai.unsafe_config(_config(tmp_path, config))
    config = json.loads(json.dumps(BUILT))
    config["model"]["vision"] = {"filename": "vision.onnx"}
    assert onnx_genai.unsafe_config(_config(tmp_path, config)).endswith("{'model': ['vision']}")


def test_an_unreadable_configuration_is_refused(tmp_path) -> None:
    (tmp_path / "genai_config.json").write_text("{not json", encoding="utf-8")
    assert onnx_genai.unsafe_config(tmp_path).startswith("genai_config.json is not a decoder's configuration")
    assert onnx_genai.unsafe_config(_config(tmp_path, {"model": {}})).startswith("genai_config.json is not a")

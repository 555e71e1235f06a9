"""The embedded generator run by ONNX Runtime GenAI: its model built once from the kept conversion, then kept.

Why: on 2 CPU cores the torch path spent almost all of its time inside eager ``forward`` (30
layers of small operators, ~70 ms per token against a memory floor near 23 ms). ONNX Runtime
GenAI runs the same float32 weights through fused kernels (MLAS matrix products, one
``GroupQueryAttention`` per layer) and keeps the greedy loop and the KV cache in C++; on the
shipped prompts its answers are the same tokens (docs/backends.md, "Why this runtime").

The model is built by GenAI's own model builder (``python -m onnxruntime_genai.models.builder``,
float32, CPU), offline, from the safetensors conversion that
:mod:`evalgate_lib.generation.backends.converted` keeps, never from a model hub. The build
takes a subprocess of about 20-40 s and is kept beside that conversion, one folder per key
(the GGUF file's SHA-256 and every package version that builds or runs it)::

    <root>/<key sha256>/model.onnx, model.onnx.data   the graph (protobuf) and its float32 tensors
    <root>/<key sha256>/genai_config.json             GenAI's settings: the decoder, its inputs and outputs
    <root>/<key sha256>/tokenizer.json, tokenizer_config.json, chat_template.jinja
    <root>/<key sha256>/record.json                   the key and the SHA-256 of every file above

It is data like the safetensors conversion: a graph and tensors that ONNX Runtime parses, and
JSON. The only way such a folder could make ONNX Runtime load code is a custom-operator library
named in ``genai_config.json``'s session options, so :func:`unsafe_config` accepts only the
settings the builder writes for this model (and no library) before the folder is loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

from evalgate_lib.errors import BackendError, InputError
from evalgate_lib.inputs.structured import parse_json

#: The ``format`` field of the built model's key; a different layout or build gets a new one.
FORMAT = "evalgate-onnx-genai/2"
#: The builder's ``--extra_options``. ``prune_lm_head``: the output head computes the prompt's last
#: position only (the one decoding reads), not all of its ~900: about a fifth of the prefill's arithmetic.
#: It is part of the identity (:func:`runtime_id`), as it is how the logits are computed.
BUILD_OPTIONS = ("hf_token=false", "prune_lm_head=true")
#: Packages whose versions build or run the generator: they are part of its identity (cache keys,
#: manifest) and of the built model's key, so a new version builds the model again.
RUNTIME_PACKAGES = ("onnxruntime-genai", "onnxruntime", "onnx-ir", "onnx", "transformers", "torch")
#: The files of the safetensors conversion the builder reads (config.json is written apart, see :func:`build`).
SOURCE_FILES = ("model.safetensors", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
                "chat_template.jinja")  # fmt: skip
#: The keys ``genai_config.json`` may hold, per section: what the builder writes for a decoder-only model.
_ALLOWED = {
    "model": {"bos_token_id", "context_length", "decoder", "eos_token_id", "pad_token_id", "type", "vocab_size"},
    "decoder": {
        "session_options",
        "filename",
        "head_size",
        "hidden_size",
        "inputs",
        "outputs",
        "num_attention_heads",
        "num_hidden_layers",
        "num_key_value_heads",
    },  # fmt: skip
    "session_options": {"log_id", "provider_options"},
}


def runtime_id() -> str:
    """What builds and runs the generator, for its identity: every package version, the dtype and the build options."""
    versions = []
    for package in RUNTIME_PACKAGES:
        try:
            versions.append(f"{package}-{metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package}-missing")
    return "/".join([*versions, "float32", "last-token-head"])


def build_key(gguf_sha256: str) -> dict[str, str]:
    """What a built model depends on: the GGUF file and the packages that convert, build and run it."""
    return {"format": FORMAT, "gguf_sha256": gguf_sha256, "runtime": runtime_id()}


def unsafe_config(folder: Path) -> str | None:
    """Why ``folder``'s ``genai_config.json`` must not be loaded; ``None`` if it holds only the builder's settings."""
    try:
        config = parse_json((folder / "genai_config.json").read_text(encoding="utf-8"), "genai_config.json")
        model = config["model"]
        decoder = model["decoder"]
        session = decoder["session_options"]
        sections = {"model": model, "decoder": decoder, "session_options": session}
        extra = {name: sorted(set(part) - _ALLOWED[name]) for name, part in sections.items()}
    except (OSError, ValueError, KeyError, TypeError, InputError) as exc:
        return f"genai_config.json is not a decoder's configuration ({exc})"
    extra = {name: keys for name, keys in extra.items() if keys}
    if extra:
        return f"genai_config.json holds settings EvalGate does not write: {extra}"
    if session.get("provider_options") != [] or decoder.get("filename") != "model.onnx":
        return "genai_config.json names an execution provider or a model file EvalGate does not write"
    return None


def _source_folder(source: Path, into: Path) -> Path:
    """A Hugging Face folder for the builder: the kept conversion's files linked, its config naming the architecture.

    transformers' GGUF reader leaves ``architectures`` empty; the builder picks its exporter from
    it, so the config gets the class transformers itself maps the ``model_type`` to.
    """
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    config = parse_json((source / "config.json").read_text(encoding="utf-8"), str(source / "config.json"))
    config["architectures"] = [MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[config["model_type"]]]
    into.mkdir()
    (into / "config.json").write_text(json.dumps(config, indent=1, sort_keys=True), encoding="utf-8")
    for name in SOURCE_FILES:
        (into / name).symlink_to(source / name)
    return into


def build(source: Path, out: Path, extra_options: Sequence[str] = BUILD_OPTIONS, precision: str = "fp32") -> float:
    """Build the CPU model from the safetensors conversion in ``source`` into ``out``; seconds taken.

    EvalGate runs only the float32 build (``precision="fp32"``): a lower precision quantises the weights
    again and changes answers; ``bench/run_bench.py`` builds ``int8`` to measure by how much.
    The builder runs in its own process (its memory is returned when it ends), offline, with
    its output captured: a failure is one line naming the builder's last words.
    """
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="evalgate-onnx-build-") as tmp:
        hf = _source_folder(source, Path(tmp) / "hf")
        builder = [sys.executable, "-m", "onnxruntime_genai.models.builder"]
        options = ["-p", precision, "-e", "cpu", "-c", str(Path(tmp) / "cache"), "--extra_options", *extra_options]
        command = [*builder, "-i", str(hf), "-o", str(out), *options]
        # GIT_DIR names no repository: the builder stamps into the model's producer_version the git commit of
        # the folder its package lies in (here a venv inside EvalGate's clone) and falls back to the wheel's
        # own commit; the clone's commit would make the same build differ from checkout to checkout.
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "GIT_DIR": os.devnull}
        done = subprocess.run(command, env=env, cwd=tmp, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise BackendError(f"building the ONNX Runtime GenAI generator failed (exit {done.returncode}): {last}")
    for name in ("model.onnx", "model.onnx.data", "genai_config.json", "tokenizer.json"):
        if not (out / name).is_file():
            raise BackendError(f"building the ONNX Runtime GenAI generator left no {name} in {out}")
    why = unsafe_config(out)
    if why is not None:
        raise BackendError(f"the ONNX Runtime GenAI builder wrote an unexpected configuration: {why}")
    return time.perf_counter() - started


def load(folder: Path, threads: int | None = None) -> tuple[Any, Any]:
    """(tokenizer, GenAI model) from a built folder that passed :func:`unsafe_config`; ``threads``: intra-op pool size.

    The tokenizer is transformers' from the folder's JSON (the same one the torch path used),
    so prompts become the same token ids; GenAI's own tokenizer is not used.
    """
    import onnxruntime_genai as og
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    config = og.Config(str(folder))
    if threads:
        config.overlay(json.dumps({"model": {"decoder": {"session_options": {"intra_op_num_threads": threads}}}}))
    return tokenizer, og.Model(config)


def generate_tokens(
    model: Any,
    prompt_ids: Sequence[int],
    max_new_tokens: int,
    eos_token_id: int | None,
    should_stop: Callable[[Sequence[int]], bool] | None = None,
    temperature: float = 0.0,
    seed: int = 0,
    clock: list[float] | None = None,
) -> list[int]:
    """The new token ids after ``prompt_ids``, end-of-sequence included: greedy at temperature 0, else seeded sampling.

    Stops after ``max_new_tokens``, at ``eos_token_id`` or when ``should_stop(new_ids)`` says so
    (checked after each token). ``clock``, when given, gets the ``time.perf_counter()`` at which
    each token was chosen (the benchmark's prefill/decode split). The KV cache is sized to this
    prompt and answer (``max_length``), not to the model's 8192-token context.
    """
    import onnxruntime_genai as og

    search: dict[str, Any] = {"max_length": len(prompt_ids) + max_new_tokens, "do_sample": temperature > 0}
    if temperature > 0:
        search.update(temperature=temperature, random_seed=seed)
    params = og.GeneratorParams(model)
    params.set_search_options(**search)
    generator = og.Generator(model, params)
    generator.append_tokens(list(prompt_ids))
    new: list[int] = []
    while len(new) < max_new_tokens:
        generator.generate_next_token()
        token = int(generator.get_next_tokens()[0])
        new.append(token)
        if clock is not None:
            clock.append(time.perf_counter())
        if token == eos_token_id or (should_stop is not None and should_stop(new)):
            break
    return new

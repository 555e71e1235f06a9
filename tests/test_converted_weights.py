"""The generator read from its kept conversion is the generator read from the GGUF file (issue 22).

The first test loads the real model both ways in a temporary weights folder and compares every
tensor and the tokenizer (the ONNX model built from it is compared with it in
tests/test_onnx_generator.py); the others check, on small hand-made folders, that a
conversion is used only when its record and files say it is this model's, untouched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgate_lib.files import sha256_file
from evalgate_lib.generation.backends import converted, local

KEY = converted.conversion_key("a" * 64, "transformers-x/torch-y/float32")


@pytest.mark.slow
def test_the_kept_conversion_gives_the_same_tensors_and_tokenizer(tmp_path, monkeypatch, capsys):
    import torch

    monkeypatch.setenv(converted.WEIGHTS_DIR_ENV, str(tmp_path / "weights"))
    first_tokenizer, first = local.LocalBackend().torch_generator()  # reads the GGUF file and keeps the conversion
    kept = list((tmp_path / "weights").iterdir())
    assert len(kept) == 1 and (kept[0] / converted.RECORD).is_file()
    key = converted.conversion_key(local.file_sha256(local.generator_path()), local.torch_runtime_id())
    assert converted.folder_for(key) == kept[0] and converted.verify(kept[0], key) is None

    second_tokenizer, second = local.LocalBackend().torch_generator()  # reads the kept conversion
    assert capsys.readouterr().err == ""
    a, b = first.state_dict(), second.state_dict()
    assert sorted(a) == sorted(b)
    assert all(a[name].dtype == b[name].dtype and torch.equal(a[name], b[name]) for name in a)
    assert second.lm_head.weight.data_ptr() == second.model.embed_tokens.weight.data_ptr()  # still tied
    assert first.generation_config.to_dict() == second.generation_config.to_dict()
    assert first_tokenizer.get_vocab() == second_tokenizer.get_vocab()
    assert first_tokenizer.chat_template == second_tokenizer.chat_template
    assert first_tokenizer.eos_token_id == second_tokenizer.eos_token_id


def _folder(tmp_path: Path, files: dict[str, bytes], key: dict[str, str] = KEY) -> Path:
    """A conversion folder holding ``files`` and a record of their SHA-256 under ``key``."""
    folder = converted.folder_for(key, tmp_path)
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    record = {"key": key, "files": {name: sha256_file(folder / name) for name in files}}
    (folder / converted.RECORD).write_text(json.dumps(record), encoding="utf-8")
    return folder


FILES = {"model.safetensors": b"tensors", "config.json": b"{}"}


def test_a_folder_whose_record_and_files_agree_is_used(tmp_path):
    assert converted.verify(_folder(tmp_path, FILES), KEY) is None


def test_a_missing_folder_or_record_is_absent(tmp_path):
    assert converted.verify(tmp_path / "nothing", KEY) == "absent"
    folder = _folder(tmp_path, FILES)
    (folder / converted.RECORD).unlink()
    assert converted.verify(folder, KEY) == "absent"


def test_a_changed_file_is_not_used(tmp_path):
    folder = _folder(tmp_path, FILES)
    (folder / "model.safetensors").write_bytes(b"tensorz")
    assert converted.verify(folder, KEY) == "model.safetensors does not match its recorded SHA-256"


def test_a_missing_or_extra_file_is_not_used(tmp_path):
    folder = _folder(tmp_path, FILES)
    (folder / "pytorch_model.bin").write_bytes(b"a pickle would run code")
    assert "are not the recorded" in converted.verify(folder, KEY)
    (folder / "pytorch_model.bin").unlink()
    (folder / "config.json").unlink()
    assert "are not the recorded" in converted.verify(folder, KEY)


def test_a_symlinked_file_is_not_used(tmp_path):
    folder = _folder(tmp_path, FILES)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"{}")
    (folder / "config.json").unlink()
    (folder / "config.json").symlink_to(elsewhere)
    assert converted.verify(folder, KEY) == "config.json does not match its recorded SHA-256"


def test_a_record_of_another_model_or_runtime_is_not_used(tmp_path):
    other = converted.conversion_key("b" * 64, KEY["runtime"])
    assert converted.folder_for(other, tmp_path) != converted.folder_for(KEY, tmp_path)
    folder = _folder(tmp_path, FILES, key=other)
    assert converted.verify(folder, KEY) == "record.json does not describe this model file and runtime"


def test_an_unreadable_record_is_not_used(tmp_path):
    folder = _folder(tmp_path, FILES)
    (folder / converted.RECORD).write_text("{not json", encoding="utf-8")
    assert converted.verify(folder, KEY).startswith("record.json is unreadable")


def test_the_folder_is_the_users_cache_unless_the_environment_names_one(tmp_path, monkeypatch):
    monkeypatch.delenv(converted.WEIGHTS_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert converted.weights_root() == tmp_path / "xdg" / "evalgate" / "weights"
    monkeypatch.setenv(converted.WEIGHTS_DIR_ENV, str(tmp_path / "mine"))
    assert converted.weights_root() == tmp_path / "mine"


def test_a_folder_that_cannot_be_written_warns_and_goes_on(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert converted.save(blocker / "weights" / "x", KEY, model=None, tokenizer=None) is False
    err = capsys.readouterr().err
    assert err.startswith("evalgate: cannot keep the converted generator in ") and converted.WEIGHTS_DIR_ENV in err

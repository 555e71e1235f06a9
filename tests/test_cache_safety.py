"""The model-call cache is data: nothing placed in a cache folder can run code or silently cost a rerun.

A cache folder may come from someone else (a shared mount, a CI artefact), so every test
here plants something hostile or broken in it and checks that EvalGate (a) never executes
it, (b) reports an unusable entry once, by path, and recomputes exactly that entry, and
(c) keeps every other entry. The code-execution tests use a pickle whose unpickling creates
a marker file; a first test proves the payload is live, so "no marker" means "never unpickled".
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import multiprocessing
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from conftest import CountingBackend

from evalgate_lib.errors import CacheError
from evalgate_lib.generation.cache import ModelCache
from evalgate_lib.generation.store import LAYOUT, entry_key
from evalgate_lib.inputs.options import GenerationOptions

PROMPT = "Question: SECRET-PROMPT-TEXT how many seats does Starter include?"
ANSWER = f"answer to {PROMPT} at t=0.0"
TEXTS = ["a", "ab"]  # CountingBackend embeds "a" as [1, 1, 1] and "ab" as [2, 1, 1]


class Payload:
    """Unpickling this calls ``open(marker, "w")``: the marker file exists if and only if the bytes ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def _pickled_object_array(marker: Path) -> bytes:
    array = np.empty(1, dtype=object)
    array[0] = Payload(marker)
    return _npy(array, allow_pickle=True)


def _record(folder: Path, kind: str) -> Path:
    """The one record of ``kind`` in the store under ``folder``."""
    (path,) = (folder / LAYOUT / kind).glob("*/*.json")
    return path


def _replace_array(record_path: Path, data: bytes, **changes) -> None:
    """Put ``data`` in place of an embedding entry's array, its record updated to match (a consistent forgery)."""
    record = json.loads(record_path.read_text(encoding="utf-8"))
    digest = hashlib.sha256(data).hexdigest()
    record_path.with_name(f"{record['key']}.{digest}.npy").write_bytes(data)
    record.update(npy_sha256=digest, **changes)
    record_path.write_text(json.dumps(record), encoding="utf-8")


def _warm(folder: Path) -> None:
    cache = ModelCache(CountingBackend(), folder)
    cache.generate(PROMPT, GenerationOptions())
    cache.embed(TEXTS)


def _read_all(folder: Path) -> tuple[CountingBackend, ModelCache]:
    backend = CountingBackend()
    cache = ModelCache(backend, folder)
    assert cache.generate(PROMPT, GenerationOptions()) == ANSWER
    assert cache.embed(TEXTS).tolist() == [[1, 1, 1], [2, 1, 1]]
    return backend, cache


def _cache_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "evalgate_lib.generation.cache"]


# ---------------------------------------------------------------------------- the key


def test_key_is_the_sha256_of_the_canonical_json():
    # sorted keys, no spaces, non-ASCII as is: {"a":"é","b":[1,2.0]}
    expected = hashlib.sha256('{"a":"é","b":[1,2.0]}'.encode()).hexdigest()
    assert entry_key({"b": [1, 2.0], "a": "é"}) == expected


def test_an_entry_is_json_holding_its_inputs_text_and_checksum(tmp_path):
    cache = ModelCache(CountingBackend(), tmp_path)
    cache.generate(PROMPT, GenerationOptions(max_tokens=12))
    path = _record(tmp_path, "generate")
    record = json.loads(path.read_text(encoding="utf-8"))
    inputs = {
        "kind": "generate",
        "identity": cache.identity,
        "options": {"max_tokens": 12, "num_ctx": 4096, "seed": 42, "stop": ["\nQuestion:"], "temperature": 0.0},
        "prompt": PROMPT,
    }
    key = entry_key(inputs)
    assert path == tmp_path / LAYOUT / "generate" / key[:2] / f"{key}.json"
    assert record == {
        "format": "evalgate-cache-entry/1",
        "key": key,
        "inputs": inputs,
        "text": ANSWER,
        "text_sha256": hashlib.sha256(ANSWER.encode()).hexdigest(),
    }


def test_an_embedding_is_a_plain_npy_named_by_its_checksum(tmp_path):
    ModelCache(CountingBackend(), tmp_path).embed(TEXTS)
    path = _record(tmp_path, "embed")
    record = json.loads(path.read_text(encoding="utf-8"))
    array = path.with_name(f"{record['key']}.{record['npy_sha256']}.npy")
    assert hashlib.sha256(array.read_bytes()).hexdigest() == record["npy_sha256"]
    assert np.load(array, allow_pickle=False).tolist() == [[1, 1, 1], [2, 1, 1]]
    assert (record["dtype"], record["shape"], record["inputs"]["texts"]) == ("float32", [2, 3], TEXTS)


# ----------------------------------------------------------------- never runs code


def test_the_payload_is_live(tmp_path):
    """Proof that the payloads below would create their marker if anything unpickled them."""
    with pickle.loads(pickle.dumps(Payload(tmp_path / "pickle-ran"))):
        pass
    np.load(io.BytesIO(_pickled_object_array(tmp_path / "npy-ran")), allow_pickle=True)
    assert (tmp_path / "pickle-ran").exists() and (tmp_path / "npy-ran").exists()


def test_an_old_joblib_cache_is_never_opened(tmp_path):
    """A pickle where 0.x's joblib.Memory kept an entry, and a garbage func_code.py beside it, do nothing."""
    marker = tmp_path / "marker"
    cache = tmp_path / "cache"
    for function in ("_generate_entry", "_embed_entry"):
        old = cache / "joblib" / "evalgate_lib" / "cache" / function
        (old / "0123456789abcdef").mkdir(parents=True)
        (old / "0123456789abcdef" / "output.pkl").write_bytes(pickle.dumps(Payload(marker)))
        (old / "0123456789abcdef" / "metadata.json").write_text("{not json")
        (old / "func_code.py").write_text("# first line: 1\nthis is not python (\n")
    backend, first = _read_all(cache)  # the old layout is not read: computed once ...
    assert (backend.calls["generate"], backend.calls["embed"]) == (1, 1)
    backend, second = _read_all(cache)  # ... then a hit, in a fresh process
    assert (backend.calls["generate"], backend.calls["embed"]) == (0, 0)
    assert second.stats.as_dict() == {"embed_calls": 0, "generate_calls": 0, "hits": 2, "corrupt_entries": 0}
    assert not marker.exists()


def test_a_pickle_in_place_of_an_entry_is_reported_and_recomputed_never_run(tmp_path, caplog):
    marker = tmp_path / "marker"
    _warm(tmp_path / "cache")
    entry = _record(tmp_path / "cache", "generate")
    entry.write_bytes(pickle.dumps(Payload(marker)))
    backend, cache = _read_all(tmp_path / "cache")
    assert not marker.exists()
    assert backend.calls["generate"] == 1 and cache.stats.corrupt_entries == 1
    assert _cache_warnings(caplog) == [f"corrupt generate cache entry {entry}: not valid JSON; recomputed it"]


def test_a_npy_holding_a_pickled_object_array_is_refused_never_run(tmp_path, caplog):
    """Even with a record that matches it, an object array is refused by ``allow_pickle=False``."""
    marker = tmp_path / "marker"
    _warm(tmp_path / "cache")
    entry = _record(tmp_path / "cache", "embed")
    _replace_array(entry, _pickled_object_array(marker), shape=[1])
    backend, cache = _read_all(tmp_path / "cache")
    assert not marker.exists()
    assert backend.calls["embed"] == 1 and cache.stats.corrupt_entries == 1
    (warning,) = _cache_warnings(caplog)
    assert warning.startswith(f"corrupt embed cache entry {entry}: its array ")
    assert warning.endswith(".npy is not a valid .npy file (ValueError); recomputed it")


# --------------------------------------------------------------- stray files


STRAY = {
    "func_code.py at the top": ("func_code.py", b"garbage (\n"),
    "func_code.py in the layout": (f"{LAYOUT}/generate/func_code.py", b"garbage (\n"),
    "an output.pkl in a shard": (f"{LAYOUT}/generate/00/output.pkl", b"\x80\x04garbage"),
    "a JSON file no key names": (f"{LAYOUT}/embed/00/{'0' * 64}.json", b"{}"),
    "a left-over temporary file": (f"{LAYOUT}/generate/00/.x.json.abc.tmp", b'{"half'),
    "an unknown layout": ("evalgate-v9/generate/00/x.json", b"[]"),
}


@pytest.mark.parametrize("where", STRAY)
def test_stray_files_change_nothing(tmp_path, caplog, where):
    _warm(tmp_path)
    name, data = STRAY[where]
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_bytes(data)
    backend, cache = _read_all(tmp_path)
    assert (backend.calls["generate"], backend.calls["embed"]) == (0, 0)
    assert cache.stats.as_dict() == {"embed_calls": 0, "generate_calls": 0, "hits": 2, "corrupt_entries": 0}
    assert _cache_warnings(caplog) == []


# --------------------------------------------------------------- corrupt entries


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:40])


def _retext(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    record["text"] = "Tampered: Starter includes 300 seats."
    path.write_text(json.dumps(record), encoding="utf-8")


def _misfile(path: Path) -> None:
    """Another prompt's valid entry copied under this key's name."""
    ModelCache(CountingBackend(), path.parents[3]).generate("another prompt", GenerationOptions())
    other = next(p for p in path.parents[1].glob("*/*.json") if p != path)
    path.write_bytes(other.read_bytes())


def _not_a_record(path: Path) -> None:
    path.write_text('"just a string"', encoding="utf-8")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)  # opening it for reading would block forever


GENERATION_FAULTS = {
    "truncated JSON": (_truncate, "not valid JSON"),
    "text fails its checksum": (_retext, "the text does not match its text_sha256"),
    "entry of another key": (_misfile, "its inputs do not match its key"),
    "not a record": (_not_a_record, "not a evalgate-cache-entry/1 record"),
    "a FIFO": (_fifo, "cannot be read (not a regular file)"),
}


def _array_path(record: Path) -> Path:
    data = json.loads(record.read_text(encoding="utf-8"))
    return record.with_name(f"{data['key']}.{data['npy_sha256']}.npy")


def _alter_array(record: Path) -> None:
    array = _array_path(record)
    np.save(array, np.load(array) + np.float32(1.0))


def _drop_array(record: Path) -> None:
    _array_path(record).unlink()


def _too_many_rows(record: Path) -> None:
    _replace_array(record, _npy(np.ones((3, 3), dtype=np.float32)), shape=[3, 3])


def _shape_not_as_recorded(record: Path) -> None:
    _replace_array(record, _npy(np.ones((2, 3), dtype=np.float32)), shape=[2, 4])


def _float64(record: Path) -> None:
    _replace_array(record, _npy(np.ones((2, 3), dtype=np.float64)))


def _garbage_npy(record: Path) -> None:
    _replace_array(record, b"\x93NUMPY garbage")


EMBEDDING_FAULTS = {
    "truncated record": (_truncate, "not valid JSON"),
    "array fails its checksum": (_alter_array, "its array {npy} does not match its npy_sha256"),
    "array missing": (_drop_array, "its array {npy} is missing"),
    "wrong number of rows": (_too_many_rows, "its array has 3 rows for 2 texts"),
    "shape not as recorded": (_shape_not_as_recorded, "its array has shape (2, 3), its record says [2, 4]"),
    "float64 array": (_float64, "its array {npy} is not a 2-d float32 array"),
    "not a .npy": (_garbage_npy, "its array {npy} is not a valid .npy file (ValueError)"),
}


@pytest.mark.parametrize("fault", GENERATION_FAULTS)
def test_a_corrupt_answer_is_counted_warned_once_and_recomputed_once(tmp_path, caplog, fault):
    _warm(tmp_path)
    entry = _record(tmp_path, "generate")
    damage, reason = GENERATION_FAULTS[fault]
    damage(entry)
    backend, cache = _read_all(tmp_path)
    assert (backend.calls["generate"], backend.calls["embed"]) == (1, 0)
    assert cache.stats.as_dict() == {"embed_calls": 0, "generate_calls": 1, "hits": 1, "corrupt_entries": 1}
    assert _cache_warnings(caplog) == [f"corrupt generate cache entry {entry}: {reason}; recomputed it"]
    backend, cache = _read_all(tmp_path)  # written back: the next read is a hit
    assert (backend.calls["generate"], cache.stats.corrupt_entries) == (0, 0)
    assert len(_cache_warnings(caplog)) == 1


@pytest.mark.parametrize("fault", EMBEDDING_FAULTS)
def test_a_corrupt_embedding_is_counted_warned_once_and_recomputed_once(tmp_path, caplog, fault):
    _warm(tmp_path)
    entry = _record(tmp_path, "embed")
    damage, reason = EMBEDDING_FAULTS[fault]
    damage(entry)
    npy = _array_path(entry).name if "{npy}" in reason else ""  # the array the (maybe forged) record names
    backend, cache = _read_all(tmp_path)
    assert (backend.calls["generate"], backend.calls["embed"]) == (0, 1)
    assert cache.stats.as_dict() == {"embed_calls": 1, "generate_calls": 0, "hits": 1, "corrupt_entries": 1}
    expected = reason.format(npy=npy)
    assert _cache_warnings(caplog) == [f"corrupt embed cache entry {entry}: {expected}; recomputed it"]
    backend, cache = _read_all(tmp_path)
    assert (backend.calls["embed"], cache.stats.corrupt_entries) == (0, 0)


def test_a_warning_never_quotes_the_prompt(tmp_path, caplog):
    _warm(tmp_path)
    _truncate(_record(tmp_path, "generate"))
    _read_all(tmp_path)
    assert caplog.records and not any("SECRET-PROMPT-TEXT" in r.getMessage() for r in caplog.records)


def test_one_bad_entry_never_costs_the_others(tmp_path):
    cache = ModelCache(CountingBackend(), tmp_path)
    prompts = [f"prompt {i}" for i in range(5)]
    for prompt in prompts:
        cache.generate(prompt, GenerationOptions())
    victim = sorted((tmp_path / LAYOUT / "generate").glob("*/*.json"))[2]
    victim.write_bytes(b"garbage")
    backend = CountingBackend()
    again = ModelCache(backend, tmp_path)
    for prompt in prompts:
        again.generate(prompt, GenerationOptions())
    assert backend.calls["generate"] == 1
    assert again.stats.as_dict() == {"embed_calls": 0, "generate_calls": 1, "hits": 4, "corrupt_entries": 1}


# ---------------------------------------------------------------- unusable folder


def test_an_unusable_folder_is_one_line_naming_it(tmp_path):
    folder = tmp_path / "a-file"
    folder.write_text("not a folder")
    with pytest.raises(CacheError) as error:
        ModelCache(CountingBackend(), folder)
    assert str(error.value) == f"cannot use cache folder {folder}: Not a directory"


def test_an_entry_that_cannot_be_written_is_one_line_naming_it(tmp_path, caplog):
    caplog.set_level(logging.ERROR)
    cache = ModelCache(CountingBackend(), tmp_path)
    key = entry_key(
        {"kind": "generate", "identity": cache.identity, "options": GenerationOptions().as_dict(), "prompt": "q"}
    )
    (tmp_path / LAYOUT / "generate").mkdir()
    (tmp_path / LAYOUT / "generate" / key[:2]).write_text("a file where a shard folder goes")
    with pytest.raises(CacheError) as error:
        cache.generate("q", GenerationOptions())
    path = tmp_path / LAYOUT / "generate" / key[:2] / f"{key}.json"
    assert str(error.value) == f"cannot write cache entry {path}: File exists"


# ------------------------------------------------------------- concurrent writers


class GatedBackend(CountingBackend):
    """Answers only once both writers have computed, so their writes of one key overlap; answers differ."""

    def __init__(self, barrier, writer: int) -> None:
        super().__init__()
        self.barrier, self.writer = barrier, writer

    def generate(self, prompt: str, options: GenerationOptions) -> str:
        self.barrier.wait(timeout=120)
        return f"answer from writer {self.writer}"

    def embed(self, texts):
        self.barrier.wait(timeout=120)
        return np.full((len(texts), 3), self.writer, dtype=np.float32)


def _write_one_key(folder: str, barrier, writer: int) -> None:
    """Body of each writer process: one generation and one embedding batch, both the same key in both."""
    cache = ModelCache(GatedBackend(barrier, writer), folder)
    for _ in range(20):  # twenty rounds of racing writes to the same two keys
        cache.generate("the same prompt", GenerationOptions())
        cache.embed(TEXTS)
        for kind in ("generate", "embed"):
            for record in Path(folder, LAYOUT, kind).glob("*/*.json"):
                try:
                    record.unlink()  # so the next round writes again
                except FileNotFoundError:
                    pass
        barrier.wait(timeout=120)
    cache.generate("the same prompt", GenerationOptions())
    cache.embed(TEXTS)


def test_two_processes_writing_the_same_key_leave_one_valid_entry(tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    writers = [context.Process(target=_write_one_key, args=(str(tmp_path), barrier, n)) for n in (1, 2)]
    for process in writers:
        process.start()
    for process in writers:
        process.join(timeout=300)
    assert [process.exitcode for process in writers] == [0, 0]

    assert len(list((tmp_path / LAYOUT / "generate").glob("*/*.json"))) == 1
    assert len(list((tmp_path / LAYOUT / "embed").glob("*/*.json"))) == 1
    assert list(tmp_path.rglob("*.tmp")) == []
    backend = CountingBackend()
    reader = ModelCache(backend, tmp_path)
    answer = reader.generate("the same prompt", GenerationOptions())
    vectors = reader.embed(TEXTS)
    assert answer in {"answer from writer 1", "answer from writer 2"}
    assert vectors.tolist() in ([[1.0] * 3] * 2, [[2.0] * 3] * 2)
    assert reader.stats.as_dict() == {"embed_calls": 0, "generate_calls": 0, "hits": 2, "corrupt_entries": 0}

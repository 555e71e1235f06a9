"""Tests for evalgate_lib.inputs.config: loading run configurations and the fairness contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate_lib.errors import FairnessError, InputError
from evalgate_lib.inputs.config import VARIABLE_KEYS, check_fairness, differences, flatten, load_config

ROOT = Path(__file__).resolve().parents[1]
BASELINE = (ROOT / "configs" / "baseline.toml").read_text("utf-8")
CANDIDATE = (ROOT / "configs" / "candidate.toml").read_text("utf-8")


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, "utf-8")
    return path


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def pair(tmp_path: Path, candidate: str = CANDIDATE, baseline: str = BASELINE):
    folder = tmp_path / "configs"
    return load_config(write(folder, "baseline.toml", baseline)), load_config(
        write(folder, "candidate.toml", candidate)
    )


# --------------------------------------------------------------------------- load_config


def test_load_shipped_baseline() -> None:
    c = load_config(ROOT / "configs" / "baseline.toml")
    assert c.name == "baseline"
    assert c.corpus == (ROOT / "corpus").resolve()
    assert c.gold == (ROOT / "gold" / "questions.jsonl").resolve()
    assert c.top_k == 4
    assert (c.generation.temperature, c.generation.seed, c.generation.max_tokens, c.generation.num_ctx) == (
        0.0,
        42,
        96,
        4096,
    )
    assert c.models == {"ollama": {"generator": "qwen2.5:7b", "embedder": "nomic-embed-text"}}
    assert c.chunking == {"method": "fixed", "size": 120, "overlap": 20}
    assert "{context}" in c.prompt_template and "{question}" in c.prompt_template
    assert len(c.sha256) == 64


def test_shipped_configs_chunk_the_shipped_corpus() -> None:
    from evalgate_lib.chunks.chunking import chunk_corpus
    from evalgate_lib.inputs.corpus import load_corpus

    articles = load_corpus(ROOT / "corpus")
    for name in ("baseline", "candidate"):
        assert chunk_corpus(articles, load_config(ROOT / "configs" / f"{name}.toml").chunking)


def test_paths_are_relative_to_the_config_file(tmp_path: Path) -> None:
    c = load_config(write(tmp_path / "a" / "b", "x.toml", BASELINE))
    assert c.corpus == (tmp_path / "a" / "corpus").resolve()
    assert c.gold == (tmp_path / "a" / "gold" / "questions.jsonl").resolve()


def test_name_defaults_to_file_stem(tmp_path: Path) -> None:
    text = replace_once(BASELINE, 'name = "baseline"\n', "")
    assert load_config(write(tmp_path, "my-run.toml", text)).name == "my-run"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_config(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("top_k = 4", "top_k = = 4", "not valid TOML"),
        (
            'name = "baseline"',
            'name = "baseline"\ncolour = "blue"',
            "unknown key 'colour' in the top level; valid keys: name, description, shared, chunking, prompt",
        ),
        ("\n[chunking]\n", "\n[chunkin]\n", "unknown key 'chunkin' in the top level; did you mean 'chunking'?"),
        ("top_k = 4", "top_kk = 4", "unknown key 'top_kk' in [shared]; did you mean 'top_k'?"),
        (
            'generator = "qwen2.5:7b"',
            'generater = "qwen2.5:7b"',
            "unknown key 'generater' in [shared.models.ollama]; did you mean 'generator'?",
        ),
        ('method = "fixed"', 'methd = "fixed"', "[chunking] needs a 'method'"),
        ("top_k = 4\n", "", "[shared] is missing ['top_k']"),
        ("top_k = 4", "top_k = 0", "top_k must be at least 1, got 0"),
        ("top_k = 4", 'top_k = "four"', "top_k must be a whole number"),
        ("Question: {question}", "Question:", "missing the placeholder {question}"),
        ("{context}", "{context} {context}", "appears 2 times the placeholder {context}"),
        ("template = ", "text = ", "unknown key 'text' in [prompt]; valid keys: template"),
    ],
)
def test_load_config_errors(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = write(tmp_path, "bad.toml", replace_once(BASELINE, old, new))
    with pytest.raises(InputError) as info:
        load_config(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_missing_table(tmp_path: Path) -> None:
    text = 'name = "x"\n[shared]\ncorpus = "c"\ngold = "g"\ntop_k = 1\n[chunking]\nmethod = "fixed"\n'
    with pytest.raises(InputError, match=r"missing the \[prompt\] table"):
        load_config(write(tmp_path, "x.toml", text))


def test_non_utf8_config(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(BASELINE.replace("Fixed", "Fix\u00e9d").encode("latin-1"))
    with pytest.raises(InputError, match="not valid TOML"):
        load_config(path)


@pytest.mark.parametrize(("old", "new"), [("seed = 42", 'seed = "abc"'), ("temperature = 0.0", 'temperature = "hot"')])
def test_bad_generation_option_type_is_refused(tmp_path: Path, old: str, new: str) -> None:
    with pytest.raises(InputError):
        load_config(write(tmp_path, "x.toml", replace_once(BASELINE, old, new)))


# --------------------------------------------------------------------------- fairness


def test_flatten() -> None:
    assert flatten({"a": {"b": 1, "c": {"d": 2}}, "e": 3}) == {"a.b": 1, "a.c.d": 2, "e": 3}
    assert flatten({"x": 1}, "shared.") == {"shared.x": 1}


def test_shipped_configs_are_fair() -> None:
    a = load_config(ROOT / "configs" / "baseline.toml")
    b = load_config(ROOT / "configs" / "candidate.toml")
    diffs = check_fairness(a, b)
    assert set(diffs) == {
        "name",
        "description",
        "chunking.method",
        "chunking.size",
        "chunking.overlap",
        "chunking.max_words",
        "prompt.template",
    }
    assert all(key.split(".")[0] in VARIABLE_KEYS for key in diffs)
    assert diffs["chunking.method"] == ("fixed", "markdown")
    assert diffs["chunking.max_words"] == (None, 250)
    assert diffs["name"] == ("baseline", "candidate")


def test_variable_keys() -> None:
    assert VARIABLE_KEYS == ("name", "description", "chunking", "prompt")


def test_shipped_configs_differ_only_in_allowed_keys(tmp_path: Path) -> None:
    # the copies in tmp_path behave like the originals
    a, b = pair(tmp_path)
    assert set(check_fairness(a, b)) == set(differences(a, b))
    assert not any(k.startswith("shared.") for k in differences(a, b))


@pytest.mark.parametrize(
    ("old", "new", "key", "values"),
    [
        ("top_k = 4", "top_k = 5", "shared.top_k", ("4", "5")),
        ("seed = 42", "seed = 7", "shared.seed", ("42", "7")),
        ("temperature = 0.0", "temperature = 0.7", "shared.temperature", ("0.0", "0.7")),
        ("max_tokens = 96", "max_tokens = 256", "shared.max_tokens", ("96", "256")),
        ('generator = "qwen2.5:7b"', 'generator = "llama3:8b"', "shared.models.ollama.generator",
         ("'qwen2.5:7b'", "'llama3:8b'")),
        ('embedder = "nomic-embed-text"', 'embedder = "mxbai-embed-large"', "shared.models.ollama.embedder",
         ("'nomic-embed-text'", "'mxbai-embed-large'")),
        ('gold = "../gold/questions.jsonl"', 'gold = "../gold/other.jsonl"', "shared.gold", ("questions.jsonl",
         "other.jsonl")),
        ("num_ctx = 4096\n", "", "shared.num_ctx", ("4096", "None")),
        ("top_k = 4", "top_k = 4\nanswer_matching = \"normalised\"", "shared.answer_matching", ("None",
         "'normalised'")),
    ],
)  # fmt: skip
def test_third_difference_is_refused_naming_the_key(
    tmp_path: Path, old: str, new: str, key: str, values: tuple[str, str]
) -> None:
    a, b = pair(tmp_path, replace_once(CANDIDATE, old, new))
    with pytest.raises(FairnessError) as info:
        check_fairness(a, b)
    message = str(info.value)
    assert f"  {key}: " in message
    for value in values:
        assert value in message
    assert "baseline.toml" in message and "candidate.toml" in message
    # only the offending key is named, not the allowed differences
    assert "chunking" not in message.split("differ:")[1]
    assert "prompt.template" not in message


def test_several_differences_all_named(tmp_path: Path) -> None:
    text = replace_once(replace_once(CANDIDATE, "top_k = 4", "top_k = 3"), "seed = 42", "seed = 1")
    a, b = pair(tmp_path, text)
    with pytest.raises(FairnessError) as info:
        check_fairness(a, b)
    assert "shared.top_k: 4 (baseline.toml) vs 3 (candidate.toml)" in str(info.value)
    assert "shared.seed: 42 (baseline.toml) vs 1 (candidate.toml)" in str(info.value)


def test_fairness_error_is_an_input_error() -> None:
    assert issubclass(FairnessError, InputError)


def test_extra_model_backend_in_one_config_is_refused(tmp_path: Path) -> None:
    # a table header names its full path, so [shared.models.local] may sit at the end of the file;
    # only ollama takes model names from a config, so any other backend table is refused while loading
    text = CANDIDATE + '\n[shared.models.local]\ngenerator = "smollm2"\n'
    path = write(tmp_path, "candidate.toml", text)
    with pytest.raises(InputError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: unknown key 'local' in [shared.models]; valid keys: ollama"


def test_model_table_in_one_config_only_is_refused(tmp_path: Path) -> None:
    text = replace_once(
        CANDIDATE, '[shared.models.ollama]\ngenerator = "qwen2.5:7b"\nembedder = "nomic-embed-text"\n', ""
    )
    a, b = pair(tmp_path, text)
    with pytest.raises(FairnessError, match=r"shared\.models\.ollama\.generator"):
        check_fairness(a, b)


def test_non_string_template_is_refused(tmp_path: Path) -> None:
    # [prompt] is the last table of the shipped config: cut its template and give a number instead
    text = BASELINE[: BASELINE.index('template = """')] + "template = 3\n"
    path = write(tmp_path, "bad.toml", text)
    with pytest.raises(InputError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: [prompt] needs a 'template' string"


def test_same_resolved_paths_from_different_folders_are_fair(tmp_path: Path) -> None:
    a = load_config(write(tmp_path / "configs", "baseline.toml", BASELINE))
    deeper = CANDIDATE.replace('"../corpus"', '"../../corpus"').replace('"../gold/', '"../../gold/')
    b = load_config(write(tmp_path / "configs" / "sub", "candidate.toml", deeper))
    assert a.corpus == b.corpus and a.gold == b.gold
    check_fairness(a, b)  # the raw strings differ but the resolved paths are equal


def test_same_paths_written_differently_are_fair(tmp_path: Path) -> None:
    text = replace_once(CANDIDATE, 'corpus = "../corpus"', 'corpus = "../configs/../corpus"')
    a, b = pair(tmp_path, text)
    check_fairness(a, b)


def test_only_name_and_prompt_differ_is_fair(tmp_path: Path) -> None:
    text = replace_once(BASELINE, 'name = "baseline"', 'name = "terse-v2"')
    text = replace_once(text, "Answer:", "Short answer:")
    a, b = pair(tmp_path, text)
    assert set(check_fairness(a, b)) == {"name", "prompt.template"}


def test_same_names_refused(tmp_path: Path) -> None:
    a, b = pair(tmp_path, replace_once(CANDIDATE, 'name = "candidate"', 'name = "baseline"'))
    with pytest.raises(InputError, match="have the same name 'baseline'") as info:
        check_fairness(a, b)
    assert not isinstance(info.value, FairnessError)


def test_identical_configs_refused_by_name() -> None:
    a = load_config(ROOT / "configs" / "baseline.toml")
    with pytest.raises(InputError, match="same name"):
        check_fairness(a, a)


def test_unfair_checked_before_names(tmp_path: Path) -> None:
    text = replace_once(replace_once(CANDIDATE, 'name = "candidate"', 'name = "baseline"'), "top_k = 4", "top_k = 9")
    a, b = pair(tmp_path, text)
    with pytest.raises(FairnessError, match="shared.top_k"):
        check_fairness(a, b)

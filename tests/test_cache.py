"""The cache: one model call per distinct input, and any change to the input misses."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CountingBackend

from evalgate_lib.errors import CacheError
from evalgate_lib.generation.cache import ModelCache
from evalgate_lib.inputs.options import GenerationOptions


def test_second_identical_call_makes_no_model_call(tmp_path):
    backend = CountingBackend()
    cache = ModelCache(backend, tmp_path)
    first = cache.generate("q1", GenerationOptions())
    second = cache.generate("q1", GenerationOptions())
    assert first == second == "answer to q1 at t=0.0"
    assert backend.calls["generate"] == 1
    assert cache.stats.as_dict() == {"embed_calls": 0, "generate_calls": 1, "hits": 1, "corrupt_entries": 0}


def test_a_fresh_process_reuses_the_folder(tmp_path):
    ModelCache(CountingBackend(), tmp_path).generate("q1", GenerationOptions())
    backend = CountingBackend()
    assert ModelCache(backend, tmp_path).generate("q1", GenerationOptions()) == "answer to q1 at t=0.0"
    assert backend.calls["generate"] == 0


@pytest.mark.parametrize(
    "change",
    [
        {"temperature": 0.7},
        {"seed": 7},
        {"max_tokens": 12},
        {"num_ctx": 2048},
        {"stop": ("\n\n",)},
    ],
)
def test_any_option_change_misses(tmp_path, change):
    backend = CountingBackend()
    cache = ModelCache(backend, tmp_path)
    cache.generate("q1", GenerationOptions())
    cache.generate("q1", GenerationOptions(**change))
    assert backend.calls["generate"] == 2


def test_prompt_change_of_one_character_misses(tmp_path):
    backend = CountingBackend()
    cache = ModelCache(backend, tmp_path)
    cache.generate("q1", GenerationOptions())
    cache.generate("q1 ", GenerationOptions())
    assert backend.calls["generate"] == 2


def test_model_digest_change_misses_but_host_does_not_matter(tmp_path):
    ModelCache(CountingBackend("sha256:aaa"), tmp_path).generate("q1", GenerationOptions())
    other_weights = CountingBackend("sha256:bbb")
    ModelCache(other_weights, tmp_path).generate("q1", GenerationOptions())
    assert other_weights.calls["generate"] == 1
    same = CountingBackend("sha256:aaa")
    cache = ModelCache(same, tmp_path)
    assert "host" not in cache.identity
    cache.generate("q1", GenerationOptions())
    assert same.calls["generate"] == 0


def test_embeddings_are_cached_per_batch_and_keep_order(tmp_path):
    backend = CountingBackend()
    cache = ModelCache(backend, tmp_path, embed_batch_size=2)
    texts = ["a", "aa", "b", "aaa", "c"]
    vectors = cache.embed(texts)
    assert vectors.shape == (5, 3)
    assert vectors[:, 0].tolist() == [1, 2, 1, 3, 1]
    assert backend.calls["embed"] == 3  # batches of 2, 2, 1
    again = cache.embed(texts)
    assert backend.calls["embed"] == 3
    np.testing.assert_array_equal(vectors, again)
    assert cache.embed([]).shape == (0, 0)


def test_a_backend_returning_the_wrong_number_of_embeddings_is_refused(tmp_path):
    class ShortBackend(CountingBackend):
        def embed(self, texts):
            return super().embed(texts)[:-1]

    with pytest.raises(CacheError) as error:
        ModelCache(ShortBackend(), tmp_path).embed(["a", "b"])
    assert str(error.value) == "backend returned embeddings of shape (1, 3) for 2 texts"
    assert list(tmp_path.rglob("*.npy")) == []  # nothing cached

"""Tests for evalgate_lib.retrieval.index: exact cosine top-k on hand-made vectors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalgate_lib.retrieval.index import VectorIndex, normalise_rows

R = 1 / math.sqrt(2)  # cos 45°


def search(embeddings: list[list[float]], query: list[float], k: int) -> tuple[list[int], list[float]]:
    idx, sims = VectorIndex(np.array(embeddings, dtype=float)).search(np.array(query, dtype=float), k)
    return [int(i) for i in idx], [float(s) for s in sims]


# rows: e0 = (1, 0), e1 = (0, 1), e2 = (1, 1), e3 = (-1, 0), e4 = (3, 4)
# cosines with q = (1, 0): 1, 0, 1/√2 ≈ 0.7071, -1, 3/5 = 0.6
EMB = [[1, 0], [0, 1], [1, 1], [-1, 0], [3, 4]]


def test_top_k_cosine_order() -> None:
    idx, sims = search(EMB, [1, 0], 3)
    assert idx == [0, 2, 4]
    assert sims == pytest.approx([1.0, R, 0.6], abs=1e-6)


def test_full_ranking() -> None:
    idx, sims = search(EMB, [1, 0], 5)
    assert idx == [0, 2, 4, 1, 3]
    assert sims == pytest.approx([1.0, R, 0.6, 0.0, -1.0], abs=1e-6)


def test_query_scale_does_not_matter() -> None:
    # cosine: (5, 0) is the same direction as (1, 0); row (3, 4) has norm 5 and is normalised too
    assert search(EMB, [5, 0], 3) == search(EMB, [1, 0], 3)
    # q = (0, 1): cosines 0, 1, 0.7071, 0, 0.8 → e1, e4, e2
    assert search(EMB, [0, 2], 3)[0] == [1, 4, 2]


def test_k_larger_than_index_returns_everything() -> None:
    idx, sims = search(EMB, [1, 0], 50)
    assert idx == [0, 2, 4, 1, 3]
    assert len(sims) == 5


def test_k_one() -> None:
    assert search(EMB, [-1, 0], 1) == ([3], [pytest.approx(1.0)])


def test_ties_keep_chunk_order_when_all_returned() -> None:
    # cosines with (1, 0): 0, 1, 1, 1 → the three ties in index order, then the 0
    assert search([[0, 1], [1, 0], [2, 0], [1, 0]], [1, 0], 4)[0] == [1, 2, 3, 0]
    assert search([[0, 1], [1, 0], [2, 0], [1, 0]], [1, 0], 10)[0] == [1, 2, 3, 0]


def test_ties_inside_top_k_keep_chunk_order() -> None:
    # five identical rows: any k returns the first k in order
    assert search([[1, 0]] * 5, [1, 0], 2)[0] == [0, 1]
    assert search([[1, 0]] * 5, [1, 0], 4)[0] == [0, 1, 2, 3]
    assert search([[1, 0], [1, 0], [0, 1]], [1, 0], 2)[0] == [0, 1]


@pytest.mark.parametrize(("k", "expected"), [(1, [2]), (2, [2, 3]), (3, [2, 3, 0])])
def test_ties_at_the_k_boundary_keep_chunk_order(k: int, expected: list[int]) -> None:
    # regression (argpartition used to pick an arbitrary member of a tie straddling the k-th place):
    # cosines with (1, 0): 0, 0, 1, 1 → ranking by (-similarity, index) is 2, 3, 0, 1
    assert search([[0, 1], [0, 1], [1, 0], [1, 0]], [1, 0], k)[0] == expected


def test_ties_keep_chunk_order_on_many_random_tie_patterns() -> None:
    # brute force against sorted(range(n), key=(-similarity, index)) on rows drawn from three directions
    rng = np.random.default_rng(0)
    directions = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    query = np.array([1.0, 0.2])
    for _ in range(300):
        n = int(rng.integers(2, 30))
        index = VectorIndex(directions[rng.integers(0, 3, size=n)])
        sims = index.matrix @ normalise_rows(query[None, :])[0]
        k = int(rng.integers(1, n + 2))
        expected = sorted(range(n), key=lambda i: (-sims[i], i))[:k]
        assert [int(i) for i in index.search(query, k)[0]] == expected


def test_zero_query_gives_zero_similarities_in_chunk_order() -> None:
    idx, sims = search(EMB, [0, 0], 3)
    assert idx == [0, 1, 2]
    assert sims == [0.0, 0.0, 0.0]


def test_similarities_are_float32_and_best_first() -> None:
    idx, sims = VectorIndex(np.array(EMB, dtype=float)).search(np.array([1.0, 0.0]), 5)
    assert sims.dtype == np.float32
    assert list(sims) == sorted(sims, reverse=True)


def test_normalise_rows_unit_length_zero_rows_stay_zero() -> None:
    out = normalise_rows(np.array([[3.0, 4.0], [0.0, 0.0], [0.0, -2.0]]))
    # (3, 4)/5 = (0.6, 0.8); zero row stays zero; (0, -2)/2 = (0, -1)
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0], [0.0, -1.0]], rtol=1e-6)
    assert out.dtype == np.float32


def test_index_length_and_bad_shapes() -> None:
    assert len(VectorIndex(np.array(EMB, dtype=float))) == 5
    with pytest.raises(ValueError, match="non-empty 2-D"):
        VectorIndex(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="non-empty 2-D"):
        VectorIndex(np.zeros(3))

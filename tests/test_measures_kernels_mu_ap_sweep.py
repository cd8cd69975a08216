"""The sweeps behind µAP and per-level AP (Fenwick trees, merged blocks, level by level)
against pairwise sums written out by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from polars_graded.measures.kernels import mu_ap_sweep
from polars_graded.measures.kernels.mu_ap_sweep import (
    _fenwick_earlier,
    _merged_earlier,
    _per_level_sums,
    _per_level_sums_in_two,
    _sorted_sums,
    earlier_sums,
    segments,
)


def naive(group: np.ndarray, weight: np.ndarray) -> np.ndarray:
    out = np.empty(group.size)
    for j in range(group.size):
        earlier = (group[: j + 1] == group[j]).nonzero()[0]
        out[j] = np.minimum(weight[earlier], weight[j]).sum()
    return out


def naive_earlier(
    group: np.ndarray, level: np.ndarray, query: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    count, total = np.zeros(group.size), np.zeros(group.size)
    for j in range(group.size):
        for i in range(j):
            if group[i] == group[j] and level[i] <= query[j]:
                count[j] += 1
                total[j] += weight[i]
    return count, total


def drawn_rankings(seed: int, longest: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rankings (contiguous ids) with dense levels 1..m each, few or one per row."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, longest, size=rng.integers(1, 8))
    ranking = np.repeat(rng.choice(1000, sizes.size, replace=False).cumsum(), sizes)
    group = np.repeat(np.arange(sizes.size), sizes)
    n_distinct = rng.integers(1, sizes + 1)
    raw = np.concatenate(
        [rng.integers(1, m + 1, size=n) for m, n in zip(n_distinct, sizes, strict=True)]
    )
    level = np.empty_like(raw)
    for g in range(sizes.size):
        rows = group == g
        level[rows] = np.unique(raw[rows], return_inverse=True)[1] + 1
    return ranking, group, level


@pytest.mark.parametrize("sweep", [_fenwick_earlier, _merged_earlier, earlier_sums])
@pytest.mark.parametrize("seed", range(20))
def test_earlier_sums_equal_the_pairwise_counts(sweep: Callable[..., Any], seed: int) -> None:
    ranking, group, level = drawn_rankings(seed, 70)
    rng = np.random.default_rng(seed)
    query = np.maximum(level - seed % 3, 0)  # rises with the level, as the callers' do
    weight = rng.random(level.size)
    count, total = sweep(ranking, level, query, weight)
    expected_count, expected_total = naive_earlier(group, level, query, weight)
    np.testing.assert_array_equal(count, expected_count)
    np.testing.assert_allclose(total, expected_total, rtol=1e-12, atol=1e-12)


def test_deep_rankings_merge_and_shallow_ones_keep_their_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ranking takes the merge by its own length: its neighbours never change its bits."""
    ranking, group, level = drawn_rankings(7, 200)
    weight = np.random.default_rng(7).random(level.size)
    alone = earlier_sums(ranking, level, level, weight)
    monkeypatch.setattr(mu_ap_sweep, "DEEP", 100)
    mixed = earlier_sums(ranking, level, level, weight)
    merged = _merged_earlier(ranking, level, level, weight)
    deep = np.bincount(group)[group] > 100
    assert deep.any() and (~deep).any()
    for a, b, c in zip(alone, mixed, merged, strict=True):
        np.testing.assert_array_equal(b[~deep], a[~deep])
        np.testing.assert_array_equal(b[deep], c[deep])


@pytest.mark.parametrize("seed", range(20))
def test_sorted_sums_equal_the_pairwise_sums(seed: int) -> None:
    ranking, group, level = drawn_rankings(seed, 40)
    weight = level * 0.37 + group  # rises with the level inside each group
    got = _sorted_sums(ranking, level, weight, level)
    np.testing.assert_allclose(got, naive(group, weight), rtol=1e-12)


def few_level_rankings(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rankings with at most FEW_LEVELS levels, some without a row: ranking, group,
    level, the ranking's level count."""
    rng = np.random.default_rng(100 + seed)
    sizes = rng.integers(1, 30, size=rng.integers(1, 10))
    ranking = np.repeat(rng.choice(1000, sizes.size, replace=False).cumsum(), sizes)
    group = np.repeat(np.arange(sizes.size), sizes)
    levels_per_group = rng.integers(1, 9, size=sizes.size)  # at most FEW_LEVELS
    # Each group uses a random subset of its levels: some levels have no row.
    level = np.concatenate(
        [rng.integers(1, m + 1, size=n) for m, n in zip(levels_per_group, sizes, strict=True)]
    )
    return ranking, group, level, levels_per_group[group]


@pytest.mark.parametrize("sweep", [_per_level_sums, _per_level_sums_in_two, _sorted_sums])
@pytest.mark.parametrize("seed", range(20))
def test_both_sweeps_equal_the_pairwise_sums(sweep: Callable[..., Any], seed: int) -> None:
    ranking, group, level, n_levels = few_level_rankings(seed)
    weight = np.cumsum(np.random.default_rng(seed).random(10))[level - 1] + group
    got = sweep(ranking, level, weight, n_levels)
    np.testing.assert_allclose(got, naive(group, weight), rtol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_per_level_sums_keep_their_bits_in_two_threads(seed: int) -> None:
    ranking, group, level, n_levels = few_level_rankings(seed)
    weight = np.cumsum(np.random.default_rng(seed).random(10))[level - 1] * (group + 1)
    np.testing.assert_array_equal(
        _per_level_sums_in_two(ranking, level, weight, n_levels),
        _per_level_sums(ranking, level, weight, n_levels),
    )


def per_pass_sort(
    ranking: np.ndarray, level: np.ndarray, query: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The merge as it was before the halves stayed sorted: a sort and a binary search per
    pass (the reference for the bits)."""
    starts, group = segments(ranking)
    ordinal = np.arange(ranking.size) - starts[group]
    length = np.diff(np.r_[starts, ranking.size])[group]
    count, total = np.zeros(ranking.size), np.zeros(ranking.size)
    stride = int(max(level.max(), query.max())) + 2
    half = 1
    while half < length.max():
        second = (ordinal & half) != 0
        in_first = ~second & ((ordinal & ~(2 * half - 1)) + half < length)
        first = np.flatnonzero(in_first)
        keys = level[first] + stride * (np.arange(first.size) // half)
        order = np.argsort(keys, kind="stable")
        sums = weight[first][order].reshape(-1, half).cumsum(axis=1).ravel()
        looking = np.flatnonzero(second)
        mine = (np.cumsum(in_first) // half - 1)[looking]
        found = np.searchsorted(keys[order], stride * mine + query[looking], side="right")
        found -= mine * half
        count[looking] += found
        total[looking] += np.where(found > 0, sums[mine * half + np.maximum(found - 1, 0)], 0.0)
        half *= 2
    return count, total


@pytest.mark.parametrize("shift", [0, 1])
@pytest.mark.parametrize("seed", range(10))
def test_merge_keeps_the_bits_of_a_sort_per_pass(seed: int, shift: int) -> None:
    ranking, _, level = drawn_rankings(seed, 700)
    weight = np.random.default_rng(seed).random(level.size)
    got = _merged_earlier(ranking, level, level - shift, weight)
    for a, b in zip(got, per_pass_sort(ranking, level, level - shift, weight), strict=True):
        np.testing.assert_array_equal(a, b)


def test_fenwick_chunks_keep_the_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    ranking, _, level = drawn_rankings(3, 200)
    weight = np.random.default_rng(3).random(level.size)
    whole = _fenwick_earlier(ranking, level, level, weight)
    monkeypatch.setattr(mu_ap_sweep, "FENWICK_CHUNK", 7)
    chunked = _fenwick_earlier(ranking, level, level, weight)
    for a, b in zip(whole, chunked, strict=True):
        np.testing.assert_array_equal(a, b)

"""The two sweeps behind µAP (Fenwick trees, and level by level) against the pairwise sum."""

from __future__ import annotations

import numpy as np
import pytest

from polars_graded.measures.threshold_sweep import (
    _fenwick_sums,
    _per_level_sums,
    _prefix_min_sums,
)


def naive(group: np.ndarray, weight: np.ndarray) -> np.ndarray:
    out = np.empty(group.size)
    for j in range(group.size):
        earlier = (group[: j + 1] == group[j]).nonzero()[0]
        out[j] = np.minimum(weight[earlier], weight[j]).sum()
    return out


@pytest.mark.parametrize("seed", range(20))
def test_prefix_min_sums_equal_the_pairwise_sums(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, size=rng.integers(1, 12))
    group = np.repeat(np.arange(sizes.size), sizes)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    # Few levels in some groups (ties), one level per row in others.
    n_distinct = rng.integers(1, sizes + 1)
    level = np.concatenate(
        [rng.integers(1, m + 1, size=n) for m, n in zip(n_distinct, sizes, strict=True)]
    )
    # Dense ranks: renumber each group's levels 1..m.
    dense = np.empty_like(level)
    n_levels = np.empty(sizes.size, dtype=np.int64)
    for g in range(sizes.size):
        rows = group == g
        values, dense[rows] = np.unique(level[rows], return_inverse=True)
        dense[rows] += 1
        n_levels[g] = values.size
    weight = dense * 0.37 + group  # rises with the level inside each group
    got = _prefix_min_sums(group, dense, weight, starts, n_levels)
    np.testing.assert_allclose(got, naive(group, weight), rtol=1e-12)


@pytest.mark.parametrize("sweep", [_per_level_sums, _fenwick_sums])
@pytest.mark.parametrize("seed", range(20))
def test_both_sweeps_equal_the_pairwise_sums(sweep, seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    sizes = rng.integers(1, 30, size=rng.integers(1, 10))
    ranking = np.repeat(rng.choice(1000, sizes.size, replace=False).cumsum(), sizes)
    group = np.repeat(np.arange(sizes.size), sizes)
    levels_per_group = rng.integers(1, 9, size=sizes.size)  # at most FEW_LEVELS
    # Each group uses a random subset of its levels: some levels have no row.
    level = np.concatenate(
        [rng.integers(1, m + 1, size=n) for m, n in zip(levels_per_group, sizes, strict=True)]
    )
    weight = np.cumsum(rng.random(10))[level - 1] + group  # rises with the level
    got = sweep(ranking, level, weight, levels_per_group[group])
    np.testing.assert_allclose(got, naive(group, weight), rtol=1e-12)

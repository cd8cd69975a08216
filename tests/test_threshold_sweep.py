"""The Fenwick-tree sweep behind µAP against the pairwise sum it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from polars_graded.measures.threshold_sweep import _prefix_min_sums


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

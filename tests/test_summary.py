"""summary(): one row per `by` group with num_q and bit-for-bit reproducible means."""

from __future__ import annotations

import numpy as np
import polars as pl

import polars_graded  # noqa: F401  (registers the namespace)

MEASURES = ["mu_ap", "ndcg", "ap@10", "mean_ndcng"]


def identical_systems(n_systems: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    n_queries, depth = 300, 40
    base = pl.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries), depth),
            "item": np.tile(np.arange(depth), n_queries),
            "score": rng.random(n_queries * depth),
            "relevance": rng.integers(0, 4, n_queries * depth),
        }
    )
    return pl.concat([base.with_columns(system=pl.lit(s)) for s in range(n_systems)])


def test_identical_systems_get_identical_means() -> None:
    table = identical_systems()
    for frame in (table, table.lazy()):
        summary = frame.graded.summary(MEASURES, by="system")
        summary = summary.collect() if isinstance(summary, pl.LazyFrame) else summary
        assert summary.height == 4
        for name in MEASURES:
            assert summary[name].n_unique() == 1, name


def test_means_equal_the_per_query_means() -> None:
    table = identical_systems(2)
    per_query = table.graded.evaluate(MEASURES, by="system")
    summary = table.graded.summary(MEASURES, by="system")
    expected = per_query.group_by("system").agg(pl.len().alias("num_q"), pl.col(MEASURES).mean())
    joined = summary.join(expected, on="system", suffix="_expected")
    assert (joined["num_q"] == joined["num_q_expected"]).all()
    for name in MEASURES:
        assert ((joined[name] - joined[f"{name}_expected"]).abs() < 1e-12).all()

"""per_threshold(): MAP at each relevance level, its weight, and the identity with µMAP.

The references: MAP at a threshold from ``evaluate(["ap(rel=t)"])`` one group at a time,
µMAP from ``evaluate(["mu_ap(levels=table)"])``, the levels and weights from the labels
by hand, and the paper's Table 1 (SPEC.md §5).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded.breakdown import per_threshold

try:  # tests/ as a package or as a rootdir on sys.path
    from tests.strategies import long_tables
except ImportError:
    from strategies import long_tables

COLUMNS = ["threshold", "weight", "map", "mu_map"]


def graded_table(seed: int = 0, n_queries: int = 30, depth: int = 15) -> pl.DataFrame:
    """Three systems on shared judgments 0..4 (some unjudged, some unretrieved rows)."""
    rng = np.random.default_rng(seed)
    labels = rng.choice([0, 0, 0, 1, 2, 3, 4], n_queries * depth)
    judged = rng.random(labels.size) > 0.1
    frames = []
    for s in range(3):
        score = labels * 0.5 * s + rng.random(labels.size) * 3
        retrieved = rng.random(labels.size) > 0.2
        frames.append(
            pl.DataFrame(
                {
                    "system": f"s{s}",
                    "query": np.repeat(np.arange(n_queries), depth),
                    "item": np.tile(np.arange(depth), n_queries),
                    "score": np.where(retrieved | ~judged, score, np.nan),
                    "relevance": np.where(judged, labels, np.nan),
                }
            ).with_columns(pl.col("score", "relevance").fill_nan(None))
        )
    return pl.concat(frames).with_columns(pl.col("relevance").cast(pl.Int64))


def test_map_is_the_mean_ap_at_each_threshold() -> None:
    table = graded_table()
    out = per_threshold(table, by="system")
    assert out.height == 3 * 4
    for row in out.iter_rows(named=True):
        alone = table.filter(pl.col("system") == row["system"])
        name = str(pg.AP(rel=row["threshold"]))
        expected = alone.graded.evaluate([name])[name].mean()
        assert row["map"] == pytest.approx(expected, abs=1e-12)


def test_levels_and_weights_by_hand() -> None:
    table = graded_table()
    out = per_threshold(table, by="system")
    assert out["threshold"].to_list() == [1.0, 2.0, 3.0, 4.0] * 3
    assert out["weight"].to_list() == [0.25] * 12
    # labels of another shape: levels {0.3, 1.0} weigh 0.3 and 0.7 (SPEC.md §5)
    odd = table.with_columns(
        relevance=pl.col("relevance").replace_strict({0: 0.0, 1: 0.3, 2: 0.3, 3: 1.0, 4: 1.0})
    )
    odd_out = per_threshold(odd, by="system")
    assert odd_out["threshold"].to_list() == [0.3, 1.0] * 3
    assert odd_out["weight"].to_list() == pytest.approx([0.3, 0.7] * 3)


def check_identity(table: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """mu_map = sum(weight * map) = sum(weight * map) / sum(weight), and = mean µAP(table)."""
    out = per_threshold(table, by=by)
    if out.height == 0:  # no positive label: no threshold, and µMAP is 0
        mu = table.graded.summary(["mu_ap(levels=table)"], by=by or None)
        assert (mu["mu_ap(levels=table)"] == 0).all()
        return out
    keys = by or [pl.lit(0).alias("_all")]
    sums = out.group_by(keys).agg(
        pl.col("mu_map").first(),
        pl.col("mu_map").n_unique().alias("n_mu"),
        (pl.col("weight") * pl.col("map")).sum().alias("weighted"),
        pl.col("weight").sum().alias("total"),
        ((pl.col("weight") > 0) & (pl.col("weight") <= 1)).all().alias("positive"),
    )
    assert (sums["n_mu"] == 1).all()
    assert sums["total"].to_numpy() == pytest.approx(np.ones(sums.height), abs=1e-12)
    assert sums["positive"].all()
    assert sums["mu_map"].to_numpy() == pytest.approx(sums["weighted"].to_numpy(), abs=1e-12)
    ratio = (sums["weighted"] / sums["total"]).to_numpy()
    assert sums["mu_map"].to_numpy() == pytest.approx(ratio, abs=1e-12)
    # mu_map is the library's µMAP with the table's levels
    name = "mu_ap(levels=table)"
    mu = table.graded.summary([name], by=by or None)
    if by:
        mu = mu.join(sums, on=by)
        assert mu[name].to_numpy() == pytest.approx(mu["mu_map"].to_numpy(), abs=1e-12)
    elif sums.height:
        assert mu[name].item() == pytest.approx(sums["mu_map"].item(), abs=1e-12)
    return out


def test_mu_map_identity_on_graded_labels() -> None:
    out = check_identity(graded_table(seed=1), ["system"])
    assert out["map"].n_unique() > 4  # the systems differ


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables(systems=2, shared_judgments=False))
def test_mu_map_identity_on_drawn_tables(table: pl.DataFrame) -> None:
    out = check_identity(table, ["system"])
    # each group's thresholds are its own distinct positive labels
    labels = (
        table.filter(pl.col("relevance") > 0)
        .group_by("system")
        .agg(pl.col("relevance").cast(pl.Float64).unique().sort().alias("threshold"))
    )
    got = out.group_by("system").agg(pl.col("threshold").sort())
    assert_frame_equal(labels, got, check_row_order=False, check_dtypes=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables())
def test_mu_map_identity_without_by(table: pl.DataFrame) -> None:
    check_identity(table, [])


def test_groups_have_their_own_levels_and_equal_their_slices() -> None:
    table = graded_table(seed=2)
    table = table.with_columns(
        relevance=pl.when(pl.col("system") == "s2")
        .then(pl.col("relevance") * 3)
        .otherwise(pl.col("relevance"))
    )
    out = per_threshold(table, by="system")
    for system in ("s0", "s1", "s2"):
        alone = per_threshold(table.filter(pl.col("system") == system))
        mine = out.filter(pl.col("system") == system).drop("system")
        assert_frame_equal(mine, alone)
    s2 = out.filter(pl.col("system") == "s2")
    assert s2["threshold"].to_list() == [3.0, 6.0, 9.0, 12.0]
    # scaling labels moves the thresholds, not MAP, weights or µMAP (SPEC §6)
    s2_unscaled = per_threshold(graded_table(seed=2).filter(pl.col("system") == "s2"))
    columns = ["weight", "map", "mu_map"]
    assert_frame_equal(s2.select(columns), s2_unscaled.select(columns), rel_tol=1e-12)


def test_two_by_columns() -> None:
    table = graded_table(seed=3).with_columns(half=pl.col("query") % 2)
    out = per_threshold(table, by=["system", "half"])
    assert out.columns == ["system", "half", *COLUMNS]
    assert out.height == 3 * 2 * 4
    check_identity(table, ["system", "half"])


def test_paper_table_1() -> None:
    # SPEC.md §5: rel = [1, 0, 3, 3, 2, 0, 1, 4], items A..H in ranked order
    rel = [1, 0, 3, 3, 2, 0, 1, 4]
    df = pl.DataFrame(
        {
            "query": 1,
            "item": list("ABCDEFGH"),
            "score": [8.0 - i for i in range(8)],
            "relevance": rel,
        }
    )
    out = per_threshold(df)
    assert out["threshold"].to_list() == [1.0, 2.0, 3.0, 4.0]
    assert out["map"].to_list() == pytest.approx([0.780, 0.483, 0.403, 0.125], abs=5e-4)
    assert out["weight"].to_list() == [0.25] * 4
    assert out["mu_map"].to_list() == pytest.approx([0.448] * 4, abs=5e-4)


def test_lazy_equals_eager() -> None:
    table = graded_table(seed=4)
    lazy = per_threshold(table.lazy(), by="system")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema() == pl.Schema(
        {"system": pl.String, **dict.fromkeys(COLUMNS, pl.Float64)}
    )
    assert_frame_equal(lazy.collect(), per_threshold(table, by="system"))
    assert_frame_equal(lazy.collect(engine="in-memory"), per_threshold(table, by="system"))


def test_namespace_equals_the_function() -> None:
    table = graded_table(seed=5).rename({"query": "qid", "relevance": "label"})
    names = {"query": "qid", "relevance": "label"}
    expected = per_threshold(table, by="system", **names)
    assert_frame_equal(table.graded.per_threshold(by="system", **names), expected)
    lazy = table.lazy().graded.per_threshold(by="system", **names)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), expected)
    assert pg.per_threshold is per_threshold


def test_no_positive_label_and_empty_table() -> None:
    table = graded_table(seed=6)
    out = per_threshold(table.with_columns(relevance=pl.lit(0)), by="system")
    assert out.height == 0 and out.columns == ["system", *COLUMNS]
    empty = per_threshold(table.head(0), by="system")
    assert empty.height == 0 and empty.schema["system"] == pl.String
    # a group without a positive label has no rows; the others keep theirs
    some = table.with_columns(
        relevance=pl.when(pl.col("system") == "s1").then(0).otherwise(pl.col("relevance"))
    )
    assert per_threshold(some, by="system")["system"].unique().sort().to_list() == ["s0", "s2"]


def test_bad_input_raises_the_library_errors() -> None:
    table = graded_table(seed=7)
    with pytest.raises(pg.MissingColumnError, match="'grade'"):
        per_threshold(table, relevance="grade")
    with pytest.raises(pg.MissingColumnError, match="'grade'"):
        per_threshold(table.lazy(), relevance="grade")  # at call time, as evaluate
    duplicated = pl.concat([table, table.head(1)])
    with pytest.raises(pg.DuplicateKeyError):
        per_threshold(duplicated, by="system")
    with pytest.raises(pg.DuplicateKeyError):
        per_threshold(duplicated.lazy(), by="system").collect()
    nan = table.with_columns(pl.col("relevance").cast(pl.Float64)).with_columns(
        relevance=pl.when(pl.int_range(pl.len()) == 5).then(float("nan")).otherwise("relevance")
    )
    with pytest.raises(pg.InvalidValueError, match="'relevance'"):
        per_threshold(nan, by="system")

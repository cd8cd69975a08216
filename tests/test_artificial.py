"""The §2.1 artificial data set: labels, swaps, the long table and its determinism."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_graded  # noqa: F401 - registers the namespace
from polars_graded.artificial import (
    Distribution,
    artificial_rankings,
    random_labels,
    swapped_orders,
    uniform_labels,
)

SCHEMA = {
    "levels": pl.Int64,
    "swaps": pl.Int64,
    "run": pl.Int64,
    "query": pl.Int64,
    "item": pl.Int64,
    "score": pl.Float64,
    "relevance": pl.Int64,
}
KEYS = ["levels", "swaps", "run"]


@pytest.mark.parametrize("levels", [2, 10, 20, 50, 100])
def test_uniform_labels_fill_equal_blocks_best_first(levels: int) -> None:
    labels = uniform_labels(100, levels)
    assert labels.tolist() == sorted(labels.tolist(), reverse=True)
    assert np.bincount(labels, minlength=levels).tolist() == [100 // levels] * levels


def test_uniform_labels_blocks_differ_by_at_most_one_when_levels_do_not_divide_n() -> None:
    counts = np.bincount(uniform_labels(100, 3), minlength=3)
    assert counts.sum() == 100
    assert counts.max() - counts.min() <= 1
    assert uniform_labels(5, 1).tolist() == [0] * 5


def test_table_schema_size_and_keys() -> None:
    df = artificial_rankings(levels=[2, 5], swaps=[0, 3, 7], runs=4, n=10, seed=1)
    assert df.schema == pl.Schema(SCHEMA)
    assert df.height == 2 * 3 * 4 * 10
    per_ranking = df.group_by(KEYS).agg(pl.len(), pl.col("query").n_unique().alias("q"))
    assert per_ranking.height == 2 * 3 * 4
    assert per_ranking["len"].to_list() == [10] * 24
    assert per_ranking["q"].to_list() == [1] * 24
    assert df["query"].n_unique() == 24  # one query per ranking, unique in the table
    assert sorted(df["run"].unique().to_list()) == [0, 1, 2, 3]


def test_every_ranking_is_a_permutation_scored_in_row_order() -> None:
    df = artificial_rankings(levels=[3, 4], swaps=[0, 5], runs=3, n=12, seed=2)
    check = df.group_by("query").agg(
        items=pl.col("item").sort(),
        scores=pl.col("score"),
    )
    for items, scores in check.select("items", "scores").iter_rows():
        assert items == list(range(1, 13))
        assert scores == [float(s) for s in range(12, 0, -1)]


@pytest.mark.parametrize("levels", [2, 10, 20, 50])
def test_uniform_label_counts_per_ranking(levels: int) -> None:
    df = artificial_rankings(levels=levels, swaps=[0, 10, 99], runs=3, seed=3)
    counts = df.group_by("query", "relevance").len()
    assert counts["relevance"].n_unique() == levels
    assert counts["len"].unique().to_list() == [100 // levels]
    assert counts.height == levels * 3 * 3


def test_relevance_is_the_reference_label_of_the_item() -> None:
    df = artificial_rankings(levels=[4], swaps=[0, 6], runs=5, n=20, seed=4)
    reference = uniform_labels(20, 4)
    expected = reference[df["item"].to_numpy() - 1]
    assert df["relevance"].to_numpy().tolist() == expected.tolist()


def test_zero_swaps_is_the_reference_and_scores_one() -> None:
    df = artificial_rankings(levels=[2, 10, 20, 50], swaps=[0], runs=2, seed=5)
    for (levels,), part in df.group_by(["levels"]):
        for _, ranking in part.group_by("query"):
            assert ranking["item"].to_list() == list(range(1, 101))
            assert ranking["relevance"].to_list() == uniform_labels(100, levels).tolist()
    values = df.graded.evaluate(["mu_ap", "ndcg", "ndcng", "mean_ndcg", "mean_ndcng"], by=KEYS)
    assert values.height == 8
    for name in ["mu_ap", "ndcg", "ndcng", "mean_ndcg", "mean_ndcng"]:
        assert values[name].to_list() == pytest.approx([1.0] * 8)


def test_k_swaps_change_at_most_2k_positions() -> None:
    swaps = [0, 1, 2, 5, 10, 25, 50, 99]
    df = artificial_rankings(levels=[5], swaps=swaps, runs=20, seed=6)
    moved = (
        df.with_columns(position=pl.int_range(1, pl.len() + 1).over("query"))
        .group_by("swaps", "query")
        .agg((pl.col("item") != pl.col("position")).sum().alias("moved"))
    )
    assert (moved["moved"] <= 2 * moved["swaps"]).all()
    assert moved.filter(pl.col("swaps") == 1)["moved"].unique().to_list() == [2]
    assert moved.filter(pl.col("swaps") == 0)["moved"].unique().to_list() == [0]
    fewest = moved.filter(pl.col("swaps") == 99)["moved"].min()
    assert isinstance(fewest, int) and fewest > 50  # it does shuffle


@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(2, 30),
    swaps=st.lists(st.integers(0, 40), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_swapped_orders_are_permutations_moving_at_most_2k(
    n: int, swaps: list[int], seed: int
) -> None:
    orders = swapped_orders(np.random.default_rng(seed), n, np.array(swaps))
    assert orders.shape == (len(swaps), n)
    assert (np.sort(orders, axis=1) == np.arange(n)).all()
    moved = (orders != np.arange(n)).sum(axis=1)
    assert (moved <= 2 * np.array(swaps)).all()
    assert (moved[np.array(swaps) == 1] == 2).all()


def test_same_seed_same_table_other_seed_other_table() -> None:
    def make(seed: int, distribution: Distribution = "uniform") -> pl.DataFrame:
        return artificial_rankings(
            levels=[3, 7], swaps=[2, 9], runs=3, n=15, seed=seed, distribution=distribution
        )

    assert make(11).equals(make(11))
    assert not make(11).equals(make(12))
    assert make(11, "random").equals(make(11, "random"))
    assert not make(11, "random").equals(make(12, "random"))
    generator = np.random.default_rng(11)
    assert artificial_rankings(seed=generator, runs=1).height == 4 * 7 * 100


def test_random_distribution_labels_stay_in_range_and_some_levels_go_unused() -> None:
    df = artificial_rankings(levels=[2, 10, 50], swaps=[0], runs=30, seed=7, distribution="random")
    per_query = df.group_by("query", "levels").agg(
        pl.col("relevance").min().alias("low"),
        pl.col("relevance").max().alias("high"),
        pl.col("relevance").n_unique().alias("used"),
        pl.len(),
    )
    assert (per_query["low"] >= 0).all()
    assert (per_query["high"] < per_query["levels"]).all()
    assert per_query["len"].unique().to_list() == [100]
    assert (per_query.filter(pl.col("levels") == 50)["used"] < 50).any()
    # without swaps, the reference order puts the best items first
    descending = df.group_by("query").agg(
        (pl.col("relevance").diff().fill_null(0) <= 0).all().alias("ok")
    )
    assert descending["ok"].all()


def test_random_label_distributions_differ_between_rankings() -> None:
    labels = random_labels(np.random.default_rng(8), 100, np.array([10] * 20))
    counts = np.stack([np.bincount(row, minlength=10) for row in labels])
    assert counts.sum(axis=1).tolist() == [100] * 20
    assert len({tuple(c) for c in counts}) > 1


def test_evaluating_without_by_equals_evaluating_with_by() -> None:
    df = artificial_rankings(levels=[3, 6], swaps=[4], runs=3, n=30, seed=9)
    with_by = df.graded.evaluate(["mu_ap", "ndcg@10"], by=KEYS)
    without = df.graded.evaluate(["mu_ap", "ndcg@10"]).sort("query")
    assert with_by["query"].to_list() == without["query"].to_list()
    assert with_by["mu_ap"].to_list() == pytest.approx(without["mu_ap"].to_list())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runs": 0}, "runs"),
        ({"swaps": [-1]}, "swaps"),
        ({"levels": []}, "levels"),
        ({"levels": 0}, "levels"),
        ({"distribution": "zipf"}, "distribution"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        artificial_rankings(**kwargs)

"""``ranked=True``: input already in ranked order is evaluated without the per-query sort.

The values must equal those of the sorting path bit for bit, and input that is not in
ranked order must raise, never give numbers.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal
from strategies import long_tables

import polars_graded as pg
from polars_graded.cli import main

MEASURES = [
    "mu_ap",
    "mu_ap(levels=table)",
    "ndcg@3",
    "ndcg(gain=linear)",
    "ndcng@2",
    "ap",
    "ap(rel=2)@5",
    "p@2",
    "p",
    "recall@3",
    "r_precision",
    "rr",
    "mean_ndcg",
    "dcg@4",
]


def in_ranked_order(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The rows as a TREC run lists them: by keys, score descending, ties item descending."""
    keys = [*by, "query"]
    return df.sort(
        [*keys, pl.col("score").cast(pl.Float32), "item"],
        descending=[False] * len(keys) + [True, True],
        nulls_last=True,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables(systems=2, max_queries=5, max_items=12))
def test_ranked_input_gives_the_same_bits(df: pl.DataFrame) -> None:
    expected = df.sample(fraction=1.0, shuffle=True, seed=1).graded.evaluate(MEASURES, by="system")
    ranked = in_ranked_order(df, ["system"])
    assert_frame_equal(
        ranked.graded.evaluate(MEASURES, by="system", ranked=True), expected, check_exact=True
    )
    lazy = ranked.lazy().graded.evaluate(MEASURES, by="system", ranked=True)
    # Eager frames run on the in-memory engine; the streaming engine may add a group's
    # terms in another order (see polars_graded.partitioned on exactness).
    assert_frame_equal(lazy.collect(engine="in-memory"), expected, check_exact=True)
    assert_frame_equal(lazy.collect(), expected, rel_tol=1e-12, abs_tol=1e-15)


def small_run() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2", "q2"],
            "item": ["a", "c", "b", "d", "f", "e"],
            "score": [3.0, 2.0, 2.0, 5.0, 1.0, None],
            "relevance": [0, 1, 2, 1, 2, None],
        }
    )


def test_a_small_run_in_ranked_order_is_accepted() -> None:
    df = small_run()
    assert_frame_equal(
        df.graded.evaluate(MEASURES, ranked=True), df.graded.evaluate(MEASURES), check_exact=True
    )


@pytest.mark.parametrize(
    ("rows", "query", "item"),
    [
        ([1, 0, 2, 3, 4, 5], "q1", "c"),  # scores rise: c (2.0) before a (3.0)
        ([0, 2, 1, 3, 4, 5], "q1", "b"),  # a tie broken by item ascending: b before c
        ([0, 1, 2, 3, 5, 4], "q2", "e"),  # an unretrieved row (null score) before a retrieved one
        ([0, 1, 3, 4, 5, 2], "q1", "b"),  # q1's rows in two runs
    ],
)
def test_rows_out_of_ranked_order_raise(rows: list[int], query: str, item: str) -> None:
    df = small_run()[rows]
    for run in (
        lambda: df.graded.evaluate(["ap"], ranked=True),
        lambda: df.lazy().graded.summary(["ndcg@2"], ranked=True).collect(),
    ):
        with pytest.raises(pg.InvalidValueError) as info:
            run()
        message = str(info.value)
        assert "ranked order" in message
        assert f"query={query!r}, item={item!r}" in message
    # the sorting path takes the same rows as they are
    assert df.graded.evaluate(["ap"]).height == 2


def test_per_threshold_and_compare_take_ranked() -> None:
    df = pl.concat([small_run().with_columns(system=pl.lit(s)) for s in ("a", "b")])
    for method in ("per_threshold", "compare"):
        args = () if method == "per_threshold" else (["ap", "mu_ap"],)
        kwargs = {"by": "system"} if method == "per_threshold" else {"trials": 50, "bootstrap": 50}
        run = getattr(df.graded, method)
        assert_frame_equal(
            run(*args, **kwargs, ranked=True), run(*args, **kwargs), check_exact=True
        )
        # the order check runs on this path too: q1's tie broken by item ascending
        with pytest.raises(pg.InvalidValueError, match="ranked order"):
            getattr(df[[0, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11]].graded, method)(
                *args, **kwargs, ranked=True
            )


def test_ranked_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="ranked"):
        small_run().graded.evaluate(["ap"], ranked="yes")  # type: ignore[call-overload]


def test_partitions_of_ranked_parquet_equal_the_in_memory_path(tmp_path: Path) -> None:
    df = pl.concat([small_run().with_columns(pl.col("query") + f"_{i}") for i in range(20)]).pipe(
        in_ranked_order, []
    )
    path = tmp_path / "run.parquet"
    df.write_parquet(path)
    got = pg.evaluate_parquet(path, ["mu_ap", "ndcg@2"], partitions=3, ranked=True)
    assert_frame_equal(got, df.graded.evaluate(["mu_ap", "ndcg@2"]), check_exact=True)


def test_cli_ranked_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.parquet"
    small_run().write_parquet(path)
    assert main(["evaluate", str(path), "-m", "ap", "--ranked"]) == 0
    ranked_out = capsys.readouterr().out
    assert main(["evaluate", str(path), "-m", "ap"]) == 0
    assert capsys.readouterr().out == ranked_out
    small_run()[[1, 0, 2, 3, 4, 5]].write_parquet(path)
    assert main(["evaluate", str(path), "-m", "ap", "--ranked"]) == 2
    assert "ranked order" in capsys.readouterr().err

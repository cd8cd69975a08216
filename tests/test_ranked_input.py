"""``ranked=True``: input already in ranked order is evaluated without the per-query sort.

The values must equal those of the sorting path bit for bit, and input that is not in
ranked order must raise, never give numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal
from support.strategies import long_tables

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
        [*keys, "score", "item"],  # scores compared as doubles, as trec_eval 10.0
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
    # terms in another order (see polars_graded.scale.parquet on exactness).
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
    runs: tuple[Callable[[], pl.DataFrame], ...] = (
        lambda: df.graded.evaluate(["ap"], ranked=True),
        lambda: df.lazy().graded.summary(["ndcg@2"], ranked=True).collect(),
    )
    for run in runs:
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
        small_run().graded.evaluate(["ap"], ranked="yes")  # type: ignore[arg-type]


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


def shuffled_rankings(queries: int, depth: int, seed: int = 3) -> pl.DataFrame:
    """``queries`` rankings of ``depth`` rows each, rows shuffled across the whole table."""
    table = pl.DataFrame(
        {
            "query": [q for q in range(queries) for _ in range(depth)],
            "item": [f"d{i}" for _ in range(queries) for i in range(depth)],
            "score": [float(depth - i) for _ in range(queries) for i in range(depth)],
            "relevance": [i % 3 for _ in range(queries) for i in range(depth)],
        }
    )
    return table.sample(fraction=1.0, shuffle=True, seed=seed)


def affected_count(message: str) -> int:
    """The number of queries a message says are affected (``"12 queries affected"``)."""
    words = message.split(" affected", maxsplit=1)[0].split()
    return int(words[-2])


@pytest.mark.parametrize("lazy", [False, True])
def test_a_shuffled_table_counts_every_query_out_of_order(lazy: bool) -> None:
    # Issue 14: 4,000 shuffled rankings were reported as "8 queries affected": the row rule
    # counted only its own rows, though the rule of contiguous runs marked every query.
    df = shuffled_rankings(queries=400, depth=6)
    # brute force: a query is out of order when its rows are not one contiguous run in
    # ranked order
    positions = df.with_row_index("row").group_by("query").agg("row", "score")
    broken = sum(
        1
        for rows, scores in positions.select("row", "score").iter_rows()
        if rows != list(range(rows[0], rows[0] + len(rows))) or scores != sorted(scores)[::-1]
    )
    assert broken > 390  # nearly every query of a shuffled table
    frame = df.lazy() if lazy else df
    with pytest.raises(pg.InvalidValueError, match="ranked=True") as info:
        result = frame.graded.evaluate(["ap"], ranked=True)
        result.collect() if isinstance(result, pl.LazyFrame) else None
    assert affected_count(str(info.value)) == broken


def test_split_runs_and_misordered_rows_count_together() -> None:
    # query 1: contiguous but misordered; query 2: in order but split in two runs;
    # query 3: in order; query 4: both.
    rows = [
        (1, "a", 1.0), (1, "b", 2.0),
        (2, "a", 2.0),
        (3, "a", 2.0), (3, "b", 1.0),
        (2, "b", 1.0),
        (4, "a", 1.0),
        (5, "a", 1.0),
        (4, "b", 2.0),
    ]  # fmt: skip
    df = pl.DataFrame(rows, schema=["query", "item", "score"], orient="row").with_columns(
        relevance=pl.lit(1)
    )
    with pytest.raises(pg.InvalidValueError) as info:
        df.graded.evaluate(["ap"], ranked=True)
    message = str(info.value)
    assert "3 queries affected" in message
    assert "query=1" in message
    assert "query=2" in message
    assert "query=4" in message
    assert "query=3" not in message
    assert "query=5" not in message

"""The typed API (polars_graded/api.py): ``pg.evaluate``, ``pg.summary`` and
``pg.per_threshold`` on a DataFrame or a LazyFrame give the namespace's results, in the
kind of frame they were given; a summary is the mean of the per-query values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.tables import FrameKind

import polars_graded as pg
from polars_graded import api
from polars_graded.options import ColumnOptions, TableSpec, as_by

MEASURES = ["mu_ap", "ndcg", "ap@10", "mean_ndcng"]
NAMED: dict[str, pg.Measure | str] = {
    "µ": "mu_ap(levels=table)",
    "top5": pg.NDCG @ 5,
    "first": "rr(rel=2)",
}
CUSTOM_NAMES = {"query": "qid", "item": "docno", "score": "sim", "relevance": "rel"}
OPTIONS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "by": {"by": "system"},
    "by, average": {"by": "system", "ties": "average"},
    "by, optimistic": {"by": ["system"], "ties": "optimistic"},
    "names": {"by": "run", **CUSTOM_NAMES},
}


def table_for(
    options: dict[str, object], random_table: Callable[..., pl.DataFrame]
) -> pl.DataFrame:
    """A random table (two systems when ``by`` is given) with the columns ``options`` name."""
    if "by" not in options:
        return random_table(1, queries=8)
    df = random_table(2, systems=2, queries=8)
    if options["by"] == "run":
        df = df.rename({"system": "run", **CUSTOM_NAMES})
    return df


@pytest.mark.parametrize("options", list(OPTIONS))
def test_evaluate_is_the_namespaces(
    options: str, frame_kind: FrameKind, random_table: Callable[..., pl.DataFrame]
) -> None:
    columns = OPTIONS[options]
    df = table_for(columns, random_table)
    for measures in (MEASURES, NAMED):
        got = frame_kind.collect(pg.evaluate(frame_kind(df), measures, **columns))
        namespace = frame_kind.collect(frame_kind(df).graded.evaluate(measures, **columns))
        assert_frame_equal(got, namespace, check_exact=True)
        keys = [*as_by(columns.get("by")), columns.get("query", "query")]
        assert got.columns == [*keys, *(measures if isinstance(measures, dict) else MEASURES)]


@pytest.mark.parametrize("options", list(OPTIONS))
def test_summary_is_the_namespaces(
    options: str, frame_kind: FrameKind, random_table: Callable[..., pl.DataFrame]
) -> None:
    columns = OPTIONS[options]
    df = table_for(columns, random_table)
    for mean in ("arithmetic", "geometric"):
        got = frame_kind.collect(pg.summary(frame_kind(df), NAMED, mean=mean, **columns))
        namespace = frame_kind.collect(frame_kind(df).graded.summary(NAMED, mean=mean, **columns))
        assert_frame_equal(got, namespace, check_exact=True)


@pytest.mark.parametrize("options", list(OPTIONS))
def test_the_spec_entries_are_the_keyword_functions(
    options: str, random_table: Callable[..., pl.DataFrame]
) -> None:
    columns = cast(ColumnOptions, OPTIONS[options])
    df = table_for(OPTIONS[options], random_table)
    spec = TableSpec.of(columns)
    lf = df.lazy()
    eager = [
        (api.evaluate_spec(df, MEASURES, spec), pg.evaluate(df, MEASURES, **columns)),
        (
            api.summary_spec(df, MEASURES, spec, mean="geometric"),
            pg.summary(df, MEASURES, mean="geometric", **columns),
        ),
        (api.per_threshold_spec(df, spec), pg.per_threshold(df, **columns)),
    ]
    lazy = [
        (api.evaluate_spec(lf, MEASURES, spec), pg.evaluate(lf, MEASURES, **columns)),
        (api.summary_spec(lf, MEASURES, spec), pg.summary(lf, MEASURES, **columns)),
        (api.per_threshold_spec(lf, spec), pg.per_threshold(lf, **columns)),
    ]
    for got, want in eager:
        assert_frame_equal(got, want, check_exact=True)
    for got_lazy, want_lazy in lazy:
        assert isinstance(got_lazy, pl.LazyFrame)
        assert_frame_equal(got_lazy.collect(), want_lazy.collect(), check_exact=True)


@pytest.mark.parametrize("options", list(OPTIONS))
def test_per_threshold_is_the_namespaces(
    options: str, frame_kind: FrameKind, random_table: Callable[..., pl.DataFrame]
) -> None:
    columns = OPTIONS[options]
    df = table_for(columns, random_table)
    got = frame_kind.collect(pg.per_threshold(frame_kind(df), **columns))
    namespace = frame_kind.collect(frame_kind(df).graded.per_threshold(**columns))
    assert_frame_equal(got, namespace, check_exact=True)
    assert got.height > 0


def test_a_data_frame_gets_the_bits_of_a_lazy_frame_collected_in_memory(
    random_table: Callable[..., pl.DataFrame],
) -> None:
    df = random_table(3, systems=2)
    eager = pg.evaluate(df, MEASURES, by="system", ties="average")
    lazy = pg.evaluate(df.lazy(), MEASURES, by="system", ties="average")
    for engine in ("in-memory", "streaming", "auto"):
        assert_frame_equal(eager, lazy.collect(engine=engine), check_exact=True)


def test_finish_collects_a_data_frame_and_keeps_a_lazy_frame_lazy() -> None:
    runs: list[int] = []

    def record(frame: pl.DataFrame) -> pl.DataFrame:
        runs.append(frame.height)
        return frame

    lf = pl.LazyFrame({"a": [1, 2]}).map_batches(record, schema={"a": pl.Int64})
    assert api.finish(pl.DataFrame(), lf).equals(pl.DataFrame({"a": [1, 2]}))
    assert runs == [2]
    lazy = api.finish(pl.LazyFrame(), lf)
    assert isinstance(lazy, pl.LazyFrame)
    assert runs == [2]  # nothing ran yet
    assert lazy.collect_schema() == pl.Schema({"a": pl.Int64})
    assert lazy.collect(engine="streaming").equals(pl.DataFrame({"a": [1, 2]}))
    assert runs == [2, 2]


# --------------------------------------------------------------------------- summary


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


def test_identical_systems_get_identical_means(frame_kind: FrameKind) -> None:
    """The mean of a system does not depend on its neighbours: four copies, one value."""
    summary = frame_kind.collect(pg.summary(frame_kind(identical_systems()), MEASURES, by="system"))
    assert summary.height == 4
    for name in MEASURES:
        assert summary[name].n_unique() == 1, name


def test_means_equal_the_per_query_means() -> None:
    table = identical_systems(2)
    per_query = pg.evaluate(table, MEASURES, by="system")
    summary = pg.summary(table, MEASURES, by="system")
    expected = per_query.group_by("system").agg(pl.len().alias("num_q"), pl.col(MEASURES).mean())
    joined = summary.join(expected, on="system", suffix="_expected")
    assert joined.height == 2
    assert (joined["num_q"] == joined["num_q_expected"]).all()
    for name in MEASURES:
        assert ((joined[name] - joined[f"{name}_expected"]).abs() < 1e-12).all()

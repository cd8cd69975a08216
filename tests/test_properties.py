"""Properties of conventions.md §6 and of the API contract, checked with hypothesis."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from support.oracle import Key
from support.strategies import long_tables, perfect_tables

import polars_graded as pg

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEWER = settings(SETTINGS, max_examples=15)  # tests that evaluate several frames per example

NORMALISED = [
    "mu_ap",
    "mu_ap(levels=table)",
    "mu_ap(levels=[1,2,3])",
    "mu_ap@3",
    "ap",
    "ap(rel=2)@5",
    "ndcg",
    "ndcg@3",
    "ndcg(gain=linear)@5",
    "ndcg(gain={1:3,2:9,4:4.5})",
    "ndcng",
    "ndcng@3",
    "mean_ndcg",
    "mean_ndcng",
    "p@5",
    "p",
    "recall@5",
    "r_precision",
    "rr",
]
ALL_MEASURES = [*NORMALISED, "dcg@5", "dcg(base=10)"]
TOL = 1e-12


def values(result: pl.DataFrame, keys: list[str]) -> dict[Key, dict[str, float]]:
    rest = [c for c in result.columns if c not in keys]
    return {
        tuple(row[k] for k in keys): {c: row[c] for c in rest}
        for row in result.iter_rows(named=True)
    }


def assert_close(
    a: dict[Key, dict[str, float]], b: dict[Key, dict[str, float]], tol: float = TOL
) -> None:
    assert a.keys() == b.keys()
    for key, row in a.items():
        assert row.keys() == b[key].keys()
        for col, value in row.items():
            assert value == pytest.approx(b[key][col], abs=tol, rel=tol), (key, col)


def top_label(df: pl.DataFrame) -> pl.DataFrame:
    return df.group_by("query").agg(top=pl.col("relevance").max())


# --- perfect ranking ---------------------------------------------------------------------


@SETTINGS
@given(df=st.one_of(perfect_tables(labels="int"), perfect_tables(labels="continuous")))
def test_perfect_ranking_scores_one(df: pl.DataFrame) -> None:
    measures = [
        "mu_ap",
        "ndcg",
        "ndcg(gain=linear)",
        "ndcng",
        "mean_ndcg",
        "mean_ndcng",
        "ndcg@3",
        "ndcng@3",
        "mu_ap@50",
    ]
    result = df.graded.evaluate(measures).join(top_label(df), on="query")
    for row in result.iter_rows(named=True):
        expected = 1.0 if row["top"] is not None and row["top"] > 0 else 0.0
        for m in measures:
            assert row[m] == pytest.approx(expected, abs=1e-12), (m, row)


# --- 0/1 labels ----------------------------------------------------------------------------


@SETTINGS
@given(df=long_tables(labels="binary"), k=st.integers(1, 6))
def test_binary_labels_mu_ap_is_ap_and_ndcng_is_ndcg(df: pl.DataFrame, k: int) -> None:
    result = df.graded.evaluate(
        [
            "mu_ap",
            "ap",
            f"mu_ap@{k}",
            f"ap@{k}",
            "ndcng",
            "ndcg",
            f"ndcng@{k}",
            f"ndcg@{k}",
            "mean_ndcng",
            "mean_ndcg",
        ]
    )
    for row in result.iter_rows(named=True):
        assert row["mu_ap"] == pytest.approx(row["ap"], abs=TOL)
        assert row[f"mu_ap@{k}"] == pytest.approx(row[f"ap@{k}"], abs=TOL)
        assert row["ndcng"] == pytest.approx(row["ndcg"], abs=TOL)
        assert row[f"ndcng@{k}"] == pytest.approx(row[f"ndcg@{k}"], abs=TOL)
        assert row["mean_ndcng"] == pytest.approx(row["mean_ndcg"], abs=TOL)


@SETTINGS
@given(df=long_tables(labels="continuous"), x=st.sampled_from([0.25, 0.5, 1.0, 2.0, 7.5]))
def test_two_levels_mu_ap_is_ap(df: pl.DataFrame, x: float) -> None:
    # conventions §4: with two levels {0, x} µAP equals AP at threshold x
    df = df.with_columns(
        relevance=pl.when(pl.col("relevance") > 0).then(x).otherwise(pl.col("relevance"))
    )
    result = df.graded.evaluate(["mu_ap", pg.AP(rel=x), "mu_ap(levels=table)"])
    ap = str(pg.AP(rel=x))
    for row in result.iter_rows(named=True):
        assert row["mu_ap"] == pytest.approx(row[ap], abs=TOL)
        assert row["mu_ap(levels=table)"] == pytest.approx(row[ap], abs=TOL)


# --- scale invariance ----------------------------------------------------------------------


@SETTINGS
@given(
    df=long_tables(),
    c=st.one_of(st.sampled_from([0.1, 0.5, 2.0, 3.0, 10.0]), st.floats(0.01, 100.0)),
    k=st.integers(1, 6),
)
def test_scale_invariance(df: pl.DataFrame, c: float, k: int) -> None:
    measures = ["mu_ap", "mu_ap(levels=table)", f"mu_ap@{k}", "ndcng", f"ndcng@{k}", "mean_ndcng"]
    scaled = df.with_columns(relevance=pl.col("relevance") * c)
    assert_close(
        values(df.graded.evaluate(measures), ["query"]),
        values(scaled.graded.evaluate(measures), ["query"]),
        tol=1e-9,
    )


def test_ndcg_exp_is_not_scale_invariant() -> None:
    # the reason NDCNG exists: the same ranking, labels doubled, changes NDCG (exp gain)
    df = pl.DataFrame(
        {"query": [1, 1, 1], "item": [1, 2, 3], "score": [3.0, 2.0, 1.0], "relevance": [1, 2, 0]}
    )
    doubled = df.with_columns(relevance=pl.col("relevance") * 2)
    assert df.graded.ndcg()["ndcg"][0] != pytest.approx(doubled.graded.ndcg()["ndcg"][0])
    assert df.graded.ndcng()["ndcng"][0] == pytest.approx(doubled.graded.ndcng()["ndcng"][0])


# --- shuffling rows, renaming queries --------------------------------------------------------


@SETTINGS
@given(df=long_tables(), seed=st.integers(0, 2**32 - 1))
def test_invariant_under_row_shuffle(df: pl.DataFrame, seed: int) -> None:
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    assert_close(
        values(df.graded.evaluate(ALL_MEASURES), ["query"]),
        values(shuffled.graded.evaluate(ALL_MEASURES), ["query"]),
    )


@SETTINGS
@given(df=long_tables(), data=st.data())
def test_invariant_under_renaming_queries(df: pl.DataFrame, data: st.DataObject) -> None:
    old = df["query"].unique().to_list()
    new = data.draw(
        st.lists(
            st.text("abcxyz", min_size=1, max_size=4),
            unique=True,
            min_size=len(old),
            max_size=len(old),
        )
    )
    mapping = dict(zip(old, new, strict=True))
    renamed = df.with_columns(pl.col("query").replace_strict(mapping, return_dtype=pl.String))
    a = values(df.graded.evaluate(ALL_MEASURES), ["query"])
    b = values(renamed.graded.evaluate(ALL_MEASURES), ["query"])
    assert_close({(mapping[key[0]],): v for key, v in a.items()}, b)


# --- by=system equals each slice alone ---------------------------------------------------------


def evaluate_slices(df: pl.DataFrame, measures: list[str]) -> dict[Key, dict[str, float]]:
    alone = {}
    for system in df["system"].unique().to_list():
        part = df.filter(pl.col("system") == system).drop("system")
        for (q,), v in values(part.graded.evaluate(measures), ["query"]).items():
            alone[(system, q)] = v
    return alone


@FEWER
@given(df=long_tables(systems=3, shared_judgments=True, max_queries=3))
def test_by_system_equals_each_slice(df: pl.DataFrame) -> None:
    # the usual shape: every system has its own copy of the same judgments
    together = values(df.graded.evaluate(ALL_MEASURES, by="system"), ["system", "query"])
    assert_close(together, evaluate_slices(df, ALL_MEASURES))


@FEWER
@given(df=long_tables(systems=3, shared_judgments=False, max_queries=3))
def test_by_system_equals_each_slice_own_judgments(df: pl.DataFrame) -> None:
    measures = [m for m in ALL_MEASURES if m != "mu_ap(levels=table)"]
    together = values(df.graded.evaluate(measures, by="system"), ["system", "query"])
    assert_close(together, evaluate_slices(df, measures))


def test_by_system_table_levels_are_the_slices_levels() -> None:
    # conventions §6: "Evaluating a table with by=system equals evaluating each system's slice
    # alone", so levels="table" are the levels of the system's own rows. System "a" alone
    # has the one level {1}: µAP = AP^1 = 1. Its neighbour's label 2 must not add AP^2 = 0.
    df = pl.DataFrame(
        {
            "system": ["a", "b"],
            "query": [1, 1],
            "item": ["d1", "d1"],
            "score": [1.0, 1.0],
            "relevance": [1, 2],
        }
    )
    together = df.graded.mu_ap(levels="table", by="system")
    assert together["mu_ap(levels=table)"].to_list() == [1.0, 1.0]
    alone = df.filter(pl.col("system") == "a").graded.mu_ap(levels="table")
    assert alone["mu_ap(levels=table)"].to_list() == [1.0]


@SETTINGS
@given(df=long_tables(systems=2, max_queries=3))
def test_by_two_columns(df: pl.DataFrame) -> None:
    # a list of by columns keys the result by all of them, in order
    df = df.with_columns(run=pl.col("system").cast(pl.String) + "x")
    result = df.graded.evaluate(["mu_ap", "ndcng@3"], by=["run", "system"])
    assert result.columns == ["run", "system", "query", "mu_ap", "ndcng@3"]
    single = values(
        df.drop("run").graded.evaluate(["mu_ap", "ndcng@3"], by="system"), ["system", "query"]
    )
    both = values(result, ["system", "query"])
    assert_close(single, {k: {c: v[c] for c in ("mu_ap", "ndcng@3")} for k, v in both.items()})


# --- LazyFrame == DataFrame, summary, result shape --------------------------------------------


@FEWER
@given(df=long_tables(systems=2, max_queries=3), use_by=st.booleans())
def test_lazy_equals_eager(df: pl.DataFrame, use_by: bool) -> None:
    by = "system" if use_by else None
    if not use_by:
        df = df.filter(pl.col("system") == 0).drop("system")
    eager = df.graded.evaluate(ALL_MEASURES, by=by)
    lazy = df.lazy().graded.evaluate(ALL_MEASURES, by=by)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    # a user may collect with the streaming engine (e.g. on a Parquet scan)
    assert_frame_equal(lazy.collect(engine="streaming"), eager, abs_tol=1e-12)
    eager_s = df.graded.summary(ALL_MEASURES, by=by)
    lazy_s = df.lazy().graded.summary(ALL_MEASURES, by=by)
    assert isinstance(lazy_s, pl.LazyFrame)
    assert_frame_equal(lazy_s.collect(), eager_s)


@FEWER
@given(df=long_tables(systems=3, max_queries=4, shared_judgments=False))
def test_summary_is_mean_of_evaluate(df: pl.DataFrame) -> None:
    per_query = df.graded.evaluate(ALL_MEASURES, by="system")
    summary = df.graded.summary(ALL_MEASURES, by="system")
    assert summary.columns == ["system", "num_q", *ALL_MEASURES]
    assert summary["system"].to_list() == sorted(df["system"].unique().to_list())
    for row in summary.iter_rows(named=True):
        rows = per_query.filter(pl.col("system") == row["system"])
        queries = df.filter(pl.col("system") == row["system"])["query"].unique()
        assert row["num_q"] == queries.len() == rows.height
        for m in ALL_MEASURES:
            column = rows[m].to_list()
            assert row[m] == pytest.approx(sum(column) / len(column), abs=1e-12, rel=1e-12)


@SETTINGS
@given(df=long_tables())
def test_summary_without_by_is_one_row(df: pl.DataFrame) -> None:
    per_query = df.graded.evaluate(ALL_MEASURES)
    summary = df.graded.summary(ALL_MEASURES)
    assert summary.columns == ["num_q", *ALL_MEASURES]
    assert summary.height == 1
    assert summary["num_q"][0] == df["query"].n_unique()
    for m in ALL_MEASURES:
        column = per_query[m].to_list()
        assert summary[m][0] == pytest.approx(sum(column) / len(column), abs=1e-12, rel=1e-12)


@SETTINGS
@given(df=long_tables(systems=2, max_queries=4, shared_judgments=False))
def test_result_shape_and_range(df: pl.DataFrame) -> None:
    result = df.graded.evaluate(ALL_MEASURES, by="system")
    assert result.columns == ["system", "query", *ALL_MEASURES]
    for m in ALL_MEASURES:
        assert result.schema[m] == pl.Float64
        assert result[m].null_count() == 0
    # one row per (system, query) present in the table, sorted by (system, query)
    expected_keys = sorted(set(zip(df["system"].to_list(), df["query"].to_list(), strict=True)))
    assert (
        list(zip(result["system"].to_list(), result["query"].to_list(), strict=True))
        == expected_keys
    )
    for m in NORMALISED:
        low, high = result[m].min(), result[m].max()
        assert isinstance(low, float) and isinstance(high, float), m
        assert low >= 0.0, m
        assert high <= 1.0 + 1e-12, m
    for m in ("dcg@5", "dcg(base=10)"):
        low = result[m].min()
        assert isinstance(low, float) and low >= 0.0, m


@SETTINGS
@given(df=long_tables(), data=st.data())
def test_no_relevant_row_scores_zero(df: pl.DataFrame, data: st.DataObject) -> None:
    # conventions §4: a query with no relevant row (all labels <= 0 or null) is 0 on every measure,
    # and a query the system returned nothing for is 0 too; both count in the mean
    q = data.draw(st.sampled_from(sorted(df["query"].unique().to_list())))
    how = data.draw(st.sampled_from(["irrelevant", "unretrieved"]))
    if how == "irrelevant":
        changed = pl.when(pl.col("relevance") > 0).then(0).otherwise(pl.col("relevance"))
        df = df.with_columns(
            relevance=pl.when(pl.col("query") == q).then(changed).otherwise(pl.col("relevance"))
        )
    else:  # the system returned nothing: only the query's judged rows remain
        df = df.filter((pl.col("query") != q) | pl.col("relevance").is_not_null())
        if df.filter(pl.col("query") == q).height == 0:
            return
        df = df.with_columns(
            score=pl.when(pl.col("query") == q).then(None).otherwise(pl.col("score"))
        )
    result = df.graded.evaluate(ALL_MEASURES).filter(pl.col("query") == q)
    assert result.height == 1
    for m in ALL_MEASURES:
        assert result[m][0] == 0.0, m
    assert df.graded.summary("ap")["num_q"][0] == df["query"].n_unique()

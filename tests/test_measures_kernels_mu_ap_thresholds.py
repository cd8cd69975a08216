"""per_threshold(): MAP at each relevance level, its weight, its contribution, and µMAP.

The references: MAP at a threshold from ``evaluate(["ap(rel=t)"])`` one group at a time
(the way per_threshold itself worked before its pair sweep), the contributions from those
per-query APs and each query's top label, the two µMAPs from ``summary(["mu_ap"])`` and
``summary(["mu_ap(levels=table)"])``, the levels and weights from the labels by hand, and
the paper's Table 1 (conventions.md §5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal
from support.strategies import long_tables

import polars_graded as pg
from polars_graded import plan
from polars_graded.api import per_threshold
from polars_graded.measures.kernels import mu_ap_sweep
from polars_graded.options import TableSpec, TiePolicy

COLUMNS = ["threshold", "weight", "map", "contribution", "mu_map_table_levels", "mu_map"]
POLICIES: list[TiePolicy] = ["trec_eval", "input", "optimistic", "pessimistic", "average"]


def system_rows(
    system: str,
    depth: int,
    score: np.ndarray,
    labels: np.ndarray,
    *,
    retrieved: np.ndarray,
    judged: np.ndarray,
) -> pl.DataFrame:
    """One system's rows, queries of ``depth`` items each; a judged row not ``retrieved``
    gets a null score, a row not ``judged`` a null relevance."""
    n_queries = labels.size // depth
    return pl.DataFrame(
        {
            "system": system,
            "query": np.repeat(np.arange(n_queries), depth),
            "item": np.tile(np.arange(depth), n_queries),
            "score": np.where(retrieved | ~judged, score, np.nan),
            "relevance": np.where(judged, labels, np.nan),
        }
    ).with_columns(pl.col("score", "relevance").fill_nan(None))


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
            system_rows(f"s{s}", depth, score, labels, retrieved=retrieved, judged=judged)
        )
    return pl.concat(frames).with_columns(pl.col("relevance").cast(pl.Int64))


def continuous_table(seed: int = 0, n_queries: int = 6, depth: int = 40) -> pl.DataFrame:
    """Two systems on shared continuous judgments (about a threshold per judged row), with
    tied scores, negative labels, unjudged and unretrieved rows."""
    rng = np.random.default_rng(seed)
    size = n_queries * depth
    labels = np.where(rng.random(size) < 0.4, 0.0, np.round(rng.random(size) * 3, 4))
    labels[rng.random(size) < 0.05] = -1.0
    judged = rng.random(size) > 0.1
    frames = []
    for s in range(2):
        score = np.round(labels * 0.5 * s + rng.normal(size=size), 1)  # ties
        retrieved = rng.random(size) > 0.15
        frames.append(
            system_rows(f"s{s}", depth, score, labels, retrieved=retrieved, judged=judged)
        )
    return pl.concat(frames)


def reference(
    table: pl.DataFrame, by: list[str], ties: TiePolicy = "trec_eval", *, ranked: bool = False
) -> pl.DataFrame:
    """``[*by, threshold, map, contribution]`` from ``evaluate(["ap(rel=t)", ...])`` of each
    group alone, and each query's top label."""
    rows = []
    groups = table.partition_by(by, as_dict=True) if by else {(): table}
    for key, part in groups.items():
        labels = part.filter(pl.col("relevance") > 0)["relevance"].cast(pl.Float64)
        thresholds = labels.unique().sort().to_list()
        names = [str(pg.AP(rel=t)) for t in thresholds]
        values = part.graded.evaluate(names, ties=ties, ranked=ranked).join(
            part.group_by("query").agg(top=pl.col("relevance").max().cast(pl.Float64)),
            on="query",
        )
        below = 0.0
        for t, name in zip(thresholds, names, strict=True):
            share = pl.when(pl.col("top") >= t).then((t - below) / pl.col("top") * pl.col(name))
            means = values.select(pl.col(name).mean(), share.fill_null(0.0).mean().alias("c"))
            rows.append((*key, t, *means.row(0)))
            below = t
    schema = [*by, "threshold", "map", "contribution"]
    return pl.DataFrame(rows, schema=schema, orient="row").sort([*by, "threshold"])


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("make", [graded_table, continuous_table])
def test_map_and_contributions_equal_the_per_query_aps(
    make: Callable[..., pl.DataFrame], ties: TiePolicy
) -> None:
    """MAP and contribution at every threshold, under every tie policy, eager and lazy."""
    table = make(seed=8)
    expected = reference(table, ["system"], ties)
    if make is continuous_table:
        assert expected.height > 150  # about a threshold per judged row
    out = per_threshold(table, by="system", ties=ties)
    lazy = per_threshold(table.lazy(), by="system", ties=ties).collect()
    assert_frame_equal(lazy, out)
    got = out.select(expected.columns)
    assert_frame_equal(got, expected, check_exact=False, rel_tol=0, abs_tol=1e-12)
    check_identity_under(table, ["system"], ties, out)


@pytest.mark.parametrize("ties", ["trec_eval", "input", "average"])
def test_ranked_input(ties: TiePolicy) -> None:
    table = continuous_table(seed=9).sort(
        "system", "query", "score", "item", descending=[False, False, True, True], nulls_last=True
    )
    out = per_threshold(table, by="system", ties=ties, ranked=True)
    expected = reference(table, ["system"], ties, ranked=True)
    assert_frame_equal(out.select(expected.columns), expected, check_exact=False, abs_tol=1e-12)
    assert_frame_equal(out, per_threshold(table, by="system", ties=ties), abs_tol=1e-12)


def check_identity_under(
    table: pl.DataFrame, by: list[str], ties: TiePolicy, out: pl.DataFrame
) -> None:
    """The µMAP columns equal the summary's under the tie policy ``ties``."""
    names = ["mu_ap", "mu_ap(levels=table)"]
    mu = table.graded.summary(names, by=by, ties=ties)
    got = out.unique(by, keep="first", maintain_order=True).join(mu, on=by)
    assert got["mu_map"].to_list() == got["mu_ap"].to_list()
    assert got["mu_map_table_levels"].to_numpy() == pytest.approx(
        got["mu_ap(levels=table)"].to_numpy(), abs=1e-12
    )
    contributed = out.group_by(by, maintain_order=True).agg(pl.col("contribution").sum())
    assert contributed["contribution"].to_numpy() == pytest.approx(
        got["mu_map"].to_numpy(), abs=1e-12
    )


def test_the_two_mu_maps_on_queries_with_different_label_sets() -> None:
    """Issue 14, item 14: by default per_threshold's µMAP is the summary's (each query's own
    levels); the table-levels µMAP is named for what it is.

    By hand: query 1 ranks labels [0, 2, 1]: AP^1 = (1/2 + 2/3) / 2 = 7/12, AP^2 = 1/2,
    µAP = (7/12 + 1/2) / 2 = 13/24. Query 2 ranks [1, 0]: AP^1 = 1, its only level, so
    µAP = 1, while on the table's levels {1, 2} its AP^2 = 0 gives 1/2. µMAP = 37/48,
    on the table's levels (13/24 + 1/2) / 2 = 25/48. Contributions: at 1, the mean of
    (1/2) 7/12 and 1 = 31/48; at 2, the mean of (1/2) 1/2 and 0 = 6/48.
    """
    df = pl.DataFrame(
        {
            "query": [1, 1, 1, 2, 2],
            "item": ["a", "b", "c", "a", "b"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
            "relevance": [0, 2, 1, 1, 0],
        }
    )
    out = per_threshold(df)
    assert out.columns == COLUMNS
    assert out["mu_map"].to_list() == pytest.approx([37 / 48] * 2, abs=1e-12)
    assert out["mu_map_table_levels"].to_list() == pytest.approx([25 / 48] * 2, abs=1e-12)
    assert out["contribution"].to_list() == pytest.approx([31 / 48, 6 / 48], abs=1e-12)
    assert out["map"].to_list() == pytest.approx([19 / 24, 1 / 4], abs=1e-12)
    assert out["mu_map"][0] == df.graded.summary(["mu_ap"])["mu_ap"][0]


def test_continuous_labels_take_one_pass_not_one_measure_per_threshold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 14, item 2: a threshold per distinct label, but never an AP measure (a pass over
    the rows) per threshold: the plan gets one measure, whatever the labels."""
    table = continuous_table(seed=10, n_queries=2, depth=600)
    seen: list[int] = []
    per_query = plan.per_query

    def recording(lf: pl.LazyFrame, measures: list[Any], cols: TableSpec) -> pl.LazyFrame:
        seen.append(len(measures))
        return per_query(lf, measures, cols)

    monkeypatch.setattr(plan, "per_query", recording)
    out = per_threshold(table, by="system", ties="average")
    monkeypatch.undo()
    assert out.height > 1000 and seen and max(seen) == 1
    # and the numbers hold at this size: a few thresholds against evaluate
    for row in out.gather_every(250).iter_rows(named=True):
        alone = table.filter(pl.col("system") == row["system"])
        name = str(pg.AP(rel=row["threshold"]))
        expected = alone.graded.evaluate([name], ties="average")[name].mean()
        assert row["map"] == pytest.approx(expected, abs=1e-12)


def test_sweeps_of_every_kind_give_the_same_breakdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rankings swept with Fenwick trees (the default at this depth) and with merged
    blocks (forced for every ranking of more than 4 rows) give the same breakdown."""
    table = continuous_table(seed=11)
    expected = per_threshold(table, by="system", ties="average")
    monkeypatch.setattr(mu_ap_sweep, "DEEP", 4)
    assert_frame_equal(per_threshold(table, by="system", ties="average"), expected, abs_tol=1e-12)


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
    # labels of another shape: levels {0.3, 1.0} weigh 0.3 and 0.7 (conventions.md §5)
    odd = table.with_columns(
        relevance=pl.col("relevance").replace_strict({0: 0.0, 1: 0.3, 2: 0.3, 3: 1.0, 4: 1.0})
    )
    odd_out = per_threshold(odd, by="system")
    assert odd_out["threshold"].to_list() == [0.3, 1.0] * 3
    assert odd_out["weight"].to_list() == pytest.approx([0.3, 0.7] * 3)


def check_identity(table: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """mu_map_table_levels = sum(weight * map) = the mean µAP(levels=table); mu_map = the
    summary's µMAP (mean µAP on each query's levels) = sum(contribution)."""
    out = per_threshold(table, by=by)
    if out.height == 0:  # no positive label: no threshold, and µMAP is 0
        mu = table.graded.summary(["mu_ap(levels=table)", "mu_ap"], by=by or None)
        assert (mu["mu_ap(levels=table)"] == 0).all() and (mu["mu_ap"] == 0).all()
        return out
    keys: list[str] | list[pl.Expr] = by or [pl.lit(0).alias("_all")]
    sums = out.group_by(keys).agg(
        pl.col("mu_map_table_levels", "mu_map").first(),
        pl.col("mu_map_table_levels", "mu_map").n_unique().name.prefix("n_"),
        (pl.col("weight") * pl.col("map")).sum().alias("weighted"),
        pl.col("weight").sum().alias("total"),
        pl.col("contribution").sum().alias("contributed"),
        ((pl.col("weight") > 0) & (pl.col("weight") <= 1)).all().alias("positive"),
    )
    assert (sums["n_mu_map_table_levels"] == 1).all() and (sums["n_mu_map"] == 1).all()
    assert sums["total"].to_numpy() == pytest.approx(np.ones(sums.height), abs=1e-12)
    assert sums["positive"].all()
    table_levels = sums["mu_map_table_levels"].to_numpy()
    assert table_levels == pytest.approx(sums["weighted"].to_numpy(), abs=1e-12)
    assert sums["mu_map"].to_numpy() == pytest.approx(sums["contributed"].to_numpy(), abs=1e-12)
    # the two columns are the library's µMAPs with the table's levels and the query's own
    names = ["mu_ap(levels=table)", "mu_ap"]
    mu = table.graded.summary(names, by=by or None)
    mu = mu.join(sums, on=by) if by else pl.concat([mu, sums], how="horizontal")
    assert mu[names[0]].to_numpy() == pytest.approx(mu["mu_map_table_levels"].to_numpy(), abs=1e-12)
    assert mu[names[1]].to_list() == mu["mu_map"].to_list()  # the same bits as the summary
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
    # scaling labels moves the thresholds, not MAP, weights, contributions or µMAP (conventions §6)
    s2_unscaled = per_threshold(graded_table(seed=2).filter(pl.col("system") == "s2"))
    columns = COLUMNS[1:]
    assert_frame_equal(s2.select(columns), s2_unscaled.select(columns), rel_tol=1e-12)


def test_two_by_columns() -> None:
    table = graded_table(seed=3).with_columns(half=pl.col("query") % 2)
    out = per_threshold(table, by=["system", "half"])
    assert out.columns == ["system", "half", *COLUMNS]
    assert out.height == 3 * 2 * 4
    check_identity(table, ["system", "half"])


def test_paper_table_1() -> None:
    # conventions.md §5: rel = [1, 0, 3, 3, 2, 0, 1, 4], items A..H in ranked order
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
    # one query: its own levels are the table's, so the two µMAPs and the shares agree
    assert out["mu_map"].to_list() == pytest.approx([0.448] * 4, abs=5e-4)
    assert out["mu_map_table_levels"].to_list() == pytest.approx(out["mu_map"].to_list())
    assert out["contribution"].to_list() == pytest.approx((out["weight"] * out["map"]).to_list())


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
    names: dict[str, Any] = {"query": "qid", "relevance": "label"}
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


@pytest.mark.parametrize("name", ["threshold", "weight", "map", "mu_map"])
def test_a_by_column_named_like_a_result_column_is_refused(name: str) -> None:
    # Was a raw Polars DuplicateError / SchemaError.
    table = graded_table(seed=7).rename({"system": name})
    with pytest.raises(pg.InvalidValueError, match=f"by= column '{name}'"):
        per_threshold(table, by=name)
    with pytest.raises(pg.InvalidValueError, match=f"by= column '{name}'"):
        per_threshold(table.lazy(), by=name)

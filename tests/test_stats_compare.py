"""compare(): paired tests, bootstrap intervals and Holm, against independent computations.

The references are computed here from scratch: scipy's ``ttest_rel`` one system at a time,
an exact enumeration of all sign flips, a loop implementation of Holm, and hand-filled
query matrices for the two ``missing`` policies.
"""

from __future__ import annotations

import itertools
import math
import sys
from typing import Any, cast

import numpy as np
import polars as pl
import pytest
import scipy.stats
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded.stats.compare import compare
from polars_graded.stats.corrections import holm
from polars_graded.stats.grid import (
    OUTPUT_COLUMNS,
    by_column,
    compared_queries,
    order_systems,
    query_grid,
)
from polars_graded.stats.options import MISSING_POLICIES, TESTS, MissingPolicy, Test

FAST: dict[str, Any] = {"trials": 2000, "bootstrap": 2000}


def per_query_table(
    n_systems: int = 4,
    n_queries: int = 30,
    *,
    measures: tuple[str, ...] = ("ap", "ndcg@10"),
    drop: float = 0.0,
    seed: int = 1,
) -> pl.DataFrame:
    """Per-query values in [0, 1] with a system effect; ``drop``: share of rows removed."""
    rng = np.random.default_rng(seed)
    query_effect = rng.random(n_queries)
    frames = []
    for s in range(n_systems):
        columns = {"system": [f"s{s}"] * n_queries, "query": np.arange(n_queries)}
        for m, name in enumerate(measures):
            noise = rng.normal(0, 0.15, n_queries)
            columns[name] = np.clip(query_effect + 0.04 * s * (m + 1) + noise, 0, 1)
        frames.append(pl.DataFrame(columns))
    frame = pl.concat(frames)
    if drop:
        frame = frame.filter(pl.Series(rng.random(frame.height) >= drop))
    return frame


def as_dicts(frame: pl.DataFrame, measure: str) -> dict[str, dict[int, float]]:
    """system -> {query: value}."""
    out: dict[str, dict[int, float]] = {}
    for row in frame.iter_rows(named=True):
        out.setdefault(row["system"], {})[row["query"]] = row[measure]
    return out


def row_of(out: pl.DataFrame, system: object, measure: str) -> dict[str, Any]:
    rows = out.filter((pl.col("system") == system) & (pl.col("measure") == measure))
    assert rows.height == 1
    return rows.row(0, named=True)


# --- t-test, means, counts -------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["zero", "common"])
def test_ttest_and_means_equal_scipy_one_system_at_a_time(missing: MissingPolicy) -> None:
    frame = per_query_table(5, 40, drop=0.1, seed=3)
    out = compare(frame, missing=missing, **FAST)
    for measure in ("ap", "ndcg@10"):
        values = as_dicts(frame, measure)
        union = sorted(set().union(*values.values()))
        common = sorted(set.intersection(*(set(v) for v in values.values())))
        compared = union if missing == "zero" else common
        base = [values["s0"].get(q, 0.0) for q in compared]
        for system, own in values.items():
            x = [own.get(q, 0.0) for q in compared]
            row = row_of(out, system, measure)
            assert row["n_queries"] == len(compared)
            assert row["n_missing"] == len(union) - len(own)
            assert row["mean"] == pytest.approx(np.mean(x), rel=1e-12)
            assert row["baseline_mean"] == pytest.approx(np.mean(base), rel=1e-12)
            assert row["diff"] == pytest.approx(np.mean(x) - np.mean(base), abs=1e-12)
            if system == "s0":
                assert row["t_stat"] is None and row["p_ttest"] is None
                continue
            expected = scipy.stats.ttest_rel(x, base)
            assert row["t_stat"] == pytest.approx(expected.statistic, rel=1e-9)
            assert row["p_ttest"] == pytest.approx(expected.pvalue, rel=1e-9)


def test_the_data_has_missing_queries_in_both_modes() -> None:
    # guards the test above: with drop=0.1 the modes really differ
    frame = per_query_table(5, 40, drop=0.1, seed=3)
    zero = compare(frame, missing="zero", **FAST)
    common = compare(frame, missing="common", **FAST)
    assert zero["n_missing"].sum() > 0
    assert common["n_queries"][0] < zero["n_queries"][0]
    assert (zero["n_missing"] == common["n_missing"]).all()


# --- randomization test ----------------------------------------------------------------------


def exact_sign_flip_p(d: np.ndarray) -> float:
    """Share of all 2^n sign vectors whose |sum| reaches the observed |sum| (slow, exact)."""
    observed = abs(d.sum())
    hits = 0
    total = 0
    for signs in itertools.product((1.0, -1.0), repeat=d.size):
        total += 1
        hits += abs(float(np.dot(signs, d))) >= observed - 1e-12
    return hits / total


def test_randomization_p_is_close_to_the_exact_enumeration() -> None:
    rng = np.random.default_rng(7)
    n = 10
    base = rng.random(n)
    systems = {"a": base}
    for name, shift in (("b", 0.05), ("c", 0.12), ("d", 0.0), ("e", 0.25)):
        systems[name] = base + shift + rng.normal(0, 0.2, n)
    frame = pl.DataFrame(
        {
            "system": [s for s in systems for _ in range(n)],
            "query": list(range(n)) * len(systems),
            "v": np.concatenate(list(systems.values())),
        }
    )
    trials = 200_000
    out = compare(frame, trials=trials, bootstrap=100)
    exact_values = []
    for name, values in systems.items():
        if name == "a":
            continue
        exact = exact_sign_flip_p(values - base)
        exact_values.append(exact)
        se = math.sqrt(exact * (1 - exact) / trials)
        assert abs(row_of(out, name, "v")["p_randomization"] - exact) <= 4 * se + 2 / trials
    # the cases span small and large p-values
    assert min(exact_values) < 0.1 < max(exact_values)


def test_randomization_p_convention_and_range() -> None:
    frame = per_query_table(3, 25)
    trials = 500
    out = compare(frame, trials=trials, bootstrap=10).filter(pl.col("system") != "s0")
    p = out["p_randomization"].to_numpy()
    assert ((p >= 1 / (trials + 1)) & (p <= 1)).all()
    # (1 + k) / (1 + trials): an integer k
    k = p * (trials + 1) - 1
    assert np.allclose(k, np.round(k))


# --- Holm ------------------------------------------------------------------------------------


def holm_loop(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_a_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.random(8) ** 3
    p[2] = p[5]  # a tie
    assert np.allclose(holm(p), holm_loop(list(p)), rtol=0, atol=1e-15)
    both = np.stack([p, p[::-1]])
    assert np.allclose(holm(both)[1], holm_loop(list(p[::-1])), rtol=0, atol=1e-15)


def test_holm_columns_of_compare() -> None:
    frame = per_query_table(7, 30, seed=11)
    out = compare(frame, **FAST).filter(pl.col("system") != "s0")
    for measure in ("ap", "ndcg@10"):
        rows = out.filter(pl.col("measure") == measure)
        for test in ("p_ttest", "p_randomization"):
            p = rows[test].to_list()
            adjusted = rows[f"{test}_holm"].to_list()
            assert adjusted == pytest.approx(holm_loop(p), abs=1e-15)
            assert all(a >= b for a, b in zip(adjusted, p, strict=True))
            # monotone in the order of the raw p-values
            ordered = [a for _, a in sorted(zip(p, adjusted, strict=True))]
            assert ordered == sorted(ordered)
        alpha = 0.05
        assert rows["significant"].to_list() == [
            p < alpha for p in rows["p_randomization_holm"].to_list()
        ]


def test_significant_follows_alpha() -> None:
    frame = per_query_table(4, 200, seed=2)
    strict = compare(frame, alpha=1e-9, **FAST)
    loose = compare(frame, alpha=0.999, **FAST)
    assert not strict["significant"].any()
    assert loose.filter(pl.col("system") != "s0")["significant"].all()
    assert not loose.filter(pl.col("system") == "s0")["significant"].any()


# --- bootstrap -------------------------------------------------------------------------------


def test_intervals_contain_the_means() -> None:
    out = compare(per_query_table(5, 60), **FAST)
    assert (out["ci_low"] <= out["mean"]).all()
    assert (out["mean"] <= out["ci_high"]).all()
    assert (out["diff_ci_low"] <= out["diff"]).all()
    assert (out["diff"] <= out["diff_ci_high"]).all()
    assert (out["ci_low"] < out["ci_high"]).all()


def test_intervals_shrink_with_more_queries() -> None:
    small = compare(per_query_table(3, 40, seed=5), **FAST)
    large = compare(per_query_table(3, 4000, seed=5), **FAST)
    for a, b in (("ci_low", "ci_high"), ("diff_ci_low", "diff_ci_high")):
        rows = small["system"] != "s0" if a == "diff_ci_low" else pl.Series([True] * small.height)
        width_small = (small[b] - small[a]).filter(rows)
        width_large = (large[b] - large[a]).filter(rows)
        # 100x the queries: about a tenth of the width
        assert (width_large < width_small / 4).all()


def test_interval_is_close_to_the_normal_approximation() -> None:
    # many queries: the percentile interval of a mean is about mean +- z * sd / sqrt(n)
    frame = per_query_table(2, 3000, measures=("ap",), seed=9)
    out = compare(frame, bootstrap=20_000, trials=10)
    z = scipy.stats.norm.ppf(0.975)
    for system in ("s0", "s1"):
        x = frame.filter(pl.col("system") == system)["ap"].to_numpy()
        se = x.std() / math.sqrt(x.size)
        row = row_of(out, system, "ap")
        assert row["ci_low"] == pytest.approx(x.mean() - z * se, abs=0.1 * se)
        assert row["ci_high"] == pytest.approx(x.mean() + z * se, abs=0.1 * se)


def test_confidence_widens_the_interval() -> None:
    frame = per_query_table(3, 80)
    narrow = compare(frame, confidence=0.5, **FAST)
    wide = compare(frame, confidence=0.99, **FAST)
    assert (narrow["ci_high"] - narrow["ci_low"] < wide["ci_high"] - wide["ci_low"]).all()


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    frame = per_query_table(4, 50)
    first = compare(frame, seed=3, **FAST)
    assert_frame_equal(first, compare(frame, seed=3, **FAST))
    other = compare(frame, seed=4, **FAST)
    assert_frame_equal(
        first.select("mean", "diff", "p_ttest"), other.select("mean", "diff", "p_ttest")
    )
    assert (first["ci_low"] != other["ci_low"]).any()
    assert (first["diff_ci_high"] != other["diff_ci_high"]).filter(first["system"] != "s0").any()
    assert (first["p_randomization"] != other["p_randomization"]).any()


def test_the_row_order_of_the_input_does_not_matter() -> None:
    frame = per_query_table(4, 50, drop=0.05)
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=0)
    assert_frame_equal(compare(frame, **FAST), compare(shuffled, **FAST))


# --- missing queries -------------------------------------------------------------------------


def missing_table() -> pl.DataFrame:
    frame = per_query_table(3, 20, seed=4)
    lacks = {"s1": [3, 7], "s2": [5]}
    for system, queries in lacks.items():
        frame = frame.filter(~((pl.col("system") == system) & pl.col("query").is_in(queries)))
    return frame


def test_zero_mode_equals_zero_filling_by_hand() -> None:
    frame = missing_table()
    filled = (
        frame.select("system")
        .unique()
        .join(frame.select("query").unique(), how="cross")
        .join(frame, on=["system", "query"], how="left")
        .with_columns(pl.col("ap", "ndcg@10").fill_null(0.0))
    )
    assert filled.height == 60
    out = compare(frame, missing="zero", **FAST)
    by_hand = compare(filled, missing="zero", **FAST)
    assert out["n_missing"].to_list() == [0, 2, 1] * 2
    assert out["n_queries"].to_list() == [20] * 6
    assert_frame_equal(out.drop("n_missing"), by_hand.drop("n_missing"))


def test_common_mode_equals_keeping_the_shared_queries() -> None:
    frame = missing_table()
    shared = frame.filter(~pl.col("query").is_in([3, 5, 7]))
    out = compare(frame, missing="common", **FAST)
    by_hand = compare(shared, missing="common", **FAST)
    assert out["n_missing"].to_list() == [0, 2, 1] * 2
    assert out["n_queries"].to_list() == [17] * 6
    assert_frame_equal(out.drop("n_missing"), by_hand.drop("n_missing"))


# --- identical systems -----------------------------------------------------------------------


def test_identical_systems_differ_by_zero_with_p_one() -> None:
    one = per_query_table(1, 30)
    frame = pl.concat(
        [
            one,
            one.with_columns(system=pl.lit("twin")),
            per_query_table(2, 30, seed=8).filter(pl.col("system") == "s1"),
        ]
    )
    out = compare(frame, baseline="s0", **FAST)
    twin = out.filter(pl.col("system") == "twin")
    assert twin.height == 2
    for column in ("diff", "diff_ci_low", "diff_ci_high", "t_stat"):
        assert twin[column].to_list() == [0.0, 0.0], column
    for column in ("p_ttest", "p_randomization", "p_ttest_holm", "p_randomization_holm"):
        assert twin[column].to_list() == [1.0, 1.0], column
    assert twin["significant"].to_list() == [False, False]
    baseline = out.filter(pl.col("system") == "s0")
    assert_frame_equal(
        twin.select("mean", "ci_low", "ci_high"), baseline.select("mean", "ci_low", "ci_high")
    )


# --- output shape ----------------------------------------------------------------------------


def test_columns_dtypes_and_order() -> None:
    frame = per_query_table(4, 20).with_columns(system=pl.col("system").str.slice(1).cast(pl.Int16))
    out = compare(frame, ["ndcg@10", "ap"], baseline=2, **FAST)
    assert out.columns == list(OUTPUT_COLUMNS)
    expected = {
        "system": pl.Int16,
        "measure": pl.String,
        "n_queries": pl.Int64,
        "n_missing": pl.Int64,
        "significant": pl.Boolean,
    }
    for name, dtype in out.schema.items():
        assert dtype == expected.get(name, pl.Float64), name
    assert out["measure"].to_list() == ["ndcg@10"] * 4 + ["ap"] * 4
    assert out["system"].to_list() == [2, 0, 1, 3] * 2
    baseline = out.filter(pl.col("system") == 2)
    assert (baseline["diff"] == 0.0).all()
    assert (baseline["diff_ci_low"] == 0.0).all() and (baseline["diff_ci_high"] == 0.0).all()
    assert (baseline["baseline_mean"] == baseline["mean"]).all()
    for column in ("t_stat", "p_ttest", "p_randomization", "p_ttest_holm", "p_randomization_holm"):
        assert baseline[column].null_count() == 2, column
    assert not baseline["significant"].any()
    others = out.filter(pl.col("system") != 2)
    assert others.select(pl.all().null_count()).sum_horizontal().item() == 0


def test_default_measures_baseline_and_custom_key_names() -> None:
    frame = per_query_table(3, 20).rename({"system": "run", "query": "topic"})
    out = compare(frame, by="run", query="topic", **FAST)
    assert out.columns[0] == "run"
    assert out["measure"].unique(maintain_order=True).to_list() == ["ap", "ndcg@10"]
    assert out["run"].to_list()[:3] == ["s0", "s1", "s2"]
    lazy = compare(frame.lazy(), by="run", query="topic", **FAST)
    assert_frame_equal(out, lazy)


def test_few_queries() -> None:
    frame = per_query_table(3, 1)
    out = compare(frame, **FAST).filter(pl.col("system") != "s0")
    # one query: the t-test is undefined (null); every flip ties (p = 1)
    assert out["p_ttest"].null_count() == out.height
    assert (out["p_randomization"] == 1.0).all()


# --- the system column, the baseline, the compared queries -------------------------------------


def test_system_is_a_deprecated_alias_of_by() -> None:
    frame = per_query_table(3, 20).rename({"system": "run"})
    expected = compare(frame, by="run", **FAST)
    with pytest.warns(DeprecationWarning, match="system= is deprecated") as caught:
        old = compare(frame, system="run", **FAST)
    assert caught[0].filename == __file__  # the warning points at the caller
    assert_frame_equal(old, expected, check_exact=True)
    assert old.columns[0] == "run"  # the system column keeps its name
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="column once"):
        compare(frame, by="run", system="team", **FAST)
    assert by_column(["run"]) == "run"
    for by in (["run", "team"], []):
        with pytest.raises(pg.InvalidValueError, match="exactly one system column"):
            compare(frame, by=by, **FAST)


def test_order_systems_puts_the_baseline_first() -> None:
    systems = pl.Series("run", ["b", "c", "a", "c"])
    assert order_systems(systems).to_list() == ["a", "b", "c"]
    assert order_systems(systems, "c").to_list() == ["c", "a", "b"]
    with pytest.raises(pg.InvalidValueError, match="baseline 'z' is not a system of column 'run'"):
        order_systems(systems, "z")


def test_compared_queries_and_the_grid_follow_the_missing_policy() -> None:
    """The one definition of the missing-query policy: compare's counts and means agree with
    the grid the report averages over."""
    frame = per_query_table(4, 30, drop=0.2, seed=9)
    assert MISSING_POLICIES == ("zero", "common")
    for missing in MISSING_POLICIES:
        queries = compared_queries(frame, missing)
        out = compare(frame, ["ap"], missing=missing, **FAST)
        assert (out["n_queries"] == queries.len()).all()
        systems = ["s0", "s1", "s2", "s3"]
        grid = query_grid(frame.select("system", "query", "ap"), systems, missing)
        assert grid.height == 4 * queries.len()
        assert grid.null_count().sum_horizontal().item() == 0
        means = grid.group_by("system").agg(pl.col("ap").mean()).sort("system")
        assert out.sort("system")["mean"].to_list() == pytest.approx(means["ap"].to_list())
    every = frame.get_column("query").unique().sort()
    assert compared_queries(frame).to_list() == every.to_list()
    counts = frame.group_by("query").len().filter(pl.col("len") == 4)["query"].sort()
    assert compared_queries(frame, "common").to_list() == counts.to_list()


# --- errors ----------------------------------------------------------------------------------


KEYS: dict[str, Any] = {"by": "run_x7", "query": "topic_x7"}


def bad_input() -> pl.DataFrame:
    return per_query_table(3, 5, measures=("ndcg_x7",)).rename(
        {"system": "run_x7", "query": "topic_x7"}
    )


def raises(error: type[Exception], frame: pl.DataFrame, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(error) as info:
        compare(frame, *args, **{**KEYS, **FAST, **kwargs})
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


@pytest.mark.parametrize("key", ["run_x7", "topic_x7"])
def test_missing_key_column(key: str) -> None:
    message = raises(pg.MissingColumnError, bad_input().drop(key))
    assert repr(key) in message


def test_missing_measure_column() -> None:
    message = raises(pg.MissingColumnError, bad_input(), ["ndcg_x7", "ap_y3"])
    assert "'ap_y3'" in message


def test_non_numeric_measure() -> None:
    frame = bad_input().with_columns(pl.col("ndcg_x7").cast(pl.String))
    message = raises(pg.ColumnTypeError, frame)
    assert "'ndcg_x7'" in message and "numeric" in message and "run_x7=" in message


def test_duplicate_system_query() -> None:
    frame = bad_input()
    message = raises(pg.DuplicateKeyError, pl.concat([frame, frame.slice(6, 1)]))
    assert "'run_x7'" in message and "'topic_x7'" in message
    assert "run_x7='s1'" in message and "topic_x7=1" in message


def test_unknown_baseline_lists_the_systems() -> None:
    message = raises(pg.InvalidValueError, bad_input(), baseline="s9")
    assert "'s9'" in message and "'run_x7'" in message
    assert "['s0', 's1', 's2']" in message


def test_one_system_is_not_a_comparison() -> None:
    message = raises(pg.InvalidValueError, bad_input().filter(pl.col("run_x7") == "s1"))
    assert "'run_x7'" in message and "at least 2" in message


@pytest.mark.parametrize("bad", [None, float("nan"), float("inf")])
def test_bad_values(bad: float | None) -> None:
    frame = bad_input().with_columns(
        ndcg_x7=pl.when((pl.col("run_x7") == "s2") & (pl.col("topic_x7") == 3))
        .then(pl.lit(bad, pl.Float64))
        .otherwise(pl.col("ndcg_x7"))
    )
    message = raises(pg.InvalidValueError, frame)
    assert "'ndcg_x7'" in message and "run_x7='s2'" in message and "topic_x7=3" in message


@pytest.mark.parametrize("key", ["run_x7", "topic_x7"])
def test_null_keys(key: str) -> None:
    frame = bad_input().with_columns(
        pl.when(pl.int_range(pl.len()) == 4).then(None).otherwise(pl.col(key)).alias(key)
    )
    message = raises(pg.InvalidValueError, frame)
    assert repr(key) in message and "null" in message


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("trials", 0),
        ("bootstrap", 0),
        ("trials", 1.5),
        ("confidence", 0.0),
        ("confidence", 1.0),
        ("confidence", 95),
        ("alpha", 0.0),
        ("alpha", 1.2),
        ("missing", "drop"),
    ],
)
def test_bad_options(option: str, value: object) -> None:
    message = raises(pg.InvalidValueError, bad_input(), **{option: value})
    assert option in message and repr(value) in message


def test_no_common_query() -> None:
    frame = bad_input().with_columns(
        topic_x7=pl.col("topic_x7") + 100 * pl.col("run_x7").str.slice(1).cast(pl.Int64)
    )
    raises(pg.InvalidValueError, frame, missing="common")
    assert compare(frame, missing="zero", **KEYS, **FAST)["n_missing"].to_list() == [10] * 3


def test_measure_that_is_a_key_or_repeated() -> None:
    raises(pg.InvalidValueError, bad_input(), ["ndcg_x7", "ndcg_x7"])
    raises(pg.InvalidValueError, bad_input(), ["topic_x7"])
    raises(pg.InvalidValueError, bad_input().select("run_x7", "topic_x7"))


def test_system_column_named_like_a_result_column() -> None:
    frame = bad_input().rename({"run_x7": "diff"})
    message = raises(pg.InvalidValueError, frame, by="diff")
    assert "'diff'" in message


def test_scipy_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(ImportError, match=r'pip install "polars-graded\[stats\]"'):
        compare(bad_input(), **KEYS, **FAST)


# --- namespace -------------------------------------------------------------------------------


def long_table() -> pl.DataFrame:
    rng = np.random.default_rng(12)
    n_queries, depth = 25, 12
    judgments = rng.integers(0, 4, n_queries * depth)
    frames = []
    for s in range(3):
        frames.append(
            pl.DataFrame(
                {
                    "run": f"r{s}",
                    "qid": np.repeat(np.arange(n_queries), depth),
                    "doc": np.tile(np.arange(depth), n_queries),
                    "sim": judgments * s + rng.random(n_queries * depth) * 3,
                    "label": judgments,
                }
            )
        )
    return pl.concat(frames)


NAMES: dict[str, Any] = {"query": "qid", "item": "doc", "score": "sim", "relevance": "label"}


def test_namespace_equals_evaluate_then_compare() -> None:
    table = long_table()
    measures: list[pg.Measure | str] = ["mu_ap", pg.NDCG @ 5, "ap(rel=2)"]
    options: dict[str, Any] = {
        "baseline": "r1",
        "missing": "common",
        "seed": 5,
        "confidence": 0.9,
        **FAST,
    }
    out = table.graded.compare(measures, by="run", **options, **NAMES)
    per_query = table.graded.evaluate(measures, by="run", **NAMES)
    expected = compare(per_query, by="run", query="qid", **options)
    assert_frame_equal(out, expected)
    assert out["measure"].unique(maintain_order=True).to_list() == ["mu_ap", "ndcg@5", "ap(rel=2)"]
    lazy = table.lazy().graded.compare(measures, by=["run"], **options, **NAMES)
    assert isinstance(lazy, pl.DataFrame)
    assert_frame_equal(out, lazy)


def test_namespace_needs_one_system_column() -> None:
    table = long_table().with_columns(team=pl.lit("t"))
    for by in (["run", "team"], []):
        with pytest.raises(pg.InvalidValueError, match="exactly one"):
            table.graded.compare(["ap"], by=by, **NAMES)


def test_top_level_export() -> None:
    assert pg.compare is compare


# --- test=, the Wilcoxon signed-rank test and the effect sizes (issue 28, items 8 and 9) -----


@pytest.mark.parametrize("missing", ["zero", "common"])
def test_wilcoxon_and_effect_sizes_equal_scipy_and_numpy(missing: MissingPolicy) -> None:
    # Values on a grid of 0.1 (zeros and ties in the differences, as with P@10), 60 queries:
    # scipy's normal approximation; the queries a system lacks follow ``missing``.
    frame = per_query_table(4, 60, drop=0.08, seed=11).with_columns(pl.col("ap").round(1))
    out = compare(frame, ["ap"], missing=missing, trials=200, bootstrap=200)
    values = as_dicts(frame, "ap")
    union = sorted(set().union(*values.values()))
    common = sorted(set.intersection(*(set(v) for v in values.values())))
    compared = union if missing == "zero" else common
    base = np.array([values["s0"].get(q, 0.0) for q in compared])
    for system, own in values.items():
        x = np.array([own.get(q, 0.0) for q in compared])
        row = row_of(out, system, "ap")
        assert row["change_pct"] == pytest.approx(100 * (x.mean() / base.mean() - 1), rel=1e-12)
        if system == "s0":
            assert row["p_wilcoxon"] is None and row["d_z"] is None
            continue
        d = x - base
        assert (d == 0).any()  # the zeros scipy drops are there
        assert row["p_wilcoxon"] == pytest.approx(scipy.stats.wilcoxon(x, base).pvalue, rel=1e-12)
        assert row["d_z"] == pytest.approx(d.mean() / np.std(d, ddof=1), rel=1e-12)


def test_wilcoxon_on_few_queries_is_scipys_exact_p() -> None:
    frame = per_query_table(3, 9, seed=2)
    out = compare(frame, ["ap"], trials=200, bootstrap=200)
    values = as_dicts(frame, "ap")
    base = np.array(list(values["s0"].values()))
    for system in ("s1", "s2"):
        x = np.array(list(values[system].values()))
        assert row_of(out, system, "ap")["p_wilcoxon"] == scipy.stats.wilcoxon(x, base).pvalue


def test_test_chooses_the_p_value_that_decides_significant() -> None:
    # A few large losses among many small wins: the mean barely moves (t-test, randomization)
    # while the signed ranks lean one way (Wilcoxon).
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.6, 40)
    better = base + np.where(np.arange(40) < 36, 0.02, -0.17) + rng.normal(0, 0.002, 40)
    frame = pl.DataFrame(
        {"system": ["a"] * 40 + ["b"] * 40, "query": list(range(40)) * 2, "ap": [*base, *better]}
    )
    chosen = {t: compare(frame, test=cast(Test, t), trials=500, bootstrap=50) for t in TESTS}
    for t, out in chosen.items():
        column = {"randomization": "p_randomization_holm", "t": "p_ttest_holm"}.get(
            t, "p_wilcoxon_holm"
        )
        assert out["significant"].to_list() == [False, out[column][1] < 0.05]
        others = out.drop("significant")
        assert_frame_equal(others, chosen["randomization"].drop("significant"))
    assert chosen["wilcoxon"]["significant"][1]
    assert not chosen["randomization"]["significant"][1]
    assert not chosen["t"]["significant"][1]


def test_a_bad_test_is_refused_with_the_choices() -> None:
    with pytest.raises(pg.InvalidValueError, match="'randomization', 't' or 'wilcoxon', got 'T'"):
        compare(per_query_table(2, 5), test="T")  # type: ignore[arg-type]


def test_identical_systems_have_no_effect_size_and_p_one() -> None:
    frame = per_query_table(2, 12).with_columns(
        pl.when(pl.col("system") == "s1").then(pl.col("ap").shift(12)).otherwise("ap").alias("ap")
    )
    out = compare(frame, ["ap"], trials=100, bootstrap=100)
    row = row_of(out, "s1", "ap")
    assert (row["p_wilcoxon"], row["d_z"], row["change_pct"]) == (1.0, None, 0.0)

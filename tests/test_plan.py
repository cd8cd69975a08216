"""The evaluation plan (polars_graded/plan.py): output names, the net that lets no NaN or
infinite value out, the warning for a threshold above every label of the table, and
trec_eval's geometric mean (``mean="geometric"``, its gm_map)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from conftest import make_random_table
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded import plan
from polars_graded.options import TableSpec
from polars_graded.ranking import sort_ranked


def table(labels: list[float] | None = None) -> pl.DataFrame:
    labels = labels if labels is not None else [0, 2, 1, 1, 0, 3]
    return pl.DataFrame(
        {
            "system": ["x", "x", "x", "y", "y", "y"],
            "query": [1, 1, 2, 1, 1, 2],
            "item": ["a", "b", "c", "d", "e", "f"],
            "score": [2.0, 1.0, 1.0, 1.0, 2.0, 1.0],
            "relevance": pl.Series(labels, dtype=pl.Float64),
        }
    )


def graded_warnings(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, pg.GradedWarning)]


# --------------------------------------------------------------------------- output names


def test_a_mapping_names_the_outputs_in_its_order() -> None:
    df = table()
    named = df.graded.evaluate(
        {"rbp80": "rbp(p=0.8,rel=1)@5", "z": pg.NDCG @ 10, "a": "mu_ap"}, by="system"
    )
    plain = df.graded.evaluate(["rbp(p=0.8,rel=1)@5", "ndcg@10", "mu_ap"], by="system")
    assert named.columns == ["system", "query", "rbp80", "z", "a"]
    assert plain.columns == ["system", "query", "rbp@5", "ndcg@10", "mu_ap"]
    assert (
        named.select("rbp80", "z", "a").rows() == plain.select(pl.exclude("system", "query")).rows()
    )


def test_output_names_may_swap_measure_names() -> None:
    df = table()
    swapped = df.graded.evaluate({"ap": "ndcg", "ndcg": "ap"}, by="system")
    plain = df.graded.evaluate(["ap", "ndcg"], by="system")
    assert swapped["ap"].to_list() == plain["ndcg"].to_list()
    assert swapped["ndcg"].to_list() == plain["ap"].to_list()


def test_summary_and_lazy_frames_take_a_mapping() -> None:
    df = table()
    names = {"first": "rr", "µ": "mu_ap"}
    summary = df.graded.summary(names, by="system")
    assert summary.columns == ["system", "num_q", "first", "µ"]
    lazy = df.lazy().graded.summary(names, by="system").collect()
    assert lazy.equals(summary)
    plain = df.graded.summary(["rr", "mu_ap"], by="system")
    assert summary["first"].to_list() == plain["rr"].to_list()
    geometric = df.graded.summary(names, mean="geometric")
    assert geometric.columns == ["num_q", "gm_first", "gm_µ"]


def test_per_query_takes_a_mapping() -> None:
    cols = TableSpec(by=("system",))
    out = plan.per_query(table().lazy(), {"p5": "p@5", "mrr": pg.RR}, cols).collect()
    assert out.columns == ["system", "query", "p5", "mrr"]


@pytest.mark.parametrize(("name", "by"), [("query", None), ("system", "system")])
def test_an_output_name_that_is_a_key_column_is_an_error(name: str, by: str | None) -> None:
    with pytest.raises(pg.InvalidValueError, match=f"output name '{name}'.*key column"):
        table().graded.evaluate({name: "ap"}, by=by)


def test_a_canonical_name_that_is_a_key_column_is_an_error() -> None:
    # Before, Polars raised its own duplicate-column error at collect time.
    df = table().rename({"system": "ap"})
    with pytest.raises(pg.InvalidValueError, match="key column"):
        df.lazy().graded.evaluate(["ap"], by="ap")


def test_the_query_count_name_is_refused_in_a_summary() -> None:
    with pytest.raises(pg.InvalidValueError, match="num_q"):
        table().graded.summary({"num_q": "ap"})
    # a key column of that name: Polars' duplicate-column error before
    with pytest.raises(pg.InvalidValueError, match="by= column 'num_q'"):
        table().rename({"system": "num_q"}).lazy().graded.summary(["ap"], by="num_q").collect()


def test_compare_takes_a_mapping() -> None:
    out = table().graded.compare({"average precision": "ap"}, trials=10, bootstrap=10)
    assert out["measure"].unique().to_list() == ["average precision"]


# --------------------------------------------------------------------------- no NaN, no inf


def test_a_sum_beyond_float64_is_an_error_naming_measure_key_and_cause() -> None:
    # Linear gains of 1.5e308 add up to inf; NDCG is then inf / inf = NaN. Both used to leave
    # the library as numbers.
    df = table([0, 1.5e308, 1, 1.5e308, 1.5e308, 5])
    for measures in (["dcg(gain=linear)"], {"lin": "ndcg(gain=linear)"}):
        with pytest.raises(pg.InvalidValueError) as info:
            df.graded.evaluate(measures, by="system")
        message = str(info.value)
        assert "system='y', query=1" in message
        assert "1 query" in message
        assert "likely cause" in message
        assert "float64" in message
    with pytest.raises(pg.InvalidValueError, match=r"'lin' \(ndcg\(gain=linear\)\) is nan"):
        df.lazy().graded.summary({"lin": "ndcg(gain=linear)"}, by="system").collect()


def test_finite_values_pass_the_net() -> None:
    df = table([0, 1e300, 1, 1, 1e300, 5])
    out = df.graded.evaluate(["dcg(gain=linear)", "ndcg(gain=linear)", "ndcg", "mu_ap"])
    assert all(math.isfinite(v) for row in out.drop("query").rows() for v in row)


# --------------------------------------------------------------------------- the warning

THRESHOLDED = ["ap", "p@5", "recall", "r_precision", "rr", "success@1", "bpref", "rbp"]


def test_a_threshold_above_every_label_warns_once_naming_measures_and_the_largest_label():
    df = table([0, 0.9, 0.5, 0.25, 0, 0.75])  # labels in [0, 1), default rel=1
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = df.graded.evaluate([*THRESHOLDED, "mu_ap(levels=[1,2])", "ndcg", "mu_ap"])
    messages = graded_warnings(record)
    assert len(messages) == 1
    for name in [*THRESHOLDED, "mu_ap(levels=[1,2])"]:
        assert name in messages[0]
    assert "ndcg" not in messages[0]
    assert "largest is 0.9" in messages[0]
    assert (out.select(THRESHOLDED) == 0).to_numpy().all()


def test_the_warning_of_a_lazy_frame_comes_at_collect_time() -> None:
    df = table([0, 0.9, 0.5, 0.25, 0, 0.75])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        lazy = df.lazy().graded.summary(["ap", "ndcg"], by="system")
        assert graded_warnings(record) == []
        lazy.collect()
    messages = graded_warnings(record)
    assert len(messages) == 1
    assert messages[0].startswith("ap:")


@pytest.mark.parametrize(
    ("labels", "measures"),
    [
        ([0, 0.9, 0.5, 0.25, 0, 0.75], ["ap(rel=0.5)", "ndcg", "mu_ap", "mu_ap(levels=table)"]),
        ([0, 2, 1, 1, 0, 3], ["ap(rel=3)", "p(rel=2)@5", "mu_ap(levels=[1,3])"]),
        ([0, 0, 0, 0, 0, 0], ["ap", "rr"]),  # no positive label: every measure is 0 anyway
        ([None] * 6, ["ap"]),  # nothing judged
    ],
)
def test_no_warning_when_a_threshold_is_reached(labels: list, measures: list[str]) -> None:
    df = table(labels)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        df.graded.evaluate(measures)
        df.clear().graded.evaluate(measures)  # an empty table
    assert graded_warnings(record) == []


def test_the_warning_can_be_left_to_the_caller() -> None:
    # A caller evaluating a table in parts collects each part's largest label, warns once.
    cols = TableSpec()
    df = table([0, 0.9, 0.5, 0.25, 0, 0.75])
    largest: list[float | None] = []
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for part in (df.head(2), df.tail(4), df.clear()):
            plan.per_query(part.lazy(), ["ap"], cols, warn=largest.append).collect()
        plan.per_query(df.lazy(), ["ap"], cols, warn=False).collect()
        assert graded_warnings(record) == []
        assert largest == [0.9, 0.75, None]
        plan.warn_unreachable_thresholds([pg.AP, pg.NDCG, pg.P(rel=0.5)], 0.9)
    messages = graded_warnings(record)
    assert len(messages) == 1
    assert messages[0].startswith("ap:")


# --------------------------------------------------------------------------- exact quotients


@pytest.mark.parametrize("measure", ["p@10", "mu_ap(levels=[1,3])"])
def test_a_query_gets_the_same_bits_whatever_queries_it_is_evaluated_with(measure: str) -> None:
    # Polars divides a column by a scalar as a multiplication by its inverse and a single
    # value by a plain division: P@10 of 6 hits was 0.6000000000000001 beside another query
    # and 0.6 alone, so a partition holding one query differed from the in-memory path.
    hits = {1: 6, 2: 3, 3: 7}
    df = pl.DataFrame(
        {
            "query": [q for q in hits for _ in range(10)],
            "item": [f"d{i}" for i in range(30)],
            "score": [float(30 - i) for i in range(30)],
            "relevance": [1 if i < hits[q] else 0 for q in hits for i in range(10)],
        }
    )
    together = df.graded.evaluate([measure])
    for q in hits:
        alone = df.filter(pl.col("query") == q).graded.evaluate([measure])
        assert alone.row(0) == together.filter(pl.col("query") == q).row(0)
    if measure == "p@10":  # trec_eval's quotient: hits / 10, exactly
        assert together[measure].to_list() == [h / 10 for h in hits.values()]


# --------------------------------------------------------------------------- geometric mean


def test_geometric_mean_is_trec_evals() -> None:
    df = pl.DataFrame(
        {
            "system": ["a"] * 6,
            "query": [1, 1, 2, 2, 3, 3],
            "item": ["x", "y"] * 3,
            "score": [2.0, 1.0] * 3,
            "relevance": [0, 1, 1, 0, 0, 0],
        }
    )
    per_query = df.graded.evaluate(["ap", "bpref"], by="system")
    got = df.graded.summary(["ap", "bpref"], by="system", mean="geometric")
    for name in ("ap", "bpref"):
        values = np.maximum(per_query[name].to_numpy(), 1e-5)
        assert got[f"gm_{name}"].item() == pytest.approx(math.exp(np.log(values).mean()))
    assert got["num_q"].item() == 3
    lazy = df.lazy().graded.summary(["ap"], mean="geometric").collect()
    assert lazy.columns == ["num_q", "gm_ap"]


def test_bad_mean() -> None:
    df = pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(pg.InvalidValueError, match="mean"):
        df.graded.summary(["ap"], mean="harmonic")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- judged_only, depth

CUT_MEASURES = ["ap", "ndcg@5", "p@3", "bpref", "rr", "recall", "mu_ap", "err@5", "judged@3"]


def ranked_position(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``df`` with ``pos``, each retrieved row's place in its ranking (null if unretrieved)."""
    spec = TableSpec.of({"by": keys[:-1]})
    ranked = sort_ranked(df.lazy(), spec).collect()
    retrieved = pl.col("score").is_not_null()
    pos = pl.when(retrieved).then(retrieved.cum_sum().over(keys))
    return ranked.with_columns(pos.alias("pos"))


@pytest.mark.parametrize("seed", range(4))
def test_depth_is_the_ranking_cut_after_n_rows(seed: int) -> None:
    """depth=N: the rows below the N-th retrieved row become unretrieved (null score)."""
    df = make_random_table(seed, systems=2)
    keys = ["system", "query"]
    cut = ranked_position(df, keys).with_columns(
        pl.when(pl.col("pos") <= 3).then(pl.col("score")).alias("score")
    )
    ours = pg.evaluate(df, CUT_MEASURES, by="system", depth=3)
    assert_frame_equal(ours, pg.evaluate(cut.drop("pos"), CUT_MEASURES, by="system"))


@pytest.mark.parametrize("seed", range(4))
def test_judged_only_drops_the_unjudged_rows(seed: int) -> None:
    df = make_random_table(seed, systems=2)
    judged = df.filter(pl.col("relevance").is_not_null())
    ours = pg.evaluate(df, CUT_MEASURES, by="system", judged_only=True)
    expected = pg.evaluate(judged, CUT_MEASURES, by="system")
    # a query left without rows is still there, every value 0
    ours_kept = ours.join(expected.select("system", "query"), on=["system", "query"])
    assert_frame_equal(ours_kept, expected)
    gone = ours.join(expected, on=["system", "query"], how="anti")
    assert (gone.select(CUT_MEASURES).to_numpy() == 0).all()


def test_depth_cuts_before_judged_only_drops_as_trec_eval() -> None:
    """trec_eval -M1 -J: the first row is unjudged, so nothing judged is left in the top 1."""
    df = pl.DataFrame(
        {"query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0], "relevance": [None, 1]}
    )
    both = pg.evaluate(df, ["num_ret", "p@1", "recall"], depth=1, judged_only=True)
    assert both.row(0) == (1, 0, 0.0, 0.0)
    only_judged = pg.evaluate(df, ["num_ret", "p@1", "recall"], judged_only=True)
    assert only_judged.row(0) == (1, 1, 1.0, 1.0)


def test_a_query_without_judged_rows_stays_with_zeros() -> None:
    df = pl.DataFrame(
        {"query": [1, 2], "item": ["a", "b"], "score": [2.0, 1.0], "relevance": [1, None]}
    )
    out = pg.evaluate(df, ["ap", "num_ret", "mu_ap"], judged_only=True)
    assert out.rows() == [(1, 1.0, 1, 1.0), (2, 0.0, 0, 0.0)]


@pytest.mark.parametrize("ranked", [False, True])
def test_cuts_are_the_same_on_every_path(tmp_path: Path, ranked: bool) -> None:
    df = make_random_table(7, systems=2)
    if ranked:
        df = sort_ranked(df.lazy(), TableSpec.of({"by": "system"})).collect()
    options: dict[str, Any] = {"by": "system", "depth": 4, "judged_only": True, "ranked": ranked}
    eager = pg.evaluate(df, CUT_MEASURES, **options)
    assert_frame_equal(pg.evaluate(df.lazy(), CUT_MEASURES, **options).collect(), eager)
    path = tmp_path / "table.parquet"
    df.write_parquet(path)
    assert_frame_equal(pg.evaluate_parquet(path, CUT_MEASURES, partitions=3, **options), eager)
    assert not eager.equals(pg.evaluate(df, CUT_MEASURES, by="system", ranked=ranked))


def test_without_cuts_the_plan_is_untouched() -> None:
    grouped = pl.LazyFrame({"query": [1]})
    assert plan.cut_rankings(grouped, TableSpec()) is grouped

"""The evaluation plan (polars_graded/plan.py): output names, the net that lets no NaN or
infinite value out, the warning for a threshold above every label of the table, and
trec_eval's geometric mean (``mean="geometric"``, its gm_map)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.tables import make_random_table

import polars_graded as pg
from polars_graded import plan
from polars_graded.options import TableSpec
from polars_graded.ranking import sort_ranked


def table(labels: Sequence[float | None] | None = None) -> pl.DataFrame:
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


def count_expr_calls(monkeypatch: pytest.MonkeyPatch, cls: type[pg.Measure]) -> list[str]:
    """Each call of ``cls.expr`` (one per computed column) appends the measure's name."""
    calls: list[str] = []
    original = cls.expr

    def counted(self: pg.Measure, r: Any) -> pl.Expr:
        calls.append(str(self))
        return original(self, r)

    monkeypatch.setattr(cls, "expr", counted)
    return calls


def test_every_name_asked_for_gets_its_column_computed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two ir_measures spellings and the canonical string of one measure: three columns of
    the same values, one computation; "map" and "ap" share the column ap."""
    calls = count_expr_calls(monkeypatch, type(pg.NDCG))
    names = [
        "ir_measures:nDCG@10",
        "ir_measures:NDCG@10",
        "ndcg(compat=trec_eval_9,gain=linear)@10",
    ]
    out = table().graded.evaluate([*names, "map", "ap"], by="system")
    columns = ["nDCG@10", "NDCG@10", "ndcg(compat=trec_eval_9,gain=linear)@10"]
    assert out.columns == ["system", "query", *columns, "ap"]
    assert calls == ["ndcg(compat=trec_eval_9,gain=linear)@10"]
    assert (
        out.select(pl.all_horizontal(pl.col(columns[1:]) == pl.col(columns[0]))).to_series().all()
    )
    assert (
        out["nDCG@10"].to_list()
        == table().graded.evaluate(["ir_measures:nDCG@10"], by="system")["nDCG@10"].to_list()
    )


@pytest.mark.parametrize("lazy", [False, True])
def test_a_mapping_may_name_one_measure_twice(monkeypatch: pytest.MonkeyPatch, lazy: bool) -> None:
    calls = count_expr_calls(monkeypatch, type(pg.AP))
    frame = table().lazy() if lazy else table()
    named = {"a": "ap@5", "b": pg.AP @ 5, "c": "map(rel=1)@5"}
    per_query = frame.graded.evaluate(named, by="system")
    got = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    assert calls == ["ap@5"]
    plain = table().graded.evaluate(["ap@5"], by="system")["ap@5"].to_list()
    assert got.columns == ["system", "query", "a", "b", "c"]
    assert got["a"].to_list() == got["b"].to_list() == got["c"].to_list() == plain
    summary = table().graded.summary({"a": "ap@5", "b": "ap@5"}, by="system")
    assert summary.columns == ["system", "num_q", "a", "b"]
    assert summary["a"].to_list() == summary["b"].to_list()


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


def test_a_threshold_above_every_label_warns_once_naming_measures_and_the_largest_label() -> None:
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
def test_no_warning_when_a_threshold_is_reached(
    labels: list[float | None], measures: list[str]
) -> None:
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
    """As trec_eval -J: only rows with a label >= 0 are judged; the unjudged ones (null) and
    the negatively labelled ones (which count as non-relevant anyway) leave the ranking."""
    df = make_random_table(seed, systems=2)
    assert df.filter(pl.col("relevance") < 0).height > 0
    judged = df.filter(pl.col("relevance") >= 0)
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


def test_judged_only_drops_negative_labels_from_the_ranking() -> None:
    """trec_eval judges labels >= 0 only: with -J the spam row (-2) at the top leaves, the
    relevant row moves up to position 1. Without -J it stays, a non-relevant row."""
    df = pl.DataFrame(
        {
            "query": [1, 1, 1],
            "item": ["a", "b", "c"],
            "score": [3.0, 2.0, 1.0],
            "relevance": [-2, None, 1],
        }
    )
    measures = ["num_ret", "rr", "p@1", "judged@1"]
    assert pg.evaluate(df, measures, judged_only=True).row(0) == (1, 1, 1.0, 1.0, 1.0)
    assert pg.evaluate(df, measures).row(0) == (1, 3, 1 / 3, 0.0, 1.0)


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


# --------------------------------------------------------------------------- mixed releases


def float32_tied() -> pl.DataFrame:
    """Two systems, three queries. Query 1 of x: the relevant ``a`` scores 1000 + 1e-9,
    ``b`` 1000: a first as float64 (RR 1), a tie as float32 that item descending gives to b
    (RR 1/2). In y the scores are swapped: b first under both releases (RR 1/2). Query 2:
    plain scores, the relevant row second (RR 1/2); query 3: nothing retrieved (RR 0)."""
    return pl.DataFrame(
        {
            "system": ["x"] * 5 + ["y"] * 5,
            "query": [1, 1, 2, 2, 3] * 2,
            "item": ["a", "b", "c", "d", "e"] * 2,
            "score": [1000.0 + 1e-9, 1000.0, 2.0, 1.0, None, 1000.0, 1000.0 + 1e-9, 2.0, 1.0, None],
            "relevance": [1, 0, 0, 1, 1] * 2,
        }
    )


def test_a_measures_own_compat_wins_and_groups_the_plan() -> None:
    named = pg.measures.as_named_measures(["rr", "ir_measures:RR", "ap", "ir_measures:AP"])
    groups = plan.by_compat(named, TableSpec())
    assert {c: list(g) for c, g in groups.items()} == {
        "trec_eval_10": ["rr", "ap"],
        "trec_eval_9": ["RR", "AP"],
    }
    nine = plan.by_compat(named, TableSpec(compat="trec_eval_9"))
    assert {c: list(g) for c, g in nine.items()} == {"trec_eval_9": ["rr", "RR", "ap", "AP"]}
    # an explicit trec_eval_10 on the measure wins over the table's trec_eval_9
    own = pg.measures.as_named_measures({"ten": pg.RR(compat="trec_eval_10"), "rr": "rr"})
    assert {
        c: list(g) for c, g in plan.by_compat(own, TableSpec(compat="trec_eval_9")).items()
    } == {
        "trec_eval_10": ["ten"],
        "trec_eval_9": ["rr"],
    }


def test_mixed_releases_give_one_column_each_with_its_own_ranking() -> None:
    """``rr`` ranks by float64 (the default), ``ir_measures:RR`` by float32 (pytrec_eval)."""
    df = float32_tied().filter(pl.col("system") == "x").drop("system")
    out = pg.evaluate(df, ["rr", "ir_measures:RR"])
    assert out.columns == ["query", "rr", "RR"]
    assert out.rows() == [(1, 1.0, 0.5), (2, 0.5, 0.5), (3, 0.0, 0.0)]
    # each column is what its release gives alone
    assert_frame_equal(out.select("query", "rr"), pg.evaluate(df, ["rr"]))
    nine = pg.evaluate(df, ["rr"], compat="trec_eval_9")
    assert out["RR"].to_list() == nine["rr"].to_list()
    # under compat="trec_eval_9" both follow 9.x: one ranking, equal columns
    both = pg.evaluate(df, ["rr", "ir_measures:RR"], compat="trec_eval_9")
    assert both["rr"].to_list() == both["RR"].to_list() == [0.5, 0.5, 0.0]


@pytest.mark.parametrize(
    "measures",
    [
        ["ir_measures:RR", "rr", "ndcg@10", "ir_measures:nDCG@10", "ap"],
        {"nine": "ir_measures:RR", "ten": "rr", "p": "ir_measures:P@1", "q": "p@1"},
    ],
)
def test_mixed_releases_keep_the_requested_order_with_by_and_lazy(measures: Any) -> None:
    df = float32_tied()
    out = pg.evaluate(df, measures, by="system")
    names = list(measures)
    if isinstance(measures, dict):
        assert out.columns == ["system", "query", *names]
    else:
        assert out.columns == ["system", "query", "RR", "rr", "ndcg@10", "nDCG@10", "ap"]
    assert out.select("system", "query").rows() == [(s, q) for s in ("x", "y") for q in (1, 2, 3)]
    # every column equals the evaluation of that measure alone
    for column, measure in zip(
        out.columns[2:], names if isinstance(measures, list) else measures.values(), strict=True
    ):
        alone = pg.evaluate(df, [measure], by="system")
        assert out[column].to_list() == alone.to_series(2).to_list(), column
    rr_nine, rr_ten = ("nine", "ten") if isinstance(measures, dict) else ("RR", "rr")
    assert out[rr_ten].to_list() == [1.0, 0.5, 0.0, 0.5, 0.5, 0.0]
    assert out[rr_nine].to_list() == [0.5, 0.5, 0.0, 0.5, 0.5, 0.0]
    lazy = pg.evaluate(df.lazy(), measures, by="system")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), out)
    shuffled = pg.evaluate(df.sample(fraction=1.0, shuffle=True, seed=1), measures, by="system")
    assert_frame_equal(shuffled, out)


def test_mixed_releases_in_a_summary_and_the_namespace() -> None:
    df = float32_tied()
    summary = df.graded.summary(["rr", "ir_measures:RR"], by="system")
    assert summary.columns == ["system", "num_q", "rr", "RR"]
    assert summary.rows() == [("x", 3, 0.5, 1 / 3), ("y", 3, 1 / 3, 1 / 3)]
    assert_frame_equal(
        df.lazy().graded.summary(["rr", "ir_measures:RR"], by="system").collect(), summary
    )


def test_mixed_releases_keep_every_ranking_once() -> None:
    """One row per ranking, in key order: a query with nothing retrieved and one without a
    judgment join like the others."""
    df = pl.DataFrame(
        {
            "query": [9, 9, 7, 8],
            "item": ["a", "b", "c", "d"],
            "score": [1000.0 + 1e-9, 1000.0, None, 1.0],
            "relevance": [1, 0, 1, None],
        }
    )
    out = pg.evaluate(df, ["rr", "ir_measures:RR"])
    assert out.rows() == [(7, 0.0, 0.0), (8, 0.0, 0.0), (9, 1.0, 0.5)]


@pytest.mark.parametrize("lazy", [False, True])
def test_mixed_releases_warn_once_with_every_measure(lazy: bool) -> None:
    df = float32_tied()
    frame: Any = df.lazy() if lazy else df  # either kind: pg.evaluate binds one at a time
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = pg.evaluate(frame, ["p(rel=5)@1", "ir_measures:P(rel=5)@1"], by="system")
        if lazy:
            out.collect()
    messages = [str(w.message) for w in caught if issubclass(w.category, pg.GradedWarning)]
    assert len(messages) == 1
    assert messages[0].startswith("p(rel=5)@1, p(compat=trec_eval_9,rel=5)@1: ")


def test_mixed_releases_pass_the_largest_label_once_to_a_callback() -> None:
    seen: list[float | None] = []
    values = plan.per_query(
        float32_tied().lazy(), ["rr", "ir_measures:RR"], TableSpec(by=("system",)), warn=seen.append
    ).collect()
    assert values.height > 0
    assert seen == [float32_tied()["relevance"].max()]

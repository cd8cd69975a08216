"""polars_graded.weights and ``weight=`` on the evaluation side: the checks, the weighted
summary (against numpy's ``np.average``), Parquet in partitions, the CLI and the traffic
segments (against a hand-checked split and numpy's ``cumsum``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import expected_rows, parse_printed, run
from support.tables import make_random_table

import polars_graded as pg
from polars_graded.errors import ColumnTypeError, InvalidWeightError, MissingColumnError
from polars_graded.weights import check_weights, query_weights, traffic_segments

MEASURES = ["ap", "ndcg@10", "rr", "mu_ap", "p@5"]


def weighted_table(seed: int, queries: int = 40) -> pl.DataFrame:
    """The suite's random table (ties, unjudged and unretrieved rows, queries without a
    relevant row or without judgments) with two systems and a weight per query: integers
    0..50, the first query's 0."""
    table = make_random_table(seed, systems=2, queries=queries, int_labels=True)
    names = table["query"].unique().sort()
    traffic = np.random.default_rng(seed).integers(0, 51, names.len())
    traffic[0] = 0
    weights = pl.DataFrame({"query": names, "traffic": traffic})
    return table.join(weights, on="query")


def numpy_summary(per_query: pl.DataFrame, weights: pl.DataFrame) -> dict[str, dict[str, float]]:
    """The reference: ``np.average(values, weights=w)`` per system and measure."""
    joined = per_query.join(weights, on="query")
    out: dict[str, dict[str, float]] = {}
    for (system,), group in joined.group_by(["system"]):
        w = group["traffic"].to_numpy()
        out[str(system)] = {m: float(np.average(group[m].to_numpy(), weights=w)) for m in MEASURES}
        out[str(system)]["traffic"] = float(w.sum())  # over the system's own queries
        floored = np.maximum(group["ap"].to_numpy(), 1e-5)
        out[str(system)]["gm_ap"] = float(np.exp(np.average(np.log(floored), weights=w)))
    return out


# --------------------------------------------------------------------------- the summary


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_summary_equals_numpy_average(seed: int) -> None:
    table = weighted_table(seed)
    plain = pg.evaluate(table, MEASURES, by="system")
    weights = table.select("query", pl.col("traffic").cast(pl.Float64)).unique()
    expected = numpy_summary(plain, weights)
    got = pg.summary(table, MEASURES, by="system", weight="traffic")
    assert got.columns == ["system", "num_q", "traffic", *MEASURES]
    geometric = pg.summary(table, ["ap"], by="system", weight="traffic", mean="geometric")
    for row, gm in zip(got.iter_rows(named=True), geometric["gm_ap"], strict=True):
        for measure in MEASURES:
            assert row[measure] == pytest.approx(expected[row["system"]][measure], rel=1e-12)
        assert gm == pytest.approx(expected[row["system"]]["gm_ap"], rel=1e-12)
        assert row["traffic"] == expected[row["system"]]["traffic"]
    # num_q counts every query, those of weight 0 too, as the unweighted summary does.
    unweighted = pg.summary(table, MEASURES, by="system")
    assert got["num_q"].to_list() == unweighted["num_q"].to_list()
    assert (weights["traffic"] == 0).any()


def test_lazy_namespace_and_dataframe_agree() -> None:
    table = weighted_table(2, queries=15)
    eager = pg.summary(table, ["ap"], by="system", weight="traffic")
    lazy = table.lazy().graded.summary(["ap"], by="system", weight="traffic")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)


def test_equal_weights_give_the_unweighted_means() -> None:
    table = weighted_table(3, queries=15).with_columns(traffic=pl.lit(7))
    got = pg.summary(table, MEASURES, by="system", weight="traffic").drop("traffic")
    assert_frame_equal(got, pg.summary(table, MEASURES, by="system"), rel_tol=1e-14)


def test_zero_weight_counts_in_num_q_but_not_in_the_mean() -> None:
    table = pl.DataFrame(
        {"query": [1, 2, 3], "item": ["a"] * 3, "score": [1.0] * 3, "relevance": [1, 0, 1],
         "traffic": [2, 2, 0], "lang": ["en", "en", "de"]}
    )  # fmt: skip
    got = pg.summary(table, ["p@1"], weight="traffic")
    assert got.rows() == [(3, 4.0, 0.5)]  # (2 * 1 + 2 * 0) / 4; query 3 weighs nothing
    # A group whose queries all weigh 0 has no weighted mean: null, never NaN.
    by_lang = pg.summary(table, ["p@1"], by="lang", weight="traffic")
    assert by_lang.rows() == [("de", 1, 0.0, None), ("en", 2, 4.0, 0.5)]


def test_evaluate_carries_the_weight_after_the_keys() -> None:
    table = weighted_table(4, queries=10)
    got = pg.evaluate(table, ["ap"], by="system", weight="traffic")
    assert got.columns == ["system", "query", "traffic", "ap"]
    plain = pg.evaluate(table, ["ap"], by="system")
    assert_frame_equal(got.drop("traffic"), plain)
    expected = plain.join(query_weights(table, "traffic", ["query"]).collect(), on="query")
    assert got["traffic"].to_list() == expected["traffic"].to_list()


# --------------------------------------------------------------------------- bad weights

BAD: list[tuple[str, pl.Expr, type[Exception], str]] = [
    (
        "varying",
        pl.when(pl.col("item") == "b").then(5).otherwise(pl.col("traffic")),
        InvalidWeightError,
        r"must be the same on every row of a query; \{'query': 1\} has 3.0 and 5.0",
    ),
    ("negative", pl.col("traffic") - 4, InvalidWeightError, r"must be >= 0; e.g. \{'query': 1\}"),
    (
        "null",
        pl.when(pl.col("query") == 2).then(None).otherwise(pl.col("traffic")),
        InvalidWeightError,
        r"must not be null; e.g. \{'query': 2\} has null",
    ),
    (
        "nan",
        pl.when(pl.col("query") == 2).then(float("nan")).otherwise(pl.col("traffic")),
        InvalidWeightError,
        r"must not be NaN; e.g. \{'query': 2\} has nan",
    ),
    (
        "inf",
        pl.when(pl.col("query") == 2).then(float("inf")).otherwise(pl.col("traffic")),
        InvalidWeightError,
        r"must be finite; e.g. \{'query': 2\} has inf",
    ),
    ("string", pl.col("traffic").cast(pl.String), ColumnTypeError, "must be numeric, found String"),
    ("zero total", pl.lit(0), InvalidWeightError, "the [24] queries sum to 0"),
]
SMALL = pl.DataFrame(
    {"system": ["a", "a", "a", "b", "b", "b"], "query": [1, 1, 2, 1, 1, 2],
     "item": ["a", "b", "a"] * 2, "score": [2.0, 1.0, 1.0] * 2, "relevance": [0, 1, 1] * 2,
     "traffic": [3, 3, 1] * 2}
)  # fmt: skip


@pytest.mark.parametrize(("case", "weight", "error", "message"), BAD, ids=[b[0] for b in BAD])
def test_every_bad_weight_has_its_error(
    case: str, weight: pl.Expr, error: type[Exception], message: str
) -> None:
    table = SMALL.with_columns(traffic=weight)
    with pytest.raises(error, match=message):
        check_weights(table, "traffic", ["query"])
    # evaluation checks each ranked list, so its example row names the system too
    message = message.replace(r"\{'query'", r"\{(?:'system': '.', )?'query'")
    with pytest.raises(error, match=message):
        pg.summary(table, ["ap"], by="system", weight="traffic")
    with pytest.raises(error, match=message):  # a LazyFrame: the values when collected
        pg.evaluate(table.lazy(), ["ap"], by="system", weight="traffic").collect()


def test_a_weight_is_one_per_ranked_list_and_compare_needs_it_across_systems() -> None:
    table = SMALL.with_columns(
        traffic=pl.when(pl.col("system") == "b").then(4).otherwise(pl.col("traffic"))
    )
    # evaluation weights each (system, query) list on its own, as a log's daily traffic
    per_query = pg.evaluate(table, ["ap"], by="system", weight="traffic")
    assert per_query.filter(system="b")["traffic"].unique().to_list() == [4.0]
    with pytest.raises(InvalidWeightError, match=r"\{'query': 1\} has 3.0 and 4.0"):
        pg.compare(per_query, ["ap"], weight="traffic", trials=9, bootstrap=9)


def test_a_missing_or_clashing_weight_column() -> None:
    with pytest.raises(MissingColumnError, match="column 'clicks' not found"):
        pg.summary(SMALL, ["ap"], weight="clicks")
    with pytest.raises(pg.InvalidValueError, match="has the name of a key column"):
        pg.evaluate(SMALL, ["ap"], by="system", weight="query")
    with pytest.raises(pg.InvalidValueError, match="has the name of a measure column"):
        pg.evaluate(SMALL, {"traffic": "ap"}, by="system", weight="traffic")


def test_a_table_without_rows_passes() -> None:
    check_weights(SMALL.clear(), "traffic", ["query"])


# --------------------------------------------------------------------------- Parquet


def test_parquet_in_partitions_equals_the_in_memory_summary(tmp_path: Path) -> None:
    table = weighted_table(5, queries=30)
    half = table.height // 2
    table[:half].write_parquet(tmp_path / "part-0.parquet")  # a query over two files
    table[half:].write_parquet(tmp_path / "part-1.parquet")
    source = str(tmp_path / "*.parquet")
    options: dict[str, Any] = {"by": "system", "weight": "traffic"}
    expected = pg.evaluate(table, MEASURES, **options)
    for sizing in ({"partitions": 3}, {"memory_budget": "1MiB"}, {"partitions": 1}):
        got = pg.evaluate_parquet(source, MEASURES, spill_dir=tmp_path, **sizing, **options)
        assert_frame_equal(got, expected, check_exact=True)
    summary = pg.summary_parquet(source, MEASURES, partitions=4, spill_dir=tmp_path, **options)
    assert_frame_equal(summary, pg.summary(table, MEASURES, **options), check_exact=True)


def test_parquet_refuses_a_bad_weight(tmp_path: Path) -> None:
    path = tmp_path / "runs.parquet"
    SMALL.with_columns(traffic=pl.lit(-1)).write_parquet(path)
    with pytest.raises(InvalidWeightError, match="must be >= 0"):
        pg.evaluate_parquet(path, ["ap"], by="system", weight="traffic", partitions=2)


# --------------------------------------------------------------------------- the CLI


def test_cli_weight(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "runs.csv"
    table = weighted_table(6, queries=12)
    table.write_csv(path)
    code, out, err = run(
        ["evaluate", str(path), "--by", "system", "-m", "ap", "--weight", "traffic", "-o",
         str(tmp_path / "values.parquet")], capsys
    )  # fmt: skip
    assert code == 0, err
    printed = parse_printed(out)
    assert printed[0] == ["system", "num_q", "traffic", "ap"]
    expected = pg.summary(table, ["ap"], by="system", weight="traffic")
    assert printed[1:] == expected_rows(expected)
    written = pl.read_parquet(tmp_path / "values.parquet")
    assert written.columns == ["system", "query", "traffic", "ap"]
    # Bad input: one line naming the column and the rule, exit code 2.
    table.with_columns(traffic=-pl.col("traffic") - 1).write_csv(path)
    code, out, err = run(["evaluate", str(path), "-m", "ap", "--weight", "traffic"], capsys)
    assert code == 2 and "weight column 'traffic' must be >= 0" in err
    assert "Traceback" not in err
    argv = ["evaluate", "--run", str(path), "--qrels", str(path), "--weight", "traffic"]
    code, out, err = run(argv, capsys)
    assert code == 2 and "--weight name the columns of a TABLE" in err


# --------------------------------------------------------------------------- segments


def test_traffic_segments_by_hand() -> None:
    # Shares after each query, heaviest first: q5 0.4, q2 0.7, q1 0.8, q3 0.9, q4 1.0 (the
    # tie of q1, q3 and q4 is broken by the query), q6 1.0 (weight 0). q2 crosses 0.5, so
    # it stays in the head; q1 reaches 0.8 exactly, so it ends the torso.
    table = pl.DataFrame({"query": [4, 2, 3, 1, 5, 6], "w": [1, 3, 1, 1, 4, 0]})
    got = traffic_segments(table, "w")
    assert got.rows() == [
        (5, "head"), (2, "head"), (1, "torso"), (3, "tail"), (4, "tail"), (6, "tail")
    ]  # fmt: skip
    assert got.schema["traffic"] == pl.Enum(["head", "torso", "tail"])
    two = traffic_segments(table, "w", shares=[0.4], names=["top", "rest"])
    assert dict(two.iter_rows())[5] == "top" and dict(two.iter_rows())[2] == "rest"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_traffic_segments_equal_numpy_cumsum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    queries = rng.permutation(200)
    weights = rng.pareto(1.2, 200) * 100
    table = pl.DataFrame({"query": queries, "w": weights})
    got = dict(traffic_segments(table, "w", shares=(0.5, 0.9)).iter_rows())
    order = np.lexsort((queries, -weights))
    before = (np.cumsum(weights[order]) - weights[order]) / weights.sum()
    expected = np.array(["head", "torso", "tail"])[np.searchsorted([0.5, 0.9], before, "right")]
    assert [got[q] for q in queries[order]] == expected.tolist()


def test_traffic_segments_refuse_bad_options() -> None:
    table = pl.DataFrame({"query": [1, 2], "w": [1, 1]})
    with pytest.raises(pg.InvalidValueError, match="shares must increase"):
        traffic_segments(table, "w", shares=(0.8, 0.5))
    with pytest.raises(pg.InvalidValueError, match="names must be 3 distinct names"):
        traffic_segments(table, "w", names=("head", "tail"))
    with pytest.raises(InvalidWeightError, match="must be >= 0"):
        traffic_segments(table.with_columns(w=-1), "w")


def test_report_segments_by_traffic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = weighted_table(7, queries=24).rename({"traffic": "impressions"})
    table.write_parquet(tmp_path / "runs.parquet")
    out = tmp_path / "report"
    code, _, err = run(
        ["report", str(tmp_path / "runs.parquet"), "-m", "ap", "--weight", "impressions",
         "--segment", "traffic", "--out", str(out), "--trials", "99", "--bootstrap", "99",
         "--min-queries", "2", "-q"], capsys
    )  # fmt: skip
    assert code == 0, err
    values = pl.read_parquet(out / "per_query.parquet")
    assert "impressions" in values.columns
    markdown = (out / "report.md").read_text()
    assert "| traffic | system |" in markdown
    segments = traffic_segments(table, "impressions")
    per_query = pg.evaluate(table, ["ap"], by="system", weight="impressions")
    expected = pg.compare_segments(
        per_query.join(segments, on="query"), ["ap"], segment="traffic",
        weight="impressions", trials=99, bootstrap=99, min_queries=2,
    )  # fmt: skip
    head = expected.filter(traffic="head", system="s1")["mean"].item()
    assert f"| head | s1 | {segments.filter(traffic='head').height} | {head:.4f}" in markdown

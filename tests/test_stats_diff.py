"""``pg.diff`` (polars_graded/stats/diff.py, diff_items.py): why a mean moved.

References: the contributions sum to the ``diff`` column of ``pg.compare`` (and, weighted,
to numpy's ``np.average`` of ``pg.evaluate``'s per-query values); the per-query values are
``pg.evaluate``'s; the items' ranks are those of an independent numpy sort in trec_eval's
order (score descending, then item descending: ``np.lexsort``), the segments' differences
those of ``pg.compare_segments``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_graded as pg
from polars_graded.errors import InvalidValueError, InvalidWeightError, UnknownMeasureError
from polars_graded.stats.diff import QUERY_COLUMNS, SEGMENT_COLUMNS, SUMMARY_COLUMNS

MEASURES = ["ndcg@5", "ap", "rr"]


def log_table(queries: int = 40, seed: int = 3) -> pl.DataFrame:
    """Three systems x ``queries`` x 8 items: scores rounded to one decimal (many ties), some
    unretrieved rows, a weight and a segment per query; system ``c`` lacks queries 0 and 1,
    ``b`` lacks query 2."""
    rng = np.random.default_rng(seed)
    k = 8
    q = np.repeat(np.arange(queries), k)
    item = np.tile(np.arange(k), queries)
    rel = rng.choice(4, size=q.size, p=[0.6, 0.2, 0.12, 0.08])
    weight = rng.pareto(1.5, size=queries) + 0.5
    frames = []
    for i, system in enumerate(["a", "b", "c"]):
        score = np.round(rel * 0.3 * i + rng.normal(size=q.size), 1)
        frame = pl.DataFrame(
            {"system": system, "query": q, "item": item, "score": score, "relevance": rel}
        ).with_columns(
            score=pl.when(pl.Series(rng.random(q.size) < 0.1)).then(None).otherwise("score")
        )
        frames.append(frame)
    table = pl.concat(frames).join(
        pl.DataFrame(
            {"query": np.arange(queries), "weight": weight, "day": np.arange(queries) % 3}
        ),
        on="query",
    )
    lacks = ((pl.col("system") == "c") & (pl.col("query") < 2)) | (
        (pl.col("system") == "b") & (pl.col("query") == 2)
    )
    return table.filter(~lacks)


@pytest.fixture(name="table", scope="module")
def table_fixture() -> pl.DataFrame:
    return log_table()


def test_contributions_sum_to_compares_diff(table: pl.DataFrame) -> None:
    # The reference compares the two systems alone: "common" is the queries both have.
    per_query = pg.evaluate(table.filter(pl.col("system").is_in(["a", "c"])), MEASURES, by="system")
    for missing in ("zero", "common"):
        reference = pg.compare(
            per_query, MEASURES, baseline="a", missing=missing, trials=10, bootstrap=10
        ).filter(system="c")
        d = pg.diff(table, MEASURES, baseline="a", candidate="c", missing=missing)
        assert d.summary.columns == list(SUMMARY_COLUMNS)
        sums = d.queries.group_by("measure").agg(pl.col("contribution").sum())
        for measure in MEASURES:
            expected = reference.filter(measure=measure).row(0, named=True)
            row = d.summary.filter(measure=measure).row(0, named=True)
            total = sums.filter(measure=measure)["contribution"].item()
            assert total == pytest.approx(expected["diff"], abs=1e-12)
            assert row["diff"] == pytest.approx(expected["diff"], abs=1e-12)
            assert row["baseline_mean"] == pytest.approx(expected["baseline_mean"], abs=1e-12)
            assert row["n_queries"] == expected["n_queries"]
            shares = d.queries.filter(measure=measure)["share"]
            assert shares.sum() == pytest.approx(1.0, abs=1e-9)


def test_per_query_values_are_evaluates(table: pl.DataFrame) -> None:
    d = pg.diff(table, MEASURES, baseline="a", candidate="b")
    assert d.queries.columns == ["measure", "query", *QUERY_COLUMNS[1:]]
    per_query = pg.evaluate(table, MEASURES, by="system")
    for system, column in (("a", "baseline_value"), ("b", "candidate_value")):
        values = per_query.filter(system=system).unpivot(
            index="query", on=MEASURES, variable_name="measure", value_name="expected"
        )
        got = d.queries.join(values, on=["measure", "query"], how="left")
        present = got.filter(pl.col("expected").is_not_null())
        assert (present[column] == present["expected"]).all()
        # The query b lacks scores 0 for it, and says so.
        lacking = got.filter(pl.col("expected").is_null())
        assert (lacking[column] == 0.0).all()
        assert (lacking["missing_in"] == system).all()
    assert d.queries.filter(missing_in="b")["query"].unique().to_list() == [2]
    assert d.queries.filter(pl.col("missing_in").is_null()).height == 39 * len(MEASURES)


def test_queries_sorted_by_contribution(table: pl.DataFrame) -> None:
    d = pg.diff(table, MEASURES, baseline="a", candidate="b")
    assert d.queries["measure"].unique(maintain_order=True).to_list() == MEASURES
    for measure in MEASURES:
        size = d.queries.filter(measure=measure)["contribution"].abs().to_numpy()
        assert (np.diff(size) <= 0).all()
        change = d.queries.filter(measure=measure)
        assert np.allclose(change["contribution"] * change.height, change["change"])


def numpy_ranks(rows: pl.DataFrame) -> dict[int, int | None]:
    """Rank of each item of one ranking: score descending, ties by item descending
    (trec_eval), unretrieved (null score) items unranked."""
    retrieved = rows.filter(pl.col("score").is_not_null())
    score, item = retrieved["score"].to_numpy(), retrieved["item"].to_numpy()
    order = np.lexsort((-item, -score))  # the last key sorts first
    ranks: dict[int, int | None] = dict.fromkeys(rows["item"].to_list())
    ranks.update({int(item[i]): position + 1 for position, i in enumerate(order)})
    return ranks


def test_ranks_match_an_independent_sort(table: pl.DataFrame) -> None:
    d = pg.diff(table, ["ap"], baseline="a", candidate="c", top=40, items=8)
    assert d.items.columns[:3] == ["measure", "query", "item"]
    checked = 0
    for query in range(3, 40):  # queries both systems have
        before = numpy_ranks(table.filter(system="a", query=query))
        after = numpy_ranks(table.filter(system="c", query=query))
        relevant = table.filter(pl.col("relevance") > 0, system="a", query=query)
        listed = d.items.filter(query=query)
        listed_items = set(listed["item"].to_list())
        for item in relevant["item"].to_list():
            if item in listed_items:
                row = listed.filter(item=item).row(0, named=True)
                assert (row["rank_before"], row["rank_after"]) == (before[item], after[item])
                rank_before, rank_after = before[item], after[item]
                if rank_before is not None and rank_after is not None:
                    assert row["moved"] == rank_before - rank_after
                checked += 1
            else:  # an item left out did not move
                assert before[item] == after[item]
    assert checked > 30
    assert set(d.items["movement"].to_list()) <= {"up", "down", "entered", "left"}
    assert (d.items["label"] > 0).all()


def test_items_most_moved_first_and_bounded(table: pl.DataFrame) -> None:
    d = pg.diff(table, ["ap", "rr"], baseline="a", candidate="b", top=4, items=2)
    counts = d.items.group_by("measure", "query").len()
    assert (counts["len"] <= 2).all()
    for measure in ("ap", "rr"):
        top = d.queries.filter(measure=measure).head(4)["query"].to_list()
        assert set(d.items.filter(measure=measure)["query"].to_list()) <= set(top)


def test_optimistic_ties_rank_the_relevant_item_first() -> None:
    table = pl.DataFrame(
        {
            "system": ["a"] * 2 + ["b"] * 2,
            "query": [1] * 4,
            "item": [1, 2, 1, 2],
            "score": [1.0, 2.0, 1.0, 1.0],
            "relevance": [1, 0, 1, 0],
        }
    )
    d = pg.diff(table, "rr", baseline="a", candidate="b", ties="optimistic")
    assert d.items.select("item", "rank_before", "rank_after", "moved").rows() == [(1, 2, 1, 1)]
    # Under trec_eval's policy the tie goes to item 2: item 1 stays second, nothing moved.
    assert pg.diff(table, "rr", baseline="a", candidate="b").items.is_empty()


def test_weighted_contributions_sum_to_weighted_mean_difference(table: pl.DataFrame) -> None:
    d = pg.diff(table, MEASURES, baseline="a", candidate="b", weight="weight")
    assert d.queries.columns[:3] == ["measure", "query", "weight"]
    weights = table.select("query", "weight").unique().sort("query")
    per_query = pg.evaluate(table, MEASURES, by="system")
    for measure in MEASURES:
        values = {
            system: weights.join(per_query.filter(system=system), on="query", how="left")[measure]
            .fill_null(0.0)
            .to_numpy()
            for system in ("a", "b")
        }
        w = weights["weight"].to_numpy()
        expected = np.average(values["b"], weights=w) - np.average(values["a"], weights=w)
        row = d.summary.filter(measure=measure).row(0, named=True)
        contributions = d.queries.filter(measure=measure)["contribution"]
        assert row["diff"] == pytest.approx(expected, abs=1e-12)
        assert contributions.sum() == pytest.approx(expected, abs=1e-12)
        assert row["candidate_mean"] == pytest.approx(np.average(values["b"], weights=w))


def test_segments_sum_to_the_change_and_match_compare_segments(table: pl.DataFrame) -> None:
    d = pg.diff(table, MEASURES, baseline="a", candidate="b", segments="day")
    assert d.segments is not None
    assert d.segments.columns == ["measure", "day", *SEGMENT_COLUMNS[1:]]
    per_query = pg.evaluate(table, MEASURES, by=["system", "day"]).filter(
        pl.col("system").is_in(["a", "b"])
    )
    reference = pg.compare_segments(
        per_query, MEASURES, segment="day", baseline="a", trials=10, bootstrap=10
    ).filter(system="b")
    for measure in MEASURES:
        rows = d.segments.filter(measure=measure)
        overall = d.summary.filter(measure=measure)["diff"].item()
        assert rows["contribution"].sum() == pytest.approx(overall, abs=1e-12)
        assert rows["share"].sum() == pytest.approx(1.0, abs=1e-9)
        got = rows.join(reference.filter(measure=measure), on="day")
        assert got.height == 3
        assert np.allclose(got["diff"], got["diff_right"], atol=1e-12)
        assert (got["n_queries"] == got["n_queries_right"]).all()


def test_segment_table_and_weighted_segments(table: pl.DataFrame) -> None:
    segments = table.select("query", parity=pl.col("query") % 2).unique()
    d = pg.diff(
        table.drop("day"), "ap", baseline="a", candidate="b", segments=segments, weight="weight"
    )
    assert d.segments is not None
    assert sorted(d.segments["parity"].to_list()) == [0, 1]
    assert d.segments["contribution"].sum() == pytest.approx(d.summary["diff"].item())


def test_identical_systems_have_no_share() -> None:
    table = log_table(10).filter(system="a")
    twice = pl.concat([table, table.with_columns(system=pl.lit("copy"))])
    d = pg.diff(twice, "ap", baseline="a", candidate="copy")
    assert d.summary["diff"].item() == 0.0
    assert d.queries["share"].null_count() == d.queries.height
    assert d.items.is_empty()
    assert "Diff of 'copy' against the baseline 'a'" in repr(d)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"baseline": "x"}, InvalidValueError, r"baseline 'x' is not a system .*\['a', 'b', 'c'\]"),
        ({"candidate": "a"}, InvalidValueError, "must differ, both are 'a'"),
        ({"measures": "nope"}, UnknownMeasureError, "nope"),
        ({"measures": []}, UnknownMeasureError, "no measures given"),
        ({"top": 0}, InvalidValueError, "top must be an integer >= 1"),
        ({"missing": "all"}, InvalidValueError, "missing must be"),
        ({"segments": "lang"}, pg.MissingColumnError, r"segment column\(s\) \['lang'\]"),
        ({"weight": "item"}, InvalidWeightError, "same on every row of a query; {'query': 0}"),
        ({"by": "team"}, pg.MissingColumnError, "system column 'team' not found"),
    ],
)
def test_bad_input_is_a_clear_error(
    table: pl.DataFrame, options: dict[str, object], error: type[Exception], message: str
) -> None:
    arguments: dict[str, object] = {"measures": "ap", "baseline": "a", "candidate": "b"}
    arguments.update(options)
    with pytest.raises(error, match=message):
        pg.diff(table, **arguments)  # type: ignore[arg-type]


def test_segment_that_varies_within_a_query(table: pl.DataFrame) -> None:
    varying = table.with_columns(day=pl.when(pl.col("item") == 0).then(9).otherwise("day"))
    with pytest.raises(InvalidValueError, match="query 0 is in two segments of column 'day'"):
        pg.diff(varying, "ap", baseline="a", candidate="b", segments="day")


def test_column_named_like_a_result_column(table: pl.DataFrame) -> None:
    with pytest.raises(InvalidValueError, match="segment column 'share'"):
        pg.diff(table.rename({"day": "share"}), "ap", baseline="a", candidate="b", segments="share")

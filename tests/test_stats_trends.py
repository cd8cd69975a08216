"""pg.trend (polars_graded/stats/trends.py): each period's numbers are pg.compare's on that
period's rows; the flags against a hand-built case; the refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.stats.options import Statistics
from polars_graded.stats.trends import FLAGS, VALUES, deciding_column

DRAWS = 199
"""Trials and resamples: few, the numbers are compared with a reference run alike."""
day = pl.lit("d")


def log_per_query(n_queries: int = 12, days: int = 3, seed: int = 1) -> pl.DataFrame:
    """Per-query values of three systems over ``days`` days; the same query ids every day
    (as in a log), different values each day."""
    rng = np.random.default_rng(seed)
    rows = []
    for day in range(days):
        base = rng.uniform(size=n_queries)
        for shift, system in zip((0.0, 0.05, -0.03), ("bm25", "dense", "hybrid"), strict=True):
            noise = rng.normal(scale=0.1, size=n_queries)
            rows.append(
                pl.DataFrame(
                    {
                        "system": system,
                        "day": f"2026-11-0{day + 1}",
                        "query": np.arange(n_queries),
                        "ap": np.clip(base + shift + noise, 0, 1),
                        "ndcg": np.clip(base + 2 * shift + noise / 2, 0, 1),
                    }
                )
            )
    return pl.concat(rows)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"test": "t", "correction": "bh", "baseline": "dense", "bootstrap_method": "bca"},
        {"missing": "common", "seed": 7, "confidence": 0.9},
    ],
)
def test_each_period_is_compare_on_its_rows(options: dict[str, Any]) -> None:
    per_query = log_per_query()
    # A system lacks two queries of one day: missing= decides them as compare does.
    per_query = per_query.filter(
        ~((pl.col("system") == "hybrid") & (pl.col("day") == "2026-11-02") & (pl.col("query") < 2))
    )
    out = pg.trend(
        per_query, ["ndcg", "ap"], period="day", trials=DRAWS, bootstrap=DRAWS, **options
    )
    p = deciding_column(Statistics(**{k: v for k, v in options.items() if k != "baseline"}))
    columns = ["measure", "system", *VALUES, p, "significant"]
    expected = []
    for day in ["2026-11-01", "2026-11-02", "2026-11-03"]:
        rows = per_query.filter(pl.col("day") == day).drop("day")
        reference = pg.compare(rows, ["ndcg", "ap"], trials=DRAWS, bootstrap=DRAWS, **options)
        expected.append(reference.select(columns).with_columns(day=pl.lit(day)))
    order = {"ndcg": 0, "ap": 1}
    systems = pl.concat(expected)["system"].unique(maintain_order=True).to_list()
    reference = pl.concat(expected).sort(
        pl.col("measure").replace_strict(order),
        pl.col("system").replace_strict({s: i for i, s in enumerate(systems)}),
        "day",
    )
    assert_frame_equal(out.select(reference.columns), reference, check_exact=True)
    assert out.columns == ["measure", "day", "system", *VALUES, p, "significant", *FLAGS]
    assert out["system"][0] == options.get("baseline", "bm25")


def test_flags_against_a_hand_built_case() -> None:
    # b - a per day: clearly positive, clearly negative, ~0 below, ~0 above; t-test decides
    # (deterministic), no correction: significant on days 1 and 2 only.
    big = np.array([0.5, 0.4, 0.6, 0.5, 0.45])
    small_below = np.array([0.1, -0.1, 0.05, -0.08, 0.0])
    small_above = np.array([0.1, -0.1, 0.05, -0.04, 0.0])
    a = np.full(5, 0.2)
    days = {1: big, 2: -big / 4, 3: small_below, 4: small_above}
    frames = [
        pl.DataFrame({"system": name, "day": day, "query": range(5), "ap": a + d * (name == "b")})
        for day, d in days.items()
        for name in ("a", "b")
    ]
    # c has no rows on day 2: its day 3 is set against its day 1.
    frames.append(pl.DataFrame({"system": "c", "day": 1, "query": range(5), "ap": a + 0.3}))
    frames.append(pl.DataFrame({"system": "c", "day": 3, "query": range(5), "ap": a - 0.3}))
    frames.append(pl.DataFrame({"system": "c", "day": 4, "query": range(5), "ap": a - 0.3}))
    per_query = pl.concat(frames)
    out = pg.trend(
        per_query, period="day", test="t", correction="none", trials=DRAWS, bootstrap=DRAWS
    )
    got = out.select("system", "day", "significant", *FLAGS).rows()
    assert got == [
        ("a", 1, False, False, False),
        ("a", 2, False, False, False),
        ("a", 3, False, False, False),
        ("a", 4, False, False, False),
        ("b", 1, True, False, False),
        ("b", 2, True, True, False),
        ("b", 3, False, False, True),
        ("b", 4, False, True, False),
        ("c", 1, True, False, False),
        ("c", 3, True, True, False),
        ("c", 4, True, False, False),
    ]


def test_trend_takes_lazy_and_pandas_frames() -> None:
    per_query = log_per_query(n_queries=6, days=2)
    eager = pg.trend(per_query, period="day", trials=DRAWS, bootstrap=DRAWS)
    assert_frame_equal(
        pg.trend(per_query.lazy(), period="day", trials=DRAWS, bootstrap=DRAWS), eager
    )
    assert_frame_equal(
        pg.trend(per_query.to_pandas(), period="day", trials=DRAWS, bootstrap=DRAWS), eager
    )


@pytest.mark.parametrize(
    ("change", "error", "fragments"),
    [
        (lambda f: f.with_columns(day=pl.lit("d")), InvalidValueError, ["'day'", "one period"]),
        (lambda f: f.drop("day"), MissingColumnError, ["'day'", "not found"]),
        (
            lambda f: f.with_columns(day=pl.when(pl.col("query") == 3).then(None).otherwise(day)),
            InvalidValueError,
            ["'day'", "without a period", "every row needs one"],
        ),
        (
            lambda f: f.filter((pl.col("system") != "bm25") | (pl.col("day") != "2026-11-02")),
            InvalidValueError,
            ["period '2026-11-02'", "'day'", "baseline 'bm25'"],
        ),
        (
            lambda f: pl.concat([f, f.head(1)]),
            InvalidValueError,
            ["period '2026-11-01'", "'day'"],
        ),
    ],
)
def test_refusals_name_the_column_and_the_rule(
    change: object, error: type[Exception], fragments: list[str]
) -> None:
    per_query = change(log_per_query(n_queries=4, days=2))  # type: ignore[operator]
    with pytest.raises(error) as caught:
        pg.trend(per_query, ["ap"], period="day", trials=DRAWS, bootstrap=DRAWS)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_float_period_refuses_nan() -> None:
    per_query = log_per_query(n_queries=4, days=2).with_columns(
        day=pl.when(pl.col("query") == 0).then(float("nan")).otherwise(1.0)
    )
    with pytest.raises(InvalidValueError, match="null or NaN"):
        pg.trend(per_query, ["ap"], period="day", trials=DRAWS, bootstrap=DRAWS)


def test_weights_pass_to_each_period_as_compare_weighs() -> None:
    # Weights differ between the days of one query id: the unit is (day, query).
    per_query = log_per_query(n_queries=8, days=2).with_columns(
        w=(pl.col("query") + 1) * pl.col("day").str.slice(-1).cast(pl.Int64)
    )
    out = pg.trend(per_query, ["ap"], period="day", weight="w", trials=DRAWS, bootstrap=DRAWS)
    for day in ["2026-11-01", "2026-11-02"]:
        rows = per_query.filter(pl.col("day") == day).drop("day")
        reference = pg.compare(rows, ["ap"], weight="w", trials=DRAWS, bootstrap=DRAWS)
        got = out.filter(pl.col("day") == day).drop("day", *FLAGS)
        assert_frame_equal(got, reference.select(got.columns), check_exact=True)
    unweighted = pg.trend(per_query, ["ap"], period="day", trials=DRAWS, bootstrap=DRAWS)
    assert out["mean"].to_list() != unweighted["mean"].to_list()


def test_a_weight_that_varies_within_a_day_and_query_is_refused() -> None:
    per_query = log_per_query(n_queries=4, days=2).with_columns(
        w=pl.when(pl.col("system") == "dense").then(2.0).otherwise(1.0)
    )
    with pytest.raises(InvalidValueError, match="'w'"):
        pg.trend(per_query, ["ap"], period="day", weight="w", trials=DRAWS, bootstrap=DRAWS)


@pytest.mark.parametrize("period", ["system", "query"])
def test_a_key_column_is_no_trend_column(period: str) -> None:
    with pytest.raises(InvalidValueError, match=f"the trend column '{period}' is a key column"):
        pg.trend(log_per_query(n_queries=4, days=2), ["ap"], period=period)


def test_auto_decides_once_for_all_periods(monkeypatch: pytest.MonkeyPatch) -> None:
    per_query = log_per_query(n_queries=10, days=2)
    # 20 (day, query) units x 199 draws: above a budget of 3,000, under it per day (1,990).
    monkeypatch.setattr("polars_graded.stats.limits.RESAMPLING_BUDGET", 3_000)
    out = pg.trend(per_query, ["ap"], period="day", trials=DRAWS, bootstrap=DRAWS)
    for day in ["2026-11-01", "2026-11-02"]:
        rows = per_query.filter(pl.col("day") == day).drop("day")
        normal = pg.compare(rows, ["ap"], trials=DRAWS, bootstrap=DRAWS, large_sample="normal")
        resampled = pg.compare(rows, ["ap"], trials=DRAWS, bootstrap=DRAWS)
        got = out.filter(pl.col("day") == day).drop("day", *FLAGS)
        assert_frame_equal(got, normal.select(got.columns), check_exact=True)
        assert not got.equals(resampled.select(got.columns))

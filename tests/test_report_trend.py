"""The report's section "Trend" (polars_graded/report/trend.py): ``trend=`` on the report and
``--trend`` on the command line; the frame is pg.trend of the evaluation by (system, period),
every other section counts (period, query) units, the chart renders, the refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import assert_one_line_error, run

import polars_graded as pg
from polars_graded.report import Report, build_report, compute_report, to_markdown
from polars_graded.report.trend import trend_lines, trend_section

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DRAWS = 99
"""Trials and resamples: few, the numbers are compared with a reference run alike."""
MEASURES = ["ap", "ndcg@3"]


def log_table(queries: int = 8, days: int = 3) -> pl.DataFrame:
    """A log: the same query ids every day, systems a, b, c, five rows per query; b ranks by
    the labels on day 1 (better than a) and against them on day 2 (worse)."""
    rng = np.random.default_rng(3)
    rows = []
    for day in range(1, days + 1):
        for q in range(queries):
            labels = rng.integers(0, 3, 5)
            labels[0] = 2
            noise = rng.permutation(5).astype(float)
            for system in ("a", "b", "c"):
                sign = {1: 1.0, 2: -1.0}.get(day, 0.0) if system == "b" else 0.0
                score = noise + 10 * sign * labels
                rows += [
                    (system, day, q, f"d{i}", float(score[i]), int(labels[i])) for i in range(5)
                ]
    schema = ["system", "day", "query", "item", "score", "relevance"]
    return pl.DataFrame(rows, schema=schema, orient="row")


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return log_table()


@pytest.fixture(scope="module")
def rep(table: pl.DataFrame) -> Report:
    return compute_report(table, MEASURES, trend="day", trials=DRAWS, bootstrap=DRAWS)


def test_the_frame_is_trend_of_the_evaluation_by_system_and_day(
    table: pl.DataFrame, rep: Report
) -> None:
    # The reference keys queries by (system, day, query) through evaluate's by=, not by the
    # report's "<day>/<query>" ids (single-digit ids: both sort the queries alike).
    per_query = pg.evaluate(table, MEASURES, by=["system", "day"])
    expected = pg.trend(per_query, MEASURES, period="day", trials=DRAWS, bootstrap=DRAWS)
    assert rep.trend is not None
    assert_frame_equal(rep.trend, expected, check_exact=True)
    b = rep.trend.filter((pl.col("system") == "b") & (pl.col("measure") == "ap"))
    diff = b["diff"].to_list()
    assert diff[0] > 0 > diff[1]
    assert diff[2] == 0  # b ranks as a does on day 3: no sign, so no change of sign
    assert b["sign_changed"].to_list() == [False, True, False]


def test_a_weighted_report_weighs_its_trend(table: pl.DataFrame) -> None:
    # Traffic differs between the days of one query id: the unit is (day, query).
    weighted = table.with_columns(w=(pl.col("query") + 1.0) * pl.col("day"))
    rep = compute_report(weighted, ["ap"], trend="day", weight="w", trials=DRAWS, bootstrap=DRAWS)
    # pg.evaluate(weight=) wants one weight per query id across days: join it per (day, query).
    weights = weighted.select("day", "query", "w").unique()
    per_query = pg.evaluate(weighted, ["ap"], by=["system", "day"]).join(
        weights, on=["day", "query"]
    )
    expected = pg.trend(per_query, ["ap"], period="day", weight="w", trials=DRAWS, bootstrap=DRAWS)
    assert rep.trend is not None
    assert_frame_equal(rep.trend, expected, check_exact=True)
    section = trend_section(rep)
    assert section is not None
    assert "weighted by w" in str(section.parts[0])


def test_every_section_counts_period_query_units(rep: Report) -> None:
    assert rep.description.queries == 3 * 8
    assert set(rep.comparison["n_queries"]) == {24}
    assert rep.per_query.filter(pl.col("system") == "a")["query"].head(2).to_list() == [
        "1/0",
        "1/1",
    ]


def test_the_section_in_markdown(rep: Report) -> None:
    section = trend_section(rep)
    assert section is not None
    markdown = to_markdown(rep)
    assert "Trend" in markdown
    assert "a (day, query) pair" in markdown
    assert "changes sign or significance from its previous day" in markdown


def test_without_a_trend_there_is_no_section(table: pl.DataFrame) -> None:
    plain = compute_report(table.filter(pl.col("day") == 1), ["ap"], trials=DRAWS, bootstrap=DRAWS)
    assert plain.trend is None
    assert trend_section(plain) is None
    assert "Trend" not in to_markdown(plain)


def test_the_notebook_report_has_the_frame(table: pl.DataFrame) -> None:
    notebook = build_report(table, measures=["ap"], trend="day", trials=DRAWS, bootstrap=DRAWS)
    assert notebook.trend is not None
    assert notebook.trend.columns[:3] == ["measure", "day", "system"]


def test_the_chart_renders_many_periods_and_a_missing_one() -> None:
    days = 30
    frame = pl.DataFrame(
        {
            "measure": "ap",
            "day": [d for d in range(days) for _ in range(2)],
            "system": ["a", "b"] * days,
            "mean": np.linspace(0.3, 0.6, 2 * days),
            "significant": [False, True] * days,
        }
    ).with_columns(ci_low=pl.col("mean") - 0.05, ci_high=pl.col("mean") + 0.05)
    frame = frame.filter(~((pl.col("system") == "b") & (pl.col("day") == 4)))
    png = trend_lines(frame, "ap", "day", ["a", "b"], 0.95)
    assert png.startswith(PNG_SIGNATURE)


def test_cli_report_trend_writes_the_section(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "log.parquet"
    table.write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "-m", "ap", "--trend", "day", "--out", str(out)]
    code, _, err = run([*argv, "--trials", "20", "--bootstrap", "20"], capsys)
    assert (code, err) == (0, "")
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "Trend" in markdown
    assert "Mean ap per day" in markdown
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="trend"' in html
    assert html.count("Line chart of mean") == 1


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (lambda f: f, ["trend column 'nope' not found"]),
        (lambda f: f.with_columns(nope=pl.lit(1)), ["trend column 'nope'", "one period"]),
    ],
)
def test_cli_report_trend_refusals(
    change: object,
    fragments: list[str],
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "log.parquet"
    change(table).write_parquet(source)  # type: ignore[operator]
    argv = ["report", str(source), "-m", "ap", "--trend", "nope", "--out", str(tmp_path / "o")]
    code, out, err = run([*argv, "--trials", "9", "--bootstrap", "9"], capsys)
    assert_one_line_error(code, out, err, *fragments)


def test_the_section_says_when_the_periods_take_the_normal_limit(
    table: pl.DataFrame,
) -> None:
    rep = compute_report(
        table, ["ap"], trend="day", large_sample="normal", trials=DRAWS, bootstrap=DRAWS
    )
    section = trend_section(rep)
    assert section is not None
    assert "take their normal limit" in str(section.parts[0])
    assert "large_sample='normal'" in str(section.parts[0])

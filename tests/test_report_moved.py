"""The report's section "What moved" (polars_graded/report/moved.py): present in the HTML page
and the Markdown, one part per system against the baseline, bounded to the top queries, the
segment rollup with segments; its numbers are ``pg.diff``'s (tested against ``pg.compare``
and an independent sort in test_stats_diff.py).
"""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
from support.report import synthetic_table

import polars_graded as pg
from polars_graded.report import charts, compute_report, to_html, to_markdown
from polars_graded.report.blocks import Table
from polars_graded.report.moved import TOP_ITEMS, TOP_QUERIES, moved_section


@pytest.fixture(name="report", scope="module")
def report_fixture() -> pg.report.Report:
    table = synthetic_table(queries=12).with_columns(half=(pl.col("query") % 2).cast(pl.String))
    return compute_report(table, ["ap", "ndcg@3"], segment="half", trials=99, bootstrap=99)


def test_one_diff_per_system_on_the_first_measure(report: pg.report.Report) -> None:
    assert [(d.baseline, d.candidate) for d in report.moved] == [("a", o) for o in report.order[1:]]
    per_query = report.per_query
    for found in report.moved:
        assert found.measures == ("ap",)
        means = per_query.group_by("system").agg(pl.col("ap").mean())
        expected = (
            means.filter(system=found.candidate)["ap"].item()
            - means.filter(system="a")["ap"].item()
        )
        assert found.summary["diff"].item() == pytest.approx(expected, abs=1e-12)
        assert found.queries["contribution"].sum() == pytest.approx(expected, abs=1e-12)
        assert found.segments is not None
        assert found.segments["contribution"].sum() == pytest.approx(expected, abs=1e-12)


def test_section_is_bounded_and_rendered(
    report: pg.report.Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "_png", lambda figure: b"")  # saving the charts is slow
    section = moved_section(report)
    assert section is not None
    tables = [p for p in section.parts if isinstance(p, Table)]
    queries = [t for t in tables if not t.id.startswith("moved-segments")]
    segments = [t for t in tables if t.id.startswith("moved-segments")]
    assert len(queries) == len(segments) == len(report.order) - 1
    for table in queries:
        assert table.frame.height <= TOP_QUERIES
        for cell in table.frame["relevant items moved"]:
            assert cell == "–" or cell.count(";") < TOP_ITEMS
    assert segments[0].frame.columns[0] == "half"
    markdown, html = to_markdown(report), to_html(report)
    assert "## What moved" in markdown
    assert 'id="moved"' in html
    assert "What moved" in html


def test_no_section_without_other_systems(report: pg.report.Report) -> None:
    assert moved_section(dataclasses.replace(report, moved=())) is None


def test_a_weighted_report_moves_the_weighted_mean() -> None:
    # With weight= the section splits the change of the weighted mean, as the summary shows it.
    table = synthetic_table(queries=12).with_columns(
        traffic=(pl.col("query").cast(pl.String).str.len_chars() * 7 + 1).cast(pl.Float64)
    )
    report = compute_report(table, ["ap"], weight="traffic", trials=99, bootstrap=99)
    per_query = report.per_query
    for found in report.moved:
        expected = pg.diff(
            table, ["ap"], baseline="a", candidate=found.candidate, weight="traffic"
        ).summary
        assert found.summary["diff"].item() == pytest.approx(expected["diff"].item(), abs=1e-12)
        weighted = per_query.group_by("system").agg(
            (pl.col("ap") * pl.col("traffic")).sum() / pl.col("traffic").sum()
        )
        mean = dict(weighted.iter_rows())
        want = mean[found.candidate] - mean["a"]
        assert found.summary["diff"].item() == pytest.approx(want, abs=1e-12)
    section = moved_section(report)
    assert section is not None
    assert "its weight (traffic)" in str(section.parts[0])

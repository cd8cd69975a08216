"""The report's section "Trend" (``--trend COLUMN``, ``trend=``): per period and system, the
means with their bootstrap bands as lines, and the periods where the difference to the
baseline changes sign or significance (:func:`~polars_graded.stats.trends.trend`).

With a trend column the period is part of a query's identity: the same query id on two days
is two queries. :func:`trend_units` makes it so before the report evaluates anything: the
query column becomes ``<period>/<query>`` (text), so the per-query values are keyed by
(system, period, query), and every other section of the report treats each (period, query)
as one query. :func:`add_trend` sets ``report.trend``; :func:`trend_section` draws it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

import polars as pl

from polars_graded.options import TableSpec
from polars_graded.report.blocks import Figure, Part, Section, Table
from polars_graded.report.charts import (
    BASELINE_COLOUR,
    LITERAL,
    literal_legend,
    new_figure,
    palette,
    png_bytes,
)
from polars_graded.report.content import Report
from polars_graded.report.names import short_names
from polars_graded.report.text import significance_test
from polars_graded.stats.options import CORRECTION_NAMES
from polars_graded.stats.trends import (
    check_periods,
    deciding_column,
    period_statistics,
    trend_with,
)

SEPARATOR: Final = "/"
"""Between the period and the query id in the report's query column under ``trend=``
(``3/417``: query 417 of day 3)."""

MAX_CHANGES = 30
"""Rows of the table of changes at most (then how many more): the page stays short over a
year of days."""

MAX_TICKS = 12
"""Period labels on a chart's x axis at most (every k-th beyond)."""


def trend_units(lf: pl.LazyFrame, spec: TableSpec, trend: str) -> pl.LazyFrame:
    """``lf`` with the trend column checked
    (:func:`~polars_graded.stats.trends.check_periods`) and the query column replaced by
    ``<period>/<query>`` (:data:`SEPARATOR`), as text: one query per (period, query).

    Examples
    --------
    >>> from polars_graded.report.inputs import report_spec
    >>> lf = pl.LazyFrame({"query": [7, 7], "day": [1, 2]})
    >>> trend_units(lf, report_spec({}), "day").collect()["query"].to_list()
    ['1/7', '2/7']
    """
    check_periods(lf, trend, (spec.by[0], spec.query))
    query = spec.query
    unit = pl.concat_str(pl.col(trend).cast(pl.String), pl.lit(SEPARATOR), pl.col(query))
    return lf.with_columns(unit.alias(query))


def add_trend(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> Report:
    """``report`` with ``trend``: :func:`~polars_graded.stats.trends.trend` of the report's
    per-query values by ``Settings.trend``, with the report's tests, baseline and traffic
    weight; unchanged without a trend column.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> table = example_table().with_columns(day=pl.Series([1, 1, 2, 2] * 2))
    >>> rep = compute_report(table, ["ap"], trials=9, bootstrap=9, trend="day")
    >>> rep.trend.select("system", "day", "mean").rows()
    [('a', 1, 0.5), ('a', 2, 0.5), ('b', 1, 1.0), ('b', 2, 1.0)]
    """
    period = report.settings.trend
    if period is None:
        return report
    query = report.query
    periods = lf.select(query, period).unique(query).collect()
    per_query = report.per_query.join(periods, on=query, how="left")
    trend = trend_with(
        per_query.with_columns(pl.col(report.system).cast(pl.String)),
        list(report.settings.measures),
        report.settings.statistics,
        period=period,
        by=report.system,
        baseline=report.settings.baseline,
        query=query,
        weight=report.settings.weight,
    )
    return dataclasses.replace(report, trend=trend.rename({report.system: "system"}))


def trend_section(report: Report) -> Section | None:
    """The section "Trend": what it shows, a line chart per measure, and the periods where
    a difference to the baseline changes sign or significance; ``None`` without a trend.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> table = example_table().with_columns(day=pl.Series([1, 1, 2, 2] * 2))
    >>> rep = compute_report(table, ["ap"], trials=9, bootstrap=9, trend="day")
    >>> section = trend_section(rep)
    >>> section.title, [type(p).__name__ for p in section.parts]
    ('Trend', ['str', 'Figure', 'str'])
    >>> section.parts[-1]
    "No system's difference to the baseline changes sign or significance from one day to the \
next."
    """
    frame, period = report.trend, report.settings.trend
    if frame is None or period is None:
        return None
    stats, weight = report.settings.statistics, report.settings.weight
    n_periods = frame.get_column(period).n_unique()
    parts: list[Part] = [
        f"Per {period} and system, each measure's mean over that {period}'s queries with its "
        f"{stats.confidence:.0%} bootstrap interval (the band), and the difference to the "
        f"baseline {report.settings.baseline} tested within each {period} on its own "
        f"({significance_test(stats)}, {CORRECTION_NAMES[stats.correction]} across the "
        f"systems of each measure and {period}, α = {stats.alpha:g}), over {n_periods:,} "
        f"values of {period}. A query is a ({period}, query) pair: the same query id under "
        f"two values of {period} is two queries, here and in every other section of this "
        f"report, which name them {period}{SEPARATOR}query."
        + ("" if weight is None else f" Means, intervals and tests are weighted by {weight}.")
        + _method(report, period)
    ]
    for measure in report.settings.measures:
        parts.append(
            Figure(
                trend_lines(frame, measure, period, report.order, stats.confidence),
                f"Line chart of mean {measure} per {period}, one line per system",
                f"Mean {measure} per {period} ({stats.confidence:.0%} bootstrap band); a "
                "filled point: significantly different from the baseline in that "
                f"{period}.",
            )
        )
    parts += _changes(frame, period, report)
    return Section("trend", "Trend", tuple(parts))


def _method(report: Report, period: str) -> str:
    """A sentence when the periods take the normal limit rather than resampling
    (:func:`~polars_graded.stats.trends.period_statistics`), else ``""``."""
    stats = report.settings.statistics
    units = report.description.queries
    used = period_statistics(stats, units, len(report.order))
    if used.large_sample != "normal":
        return ""
    why = (
        "as asked (large_sample='normal')"
        if stats.large_sample == "normal"
        else f"since resampling all {units:,} ({period}, query) units would cost more than "
        "the resampling budget"
    )
    return (
        f" In every {period} the bootstrap intervals and the randomization test take their "
        f"normal limit instead of {stats.bootstrap:,} resamples and {stats.trials:,} trials, "
        f"{why}."
    )


def _changes(frame: pl.DataFrame, period: str, report: Report) -> list[Part]:
    """The sentence and table of the periods where a difference changes sign or
    significance (at most :data:`MAX_CHANGES` rows)."""
    p = deciding_column(report.settings.statistics)
    shown = frame.with_columns(
        before=pl.col(period).shift().over("measure", "system").cast(pl.String),
        diff_before=pl.col("diff").shift().over("measure", "system"),
    ).filter(pl.col("sign_changed") | pl.col("significance_changed"))
    if shown.is_empty():
        return [
            f"No system's difference to the baseline changes sign or significance from one "
            f"{period} to the next."
        ]
    what = (
        pl.when(pl.col("sign_changed") & pl.col("significance_changed"))
        .then(pl.lit("sign and significance"))
        .when(pl.col("sign_changed"))
        .then(pl.lit("sign"))
        .otherwise(pl.lit("significance"))
    )
    table = shown.head(MAX_CHANGES).select(
        pl.col("system"),
        pl.col("measure"),
        pl.col("before").alias(f"previous {period}"),
        pl.col(period).cast(pl.String),
        pl.col("diff_before").alias("diff before"),
        pl.col("diff"),
        pl.col(p),
        pl.when(pl.col("significant"))
        .then(pl.lit("yes"))
        .otherwise(pl.lit("no"))
        .alias("significant"),
        what.alias("changed"),
    )
    more = shown.height - table.height
    text = (
        f"{shown.height:,} times a system's difference to the baseline changes sign or "
        f"significance from its previous {period}"
        + (f"; the first {MAX_CHANGES} are listed." if more > 0 else ":")
    )
    return [text, Table("trend-changes", table)]


def trend_lines(
    frame: pl.DataFrame,
    measure: str,
    period: str,
    order: Sequence[str],
    confidence: float,
) -> bytes:
    """One measure's mean per period, a line per system with its bootstrap band; a filled
    point where the system differs significantly from the baseline in that period.

    Parameters
    ----------
    frame
        :func:`~polars_graded.stats.trends.trend`'s result, its system column ``system``.
    measure, period
        The measure drawn; the period column (the x axis, in sorted order).
    order
        The systems in the legend's order; the first is the baseline (grey, dashed).
    confidence
        The bands' coverage (for the axis label).

    Examples
    --------
    >>> frame = pl.DataFrame({
    ...     "measure": ["ap"] * 4, "day": [1, 2, 1, 2], "system": ["a", "a", "b", "b"],
    ...     "mean": [0.5, 0.6, 0.7, 0.5], "ci_low": [0.4, 0.5, 0.6, 0.4],
    ...     "ci_high": [0.6, 0.7, 0.8, 0.6], "significant": [False, False, True, False],
    ... })
    >>> trend_lines(frame, "ap", "day", ["a", "b"], 0.95)[:4]
    b'\\x89PNG'
    """
    rows = frame.filter(pl.col("measure") == measure)
    periods = rows.get_column(period).unique().sort()
    position = {value: i for i, value in enumerate(periods.to_list())}
    figure = new_figure(8.0, 3.2)
    axes = figure.add_subplot()
    names = short_names(order)
    colours = [BASELINE_COLOUR, *palette(max(1, len(order) - 1))]
    for system, colour in zip(order, colours, strict=False):
        mine = rows.filter(pl.col("system") == system).sort(period)
        if mine.is_empty():
            continue
        x = [position[v] for v in mine.get_column(period).to_list()]
        style = "--" if system == order[0] else "-"
        axes.fill_between(x, mine["ci_low"], mine["ci_high"], color=colour, alpha=0.15, lw=0)
        axes.plot(x, mine["mean"], style, color=colour, linewidth=1.4, label=names[system])
        filled = mine["significant"].to_list()
        axes.scatter(
            x,
            mine["mean"],
            s=16,
            color=[colour if f else "white" for f in filled],
            edgecolors=[colour] * len(x),
            linewidths=1.0,
            zorder=3,
        )
    step = max(1, -(-periods.len() // MAX_TICKS))
    ticks = list(range(0, periods.len(), step))
    labels = [str(periods[i]) for i in ticks]
    axes.set_xticks(ticks, labels, rotation=30 if step > 1 else 0, fontsize=8, **LITERAL)
    axes.set_xlabel(period, fontsize=9, **LITERAL)
    axes.set_ylabel(f"mean {measure} ({confidence:.0%} band)", fontsize=9, **LITERAL)
    axes.set_title(measure, fontsize=10, loc="left", **LITERAL)
    axes.tick_params(axis="y", labelsize=8)
    axes.grid(color="#e5e5e5")
    axes.set_axisbelow(True)
    literal_legend(axes)
    return png_bytes(figure)

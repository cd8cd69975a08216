"""The report's power lines (section "Tests"): per measure and system, the smallest difference
the paired t-test detects on the report's queries, and how many queries it would need to
detect :data:`~polars_graded.stats.power.SIZING_DELTA` (:mod:`polars_graded.stats.power`).

:func:`report_sizing` computes :attr:`~polars_graded.report.content.Report.sizing`;
:func:`sizing_lines` says it, for both renderings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_graded.report.names import short_names
from polars_graded.stats.power import POWER, SIZING_DELTA, sizing_table

if TYPE_CHECKING:
    from polars_graded.report.content import Report, Settings


def report_sizing(
    per_query: pl.DataFrame, settings: Settings, *, system: str, query: str
) -> pl.DataFrame:
    """Per measure and system but the baseline: :func:`~polars_graded.stats.power.topic_set_size`
    for :data:`~polars_graded.stats.power.SIZING_DELTA` with the detectable difference beside
    it (column ``detectable``), at the report's ``alpha``, missing-query policy and weight.

    Examples
    --------
    >>> from polars_graded.report.content import Settings
    >>> per_query = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query": [1, 2, 3] * 2,
    ...                           "ap": [0.5, 0.2, 0.4, 0.6, 0.2, 0.7]})
    >>> sizing = report_sizing(per_query, Settings(("ap",), "a"), system="system", query="query")
    >>> sizing.select("system", "n_queries", "n_required").row(0)
    ('b', 3, 1834)
    """
    stats = settings.statistics
    frame = per_query.with_columns(pl.col(system).cast(pl.String))
    return sizing_table(
        frame, list(settings.measures), "report", delta=SIZING_DELTA, by=system,
        baseline=settings.baseline, candidate=None, alpha=stats.alpha, power=POWER,
        query=query, missing=stats.missing, weight=getattr(settings, "weight", None),
    )  # fmt: skip


def sizing_lines(report: Report) -> list[str]:
    """One sentence per measure and system: "with n queries the t-test detects differences of
    at least δ (80% power, α = 0.05); detecting 0.01 would need N queries", or why it cannot
    say; none without :attr:`~polars_graded.report.content.Report.sizing`.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> sizing_lines(rep)
    ['Power of ap, b against a: the paired differences do not vary (sd 0): no estimate of \
their spread.']
    """
    sizing = getattr(report, "sizing", None)
    if sizing is None:
        return []
    alpha, lines = report.settings.statistics.alpha, []
    names = short_names(report.order)  # long run names shortened, as the tables show them
    for row in sizing.iter_rows(named=True):
        system, baseline = names[row[report.system]], names[row["baseline"]]
        name = f"Power of {row['measure']}, {system} against {baseline}"
        if row["note"] is not None:
            lines.append(f"{name}: {row['note']}.")
            continue
        queries, unit = f"{row['n_queries']:,} queries", "queries"
        if row["n_effective"] != row["n_queries"]:
            queries += f" ({row['n_effective']:,.4g} effective, weighted)"
            unit = "effective queries"
        lines.append(
            f"{name}: with {queries} the paired t-test detects differences of at least "
            f"{row['detectable']:#.2g} ({POWER:.0%} power, α = {alpha:g}); detecting "
            f"{SIZING_DELTA:g} would need {row['n_required']:,} {unit}."
        )
    return lines

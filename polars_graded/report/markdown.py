"""A report as Markdown (``report.md``): the summary table with its markers, MAP per
threshold, tied scores, the data and the conventions."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_graded.report.content import FILES, Report
from polars_graded.report.text import (
    cell_text,
    comparison_rows,
    conventions,
    data_lines,
    fmt,
    fmt_diff,
    legend,
    marker,
    query_counts,
    threshold_notes,
    threshold_table,
)
from polars_graded.report.ties import tie_chunks, tie_lines, tie_rows, tie_rule


def to_markdown(report: Report) -> str:
    """The report's summary in Markdown: summary table with markers, data, conventions.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> to_markdown(rep).splitlines()[0]
    '# Evaluation report'
    """
    s = report.settings
    created = f"Created {report.created} with {report.versions}."
    lines = [f"# {s.title}", "", f"{created} {report.source}".strip(), "", "## Summary", ""]
    lines += _summary(report)
    lines += ["", legend(report), "", "## MAP per relevance threshold", ""]
    lines += _frame(threshold_table(report))
    lines += [part for note in threshold_notes(report) for part in ("", note)]
    lines += ["", "## Tied scores", "", *_ties(report)]
    lines += ["", "## Data", "", *(f"- {line}" for line in data_lines(report))]
    lines += ["", "## Conventions", "", *(f"- **{k}**: {v}" for k, v in conventions(report))]
    lines += ["", f"Charts and every test's result: {FILES[0]}; per-query values: {FILES[2]}.", ""]
    return "\n".join(lines)


def _summary(report: Report) -> list[str]:
    """The summary table: per system its queries and, per measure, the mean and marker."""
    s = report.settings
    rows, counts = comparison_rows(report), query_counts(report)
    table = [["system", "queries", *s.measures], ["---", *["--:"] * (len(s.measures) + 1)]]
    for name in report.order:
        label = f"{name} (baseline)" if name == s.baseline else name
        means = [f"{fmt(rows[name, m]['mean'])} {marker(rows[name, m])}" for m in s.measures]  # type: ignore[arg-type]
        table.append([label, str(counts[name]), *(c.strip() for c in means)])
    return [_row(r) for r in table]


def _ties(report: Report) -> list[str]:
    """The tie lines, then (if anything ties) one row per system: tied share and, per
    measure, the mean under the rule, under average, and Δ."""
    lines = tie_lines(report)
    if len(lines) == 1:
        return lines
    out = [lines[0], ""]
    for first, last in tie_chunks(len(report.settings.measures)):
        out += [*_tie_block(report, first, last), ""]
    return out + lines[1:]


def _tie_block(report: Report, first: int, last: int) -> list[str]:
    """The tie table of the measures ``first:last``."""
    rule = tie_rule(report.settings.ties)
    head = ["system", "tied share"]
    head += [
        f"{m} {p}" for m in report.settings.measures[first:last] for p in (rule, "average", "Δ")
    ]
    out = [_row(head), _row(["---", *["--:"] * (len(head) - 1)])]
    for name, rows in tie_rows(report):
        cells = [name, cell_text("tied_share", rows[0]["tied_share"])]
        for row in rows[first:last]:
            cells += [fmt(row[rule]), fmt(row["average"]), fmt_diff(row["diff"])]  # type: ignore[arg-type]
        out.append(_row(cells))
    return out


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _frame(frame: pl.DataFrame) -> list[str]:
    head = [_row(frame.columns), _row(["---", *["--:"] * (frame.width - 1)])]
    return head + [
        _row([cell_text(c, v) for c, v in zip(frame.columns, r, strict=True)])
        for r in frame.iter_rows()
    ]

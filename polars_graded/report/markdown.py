"""A report as Markdown (``report.md``), section by section as the page
(:data:`~polars_graded.report.text.SECTIONS`): the summary table with its markers, the means
with their intervals, MAP per threshold, wins / ties / losses against the baseline, the
tests, the sections of :mod:`~polars_graded.report.sections`, tied scores, the data and the
conventions; a figure is named by its caption."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_graded.compare import TIE_TOLERANCE
from polars_graded.report.blocks import Figure, Section, Table
from polars_graded.report.compute import paired_differences
from polars_graded.report.content import FILES, Report
from polars_graded.report.html import TEST_COLUMNS
from polars_graded.report.sections import block_sections
from polars_graded.report.text import (
    SECTIONS,
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
    lines = [f"# {s.title}", "", f"{created} {report.source}".strip(), ""]
    lines += [f"## {SECTIONS['summary']}", ""]
    lines += _summary(report)
    lines += ["", legend(report), "", f"## {SECTIONS['measures']}", "", *_measures(report)]
    lines += ["", f"## {SECTIONS['thresholds']}", ""]
    lines += _frame(threshold_table(report))
    lines += [part for note in threshold_notes(report) for part in ("", note)]
    lines += ["", f"## {SECTIONS['differences']}", "", *_differences(report)]
    lines += ["", f"## {SECTIONS['details']}", "", legend(report), "", *_tests(report)]
    for section in block_sections(report):
        lines += ["", *_block_section(section)]
    lines += ["", f"## {SECTIONS['ties']}", "", *_ties(report)]
    lines += ["", f"## {SECTIONS['data']}", "", *(f"- {line}" for line in data_lines(report))]
    lines += ["", f"## {SECTIONS['conventions']}", ""]
    lines += [f"- **{k}**: {v}" for k, v in conventions(report)]
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


def _measures(report: Report) -> list[str]:
    """The bar charts' numbers: per system and measure, the mean and its interval."""
    s, rows = report.settings, comparison_rows(report)
    frame = pl.DataFrame(
        {
            "system": list(report.order),
            **{m: [_interval(rows[name, m]) for name in report.order] for m in s.measures},
        }
    )
    caption = (
        f"Mean per system with its {s.statistics.confidence:.0%} bootstrap interval "
        f"({s.statistics.bootstrap:,} resamples); the bar charts are in {FILES[0]}."
    )
    return [*_frame(frame), "", caption]


def _interval(row: dict[str, object]) -> str:
    """``mean [low, high]``."""
    low, high = fmt(row["ci_low"]), fmt(row["ci_high"])  # type: ignore[arg-type]
    return f"{fmt(row['mean'])} [{low}, {high}]"  # type: ignore[arg-type]


def _differences(report: Report) -> list[str]:
    """Per measure of the difference plots: each system's wins, ties and losses against the
    baseline over the compared queries, and what the figure shows."""
    s = report.settings
    out: list[str] = []
    for m in s.differences:
        diffs = paired_differences(report, m)
        counts = diffs.group_by("system").agg(
            wins=(pl.col("diff") > TIE_TOLERANCE).sum(),
            ties=(pl.col("diff").abs() <= TIE_TOLERANCE).sum(),
            losses=(pl.col("diff") < -TIE_TOLERANCE).sum(),
        )
        frame = pl.DataFrame({"system": list(report.order[1:])}).join(
            counts, on="system", how="left", maintain_order="left"
        )
        out += [f"**{m}**", "", *_frame(frame.with_columns(pl.exclude("system").cast(pl.Int64)))]
        out += ["", f"*Figure ({FILES[0]}): {m}: per query, each system's value minus "
                f"{s.baseline}'s, sorted; wins / ties / losses: the queries where it is above, "
                "equal to and below the baseline.*", ""]  # fmt: skip
    return out[:-1]


def _tests(report: Report) -> list[str]:
    """The tests table of the page (:data:`~polars_graded.report.html.TEST_COLUMNS`), a
    block per measure."""
    rows = comparison_rows(report)
    head = [_row(["system", *TEST_COLUMNS.values(), ""])]
    head.append(_row(["---", *["--:"] * len(TEST_COLUMNS), ":-:"]))
    out: list[str] = []
    for m in report.settings.measures:
        out += ["", f"**{m}**", "", *head]
        for name in report.order:
            row = rows[name, m]
            out.append(_row([name, *(cell_text(c, row[c]) for c in TEST_COLUMNS), marker(row)]))
    return out[1:]


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


def _block_section(section: Section) -> list[str]:
    """A :class:`~polars_graded.report.blocks.Section`; a figure by its caption."""
    out = [f"## {section.title}"]
    for part in section.parts:
        if isinstance(part, Table):
            out += ["", *_frame(part.frame, aligned=True)]
            out += ["", part.caption] if part.caption else []
        elif isinstance(part, Figure):
            out += ["", f"*Figure ({FILES[0]}): {part.caption or part.alt}*"]
        else:
            out += ["", part]
    return out


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _frame(frame: pl.DataFrame, *, aligned: bool = False) -> list[str]:
    """A table; ``aligned``: numbers right, text left (else every column but the first right)."""
    if aligned:
        rules = ["--:" if frame.schema[c].is_numeric() else "---" for c in frame.columns]
    else:
        rules = ["---", *["--:"] * (frame.width - 1)]
    head = [_row(frame.columns), _row(rules)]
    return head + [
        _row([cell_text(c, v) for c, v in zip(frame.columns, r, strict=True)])
        for r in frame.iter_rows()
    ]

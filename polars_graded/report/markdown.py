"""A report as Markdown (``report.md``), section by section as the page
(:data:`~polars_graded.report.text.SECTIONS`): the summary table with its markers, the means
with their intervals, MAP per threshold, wins / ties / losses against the baseline, the
tests, the sections of :mod:`~polars_graded.report.sections`, tied scores, the data and the
conventions; a figure is named by its caption.

Every text goes through :func:`escape`: a title, a run's name or a segment's value
holding ``<script>``, ``|`` or a line break shows as written and cannot add HTML, a link or
a table cell; tables and charts show long names shortened
(:func:`~polars_graded.report.names.short_names`), the section "Data" in full."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import polars as pl

from polars_graded.report.blocks import Figure, Section, Table
from polars_graded.report.charts import distribution_note
from polars_graded.report.compute import paired_differences
from polars_graded.report.content import FILES, Report
from polars_graded.report.html import shown_test_columns
from polars_graded.report.names import one_line, short_names, with_short_names
from polars_graded.report.sections import block_sections
from polars_graded.report.sizing import sizing_lines
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
    procedure_lines,
    query_counts,
    threshold_notes,
    threshold_table,
)
from polars_graded.report.ties import tie_chunks, tie_lines, tie_rows, tie_rule
from polars_graded.stats.resampling import TIE_TOLERANCE

# Inline Markdown: backslash, code, emphasis, strikethrough, a cell's end, math (GitHub's
# $...$), an underscore at a word's edge (inside a word it is literal: mu_ap), a link's ](.
_INLINE = re.compile(r"[\\`*~|$]|(?<!\w)_|_(?!\w)|\](?=\()")
_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # an HTML tag, comment or autolink starts so
_ENTITY = re.compile(r"&(?=#?\w+;)")
# What opens a block at a line's start: a heading, quote, list, rule or link definition,
# and an ordered list's number (the backslash goes before its dot).
_BLOCK = re.compile(r"^[#>+=\[-]")
_ORDERED = re.compile(r"^\d{1,9}(?=[.)](?:\s|$))")


def escape(text: str, *, line_start: bool = False) -> str:
    r"""``text`` as Markdown that shows it as written: on one line (a line break as ``↵``,
    :func:`~polars_graded.report.names.one_line`), HTML tags and entities shown, not
    parsed, and no emphasis, code, math, link or table cell of its own; ``line_start``:
    nor a block (a heading, a list, a quote, code) when it starts a line.

    Examples
    --------
    >>> print(escape("<script>alert(1)</script> | a\nb"))
    &lt;script>alert(1)&lt;/script> \| a↵b
    >>> print(escape("# *bm25* [x](y)", line_start=True))
    \# \*bm25\* [x\](y)
    >>> print(escape("mu_ap: 0.5 [0.4, 0.6] & p < 0.05"))
    mu_ap: 0.5 [0.4, 0.6] & p < 0.05
    """
    text = _ENTITY.sub("&amp;", one_line(text))
    text = _INLINE.sub(lambda m: "\\" + m.group(), _TAG.sub("&lt;", text))
    if not line_start:
        return text
    # Leading spaces (four start a code block) become unbreakable ones, which open nothing.
    stripped = text.lstrip(" ")
    if stripped != text:
        return "\u00a0" * (len(text) - len(stripped)) + stripped
    text = _ORDERED.sub(lambda m: m.group() + "\\", text)
    return _BLOCK.sub(lambda m: "\\" + m.group(), text)


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
    lines = [f"# {escape(s.title)}", "", _text(f"{created} {report.source}".strip()), ""]
    lines += [f"## {SECTIONS['summary']}", ""]
    lines += _summary(report)
    lines += ["", _text(legend(report)), "", f"## {SECTIONS['measures']}", ""]
    lines += _measures(report)
    lines += ["", f"## {SECTIONS['thresholds']}", ""]
    lines += _frame(_shown(threshold_table(report), report))
    lines += [part for note in threshold_notes(report) for part in ("", _text(note))]
    lines += ["", f"## {SECTIONS['differences']}", "", *_differences(report)]
    lines += ["", f"## {SECTIONS['details']}", "", _text(legend(report)), ""]
    lines += [f"- {escape(line)}" for line in [*procedure_lines(report), *sizing_lines(report)]]
    lines += ["", *_tests(report)]
    for section in block_sections(report):
        lines += ["", *_block_section(section)]
    lines += ["", f"## {SECTIONS['ties']}", "", *_ties(report)]
    lines += ["", f"## {SECTIONS['data']}", ""]
    lines += [f"- {escape(line)}" for line in data_lines(report)]
    lines += ["", f"## {SECTIONS['conventions']}", ""]
    lines += [f"- **{escape(k)}**: {escape(v)}" for k, v in conventions(report)]
    return "\n".join([*lines, "", _files(report), ""])


def _text(paragraph: str) -> str:
    """A paragraph of its own, escaped (:func:`escape`)."""
    return escape(paragraph, line_start=True)


def _files(report: Report) -> str:
    """Where the rest of the report is: the other files written with this one."""
    line = f"Charts and every test's result: {FILES[0]}; per-query values: {FILES[2]}"
    extra = [name for name in report.outputs if name not in FILES]
    return line + "".join(f"; tables for a paper: {name}" for name in extra) + "."


def _names(report: Report) -> Mapping[str, str]:
    """Each system's name as tables show it (:func:`~polars_graded.report.names.short_names`)."""
    return short_names(report.order)


def _shown(frame: pl.DataFrame, report: Report) -> pl.DataFrame:
    """``frame`` with its ``system`` column as the tables show the names."""
    return with_short_names(frame, report.order, "system")


def _summary(report: Report) -> list[str]:
    """The summary table: per system its queries and, per measure, the mean and marker."""
    s, names = report.settings, _names(report)
    rows, counts = comparison_rows(report), query_counts(report)
    table = [["system", "queries", *s.measures], ["---", *["--:"] * (len(s.measures) + 1)]]
    for name in report.order:
        label = f"{names[name]} (baseline)" if name == s.baseline else names[name]
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
    return [*_frame(_shown(frame, report)), "", caption]


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
        frame = _shown(frame.with_columns(pl.exclude("system").cast(pl.Int64)), report)
        caption = (
            f"{m}: per query, each system's value minus {s.baseline}'s, sorted; wins / ties / "
            "losses: the queries where it is above, equal to and below the baseline. "
            f"{distribution_note(diffs)}"
        ).rstrip()
        out += [f"**{escape(m)}**", "", *_frame(frame), "", _figure(caption), ""]
    return out[:-1]


def _figure(caption: str) -> str:
    """A figure of the page, named by its caption."""
    return f"*Figure ({FILES[0]}): {escape(caption)}*"


def _tests(report: Report) -> list[str]:
    """The tests table of the page (:func:`~polars_graded.report.html.shown_test_columns`), a
    block per measure."""
    rows, names = comparison_rows(report), _names(report)
    stats = report.settings.statistics
    columns = shown_test_columns(stats.correction, stats.test)
    head = [_row(["system", *columns.values(), ""])]
    head.append(_row(["---", *["--:"] * len(columns), ":-:"]))
    out: list[str] = []
    for m in report.settings.measures:
        out += ["", f"**{escape(m)}**", "", *head]
        for name in report.order:
            row = rows[name, m]
            cells = [names[name], *(cell_text(c, row[c]) for c in columns), marker(row)]
            out.append(_row(cells))
    return out[1:]


def _ties(report: Report) -> list[str]:
    """The tie lines, then (if anything ties) one row per system: tied share and, per
    measure, the mean under the rule, under average, and Δ."""
    lines = [_text(line) for line in tie_lines(report)]
    if len(lines) == 1:
        return lines
    out = [lines[0], ""]
    for first, last in tie_chunks(len(report.settings.measures)):
        out += [*_tie_block(report, first, last), ""]
    return out + lines[1:]


def _tie_block(report: Report, first: int, last: int) -> list[str]:
    """The tie table of the measures ``first:last``."""
    rule, names = tie_rule(report.settings.ties), _names(report)
    head = ["system", "tied share"]
    head += [
        f"{m} {p}" for m in report.settings.measures[first:last] for p in (rule, "average", "Δ")
    ]
    out = [_row(head), _row(["---", *["--:"] * (len(head) - 1)])]
    for name, rows in tie_rows(report):
        cells = [names[name], cell_text("tied_share", rows[0]["tied_share"])]
        for row in rows[first:last]:
            cells += [fmt(row[rule]), fmt(row["average"]), fmt_diff(row["diff"])]  # type: ignore[arg-type]
        out.append(_row(cells))
    return out


def _block_section(section: Section) -> list[str]:
    """A :class:`~polars_graded.report.blocks.Section`; a figure by its caption."""
    out = [f"## {escape(section.title)}"]
    for part in section.parts:
        if isinstance(part, Table):
            out += ["", *_frame(part.frame, aligned=True)]
            out += ["", _text(part.caption)] if part.caption else []
        elif isinstance(part, Figure):
            out += ["", _figure(part.caption or part.alt)]
        else:
            out += ["", _text(part)]
    return out


def _row(cells: Sequence[str]) -> str:
    """A table row, each cell escaped: a ``|`` or a line break stays inside its cell."""
    return "| " + " | ".join(escape(c) for c in cells) + " |"


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

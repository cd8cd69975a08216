"""A report as one self-contained HTML page (``report.html``): figures embedded as PNG data
URIs, the CSS inline, no script and no link out.

Every text is escaped. A long name is shortened in the tables
(:func:`~polars_graded.report.names.short_names`) with the full name on hover (``title``)
and in the section "Data"; a table too wide for the page wraps its text cells, else
scrolls in its own box."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence

import polars as pl

from polars_graded.report.blocks import Figure, Section, Table
from polars_graded.report.charts import (
    data_uri,
    differences,
    distribution_note,
    measure_bars,
    threshold_curves,
    threshold_lines,
)
from polars_graded.report.compute import paired_differences
from polars_graded.report.content import VERSION, Report
from polars_graded.report.names import full_text, short_names
from polars_graded.report.sections import block_sections
from polars_graded.report.sizing import sizing_lines
from polars_graded.report.text import (
    BETTER,
    CORRECTION_HEADERS,
    SECTIONS,
    WORSE,
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
    thresholds_capped,
)
from polars_graded.report.ties import tie_chunks, tie_lines, tie_rows, tie_rule
from polars_graded.stats.corrections import adjusted_column
from polars_graded.stats.grid import P_VALUES
from polars_graded.stats.options import DEFAULTS, Correction, Test

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
 color:#1d1d1f;margin:0;background:#f3f3f3}
main{max-width:1180px;margin:0 auto;padding:24px 32px 48px;background:#fff}
h1{font-size:26px;margin:0 0 4px}
h1,p,li,dd,figcaption{overflow-wrap:anywhere}
h2{font-size:20px;margin:36px 0 10px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta,.legend,figcaption,footer{color:#555;font-size:13px}
nav a{margin-right:14px;font-size:14px}
table{border-collapse:collapse;font-size:13.5px;margin:8px 0}
th,td{padding:4px 10px;border-bottom:1px solid #e6e6e6;text-align:left;white-space:nowrap}
thead th{border-bottom:2px solid #999;background:#f4f4f4}
.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafafa}
tbody tr.baseline{background:#eaf1f8}
.mark{display:inline-block;width:1.2em;text-align:center}
.up{color:#0072B2}.down{color:#D55E00}
.tag{font-size:11px;font-weight:normal;color:#fff;background:#555;border-radius:3px;
 padding:0 4px;margin-left:6px}
.wide{overflow-x:auto}
thead th,tr.head th,table.block th,table.block td:not(.num){white-space:normal}
th.full{white-space:pre-line;overflow-wrap:anywhere;min-width:16em}
.nw{white-space:nowrap}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:12px}
figure{margin:8px 0}
figure img{max-width:100%;height:auto;border:1px solid #eee}
dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;font-size:14px}
dt{font-weight:600}
dd{margin:0}
table.compact{font-size:12.5px}
table.compact th,table.compact td{padding:3px 7px}
tr.group th{background:#fff;border-bottom:1px solid #999;padding-top:14px;font-size:14px}
tr.span th{background:#fff;border-bottom:1px solid #bbb;text-align:center;padding-top:12px}
tr.head th{border-bottom:2px solid #999;background:#f4f4f4}
th.start,td.start,tr.head th:nth-child(3n){border-left:1px solid #ddd}
"""
"""The page's style sheet, inlined in its ``<style>``."""


TEST_COLUMNS = {
    "n_queries": "queries",
    "n_missing": "missing",
    "mean": "mean",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "diff": "diff",
    "diff_ci_low": "diff low",
    "diff_ci_high": "diff high",
    "d_z": "d_z",
    "change_pct": "change",
    "p_randomization_holm": "p rand. Holm",
    "p_ttest_holm": "p t-test Holm",
    "p_wilcoxon_holm": "p Wilcoxon Holm",
}
"""The columns of :func:`~polars_graded.stats.compare.compare` the tests table shows, and their
headers, under the defaults (the randomization test decides, Holm corrects;
:func:`shown_test_columns` gives the others): every test's corrected p-value, the deciding
test's first. The raw p-values and the t statistic (``d_z * sqrt(n)``) are left out so that
the table fits a page; every column is in ``compare``'s frame."""

P_HEADERS: dict[str, str] = {
    "p_randomization": "p rand.",
    "p_ttest": "p t-test",
    "p_wilcoxon": "p Wilcoxon",
}
"""The header of each test's p-value column (:data:`~polars_graded.stats.grid.P_VALUES`)."""


def shown_test_columns(correction: Correction, test: Test = DEFAULTS.test) -> dict[str, str]:
    """The tests table's columns and headers: those of :data:`TEST_COLUMNS` before the tests,
    then every test's p-value corrected by ``correction``, that of ``test`` (the one that
    decides the marks) first, each named as the comparison names it
    (:func:`~polars_graded.stats.corrections.adjusted_column`).

    Examples
    --------
    >>> shown_test_columns("holm") == TEST_COLUMNS
    True
    >>> list(shown_test_columns("bh", "wilcoxon").values())[-3:]
    ['p Wilcoxon BH', 'p rand. BH', 'p t-test BH']
    """
    columns = {c: header for c, header in TEST_COLUMNS.items() if not c.startswith("p_")}
    deciding = P_VALUES[test]
    for p in (deciding, *(p for p in P_VALUES.values() if p != deciding)):
        columns[adjusted_column(p, correction)] = f"{P_HEADERS[p]} {CORRECTION_HEADERS[correction]}"
    return columns


Head = Sequence[tuple[str, bool]]
_INTERVAL = re.compile(r"(\S+) (\[[^\[\]]*\])")
"""A text cell ``value [low, high]`` (the bounds of the section "Incomplete judgments")."""


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (PNG data URIs, inline CSS, no script).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> page = to_html(compute_report(example_table(), ["ap"], trials=100, bootstrap=100))
    >>> page.startswith("<!DOCTYPE html>"), "<script" in page
    (True, False)
    """
    esc, s = html.escape, report.settings
    blocks = block_sections(report)
    titles = list(SECTIONS.items())
    titles[_BLOCKS_AT:_BLOCKS_AT] = [(b.key, b.title) for b in blocks]
    nav = "".join(f'<a href="#{key}">{esc(text)}</a>' for key, text in titles)
    meta = f"Created {report.created} with {report.versions}. {report.source}".strip()
    sections = [section(report) for section in _SECTION_HTML]
    names = short_names(report.order)
    sections[_BLOCKS_AT:_BLOCKS_AT] = [_block_section(b, names) for b in blocks]
    body = [
        f"<h1>{esc(s.title)}</h1>",
        f'<p class="meta">{esc(meta)}</p>',
        f"<nav>{nav}</nav>",
        *sections,
        f"<footer><p>polars_graded {esc(VERSION)} · {esc(' · '.join(report.outputs))}</p></footer>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(s.title)}</title>\n<style>{CSS}</style></head>\n"
        "<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n"
    )


# --------------------------------------------------------------------------- elements


def _section(key: str, *parts: str, title: str | None = None) -> str:
    shown = SECTIONS[key] if title is None else title
    head = f'<section id="{html.escape(key)}"><h2>{html.escape(shown)}</h2>'
    return "\n".join([head, *parts, "</section>"])


def _block_section(section: Section, names: Mapping[str, str]) -> str:
    """A :class:`~polars_graded.report.blocks.Section`: paragraphs, tables and figures;
    ``names``: the systems' full and shown names (the hover text of a shortened one)."""
    parts = []
    for part in section.parts:
        if isinstance(part, Table):
            parts.append(_block_table(part, names))
            parts += [_legend(part.caption)] if part.caption else []
        elif isinstance(part, Figure):
            parts.append(_figure(part.png, part.alt, part.caption))
        else:
            parts.append(f"<p>{html.escape(part)}</p>")
    return _section(section.key, *parts, title=section.title)


def _table(table_id: str, head: Head, rows: Sequence[str], css: str = "") -> str:
    """A table; ``head`` holds (title, numeric) pairs, ``rows`` the ``<tr>`` elements."""
    cells = _head_cells(head)
    css = f' class="{css}"' if css else ""
    return (
        f'<div class="wide"><table id="{table_id}"{css}><thead><tr>{cells}</tr></thead>\n'
        "<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
    )


def _head_cells(head: Head) -> str:
    """The header cells (:func:`_head_text`)."""
    return "".join(f"<th{' class=num' * n}>{_head_text(t)}</th>" for t, n in head)


def _head_text(title: str) -> str:
    """A header that wraps (when its table is too wide) between words and after an
    underscore (p_randomization_adjusted), never inside a hyphenated word (t-test)."""
    words = (html.escape(word).replace("_", "_<wbr>") for word in title.split(" "))
    return " ".join(f'<span class="nw">{w}</span>' if "-" in w else w for w in words)


def _td(column: str, value: object, extra: str = "", text: str | None = None, css: str = "") -> str:
    """A number with its exact value in ``data-value`` (``repr``); ``text`` replaces the
    shown text, ``css`` adds classes."""
    data = "" if value is None else f' data-value="{value!r}"'
    shown = html.escape(cell_text(column, value) if text is None else text)
    return (
        f'<td class="num{" " * bool(css)}{css}" data-col="{html.escape(column)}"{data}>'
        f"{shown}{extra}</td>"
    )


def _text_td(column: str, value: object, names: Mapping[str, str]) -> str:
    """A text cell, its names in full on hover; ``value [low, high]`` breaks (when the
    table is too wide for the page) before the interval only."""
    text = cell_text(column, value)
    shown = html.escape(text)
    if interval := _INTERVAL.fullmatch(text):
        value_text, bounds = (html.escape(part) for part in interval.groups())
        shown = f'{value_text} <span class="nw">{bounds}</span>'
    return f'<td data-col="{html.escape(column)}"{_hover(text, names)}>{shown}</td>'


def _hover(text: str, names: Mapping[str, str]) -> str:
    """A ``title`` attribute with ``text``'s shortened names in full, if it holds any."""
    full = full_text(text, names)
    return "" if full is None else f' title="{html.escape(full)}"'


def _mark(row: dict[str, object]) -> str:
    sign = marker(row)
    kind = {BETTER: " up", WORSE: " down"}.get(sign, "")
    return f'<span class="mark{kind}">{sign}</span>'


def _tr(name: str, report: Report, cells: str, extra: str = "", *, full: bool = False) -> str:
    """A system's row: its name as the tables show it, in full on hover, or with ``full``
    in full (wrapped)."""
    base = name == report.settings.baseline
    tag = '<span class="tag">baseline</span>' if base else ""
    css = ' class="baseline"' if base else ""
    shown = name if full else short_names(report.order).get(name, name)
    hover = f' title="{html.escape(name)}"' if shown != name else ""
    head = ' class="full"' if full else hover
    return (
        f'<tr data-system="{html.escape(name)}"{extra}{css}>'
        f'<th scope="row"{head}>{html.escape(shown)}{tag}</th>{cells}</tr>'
    )


def _frame_rows(frame: pl.DataFrame, report: Report, *, full: bool = False) -> list[str]:
    """A row per system of ``frame`` (its first column), a cell per other column."""
    return [
        _tr(str(row[0]), report, "".join(
            _td(c, v) for c, v in zip(frame.columns[1:], row[1:], strict=True)), full=full)
        for row in frame.iter_rows()
    ]  # fmt: skip


def _block_table(part: Table, names: Mapping[str, str]) -> str:
    """A block's table: the first column heads each row (its text in ``data-row``); text
    cells are left-aligned (a shortened name in full on hover), numbers right-aligned with
    their exact value."""
    frame = part.frame
    numeric = [frame.schema[c].is_numeric() for c in frame.columns]
    rows = []
    for row in frame.iter_rows():
        cells = "".join(
            _td(c, v) if n else _text_td(c, v, names)
            for c, v, n in zip(frame.columns[1:], row[1:], numeric[1:], strict=True)
        )
        text = cell_text(frame.columns[0], row[0])
        label, hover = html.escape(text), _hover(text, names)
        rows.append(f'<tr data-row="{label}"><th scope="row"{hover}>{label}</th>{cells}</tr>')
    head = list(zip(frame.columns, numeric, strict=True))
    return _table(part.id, head, rows, "compact block")


def _figure(png: bytes, alt: str, caption: str = "") -> str:
    text = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img src="{data_uri(png)}" alt="{html.escape(alt)}">{text}</figure>'


def _legend(line: str) -> str:
    return f'<p class="legend">{html.escape(line)}</p>'


# --------------------------------------------------------------------------- sections


def _summary(report: Report) -> str:
    s = report.settings
    rows, counts = comparison_rows(report), query_counts(report)
    head = [("system", False), ("queries", True), *((m, True) for m in s.measures)]
    body = [
        _tr(name, report, _td("n_queries", counts[name]) + "".join(
            _td(m, rows[name, m]["mean"], _mark(rows[name, m])) for m in s.measures))
        for name in report.order
    ]  # fmt: skip
    return _section("summary", _table("summary-table", head, body), _legend(legend(report)))


def _measures(report: Report) -> str:
    s = report.settings
    stats = s.statistics
    bars = [
        _figure(
            measure_bars(report.comparison, m, report.order, stats.confidence), f"{m} per system"
        )
        for m in s.measures
    ]
    caption = (
        f"Mean per system with its {stats.confidence:.0%} bootstrap interval; dashed line: the "
        f"baseline's mean. Grey: the baseline; blue {BETTER} / orange {WORSE}: significantly "
        "better / worse than it; light blue: no significant difference."
    )
    return _section("measures", f'<div class="grid">{"".join(bars)}</div>',
                    f"<figcaption>{html.escape(caption)}</figcaption>")  # fmt: skip


def _thresholds(report: Report) -> str:
    frame = threshold_table(report)
    figures = [
        _figure(
            threshold_lines(frame, report.order),
            "MAP per threshold and µMAP",
            "MAP at each threshold shown and the two µMAPs per system (the left half of "
            "Fig. 6 of Scheel et al. 2011).",
        )
    ]
    if thresholds_capped(report.thresholds["threshold"]):
        curves = threshold_curves(report.thresholds.rename({report.system: "system"}), report.order)
        figures.append(_figure(curves, "MAP at every threshold", "MAP at every threshold."))
    head = [(c, frame.schema[c].is_numeric()) for c in frame.columns]
    table = _table("threshold-table", head, _frame_rows(frame, report))
    legends = [_legend(line) for line in threshold_notes(report)]
    return _section("thresholds", *figures, table, *legends)


def _differences(report: Report) -> str:
    s = report.settings
    figures = []
    for m in s.differences:
        paired = paired_differences(report, m)
        caption = (
            f"{m}: per query, each system's value minus {s.baseline}'s, sorted; "
            f"blue: better than the baseline, orange: worse. {distribution_note(paired)}"
        )
        png = differences(paired, m, report.order, report.comparison)
        figures.append(_figure(png, f"per-query differences of {m}", caption.rstrip()))
    return _section("differences", *figures)


def _tests(report: Report) -> str:
    s, rows = report.settings, comparison_rows(report)
    columns = shown_test_columns(s.statistics.correction, s.statistics.test)
    head = [("system", False), *((t, True) for t in columns.values()), ("", False)]
    body = []
    for m in s.measures:
        body.append(f'<tr class="group"><th colspan="{len(head)}">{html.escape(m)}</th></tr>')
        body += [
            _tr(name, report, "".join(_td(c, rows[name, m][c]) for c in columns)
                + f"<td>{_mark(rows[name, m])}</td>", f' data-measure="{html.escape(m)}"')
            for name in report.order
        ]  # fmt: skip
    procedures = [_legend(line) for line in [*procedure_lines(report), *sizing_lines(report)]]
    return _section(
        "details",
        _legend(legend(report)),
        *procedures,
        _table("tests-table", head, body, "compact"),
    )


def _ties(report: Report) -> str:
    """The tie lines around one table: a block of rows per
    :func:`~polars_graded.report.ties.tie_chunks` of the measures."""
    lines = tie_lines(report)
    if len(lines) == 1:
        return _section("ties", f"<p>{html.escape(lines[0])}</p>")
    blocks = [
        _tie_block(report, first, last) for first, last in tie_chunks(len(report.settings.measures))
    ]
    table = (
        '<div class="wide"><table id="ties-table" class="compact">\n'
        + "\n".join(blocks)
        + "</table></div>"
    )
    legends = [_legend(line) for line in lines]
    return _section("ties", legends[0], table, *legends[1:])


def _tie_block(report: Report, first: int, last: int) -> str:
    """The measures ``first:last`` of the tie table, with their own two header rows
    (measure, then rule / average / Δ)."""
    rule = tie_rule(report.settings.ties)
    parts: list[tuple[str, str, Callable[[float | None], str]]] = [
        (rule, rule, fmt), ("average", "average", fmt), ("diff", "Δ", fmt_diff)
    ]  # fmt: skip
    measures = report.settings.measures[first:last]
    spans = "".join(f'<th colspan="3" class="start">{html.escape(m)}</th>' for m in measures)
    head = [("system", False), ("tied share", True)]
    head += [(label, True) for _ in measures for _, label, _ in parts]
    rows = [
        f'<tr class="span"><th></th><th></th>{spans}</tr>',
        f'<tr class="head">{_head_cells(head)}</tr>',
    ]
    for name, mine in tie_rows(report):
        cells = _td("tied_share", mine[0]["tied_share"])
        for row in mine[first:last]:
            cells += "".join(
                _td(f"{row['measure']} {label}", row[key], text=show(row[key]),  # type: ignore[arg-type]
                    css="start" if key == rule else "")
                for key, label, show in parts
            )  # fmt: skip
        rows.append(_tr(name, report, cells))
    return "<tbody>\n" + "\n".join(rows) + "\n</tbody>"


def _data(report: Report) -> str:
    items = "".join(f"<li>{html.escape(line)}</li>" for line in data_lines(report))
    frame = pl.DataFrame({"system": list(report.order)}).join(
        report.description.per_system, on="system", how="left", maintain_order="left"
    )
    head = [(c.replace("_", " "), frame.schema[c].is_numeric()) for c in frame.columns]
    table = _table("systems-table", head, _frame_rows(frame, report, full=True))
    return _section("data", f"<ul>{items}</ul>", table)


def _conventions(report: Report) -> str:
    items = (f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in conventions(report))
    return _section("conventions", "<dl>", *items, "</dl>")


_SECTION_HTML: tuple[Callable[[Report], str], ...] = (
    _summary,
    _measures,
    _thresholds,
    _differences,
    _tests,
    _ties,
    _data,
    _conventions,
)
"""The sections' renderers, in the order of :data:`SECTIONS`."""
_BLOCKS_AT = list(SECTIONS).index("ties")
"""Where the :mod:`~polars_graded.report.sections` go: after the tests, before the ties."""

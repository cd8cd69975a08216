"""Evaluation reports: a self-contained HTML page, a Markdown summary and per-query Parquet.

:func:`build_report` (also :func:`report`) evaluates a long table with a system column (TREC
runs and qrels are joined into one by :func:`trec_table`), compares every system with a
baseline (:func:`polars_graded.stats.compare.compare`) and breaks µMAP down by relevance threshold
(:func:`polars_graded.api.per_threshold`), all under one tie policy (``ties=``); it states
how much tied scores move each mean (:func:`~polars_graded.report.ties.tie_effects`) and
writes ``report.html`` (figures embedded as PNG data URIs, CSS inline, no script, no link
out), ``report.md`` and ``per_query.parquet`` into one directory, and with ``latex=True``
``report.tex`` (the means with significance marks, for a paper). Without a directory,
``build_report(table)`` (also ``df.graded.report()``) returns a :class:`NotebookReport`:
it shows the page in a notebook cell, holds the numbers as Polars frames and writes the
same files later (``.write(folder)``). :func:`compute_report` returns the content as a
:class:`Report`, and :func:`to_html` / :func:`to_markdown` render it. The figures need
matplotlib, the tests scipy: ``pip install 'polars-graded[report]'``.

The package, one module per concern: :mod:`~polars_graded.report.inputs` (the table's
columns, TREC runs), :mod:`~polars_graded.report.compute` (the numbers and the data's
description), :mod:`~polars_graded.report.ties` (tied scores),
:mod:`~polars_graded.report.content` (what a report holds), :mod:`~polars_graded.report.text`
(what both renderings say), :mod:`~polars_graded.report.markdown`,
:mod:`~polars_graded.report.html` (with its CSS), :mod:`~polars_graded.report.latex`,
:mod:`~polars_graded.report.charts`, :mod:`~polars_graded.report.files` (writing a folder)
and :mod:`~polars_graded.report.notebook` (the report in a notebook); the sections beyond
the baseline comparison are in :mod:`~polars_graded.report.sections`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Unpack, overload

from polars_graded.defaults import SYSTEM
from polars_graded.frames import Table, as_polars
from polars_graded.io.trec import run_names
from polars_graded.report.compute import (
    RENDERING,
    STEPS,
    ReportOptions,
    compute_report,
    describe,
    report_steps,
    require_extras,
)
from polars_graded.report.content import FILES, Description, Report, Settings
from polars_graded.report.files import ReportFiles, file_contents, output_folder, write_files
from polars_graded.report.html import to_html
from polars_graded.report.inputs import trec_table
from polars_graded.report.latex import LATEX_FILE, to_latex_report
from polars_graded.report.markdown import to_markdown
from polars_graded.report.notebook import NotebookReport
from polars_graded.report.ties import count_ties, tie_effects
from polars_graded.stats.grid import by_column

__all__ = [
    "FILES",
    "LATEX_FILE",
    "Description",
    "NotebookReport",
    "Report",
    "ReportFiles",
    "ReportOptions",
    "Settings",
    "build_report",
    "compute_report",
    "count_ties",
    "describe",
    "report",
    "require_extras",
    "run_names",
    "tie_effects",
    "to_html",
    "to_latex_report",
    "to_markdown",
    "trec_table",
    "write_report",
]


@overload
def build_report(
    table: Table,
    out_dir: None = None,
    measures: Sequence[str] | str | None = None,
    *,
    system: str | None = None,
    latex: bool = False,
    **options: Unpack[ReportOptions],
) -> NotebookReport: ...
@overload
def build_report(
    table: Table,
    out_dir: str | os.PathLike[str],
    measures: Sequence[str] | str | None = None,
    *,
    system: str | None = None,
    latex: bool = False,
    **options: Unpack[ReportOptions],
) -> ReportFiles: ...
def build_report(
    table: Table,
    out_dir: str | os.PathLike[str] | None = None,
    measures: Sequence[str] | str | None = None,
    *,
    system: str | None = None,
    latex: bool = False,
    **options: Unpack[ReportOptions],
) -> NotebookReport | ReportFiles:
    """Compute a report (:func:`compute_report`) and write its files into ``out_dir``, or,
    without ``out_dir``, return it to show in a notebook (:class:`NotebookReport`).

    Parameters
    ----------
    table
        The long table with a system column (``by=``, default ``"system"``): a Polars
        DataFrame or LazyFrame, or a pandas DataFrame or an Arrow table, converted as
        :func:`polars_graded.evaluate` converts it.
    out_dir
        The directory (created if needed) for ``report.html``, ``report.md`` and
        ``per_query.parquet``; checked before any work. ``None`` (default): write nothing
        and return the report.
    measures
        Measure names (default :data:`polars_graded.defaults.REPORT_MEASURES`).
    system
        Deprecated alias of ``by``.
    latex
        Also write ``report.tex`` (see :func:`write_report`); without ``out_dir``, when the
        report is written (:meth:`NotebookReport.write`).
    **options
        The other keyword arguments of :func:`compute_report`
        (:class:`~polars_graded.report.compute.ReportOptions`). With ``progress=True`` the
        bar goes on after :func:`compute_report`'s steps with drawing the charts and
        writing the files (:data:`~polars_graded.report.compute.RENDERING`); without
        ``out_dir``, the report shows that step on a bar of its own when it renders its
        page (:attr:`NotebookReport.html`).

    Returns
    -------
    ReportFiles or NotebookReport
        With ``out_dir``, the paths written. Without, the report: a notebook cell ending
        in it shows the page ``report.html`` holds; its frames (``per_query``,
        ``comparison``, ``thresholds``, ...) are Polars DataFrames; ``.write(folder)``
        writes the files ``build_report(table, folder)`` would, byte for byte.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from polars_graded.report.inputs import example_table
    >>> out = Path(tempfile.mkdtemp()) / "report"
    >>> files = build_report(example_table(), out, ["ap"], trials=100, bootstrap=100)
    >>> [path.name for path in files]
    ['report.html', 'report.md', 'per_query.parquet']
    >>> rep = build_report(example_table(), measures=["ap"], trials=100, bootstrap=100)
    >>> rep.order, rep.per_query.columns
    (('a', 'b'), ['system', 'query', 'ap'])
    """
    if system is not None:  # warned here, so that the warning names the caller's line
        options["by"] = by_column(options.get("by", SYSTEM), system)
    frame = as_polars(table, "build_report")
    progress = options.get("progress", False)
    if out_dir is None:
        built = compute_report(frame, measures, **options)
        return NotebookReport.of(_with_latex(built) if latex else built, progress=progress)
    output_folder(out_dir, "build_report", _NO_FOLDER)  # a wrong folder fails before the work
    # One bar over every step: compute_report goes on with this one, then the charts.
    with report_steps(progress, STEPS) as steps:
        built = compute_report(frame, measures, **options)
        steps.start(RENDERING)
        # latex= only when asked: write_report's callers (and stand-ins) take (report, out_dir).
        return write_report(built, out_dir, latex=True) if latex else write_report(built, out_dir)


report = build_report
"""``pg.report``: :func:`build_report`."""

_NO_FOLDER = (
    "; for the report in Python (a notebook) give none: build_report(table, measures=[...])"
)
"""The end of the error of a folder that is no path: measures given in its place."""


def write_report(
    report: Report, out_dir: str | os.PathLike[str], *, latex: bool = False
) -> ReportFiles:
    """Write ``report.html``, ``report.md`` and ``per_query.parquet`` into ``out_dir``, and
    with ``latex=True`` ``report.tex`` (:func:`~polars_graded.report.latex.to_latex_report`:
    the means table with significance marks, for a paper).

    The files are rendered in memory first, written into a temporary folder beside
    ``out_dir``, then moved into place (the folder at once when it is new, else file by
    file): a report that fails leaves no folder and no half-written file behind, and an
    existing ``out_dir`` keeps its other files. A report replaces all of an earlier
    report's outputs: without ``latex`` it removes the ``report.tex`` an earlier report
    wrote there (one whose first line names polars_graded; any other is left).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> files = write_report(rep, Path(tempfile.mkdtemp()) / "report")
    >>> files.markdown.read_text(encoding="utf-8").splitlines()[0]
    '# Evaluation report'
    """
    folder = output_folder(out_dir, "write_report")
    if latex:
        report = _with_latex(report)
    # to_html and to_markdown looked up here, where tests stand in for them.
    contents = file_contents(report, to_html(report), to_markdown(report), latex=latex)
    return write_files(folder, contents)


def _with_latex(report: Report) -> Report:
    """``report`` written with ``report.tex``: the page's footer and the Markdown name it."""
    return dataclasses.replace(report, outputs=(*FILES, LATEX_FILE))

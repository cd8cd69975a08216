"""Evaluation reports: a self-contained HTML page, a Markdown summary and per-query Parquet.

:func:`build_report` (also :func:`report`) evaluates a long table with a system column (TREC
runs and qrels are joined into one by :func:`trec_table`), compares every system with a
baseline (:func:`polars_graded.compare.compare`) and breaks µMAP down by relevance threshold
(:func:`polars_graded.api.per_threshold`), all under one tie policy (``ties=``); it states
how much tied scores move each mean (:func:`~polars_graded.report.ties.tie_effects`) and
writes ``report.html`` (figures embedded as PNG data URIs, CSS inline, no script, no link
out), ``report.md`` and ``per_query.parquet`` into one directory. :func:`compute_report`
returns the content as a :class:`Report` for a notebook, and :func:`to_html` /
:func:`to_markdown` render it. The figures need matplotlib, the tests scipy:
``pip install 'polars-graded[report]'``.

The package, one module per concern: :mod:`~polars_graded.report.inputs` (the table's
columns, TREC runs), :mod:`~polars_graded.report.compute` (the numbers and the data's
description), :mod:`~polars_graded.report.ties` (tied scores),
:mod:`~polars_graded.report.content` (what a report holds), :mod:`~polars_graded.report.text`
(what both renderings say), :mod:`~polars_graded.report.markdown`,
:mod:`~polars_graded.report.html` (with its CSS) and :mod:`~polars_graded.report.charts`.
"""

from __future__ import annotations

import io
import os
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import polars as pl

from polars_graded.compare import by_column
from polars_graded.errors import InvalidValueError
from polars_graded.report.compute import compute_report, describe, require_extras
from polars_graded.report.content import FILES, Description, Report, Settings
from polars_graded.report.html import to_html
from polars_graded.report.inputs import run_names, trec_table
from polars_graded.report.markdown import to_markdown
from polars_graded.report.ties import count_ties, tie_effects

__all__ = [
    "FILES",
    "Description",
    "Report",
    "ReportFiles",
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
    "to_markdown",
    "trec_table",
    "write_report",
]


class ReportFiles(NamedTuple):
    """The paths :func:`write_report` wrote.

    Examples
    --------
    >>> ReportFiles(*(Path("out") / name for name in FILES)).markdown.as_posix()
    'out/report.md'
    """

    html: Path
    markdown: Path
    per_query: Path


def build_report(
    table: pl.DataFrame | pl.LazyFrame,
    out_dir: str | os.PathLike[str],
    measures: Sequence[str] | str | None = None,
    *,
    system: str | None = None,
    **options: object,
) -> ReportFiles:
    """Compute a report (:func:`compute_report`) and write its three files into ``out_dir``.

    Parameters
    ----------
    table
        The long table with a system column (``by=``, default ``"system"``).
    out_dir
        The directory (created if needed) for ``report.html``, ``report.md`` and
        ``per_query.parquet``.
    measures
        Measure names (default :data:`polars_graded.defaults.REPORT_MEASURES`).
    system
        Deprecated alias of ``by``.
    **options
        The keyword arguments of :func:`compute_report`.

    Returns
    -------
    ReportFiles

    Examples
    --------
    >>> import tempfile
    >>> from polars_graded.report.inputs import example_table
    >>> out = Path(tempfile.mkdtemp()) / "report"
    >>> files = build_report(example_table(), out, ["ap"], trials=100, bootstrap=100)
    >>> [path.name for path in files]
    ['report.html', 'report.md', 'per_query.parquet']
    """
    if system is not None:  # warned here, so that the warning names the caller's line
        options["by"] = by_column(options.get("by", "system"), system)  # type: ignore[arg-type]
    return write_report(compute_report(table, measures, **options), out_dir)  # type: ignore[arg-type]


report = build_report
"""``pg.report``: :func:`build_report`."""


def write_report(report: Report, out_dir: str | os.PathLike[str]) -> ReportFiles:
    """Write ``report.html``, ``report.md`` and ``per_query.parquet`` into ``out_dir``.

    The three files are rendered in memory first, written into a temporary folder beside
    ``out_dir``, then moved into place (the folder at once when it is new, else file by
    file): a report that fails leaves no folder and no half-written file behind, and an
    existing ``out_dir`` keeps its other files.

    Examples
    --------
    >>> import tempfile
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> files = write_report(rep, Path(tempfile.mkdtemp()) / "report")
    >>> files.markdown.read_text(encoding="utf-8").splitlines()[0]
    '# Evaluation report'
    """
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        msg = f"the report's output {os.fspath(folder)!r} is a file; give a folder"
        raise InvalidValueError(msg)
    parquet = io.BytesIO()
    report.per_query.write_parquet(parquet)
    contents = [
        to_html(report).encode("utf-8"),
        to_markdown(report).encode("utf-8"),
        parquet.getvalue(),
    ]
    created = [p for p in (folder.parent, *folder.parent.parents) if not p.exists()]
    try:
        _move_into_place(folder, contents)
    except BaseException:
        if created:  # the folders this call made, from the outermost
            shutil.rmtree(created[-1], ignore_errors=True)
        raise
    return ReportFiles(*(folder / name for name in FILES))


def _move_into_place(folder: Path, contents: Sequence[bytes]) -> None:
    """Write :data:`FILES` into a staging folder beside ``folder``, then move them in."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Not tempfile.mkdtemp: its mode 0700 would become the report folder's.
    staging = folder.parent / f".{folder.name}-{uuid.uuid4().hex[:12]}"
    staging.mkdir()
    try:
        for name, data in zip(FILES, contents, strict=True):
            (staging / name).write_bytes(data)
        if folder.is_dir():
            for name in FILES:
                os.replace(staging / name, folder / name)
        else:
            os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

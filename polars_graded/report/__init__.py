"""Evaluation reports: a self-contained HTML page, a Markdown summary and per-query Parquet.

:func:`build_report` (also :func:`report`) evaluates a long table with a system column (TREC
runs and qrels are joined into one by :func:`trec_table`), compares every system with a
baseline (:func:`polars_graded.stats.compare.compare`) and breaks µMAP down by relevance threshold
(:func:`polars_graded.api.per_threshold`), all under one tie policy (``ties=``); it states
how much tied scores move each mean (:func:`~polars_graded.report.ties.tie_effects`) and
writes ``report.html`` (figures embedded as PNG data URIs, CSS inline, no script, no link
out), ``report.md`` and ``per_query.parquet`` into one directory, and with ``latex=True``
``report.tex`` (the means with significance marks, for a paper). :func:`compute_report`
returns the content as a :class:`Report` for a notebook, and :func:`to_html` /
:func:`to_markdown` render it. The figures need matplotlib, the tests scipy:
``pip install 'polars-graded[report]'``.

The package, one module per concern: :mod:`~polars_graded.report.inputs` (the table's
columns, TREC runs), :mod:`~polars_graded.report.compute` (the numbers and the data's
description), :mod:`~polars_graded.report.ties` (tied scores),
:mod:`~polars_graded.report.content` (what a report holds), :mod:`~polars_graded.report.text`
(what both renderings say), :mod:`~polars_graded.report.markdown`,
:mod:`~polars_graded.report.html` (with its CSS), :mod:`~polars_graded.report.latex` and
:mod:`~polars_graded.report.charts`; the sections beyond the baseline comparison are in
:mod:`~polars_graded.report.sections`.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.report.compute import ReportOptions, compute_report, describe, require_extras
from polars_graded.report.content import FILES, Description, Report, Settings
from polars_graded.report.html import to_html
from polars_graded.report.inputs import run_names, trec_table
from polars_graded.report.latex import LATEX_FILE, to_latex_report
from polars_graded.report.markdown import to_markdown
from polars_graded.report.ties import count_ties, tie_effects
from polars_graded.stats.grid import by_column
from polars_graded.validate import check_frame

__all__ = [
    "FILES",
    "LATEX_FILE",
    "Description",
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


class ReportFiles(tuple[Path, ...]):
    """The paths :func:`write_report` wrote: ``html``, ``markdown``, ``per_query`` (the
    :data:`FILES`) and ``latex`` (``report.tex`` with ``latex=True``, else ``None``).

    A tuple of the paths written: ``report.tex`` is in it (last) only when it was written,
    so iterating, unpacking and ``len`` see just the files on disk.

    Examples
    --------
    >>> files = ReportFiles(*(Path("out") / name for name in FILES))
    >>> files.markdown.as_posix(), files.latex, len(files)
    ('out/report.md', None, 3)
    >>> len(ReportFiles(*files, latex=Path("out") / LATEX_FILE))
    4
    """

    __slots__ = ()

    def __new__(
        cls, html: Path, markdown: Path, per_query: Path, latex: Path | None = None
    ) -> ReportFiles:
        paths = (html, markdown, per_query) + (() if latex is None else (latex,))
        return super().__new__(cls, paths)

    @property
    def html(self) -> Path:
        """``report.html``."""
        return self[0]

    @property
    def markdown(self) -> Path:
        """``report.md``."""
        return self[1]

    @property
    def per_query(self) -> Path:
        """``per_query.parquet``."""
        return self[2]

    @property
    def latex(self) -> Path | None:
        """``report.tex``, or ``None`` when it was not asked for."""
        return self[3] if len(self) > len(FILES) else None

    def __repr__(self) -> str:
        latex = "" if self.latex is None else f", latex={self.latex!r}"
        return (
            f"ReportFiles(html={self.html!r}, markdown={self.markdown!r}, "
            f"per_query={self.per_query!r}{latex})"
        )


def build_report(
    table: pl.DataFrame | pl.LazyFrame,
    out_dir: str | os.PathLike[str],
    measures: Sequence[str] | str | None = None,
    *,
    system: str | None = None,
    latex: bool = False,
    **options: Unpack[ReportOptions],
) -> ReportFiles:
    """Compute a report (:func:`compute_report`) and write its files into ``out_dir``.

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
    latex
        Also write ``report.tex`` (see :func:`write_report`).
    **options
        The other keyword arguments of :func:`compute_report`
        (:class:`~polars_graded.report.compute.ReportOptions`).

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
        options["by"] = by_column(options.get("by", SYSTEM), system)
    check_frame(table, "build_report")
    built = compute_report(table, measures, **options)
    # latex= only when asked: write_report's callers (and stand-ins) take (report, out_dir).
    return write_report(built, out_dir, latex=True) if latex else write_report(built, out_dir)


report = build_report
"""``pg.report``: :func:`build_report`."""


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
    if latex:  # the page's footer and the Markdown name report.tex too
        report = dataclasses.replace(report, outputs=(*FILES, LATEX_FILE))
    parquet = io.BytesIO()
    report.per_query.write_parquet(parquet)
    contents = {
        FILES[0]: to_html(report).encode("utf-8"),
        FILES[1]: to_markdown(report).encode("utf-8"),
        FILES[2]: parquet.getvalue(),
    }
    if latex:
        contents[LATEX_FILE] = to_latex_report(report).encode("utf-8")
    created = [p for p in (folder.parent, *folder.parent.parents) if not p.exists()]
    try:
        _move_into_place(folder, contents)
    except BaseException:
        if created:  # the folders this call made, from the outermost
            shutil.rmtree(created[-1], ignore_errors=True)
        raise
    return ReportFiles(*(folder / name for name in contents))


def _move_into_place(folder: Path, contents: dict[str, bytes]) -> None:
    """Write the files (name: bytes) into a staging folder beside ``folder``, then move
    them in."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Not tempfile.mkdtemp: its mode 0700 would become the report folder's.
    staging = folder.parent / f".{folder.name}-{uuid.uuid4().hex[:12]}"
    staging.mkdir()
    try:
        for name, data in contents.items():
            (staging / name).write_bytes(data)
        if folder.is_dir():
            for name in contents:
                os.replace(staging / name, folder / name)
            if LATEX_FILE not in contents:
                _remove_earlier_latex(folder / LATEX_FILE)
        else:
            os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


_SIGNED_LINES = 8
"""The lines of a ``report.tex`` read for a report's signature (before titles were
escaped, each line break in one took a line more)."""


def _remove_earlier_latex(path: Path) -> None:
    """Remove ``report.tex`` if an earlier report wrote it: beside a new report it would
    show the old numbers. A report's ``report.tex`` opens with its comments (``% <title>:
    polars_graded report.tex``, ``% polars_graded 0.1.0, Polars 1.0, Python 3.12; <date>``);
    a file of that name without them is the user's, and stays."""
    try:
        with path.open("rb") as file:
            head = [file.readline(4096).rstrip(b"\r\n") for _ in range(_SIGNED_LINES)]
    except OSError:  # none, or not a file the report could have written: nothing to remove
        return
    if any(_SIGNATURE.fullmatch(line) for line in head):
        path.unlink(missing_ok=True)


_SIGNATURE = re.compile(
    rb"% .*: polars_graded " + re.escape(LATEX_FILE.encode())
    + rb"|% polars_graded \S+, Polars \S+, Python \S+; .*"
)  # fmt: skip
"""A line of the comments that open a report's ``report.tex``."""

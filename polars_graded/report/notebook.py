"""A report in a notebook: :class:`NotebookReport`, what
:func:`~polars_graded.report.build_report` returns when no output folder is given.

In Jupyter (and VS Code, Colab, anything that shows ``_repr_html_``) it shows the page
``report.html`` would hold, in a sandboxed ``<iframe srcdoc>``: the page's style cannot
reach the notebook nor the notebook's the page, and the page stays one self-contained
document (PNG data URIs, no script, no link out). Its numbers are the frames of
:class:`~polars_graded.report.content.Report` (``per_query``, ``comparison``, ...), which
show as Polars frames; ``write(folder)`` writes the files ``build_report(table, folder)``
writes, byte for byte.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from html import escape
from pathlib import Path

from polars_graded.errors import InvalidValueError
from polars_graded.report.compute import RENDERING, report_steps
from polars_graded.report.content import FILES, Report
from polars_graded.report.files import ReportFiles, file_contents, output_folder, write_files
from polars_graded.report.html import to_html
from polars_graded.report.latex import LATEX_FILE
from polars_graded.report.markdown import to_markdown
from polars_graded.report.names import one_line, shorten

FRAME_HEIGHT = 760
"""The height in pixels of the frame a notebook shows the report in (it scrolls inside)."""

_SHOWN_SYSTEMS = 8
"""The most systems :func:`repr` names (then how many more)."""

# The page's navigation links are fragments (#summary). A srcdoc document resolves relative
# URLs against the notebook's URL, so without this base a click would load the notebook's
# page inside the frame; with it, #summary is about:srcdoc#summary and scrolls the frame.
_BASE = '<base href="about:srcdoc">'


@dataclasses.dataclass(frozen=True)
class NotebookReport(Report):
    """A report (:class:`~polars_graded.report.content.Report`: every frame and setting of
    it) that shows itself in a notebook and can be written to a folder later.

    Made by :func:`~polars_graded.report.build_report` (and ``df.graded.report``) without
    an output folder, or by :meth:`of` from :func:`~polars_graded.report.compute_report`'s
    report. A notebook cell ending in it shows the report's page (:meth:`iframe`); the
    frames ``per_query``, ``comparison``, ``thresholds``, ``ties`` (and ``pairs``,
    ``segments``, ``judgments``, ``stability``, ``power`` when computed) are Polars
    DataFrames; ``html`` and ``markdown`` are the texts of ``report.html`` and
    ``report.md``; :meth:`write` writes the files; ``repr`` is a short summary. With
    ``progress`` (``build_report(..., progress=True)``), drawing the page's charts and
    writing the files show on a progress bar.

    Examples
    --------
    >>> from polars_graded.report import build_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = build_report(example_table(), measures=["ap"], trials=100, bootstrap=100)
    >>> rep.comparison.select("system", "mean", "diff").rows()
    [('a', 0.5, 0.0), ('b', 1.0, 0.5)]
    >>> rep.markdown.splitlines()[0]
    '# Evaluation report'
    >>> print(rep)
    NotebookReport 'Evaluation report'
      systems:  a (baseline), b
      measures: ap
      queries:  2 (8 rows)
      written:  not yet: .write(folder) writes report.html, report.md, per_query.parquet
    """

    progress: bool = False
    """Show the rendering (:data:`~polars_graded.report.compute.RENDERING`) on a progress
    bar on stderr, as ``build_report(..., progress=True)`` asked."""

    @classmethod
    def of(cls, report: Report, *, progress: bool = False) -> NotebookReport:
        """``report`` (of :func:`~polars_graded.report.compute_report`) as a
        :class:`NotebookReport`, its values unchanged; ``progress`` as the attribute.

        Examples
        --------
        >>> from polars_graded.report import compute_report
        >>> from polars_graded.report.inputs import example_table
        >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
        >>> NotebookReport.of(rep).order == rep.order
        True
        """
        values = {field.name: getattr(report, field.name) for field in _FIELDS}
        return cls(**values, progress=progress)

    @functools.cached_property
    def html(self) -> str:
        """The page ``report.html`` holds (rendered once: the charts take seconds, on a
        progress bar with :attr:`progress`)."""
        with report_steps(self.progress, (RENDERING,)) as steps:
            steps.start(RENDERING)
            return to_html(self)

    @functools.cached_property
    def markdown(self) -> str:
        """The text ``report.md`` holds."""
        return to_markdown(self)

    @property
    def latex(self) -> bool:
        """Whether :meth:`write` writes ``report.tex`` too (``latex=True`` when built)."""
        return LATEX_FILE in self.outputs

    @property
    def written(self) -> Path | None:
        """The folder :meth:`write` last wrote the report into, ``None`` before."""
        files = self._files
        return None if files is None else files.html.parent

    @property
    def _files(self) -> ReportFiles | None:
        """The files :meth:`write` last wrote."""
        files: ReportFiles | None = self.__dict__.get("_written")
        return files

    def write(self, out_dir: str | os.PathLike[str], *, latex: bool | None = None) -> ReportFiles:
        """Write ``report.html``, ``report.md`` and ``per_query.parquet`` (and ``report.tex``
        with ``latex``) into ``out_dir``: the files ``build_report(table, out_dir)`` writes
        with the same options, byte for byte, and as safely
        (:func:`~polars_graded.report.write_report`).

        Parameters
        ----------
        out_dir
            The folder (created if needed).
        latex
            Also write ``report.tex``; default: as ``build_report(..., latex=)`` asked.

        Returns
        -------
        ReportFiles

        Examples
        --------
        >>> import tempfile
        >>> from polars_graded.report import build_report
        >>> from polars_graded.report.inputs import example_table
        >>> rep = build_report(example_table(), measures=["ap"], latex=True, trials=100)
        >>> files = rep.write(Path(tempfile.mkdtemp()) / "report")
        >>> files.latex.name, rep.written == files.html.parent
        ('report.tex', True)
        """
        folder = output_folder(out_dir, "write")
        wanted = self.latex if latex is None else latex
        shown = self
        if wanted != self.latex:  # the page's footer and the Markdown name the files written
            outputs = (*FILES, LATEX_FILE) if wanted else FILES
            shown = dataclasses.replace(self, outputs=outputs)
        with report_steps(self.progress, (RENDERING,)) as steps:  # shown.html's bar is this one
            steps.start(RENDERING)
            contents = file_contents(shown, shown.html, shown.markdown, latex=wanted)
            files = write_files(folder, contents)
        self.__dict__["_written"] = files  # frozen fields; where it was written is not one
        return files

    def iframe(self, height: int = FRAME_HEIGHT) -> str:
        """The page in a sandboxed ``<iframe srcdoc>`` (the page escaped as an attribute
        value), the notebook's width and ``height`` pixels high; what the notebook shows.

        Examples
        --------
        >>> from polars_graded.report import build_report
        >>> from polars_graded.report.inputs import example_table
        >>> rep = build_report(example_table(), measures=["ap"], trials=100, bootstrap=100)
        >>> frame = rep.iframe(height=400)
        >>> frame[:37], "height:400px" in frame
        ('<iframe srcdoc="&lt;!DOCTYPE html&gt;', True)
        >>> rep.iframe(height=0)
        Traceback (most recent call last):
        ...
        polars_graded.errors.InvalidValueError: iframe(height=0): the frame's height is a \
number of pixels, an integer >= 1 (default 760)
        """
        if isinstance(height, bool) or not isinstance(height, int) or height < 1:
            msg = (
                f"iframe(height={height!r}): the frame's height is a number of pixels, an "
                f"integer >= 1 (default {FRAME_HEIGHT})"
            )
            raise InvalidValueError(msg)
        page = self.html.replace("<head>", "<head>" + _BASE, 1)
        title = escape(one_line(self.settings.title))
        style = f"width:100%;height:{height}px;border:1px solid #ddd;resize:vertical"
        return f'<iframe srcdoc="{escape(page)}" title="{title}" style="{style}" sandbox></iframe>'

    def _repr_html_(self) -> str:
        """What Jupyter shows: :meth:`iframe`."""
        return self.iframe()

    def __repr__(self) -> str:
        systems = [
            shorten(name) + (" (baseline)" if name == self.settings.baseline else "")
            for name in self.order
        ]
        more = len(systems) - _SHOWN_SYSTEMS
        if more > 0:
            systems = [*systems[:_SHOWN_SYSTEMS], f"... ({more} more)"]
        described = self.description
        files = self._files
        written = (
            f"not yet: .write(folder) writes {', '.join(self.outputs)}"
            if files is None
            else f"{os.fspath(files.html.parent)} ({', '.join(path.name for path in files)})"
        )
        return "\n".join(
            [
                f"{type(self).__name__} {one_line(self.settings.title)!r}",
                f"  systems:  {', '.join(systems)}",
                f"  measures: {', '.join(self.settings.measures)}",
                f"  queries:  {described.queries} ({described.rows} rows)",
                f"  written:  {written}",
            ]
        )


_FIELDS = dataclasses.fields(Report)
"""A report's values, which :meth:`NotebookReport.of` copies."""

"""A report's files on disk: the folder checked before any work (:func:`output_folder`), the
bytes of each file (:func:`file_contents`), and writing them so that a folder appears whole
or not at all (:func:`write_files`, which returns the :class:`ReportFiles` written).

:func:`~polars_graded.report.write_report` and
:meth:`~polars_graded.report.notebook.NotebookReport.write` both end here, so a report
written from a notebook is the same bytes as the one ``build_report(table, folder)`` writes.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import uuid
from pathlib import Path

from polars_graded.errors import InvalidValueError
from polars_graded.report.content import FILES, Report
from polars_graded.report.latex import LATEX_FILE, to_latex_report


class ReportFiles(tuple[Path, ...]):
    """The paths :func:`~polars_graded.report.write_report` wrote: ``html``, ``markdown``,
    ``per_query`` (the :data:`~polars_graded.report.content.FILES`) and ``latex``
    (``report.tex`` with ``latex=True``, else ``None``).

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


def output_folder(out_dir: object, function: str, hint: str = "") -> Path:
    """``out_dir`` as the folder ``function`` writes a report into, checked before any work:
    a path (``str`` or ``os.PathLike``) that is not a file; ``hint`` ends the message of a
    value that is no path.

    Examples
    --------
    >>> output_folder("out", "build_report").name
    'out'
    >>> output_folder(["ap"], "write")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: write(): out_dir is the folder to write the \
report into (a str or pathlib.Path), got list ['ap']
    """
    if not isinstance(out_dir, str | os.PathLike):
        msg = (
            f"{function}(): out_dir is the folder to write the report into (a str or "
            f"pathlib.Path), got {type(out_dir).__name__} {out_dir!r:.80}{hint}"
        )
        raise InvalidValueError(msg)
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        msg = f"the report's output {os.fspath(folder)!r} is a file; give a folder"
        raise InvalidValueError(msg)
    return folder


def file_contents(report: Report, page: str, markdown: str, *, latex: bool) -> dict[str, bytes]:
    """Each file's name and bytes: ``page`` (``report.html``) and ``markdown``
    (``report.md``), the renderings of ``report``, its ``per_query.parquet``, and with
    ``latex`` its ``report.tex``.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> list(file_contents(rep, "<!DOCTYPE html>", "# Report", latex=True))
    ['report.html', 'report.md', 'per_query.parquet', 'report.tex']
    """
    parquet = io.BytesIO()
    report.per_query.write_parquet(parquet)
    contents = {
        FILES[0]: page.encode("utf-8"),
        FILES[1]: markdown.encode("utf-8"),
        FILES[2]: parquet.getvalue(),
    }
    if latex:
        contents[LATEX_FILE] = to_latex_report(report).encode("utf-8")
    return contents


def write_files(folder: Path, contents: dict[str, bytes]) -> ReportFiles:
    """Write ``contents`` (name: bytes) into ``folder``: into a temporary folder beside it
    first, then moved into place (the folder at once when it is new, else file by file). A
    failure leaves no folder and no half-written file behind, and an existing folder keeps
    its other files; without ``report.tex`` in ``contents`` the ``report.tex`` an earlier
    report wrote there is removed (one whose first lines name polars_graded; any other is
    left).

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "new" / "report"
    >>> files = write_files(out, {name: b"" for name in FILES})
    >>> [path.name for path in files], out.is_dir()
    (['report.html', 'report.md', 'per_query.parquet'], True)
    """
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

"""Parquet tables as ``pl.scan_parquet`` reads them: one file, a glob, a directory or a list.

:func:`scan_source` scans every such source the same way, with hive partitioning for a
directory and for a glob (``system=bm25/day=2026-11-01/part.parquet`` gives columns ``system``
and ``day``, usable in ``by=``), and recursive globs (``logs/**/*.parquet``). A source that
names no file is an :class:`~polars_graded.errors.InputFileError`; around the reading,
:func:`reading` turns a Polars error caused by a file (one that is not Parquet, or whose
columns differ from the first file's) into an :class:`~polars_graded.errors.InputFileError`
naming the file. :func:`parquet_files` lists the files, :func:`parquet_rows` and
:func:`parquet_bytes` count their rows (from the footers) and their bytes on disk, which the
memory budget (:mod:`polars_graded.scale.memory`) and the split
(:mod:`polars_graded.scale.spill`) size themselves by. CSV/TSV tables are
:mod:`polars_graded.io.csv_tables`'.
"""

from __future__ import annotations

import contextlib
import glob
from collections.abc import Iterator, Sequence
from pathlib import Path

import polars as pl

from polars_graded.errors import InputFileError

ParquetSource = str | Path | Sequence[str | Path]
"""One Parquet file, a glob such as ``"runs/*.parquet"``, a directory, or a list of files."""


def scan_source(source: ParquetSource) -> pl.LazyFrame:
    """``pl.scan_parquet(source)`` with hive partitioning for a directory and for a glob.

    Polars turns hive partitioning on by itself only for a directory; a glob such as
    ``"logs/**/*.parquet"`` over ``logs/system=bm25/day=2026-11-01/part.parquet`` gets the
    columns ``system`` and ``day`` here too. Every reader of a Parquet source scans through
    here (the row count, the partition filter, the evaluation in partitions, the command
    line's TABLE), so they all see the same files and columns.

    Raises
    ------
    InputFileError
        ``source`` names no file: a missing file, a glob that matches nothing, an empty
        directory or an empty list.

    Examples
    --------
    >>> import polars as pl
    >>> folder = getfixture("tmp_path") / "logs" / "system=bm25"
    >>> folder.mkdir(parents=True)
    >>> pl.DataFrame({"query": [1]}).write_parquet(folder / "part.parquet")
    >>> scan_source(str(folder.parent / "**" / "*.parquet")).collect().rows()
    [(1, 'bm25')]
    """
    _require_files(source)
    if isinstance(source, str | Path):
        hive = is_glob(str(source)) or Path(source).is_dir()
        return pl.scan_parquet(source, hive_partitioning=True if hive else None)
    return pl.scan_parquet([str(path) for path in source])


def _require_files(source: ParquetSource) -> None:
    """Raise :class:`InputFileError` unless every part of ``source`` names a file."""
    if not isinstance(source, str | Path):
        parts = list(source)
        if not parts:
            msg = "no Parquet file given: the list of files is empty"
            raise InputFileError(msg)
        for part in parts:
            _require_files(part)
        return
    text = str(source)
    if is_glob(text):
        problem = None if parquet_files(source) else f"no file matches {text}"
    elif Path(text).is_dir():
        problem = None if parquet_files(source) else f"no file in directory {text}"
    else:
        problem = None if Path(text).is_file() else f"no such file: {text}"
    if problem is not None:
        raise InputFileError(problem)


@contextlib.contextmanager
def reading(source: ParquetSource) -> Iterator[None]:
    """Turn a Polars error raised while reading ``source`` into an :class:`InputFileError`
    naming the file when a file is the cause: one that is not Parquet (or is corrupt), or
    whose columns or types differ from the first file's. Any other error passes unchanged.

    The files are examined only after an error, so a valid source pays nothing.

    Examples
    --------
    >>> import polars as pl
    >>> path = getfixture("tmp_path") / "notes.parquet"
    >>> _ = path.write_text("not Parquet")
    >>> with reading(path):
    ...     pl.read_parquet(path)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InputFileError: ... is not a readable Parquet file (...)
    """
    try:
        yield
    except pl.exceptions.PolarsError as error:
        problem = _file_problem(source)
        if problem is None:
            raise
        raise InputFileError(problem) from error


def _file_problem(source: ParquetSource) -> str | None:
    """What is wrong with a file of ``source``, read footer by footer; ``None`` if nothing."""
    first: tuple[Path, dict[str, pl.DataType]] | None = None
    for path in parquet_files(source):
        try:
            schema = pl.read_parquet_schema(path)
        except (pl.exceptions.PolarsError, OSError) as error:
            reason = " ".join(str(error).split())
            return f"{path} is not a readable Parquet file ({reason})"
        if first is None:
            first = (path, schema)
            continue
        difference = _schema_difference(*first, path, schema)
        if difference is not None:
            return f"Parquet files read together need the same columns and types: {difference}"
    return None


def _schema_difference(
    first: Path, expected: dict[str, pl.DataType], path: Path, schema: dict[str, pl.DataType]
) -> str | None:
    """How ``path``'s schema differs from the first file's (column order does not matter)."""
    missing = [name for name in expected if name not in schema]
    if missing:
        return f"{path} has no column(s) {missing} that {first} has"
    extra = [name for name in schema if name not in expected]
    if extra:
        return f"{path} has column(s) {extra} that {first} has not"
    for name, dtype in expected.items():
        if schema[name] != dtype:
            return f"column {name!r} is {schema[name]} in {path} but {dtype} in {first}"
    return None


def parquet_files(source: ParquetSource) -> list[Path]:
    """The files of ``source``: a file, a glob (``**`` recursive), a directory (recursively,
    every file, as Polars reads it) or a list of them.

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> (folder / "system=bm25").mkdir()
    >>> (folder / "system=bm25" / "part.parquet").touch()
    >>> [path.relative_to(folder).as_posix() for path in parquet_files(folder)]
    ['system=bm25/part.parquet']
    """
    if not isinstance(source, str | Path):
        return [file for one in source for file in parquet_files(one)]
    text = str(source)
    if is_glob(text):
        return sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
    path = Path(source)
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file())
    return [path]


def is_glob(text: str) -> bool:
    """True when ``text`` is a glob pattern (``*``, ``?`` or ``[``), as Polars expands it.

    Examples
    --------
    >>> is_glob("logs/**/*.parquet"), is_glob("logs/day1.parquet")
    (True, False)
    """
    return any(char in text for char in "*?[")


def parquet_rows(source: ParquetSource) -> int:
    """Number of rows of the Parquet files of ``source``, from their footers (Polars counts
    them without reading the data, over the files and columns of :func:`scan_source`).

    Examples
    --------
    >>> import polars as pl
    >>> folder = getfixture("tmp_path")
    >>> for day in (1, 2):
    ...     pl.DataFrame({"query": [day] * 3}).write_parquet(folder / f"day{day}.parquet")
    >>> parquet_rows(str(folder / "*.parquet"))
    6
    """
    with reading(source):
        return int(scan_source(source).select(pl.len()).collect().item())


def parquet_bytes(source: ParquetSource) -> int:
    """Bytes of the Parquet files of ``source`` on disk (:func:`parquet_files`).

    Examples
    --------
    >>> import polars as pl
    >>> path = getfixture("tmp_path") / "runs.parquet"
    >>> pl.DataFrame({"query": range(1000)}).write_parquet(path)
    >>> parquet_bytes(path) == path.stat().st_size
    True
    """
    return sum(path.stat().st_size for path in parquet_files(source))

"""Split a table once into pieces on disk, by a piece number per row, and read the pieces back.

Evaluating Parquet larger than memory (:mod:`polars_graded.scale.parquet`) gives every row the
number of its partition (a hash of the ranking's keys); :func:`split` writes the rows in one
streaming pass into one folder of Parquet files per piece, in a temporary folder removed on
exit (on error too), and :func:`pieces` reads them back one after another. Each piece keeps
the rows in the source's order (the sink keeps the order, and a piece's files are numbered in
the order they were written), so a piece equals the source filtered to its rows.

The split is written with LZ4, which writes and reads fastest here (10M rows of
``benchmarks/generate.py``, 8 pieces: 1.4 s to split and 0.2 s to read back with LZ4,
1.9 s and 0.3 s with zstd, 1.5 s and 0.1 s uncompressed), for about 1.25 times the bytes of
the zstd-compressed source (2.1 times uncompressed). The streaming pass takes about 0.45 GiB
and holds a row group per piece (122,880 rows by default): about 0.5 GiB in all for 10 pieces
of 100M rows, 0.75 GiB for 40, 1.6 GiB for 200 (2026-11-23, Polars 2.1), which
:func:`buffer_rows` bounds with smaller row groups. Polars calls its partitioned sink
unstable: ``tests/test_scale_spill.py`` checks the layout and the order this module relies on.
"""

from __future__ import annotations

import contextlib
import errno
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import polars as pl

from polars_graded.errors import SpillError

SPILL_FACTOR: Final = 1.5
"""Free disk the split needs, per byte of the source's Parquet files: the LZ4 pieces take
about 1.25 times a zstd-compressed source (see the module's docstring)."""

BUFFERED_BYTES_PER_ROW: Final = 45
"""Memory a row takes in a piece's write buffer while splitting (measured on 100M rows of
``benchmarks/generate.py`` in 200 pieces: 1.6 GiB with Polars' row groups of 122,880 rows,
1.0 GiB with 65,536, 0.6 GiB with 16,384, over about 0.45 GiB for the pass itself)."""

DEFAULT_BUFFER_ROWS: Final = 122_880
"""Polars' row group in a streaming Parquet sink (2.1): a piece buffers as many rows."""

MIN_BUFFER_ROWS: Final = 16_384
"""The smallest row group the split writes, whatever the memory: smaller ones slow it."""

_PIECE: Final = "piece"
"""Name of the piece number in the folder names (``piece=3``); it is not written as a column."""


@contextlib.contextmanager
def split(
    lf: pl.LazyFrame,
    piece: pl.Expr,
    count: int,
    *,
    spill_dir: str | Path | None = None,
    needed_bytes: int = 0,
    buffer_bytes: int | None = None,
) -> Iterator[list[list[Path]]]:
    """Write the rows of ``lf`` into ``count`` pieces by ``piece`` (an integer expression,
    ``0 <= piece < count``) in one streaming pass; yield the files of each piece, in order
    (an empty list for a piece without rows). The pieces live in a temporary folder under
    ``spill_dir`` (default: the system's, ``tempfile.gettempdir()``), removed on exit.
    ``buffer_bytes`` bounds the memory of the pieces' write buffers (:func:`buffer_rows`).

    Raises
    ------
    SpillError
        ``spill_dir`` cannot hold a folder, has less free space than ``needed_bytes``, or
        the write fails for lack of space; the message names the folder.

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"query": [1, 2, 3, 4, 5]})
    >>> with split(lf, pl.col("query") % 2, 2) as files:
    ...     [pl.read_parquet(piece)["query"].to_list() for piece in files]
    [[2, 4], [1, 3, 5]]
    """
    where = Path(tempfile.gettempdir() if spill_dir is None else spill_dir)
    _check_free_space(where, needed_bytes)
    try:
        # A failed removal must not hide the error that ended the evaluation.
        folder = tempfile.TemporaryDirectory(
            prefix="polars-graded-split-", dir=where, ignore_cleanup_errors=True
        )
    except OSError as error:
        raise SpillError(_cannot(where, error.strerror or str(error))) from error
    with folder as root:
        rows = None if buffer_bytes is None else buffer_rows(buffer_bytes, count)
        _write_pieces(lf, piece, Path(root), where, rows)
        yield [sorted((Path(root) / f"{_PIECE}={i}").glob("*.parquet")) for i in range(count)]


def _cannot(where: Path, reason: str) -> str:
    """The message of a :class:`SpillError`."""
    return f"cannot split the table into {where}: {reason}"


def _check_free_space(where: Path, needed: int) -> None:
    """Raise :class:`SpillError` when ``where`` has less than ``needed`` bytes free."""
    try:
        free = shutil.disk_usage(where).free
    except OSError as error:
        raise SpillError(_cannot(where, error.strerror or str(error))) from error
    if free < needed:
        reason = (
            f"it needs about {needed / 2**30:.3g} GiB of free disk, {where} has "
            f"{free / 2**30:.3g} GiB (choose another spill_dir)"
        )
        raise SpillError(_cannot(where, reason))


def buffer_rows(buffer_bytes: int, count: int) -> int | None:
    """Rows per row group such that ``count`` pieces buffer about ``buffer_bytes`` while the
    table is split, at least :data:`MIN_BUFFER_ROWS`; ``None`` (Polars' default) when that
    would buffer more than Polars does.

    Examples
    --------
    >>> buffer_rows(2**30, 10), buffer_rows(2**28, 100), buffer_rows(1, 100)
    (None, 59652, 16384)
    """
    rows = buffer_bytes // (count * BUFFERED_BYTES_PER_ROW)
    return None if rows >= DEFAULT_BUFFER_ROWS else max(rows, MIN_BUFFER_ROWS)


def _write_pieces(
    lf: pl.LazyFrame, piece: pl.Expr, root: Path, where: Path, rows: int | None
) -> None:
    """One streaming pass writing ``root/piece=N/*.parquet``, in the rows' order, in row
    groups of ``rows`` (Polars' default for ``None``)."""
    target = pl.PartitionBy(root, key=piece.alias(_PIECE), include_key=False)
    try:
        lf.sink_parquet(
            target,
            compression="lz4",
            statistics=False,  # each piece is read whole: 9% of the split's time saved
            row_group_size=rows,
            maintain_order=True,
            engine="streaming",
        )
    except (pl.exceptions.PolarsError, OSError) as error:
        _settle(root)
        if not _out_of_space(error):
            raise
        raise SpillError(_cannot(where, "no space left on the device")) from error


def _settle(root: Path) -> None:
    """Wait until nothing more is written under ``root`` (at most about 5 s): after a failed
    write, Polars' writers may still create files for a moment, which would make the
    folder's removal fail or leave it behind."""
    seen: list[tuple[str, int]] | None = None
    for _ in range(50):
        try:
            now = sorted((str(path), path.stat().st_size) for path in root.rglob("*"))
        except OSError:  # a file went away while listed: still moving
            now = None
        if now is not None and now == seen:
            return
        seen = now
        time.sleep(0.1)


def _out_of_space(error: Exception) -> bool:
    """Whether a write failed for lack of disk space (Polars reports it in its message)."""
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return True
    return "no space left" in str(error).lower() or "os error 28" in str(error).lower()


def pieces(files: list[list[Path]]) -> Iterator[tuple[int, pl.LazyFrame]]:
    """The non-empty pieces of :func:`split`, as ``(number, scan of its files)``.

    A scan, not a frame read beforehand: collecting a plan over it frees the rows it has
    read as the plan goes on (10M rows in 10 pieces: 0.3 GiB less at the peak). Reading is
    about 5% of evaluating a piece (10M rows in 8 pieces: 0.4 s of 7 s), so reading the
    next piece in a thread while one is evaluated would save little for the memory of two.

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"query": [1, 2, 3]})
    >>> with split(lf, pl.col("query") % 4, 4) as files:
    ...     [(i, piece.collect().height) for i, piece in pieces(files)]
    [(1, 1), (2, 1), (3, 1)]
    """
    for index, paths in enumerate(files):
        if paths:
            # No hive columns: the piece number is in the folder's name, not a column.
            yield index, pl.scan_parquet(paths, hive_partitioning=False)

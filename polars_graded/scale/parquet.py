"""Evaluate Parquet larger than memory: the rankings in partitions of whole queries.

Every ranking (one per ``by + [query]``) goes to one of ``N`` partitions by a hash of its
key columns (:func:`partition_index`). One streaming pass over the source writes each
partition's rows to disk, in the source's order, under a temporary folder
(:func:`polars_graded.scale.spill.split`); each partition is then read back and evaluated in
memory with the normal plan (:func:`polars_graded.plan.per_query`). A partition holds whole
queries, so its per-query values are those of the whole table. The per-query frames (one
row per query, small) are concatenated and sorted by the keys as the plan sorts them, and
the summary is computed from that frame with :func:`polars_graded.plan.summary`. The source
is read once whatever ``N`` (every column the evaluation reads, for the split), and its key
columns once more only when its first rows hold fewer rankings than ``N`` (to cap ``N``), so
the time grows with the rows, not with rows times ``N``.

Peak memory is that of one partition, about ``1/N`` of evaluating the table in one go, plus
the interpreter and the reading of the Parquet files, or that of the split if larger (about
0.45 GiB for the streaming pass, plus write buffers kept to half a partition's estimate,
:func:`polars_graded.scale.spill.buffer_rows`). ``N`` comes from a memory budget and an
estimate of the one-go peak (:func:`estimate_peak_memory`), or is given directly. The split
takes about 1.25 times the bytes of a zstd-compressed source on disk (checked before it
starts, see ``spill_dir=``).

Exactness: the partitions run on Polars' in-memory engine (:data:`polars_graded.defaults.ENGINE`),
whose results do not depend on how the rows are split. Polars' streaming engine (the default
of ``collect()`` in Polars 2) can differ from it in the last bit on a few values (a division by
a constant such as P@k's ``k`` is sometimes done as a multiplication by its inverse), so the
result equals ``scan.graded.evaluate(...).collect(engine="in-memory")`` bit for bit.

µAP with ``levels="table"`` divides by the top label of the whole ``by`` group, so with it the
partitions split the ``by`` groups (systems), not the queries; without ``by`` columns it runs
in one partition.

There are never more partitions than rankings (a partition holds whole rankings; the distinct
keys are counted in one scan of the key columns) nor more than :data:`MAX_PARTITIONS`; when
either caps the requested number a :class:`~polars_graded.errors.GradedWarning` says so.

The source is read as ``pl.scan_parquet`` reads it (:func:`scan_source`): recursive globs
(``logs/**/*.parquet``), and hive partitioning (``system=bm25/day=2026-11-01/part.parquet``
gives columns ``system`` and ``day``, usable in ``by=``) for a directory and for a glob.
A source that names no file, a file that is not Parquet and files whose columns differ are
:class:`~polars_graded.errors.InputFileError` naming the file.

The module holds the two entry points (:func:`evaluate_parquet`, :func:`summary_parquet`), the
partitioning (how many, :func:`choose_partitions`; by which keys, :func:`partition_keys`, which
:mod:`polars_graded.spark` shares; the split on disk is :mod:`polars_graded.scale.spill`'s), the
reading of sources (:func:`scan_source`, :func:`reading`), memory sizes (:func:`parse_memory`,
:func:`format_memory`) and the progress bar.
"""

from __future__ import annotations

import contextlib
import glob
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final, TextIO, Unpack

import polars as pl

from polars_graded import api, plan
from polars_graded.defaults import ENGINE
from polars_graded.errors import GradedWarning, InputFileError, InvalidValueError
from polars_graded.measures import Measure, MeasureSpec, as_named_measures
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.scale import spill
from polars_graded.validate import check_schema

ParquetSource = str | Path | Sequence[str | Path]
"""One Parquet file, a glob such as ``"runs/*.parquet"``, a directory, or a list of files."""

# Peak RSS of the in-memory evaluation per input row, measured with /usr/bin/time -v on
# 10M-row logs of benchmarks/generate.py (2026-11-22, 2 CPUs, 23.5 GiB, Polars 2.1, plan of
# commit e2c8c62, engine "in-memory", measures mu_ap, ndcg@10, ndcng@10, ap, p@10, rr; the
# interpreter with Polars takes ~100 MiB): string ids 1.5-1.6 GiB (~160 bytes per row), Int64
# ids 1.0 GiB (~100), continuous labels with string ids 2.5 GiB (~260). 400 leaves room for
# the largest (an earlier plan took 390 bytes per row there) and for reading the Parquet.
BYTES_PER_ROW = 400
"""Estimated peak memory of evaluating one input row in one go (see the comment above)."""

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "m": 10**6,
    "g": 10**9,
    "t": 10**12,
    "ki": 2**10,
    "mi": 2**20,
    "gi": 2**30,
    "ti": 2**40,
}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]i?)?b?", re.IGNORECASE)
MAX_PARTITIONS: Final = 4096
"""The most partitions an evaluation uses, whatever the budget asks for. The split writes
every partition at once, each with its own files and write buffer, so more partitions cost
time and memory there; at 4096, a table of a billion rows (about 400 GB to evaluate in one
go, :data:`BYTES_PER_ROW`) needs about 100 MB per partition, so a tinier budget would only
multiply the files (a 1-byte budget on 200 rows once asked for 80,000 partitions)."""

KEY_SAMPLE_ROWS: Final = 1_000_000
"""Rows read first when counting the rankings: when they alone hold as many rankings as
partitions are asked for, no cap applies and the whole key columns are not read (counting 10M
distinct string keys over 1B rows took about 50 s, 7% of evaluating them out of core)."""


# --------------------------------------------------------------------------- public


def evaluate_parquet(
    source: ParquetSource,
    measures: MeasureSpec,
    *,
    memory_budget: str | int | None = None,
    partitions: int | None = None,
    progress: bool = False,
    spill_dir: str | Path | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """Per-query values of Parquet larger than memory, evaluated in partitions of queries.

    The result equals ``pl.scan_parquet(source).graded.evaluate(measures, ...)`` collected
    with ``engine="in-memory"`` (frame equality, every bit), while the peak memory is that of
    one partition (see :mod:`polars_graded.scale.parquet`).

    Parameters
    ----------
    source
        A Parquet file, a glob (``"runs/*.parquet"``), a directory of Parquet files or a
        list of files. A query's rows may be spread over several files.
    measures
        Measure objects or names, as for ``df.graded.evaluate``.
    memory_budget
        Memory the evaluation may take, as bytes or a string such as ``"512MiB"``,
        ``"4GiB"`` or ``"2GB"`` (``KiB``/``MiB``/``GiB``/``TiB`` are powers of 1024,
        ``kB``/``MB``/``GB``/``TB`` powers of 1000). The number of partitions is the
        estimated in-memory peak divided by it. Default: half of the machine's memory.
    partitions
        The number of partitions, instead of a budget; 1 evaluates in one go.
    progress
        Draw a progress bar over the partitions on stderr.
    spill_dir
        The folder under which the source is split into partitions on disk (a temporary
        folder, removed at the end): about 1.5 times the bytes of the source's files must
        be free there. Default: the system's temporary folder (``tempfile.gettempdir()``,
        ``TMPDIR`` if set).
    **columns
        ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=``, as for
        ``df.graded.evaluate``.

    Returns
    -------
    polars.DataFrame
        One row per ``by + [query]`` (sorted), one Float64 column per measure.

    Raises
    ------
    InputFileError
        ``source`` names no file (a glob that matches nothing, an empty directory, a
        missing file), a file is not Parquet, or the files' columns or types differ; the
        message names the file.
    SpillError
        The partitions cannot be written under ``spill_dir`` (too little free disk, or the
        write failed for lack of space); the message names the folder.

    Warns
    -----
    GradedWarning
        The partitions asked for (by ``partitions`` or the budget) are capped: never more
        than the rankings, nor more than :data:`MAX_PARTITIONS`.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> path = getfixture("tmp_path") / "runs.parquet"
    >>> pl.DataFrame({
    ...     "query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
    ...     "score": [2.0, 1.0, 2.0, 1.0], "relevance": [0, 1, 1, 0],
    ... }).write_parquet(path)
    >>> pg.evaluate_parquet(path, ["ap", "ndcg@2"], partitions=2)
    shape: (2, 3)
    ┌───────┬─────┬─────────┐
    │ query ┆ ap  ┆ ndcg@2  │
    │ ---   ┆ --- ┆ ---     │
    │ i64   ┆ f64 ┆ f64     │
    ╞═══════╪═════╪═════════╡
    │ 1     ┆ 0.5 ┆ 0.63093 │
    │ 2     ┆ 1.0 ┆ 1.0     │
    └───────┴─────┴─────────┘
    """
    cols = TableSpec.of(columns)
    wanted = as_named_measures(measures)
    with reading(source):
        scan = scan_source(source)
        count = _partition_count(
            scan,
            source,
            list(wanted.values()),
            cols,
            memory_budget=memory_budget,
            partitions=partitions,
        )
        return _evaluate_in_partitions(
            scan, source, wanted, cols, count, progress=progress, spill_dir=spill_dir
        )


def summary_parquet(
    source: ParquetSource,
    measures: MeasureSpec,
    *,
    memory_budget: str | int | None = None,
    partitions: int | None = None,
    progress: bool = False,
    spill_dir: str | Path | None = None,
    mean: plan.MeanKind = "arithmetic",
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """``num_q`` and the mean of each measure per ``by`` group, for Parquet larger than memory.

    Takes the arguments of :func:`evaluate_parquet` and ``mean=`` (``"geometric"`` for
    trec_eval's geometric mean, see ``df.graded.summary``), and raises and warns as it does;
    the result equals
    ``pl.scan_parquet(source).graded.summary(measures, ...)`` collected with
    ``engine="in-memory"``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> path = getfixture("tmp_path") / "runs.parquet"
    >>> pl.DataFrame({
    ...     "query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
    ...     "score": [2.0, 1.0, 2.0, 1.0], "relevance": [0, 1, 1, 0],
    ... }).write_parquet(path)
    >>> pg.summary_parquet(path, ["ap"], memory_budget="1GiB")
    shape: (1, 2)
    ┌───────┬──────┐
    │ num_q ┆ ap   │
    │ ---   ┆ ---  │
    │ u32   ┆ f64  │
    ╞═══════╪══════╡
    │ 2     ┆ 0.75 │
    └───────┴──────┘
    """
    plan.check_mean(mean)
    names = list(as_named_measures(measures))
    values = evaluate_parquet(
        source,
        measures,
        memory_budget=memory_budget,
        partitions=partitions,
        progress=progress,
        spill_dir=spill_dir,
        **columns,
    )
    # The core's summary of the per-query values at hand: api.summary would evaluate again.
    return plan.summary(values.lazy(), names, TableSpec.of(columns).by, mean).collect()


# --------------------------------------------------------------------------- partitions


def choose_partitions(source: ParquetSource, memory_budget: str | int | None = None) -> int:
    """How many partitions keep the evaluation of ``source`` within ``memory_budget``.

    ``ceil(estimated peak / budget)``, at least 1; the budget defaults to
    :func:`default_memory_budget`.

    Examples
    --------
    >>> import polars as pl
    >>> path = getfixture("tmp_path") / "runs.parquet"
    >>> pl.DataFrame({"query": range(1000)}).write_parquet(path)
    >>> choose_partitions(path, "100kB")  # 1000 rows * 400 bytes
    4
    """
    budget = default_memory_budget() if memory_budget is None else parse_memory(memory_budget)
    return max(1, math.ceil(estimate_peak_memory(source) / budget))


def estimate_peak_memory(source: ParquetSource) -> int:
    """Estimated peak memory (bytes) of evaluating ``source`` in one go: ``rows *
    BYTES_PER_ROW``, the rows counted in the Parquet footers (nothing else is read).

    Examples
    --------
    >>> import polars as pl
    >>> path = getfixture("tmp_path") / "runs.parquet"
    >>> pl.DataFrame({"query": range(1000)}).write_parquet(path)
    >>> estimate_peak_memory(path)
    400000
    """
    return parquet_rows(source) * BYTES_PER_ROW


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


def scan_source(source: ParquetSource) -> pl.LazyFrame:
    """``pl.scan_parquet(source)`` with hive partitioning for a directory and for a glob.

    Polars turns hive partitioning on by itself only for a directory; a glob such as
    ``"logs/**/*.parquet"`` over ``logs/system=bm25/day=2026-11-01/part.parquet`` gets the
    columns ``system`` and ``day`` here too. Every reader of this module scans through here,
    so the row count, the partition filter and the evaluation see the same files and columns.

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


def _partition_count(
    scan: pl.LazyFrame,
    source: ParquetSource,
    measures: list[Measure],
    cols: TableSpec,
    *,
    memory_budget: str | int | None,
    partitions: int | None,
) -> int:
    """The number of partitions from the arguments, capped (:func:`_cap_partitions`); 1
    when no key can split the table."""
    if partitions is not None and memory_budget is not None:
        msg = "give memory_budget or partitions, not both"
        raise InvalidValueError(msg)
    if partitions is not None:
        count = check_partitions(partitions)
    else:
        count = choose_partitions(source, memory_budget)
    keys = partition_keys(measures, cols)
    if not keys or count == 1:
        return 1
    # The plan's schema rules (missing or repeated columns) before the keys are read.
    check_schema(scan.collect_schema(), cols)
    return _cap_partitions(scan, keys, count)


def _cap_partitions(scan: pl.LazyFrame, keys: list[str], count: int) -> int:
    """``count``, but at most the distinct ``keys`` (a partition holds whole rankings, so
    more partitions would be empty) and at most :data:`MAX_PARTITIONS`; warns when capped."""
    capped = min(count, MAX_PARTITIONS)
    reason = f"{MAX_PARTITIONS} is the most (the split writes every partition at once)"
    # The whole key columns are read only when the first rows hold too few rankings.
    distinct = _distinct_keys(scan.head(KEY_SAMPLE_ROWS), keys)
    if distinct < capped:
        distinct = _distinct_keys(scan, keys)
    if distinct < capped:
        capped = max(distinct, 1)
        reason = (
            f"the table has only {distinct} distinct ({', '.join(keys)}) key(s), and a "
            "partition holds whole rankings"
        )
    if capped < count and distinct > 0:  # an empty table is no surprise to warn about
        msg = f"evaluating in {capped} partition(s), not {count}: {reason}"
        warnings.warn(msg, GradedWarning, stacklevel=4)
    return capped


def _distinct_keys(scan: pl.LazyFrame, keys: list[str]) -> int:
    """The number of distinct ``keys`` rows of ``scan`` (a streaming pass over those columns)."""
    counted = scan.select(keys).unique().select(pl.len())
    return int(counted.collect(engine="streaming").item())


def check_partitions(partitions: object) -> int:
    """A ``partitions=`` argument, checked: a positive integer (not a bool).

    Examples
    --------
    >>> check_partitions(4)
    4
    >>> check_partitions(0)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: partitions must be a positive integer, got 0
    """
    if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
        msg = f"partitions must be a positive integer, got {partitions!r}"
        raise InvalidValueError(msg)
    return partitions


def partition_keys(measures: Sequence[Measure], cols: TableSpec) -> list[str]:
    """Columns whose hash picks the partition: the ranking's keys, or ``by`` alone when a
    measure needs the whole ``by`` group (µAP with ``levels="table"``). Spark shuffles by them
    too (:func:`polars_graded.spark.evaluate`).

    Examples
    --------
    >>> import polars_graded as pg
    >>> from polars_graded.options import TableSpec
    >>> partition_keys([pg.AP], TableSpec(by=("system",)))
    ['system', 'query']
    >>> partition_keys([pg.MuAP(levels="table")], TableSpec(by=("system",)))
    ['system']
    """
    if any(getattr(m, "levels", None) == "table" for m in measures):
        return list(cols.by)
    return cols.keys


def partition_filter(keys: Sequence[str], index: int, count: int) -> pl.Expr:
    """True for the rows of partition ``index`` of ``count``: a hash of the ``keys``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"query": [1, 1, 2, 3, 3, 3]})
    >>> sizes = [df.filter(partition_filter(["query"], i, 2)).height for i in range(2)]
    >>> sum(sizes)  # every row in exactly one partition, each query whole
    6
    """
    return partition_index(keys, count) == index


def partition_index(keys: Sequence[str], count: int) -> pl.Expr:
    """The partition of each row, ``0 <= index < count``: a hash of the ``keys``, so a
    ranking's rows share one partition.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"query": [1, 1, 2]})
    >>> index = df.select(partition_index(["query"], 4))["query"].to_list()
    >>> index[0] == index[1] and all(0 <= i < 4 for i in index)
    True
    """
    return pl.struct(*keys).hash(seed=0) % count


def _evaluate_in_partitions(
    scan: pl.LazyFrame,
    source: ParquetSource,
    measures: dict[str, Measure],
    cols: TableSpec,
    count: int,
    *,
    progress: bool,
    spill_dir: str | Path | None,
) -> pl.DataFrame:
    """Per-query values: the source split once into ``count`` partitions on disk, each
    evaluated in memory, the results concatenated and sorted by the keys.

    ``scan``: :func:`scan_source` of ``source``; ``measures``: output name -> measure.
    """
    if count == 1:
        return api.evaluate(scan, measures, **cols.options()).collect(engine=ENGINE)
    keys = partition_keys(list(measures.values()), cols)
    bar = ProgressBar(count) if progress else None
    parts = []
    # A threshold above every label is a fact of the whole table, not of one partition:
    # each partition reports its largest label, and the warning comes once, at the end.
    largest: list[float | None] = []
    with _split(scan, source, cols, keys, count, spill_dir=spill_dir) as files:
        for index, piece in spill.pieces(files):
            # The core's plan, not api.evaluate: its warn= hook collects each piece's label.
            values = plan.per_query(piece, measures, cols, warn=largest.append)
            parts.append(values.collect(engine=ENGINE))
            if bar is not None:
                bar.update(index + 1)
    if bar is not None and not files[-1]:  # the last partition is empty: end the bar
        bar.update(count)
    labels = [label for label in largest if label is not None]
    plan.warn_unreachable_thresholds(list(measures.values()), max(labels, default=None))
    return pl.concat(parts).sort(cols.keys, nulls_last=True)


def _split(
    scan: pl.LazyFrame,
    source: ParquetSource,
    cols: TableSpec,
    keys: list[str],
    count: int,
    *,
    spill_dir: str | Path | None,
) -> contextlib.AbstractContextManager[list[list[Path]]]:
    """:func:`polars_graded.scale.spill.split` of the columns the evaluation reads into
    ``count`` partitions by ``keys``; its write buffers take at most half of what
    evaluating one partition is estimated to take."""
    read = set(cols.columns)
    return spill.split(
        scan.select([name for name in scan.collect_schema() if name in read]),
        partition_index(keys, count),
        count,
        spill_dir=spill_dir,
        needed_bytes=math.ceil(parquet_bytes(source) * spill.SPILL_FACTOR),
        buffer_bytes=estimate_peak_memory(source) // (2 * count),
    )


# --------------------------------------------------------------------------- memory


def parse_memory(value: str | int) -> int:
    """Bytes from a size such as ``"512MiB"``, ``"4GiB"``, ``"2GB"``, ``"1.5 GiB"`` or an int.

    ``KiB``/``MiB``/``GiB``/``TiB`` are powers of 1024; ``kB``/``MB``/``GB``/``TB`` (and
    ``k``/``M``/``G``/``T``) powers of 1000; a bare number counts bytes.

    Examples
    --------
    >>> parse_memory("512MiB"), parse_memory("4GiB"), parse_memory("2GB"), parse_memory(1000)
    (536870912, 4294967296, 2000000000, 1000)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        match = _SIZE.fullmatch(value.strip()) if isinstance(value, str) else None
        if match is None:
            msg = (
                "memory budget must be a size such as '512MiB', '4GiB', '2GB' or a number "
                f"of bytes, got {value!r}"
            )
            raise InvalidValueError(msg)
        number = int(float(match[1]) * _UNITS[(match[2] or "").lower()])
    if number < 1:
        msg = f"memory budget must be at least 1 byte, got {value!r}"
        raise InvalidValueError(msg)
    return number


def default_memory_budget() -> int:
    """Half of the memory this process may use: the machine's, or its cgroup's limit.

    Examples
    --------
    >>> default_memory_budget() > 0
    True
    """
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return min(total, _cgroup_limit() or total) // 2


def _cgroup_limit() -> int | None:
    """The memory limit of the process's cgroup (v2), if it has one."""
    try:
        text = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def format_memory(size: int) -> str:
    """A size in bytes as ``"1.5 GiB"``.

    Examples
    --------
    >>> format_memory(3 * 2**29)
    '1.5 GiB'
    """
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{value:.3g} {unit}"
        value /= 1024
    return f"{value:.3g} TiB"


# --------------------------------------------------------------------------- progress


class ProgressBar:
    """A one-line ``\\r`` progress bar over ``total`` steps, with the elapsed time.

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> bar = ProgressBar(2, stream=stream, width=4)
    >>> bar.update(2)
    >>> stream.getvalue().split("\\r")[-1]
    '[####] 2/2 partitions, 0 s\\n'
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.started = time.monotonic()
        self.update(0)

    def update(self, done: int) -> None:
        """Redraw with ``done`` steps finished; the last step ends the line."""
        filled = self.width * done // self.total
        elapsed = time.monotonic() - self.started
        line = (
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
            f"{done}/{self.total} partitions, {elapsed:.0f} s"
        )
        end = "\n" if done == self.total else ""
        self.stream.write(line + end)
        self.stream.flush()

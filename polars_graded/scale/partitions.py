"""Partition planning: how many partitions, by which keys, and which rows go to which.

A partition holds whole rankings (one per ``by + [query]``): a row goes to partition
:func:`partition_index`, a hash of its ranking's keys (:func:`partition_keys`), so a query's
value in its partition is its value in the whole table. µAP with ``levels="table"`` divides by
the top label of the whole ``by`` group, so with it the keys are the ``by`` columns alone (the
partitions split the systems, not the queries; without ``by`` there is one partition).

How many: ``partitions=`` (:func:`check_partitions`), or the estimated peak of evaluating in
one go over the memory budget (:func:`choose_partitions`, :mod:`polars_graded.scale.memory`).
:func:`partition_count` then caps the number: never more partitions than rankings (the
distinct keys are counted in one scan of the key columns) nor more than
:data:`MAX_PARTITIONS`; when either caps the requested number a
:class:`~polars_graded.errors.GradedWarning` says so.

The Parquet path (:mod:`polars_graded.scale.parquet`) plans with all of it; Spark
(:mod:`polars_graded.spark`) shuffles by :func:`partition_keys` and checks its
``partitions=`` with :func:`check_partitions`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Final

import polars as pl

from polars_graded.errors import GradedWarning, InvalidValueError
from polars_graded.io.parquet_tables import ParquetSource
from polars_graded.measures import Measure
from polars_graded.options import TableSpec
from polars_graded.scale.memory import default_memory_budget, estimate_peak_memory, parse_memory
from polars_graded.validate import check_schema

MAX_PARTITIONS: Final = 4096
"""The most partitions an evaluation uses, whatever the budget asks for. The split writes
every partition at once, each with its own files and write buffer, so more partitions cost
time and memory there; at 4096, a table of a billion rows (about 400 GB to evaluate in one
go, :data:`~polars_graded.scale.memory.BYTES_PER_ROW`) needs about 100 MB per partition, so
a tinier budget would only multiply the files (a 1-byte budget on 200 rows once asked for
80,000 partitions)."""

KEY_SAMPLE_ROWS: Final = 1_000_000
"""Rows read first when counting the rankings: when they alone hold as many rankings as
partitions are asked for, no cap applies and the whole key columns are not read (counting 10M
distinct string keys over 1B rows took about 50 s, 7% of evaluating them out of core)."""


def choose_partitions(source: ParquetSource, memory_budget: str | int | None = None) -> int:
    """How many partitions keep the evaluation of ``source`` within ``memory_budget``.

    ``ceil(estimated peak / budget)``, at least 1; the budget defaults to
    :func:`~polars_graded.scale.memory.default_memory_budget`.

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


def partition_count(
    scan: pl.LazyFrame,
    source: ParquetSource,
    measures: list[Measure],
    cols: TableSpec,
    *,
    memory_budget: str | int | None,
    partitions: int | None,
) -> int:
    """The number of partitions from ``partitions=`` or ``memory_budget=``, capped
    (:func:`_cap_partitions`); 1 when no key can split the table.

    ``scan`` is :func:`~polars_graded.io.parquet_tables.scan_source` of ``source``. Called by
    :func:`~polars_graded.scale.parquet.evaluate_parquet` itself: the cap's warning points at
    the line that called it.
    """
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
        # 4: the caller of evaluate_parquet (which calls partition_count, which calls here)
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

"""Evaluate Parquet larger than memory: the rankings in partitions of whole queries.

Every ranking (one per ``by + [query]``) goes to one of ``N`` partitions by a hash of its
key columns (:func:`polars_graded.scale.partitions.partition_index`). One streaming pass over
the source writes each partition's rows to disk, in the source's order, under a temporary
folder (:func:`polars_graded.scale.spill.split`); each partition is then read back and
evaluated in memory with the normal plan (:func:`polars_graded.plan.per_query`). A partition
holds whole queries, so its per-query values are those of the whole table. The per-query
frames (one row per query, small) are concatenated and sorted by the keys as the plan sorts
them, and the summary is computed from that frame with :func:`polars_graded.plan.summary`. The
source is read once whatever ``N`` (every column the evaluation reads, for the split), and its
key columns once more only when its first rows hold fewer rankings than ``N`` (to cap ``N``),
so the time grows with the rows, not with rows times ``N``.

Peak memory is that of one partition, about ``1/N`` of evaluating the table in one go, plus
the interpreter and the reading of the Parquet files, or that of the split if larger (about
0.45 GiB for the streaming pass, plus write buffers kept to half a partition's estimate,
:func:`polars_graded.scale.spill.buffer_rows`). ``N`` comes from a memory budget and an
estimate of the one-go peak (:mod:`polars_graded.scale.memory`), or is given directly, and is
capped (:mod:`polars_graded.scale.partitions`). The split takes about 1.25
times the bytes of a zstd-compressed source on disk (checked before it starts, see
``spill_dir=``).

Exactness: the partitions run on Polars' in-memory engine (:data:`polars_graded.defaults.ENGINE`),
whose results do not depend on how the rows are split. Polars' streaming engine (the default
of ``collect()`` in Polars 2) can differ from it in the last bit on a few values (a division by
a constant such as P@k's ``k`` is sometimes done as a multiplication by its inverse), so the
result equals ``scan.graded.evaluate(...).collect(engine="in-memory")`` bit for bit.

µAP with ``levels="table"`` divides by the top label of the whole ``by`` group, so with it the
partitions split the ``by`` groups (systems), not the queries; without ``by`` columns it runs
in one partition.

The source is read as ``pl.scan_parquet`` reads it, globs and hive partitioning included
(:func:`polars_graded.io.parquet_tables.scan_source`); a source that names no file, a file
that is not Parquet and files whose columns differ are
:class:`~polars_graded.errors.InputFileError` naming the file.

The module holds the two entry points (:func:`evaluate_parquet`, :func:`summary_parquet`) and
the loop over the partitions; the planning is :mod:`polars_graded.scale.partitions`', the
budget :mod:`polars_graded.scale.memory`'s, the split on disk
:mod:`polars_graded.scale.spill`'s and the progress bar :mod:`polars_graded.scale.progress`'.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

import polars as pl

from polars_graded import api, plan
from polars_graded.defaults import ENGINE, MEAN
from polars_graded.io.parquet_tables import ParquetSource, parquet_bytes, reading, scan_source
from polars_graded.measures import Measure, MeasureSpec, as_named_measures
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.scale import spill
from polars_graded.scale.memory import estimate_peak_memory
from polars_graded.scale.partitions import partition_count, partition_index, partition_keys
from polars_graded.scale.progress import progress_bar
from polars_graded.weights import attach_weights, check_weights


def evaluate_parquet(
    source: ParquetSource,
    measures: MeasureSpec,
    *,
    memory_budget: str | int | None = None,
    partitions: int | None = None,
    progress: bool = False,
    spill_dir: str | Path | None = None,
    weight: str | None = None,
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
        Draw a progress bar over the partitions on stderr: ``tqdm.auto``'s when tqdm is
        installed (a widget in Jupyter; ``pip install 'polars-graded[progress]'``), else one
        line redrawn (:func:`polars_graded.scale.progress.progress_bar`).
    spill_dir
        The folder under which the source is split into partitions on disk (a temporary
        folder, removed at the end): about 1.5 times the bytes of the source's files must
        be free there. Default: the system's temporary folder (``tempfile.gettempdir()``,
        ``TMPDIR`` if set).
    weight
        A column of traffic weights, one per query, as for ``df.graded.evaluate``: checked
        over the whole source first (one more streaming read of the query and weight
        columns), then carried into the result after the keys.
    **columns
        ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=``, as for
        ``df.graded.evaluate``.

    Returns
    -------
    polars.DataFrame
        One row per ``by + [query]`` (sorted), the weight with ``weight=``, one Float64
        column per measure.

    Raises
    ------
    InputFileError
        ``source`` names no file (a glob that matches nothing, an empty directory, a
        missing file), a file is not Parquet, or the files' columns or types differ; the
        message names the file.
    SpillError
        The partitions cannot be written under ``spill_dir`` (too little free disk, or the
        write failed for lack of space); the message names the folder.
    InvalidWeightError
        A bad weight (:func:`polars_graded.weights.check_weights`).

    Warns
    -----
    GradedWarning
        The partitions asked for (by ``partitions`` or the budget) are capped: never more
        than the rankings, nor more than
        :data:`~polars_graded.scale.partitions.MAX_PARTITIONS`.

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
        if weight is not None:
            check_weights(scan, weight, cols.keys)
        count = partition_count(
            scan,
            source,
            list(wanted.values()),
            cols,
            memory_budget=memory_budget,
            partitions=partitions,
        )
        return _evaluate_in_partitions(
            scan,
            source,
            wanted,
            cols,
            count,
            progress=progress,
            spill_dir=spill_dir,
            weight=weight,
        )


def summary_parquet(
    source: ParquetSource,
    measures: MeasureSpec,
    *,
    memory_budget: str | int | None = None,
    partitions: int | None = None,
    progress: bool = False,
    spill_dir: str | Path | None = None,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """``num_q`` and the mean of each measure per ``by`` group, for Parquet larger than memory.

    Takes the arguments of :func:`evaluate_parquet` and ``mean=`` (``"geometric"`` for
    trec_eval's geometric mean, see ``df.graded.summary``), and raises and warns as it does;
    with ``weight=`` the means are weighted per query, as ``df.graded.summary``'s;
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
        weight=weight,
        **columns,
    )
    # The core's summary of the per-query values at hand: api.summary would evaluate again.
    by = TableSpec.of(columns).by
    return plan.summary(values.lazy(), names, by, mean, weight=weight).collect()


def _evaluate_in_partitions(
    scan: pl.LazyFrame,
    source: ParquetSource,
    measures: dict[str, Measure],
    cols: TableSpec,
    count: int,
    *,
    progress: bool,
    spill_dir: str | Path | None,
    weight: str | None = None,
) -> pl.DataFrame:
    """Per-query values: the source split once into ``count`` partitions on disk, each
    evaluated in memory, the results concatenated and sorted by the keys.

    ``scan``: :func:`~polars_graded.io.parquet_tables.scan_source` of ``source``;
    ``measures``: output name -> measure; ``weight``: a weight column checked already,
    carried into each partition's values (a partition holds whole rankings, so each of its
    queries finds its weight there).
    """

    def weighted(values: pl.LazyFrame, rows: pl.LazyFrame) -> pl.LazyFrame:
        if weight is None:
            return values
        return attach_weights(values, rows, weight, query=cols.query, keys=cols.keys)

    if count == 1:
        values = api.evaluate_spec(scan, measures, cols)
        return weighted(values, scan).collect(engine=ENGINE)
    keys = partition_keys(list(measures.values()), cols)
    bar = progress_bar(count) if progress else None
    parts = []
    # A threshold above every label is a fact of the whole table, not of one partition:
    # each partition reports its largest label, and the warning comes once, at the end.
    largest: list[float | None] = []
    extra = [] if weight is None else [weight]
    with _split(scan, source, cols, keys, count, spill_dir=spill_dir, extra=extra) as files:
        for index, piece in spill.pieces(files):
            # The core's plan, not api.evaluate: its warn= hook collects each piece's label.
            values = plan.per_query(piece, measures, cols, warn=largest.append)
            parts.append(weighted(values, piece).collect(engine=ENGINE))
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
    extra: Sequence[str] = (),
) -> contextlib.AbstractContextManager[list[list[Path]]]:
    """:func:`polars_graded.scale.spill.split` of the columns the evaluation reads (and
    ``extra`` ones, e.g. a weight) into ``count`` partitions by ``keys``; its write buffers
    take at most half of what evaluating one partition is estimated to take."""
    read = {*cols.columns, *extra}
    return spill.split(
        scan.select([name for name in scan.collect_schema() if name in read]),
        partition_index(keys, count),
        count,
        spill_dir=spill_dir,
        needed_bytes=math.ceil(parquet_bytes(source) * spill.SPILL_FACTOR),
        buffer_bytes=estimate_peak_memory(source) // (2 * count),
    )

"""Nightly increments: a log of hive partitions evaluated into a store of per-query values,
one entry per partition, so that a later run evaluates only what is new or changed.

``evaluate_store(source, measures, store)`` lists SOURCE's partitions
(:func:`polars_graded.scale.fingerprint.hive_partitions`), computes each one's fingerprint
(its files, the qrels, the measures, the options, the library version:
:func:`polars_graded.scale.fingerprint.fingerprint`), evaluates only the partitions whose
fingerprint has no entry in STORE, writes each such entry at once, and returns every
entry concatenated, the partition columns cast to the types Polars gives them when it reads
SOURCE whole, sorted by the keys. The result equals evaluating SOURCE whole,
``evaluate_parquet(source, measures, by=[*partition_columns, *by])``, bit for bit: a
ranking's values depend on its own rows only, and every ``by`` group lies inside one
partition (µAP's ``levels="table"`` included).

The store::

    STORE/polars_graded_store.json   {"format": 1, "library": "0.1.0"}
    STORE/<64 hex digits>.parquet    one entry: a partition's per-query values

An entry is written to a temporary file in STORE (``.tmp-...``), flushed to disk and
renamed over its name (``os.replace``, atomic): a killed run leaves complete entries and
perhaps a temporary file, which no run reads and a later run removes once it is an hour old.
Two runs asking the same things write the same entries (the same fingerprint gives the same
bytes), so they can share a store; runs asking different things (other measures, other qrels)
share it too, each reading its own entries. Entries no run references any more (a partition
rewritten, the qrels changed) are kept unless ``prune=True``, which removes every entry the
run did not use: keep them when several jobs share a store.

A store written by another library version or store format is refused
(:class:`~polars_graded.errors.StoreError` naming both): use a new STORE folder, or
``rebuild=True`` to empty it first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final, NamedTuple, Unpack

import polars as pl

from polars_graded import plan
from polars_graded.defaults import ENGINE
from polars_graded.errors import InputFileError, StoreError
from polars_graded.io import join_run_qrels, read_trec_qrels
from polars_graded.io.parquet_tables import reading, scan_source
from polars_graded.io.trec import QueriesMode
from polars_graded.measures import Measure, MeasureSpec, as_named_measures
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.scale.fingerprint import (
    STORE_FORMAT,
    Partition,
    file_hash,
    fingerprint,
    hive_partitions,
    library_version,
)
from polars_graded.scale.progress import progress_bar

MANIFEST: Final = "polars_graded_store.json"
"""The file that marks a folder as a store, with its format and library version."""
STORE_QUERIES: Final[QueriesMode] = "both"
"""Which queries a partition keeps with qrels: a judged query nobody asked that day is not
part of that day (``"qrels"`` would score it 0 in every partition)."""
STALE_SECONDS: Final = 3600
"""A temporary file older than this is a killed run's leftover, removed by the next run."""
_ENTRY: Final = re.compile(r"[0-9a-f]{64}\.parquet")
_TEMP_PREFIX: Final = ".tmp-"
_LABEL_KEY: Final = "polars_graded.largest_label"


class StoreRun(NamedTuple):
    """What :func:`update_store` did: the per-query values and how many partitions it
    reused, evaluated, and entries it pruned."""

    values: pl.DataFrame
    reused: int
    evaluated: int
    pruned: int
    keys: list[str]
    """The key columns of ``values``: the partition columns, ``by``, then the query."""


def evaluate_store(
    source: str | Path,
    measures: MeasureSpec,
    store: str | Path,
    *,
    qrels: str | Path | None = None,
    queries: QueriesMode = STORE_QUERIES,
    rebuild: bool = False,
    prune: bool = False,
    hash_files: bool = False,
    progress: bool = False,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """Per-query values of a folder of hive partitions, evaluating only the partitions that
    ``store`` has no entry for (see :mod:`polars_graded.scale.store`).

    The result equals evaluating ``source`` whole with its partition columns as leading
    ``by`` columns, ``evaluate_parquet(source, measures, by=[*partition_columns, *by])``,
    frame equality, every bit.

    Parameters
    ----------
    source
        A folder of hive partitions, ``day=2026-11-01/part-0.parquet`` (or nested,
        ``day=.../system=.../``), each file a long table (query, item, score, relevance).
    measures
        Measure objects or names, as for ``df.graded.evaluate``.
    store
        The store's folder: created if missing, else a store written by this library
        version and store format (or an empty folder).
    qrels
        The labels, when the partitions have no relevance column: a TREC qrels file (plain
        or gzipped) or a ``.parquet``/``.csv``/``.tsv`` table with columns query, item,
        relevance. Joined with every partition on (query, item), each ``by`` group with its
        own copy (:func:`~polars_graded.io.join_run_qrels`): a returned row without a label
        is unjudged, a label not returned counts in the relevant rows.
    queries
        With ``qrels``: the queries a ``by`` group keeps (``"both"``, the default: the
        judged queries it returned; ``"qrels"``: every judged query; ``"all"``).
    rebuild
        Empty the store first (a store of another version or format included).
    prune
        Remove the entries this run did not use (default: keep them, for other runs
        sharing the store).
    hash_files
        Fingerprint the partitions' files by their bytes too, not only by path, size and
        modification time (reads the whole log on every run).
    progress
        A progress bar over the partitions evaluated, on stderr.
    **columns
        ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=``, ``ties=``, ``compat=``,
        ... as for ``df.graded.evaluate``.

    Returns
    -------
    polars.DataFrame
        One row per ``partition columns + by + [query]`` (sorted), one Float64 column per
        measure.

    Raises
    ------
    StoreError
        ``store`` is a file, a folder that is not a store, or a store of another library
        version or format; ``source`` is not a folder of hive partitions.
    InputFileError
        A partition is empty, or a file cannot be read (named).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> folder = getfixture("tmp_path")
    >>> for day in ("2026-11-01", "2026-11-02"):
    ...     (folder / "logs" / f"day={day}").mkdir(parents=True)
    ...     pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0],
    ...                   "relevance": [0, 1]}).write_parquet(
    ...         folder / "logs" / f"day={day}" / "part-0.parquet")
    >>> pg.evaluate_store(folder / "logs", ["rr"], folder / "store")
    shape: (2, 3)
    ┌────────────┬───────┬─────┐
    │ day        ┆ query ┆ rr  │
    │ ---        ┆ ---   ┆ --- │
    │ date       ┆ i64   ┆ f64 │
    ╞════════════╪═══════╪═════╡
    │ 2026-11-01 ┆ 1     ┆ 0.5 │
    │ 2026-11-02 ┆ 1     ┆ 0.5 │
    └────────────┴───────┴─────┘
    """
    return update_store(
        source,
        measures,
        store,
        qrels=qrels,
        queries=queries,
        rebuild=rebuild,
        prune=prune,
        hash_files=hash_files,
        progress=progress,
        **columns,
    ).values


def update_store(
    source: str | Path,
    measures: MeasureSpec,
    store: str | Path,
    *,
    qrels: str | Path | None = None,
    queries: QueriesMode = STORE_QUERIES,
    rebuild: bool = False,
    prune: bool = False,
    hash_files: bool = False,
    progress: bool = False,
    **columns: Unpack[ColumnOptions],
) -> StoreRun:
    """:func:`evaluate_store`, returning also how many partitions were reused and evaluated
    (what the command line reports).

    Examples
    --------
    >>> import polars as pl
    >>> folder = getfixture("tmp_path")
    >>> (folder / "logs" / "day=1").mkdir(parents=True)
    >>> pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]}
    ...              ).write_parquet(folder / "logs" / "day=1" / "part-0.parquet")
    >>> first = update_store(folder / "logs", ["rr"], folder / "store")
    >>> again = update_store(folder / "logs", ["rr"], folder / "store")
    >>> (first.evaluated, first.reused), (again.evaluated, again.reused), again.keys
    ((1, 0), (0, 1), ['day', 'query'])
    """
    root = Path(source)
    named = as_named_measures(measures)
    spec = TableSpec.of(columns)
    partitions = hive_partitions(root)
    hive = partitions[0].columns
    spec = dataclasses.replace(spec, by=(*hive, *(c for c in spec.by if c not in hive)))
    folder = _open_store(Path(store), root, rebuild=rebuild)
    judged = _qrels_frame(Path(qrels), root) if qrels is not None else None
    qrels_stamp = None if qrels is None else (file_hash(Path(qrels)), str(queries))
    names = {
        partition.path: fingerprint(
            partition, root, measures=named, spec=spec, qrels=qrels_stamp, hash_files=hash_files
        )
        for partition in partitions
    }
    missing = [p for p in partitions if not (folder / f"{names[p.path]}.parquet").is_file()]
    bar = progress_bar(len(missing)) if progress and missing else None
    for done, partition in enumerate(missing, start=1):
        values, largest = _evaluate_partition(partition, named, spec, judged, queries)
        _write_entry(values, folder / f"{names[partition.path]}.parquet", largest)
        if bar is not None:
            bar.update(done)
    if bar is not None:
        bar.close()
    entries = [folder / f"{names[p.path]}.parquet" for p in partitions]
    values = _assemble(entries, root, hive, spec, list(named.values()))
    pruned = _prune(folder, {path.name for path in entries}) if prune else 0
    reused = len(partitions) - len(missing)
    return StoreRun(values, reused, len(missing), pruned, spec.keys)


def _open_store(store: Path, source: Path, *, rebuild: bool) -> Path:
    """``store`` checked (or created) as a store of this version and format."""
    if store.resolve().is_relative_to(source.resolve()):
        msg = f"STORE {store} is inside SOURCE {source}: its files would be read as data"
        raise StoreError(msg)
    if store.exists() and not store.is_dir():
        msg = f"STORE {store} is a file; a store is a folder (give a new or existing folder)"
        raise StoreError(msg)
    manifest = store / MANIFEST
    if store.is_dir() and not manifest.is_file() and any(store.iterdir()):
        msg = (
            f"STORE {store} is a folder that is not a store (it has no {MANIFEST}); give a "
            "new or empty folder"
        )
        raise StoreError(msg)
    ours = {"format": STORE_FORMAT, "library": library_version()}
    if manifest.is_file() and not rebuild:
        theirs = _read_manifest(manifest)
        if theirs != ours:
            msg = (
                f"STORE {store} was written by polars-graded {theirs.get('library')} (store "
                f"format {theirs.get('format')}); this is polars-graded {ours['library']} "
                f"(store format {ours['format']}): give a new STORE folder, or rebuild it "
                "(--rebuild, rebuild=True) to evaluate every partition again"
            )
            raise StoreError(msg)
    store.mkdir(parents=True, exist_ok=True)
    if rebuild:
        for path in store.iterdir():
            if _ENTRY.fullmatch(path.name) or path.name.startswith(_TEMP_PREFIX):
                path.unlink(missing_ok=True)
    _remove_stale_temps(store)
    if rebuild or not manifest.is_file():
        _atomic(manifest, lambda path: path.write_text(json.dumps(ours) + "\n"))
    return store


def _read_manifest(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        msg = f"cannot read the store's {path}: {error}; rebuild it (--rebuild, rebuild=True)"
        raise StoreError(msg) from error
    return data if isinstance(data, dict) else {}


def _remove_stale_temps(store: Path) -> None:
    """Remove a killed run's temporary files (a running writer's are younger)."""
    now = time.time()
    for path in store.glob(f"{_TEMP_PREFIX}*"):
        with contextlib.suppress(OSError):  # another run may remove it at the same time
            if now - path.stat().st_mtime > STALE_SECONDS:
                path.unlink()


def _qrels_frame(path: Path, source: Path) -> pl.LazyFrame:
    """The qrels as columns query, item, relevance, keys typed as in SOURCE's files."""
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        with reading(path):
            frame = scan_source(path).select("query", "item", "relevance").collect()
    elif suffix in (".csv", ".tsv"):
        if not path.is_file():
            msg = f"no such file: {path}"
            raise InputFileError(msg)
        frame = pl.read_csv(
            path,
            separator="\t" if suffix == ".tsv" else ",",
            schema_overrides={"query": pl.String, "item": pl.String},
        ).select("query", "item", "relevance")
    else:
        frame = read_trec_qrels(path).select("query", "item", "relevance")
    schema = scan_source(source).collect_schema()
    types = {name: schema[name] for name in ("query", "item") if name in schema}
    try:
        return frame.cast(types).lazy()  # type: ignore[arg-type]
    except pl.exceptions.InvalidOperationError as error:
        msg = (
            f"the qrels {path} have query/item ids that cannot be read as SOURCE's "
            f"{ {k: str(v) for k, v in types.items()} } ({error}); write them alike"
        )
        raise InputFileError(msg) from error


def _evaluate_partition(
    partition: Partition,
    measures: dict[str, Measure],
    spec: TableSpec,
    judged: pl.LazyFrame | None,
    queries: QueriesMode,
) -> tuple[pl.DataFrame, float | None]:
    """One partition's per-query values (partition columns as text, cast when assembled)
    and its largest label, for the warning the whole table would give."""
    files = [str(path) for path in partition.files]
    with reading(files):
        frame = pl.scan_parquet(files, hive_partitioning=False)
        if frame.select(pl.len()).collect().item() == 0:
            msg = f"the partition {partition.path} holds no row ({len(files)} file(s))"
            raise InputFileError(msg)
        frame = frame.with_columns(
            pl.lit(value, dtype=pl.String).alias(name) for name, value in partition.values
        )
        if judged is not None:
            frame = _with_qrels(frame, judged, spec, queries)
        largest: list[float | None] = []
        values = plan.per_query(frame, measures, spec, warn=largest.append)
        return values.collect(engine=ENGINE), largest[0] if largest else None


def _with_qrels(
    frame: pl.LazyFrame, judged: pl.LazyFrame, spec: TableSpec, queries: QueriesMode
) -> pl.LazyFrame:
    """``frame`` joined with the qrels by :func:`~polars_graded.io.join_run_qrels`, under the
    user's column names."""
    ours = {spec.query: "query", spec.item: "item", spec.score: "score"}
    joined = join_run_qrels(frame.rename(ours), judged, by=spec.by, queries=queries)
    back = {"query": spec.query, "item": spec.item, "score": spec.score}
    return joined.rename({**back, "relevance": spec.relevance})


def _write_entry(values: pl.DataFrame, path: Path, largest: float | None) -> None:
    metadata = {_LABEL_KEY: json.dumps(largest)}
    _atomic(path, lambda temp: values.write_parquet(temp, metadata=metadata))


def _atomic(path: Path, write: Callable[[Path], object]) -> None:
    """``write(temp)`` into a temporary file beside ``path``, flushed to disk, then renamed
    over ``path``: readers see the old file or the whole new one, never a part."""
    handle, name = tempfile.mkstemp(prefix=_TEMP_PREFIX, dir=path.parent)
    os.close(handle)
    temp = Path(name)
    try:
        write(temp)
        with temp.open("rb") as done:
            os.fsync(done.fileno())
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # the rename itself made durable, where supported
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _assemble(
    entries: list[Path], source: Path, hive: list[str], spec: TableSpec, measures: list[Measure]
) -> pl.DataFrame:
    """The entries concatenated, partition columns typed as Polars reads SOURCE whole,
    sorted by the keys as the full evaluation is; one warning for the whole table."""
    frames = [_read_entry(path) for path in entries]
    labels = [label for _, label in frames if label is not None]
    plan.warn_unreachable_thresholds(measures, max(labels, default=None))
    values = pl.concat([frame for frame, _ in frames], how="vertical")
    if values.height:
        values = values.with_columns(_typed(values.select(hive), source))
    return values.sort(spec.keys, nulls_last=True)


def _typed(text: pl.DataFrame, source: Path) -> list[pl.Series]:
    """The partition columns, read from their folder names as text, in the types Polars
    infers when it reads SOURCE whole (a date, an integer, ...). Polars infers them as it
    infers a CSV column, so its CSV reader parses them, each distinct value once."""
    schema = scan_source(source).collect_schema()
    typed = []
    for name in text.columns:
        distinct = text.get_column(name).unique().to_frame("text")
        parsed = pl.read_csv(
            io.BytesIO(distinct.write_csv().encode()), schema={"text": schema[name]}
        ).select(pl.col("text").alias(name), distinct.get_column("text").alias("_text"))
        column = text.select(name).join(
            parsed,
            left_on=name,
            right_on="_text",
            how="left",
            nulls_equal=True,
            maintain_order="left",
            suffix="_typed",
        )
        typed.append(column.get_column(f"{name}_typed").alias(name))
    return typed


def _read_entry(path: Path) -> tuple[pl.DataFrame, float | None]:
    try:
        label = json.loads(pl.read_parquet_metadata(path).get(_LABEL_KEY, "null"))
        return pl.read_parquet(path), label
    except (OSError, ValueError, pl.exceptions.PolarsError) as error:
        msg = f"cannot read the store's entry {path} ({error}); rebuild it (--rebuild)"
        raise StoreError(msg) from error


def _prune(store: Path, used: set[str]) -> int:
    """Remove the entries not in ``used``; how many."""
    removed = 0
    for path in _entries(store):
        if path.name not in used:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _entries(store: Path) -> Iterator[Path]:
    return (path for path in sorted(store.iterdir()) if _ENTRY.fullmatch(path.name))

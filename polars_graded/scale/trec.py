"""Evaluate TREC runs larger than memory: the text converted to Parquet, then the Parquet path.

:func:`evaluate_trec` reads each run in batches of whole lines into a Parquet file
(:func:`polars_graded.io.trec.trec_to_parquet`: the rules and line-numbered errors of
:func:`polars_graded.read_trec_run`), reads the qrels (in batches too, into memory: they are
far smaller than the runs), joins both lazily as :func:`polars_graded.join_run_qrels` joins
them and writes the long table to Parquet in one streaming pass, then evaluates that table
with :func:`polars_graded.scale.parquet.evaluate_parquet` under the memory budget. All of it
happens in a temporary folder under ``spill_dir``, removed at the end (on error too). The
per-query values equal those of reading the files whole (``pg.read_trec_run``,
``pg.join_run_qrels``, ``graded.evaluate``) bit for bit.

:func:`fits_in_memory` says whether reading the files whole is expected to stay within a
budget (:data:`BYTES_PER_TEXT_BYTE`): ``polars-graded evaluate`` takes this path for TREC
input when it does not, or when ``--partitions`` is given.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Unpack

import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError, SpillError
from polars_graded.io.trec import (
    QueriesMode,
    join_run_qrels,
    read_trec_qrels,
    run_names,
    trec_to_parquet,
)
from polars_graded.io.trec_text import Encoding
from polars_graded.measures import MeasureSpec, as_named_measures
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.scale.memory import BYTES_PER_ROW, default_memory_budget, parse_memory
from polars_graded.scale.parquet import evaluate_parquet

PathLike = str | os.PathLike[str]
Runs = PathLike | Sequence[PathLike] | Mapping[str, PathLike]
"""One run file, several (named as :func:`polars_graded.io.trec.run_names` names them), or
``{system: path}``."""

BYTES_PER_TEXT_BYTE: Final = BYTES_PER_ROW // 25
"""Estimated peak memory of evaluating TREC text in memory, per byte of text: a row's
:data:`~polars_graded.scale.memory.BYTES_PER_ROW` over the bytes of a short run line (25; a
line of the 20M-line run of ``benchmarks/big_trec.py`` has 34), so that the estimate errs on
the side of streaming."""

GZIP_EXPANSION: Final = 10
"""Assumed ratio of text to gzip-compressed bytes (TREC runs compress about 4 to 6 fold): a
gzipped file is counted as 10 times its size, erring on the side of streaming."""

_GZIP_MAGIC = b"\x1f\x8b"


def fits_in_memory(paths: Sequence[PathLike], memory_budget: str | int | None = None) -> bool:
    """Whether evaluating the TREC files ``paths`` read whole is estimated to stay within
    ``memory_budget`` (default: half of the machine's memory): their bytes of text times
    :data:`BYTES_PER_TEXT_BYTE`, a gzipped file counted as :data:`GZIP_EXPANSION` times its
    size. A file that cannot be read counts 0 (reading it reports the error).

    Examples
    --------
    >>> path = getfixture("tmp_path") / "run.txt"
    >>> _ = path.write_text("1 Q0 d7 1 2.5 bm25\\n" * 1000)  # 19,000 bytes
    >>> fits_in_memory([path], "1GiB"), fits_in_memory([path], "100kB")
    (True, False)
    """
    budget = default_memory_budget() if memory_budget is None else parse_memory(memory_budget)
    return sum(_text_bytes(Path(path)) for path in paths) * BYTES_PER_TEXT_BYTE <= budget


def _text_bytes(path: Path) -> int:
    try:
        with path.open("rb") as file:
            gzipped = file.read(2) == _GZIP_MAGIC
        size = path.stat().st_size
    except OSError:
        return 0
    return size * GZIP_EXPANSION if gzipped else size


def evaluate_trec(
    run: Runs,
    qrels: PathLike,
    measures: MeasureSpec,
    *,
    queries: QueriesMode = "qrels",
    memory_budget: str | int | None = None,
    partitions: int | None = None,
    progress: bool = False,
    spill_dir: str | Path | None = None,
    encoding: Encoding = "utf-8",
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """Per-query values of TREC runs against qrels, within a memory budget however large
    the runs are.

    The result equals reading the files whole and evaluating them,
    ``pg.join_run_qrels(pg.read_trec_run(run), pg.read_trec_qrels(qrels),
    queries=...).graded.evaluate(measures, ...)``, bit for bit, and a bad line is the same
    error, naming its line in the file; the peak memory is that of the budget (see
    :mod:`polars_graded.scale.trec`). ``polars-graded evaluate --run ... --qrels ...
    --memory-budget SIZE`` calls it.

    Parameters
    ----------
    run
        A TREC run file (plain or gzip-compressed): the result has no system column, and
        ``by="tag"`` splits it by its run tags. Or several: a list of files (each a
        system, named by its run tag, else file name, else folder) or ``{system: path}``,
        evaluated side by side in a column ``system``.
    qrels
        The TREC qrels file.
    measures
        Measure objects or names, as for ``df.graded.evaluate``.
    queries
        Which queries count, as in :func:`polars_graded.join_run_qrels` (default
        ``"qrels"``, trec_eval ``-c``).
    memory_budget, partitions, progress
        As for :func:`polars_graded.evaluate_parquet`, which evaluates the joined table.
    spill_dir
        The folder under which the runs, the joined table and its partitions are written
        (a temporary folder, removed at the end); default: the system's temporary folder.
        About as many bytes as the run files' text must be free there.
    encoding
        As for :func:`polars_graded.read_trec_run`.
    **columns
        ``by=`` (a run's ``tag`` for one run; ``system`` is the key of several) and the
        ranking options (``ties=``, ``ranked=``, ``compat=``, ``judged_only=``,
        ``depth=``), as for ``df.graded.evaluate``. The column names are the long table's
        own (``query``, ``item``, ``score``, ``relevance``).

    Returns
    -------
    polars.DataFrame
        One row per ``by + [query]`` (sorted), one Float64 column per measure.

    Raises
    ------
    InvalidValueError
        A bad line in a run or the qrels (the message names the file, line and text), two
        runs with one name, or ``by`` not available for the runs given.
    InputFileError
        A file cannot be read, or is gzip-compressed but truncated or corrupt.
    SpillError
        The temporary files cannot be written under ``spill_dir``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> folder = getfixture("tmp_path")
    >>> _ = (folder / "run.txt").write_text("1 Q0 a 1 2.0 bm25\\n1 Q0 b 2 1.0 bm25\\n")
    >>> _ = (folder / "qrels.txt").write_text("1 0 b 1\\n")
    >>> pg.evaluate_trec(folder / "run.txt", folder / "qrels.txt", ["ap"], partitions=1)
    shape: (1, 2)
    ┌───────┬─────┐
    │ query ┆ ap  │
    │ ---   ┆ --- │
    │ str   ┆ f64 │
    ╞═══════╪═════╡
    │ 1     ┆ 0.5 │
    └───────┴─────┘
    """
    as_named_measures(measures)  # a bad measure fails before the files are read
    named = _named_runs(run)
    spec = _trec_spec(columns, several=named is not None)
    where = Path(tempfile.gettempdir() if spill_dir is None else spill_dir)
    try:
        folder = tempfile.TemporaryDirectory(
            prefix="polars-graded-trec-", dir=where, ignore_cleanup_errors=True
        )
    except OSError as error:
        msg = f"cannot write the TREC runs as Parquet into {where}: {error.strerror or error}"
        raise SpillError(msg) from error
    with folder as root:
        table = _long_table(
            run, named, qrels, spec=spec, queries=queries, root=Path(root), encoding=encoding
        )
        return evaluate_parquet(
            table,
            measures,
            memory_budget=memory_budget,
            partitions=partitions,
            progress=progress,
            spill_dir=spill_dir,
            **spec.options(),
        )


def _named_runs(run: Runs) -> list[PathLike] | dict[str, PathLike] | None:
    """Several runs as given (a list or ``{name: path}``), ``None`` for one run file."""
    if isinstance(run, Mapping):
        return {str(name): path for name, path in run.items()}
    if isinstance(run, str | os.PathLike):
        return None
    return list(run)


def _trec_spec(columns: ColumnOptions, *, several: bool) -> TableSpec:
    """The spec of the joined table: the long table's own column names; ``by`` is
    ``system`` for several runs."""
    spec = TableSpec.of(columns)
    default = TableSpec()
    renamed = [
        name
        for name in ("query", "item", "score", "relevance")
        if getattr(spec, name) != getattr(default, name)
    ]
    if renamed:
        msg = (
            f"{renamed[0]}= names a column of a table; the columns of TREC files are "
            "query, item, score and relevance"
        )
        raise InvalidValueError(msg)
    if several:
        if spec.by not in ((), (SYSTEM,)):
            msg = (
                f"with several runs each run is a system in column '{SYSTEM}'; "
                f"by={list(spec.by)} is not available then"
            )
            raise InvalidValueError(msg)
        return TableSpec.of({**spec.options(), "by": (SYSTEM,)})
    return spec


def _long_table(
    run: Runs,
    named: list[PathLike] | dict[str, PathLike] | None,
    qrels: PathLike,
    *,
    spec: TableSpec,
    queries: QueriesMode,
    root: Path,
    encoding: Encoding,
) -> Path:
    """The runs joined with the qrels, written to ``root/table.parquet`` in one streaming
    pass (each run first converted to Parquet in ``root``)."""
    judged = read_trec_qrels(qrels, encoding=encoding)
    if named is None:
        path = trec_to_parquet(
            run,  # type: ignore[arg-type]  # one file when named is None
            root / "run-0.parquet",
            encoding=encoding,
            compression="lz4",
        )
        runs = pl.scan_parquet(path)
        joined = join_run_qrels(runs, judged, by=spec.by or None, queries=queries)
    else:
        paths = list(named.values()) if isinstance(named, dict) else named
        files = [
            trec_to_parquet(p, root / f"run-{i}.parquet", encoding=encoding, compression="lz4")
            for i, p in enumerate(paths)
        ]
        names = list(named) if isinstance(named, dict) else run_names(paths, _tags(files))
        if len(set(names)) < len(names):
            msg = f"two runs have the same name; given: {[os.fspath(p) for p in paths]}"
            raise InvalidValueError(msg)
        runs = pl.concat(
            pl.scan_parquet(f).select("query", "item", "score", system=pl.lit(n))
            for n, f in zip(names, files, strict=True)
        )
        joined = join_run_qrels(runs, judged, by=SYSTEM, queries=queries)
    table = root / "table.parquet"
    try:
        joined.sink_parquet(table, compression="lz4", statistics=False, engine="streaming")
    except (pl.exceptions.PolarsError, OSError) as error:
        if "no space left" not in str(error).lower() and "os error 28" not in str(error):
            raise
        msg = f"cannot write the joined TREC files into {root.parent}: no space left"
        raise SpillError(msg) from error
    return table


def _tags(files: Sequence[Path]) -> list[str | None]:
    """Each run's tag, ``None`` for a run with several."""
    tags = [pl.scan_parquet(f).select(pl.col("tag").unique()).collect()["tag"] for f in files]
    return [t[0] if t.len() == 1 else None for t in tags]

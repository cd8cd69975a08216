"""What a report reads: a long table with a system column, its columns checked once
(:func:`report_spec`), or TREC runs and qrels joined into one (:func:`trec_table`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.io.trec import (
    QueriesMode,
    join_run_qrels,
    read_trec_qrels,
    read_trec_run,
    run_names,
)
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.stats.grid import by_column


def report_spec(columns: ColumnOptions, system: str | None = None) -> TableSpec:
    """The table spec of a report's column keywords, checked once.

    ``by`` names the one system column (default ``"system"``); ``system`` is its deprecated
    alias (see :func:`~polars_graded.stats.grid.by_column`). The other keywords are those of
    :class:`~polars_graded.options.ColumnOptions`.

    Examples
    --------
    >>> spec = report_spec({"by": "run", "ties": "average"})
    >>> spec.keys, spec.ties.averaged
    (['run', 'query'], True)
    """
    # depth 2: the warning points at the caller of the report's function that called this.
    by = by_column(columns.get("by", SYSTEM), system, depth=2)
    return TableSpec.of({**columns, "by": (by,)})


def example_table() -> pl.DataFrame:
    """A small long table of two systems a and b over two queries, for examples.

    Examples
    --------
    >>> example_table().shape
    (8, 5)
    """
    return pl.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "query": [1, 1, 2, 2] * 2,
            "item": ["x", "y"] * 4,
            "score": [2.0, 1.0] * 2 + [1.0, 2.0] * 2,
            "relevance": [0, 1, 0, 2] * 2,
        }
    )


def trec_table(
    runs: Sequence[str | os.PathLike[str]] | Mapping[str, str | os.PathLike[str]],
    qrels: str | os.PathLike[str],
    *,
    queries: QueriesMode = "qrels",
) -> pl.DataFrame:
    """TREC run files and qrels as one long table with a ``system`` column.

    Parameters
    ----------
    runs
        Run files (named by :func:`run_names`) or ``{system: path}``.
    qrels
        The qrels file.
    queries
        Which queries count, as in :func:`polars_graded.join_run_qrels` (default
        ``"qrels"``, trec_eval ``-c``).

    Returns
    -------
    pl.DataFrame
        Columns ``query``, ``item``, ``score``, ``relevance``, ``system``, in no fixed
        row order (a join makes it).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "bm25.txt").write_text("1 Q0 x 1 2.5 bm25\\n1 Q0 y 2 1.5 bm25\\n")
    >>> _ = (folder / "qrels.txt").write_text("1 0 y 2\\n")
    >>> trec_table([folder / "bm25.txt"], folder / "qrels.txt").sort("item").rows()
    [('1', 'x', 2.5, None, 'bm25'), ('1', 'y', 1.5, 2, 'bm25')]
    """
    paths = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    frames = [read_trec_run(path) for path in paths]
    names = [str(n) for n in runs] if isinstance(runs, Mapping) else run_names(paths, _tags(frames))
    if len(set(names)) < len(names):
        msg = f"two runs have the same name; given: {[os.fspath(p) for p in paths]}"
        raise InvalidValueError(msg)
    run = pl.concat(
        f.select("query", "item", "score", system=pl.lit(n))
        for n, f in zip(names, frames, strict=True)
    )
    return join_run_qrels(run, read_trec_qrels(qrels), by="system", queries=queries)


def _tags(frames: Sequence[pl.DataFrame]) -> list[str | None]:
    """Each run's tag, ``None`` for a run with several tags."""
    tags = [f.get_column("tag").unique().to_list() for f in frames]
    return [t[0] if len(t) == 1 else None for t in tags]

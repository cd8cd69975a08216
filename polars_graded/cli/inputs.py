"""Reading a command's input: a TABLE (Parquet or CSV/TSV, lazily), or TREC ``--run`` files
with ``--qrels``.

The input is checked before any work: TABLE or TREC files, not both (:func:`reads_table`),
the files exist (:func:`existing`, :func:`trec_files`), runs named ``NAME=PATH`` have distinct
names (:func:`run_paths`). A TABLE is read lazily by its extension (:func:`read_table`), a
Parquet one with its files named in any error (:func:`reading`); ``report`` and ``gate`` read
either input as one long table with a system column (:func:`systems_table`).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import polars as pl

from polars_graded.cli.options import (
    COLUMN_FLAGS,
    DEFAULT_QUERIES,
    column_options,
)
from polars_graded.cli.parser import CommandError
from polars_graded.defaults import SYSTEM
from polars_graded.io import parquet_tables
from polars_graded.io.csv_tables import check_csv_fields, check_csv_numbers
from polars_graded.io.trec import QueriesMode
from polars_graded.options import TableSpec
from polars_graded.report import run_names, trec_table

_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SEPARATORS = {".csv": ",", ".tsv": "\t"}


class TrecFiles(NamedTuple):
    """TREC input as given: the runs (``{name: path}`` when any is named), qrels, queries.

    Examples
    --------
    >>> files = TrecFiles({"bm25": Path("bm25.txt")}, Path("qrels.txt"), "qrels")
    >>> files.runs["bm25"].name, files.queries
    ('bm25.txt', 'qrels')
    """

    runs: list[Path] | dict[str, Path]
    qrels: Path
    queries: QueriesMode


def reads_table(args: argparse.Namespace) -> bool:
    """True for a TABLE, False for ``--run`` with ``--qrels``; any other mix is refused.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> parse = build_parser().parse_args
    >>> reads_table(parse(["evaluate", "t.csv"]))
    True
    >>> reads_table(parse(["evaluate", "--run", "r.txt", "--qrels", "q.txt"]))
    False
    >>> reads_table(parse(["evaluate", "t.csv", "--qrels", "q.txt"]))
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: give either TABLE or --run and --qrels, not both
    """
    if args.table is not None:
        if args.run is not None or args.qrels is not None:
            msg = "give either TABLE or --run and --qrels, not both"
            raise CommandError(msg)
        if args.queries is not None:  # it picks queries of TREC files; ignored it would mislead
            msg = (
                f"--queries {args.queries} applies to --run and --qrels only; a TABLE is "
                "evaluated with every query it has (filter it first to keep fewer)"
            )
            raise CommandError(msg)
        return True
    if args.run is None or args.qrels is None:
        msg = "give a TABLE (.parquet or .csv) or --run RUN [RUN ...] and --qrels QRELS"
        raise CommandError(msg)
    return False


def trec_files(args: argparse.Namespace) -> TrecFiles:
    """``--run``, ``--qrels`` and ``--queries``, the files checked to exist.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> run, qrels = (getfixture("tmp_path") / name for name in ("run.txt", "qrels.txt"))
    >>> _ = run.write_text(""), qrels.write_text("")
    >>> args = build_parser().parse_args(["evaluate", "--run", str(run), "--qrels", str(qrels)])
    >>> files = trec_files(args)
    >>> [path.name for path in files.runs], files.qrels.name, files.queries
    (['run.txt'], 'qrels.txt', 'qrels')
    """
    runs = run_paths(args.run)
    return TrecFiles(runs, existing(Path(args.qrels)), args.queries or DEFAULT_QUERIES)


def run_paths(values: Sequence[str]) -> list[Path] | dict[str, Path]:
    """Run files, or ``{name: path}`` when any is given as ``NAME=PATH``.

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> for name in ("bm25.txt", "splade.txt"):
    ...     _ = (folder / name).write_text("1 Q0 d1 1 2.0 x\\n")
    >>> run_paths([f"base={folder / 'bm25.txt'}", str(folder / "splade.txt")]).keys()
    dict_keys(['base', 'splade'])
    """
    named = [
        v.partition("=") if "=" in v and not Path(v).is_file() else ("", "", v) for v in values
    ]
    if not any(name for name, _, _ in named):
        return [existing(Path(v)) for v in values]
    names = [name or run_names([path], [None])[0] for name, _, path in named]
    if len(set(names)) < len(names):
        msg = f"two runs have the same name: {sorted(n for n in names if names.count(n) > 1)[:5]}"
        raise CommandError(msg)
    return {name: existing(Path(path)) for name, (_, _, path) in zip(names, named, strict=True)}


def read_table(
    path: Path, keys: Sequence[str] = (), *, numbers: Sequence[str] = ()
) -> pl.LazyFrame:
    """Scan a Parquet or CSV/TSV table lazily, choosing the reader by the file's extension.

    A directory or a glob is read as ``pl.scan_parquet`` reads it, with hive partitioning
    (:func:`polars_graded.io.parquet_tables.scan_source`). In a CSV/TSV table the ``keys``
    (query, item and ``by`` columns, as named by the user) are read as text: inferring
    their type would make ``01`` and ``1`` one query. Other columns are inferred, but the
    ``numbers`` (score, relevance) are numbers: a CSV/TSV file is checked first
    (:func:`~polars_graded.io.csv_tables.check_csv_fields` and
    :func:`~polars_graded.io.csv_tables.check_csv_numbers`), and where every value of one is
    empty (a header-only file) it is a Float64 column of nulls, so that an empty table gives
    an empty result.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "runs.csv"
    >>> _ = path.write_text("query,item,score,relevance\\n01,007,1.5,1\\n1,7,0.5,0\\n")
    >>> read_table(path, ["query", "item"]).collect().rows()
    [('01', '007', 1.5, 1), ('1', '7', 0.5, 0)]
    >>> _ = path.write_text("query,item,score,relevance\\n")
    >>> read_table(path, ["query", "item"], numbers=["score", "relevance"]).collect_schema()
    Schema([('query', String), ('item', String), ('score', Float64), ('relevance', Float64)])
    """
    if is_parquet(path):
        return parquet_tables.scan_source(str(path))
    suffix = path.suffix.lower()
    if suffix not in _CSV_SEPARATORS:
        known = ", ".join([*_PARQUET_SUFFIXES, *_CSV_SEPARATORS])
        msg = f"cannot read {str(path)!r}: expected a table ending in {known}"
        raise CommandError(msg)
    separator = _CSV_SEPARATORS[suffix]

    def scan(source: Path) -> pl.LazyFrame:
        return pl.scan_csv(
            source,
            separator=separator,
            infer_schema_length=10_000,
            schema_overrides=dict.fromkeys(keys, pl.String),  # absent names are ignored
        )

    for file in _csv_files(existing(path)):
        check_csv_fields(file, separator)
        check_csv_numbers(scan(file), numbers, file, separator)
    frame = scan(path)
    schema = frame.collect_schema()
    text = [name for name in numbers if schema.get(name) == pl.String]
    # Only empty values are left in a text column here (the checks refused the rest).
    return frame.with_columns(pl.col(text).cast(pl.Float64)) if text else frame


def _csv_files(path: Path) -> list[Path]:
    """The files a CSV/TSV TABLE names: itself, or what its glob matches."""
    if parquet_tables.is_glob(str(path)):
        return [Path(name) for name in sorted(glob.glob(str(path), recursive=True))]
    return [path]


def is_parquet(path: Path) -> bool:
    """True for a Parquet file or glob (by extension) and for a directory.

    Examples
    --------
    >>> is_parquet(Path("logs/*.parquet")), is_parquet(Path("runs.csv"))
    (True, False)
    """
    return path.suffix.lower() in _PARQUET_SUFFIXES or path.is_dir()


def reading(table: str | None) -> contextlib.AbstractContextManager[None]:
    """Around reading a Parquet TABLE: a Polars error caused by one of its files names
    the file (:func:`polars_graded.io.parquet_tables.reading`).

    Examples
    --------
    >>> path = getfixture("tmp_path") / "broken.parquet"
    >>> _ = path.write_bytes(b"not Parquet")
    >>> with reading(str(path)):
    ...     pl.scan_parquet(path).collect()
    Traceback (most recent call last):
    ...
    polars_graded.errors.InputFileError: ...broken.parquet is not a readable Parquet file (...)
    """
    if table is not None and is_parquet(Path(table)):
        return parquet_tables.reading(table)
    return contextlib.nullcontext()


def existing(path: Path) -> Path:
    """``path`` itself; a file that does not exist is a :class:`CommandError`.

    Glob patterns (``runs/*.csv``, ``runs/**/*.csv``) must match a file; Polars expands them.

    Examples
    --------
    >>> existing(Path("nowhere.txt"))
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: no such file: nowhere.txt
    """
    if parquet_tables.is_glob(str(path)):
        if not glob.glob(str(path), recursive=True):
            msg = f"no file matches {path}"
            raise CommandError(msg)
    elif not path.is_file():
        msg = f"no such file: {path}"
        raise CommandError(msg)
    return path


def systems_table(
    args: argparse.Namespace, spec: TableSpec
) -> tuple[pl.LazyFrame | pl.DataFrame, str]:
    """The long table with its system column (TABLE, or the TREC files joined, one system per
    run), and a line saying where it came from: the input of ``report`` and ``gate``.

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> pl.DataFrame({"system": ["a"], "query": ["1"], "item": ["d"], "score": [1.0],
    ...               "relevance": [1]}).write_parquet(folder / "t.parquet")
    >>> args = argparse.Namespace(table=str(folder / "t.parquet"), run=None, qrels=None,
    ...                           queries=None)
    >>> frame, source = systems_table(args, TableSpec(by=("system",)))
    >>> frame.collect().height, source.endswith("t.parquet.")
    (1, True)
    """
    weight = getattr(args, "weight", None)  # --weight, where the command has it
    if reads_table(args):
        keys, numbers = [*spec.keys, spec.item], [spec.score, spec.relevance]
        numbers += [] if weight is None else [weight]
        frame = read_table(Path(args.table), keys, numbers=numbers)
        return frame, f"Input: {args.table}."
    if column_options(args) or args.by != SYSTEM or weight is not None:
        msg = f"--by/--system/{COLUMN_FLAGS}/--weight name columns of a TABLE, not of TREC files"
        raise CommandError(msg)
    files = trec_files(args)
    table = trec_table(files.runs, files.qrels, queries=files.queries)
    source = (
        f"Input: {len(args.run)} TREC run file(s), qrels {files.qrels} (queries: {files.queries})."
    )
    return table, source

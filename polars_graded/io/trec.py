"""TREC run and qrels files: read them, write runs, and join both into the long table.

Files are read as trec_eval reads them: whitespace-separated fields (C ``isspace``), plain
or gzip-compressed (detected by the magic bytes, not the name), blank lines skipped, lines
whose first non-blank character is ``#`` are comments. A UTF-8 byte-order mark at the start
is dropped (editors on Windows write one) and ``\r\n`` line ends read as ``\n``. Everything
is columnar: the file is read in batches of whole lines, split into lines and fields with
Polars string expressions (:mod:`polars_graded.io.trec_text`), so that :func:`trec_to_parquet`
converts a run larger than memory to Parquet with the rules and line-numbered errors of
:func:`read_trec_run`.

Ids are compared byte for byte, as trec_eval compares them: a file is read as UTF-8, and a
byte that is not UTF-8 is refused naming its line, never re-decoded behind the user's back
(one such byte would otherwise change how every other id of the file matches). Files in
another encoding are converted first, or read with ``encoding="latin-1"``, which maps every
byte to one character, so that ids of files that are all read that way match byte for byte.
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final, Literal, NamedTuple, TypeVar, get_args

import polars as pl
import pyarrow.parquet as pq

from polars_graded.defaults import ENGINE
from polars_graded.errors import ColumnTypeError, InvalidValueError, MissingColumnError, SpillError
from polars_graded.io.trec_text import (
    BATCH_BYTES,
    Encoding,
    LineRule,
    field,
    read_lines,
)
from polars_graded.options import TableSpec, as_by
from polars_graded.ranking import sort_ranked

PathLike = str | os.PathLike[str]
Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)
QueriesMode = Literal["qrels", "both", "all"]
TrecKind = Literal["run", "qrels"]
Compression = Literal["zstd", "lz4", "snappy", "none"]

_LABEL_LIMIT = 2**53
_SCORE = field(4).cast(pl.Float64, strict=False)
_LABEL = field(3).cast(pl.Float64, strict=False)
RUN_RULES: Final = (
    LineRule(pl.col("fields").list.len() < 6, "expected 6 fields (query Q0 item rank score tag)"),
    LineRule(_SCORE.is_null(), "the score (5th field) is not a number"),
)
"""What every line of a run must hold, checked in this order (trec_eval's rules)."""
QRELS_RULES: Final = (
    LineRule(
        pl.col("fields").list.len() != 4, "expected 4 fields (query iteration item relevance)"
    ),
    LineRule(
        _LABEL.is_null() | ~_LABEL.is_finite() | (_LABEL.floor() != _LABEL),
        "the relevance (4th field) is not an integer",
    ),
    # Integers from 2^53 on do not all survive the float that parses them.
    LineRule(
        _LABEL.abs() >= _LABEL_LIMIT, f"the relevance (4th field) is beyond ±{_LABEL_LIMIT - 1:,}"
    ),
)
"""What every line of qrels must hold, checked in this order."""
RUN_SCHEMA: Final = pl.Schema(
    {"query": pl.String, "item": pl.String, "score": pl.Float64, "rank": pl.Int64, "tag": pl.String}
)
"""The columns of a run read by :func:`read_trec_run` (and :func:`trec_to_parquet`)."""
QRELS_SCHEMA: Final = pl.Schema(
    {"query": pl.String, "iteration": pl.String, "item": pl.String, "relevance": pl.Int64}
)
"""The columns of qrels read by :func:`read_trec_qrels` (and :func:`trec_to_parquet`)."""
TAG_COLUMN: Final = "tag"
"""The column of a run's tag (6th field): :func:`read_trec_run` writes it, and
:func:`write_trec_run` writes it back."""
DEFAULT_TAG: Final = "polars_graded"
"""The tag :func:`write_trec_run` writes when neither ``tag=`` nor a tag column gives one."""
_TAG = "__pg_tag"  # the writer's own name for the tag, whatever the user's columns are called


def read_trec_run(path: PathLike, *, encoding: Encoding = "utf-8") -> pl.DataFrame:
    """Read a TREC run file (``query Q0 item rank score tag``) as trec_eval does.

    Fields after the sixth are ignored; the rank is kept for information only (trec_eval
    ignores it and ranks by score) and is null where it is not an integer.

    Parameters
    ----------
    path
        The run file, plain or gzip-compressed.
    encoding
        ``"utf-8"`` (default): a byte that is not UTF-8 is an error naming its line.
        ``"latin-1"``: every byte is one character (ids of files all read so match byte
        for byte); for files in a legacy 8-bit encoding.

    Returns
    -------
    pl.DataFrame
        Columns ``query`` (String), ``item`` (String), ``score`` (Float64), ``rank``
        (Int64), ``tag`` (String), in file order.

    Raises
    ------
    InvalidValueError
        A line has fewer than six fields, a score that is not a number or a byte that is
        not UTF-8; the message names the file, the line number and the line.
    InputFileError
        The file cannot be read (missing, a directory), or it is gzip-compressed but
        truncated or corrupt.

    Examples
    --------
    >>> import polars_graded as pg
    >>> path = getfixture("tmp_path") / "run.txt"
    >>> _ = path.write_text("# a comment\\n1 Q0 d7 1 2.5 bm25\\n1 Q0 d3 2 1.0 bm25\\n")
    >>> pg.read_trec_run(path).rows()
    [('1', 'd7', 2.5, 1, 'bm25'), ('1', 'd3', 1.0, 2, 'bm25')]
    """
    return _read(path, "run", encoding)


def read_trec_qrels(path: PathLike, *, encoding: Encoding = "utf-8") -> pl.DataFrame:
    """Read a TREC qrels file (``query iteration item relevance``) as trec_eval does.

    Lines whose first non-blank character is ``#`` are comments; a ``#`` inside a field
    (document ids such as ``msmarco_v2.1_doc_00_1#4_2``) is kept. Relevance must be an
    integer (``2`` or ``2.0``); negative labels are kept as they are.

    Parameters
    ----------
    path
        The qrels file, plain or gzip-compressed.
    encoding
        ``"utf-8"`` (default): a byte that is not UTF-8 is an error naming its line.
        ``"latin-1"``: every byte is one character (ids of files all read so match byte
        for byte); for files in a legacy 8-bit encoding.

    Returns
    -------
    pl.DataFrame
        Columns ``query`` (String), ``iteration`` (String), ``item`` (String),
        ``relevance`` (Int64), in file order.

    Raises
    ------
    InvalidValueError
        A line does not have exactly four fields (trec_eval rejects it too) or its
        relevance is not an integer below 2**53 in absolute value, or a byte is not
        UTF-8; the message names the file, line number and line.
    InputFileError
        The file cannot be read (missing, a directory), or it is gzip-compressed but
        truncated or corrupt.

    Examples
    --------
    >>> import polars_graded as pg
    >>> path = getfixture("tmp_path") / "qrels.txt"
    >>> _ = path.write_text("1 0 d3 2\\n1 0 msmarco#4_2 1.0\\n")
    >>> pg.read_trec_qrels(path).rows()
    [('1', '0', 'd3', 2), ('1', '0', 'msmarco#4_2', 1)]
    """
    return _read(path, "qrels", encoding)


def _run_columns(lines: pl.DataFrame) -> pl.DataFrame:
    return lines.select(
        query=field(0),
        item=field(2),
        score=_SCORE,
        rank=field(3).cast(pl.Int64, strict=False),
        tag=field(5),
    )


def _qrels_columns(lines: pl.DataFrame) -> pl.DataFrame:
    return lines.select(
        query=field(0), iteration=field(1), item=field(2), relevance=_LABEL.cast(pl.Int64)
    )


class _Kind(NamedTuple):
    rules: tuple[LineRule, ...]
    columns: Callable[[pl.DataFrame], pl.DataFrame]
    schema: pl.Schema


_KINDS: Final = {
    "run": _Kind(RUN_RULES, _run_columns, RUN_SCHEMA),
    "qrels": _Kind(QRELS_RULES, _qrels_columns, QRELS_SCHEMA),
}


def _batches(
    path: PathLike, kind: TrecKind, encoding: Encoding, batch_bytes: int = BATCH_BYTES
) -> Iterator[pl.DataFrame]:
    """The rows of a run or qrels file, a frame per batch of lines (see :mod:`.trec_text`)."""
    if kind not in _KINDS:
        msg = f"kind must be one of {list(_KINDS)}, got {kind!r}"
        raise InvalidValueError(msg)
    rules, columns, _ = _KINDS[kind]
    return read_lines(path, rules, columns, encoding=encoding, batch_bytes=batch_bytes)


def _read(path: PathLike, kind: TrecKind, encoding: Encoding) -> pl.DataFrame:
    """The whole file as one frame; its schema even when the file has no row."""
    frames = list(_batches(path, kind, encoding))
    return pl.concat(frames) if frames else pl.DataFrame(schema=_KINDS[kind].schema)


def trec_to_parquet(
    path: PathLike,
    out: PathLike,
    *,
    kind: TrecKind = "run",
    encoding: Encoding = "utf-8",
    compression: Compression = "zstd",
    batch_bytes: int = BATCH_BYTES,
) -> Path:
    """Convert a TREC run (or qrels) file to Parquet in bounded memory, for files larger
    than memory.

    The file is read in batches of whole lines (``batch_bytes`` of text at a time: about
    0.5 GiB at the peak with the default), with the rules and errors of :func:`read_trec_run`
    (:func:`read_trec_qrels` with ``kind="qrels"``): ``pl.read_parquet(out)`` equals what
    they return, row for row, and a bad line is the same error, naming its line in the
    file. The Parquet file can then be joined with the qrels and evaluated under a memory
    budget; :func:`polars_graded.evaluate_trec` does all of it.

    Parameters
    ----------
    path
        The TREC file, plain or gzip-compressed.
    out
        The Parquet file to write (replaced if it exists). It is written under a temporary
        name beside it and renamed when complete; on error nothing is left.
    kind
        ``"run"`` (default) or ``"qrels"``.
    encoding
        As for :func:`read_trec_run`.
    compression
        The Parquet file's compression: ``"zstd"`` (default, the smallest), ``"lz4"``
        (the fastest to write and read), ``"snappy"`` or ``"none"``.
    batch_bytes
        Bytes of text parsed at a time (default 16 MiB).

    Returns
    -------
    pathlib.Path
        ``out``.

    Raises
    ------
    InvalidValueError
        A bad line (as :func:`read_trec_run` raises it), or ``out``'s folder does not exist.
    InputFileError
        The TREC file cannot be read, or is gzip-compressed but truncated or corrupt.
    SpillError
        Writing ``out`` failed (no space left, permission denied); the message names it.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> run = getfixture("tmp_path") / "run.txt"
    >>> _ = run.write_text("1 Q0 d7 1 2.5 bm25\\n1 Q0 d3 2 1.0 bm25\\n")
    >>> out = pg.trec_to_parquet(run, run.with_suffix(".parquet"))
    >>> pl.read_parquet(out).equals(pg.read_trec_run(run))
    True
    """
    if kind not in _KINDS:
        msg = f"kind must be one of {list(_KINDS)}, got {kind!r}"
        raise InvalidValueError(msg)
    if compression not in get_args(Compression):
        msg = f"compression must be one of {list(get_args(Compression))}, got {compression!r}"
        raise InvalidValueError(msg)
    target = Path(out)
    if not target.parent.is_dir():
        msg = f"cannot write {os.fspath(out)}: no folder {os.fspath(target.parent)}"
        raise InvalidValueError(msg)
    arrow_schema = pl.DataFrame(schema=_KINDS[kind].schema).to_arrow().schema
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with pq.ParquetWriter(partial, arrow_schema, compression=compression) as writer:
            for frame in _batches(path, kind, encoding, batch_bytes):
                writer.write_table(frame.to_arrow())
        partial.replace(target)
    except OSError as error:
        msg = f"cannot write {os.fspath(out)}: {error.strerror or error}"
        raise SpillError(msg) from error
    finally:
        partial.unlink(missing_ok=True)
    return target


def run_names(paths: Sequence[str | os.PathLike[str]], tags: Sequence[str | None]) -> list[str]:
    """A distinct name per run file: its tag, else its file name, else its folder's name
    (the ``system`` of several runs evaluated together).

    ``tags[i]`` is the file's single run tag (``None`` when it has several). The first
    rule that names every file differently wins; otherwise the paths themselves.

    Examples
    --------
    >>> run_names(["runs/input.a.gz", "runs/input.b.gz"], ["a", "b"])
    ['a', 'b']
    >>> run_names(["BM25/dl19.txt.gz", "SPLADE/dl19.txt.gz"], ["rank", "rank"])
    ['BM25', 'SPLADE']
    """
    files = [Path(p) for p in paths]
    stems = [re.sub(r"(\.(gz|txt|run|trec|res|tsv))+$", "", f.name) for f in files]
    for names in (list(tags), stems, [f.parent.name for f in files]):
        if all(names) and len(set(names)) == len(names):
            return [str(n) for n in names]
    return [str(f) for f in files]


def _require(frame: pl.LazyFrame, columns: Sequence[str], what: str) -> None:
    schema = frame.collect_schema()
    missing = [c for c in columns if c not in schema]
    if missing:
        msg = f"the {what} table has no column(s) {missing}; it needs {list(columns)}"
        raise MissingColumnError(msg)


def _same_types(run: pl.LazyFrame, qrels: pl.LazyFrame) -> None:
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    for column in ("query", "item"):
        if run_schema[column] != qrels_schema[column]:
            msg = (
                f"column {column!r} is {run_schema[column]} in the run but "
                f"{qrels_schema[column]} in the qrels; cast one of them before joining"
            )
            raise ColumnTypeError(msg)


def join_run_qrels(
    run: Frame,
    qrels: pl.DataFrame | pl.LazyFrame,
    *,
    by: str | Sequence[str] | None = None,
    queries: QueriesMode = "qrels",
) -> Frame:
    """Full outer join of a run and its judgments on (query, item) into the long table.

    Run rows without a judgment get a null ``relevance`` (unjudged); judged rows the run
    did not return get a null ``score`` (unretrieved). With ``by`` (e.g. ``"tag"`` or
    ``"system"``) every system gets its own copy of the judgments.

    Parameters
    ----------
    run
        Columns ``query``, ``item``, ``score`` and the ``by`` columns.
    qrels
        Columns ``query``, ``item``, ``relevance``.
    by
        Column(s) of ``run`` that name the system.
    queries
        ``"qrels"`` (default, trec_eval ``-c``): the judged queries only; a judged query
        a system returned nothing for is kept (it scores 0). ``"both"`` (plain trec_eval):
        per system, the queries that are judged and retrieved. ``"all"``: every query.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Columns ``query``, ``item``, ``score``, ``relevance`` and the ``by`` columns; a
        LazyFrame if either input is one.

    Raises
    ------
    MissingColumnError
        A column named above is missing.
    ColumnTypeError
        ``query`` or ``item`` has different types in the two tables.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> run = pl.DataFrame({"query": ["1", "2"], "item": ["a", "b"], "score": [1.0, 2.0]})
    >>> qrels = pl.DataFrame({"query": ["1", "1"], "item": ["a", "c"], "relevance": [2, 1]})
    >>> pg.join_run_qrels(run, qrels).sort("item").rows()
    [('1', 'a', 1.0, 2), ('1', 'c', None, 1)]
    """
    if queries not in ("qrels", "both", "all"):
        msg = f"queries must be 'qrels', 'both' or 'all', got {queries!r}"
        raise InvalidValueError(msg)
    keys: list[str] = list(as_by(by))
    run_lf = run.lazy()
    judged = qrels.lazy()
    _require(run_lf, [*keys, "query", "item", "score"], "run")
    _require(judged, ["query", "item", "relevance"], "qrels")
    _same_types(run_lf, judged)
    run_lf = run_lf.select(*keys, "query", "item", "score")
    judged = judged.select("query", "item", "relevance")
    if keys:  # every system gets its own copy of the judgments
        judged = run_lf.select(keys).unique().join(judged, how="cross")
    joined = run_lf.join(judged, on=[*keys, "query", "item"], how="full", coalesce=True)
    out = _keep_queries(joined, run_lf, judged, keys, queries)
    out = out.select("query", "item", "score", "relevance", *keys)
    both_eager = isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame)
    return out.collect() if both_eager else out  # type: ignore[return-value]


def _keep_queries(
    joined: pl.LazyFrame,
    run: pl.LazyFrame,
    judged: pl.LazyFrame,
    keys: list[str],
    queries: QueriesMode,
) -> pl.LazyFrame:
    """Restrict the joined table to the (system, query) pairs ``queries`` asks for."""
    if queries == "all":
        return joined
    wanted = judged.select(*keys, "query").unique()
    if queries == "both":
        retrieved = run.select(*keys, "query").unique()
        wanted = wanted.join(retrieved, on=[*keys, "query"], how="semi")
    return joined.join(wanted, on=[*keys, "query"], how="semi")


def write_trec_run(
    df: pl.DataFrame | pl.LazyFrame,
    path: PathLike,
    *,
    query: str = "query",
    item: str = "item",
    score: str = "score",
    tag: str | None = None,
) -> None:
    """Write the retrieved rows (score not null) as a TREC run file.

    Rows are ranked as polars_graded and trec_eval 10.0 rank them (score descending as a
    double, ties by item descending: :func:`polars_graded.ranking.sort_ranked`) and numbered from 1;
    scores are written so that they read back exactly. A path ending in ``.gz`` is
    gzip-compressed.

    Parameters
    ----------
    df
        The long table (or a run).
    path
        The file to write.
    query, item, score
        Column names.
    tag
        The run tag (6th field) of every line. By default, each row's value of the
        frame's ``tag`` column when it has one (as :func:`read_trec_run` gives it, so a
        run read and written keeps its tags), else ``"polars_graded"``; a tag given here
        is written on every line, whatever the column holds.

    Raises
    ------
    InvalidValueError
        A query, item or tag is empty, null or contains whitespace, or a score is NaN.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [0.5, 2.0]})
    >>> path = getfixture("tmp_path") / "run.txt"
    >>> pg.write_trec_run(df, path, tag="mine")
    >>> path.read_text()
    '1 Q0 b 1 2.0 mine\\n1 Q0 a 2 0.5 mine\\n'
    >>> pg.write_trec_run(pg.read_trec_run(path), path)  # the tag column is kept
    >>> path.read_text()
    '1 Q0 b 1 2.0 mine\\n1 Q0 a 2 0.5 mine\\n'
    """
    lf = df.lazy()
    tags = _tags(lf, tag).alias(_TAG)
    frame = lf.select(query, item, score, tags).filter(pl.col(score).is_not_null()).collect()
    spec = TableSpec(query=query, item=item, score=score)
    ranked = sort_ranked(frame.lazy(), spec).collect(engine=ENGINE)
    ranked = ranked.with_columns(pl.col(query, item).cast(pl.String))
    _check_columns(ranked, query, item, score)
    rank = pl.int_range(1, pl.len() + 1).over(query).cast(pl.String)
    fields = [pl.col(query), pl.lit("Q0"), pl.col(item), rank, pl.col(score).cast(pl.String)]
    lines = ranked.select(pl.concat_str([*fields, pl.col(_TAG)], separator=" "))
    buffer = io.BytesIO()
    lines.write_csv(buffer, include_header=False, quote_style="never")
    data = buffer.getvalue()
    Path(path).write_bytes(gzip.compress(data) if os.fspath(path).endswith(".gz") else data)


def _tags(lf: pl.LazyFrame, tag: str | None) -> pl.Expr:
    """The tag of each line: ``tag`` if given, else the ``tag`` column, else the default."""
    if tag is not None:
        _check_field_text(tag, "tag")
        return pl.lit(tag, dtype=pl.String)
    if TAG_COLUMN in lf.collect_schema():  # a run read by read_trec_run keeps its tags
        return pl.col(TAG_COLUMN).cast(pl.String)
    return pl.lit(DEFAULT_TAG, dtype=pl.String)


def _check_field_text(value: str, name: str) -> None:
    if not isinstance(value, str) or not value or any(c.isspace() for c in value):
        msg = f"the {name} {value!r} must be non-empty text without whitespace"
        raise InvalidValueError(msg)


def _check_columns(ranked: pl.DataFrame, query: str, item: str, score: str) -> None:
    for column in (query, item, _TAG):
        bad = ranked.filter(pl.col(column).is_null() | ~pl.col(column).str.contains(r"^\S+$"))
        if bad.height:
            name = TAG_COLUMN if column == _TAG else column
            msg = (
                f"column {name!r}: a TREC run needs non-empty values without whitespace; "
                f"offending: {bad.get_column(column).head(5).to_list()}"
            )
            raise InvalidValueError(msg)
    if ranked.get_column(score).cast(pl.Float64).is_nan().any():
        msg = f"column {score!r}: NaN scores cannot be ranked"
        raise InvalidValueError(msg)

"""Segment tables: query attributes (a language, a market, a date) joined to a table of
rankings so that :func:`~polars_graded.stats.segments.compare_segments` can compare systems
within each segment.

:func:`join_segment_table` joins the table's segment columns on the query column, with the
ids cast to the table's type and a table that matches no query refused;
:func:`check_segment_types` refuses segment columns that hold lists, arrays or objects.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import polars as pl

from polars_graded.errors import ColumnTypeError, GradedWarning, InvalidValueError


def check_segment_types(frame: pl.DataFrame, columns: Sequence[str]) -> None:
    """Each segment column holds one value a query can be grouped and sorted by: not a
    list, an array or a Python object (a struct is fine).

    Examples
    --------
    >>> check_segment_types(pl.DataFrame({"tags": [["en", "news"]]}), ["tags"])
    Traceback (most recent call last):
    ...
    polars_graded.errors.ColumnTypeError: segment column 'tags' holds List(String) values \
(e.g. ['en', 'news']); a segment is one value per query (a string, a number, a date): take \
one, e.g. pl.col('tags').list.first()
    """
    for column in columns:
        dtype = frame.schema[column]
        if isinstance(dtype, pl.List | pl.Array) or dtype == pl.Object:
            values = frame.get_column(column).drop_nulls()
            example = repr(values.to_list()[0]) if values.len() else "only nulls"
            msg = (
                f"segment column {column!r} holds {dtype} values (e.g. {example}); a segment "
                f"is one value per query (a string, a number, a date): take one, e.g. "
                f"pl.col({column!r}).list.first()"
            )
            raise ColumnTypeError(msg)


def join_segment_table(
    frame: pl.LazyFrame | pl.DataFrame,
    table: pl.DataFrame,
    segment: Sequence[str],
    *,
    query: str = "query",
) -> pl.LazyFrame:
    """``frame`` with the ``segment`` columns of ``table`` (query attributes: one row per
    query) joined on the ``query`` column, checked before any evaluation.

    The table's ids are cast to the type of ``frame``'s query column. A query the table
    lacks gets null segments (a segment of its own, shown as ``(null)``).

    Raises
    ------
    InvalidValueError
        An id of ``table`` cannot be read as ``frame``'s query type (the message shows one),
        or ``table`` matches none of ``frame``'s queries (ids with a trailing space, a table
        without rows): every query would fall into the null segment.
    ColumnTypeError
        A segment column holds lists, arrays or Python objects.

    Warns
    -----
    GradedWarning
        ``table`` lacks some of ``frame``'s queries: how many, and one of them.

    Examples
    --------
    >>> runs = pl.DataFrame({"query": [301, 601, 602], "item": ["d"] * 3})
    >>> topics = pl.DataFrame({"query": ["301", "601", "602"], "age": ["old", "new", "new"]})
    >>> join_segment_table(runs, topics, ["age"]).collect().rows()
    [(301, 'd', 'old'), (601, 'd', 'new'), (602, 'd', 'new')]
    >>> join_segment_table(runs, topics.with_columns(pl.col("query") + " "), ["age"])
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: the query ids of the segment table (String) \
cannot be read as Int64, the type of the input's column 'query': e.g. '301 '
    """
    check_segment_types(table, segment)
    dtype = frame.lazy().collect_schema()[query]
    table = table.select(_ids_as(table.get_column(query), dtype), *segment)
    queries = frame.lazy().select(pl.col(query).unique().sort()).collect()
    _check_matches(queries.get_column(query), table.get_column(query))
    return frame.lazy().join(table.lazy(), on=query, how="left", maintain_order="left")


def _ids_as(ids: pl.Series, dtype: pl.DataType) -> pl.Series:
    """``ids`` cast to ``dtype``; an id that cannot be is an error showing it."""
    if ids.dtype == dtype:
        return ids
    try:
        cast = ids.cast(dtype, strict=False)
        failed = ids.filter(cast.is_null() & ids.is_not_null())
    except pl.exceptions.PolarsError:  # no such cast at all (String to Date, ...)
        cast, failed = ids, ids.drop_nulls()
    if failed.len():
        msg = (
            f"the query ids of the segment table ({ids.dtype}) cannot be read as {dtype}, "
            f"the type of the input's column {ids.name!r}: e.g. {failed[0]!r}"
        )
        raise InvalidValueError(msg)
    return cast


def _check_matches(queries: pl.Series, ids: pl.Series) -> None:
    """Refuse a segment table that matches no query; warn when it misses some."""
    queries, ids = queries.drop_nulls(), ids.drop_nulls()  # a null id matches nothing
    unmatched = queries.filter(~queries.is_in(ids.implode()))
    if unmatched.is_empty():
        return
    n, name = queries.len(), queries.name
    if unmatched.len() == n:
        table = f"the table's {ids.sort()[0]!r}" if ids.len() else "the table has no rows"
        msg = (
            f"the segment table matches none of the input's {n} queries on column "
            f"{name!r} (e.g. the input's {unmatched[0]!r}; {table}): ids must be equal as "
            f"written, spaces and leading zeros included"
        )
        raise InvalidValueError(msg)
    msg = (
        f"the segment table has no row for {unmatched.len()} of the input's {n} queries "
        f"(e.g. {name} {unmatched[0]!r}): their segment is null, shown as (null)"
    )
    warnings.warn(msg, GradedWarning, stacklevel=3)

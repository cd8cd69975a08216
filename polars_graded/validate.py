"""Input checks: every rule of docs/conventions.md §1 that a table can break, with a clear error.

Schema rules (missing columns, non-numeric score or relevance) are checked when the plan is
built. Data rules (NaN, null keys, duplicate keys) need the data, so they become cheap flags
inside the evaluation plan and raise when the result is collected: a LazyFrame stays lazy.
The row rules share one flag computed row by row; the duplicate rule sorts one 64-bit hash
of each key over the whole table, which costs less than a distinct count in every query.
Only when a flag is set does a second, small query find the offending queries and example
rows, so that valid input pays for the flags alone; the error names the column, the rule and
up to five offending keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    InvalidValueError,
    MissingColumnError,
)
from polars_graded.options import TableSpec
from polars_graded.ranking import IN_ORDER, RUN

MAX_EXAMPLES = 5
_CHECK_PREFIX = "__pg_check_"
_EXAMPLE = "__pg_example_item"
_BROKEN = "__pg_broken"


RESERVED_PREFIX = "__pg_"
"""The prefix of the evaluation's internal columns (see :mod:`polars_graded.ranking`)."""


def check_schema(schema: pl.Schema, cols: TableSpec) -> None:
    """Raise if a needed column is missing or score/relevance are not numeric.

    Examples
    --------
    >>> schema = pl.Schema({"query": pl.Int64, "item": pl.String, "score": pl.Float64})
    >>> check_schema(schema, TableSpec())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.MissingColumnError: column 'relevance' not found; the table has ...
    """
    needed = cols.columns
    if len(set(needed)) < len(needed):
        msg = (
            f"the columns must be distinct, got by={list(cols.by)}, "
            f"query/item/score/relevance={needed[-4:]}"
        )
        raise InvalidValueError(msg)
    reserved = [name for name in needed if name.startswith(RESERVED_PREFIX)]
    if reserved:
        msg = (
            f"column {reserved[0]!r}: names starting with {RESERVED_PREFIX!r} are reserved for "
            "the evaluation's own columns; rename it first"
        )
        raise InvalidValueError(msg)
    for name in needed:
        if name not in schema:
            msg = (
                f"column {name!r} not found; the table has {list(schema.names())}. "
                "Name your columns with query=, item=, score=, relevance= (and by=)."
            )
            raise MissingColumnError(msg)
    for name in (cols.score, cols.relevance):
        dtype = schema[name]
        if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)):
            msg = (
                f"column {name!r} must be numeric, found {dtype}; "
                f"cast it first, e.g. pl.col({name!r}).cast(pl.Float64)"
            )
            raise ColumnTypeError(msg)
    for name in (*cols.keys, cols.item):
        if schema[name].is_nested():
            msg = f"column {name!r} must hold scalar keys, found {schema[name]}"
            raise ColumnTypeError(msg)


@dataclass(frozen=True)
class _Rule:
    """A rule of the table; ``bad`` marks the rows of a query's group that break it.

    The plan never evaluates ``bad`` per query. The row rules (``bad`` element-wise) share
    one flag computed row by row, :data:`BAD_ROW`, and one table-wide ``any``; another rule
    has a cheap ``flag`` of its own, per query or (``table_wide``) one for the whole table,
    which may be set although the rule holds (the duplicate check compares hashes). Only on
    the error path does ``bad`` run, over the flagged queries (all of them for a table-wide
    flag), to confirm and find example rows.
    """

    name: str
    bad: Callable[[TableSpec], pl.Expr]
    message: Callable[[TableSpec], str]
    error: type[InvalidValueError] = InvalidValueError
    flag: Callable[[TableSpec], pl.Expr] | None = None
    """The rule's own flag; ``None`` for a row rule."""
    table_wide: bool = False
    """Whether ``flag`` aggregates the whole table (:func:`table_flags`), not each query."""
    confirm: Callable[[TableSpec], pl.Expr] | None = None
    """What the error path confirms and counts, per query, when not ``bad`` itself: two
    rules that describe one fault share it, so that the message counts every query."""


_RULES = (
    _Rule(
        "duplicate",
        lambda c: pl.col(c.item).is_duplicated(),
        lambda c: f"the key {[*c.keys, c.item]} must be unique: each item at most once per query",
        DuplicateKeyError,
        # One sort of a 64-bit hash of each key over the table costs less than a distinct
        # count in every query; a collision only costs the error path's query.
        flag=lambda c: pl.col(KEY_HASH).map_batches(
            _repeats_a_value, return_dtype=pl.Boolean, returns_scalar=True
        ),
        table_wide=True,
    ),
    _Rule(
        "nan_score",
        lambda c: pl.col(c.score).is_nan(),
        lambda c: f"column {c.score!r} must not be NaN (use null for a judged but unretrieved row)",
    ),
    _Rule(
        "nan_relevance",
        lambda c: pl.col(c.relevance).is_nan(),
        lambda c: f"column {c.relevance!r} must not be NaN (use null for an unjudged row)",
    ),
    _Rule(
        "infinite_relevance",
        lambda c: pl.col(c.relevance).is_infinite(),
        lambda c: (
            f"column {c.relevance!r} must be finite: an infinite label has no gain and makes "
            "every measure of its query NaN (use a large finite label, or null for unjudged)"
        ),
    ),
    _Rule(
        "null_item",
        lambda c: pl.col(c.item).is_null(),
        lambda c: f"column {c.item!r} must not be null",
    ),
    _Rule(
        "ranked_order",
        lambda c: ~pl.col(IN_ORDER),
        lambda c: _RANKED_RULE.format(score=c.score, item=c.item),
        confirm=lambda c: _out_of_ranked_order(),
    ),
    _Rule(
        "ranked_runs",
        lambda c: pl.col(RUN) != pl.col(RUN).first(),
        lambda c: _RANKED_RULE.format(score=c.score, item=c.item),
        flag=lambda c: pl.col(RUN).first() != pl.col(RUN).last(),
        confirm=lambda c: _out_of_ranked_order(),
    ),
)


def _repeats_a_value(hashes: pl.Series) -> pl.Series:
    """One boolean: whether a value of ``hashes`` (unsigned, no null) occurs twice.

    numpy's sort of 64-bit integers (vectorised) takes about a third of the time of Polars'
    here; equal values become neighbours.

    Examples
    --------
    >>> _repeats_a_value(pl.Series([3, 1, 2, 1], dtype=pl.UInt64)).to_list()
    [True]
    """
    ordered = np.sort(hashes.to_numpy())
    return pl.Series([bool((ordered[1:] == ordered[:-1]).any())])


def _out_of_ranked_order() -> pl.Expr:
    """Rows of a query out of ranked order, or in a second run of its rows: either rule.

    A shuffled table breaks the order mostly between runs of one query, so the two ranked
    rules must count together (per query, inside a group).
    """
    return ~pl.col(IN_ORDER) | (pl.col(RUN) != pl.col(RUN).first())


_RANKED_RULE = (
    "ranked=True: the rows of each query must be contiguous and in ranked order "
    "({score!r} descending, null scores last, and with ties='trec_eval' ties by {item!r} "
    "descending); "
    "leave ranked=False to have them sorted"
)
BAD_ROW = f"{_CHECK_PREFIX}row"
"""The row flag: true where a row breaks a row rule."""
KEY_HASH = "__pg_key_hash"
"""A 64-bit hash of each row's key ``by + [query] + [item]``."""


def _applies(rule: _Rule, cols: TableSpec, schema: pl.Schema) -> bool:
    """NaN rules only make sense on float columns, the order rules on ranked input."""
    if rule.name.startswith("ranked_"):
        return cols.ranked
    if rule.name == "nan_score":
        return schema[cols.score].is_float()
    if rule.name in ("nan_relevance", "infinite_relevance"):
        return schema[cols.relevance].is_float()
    return True


def _rules(cols: TableSpec, schema: pl.Schema) -> list[_Rule]:
    return [rule for rule in _RULES if _applies(rule, cols, schema)]


def prepare_checks(lf: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """Add :data:`BAD_ROW` and :data:`KEY_HASH`, row by row, before the table is grouped.

    Examples
    --------
    >>> lf = pl.LazyFrame({"query": [1, 1], "item": ["a", None], "score": [1.0, 2.0],
    ...                    "relevance": [1, 0]})
    >>> prepare_checks(lf, TableSpec()).collect()[BAD_ROW].to_list()  # a null item
    [False, True]
    """
    bad = [rule.bad(cols) for rule in _rules(cols, lf.collect_schema()) if rule.flag is None]
    return lf.with_columns(
        pl.any_horizontal(bad).fill_null(value=False).alias(BAD_ROW),
        pl.struct(*cols.keys, cols.item).hash().alias(KEY_HASH),
    )


def table_flags(prepared: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """One row: :data:`BAD_ROW` (does any row break a row rule) and the table-wide flags.

    Examples
    --------
    >>> lf = pl.LazyFrame({"query": [1, 1], "item": ["a", "a"], "score": [1.0, 2.0],
    ...                    "relevance": [1, 0]})
    >>> table_flags(prepare_checks(lf, TableSpec()), TableSpec()).collect().row(0)
    (False, True)
    """
    rules = [rule for rule in _rules(cols, prepared.collect_schema()) if rule.table_wide]
    flags = [rule.flag(cols).alias(_flag_name(rule)) for rule in rules]  # type: ignore[misc]
    return prepared.select(pl.col(BAD_ROW).any(), *flags)


def check_aggregations(cols: TableSpec, schema: pl.Schema) -> list[pl.Expr]:
    """Per-query flags of the query rules that apply (the others: :func:`table_flags`).

    Examples
    --------
    >>> schema = pl.Schema({"query": pl.Int64, "item": pl.String, "score": pl.Float64,
    ...                     "relevance": pl.Int64})
    >>> [flag.meta.output_name() for flag in check_aggregations(TableSpec(ranked=True), schema)]
    ['__pg_check_ranked_runs']
    """
    rules = [r for r in _rules(cols, schema) if r.flag is not None and not r.table_wide]
    return [rule.flag(cols).alias(_flag_name(rule)) for rule in rules]  # type: ignore[misc]


def _flag_name(rule: _Rule) -> str:
    return BAD_ROW if rule.flag is None else f"{_CHECK_PREFIX}{rule.name}"


def check_columns(schema: pl.Schema) -> list[str]:
    """Names of the check columns present in ``schema``.

    Examples
    --------
    >>> check_columns(pl.Schema({"query": pl.Int64, BAD_ROW: pl.Boolean}))
    ['__pg_check_row']
    """
    return [n for n in schema.names() if n.startswith(_CHECK_PREFIX)]


def _examples(bad: pl.DataFrame, keys: list[str], item: str | None) -> str:
    """Up to five offending keys as ``(query=1, item='d3')``."""
    rows = []
    for row in bad.head(MAX_EXAMPLES).iter_rows(named=True):
        parts = [f"{k}={row[k]!r}" for k in keys]
        if item is not None:
            parts.append(f"{item}={row[_EXAMPLE]!r}")
        rows.append("(" + ", ".join(parts) + ")")
    more = f" and {bad.height - MAX_EXAMPLES} more" if bad.height > MAX_EXAMPLES else ""
    return ", ".join(rows) + more


def _offending(
    source: pl.LazyFrame, cols: TableSpec, bad_rows: pl.Expr, queries: pl.DataFrame | None
) -> pl.DataFrame:
    """The queries (of ``queries``, or all) with a row matching ``bad_rows``, and its item.

    Runs only on the error path, over the source restricted to ``queries``.
    """
    rows = source if queries is None else source.join(queries.lazy(), on=cols.keys, how="semi")
    example = pl.col(cols.item).filter(bad_rows).first().cast(pl.String).alias(_EXAMPLE)
    return (
        rows.group_by(cols.keys)
        .agg(bad_rows.any().alias(_BROKEN), example)
        .filter(pl.col(_BROKEN))
        .sort(cols.keys, nulls_last=True)
        .collect()
    )


def raise_on_bad_rows(frame: pl.DataFrame, cols: TableSpec, source: pl.LazyFrame) -> pl.DataFrame:
    """Raise the first broken rule flagged in a per-query frame, else drop the check columns.

    ``source`` is the evaluated table, read again to confirm flags and name example rows.

    Examples
    --------
    >>> lf = pl.LazyFrame({"query": [1, 1], "item": ["a", "b"], "score": [1.0, float("nan")],
    ...                    "relevance": [1, 0]})
    >>> raise_on_bad_rows(pl.DataFrame({"query": [1], BAD_ROW: [False]}), TableSpec(), lf).columns
    ['query']
    >>> flagged = pl.DataFrame({"query": [1], BAD_ROW: [True]})
    >>> raise_on_bad_rows(flagged, TableSpec(), lf)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: column 'score' must not be NaN ... (query=1, item='b')
    """
    for key in cols.keys:
        if frame[key].null_count():
            null_key = source.filter(pl.col(key).is_null())
            bad = _offending(null_key, cols, pl.lit(value=True), None)
            examples = _examples(bad, cols.keys, cols.item)
            msg = f"column {key!r} must not be null; rows with a null {key}, e.g. {examples}"
            raise InvalidValueError(msg)
    for rule in _rules(cols, source.collect_schema()):
        flag = _flag_name(rule)
        if flag not in frame.columns or not frame[flag].any():
            continue
        # A table-wide flag does not say which query holds the fault.
        table_wide = rule.flag is None or rule.table_wide
        flagged = None if table_wide else frame.filter(pl.col(flag)).select(cols.keys)
        confirm = rule.bad(cols) if rule.confirm is None else rule.confirm(cols)
        bad = _offending(source, cols, confirm, flagged)
        if bad.height:
            item = None if rule.name == "null_item" else cols.item
            affected = "1 query" if bad.height == 1 else f"{bad.height} queries"
            examples = _examples(bad, cols.keys, item)
            msg = f"{rule.message(cols)}; {affected} affected, e.g. {examples}"
            raise rule.error(msg)
    return frame.drop(check_columns(frame.schema))

"""Input checks: every rule of SPEC.md §1 that a table can break, with a clear error.

Schema rules (missing columns, non-numeric score or relevance) are checked when the plan is
built. Data rules (NaN, null keys, duplicate keys) need the data, so they become one cheap
flag per query and rule inside the evaluation plan and raise when the result is collected:
a LazyFrame stays lazy. Only when a flag is set does a second, small query over the
offending queries find the example rows, so that valid input pays for the flags alone; the
error names the column, the rule and up to five offending keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    InvalidValueError,
    MissingColumnError,
)
from polars_graded.ranking import Columns

MAX_EXAMPLES = 5
_CHECK_PREFIX = "__pg_check_"
_EXAMPLE = "__pg_example_item"


def check_schema(schema: pl.Schema, cols: Columns) -> None:
    """Raise if a needed column is missing or score/relevance are not numeric."""
    needed = [*cols.by, cols.query, cols.item, cols.score, cols.relevance]
    if len(set(needed)) < len(needed):
        msg = (
            f"the columns must be distinct, got by={list(cols.by)}, "
            f"query/item/score/relevance={needed[-4:]}"
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
    """A per-row rule, checked per query; ``bad`` marks the rows that break it.

    ``suspect``, when given, is a cheaper test the plan runs instead of ``bad``: it marks
    every bad row and maybe a few good ones, which ``bad`` then clears on the error path.
    """

    name: str
    bad: Callable[[Columns], pl.Expr]
    message: Callable[[Columns], str]
    error: type[InvalidValueError] = InvalidValueError
    suspect: Callable[[Columns], pl.Expr] | None = None


_RULES = (
    _Rule(
        "duplicate",
        lambda c: pl.col(c.item).is_duplicated(),
        lambda c: f"the key {[*c.keys, c.item]} must be unique: each item at most once per query",
        DuplicateKeyError,
        # 64-bit hashes: half the cost on string ids; a collision costs one more query.
        suspect=lambda c: pl.col(c.item).hash().is_duplicated(),
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
        "null_item",
        lambda c: pl.col(c.item).is_null(),
        lambda c: f"column {c.item!r} must not be null",
    ),
)


def _applies(rule: _Rule, cols: Columns, schema: pl.Schema) -> bool:
    """NaN rules only make sense on float columns."""
    if rule.name == "nan_score":
        return schema[cols.score].is_float()
    if rule.name == "nan_relevance":
        return schema[cols.relevance].is_float()
    return True


def check_aggregations(cols: Columns, schema: pl.Schema) -> list[pl.Expr]:
    """Per-query flags: for each rule that applies, whether a row of the query breaks it."""
    return [
        (rule.suspect or rule.bad)(cols).any().alias(f"{_CHECK_PREFIX}{rule.name}")
        for rule in _RULES
        if _applies(rule, cols, schema)
    ]


def check_columns(schema: pl.Schema) -> list[str]:
    """Names of the check columns present in ``schema``."""
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


def _example_items(
    source: pl.LazyFrame, cols: Columns, bad_rows: pl.Expr, queries: pl.DataFrame | None
) -> pl.DataFrame:
    """Per offending query (at most five): the keys and the first item matching ``bad_rows``.

    Runs only on the error path, over the source restricted to ``queries`` (or, for null
    keys, to the rows that hold them).
    """
    rows = source if queries is None else source.join(queries.lazy(), on=cols.keys, how="semi")
    example = pl.col(cols.item).filter(bad_rows).first().cast(pl.String).alias(_EXAMPLE)
    return rows.group_by(cols.keys).agg(example).sort(cols.keys, nulls_last=True).collect()


def raise_on_bad_rows(frame: pl.DataFrame, cols: Columns, source: pl.LazyFrame) -> pl.DataFrame:
    """Raise the first broken rule flagged in a per-query frame, else drop the check columns.

    ``source`` is the evaluated table, read again to name example rows.
    """
    for key in cols.keys:
        if frame[key].null_count():
            null_key = source.filter(pl.col(key).is_null())
            bad = _example_items(null_key, cols, pl.lit(value=True), None)
            examples = _examples(bad, cols.keys, cols.item)
            msg = f"column {key!r} must not be null; rows with a null {key}, e.g. {examples}"
            raise InvalidValueError(msg)
    for rule in _RULES:
        flag = f"{_CHECK_PREFIX}{rule.name}"
        if flag not in frame.columns or not frame[flag].any():
            continue
        queries = frame.filter(pl.col(flag)).select(cols.keys)
        if rule.suspect is not None:
            confirmed = _example_items(source, cols, rule.bad(cols), queries)
            queries = confirmed.filter(pl.col(_EXAMPLE).is_not_null()).select(cols.keys)
            if not queries.height:
                continue
        shown = _example_items(source, cols, rule.bad(cols), queries.head(MAX_EXAMPLES))
        item = None if rule.name == "null_item" else cols.item
        examples = _examples(shown, cols.keys, item)
        if queries.height > MAX_EXAMPLES:
            examples += f" and {queries.height - MAX_EXAMPLES} more"
        affected = "1 query" if queries.height == 1 else f"{queries.height} queries"
        msg = f"{rule.message(cols)}; {affected} affected, e.g. {examples}"
        raise rule.error(msg)
    return frame.drop(check_columns(frame.schema))

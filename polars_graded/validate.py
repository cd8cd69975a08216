"""Input checks: every rule of SPEC.md §1 that a table can break, with a clear error.

Schema rules (missing columns, non-numeric score or relevance) are checked when the plan is
built. Data rules (NaN, null keys, duplicate keys) need the data, so they become cheap
per-query aggregations inside the evaluation plan and raise when the result is collected:
a LazyFrame stays lazy, and the error names the column, the rule and up to five offending
keys.
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
_ANY_ITEM = f"{_CHECK_PREFIX}any_item"


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
    """A per-row rule, checked per query; ``bad`` marks the rows that break it."""

    name: str
    bad: Callable[[Columns], pl.Expr]
    message: Callable[[Columns], str]
    error: type[InvalidValueError] = InvalidValueError


_RULES = (
    _Rule(
        "duplicate",
        lambda c: pl.col(c.item).is_duplicated(),
        lambda c: f"the key {[*c.keys, c.item]} must be unique: each item at most once per query",
        DuplicateKeyError,
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
    """Per-query aggregations: for each rule, the first offending item (as text) or null."""
    # Any item of the group, to point at the rows of a group whose key is null.
    out = [pl.col(cols.item).first().cast(pl.String).alias(_ANY_ITEM)]
    for rule in _RULES:
        if _applies(rule, cols, schema):
            bad = rule.bad(cols)
            out.append(bad.any().alias(f"{_CHECK_PREFIX}{rule.name}"))
            example = pl.col(cols.item).filter(bad).first().cast(pl.String)
            out.append(example.alias(f"{_CHECK_PREFIX}{rule.name}_item"))
    return out


def check_columns(schema: pl.Schema) -> list[str]:
    """Names of the check columns present in ``schema``."""
    return [n for n in schema.names() if n.startswith(_CHECK_PREFIX)]


def _examples(bad: pl.DataFrame, keys: list[str], item: tuple[str, str] | None) -> str:
    """Up to five offending keys as ``(query=1, item='d3')``; ``item`` = (label, column)."""
    rows = []
    for row in bad.head(MAX_EXAMPLES).iter_rows(named=True):
        parts = [f"{k}={row[k]!r}" for k in keys]
        if item is not None:
            parts.append(f"{item[0]}={row[item[1]]!r}")
        rows.append("(" + ", ".join(parts) + ")")
    more = f" and {bad.height - MAX_EXAMPLES} more" if bad.height > MAX_EXAMPLES else ""
    return ", ".join(rows) + more


def raise_on_bad_rows(frame: pl.DataFrame, cols: Columns) -> pl.DataFrame:
    """Raise the first broken rule found in a per-query frame, else drop the check columns."""
    for key in cols.keys:
        bad = frame.filter(pl.col(key).is_null())
        if bad.height:
            examples = _examples(bad, cols.keys, (cols.item, _ANY_ITEM))
            msg = f"column {key!r} must not be null; rows with a null {key}, e.g. {examples}"
            raise InvalidValueError(msg)
    for rule in _RULES:
        flag = f"{_CHECK_PREFIX}{rule.name}"
        if flag not in frame.columns:
            continue
        bad = frame.filter(pl.col(flag))
        if bad.height:
            item = None if rule.name == "null_item" else (cols.item, f"{flag}_item")
            examples = _examples(bad, cols.keys, item)
            queries = "1 query" if bad.height == 1 else f"{bad.height} queries"
            msg = f"{rule.message(cols)}; {queries} affected, e.g. {examples}"
            raise rule.error(msg)
    return frame.drop(check_columns(frame.schema))

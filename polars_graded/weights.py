"""Traffic weights: one weight per query, checked once, used by every weighted mean.

A weight column holds the share of traffic (or any fixed importance) of each query: the weight
is numeric, not null, finite, at least 0, the same on every row of a ranked list, and the
weights do not all vanish. Evaluation checks it per ``by + [query]`` group (a log's traffic
may differ per day: ``by=["system", "day"]``); a comparison also needs it equal across the
systems of a query, since both sides of a paired difference weigh the same. The weighted
mean of a measure is ``sum(w * v) / sum(w)`` over the queries with a value; a query of
weight 0 still counts in ``num_q`` but not in the mean. Queries stay the sampled units:
the weights are fixed traffic, not frequency weights (a query of weight 3 is not three
independent queries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from polars_graded.defaults import ENGINE
from polars_graded.errors import (
    ColumnTypeError,
    InvalidValueError,
    InvalidWeightError,
    MissingColumnError,
)

TRAFFIC: Final = "traffic"
"""The column of :func:`traffic_segments` (and ``--segment traffic`` in the CLI report)."""
_W = "__pg_weight"
_CHECK_ENGINE: Final = "streaming"
"""The checks only read flags, and may run over a whole Parquet source: streamed, in bounded
memory (the values themselves use :data:`~polars_graded.defaults.ENGINE`)."""


def _checked_lazy(
    frame: pl.LazyFrame | pl.DataFrame, weight: str, keys: Sequence[str]
) -> pl.LazyFrame:
    """The frame as ``keys..., weight`` (Float64), after the schema rules."""
    keys = list(keys)
    if not keys:
        msg = f"weight {weight!r}: the query key columns must not be empty, e.g. keys=['query']"
        raise InvalidValueError(msg)
    lf = frame.lazy()
    schema = lf.collect_schema()
    for name in (weight, *keys):
        if name not in schema:
            role = "weight" if name == weight else "query"
            msg = (
                f"column {name!r} not found; the table has {list(schema.names())}. "
                f"Name the {role} column with {role}= (--{role} on the command line)."
            )
            raise MissingColumnError(msg)
    if weight in keys:
        msg = f"the weight column {weight!r} must not be a query key column ({keys})"
        raise InvalidValueError(msg)
    dtype = schema[weight]
    if not (dtype.is_numeric() or dtype == pl.Null):
        msg = (
            f"weight column {weight!r} must be numeric, found {dtype}; "
            f"cast it first, e.g. pl.col({weight!r}).cast(pl.Float64)"
        )
        raise ColumnTypeError(msg)
    return lf.select(*keys, pl.col(weight).cast(pl.Float64).alias(_W))


# Each row rule: a name for the flag, the rows that break it, the rule as the error says it.
_ROW_RULES: tuple[tuple[str, pl.Expr, str], ...] = (
    ("null", pl.col(_W).is_null(), "must not be null"),
    ("nan", pl.col(_W).is_nan(), "must not be NaN"),
    ("inf", pl.col(_W).is_infinite(), "must be finite"),
    ("negative", pl.col(_W) < 0, "must be >= 0"),
)


def check_weights(frame: pl.LazyFrame | pl.DataFrame, weight: str, keys: Sequence[str]) -> None:
    """Raise a library error unless ``weight`` is a valid traffic weight per ``keys``.

    The rules: the column exists and is numeric; no value is null, NaN, infinite or negative;
    the weight is the same on every row of one key (e.g. every item and system of a query);
    the weights of the keys sum to more than 0. A table without rows passes. The frame is
    read once (one ``group_by``); only when a rule breaks does a second, small query find an
    example for the message.

    Parameters
    ----------
    frame
        Any table with the weight and the key columns (runs, per-query values, a log).
    weight
        The weight column.
    keys
        The columns that name one query (e.g. ``["query"]``); the weight must be constant
        within each key.

    Raises
    ------
    MissingColumnError
        The weight or a key column is not in the table.
    ColumnTypeError
        The weight column is not numeric.
    InvalidWeightError
        A value breaks a rule; the message names the column, the rule and an example row.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"query": [1, 1, 2], "traffic": [3.0, 3.0, 1.0]})
    >>> check_weights(df, "traffic", ["query"])
    >>> bad = pl.DataFrame({"query": [1, 1, 2], "traffic": [3.0, 2.0, 1.0]})
    >>> check_weights(bad, "traffic", ["query"])
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidWeightError: weight column 'traffic' must be the same on every row of a query; {'query': 1} has 2.0 and 3.0
    """  # noqa: E501
    keys = list(keys)
    lf = _checked_lazy(frame, weight, keys)
    w = pl.col(_W)
    per_key = lf.group_by(keys).agg(
        *(bad.any().alias(name) for name, bad, _ in _ROW_RULES),
        __pg_varying=w.min() != w.max(),
        __pg_first=w.first(),
    )
    flags = per_key.select(
        *(pl.col(name).any() for name, _, _ in _ROW_RULES),
        pl.col("__pg_varying").any(),
        pl.col("__pg_first").sum().alias("__pg_total"),
        pl.len().alias("__pg_keys"),
    ).collect(engine=_CHECK_ENGINE)
    for name, bad, rule in _ROW_RULES:
        if flags[name].item():
            row = lf.filter(bad).head(1).collect(engine=_CHECK_ENGINE).row(0, named=True)
            example = {key: row[key] for key in keys}
            value = "null" if row[_W] is None else row[_W]
            msg = f"weight column {weight!r} {rule}; e.g. {example} has {value}"
            raise InvalidWeightError(msg)
    if flags["__pg_varying"].item():
        row = (
            lf.group_by(keys)
            .agg(lo=w.min(), hi=w.max())
            .filter(pl.col("lo") != pl.col("hi"))
            .sort(keys)
            .head(1)
            .collect(engine=_CHECK_ENGINE)
            .row(0, named=True)
        )
        example = {key: row[key] for key in keys}
        msg = (
            f"weight column {weight!r} must be the same on every row of a query; "
            f"{example} has {row['lo']} and {row['hi']}"
        )
        raise InvalidWeightError(msg)
    n_keys = flags["__pg_keys"].item()
    if n_keys and not flags["__pg_total"].item() > 0:
        raise zero_total_error(weight, n_keys)


def zero_total_error(weight: str, queries: int) -> InvalidWeightError:
    """The error of weights that sum to 0 over ``queries`` queries (also Spark's).

    Examples
    --------
    >>> print(zero_total_error("traffic", 3))
    weight column 'traffic' must not be 0 for every query: the 3 queries sum to 0, so no weighted mean exists
    """  # noqa: E501
    msg = (
        f"weight column {weight!r} must not be 0 for every query: the {queries} queries "
        "sum to 0, so no weighted mean exists"
    )
    return InvalidWeightError(msg)


def query_weights(
    frame: pl.LazyFrame | pl.DataFrame, weight: str, keys: Sequence[str]
) -> pl.LazyFrame:
    """One row per key with its weight (Float64), in the order of the keys.

    The frame is not checked here: call :func:`check_weights` first (the weight is taken from
    the first row of each key).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"query": [2, 1, 1], "item": ["a", "b", "c"], "traffic": [1, 3, 3]})
    >>> query_weights(df, "traffic", ["query"]).collect()
    shape: (2, 2)
    ┌───────┬─────────┐
    │ query ┆ traffic │
    │ ---   ┆ ---     │
    │ i64   ┆ f64     │
    ╞═══════╪═════════╡
    │ 1     ┆ 3.0     │
    │ 2     ┆ 1.0     │
    └───────┴─────────┘
    """
    keys = list(keys)
    lf = _checked_lazy(frame, weight, keys)
    return lf.group_by(keys).agg(pl.col(_W).first().alias(weight)).sort(keys)


def weighted_mean(value: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """``sum(w * v) / sum(w)`` over the rows where the value is not null, summed in row order.

    Summed in row (query) order as the unweighted summary is, so that identical systems get
    identical bits. A row of weight 0 adds nothing; if the rows with a value weigh 0 in all,
    the mean is null (no weighted mean exists), never NaN.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"v": [1.0, 0.0, None], "w": [3.0, 1.0, 5.0]})
    >>> df.select(weighted_mean(pl.col("v"), pl.col("w"))).item()
    0.75
    """
    has = value.is_not_null()
    total = weight.filter(has).cum_sum().last()
    return pl.when(total > 0).then((value * weight).filter(has).cum_sum().last() / total)


def attach_weights(
    values: pl.LazyFrame,
    rows: pl.LazyFrame | pl.DataFrame,
    weight: str,
    *,
    query: str,
    keys: Sequence[str],
) -> pl.LazyFrame:
    """Per-query ``values`` (keyed by ``keys``) with each query's weight from ``rows``, as a
    column right after the keys; the schema is checked here, the values by the caller
    (:func:`check_weights`).

    Examples
    --------
    >>> import polars as pl
    >>> rows = pl.LazyFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "w": [2, 2, 1]})
    >>> values = pl.LazyFrame({"query": [1, 2], "ap": [0.5, 1.0]})
    >>> attach_weights(values, rows, "w", query="query", keys=["query"]).collect().rows()
    [(1, 2.0, 0.5), (2, 1.0, 1.0)]
    """
    keys = list(keys)
    names = values.collect_schema().names()
    if weight in names:
        role = "key" if weight in keys else "measure"
        msg = (
            f"the weight column {weight!r} has the name of a {role} column of the result; "
            "rename it first"
        )
        raise InvalidValueError(msg)
    # Keyed by the whole ranked list: a log's traffic may differ per day (``by=["system",
    # "day"]``); equal weights across systems are the comparison's rule, not evaluation's.
    per_list = query_weights(rows, weight, keys if keys else [query])
    measures = [name for name in names if name not in keys]
    joined = values.join(per_list, on=keys if keys else query, how="left", maintain_order="left")
    return joined.select(*keys, weight, *measures)


def traffic_segments(
    frame: pl.LazyFrame | pl.DataFrame,
    weight: str,
    *,
    query: str = "query",
    shares: Sequence[float] = (0.5, 0.8),
    names: Sequence[str] = ("head", "torso", "tail"),
) -> pl.DataFrame:
    """Put each query in a traffic segment (head, torso, tail) by its cumulative share.

    The queries are sorted by weight, largest first (ties by query, so the split is
    deterministic), and each takes the share of the total it and the queries before it
    carry. The head is the queries up to the one whose cumulative share reaches
    ``shares[0]``: the query that crosses a boundary belongs to the earlier segment. The
    torso goes on to ``shares[1]`` the same way, the tail is the rest (queries of weight 0
    are always in the last segment). With weights 5, 3, 2 the head is the first query
    (share 0.5), the torso the second (0.8), the tail the third.

    Parameters
    ----------
    frame
        Any table with the query and weight columns (a run, per-query values, a log); the
        weight is checked with :func:`check_weights`.
    weight
        The weight column.
    query
        The query column.
    shares
        The increasing cumulative shares, each in (0, 1], that end every segment but the last.
    names
        One name per segment: ``len(shares) + 1`` distinct names.

    Returns
    -------
    DataFrame
        One row per query, in the order above: the query column and ``traffic``, the
        segment as a ``pl.Enum`` of ``names`` (so that sorting gives head, torso, tail),
        ready to join to per-query values for
        :func:`~polars_graded.stats.segments.compare_segments` with ``segment="traffic"``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"query": [1, 2, 3], "traffic": [3, 5, 2]})
    >>> traffic_segments(df, "traffic")
    shape: (3, 2)
    ┌───────┬─────────┐
    │ query ┆ traffic │
    │ ---   ┆ ---     │
    │ i64   ┆ enum    │
    ╞═══════╪═════════╡
    │ 2     ┆ head    │
    │ 1     ┆ torso   │
    │ 3     ┆ tail    │
    └───────┴─────────┘
    """
    shares = [float(share) for share in shares]
    names = list(names)
    if not all(0 < share <= 1 for share in shares) or shares != sorted(set(shares)):
        msg = f"shares must increase strictly within (0, 1], e.g. (0.5, 0.8); got {shares}"
        raise InvalidValueError(msg)
    if len(names) != len(shares) + 1 or len(set(names)) < len(names):
        msg = (
            f"names must be {len(shares) + 1} distinct names (one more than shares={shares}), "
            f"e.g. ('head', 'torso', 'tail'); got {names}"
        )
        raise InvalidValueError(msg)
    check_weights(frame, weight, [query])
    per_query = (
        query_weights(frame, weight, [query])
        .sort([weight, query], descending=[True, False])
        .collect(engine=ENGINE)
    )
    w = pl.col(weight)
    # The share before a query decides its segment, so the crossing query stays in the earlier.
    before = (w.cum_sum() - w) / w.sum()
    index = pl.sum_horizontal(*((before >= share).cast(pl.UInt32) for share in shares))
    return per_query.select(
        query,
        index.replace_strict(list(range(len(names))), names, return_dtype=pl.Enum(names)).alias(
            TRAFFIC
        ),
    )

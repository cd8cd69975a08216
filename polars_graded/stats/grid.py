"""The grid of a comparison: systems x queries, the baseline, and which queries count.

Every comparison of systems (:func:`~polars_graded.stats.compare.compare` and the modules
it dispatches to, the gate, the judgment bounds, the report) reads per-query values the
same way, here: the one column that names the systems (:func:`by_column`), the baseline
first (:func:`order_systems`), the compared queries when systems lack some
(:func:`compared_queries`, :func:`query_grid`, :func:`system_means`), and the checked
(measure, system, query) matrix of values with each system's missing-query count
(:func:`value_matrix`, which refuses absent or non-numeric columns, null or duplicated
keys and non-finite values with a message showing a row).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

import numpy as np
import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    InvalidValueError,
    InvalidWeightError,
    MissingColumnError,
)
from polars_graded.options import as_by
from polars_graded.stats.options import DEFAULTS, MissingPolicy, Test
from polars_graded.weights import check_weights, query_weights

OUTPUT_COLUMNS = (
    "system",
    "measure",
    "n_queries",
    "n_missing",
    "mean",
    "ci_low",
    "ci_high",
    "baseline_mean",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "d_z",
    "change_pct",
    "t_stat",
    "p_ttest",
    "p_randomization",
    "p_wilcoxon",
    "p_ttest_holm",
    "p_randomization_holm",
    "p_wilcoxon_holm",
    "significant",
)
"""The columns of :func:`~polars_graded.stats.compare.compare`'s result against the
baseline (:func:`~polars_graded.stats.baseline.compare_with`), in order (``system`` takes the
key's name). Here, with the input checks, because they refuse a system column named like one
of the others."""

P_VALUES: Final[Mapping[Test, str]] = MappingProxyType(
    {"randomization": "p_randomization", "t": "p_ttest", "wilcoxon": "p_wilcoxon"}
)
"""The p-value column of each test (:data:`~polars_graded.stats.options.TESTS`) in every
comparison's result; its corrected column adds ``_holm`` (against the baseline) or
``_adjusted`` (pairs, segments). ``test=`` chooses which decides ``significant``."""

_PRESENT = "__pg_present"
_SYSTEM_INDEX = "__pg_system_index"
_QUERY_INDEX = "__pg_query_index"


def value_matrix(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[object] | None,
    *,
    by: str,
    query: str,
    missing: MissingPolicy,
    baseline: object | None = None,
    weight: str | None = None,
) -> tuple[list[str], pl.Series, np.ndarray, np.ndarray]:
    """The checked inputs of a comparison: the measure names, the systems
    (:func:`order_systems`), the values as (measure, system, compared query) and each
    system's count of missing queries (see :func:`~polars_graded.stats.compare.compare` for
    the rules and errors). A ``weight`` column is no measure (its values:
    :func:`compared_weights`).

    Examples
    --------
    >>> per_query = pl.DataFrame({"system": ["b", "a", "a"], "query": [1, 1, 2], "ap": [1, 2, 3]})
    >>> names, systems, values, n_missing = value_matrix(
    ...     per_query, None, by="system", query="query", missing="zero"
    ... )
    >>> names, systems.to_list(), values.tolist(), n_missing.tolist()
    (['ap'], ['a', 'b'], [[[2.0, 3.0], [1.0, 0.0]]], [0, 1])
    """
    frame = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    names = _measure_names(frame, measures, by, query, weight)
    _check_values(frame, names, by, query)
    _check_systems(frame, by)
    systems = order_systems(frame.get_column(by), baseline)
    values, n_missing = _value_matrix(
        frame, names, by=by, query=query, systems=systems, missing=missing
    )
    return names, systems, values, n_missing


def compared_weights(
    per_query: pl.DataFrame,
    weight: str | None,
    *,
    by: str,
    query: str,
    missing: MissingPolicy,
) -> np.ndarray | None:
    """The traffic weight of each compared query (:func:`compared_queries`, sorted), or None
    without ``weight``.

    The weight is a property of the query: checked by
    :func:`~polars_graded.weights.check_weights` with the query as the key, so it must be the
    same on every row of a query, for every system (an error names the query and two
    values), numeric, finite, at least 0 and not 0 for every query. A query a system lacks
    (``missing="zero"``) keeps the weight its other rows carry.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {"system": ["a", "a", "b"], "query": [2, 1, 1], "w": [1, 3, 3], "ap": [0.5] * 3}
    ... )
    >>> compared_weights(per_query, "w", by="system", query="query", missing="zero").tolist()
    [3.0, 1.0]
    """
    if weight is None:
        return None
    check_weights(per_query, weight, [query])
    queries = compared_queries(per_query, missing, by=by, query=query).to_frame()
    table = query_weights(per_query, weight, [query]).collect()
    weights = queries.join(table, on=query, how="left", maintain_order="left")
    out = weights.get_column(weight).to_numpy().astype(np.float64)
    if not out.sum() > 0:
        msg = (
            f"weight column {weight!r} is 0 on every compared query ({out.size}, "
            f"missing={missing!r}): no weighted mean exists"
        )
        raise InvalidWeightError(msg)
    return out


def check_weighted_test(weight: str | None, test: Test) -> None:
    """The Wilcoxon signed-rank test has no weighted form: deciding by it with a weight is
    an error (the other tests take the weights).

    Examples
    --------
    >>> check_weighted_test("traffic", "wilcoxon")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: test='wilcoxon' has no weighted form (weight=\
'traffic'): the signed-rank test ranks queries, not traffic; use test='randomization' or \
test='t', which test the traffic-weighted mean difference
    """
    if weight is not None and test == "wilcoxon":
        msg = (
            f"test='wilcoxon' has no weighted form (weight={weight!r}): the signed-rank "
            "test ranks queries, not traffic; use test='randomization' or test='t', which "
            "test the traffic-weighted mean difference"
        )
        raise InvalidValueError(msg)


def by_column(
    by: str | Sequence[str] | None = SYSTEM, system: str | None = None, *, depth: int = 1
) -> str:
    """The one column that names the systems: ``by``, or ``system``, its deprecated alias.

    ``system=`` gives a :class:`DeprecationWarning` (and a ``TypeError`` beside another
    ``by=``), shown at the code that called the public function ``depth`` calls above this
    one; ``by`` must name exactly one column (a one-element list is accepted).

    Examples
    --------
    >>> by_column("run"), by_column(["run"])
    ('run', 'run')
    """
    if system is not None:
        msg = "system= is deprecated; name the system column with by="
        warnings.warn(msg, DeprecationWarning, stacklevel=2 + depth)
        if by not in ("system", system):
            msg = f"give the system column once, as by= (got by={by!r} and system={system!r})"
            raise TypeError(msg)
        by = system
    names = as_by(by)
    if len(names) != 1:
        msg = (
            f"a comparison needs exactly one system column in by=, got {list(names)}; "
            "combine several into one first, e.g. pl.concat_str(...)"
        )
        raise InvalidValueError(msg)
    return names[0]


def order_systems(systems: pl.Series, baseline: object | None = None) -> pl.Series:
    """The distinct systems, the baseline first, then the others in sorted order.

    The baseline defaults to the first system in sorted order; one that is not among
    ``systems`` is an :class:`~polars_graded.errors.InvalidValueError` listing them.

    Examples
    --------
    >>> order_systems(pl.Series("run", ["b", "c", "a", "c"]), "c").to_list()
    ['c', 'a', 'b']
    >>> order_systems(pl.Series("run", ["b", "a"])).to_list()
    ['a', 'b']
    """
    distinct = systems.unique().sort()
    if baseline is None:
        return distinct
    values = distinct.to_list()
    if baseline not in values:
        shown = values[:20] + (["..."] if len(values) > 20 else [])
        msg = (
            f"baseline {baseline!r} is not a system of column {systems.name!r}; "
            f"the systems are {shown}"
        )
        raise InvalidValueError(msg)
    first = values.index(baseline)
    return distinct.gather([first, *(i for i in range(len(values)) if i != first)])


def check_two_systems(lazy: pl.LazyFrame, by: str, baseline: object, candidate: object) -> None:
    """Refuse a baseline and candidate that are equal or not values of ``by``.

    Examples
    --------
    >>> runs = pl.LazyFrame({"run": ["a", "b"]})
    >>> check_two_systems(runs, "run", "a", "b")
    >>> check_two_systems(runs, "run", "a", "z")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: candidate 'z' is not a system of column 'run'; \
the systems are ['a', 'b']
    """
    if baseline == candidate:
        msg = f"the baseline and the candidate must differ, both are {baseline!r}"
        raise InvalidValueError(msg)
    names = lazy.collect_schema().names()
    if by not in names:
        msg = f"the system column {by!r} not found; the table has {names} (by=, --by)"
        raise MissingColumnError(msg)
    systems = lazy.select(pl.col(by).unique().sort()).collect().get_column(by).to_list()
    for role, name in (("baseline", baseline), ("candidate", candidate)):
        if name not in systems:
            shown = systems[:20] + (["..."] if len(systems) > 20 else [])
            msg = f"{role} {name!r} is not a system of column {by!r}; the systems are {shown}"
            raise InvalidValueError(msg)


def compared_queries(
    values: pl.DataFrame,
    missing: MissingPolicy = DEFAULTS.missing,
    *,
    by: str = SYSTEM,
    query: str = "query",
) -> pl.Series:
    """The queries a comparison counts, sorted.

    ``missing="zero"``: every query of ``values`` (a system that lacks one scores 0 for it,
    see :func:`query_grid`); ``"common"``: only those every system of ``values`` has, an
    :class:`~polars_graded.errors.InvalidValueError` when there is none.

    Examples
    --------
    >>> values = pl.DataFrame({"system": ["a", "a", "b"], "query": [2, 1, 1]})
    >>> compared_queries(values).to_list(), compared_queries(values, "common").to_list()
    ([1, 2], [1])
    """
    if missing != "common":
        return values.get_column(query).unique().sort()
    systems = values.get_column(by).n_unique()
    counts = values.group_by(query).agg(pl.col(by).n_unique().alias(_PRESENT))
    common = counts.filter(pl.col(_PRESENT) == systems).get_column(query).sort()
    if common.is_empty():
        msg = (
            f"no value of column {query!r} is shared by every system, so "
            "missing='common' leaves nothing to compare; use missing='zero'"
        )
        raise InvalidValueError(msg)
    return common


def query_grid(
    values: pl.DataFrame,
    systems: Sequence[object] | pl.Series,
    missing: MissingPolicy = DEFAULTS.missing,
    *,
    by: str = SYSTEM,
    query: str = "query",
) -> pl.DataFrame:
    """``values`` (keys ``by`` and ``query``, then value columns) on every system and
    compared query (:func:`compared_queries`): systems in the given order, then queries
    sorted, a value a system lacks as 0.

    Examples
    --------
    >>> values = pl.DataFrame(
    ...     {"system": ["a", "a", "b"], "query": [1, 2, 1], "ap": [1.0, 0.5, 0.25]}
    ... )
    >>> query_grid(values, ["b", "a"]).rows()
    [('b', 1, 0.25), ('b', 2, 0.0), ('a', 1, 1.0), ('a', 2, 0.5)]
    """
    names = pl.Series(by, systems, dtype=values.schema[by]).to_frame()
    queries = compared_queries(values, missing, by=by, query=query).to_frame()
    grid = names.join(queries, how="cross", maintain_order="left_right")
    grid = grid.join(values, on=[by, query], how="left", maintain_order="left")
    return grid.with_columns(pl.exclude(by, query).fill_null(0.0))


def system_means(
    values: pl.DataFrame,
    systems: Sequence[object] | pl.Series,
    missing: MissingPolicy = DEFAULTS.missing,
    *,
    by: str = SYSTEM,
    query: str = "query",
) -> pl.DataFrame:
    """Per system (in ``systems``' order), the mean of each value column of ``values`` over
    the compared queries: the means :func:`~polars_graded.stats.compare.compare` reports
    (:func:`query_grid`).

    Examples
    --------
    >>> values = pl.DataFrame(
    ...     {"system": ["a", "a", "b"], "query": [1, 2, 1], "ap": [1.0, 0.5, 0.25]}
    ... )
    >>> system_means(values, ["b", "a"]).rows()
    [('b', 0.125), ('a', 0.75)]
    """
    grid = query_grid(values, systems, missing, by=by, query=query)
    return grid.group_by(by, maintain_order=True).agg(pl.exclude(query).mean())


def _check_keys(frame: pl.DataFrame, by: str, query: str) -> None:
    """The key columns exist, differ, and do not clash with the result's columns."""
    for key in (by, query):
        if key not in frame.columns:
            msg = (
                f"column {key!r} not found; the per-query table has {frame.columns}. "
                "Name the key columns with by= and query="
            )
            raise MissingColumnError(msg)
    if by == query:
        msg = f"the system (by=) and query columns must differ, both are {by!r}"
        raise InvalidValueError(msg)
    if by in OUTPUT_COLUMNS[1:]:
        msg = (
            f"the system column {by!r} has the name of a result column; "
            f"rename it first, e.g. frame.rename({{{by!r}: 'system'}})"
        )
        raise InvalidValueError(msg)


def _measure_names(
    frame: pl.DataFrame,
    measures: Sequence[object] | None,
    by: str,
    query: str,
    weight: str | None = None,
) -> list[str]:
    """The value columns, checked: present, numeric, distinct, not a key nor the weight."""
    _check_keys(frame, by, query)
    if measures is None:
        names = [c for c in frame.columns if c not in (by, query, weight)]
    elif isinstance(measures, str):
        names = [measures]
    else:
        names = [str(m) for m in measures]
    if not names:
        msg = f"no measure column to compare; the per-query table has only {frame.columns}"
        raise InvalidValueError(msg)
    if len(set(names)) < len(names):
        msg = f"measures must be distinct, got {names}"
        raise InvalidValueError(msg)
    for name in names:
        _check_measure(frame, name, by, query)
        if name == weight:
            msg = f"measure {name!r} is the weight column (weight={weight!r})"
            raise InvalidValueError(msg)
    return names


def _check_measure(frame: pl.DataFrame, name: str, by: str, query: str) -> None:
    """One value column: not a key, present, numeric."""
    if name in (by, query):
        msg = f"measure {name!r} is a key column (by={by!r}, query={query!r})"
        raise InvalidValueError(msg)
    if name not in frame.columns:
        msg = f"measure column {name!r} not found; the per-query table has {frame.columns}"
        raise MissingColumnError(msg)
    dtype = frame.schema[name]
    if not dtype.is_numeric():
        example = _example(frame.head(1), by, query, name)
        msg = (
            f"measure column {name!r} must be numeric, found {dtype}, e.g. {example}; "
            f"cast it first, e.g. pl.col({name!r}).cast(pl.Float64)"
        )
        raise ColumnTypeError(msg)


def _example(rows: pl.DataFrame, by: str, query: str, value: str | None = None) -> str:
    """The first row as ``(system='a', query=3, ap=nan)``, and how many rows there are."""
    row = rows.row(0, named=True)
    names = [by, query] if value is None else [by, query, value]
    text = "(" + ", ".join(f"{n}={row[n]!r}" for n in names) + ")"
    return text if rows.height == 1 else f"{text} ({rows.height} rows)"


def _check_values(frame: pl.DataFrame, names: list[str], by: str, query: str) -> None:
    """Keys not null and unique; values finite."""
    for key in (by, query):
        bad = frame.filter(pl.col(key).is_null())
        if bad.height:
            msg = f"column {key!r} must not be null, e.g. {_example(bad, by, query)}"
            raise InvalidValueError(msg)
    duplicated = frame.filter(pl.struct(by, query).is_duplicated())
    if duplicated.height:
        msg = (
            f"the key [{by!r}, {query!r}] must be unique: one row per system and query, "
            f"e.g. {_example(duplicated, by, query)}"
        )
        raise DuplicateKeyError(msg)
    for name in names:
        value = pl.col(name)
        bad = frame.filter(value.is_null() | ~value.cast(pl.Float64).is_finite())
        if bad.height:
            msg = (
                f"measure column {name!r} must hold finite numbers (no null, NaN or inf), "
                f"e.g. {_example(bad, by, query, name)}"
            )
            raise InvalidValueError(msg)


def _check_systems(frame: pl.DataFrame, by: str) -> None:
    """At least two systems to compare."""
    systems = frame.get_column(by).unique().sort()
    if systems.len() < 2:
        msg = (
            f"column {by!r} must hold at least 2 systems to compare, "
            f"found {systems.len()}: {systems.to_list()}"
        )
        raise InvalidValueError(msg)


def _value_matrix(
    frame: pl.DataFrame,
    names: list[str],
    *,
    by: str,
    query: str,
    systems: pl.Series,
    missing: MissingPolicy,
) -> tuple[np.ndarray, np.ndarray]:
    """Values as (measure, system, compared query), and each system's missing-query count.

    A query a system lacks is 0; the queries are those of :func:`compared_queries`, in
    sorted order, so the result does not depend on the order of the rows.
    """
    queries = frame.get_column(query).unique().sort()
    system_index = pl.DataFrame({by: systems, _SYSTEM_INDEX: np.arange(systems.len())})
    query_index = pl.DataFrame({query: queries, _QUERY_INDEX: np.arange(queries.len())})
    keyed = frame.select(by, query, *names).join(system_index, on=by).join(query_index, on=query)
    s = keyed.get_column(_SYSTEM_INDEX).to_numpy()
    q = keyed.get_column(_QUERY_INDEX).to_numpy()
    values = np.zeros((len(names), systems.len(), queries.len()))
    values[:, s, q] = keyed.select(pl.col(names).cast(pl.Float64)).to_numpy().T
    present = np.zeros((systems.len(), queries.len()), dtype=bool)
    present[s, q] = True
    n_missing = queries.len() - present.sum(axis=1)
    if missing == "common":
        compared = compared_queries(frame, missing, by=by, query=query)
        values = values[:, :, queries.is_in(compared.implode()).to_numpy()]
    return values, n_missing

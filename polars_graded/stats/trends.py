"""Trends: every system against the baseline in each period (a day, a week, a release), and
the periods where the verdict changes.

:func:`trend` takes a per-query frame with a period column and runs the comparison with the
baseline (:func:`~polars_graded.stats.baseline.compare_with`, the machinery of
``pg.compare``) on each period's rows on their own. The period is part of a query's
identity: in a log the same query id comes back day after day, so the unit is the pair
(period, query), and each period is compared on its own queries. Then, per (measure,
system), each period is set against the system's previous one: does the difference to the
baseline change sign, does its significance flip (:data:`FLAGS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import GradedError, InvalidValueError, MissingColumnError
from polars_graded.frames import Table, as_polars
from polars_graded.stats.baseline import compare_with
from polars_graded.stats.corrections import adjusted_column
from polars_graded.stats.grid import P_VALUES, by_column, order_systems
from polars_graded.stats.limits import resampling_plan
from polars_graded.stats.options import (
    DEFAULTS,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Statistics,
    Test,
)
from polars_graded.weights import check_weights

FLAGS: Final = ("sign_changed", "significance_changed")
"""The columns that set a period against the previous period of the same (measure, system):
the difference to the baseline changes sign (one is > 0, the other < 0), ``significant``
flips."""

VALUES: Final = ("n_queries", "mean", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high")
"""The columns of :func:`~polars_graded.stats.compare.compare`'s result a trend keeps, with
the deciding corrected p-value (:func:`deciding_column`) and ``significant``."""


def deciding_column(statistics: Statistics) -> str:
    """The name of the p-value column that decides ``significant``: the corrected p-value of
    ``statistics.test``, named as :func:`~polars_graded.stats.compare.compare` names it.

    Examples
    --------
    >>> deciding_column(Statistics()), deciding_column(Statistics(test="t", correction="bh"))
    ('p_randomization_holm', 'p_ttest_bh')
    """
    return adjusted_column(P_VALUES[statistics.test], statistics.correction)


def trend(
    per_query: Table,
    measures: Sequence[str] | None = None,
    *,
    period: str,
    by: str | Sequence[str] = SYSTEM,
    baseline: object | None = None,
    query: str = "query",
    weight: str | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    trials: int = DEFAULTS.trials,
    bootstrap: int = DEFAULTS.bootstrap,
    confidence: float = DEFAULTS.confidence,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    correction: Correction = DEFAULTS.correction,
    test: Test = DEFAULTS.test,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    large_sample: LargeSample = DEFAULTS.large_sample,
) -> pl.DataFrame:
    """Per period and system: the mean with its bootstrap interval, the difference to the
    baseline, its significance, and whether these changed since the previous period.

    Parameters
    ----------
    per_query
        One row per (system, period, query) and one numeric column per measure: the output
        of ``pg.evaluate(table, measures, by=["system", "day"])``. A LazyFrame is collected;
        a pandas DataFrame or an Arrow table is converted
        (:func:`~polars_graded.frames.as_polars`).
    measures
        The value columns (names, or measure objects whose ``str`` is the name). Default:
        every column but ``by``, ``period``, ``query`` and ``weight``, in the frame's order.
    period
        The column of the periods (a day, a week, a release): any sortable type, no nulls,
        at least two distinct values. A query id that occurs in several periods is a
        different query in each (the unit is (period, query)).
    by, query
        The column that names the systems, and the query's.
    baseline
        The system every other is compared with in every period. Default: the first in
        sorted order among all periods' systems. Every period must have rows of it.
    weight
        A traffic weight column (constant within a (period, query):
        :func:`~polars_graded.weights.check_weights`), passed to the comparison: weighted
        means, intervals and tests, as ``pg.compare(weight=...)`` computes them.
    missing, trials, bootstrap, confidence, alpha, seed, correction, test, bootstrap_method, \
large_sample
        The options of :func:`~polars_graded.stats.compare.compare`, applied in each period
        on its own: the same seed in each (so a period's numbers are those of
        ``pg.compare`` on its rows), the correction across the systems of each measure
        within the period (periods are not pooled into one family). ``large_sample="auto"``
        is decided once, on all periods' (period, query) units together
        (:func:`period_statistics`): when the whole trend would cost more than the
        resampling budget, every period takes the normal limit (as ``pg.compare(...,
        large_sample="normal")`` on its rows).

    Returns
    -------
    DataFrame
        One row per (measure, period, system), sorted by measure (in the given order),
        system (the baseline first, then sorted) and period (ascending). Columns:
        ``measure``; the period column and the system column (their names and dtypes);
        ``n_queries`` (the period's compared queries), ``mean``, ``ci_low``, ``ci_high``,
        ``diff`` (to the baseline in that period), ``diff_ci_low``, ``diff_ci_high``; the
        deciding corrected p-value, named as in ``pg.compare`` (``p_randomization_holm`` by
        default: :func:`deciding_column`), null on the baseline; ``significant``; and the
        flags of :data:`FLAGS` against the previous period in which the same system has
        rows: ``sign_changed`` (``diff`` strictly positive in one and strictly negative in
        the other: a 0 has no sign) and ``significance_changed``. The flags are false on a
        system's first period and on the baseline.

    Raises
    ------
    MissingColumnError
        The period column (or ``by``, ``query``, a measure, the weight) is absent.
    InvalidValueError
        A null (or NaN) period, fewer than two periods, a period without the baseline or
        with one system only, or anything :func:`~polars_graded.stats.compare.compare`
        refuses within a period (the message then names the period).

    Examples
    --------
    Two days; on day 1 system b is ahead of a, on day 2 behind (query 1 of day 1 and query
    1 of day 2 are different queries):

    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4,
    ...     "day": [1, 1, 2, 2] * 2,
    ...     "query": [1, 2, 1, 2] * 2,
    ...     "ap": [0.25, 0.25, 0.75, 0.75, 0.5, 0.5, 0.5, 0.5],
    ... })
    >>> out = trend(per_query, period="day", trials=99, bootstrap=99)
    >>> out.select("system", "day", "mean", "diff", "sign_changed").rows()
    [('a', 1, 0.25, 0.0, False), ('a', 2, 0.75, 0.0, False), \
('b', 1, 0.5, 0.25, False), ('b', 2, 0.5, -0.25, True)]
    """
    frame = as_polars(per_query, "trend")
    if isinstance(frame, pl.LazyFrame):  # each period is a slice of the collected frame
        frame = frame.collect()
    by = by_column(by)
    statistics = Statistics(
        missing,
        trials,
        bootstrap,
        confidence,
        alpha,
        seed,
        correction,
        test=test,
        bootstrap_method=bootstrap_method,
        large_sample=large_sample,
    )
    return trend_with(
        frame,
        measures,
        statistics,
        period=period,
        by=by,
        baseline=baseline,
        query=query,
        weight=weight,
    )


def period_statistics(statistics: Statistics, n_units: int, n_systems: int) -> Statistics:
    """The options each period is compared with: ``statistics``, except under
    ``large_sample="auto"``, where resampling or the normal limit is chosen once for the
    whole trend, on its ``n_units`` (period, query) units together
    (:func:`~polars_graded.stats.limits.resampling_plan`): ten days of 20,000 queries cost
    what 200,000 queries cost, so every period takes the normal limit when the whole would
    (``"normal"`` for all of them if the bootstrap or the randomization test would).

    Examples
    --------
    >>> period_statistics(Statistics(), 200_000, 3).large_sample
    'normal'
    >>> period_statistics(Statistics(), 2_000, 3).large_sample
    'auto'
    """
    if statistics.large_sample != "auto":
        return statistics
    plan = resampling_plan(n_units, n_systems, statistics)
    if plan.normal("bootstrap") or plan.normal("randomization"):
        return replace(statistics, large_sample="normal")
    return statistics


def check_periods(
    frame: pl.DataFrame | pl.LazyFrame, period: str, keys: Sequence[str] = ()
) -> pl.Series:
    """The distinct periods of ``frame``'s column ``period``, sorted, after its rules: the
    column exists, is none of the key columns ``keys`` (the systems', the queries'), holds
    no null (and no NaN) and at least two distinct values.

    Examples
    --------
    >>> check_periods(pl.DataFrame({"day": [2, 1, 2]}), "day").to_list()
    [1, 2]
    >>> check_periods(pl.DataFrame({"day": [3, 3]}), "day")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: trend column 'day' has one period (3): a trend \
needs at least two periods; choose a column with several values (a day, a week)
    """
    if period in keys:
        msg = (
            f"the trend column {period!r} is a key column ({list(keys)}): a period holds "
            "several systems and queries; name the column of the periods (period= of "
            "pg.trend, --trend of the report), e.g. 'day'"
        )
        raise InvalidValueError(msg)
    lf = frame.lazy()
    schema = lf.collect_schema()
    if period not in schema:
        msg = (
            f"trend column {period!r} not found; the table has {schema.names()}: name the "
            "column of the periods (period= of pg.trend, --trend of the report), e.g. 'day'"
        )
        raise MissingColumnError(msg)
    column = pl.col(period)
    bad = column.is_null()
    if schema[period].is_float():
        bad = bad | column.is_nan()
    counts = lf.select(bad=bad.sum(), periods=column.drop_nulls().unique().sort().implode())
    row = counts.collect()
    if int(row["bad"][0]) > 0:
        msg = (
            f"trend column {period!r} has {int(row['bad'][0]):,} rows without a period (null or "
            "NaN): every row needs one; drop or fill them first, e.g. "
            f"frame.filter(pl.col({period!r}).is_not_null())"
        )
        raise InvalidValueError(msg)
    periods: pl.Series = row["periods"][0]
    if periods.len() < 2:
        shown = f"one period ({periods[0]!r})" if periods.len() else "no period (no rows)"
        msg = (
            f"trend column {period!r} has {shown}: a trend needs at least two periods; "
            "choose a column with several values (a day, a week)"
        )
        raise InvalidValueError(msg)
    return periods.alias(period)


def trend_with(
    frame: pl.DataFrame,
    measures: Sequence[str] | None,
    statistics: Statistics,
    *,
    period: str,
    by: str = SYSTEM,
    baseline: object | None = None,
    query: str = "query",
    weight: str | None = None,
) -> pl.DataFrame:
    """:func:`trend` with its options checked already, as ``statistics``; ``by`` names one
    column.

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a", "b"] * 2, "day": [1, 1, 2, 2], "query": [1] * 4,
    ...     "ap": [0.5, 1.0, 1.0, 0.5],
    ... })
    >>> out = trend_with(per_query, None, Statistics(trials=9, bootstrap=9), period="day")
    >>> out.select("system", "day", "diff").rows()
    [('a', 1, 0.0), ('a', 2, 0.0), ('b', 1, 0.5), ('b', 2, -0.5)]
    """
    periods = check_periods(frame, period, (by, query))
    if by not in frame.columns:
        msg = f"system column {by!r} not found; the table has {frame.columns}: name it with by="
        raise MissingColumnError(msg)
    names = _measures(frame, measures, (by, period, query, weight))
    if weight is not None:
        check_weights(frame, weight, [period, query])
    systems = order_systems(frame.get_column(by), baseline)
    units = frame.select(pl.struct(period, query).n_unique()).item()
    statistics = period_statistics(statistics, units, systems.len())
    parts = frame.partition_by(period, as_dict=True)
    keep = [by, "measure", *VALUES, deciding_column(statistics), "significant"]
    keys = _Keys(by, query, systems[0], weight)
    rows = [
        _period(parts[(value,)], names, statistics, period=period, value=value, keys=keys)
        .select(keep)
        .with_columns(pl.lit(value, dtype=periods.dtype).alias(period))
        for value in periods
    ]
    out = pl.concat(rows)
    rank = {
        "measure": pl.col("measure").replace_strict(names, list(range(len(names)))),
        by: pl.col(by).replace_strict(systems, list(range(systems.len()))),
    }
    out = out.sort([rank["measure"], rank[by], pl.col(period)])
    columns = ["measure", period, by, *VALUES, deciding_column(statistics), "significant"]
    return out.select(columns).with_columns(_flags(["measure", by]))


@dataclass(frozen=True)
class _Keys:
    """The columns of a comparison and its baseline, the same in every period."""

    by: str
    query: str
    baseline: object
    weight: str | None


def _measures(
    frame: pl.DataFrame, measures: Sequence[object] | None, keys: Sequence[str | None]
) -> list[str]:
    """The measure names: as given, or every column but the keys."""
    if measures is not None:
        return [str(m) for m in measures]
    return [c for c in frame.columns if c not in keys]


def _period(
    rows: pl.DataFrame,
    names: list[str],
    statistics: Statistics,
    *,
    period: str,
    value: object,
    keys: _Keys,
) -> pl.DataFrame:
    """The comparison of one period's rows, an error in it naming the period."""
    where = f"in period {value!r} of trend column {period!r}"
    if keys.baseline not in rows.get_column(keys.by).to_list():
        msg = (
            f"{where}: no rows of the baseline {keys.baseline!r}; every period must hold the "
            "baseline (filter the periods first, or choose another baseline)"
        )
        raise InvalidValueError(msg)
    try:
        return compare_with(
            rows,
            names,
            statistics,
            by=keys.by,
            query=keys.query,
            baseline=keys.baseline,
            weight=keys.weight,
        )
    except GradedError as error:
        raise type(error)(f"{where}: {error}") from error


def _flags(keys: list[str]) -> list[pl.Expr]:
    """:data:`FLAGS` against the previous row of the same ``keys`` (rows in period order)."""
    previous_diff = pl.col("diff").shift().over(keys)
    previous_significant = pl.col("significant").shift().over(keys)
    return [
        (pl.col("diff") * previous_diff < 0).fill_null(False).alias(FLAGS[0]),
        (pl.col("significant") != previous_significant).fill_null(False).alias(FLAGS[1]),
    ]

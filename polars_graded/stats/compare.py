"""Compare systems on per-query values: means, bootstrap intervals, paired tests, Holm.

:func:`compare` takes the per-query table of ``pg.evaluate(table, measures, by="system")``
and says, per measure, how each system differs from a baseline and whether the difference is
more than chance: a bootstrap percentile interval of each mean and of each paired mean
difference, a paired t-test, a paired randomization (sign-flip) test, and Holm–Bonferroni
adjusted p-values across the systems.

The two choices every comparison of systems makes live here, once, for :func:`compare` and
the report (:mod:`polars_graded.report`): which system is the baseline
(:func:`order_systems`) and which queries count when systems lack some
(:data:`MISSING_POLICIES`, :func:`compared_queries`, :func:`query_grid`).

Everything is vectorised in numpy over systems, measures, trials and resamples. One matrix
of random signs and one matrix of bootstrap resamples are drawn per call (in chunks, to
bound memory) and shared by every system and measure, so all systems are tested on the same
random flips and resamples. scipy (``pip install "polars-graded[stats]"``) gives the
t-test's distribution; the rest is numpy.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal, get_args

import numpy as np
import polars as pl

from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    InvalidValueError,
    MissingColumnError,
)
from polars_graded.options import as_by

# The options' names and checks moved to statistics; importable from here still.
from polars_graded.stats.options import (  # noqa: F401
    CORRECTIONS,
    DEFAULTS,
    MISSING_POLICIES,
    Correction,
    MissingPolicy,
    Statistics,
    check_count,
    check_fraction,
    check_missing,
    check_options,
)
from polars_graded.validate import check_frame

Pairs = Literal["baseline", "all"]
"""Which pairs of systems :func:`compare` tests: each against the baseline, or all."""
PAIRS: tuple[str, ...] = get_args(Pairs)

CHUNK_ELEMENTS = 1 << 22
"""Entries of one chunk of the sign or resample matrix (32 MiB as float64)."""

MAX_BOOTSTRAP_MEANS = 1 << 26
"""The most bootstrap means held at once, resamples x systems x measures (512 MiB as float64;
the quantiles copy them once or twice more)."""

TIE_TOLERANCE = 1e-9
"""Flipped sums within this fraction of ``sum |d|`` of the observed one count as ties."""

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
    "t_stat",
    "p_ttest",
    "p_randomization",
    "p_ttest_holm",
    "p_randomization_holm",
    "significant",
)
"""The columns of :func:`compare`'s result, in order (``system`` takes the key's name)."""

_TESTS = ("t_stat", "p_ttest", "p_randomization", "p_ttest_holm", "p_randomization_holm")
_PRESENT = "__pg_present"
_SYSTEM_INDEX = "__pg_system_index"
_QUERY_INDEX = "__pg_query_index"


def compare(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None = None,
    *,
    by: str | Sequence[str] = "system",
    query: str = "query",
    baseline: object | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    trials: int = DEFAULTS.trials,
    bootstrap: int = DEFAULTS.bootstrap,
    confidence: float = DEFAULTS.confidence,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    system: str | None = None,
    pairs: Pairs = "baseline",
    correction: Correction = DEFAULTS.correction,
    segment: str | Sequence[str] | None = None,
    min_queries: int | None = None,
) -> pl.DataFrame:
    """Compare every system with a baseline, per measure, with paired significance tests.

    Parameters
    ----------
    per_query
        One row per (system, query) and one numeric column per measure: the output of
        ``pg.evaluate(table, measures, by="system")``. A LazyFrame is collected.
    measures
        The value columns to compare (names, or measure objects whose ``str`` is the name).
        Default: every column but ``system`` and ``query``, in the frame's order.
    by, query
        Names of the key columns: the one that names the systems (:func:`by_column`), and
        the query's.
    baseline
        The system (a value of ``by``) to compare with. Default: the first in sorted order
        (:func:`order_systems`).
    missing
        Which queries are compared when systems do not all have the same ones:

        - ``"zero"`` (default): the union of every system's queries; a query a system lacks
          scores 0 for it, as ``trec_eval -c`` scores a query the run did not answer.
        - ``"common"``: only the queries every system has.

        Either way ``n_missing`` counts, per system, the queries of the union it lacks
        (see :func:`compared_queries`).
    trials
        Random sign flips of the randomization test.
    bootstrap
        Bootstrap resamples (of queries, with replacement) for the intervals.
    confidence
        Coverage of the intervals, in (0, 1).
    alpha
        Level at which ``significant`` is set, on the Holm-adjusted randomization p-value.
    seed
        Seeds the signs and the resamples; the same call gives the same numbers.
    system
        Deprecated alias of ``by`` (a :class:`DeprecationWarning`).
    pairs
        ``"baseline"`` (default): every system against the baseline, as described here.
        ``"all"``: every system against every other, the result of
        :func:`polars_graded.stats.pairs.compare_pairs` with these options (no
        ``baseline``).
    correction
        The multiple-testing correction of ``pairs="all"`` and of ``segment=`` (see
        :data:`CORRECTIONS`); the baseline comparison always uses Holm.
    segment, min_queries
        The column(s) that put each query in a segment, and the fewest queries a tested
        segment has: the result of :func:`polars_graded.stats.segments.compare_segments` with
        these options (default ``min_queries`` there).

    Returns
    -------
    DataFrame
        One row per (system, measure): by measure in the given order, then the baseline,
        then the other systems in sorted order. Columns:

        - the system column, named ``by`` (the input's dtype), ``measure`` (String);
        - ``n_queries`` (Int64): queries compared; ``n_missing`` (Int64): queries of the
          union of all systems' queries that this system lacks;
        - ``mean``, ``ci_low``, ``ci_high``: the system's mean over the compared queries and
          its bootstrap percentile interval;
        - ``baseline_mean``; ``diff`` = ``mean - baseline_mean``; ``diff_ci_low``,
          ``diff_ci_high``: bootstrap percentile interval of the paired mean difference
          (each resample draws the same queries for the system and the baseline);
        - ``t_stat``, ``p_ttest``: paired two-sided t-test (``scipy.stats.ttest_rel``);
        - ``p_randomization``: paired two-sided randomization test (below);
        - ``p_ttest_holm``, ``p_randomization_holm``: Holm–Bonferroni adjusted across the
          non-baseline systems, per measure and per test;
        - ``significant`` (Boolean): ``p_randomization_holm < alpha``.

        Every float column is Float64. Baseline rows have ``diff`` and its interval 0.0,
        null tests and ``significant`` false.

    Notes
    -----
    **Randomization test.** Under the null hypothesis the sign of each per-query difference
    ``d_q = x_q - baseline_q`` is arbitrary. Each trial flips the signs at random (one
    sign matrix shared by all systems and measures); with ``k`` the number of trials whose
    ``|mean of flipped d|`` is at least ``|mean d|`` (ties within ``1e-9 * sum |d|``
    included, so that rounding does not decide them),
    ``p = (1 + k) / (1 + trials)``: the observed signs count as one of the arrangements, so
    p is never 0 and the test is valid at any number of trials.

    **Intervals.** Percentile bootstrap: the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles (numpy's linear interpolation) of the mean over
    ``bootstrap`` resamples of the compared queries. One resample matrix serves every
    system and measure, so the difference interval is paired.

    **Holm.** Per measure and test, the ``m`` non-baseline p-values sorted ascending
    ``p_(1) <= ... <= p_(m)`` become ``min(1, max_{j <= i} (m - j + 1) p_(j))``.

    **Degenerate cases.** When every difference is 0 (a system identical to the baseline on
    the compared queries) scipy's t-test is 0/0; it is reported as ``t_stat`` 0.0 and
    ``p_ttest`` 1.0, and the randomization p is 1.0 (every flip ties). Constant non-zero
    differences keep scipy's values (``t_stat`` ±inf, ``p_ttest`` 0.0). With fewer than two
    compared queries the t-test is undefined: ``t_stat`` and ``p_ttest`` (and its Holm
    column) are null.

    Raises
    ------
    MissingColumnError
        ``by``, ``query`` or a measure column is absent.
    ColumnTypeError
        A measure column is not numeric, or ``per_query`` is not a Polars DataFrame or
        LazyFrame.
    DuplicateKeyError
        A (``by``, ``query``) pair occurs twice.
    InvalidValueError
        Null keys, null/NaN/infinite values, an unknown baseline, fewer than two systems,
        no common query (``missing="common"``), or bad ``missing``, ``trials``,
        ``bootstrap`` (each at most
        :data:`~polars_graded.stats.options.MAX_RESAMPLES`, and the bootstrap means at most
        :data:`MAX_BOOTSTRAP_MEANS`), ``confidence``, ``alpha`` or ``seed`` (an integer
        >= 0).
    ImportError
        scipy is not installed.

    Examples
    --------
    System b beats a by 0.1 on three of four queries; the exact randomization p over the
    2^4 sign patterns is 4/16 = 0.25, which 1,000 trials estimate:

    >>> import polars as pl
    >>> from polars_graded.stats.compare import compare
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4,
    ...     "query": [1, 2, 3, 4] * 2,
    ...     "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.5],
    ... })
    >>> out = compare(per_query, trials=1000, bootstrap=1000)
    >>> out.select("system", "measure", "mean", "diff", "p_randomization", "significant")
    shape: (2, 6)
    ┌────────┬─────────┬──────┬──────┬─────────────────┬─────────────┐
    │ system ┆ measure ┆ mean ┆ diff ┆ p_randomization ┆ significant │
    │ ---    ┆ ---     ┆ ---  ┆ ---  ┆ ---             ┆ ---         │
    │ str    ┆ str     ┆ f64  ┆ f64  ┆ f64             ┆ bool        │
    ╞════════╪═════════╪══════╪══════╪═════════════════╪═════════════╡
    │ a      ┆ ap      ┆ 0.3  ┆ 0.0  ┆ null            ┆ false       │
    │ b      ┆ ap      ┆ 0.4  ┆ 0.1  ┆ 0.246753        ┆ false       │
    └────────┴─────────┴──────┴──────┴─────────────────┴─────────────┘
    """
    check_frame(per_query, "compare")
    by = by_column(by, system)
    # Holm's until the correction is checked where it applies: after segment= and pairs=.
    statistics = Statistics(missing, trials, bootstrap, confidence, alpha, seed)
    _import_ttest()  # before the work: a missing scipy is found at once
    keys = {"by": by, "query": query, "baseline": baseline}
    if segment is not None or min_queries is not None:
        return _by_segment(
            per_query,
            measures,
            segment=segment,
            min_queries=min_queries,
            pairs=pairs,
            keys=keys,
            statistics=statistics,
            correction=correction,
        )
    if pairs == "baseline" and correction != "holm":
        msg = f"correction={correction!r} needs pairs='all'; the baseline comparison uses Holm"
        raise InvalidValueError(msg)
    if pairs != "baseline":
        return _all_pairs(
            per_query, measures, pairs, keys=keys, statistics=statistics, correction=correction
        )
    return compare_with(per_query, measures, statistics, by=by, query=query, baseline=baseline)


def compare_with(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    statistics: Statistics,
    *,
    by: str = "system",
    query: str = "query",
    baseline: object | None = None,
) -> pl.DataFrame:
    """:func:`compare` (every system against the baseline) with its options checked
    already, as ``statistics`` (its ``correction`` is not read: the baseline comparison
    uses Holm); ``by`` names one column.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {"system": ["a", "a", "b", "b"], "query": [1, 2, 1, 2], "ap": [0.5, 1.0, 1.0, 1.0]}
    ... )
    >>> out = compare_with(per_query, None, Statistics(trials=99, bootstrap=99))
    >>> out.select("system", "diff").rows()
    [('a', 0.0), ('b', 0.25)]
    """
    ttest_rel = _import_ttest()
    names, systems, values, n_missing = value_matrix(
        per_query, measures, by=by, query=query, missing=statistics.missing, baseline=baseline
    )
    columns = _statistics(values, ttest_rel, statistics)
    out = _result(columns, systems.alias(by), names, n_missing, n_queries=values.shape[2])
    significant = pl.col("p_randomization_holm") < statistics.alpha
    return out.with_columns(significant=significant.fill_null(False))


def _all_pairs(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    pairs: object,
    *,
    keys: dict[str, Any],
    statistics: Statistics,
    correction: Correction,
) -> pl.DataFrame:
    """``compare(pairs="all")``: forwarded to :func:`compare_pairs` once the choices are
    checked, then the correction (imported here: that module builds on this one)."""
    if pairs not in PAIRS:
        choices = " or ".join(map(repr, PAIRS))
        msg = f"pairs must be {choices}, got {pairs!r}"
        raise InvalidValueError(msg)
    baseline = keys["baseline"]
    if baseline is not None:
        msg = f"pairs='all' compares every pair of systems; drop baseline={baseline!r}"
        raise InvalidValueError(msg)
    from polars_graded.stats.pairs import compare_pairs_with

    statistics = replace(statistics, correction=correction)
    return compare_pairs_with(per_query, measures, statistics, by=keys["by"], query=keys["query"])


def _by_segment(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    *,
    segment: str | Sequence[str] | None,
    min_queries: int | None,
    pairs: object,
    keys: dict[str, Any],
    statistics: Statistics,
    correction: Correction,
) -> pl.DataFrame:
    """``compare(segment=...)``: forwarded to :func:`compare_segments` once the choices are
    checked, then the correction (imported here: that module builds on this one)."""
    if segment is None:
        msg = f"min_queries={min_queries!r} needs segment=, the column(s) of the segments"
        raise InvalidValueError(msg)
    if pairs != "baseline":
        msg = "segment= compares each system with the baseline per segment; drop pairs='all'"
        raise InvalidValueError(msg)
    from polars_graded.stats.segments import compare_segments_with

    statistics = replace(statistics, correction=correction)
    if min_queries is not None:  # else compare_segments' default
        keys = {**keys, "min_queries": min_queries}
    return compare_segments_with(per_query, measures, statistics, segment=segment, **keys)


def value_matrix(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[object] | None,
    *,
    by: str,
    query: str,
    missing: MissingPolicy,
    baseline: object | None = None,
) -> tuple[list[str], pl.Series, np.ndarray, np.ndarray]:
    """The checked inputs of a comparison: the measure names, the systems
    (:func:`order_systems`), the values as (measure, system, compared query) and each
    system's count of missing queries (see :func:`compare` for the rules and errors).

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
    names = _measure_names(frame, measures, by, query)
    _check_values(frame, names, by, query)
    _check_systems(frame, by)
    systems = order_systems(frame.get_column(by), baseline)
    values, n_missing = _value_matrix(
        frame, names, by=by, query=query, systems=systems, missing=missing
    )
    return names, systems, values, n_missing


def _result(
    columns: dict[str, np.ndarray],
    systems: pl.Series,
    names: list[str],
    n_missing: np.ndarray,
    *,
    n_queries: int,
) -> pl.DataFrame:
    """One row per (measure, system) in that order; the tests null on the baseline."""
    n_measures, n_systems = len(names), systems.len()
    out = pl.DataFrame(
        {
            systems.name: systems.gather(np.tile(np.arange(n_systems), n_measures)),
            "measure": np.repeat(np.array(names, dtype=object), n_systems).tolist(),
            "n_queries": np.full(n_measures * n_systems, n_queries, dtype=np.int64),
            "n_missing": np.tile(n_missing, n_measures).astype(np.int64),
            **{
                name: np.ascontiguousarray(v, dtype=np.float64).ravel()
                for name, v in columns.items()
            },
        },
        schema_overrides={"measure": pl.String},
    )
    return out.with_columns(pl.col(*_TESTS).fill_nan(None))


def by_column(
    by: str | Sequence[str] | None = "system", system: str | None = None, *, depth: int = 1
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


def compared_queries(
    values: pl.DataFrame,
    missing: MissingPolicy = DEFAULTS.missing,
    *,
    by: str = "system",
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
    by: str = "system",
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
    by: str = "system",
    query: str = "query",
) -> pl.DataFrame:
    """Per system (in ``systems``' order), the mean of each value column of ``values`` over
    the compared queries: the means :func:`compare` reports (:func:`query_grid`).

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


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values along the last axis.

    The ``m`` p-values sorted ascending ``p_(1) <= ... <= p_(m)`` become
    ``min(1, max_{j <= i} (m - j + 1) p_(j))``, returned in the input's order. NaN sorts
    last and stays NaN.

    Examples
    --------
    >>> holm(np.array([0.01, 0.04, 0.03])).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[-1]
    if m == 0:
        return p.copy()
    order = np.argsort(p, axis=-1, kind="stable")
    scaled = (m - np.arange(m)) * np.take_along_axis(p, order, axis=-1)
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled, axis=-1))
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def _import_ttest() -> Any:
    try:
        from scipy.stats import ttest_rel
    except ImportError as error:
        msg = (
            "compare() needs scipy for the t-test; install it with "
            'pip install "polars-graded[stats]"'
        )
        raise ImportError(msg) from error
    return ttest_rel


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
    frame: pl.DataFrame, measures: Sequence[object] | None, by: str, query: str
) -> list[str]:
    """The value columns, checked: present, numeric, distinct, not a key."""
    _check_keys(frame, by, query)
    if measures is None:
        names = [c for c in frame.columns if c not in (by, query)]
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


def _statistics(
    values: np.ndarray, ttest_rel: Any, statistics: Statistics
) -> dict[str, np.ndarray]:
    """The result's value columns as (measure, system) arrays, in :data:`OUTPUT_COLUMNS`
    order; the tests NaN on the baseline."""
    seeds = np.random.SeedSequence(statistics.seed).spawn(2)
    rng_boot, rng_flip = (np.random.default_rng(s) for s in seeds)
    mean = values.mean(axis=2)
    ci, diff_ci = _intervals(values, statistics.bootstrap, statistics.confidence, rng_boot)
    return {
        "mean": mean,
        "ci_low": ci[0],
        "ci_high": ci[1],
        "baseline_mean": np.broadcast_to(mean[:, :1], mean.shape),
        "diff": mean - mean[:, :1],
        "diff_ci_low": diff_ci[0],
        "diff_ci_high": diff_ci[1],
        **_tests(values, ttest_rel, statistics.trials, rng_flip),
    }


def _intervals(
    values: np.ndarray, bootstrap: int, confidence: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of each mean and of each paired difference from the
    baseline (0 for the baseline itself), as (low/high, measure, system)."""
    n_measures, n_systems, n_queries = values.shape
    boot = bootstrap_means(values.reshape(n_measures * n_systems, n_queries), bootstrap, rng)
    boot = boot.reshape(n_measures, n_systems, bootstrap)
    quantiles = [(1 - confidence) / 2, (1 + confidence) / 2]
    ci = np.quantile(boot, quantiles, axis=2)
    diff_ci = np.quantile(boot - boot[:, :1], quantiles, axis=2)
    diff_ci[:, :, 0] = 0.0
    return ci, diff_ci


def _tests(
    values: np.ndarray, ttest_rel: Any, trials: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """The paired tests of each system against the baseline, Holm-adjusted, as (measure,
    system) with a NaN column for the baseline (null once in the frame)."""
    n_measures, n_systems, n_queries = values.shape
    differences = values[:, 1:] - values[:, :1]
    p_flip = randomization_p(differences.reshape(-1, n_queries), trials, rng).reshape(
        n_measures, n_systems - 1
    )
    t_stat, p_t = _paired_ttest(ttest_rel, values, differences)
    tests = {
        "t_stat": t_stat,
        "p_ttest": p_t,
        "p_randomization": p_flip,
        "p_ttest_holm": holm(p_t),
        "p_randomization_holm": holm(p_flip),
    }
    pad = np.full((n_measures, 1), np.nan)
    return {name: np.concatenate([pad, test], axis=1) for name, test in tests.items()}


def bootstrap_means(rows: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of each row over ``resamples`` resamples of its columns, shared by every row.

    A resample is stored as how often it draws each query, so a chunk of resamples is one
    matrix product.

    Examples
    --------
    >>> rows = np.array([[1.0, 1.0], [0.0, 2.0]])
    >>> means = bootstrap_means(rows, 5, np.random.default_rng(0))
    >>> means.shape, means[0].tolist()
    ((2, 5), [1.0, 1.0, 1.0, 1.0, 1.0])
    """
    n_rows, n = rows.shape
    _check_bootstrap_memory(n_rows, resamples)
    out = np.empty((n_rows, resamples))
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n)
        out[:, start : start + size] = rows @ counts.T.astype(np.float64)
    out /= n
    return out


def _check_bootstrap_memory(n_rows: int, resamples: int) -> None:
    """At most :data:`MAX_BOOTSTRAP_MEANS` means at once; else an error saying how many
    resamples fit (before numpy would try to allocate them)."""
    if n_rows * resamples > MAX_BOOTSTRAP_MEANS:
        gib = n_rows * resamples * 8 / 2**30
        msg = (
            f"bootstrap={resamples:,} resamples of {n_rows} means (systems x measures) "
            f"would hold {gib:,.1f} GiB in memory; the limit is {MAX_BOOTSTRAP_MEANS:,} "
            f"means ({MAX_BOOTSTRAP_MEANS * 8 >> 20} MiB): give bootstrap <= "
            f"{max(1, MAX_BOOTSTRAP_MEANS // n_rows):,}"
        )
        raise InvalidValueError(msg)


def randomization_p(differences: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Two-sided sign-flip p-value of each row's mean, ``(1 + k) / (1 + trials)``.

    The sums are compared rather than the means (the same order, one division less).

    Examples
    --------
    >>> randomization_p(np.zeros((1, 3)), 9, np.random.default_rng(0)).tolist()
    [1.0]
    """
    n_rows, n = differences.shape
    observed = np.abs(differences.sum(axis=1))
    threshold = observed - TIE_TOLERANCE * np.abs(differences).sum(axis=1)
    at_least = np.zeros(n_rows, dtype=np.int64)
    chunk = max(1, CHUNK_ELEMENTS // n)
    n_bytes = (n + 7) // 8
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        random_bytes = rng.integers(0, 256, size=(size, n_bytes), dtype=np.uint8)
        bits = np.unpackbits(random_bytes, axis=1, count=n)
        signs = 1.0 - 2.0 * bits
        flipped = differences @ signs.T
        at_least += (np.abs(flipped) >= threshold[:, None]).sum(axis=1)
    return (1.0 + at_least) / (1.0 + trials)


def _paired_ttest(
    ttest_rel: Any, values: np.ndarray, differences: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """t statistic and two-sided p per (measure, non-baseline system); 0 and 1 if all d = 0."""
    baseline = np.broadcast_to(values[:, :1], values[:, 1:].shape)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # 0/0 for identical systems, df = 0 for a single query: handled below.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = ttest_rel(values[:, 1:], baseline, axis=2)
    t_stat = np.asarray(result.statistic, dtype=np.float64).copy()
    p = np.asarray(result.pvalue, dtype=np.float64).copy()
    identical = (differences == 0).all(axis=2) & (values.shape[2] >= 2)
    t_stat[identical] = 0.0
    p[identical] = 1.0
    return t_stat, p

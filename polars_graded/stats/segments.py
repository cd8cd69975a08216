"""Compare systems with a baseline within segments of the queries, and find where the order
reverses.

:func:`compare_segments` takes the per-query table of
``pg.evaluate(table, measures, by=["system", "lang"])`` (a segment column is a property of the
query: its language, market, length bucket, date) and compares every system with the
baseline inside each segment, as :func:`~polars_graded.stats.compare.compare` would compare that
segment's queries alone; the randomization p-values are then corrected across segments x
systems (:func:`~polars_graded.stats.corrections.adjust`). A segment with fewer than
``min_queries`` queries is shown but not tested. :func:`segment_reversals` lists the systems
whose order against the baseline in a tested segment is the opposite of their overall order:
the trap of Simpson's paradox, a winner over all queries that loses within a segment. (Every
system is scored on the same queries, so the overall difference is the query-weighted mean of
the segments' differences: it can reverse in some segments, never in all.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import partial

import numpy as np
import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import (
    InvalidValueError,
    MissingColumnError,
)
from polars_graded.frames import Table, as_polars
from polars_graded.options import as_by
from polars_graded.stats.baseline import compare_with
from polars_graded.stats.corrections import adjust
from polars_graded.stats.grid import (
    OUTPUT_COLUMNS,
    P_VALUES,
    by_column,
    check_weighted_test,
    compared_weights,
    query_grid,
    value_matrix,
)
from polars_graded.stats.limits import weighted_mean
from polars_graded.stats.options import (
    DEFAULTS,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Statistics,
    Test,
    check_count,
)
from polars_graded.stats.resampling import TIE_TOLERANCE
from polars_graded.stats.segment_table import check_segment_types, join_segment_table
from polars_graded.weights import query_weights

__all__ = [
    "MIN_QUERIES",
    "REVERSAL_COLUMNS",
    "SEGMENT_COLUMNS",
    "check_segment_types",
    "compare_segments",
    "compare_segments_with",
    "join_segment_table",
    "segment_reversals",
]

SEGMENT_COLUMNS = (
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
    "overall_diff",
    "p_randomization",
    "p_randomization_adjusted",
    "p_ttest",
    "p_ttest_adjusted",
    "p_wilcoxon",
    "p_wilcoxon_adjusted",
    "significant",
    "tested",
    "note",
)
"""The columns of :func:`compare_segments`' result after the segment and system columns."""

REVERSAL_COLUMNS = (
    "measure",
    "n_queries",
    "overall_diff",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "p_randomization_adjusted",
    "p_ttest_adjusted",
    "p_wilcoxon_adjusted",
    "significant",
)
"""The columns of :func:`segment_reversals`' result after the segment and system columns."""

_FROM_COMPARE = tuple(c for c in OUTPUT_COLUMNS if c in SEGMENT_COLUMNS and c != "n_missing")
"""The columns each segment's :func:`~polars_graded.stats.compare.compare` gives (``n_missing``
is recounted: compare sees the segment's grid, where nothing is missing)."""
_PRESENT = "__pg_present"

MIN_QUERIES = 20
"""The fewest compared queries a tested segment has, by default."""


def compare_segments(
    per_query: Table,
    measures: Sequence[str] | None = None,
    *,
    segment: str | Sequence[str],
    by: str | Sequence[str] = SYSTEM,
    query: str = "query",
    baseline: object | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    trials: int = DEFAULTS.trials,
    bootstrap: int = DEFAULTS.bootstrap,
    confidence: float = DEFAULTS.confidence,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    correction: Correction = DEFAULTS.correction,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    test: Test = DEFAULTS.test,
    min_queries: int = MIN_QUERIES,
    weight: str | None = None,
    large_sample: LargeSample = DEFAULTS.large_sample,
) -> pl.DataFrame:
    """Compare every system with a baseline within each segment of the queries.

    Parameters
    ----------
    per_query
        One row per (system, query), the segment columns, and one numeric column per
        measure: ``pg.evaluate(table, measures, by=["system", *segment])``. A LazyFrame is
        collected; a pandas DataFrame or an Arrow table is converted
        (:func:`~polars_graded.frames.as_polars`).
    measures
        The value columns (default: every column but the keys and the segment columns).
    segment
        The column, or columns, that put each query in a segment. Every row of a query
        (for every system) must carry the same segment; a null is a segment of its own.
    by, query, baseline, missing, trials, bootstrap, confidence
        As in :func:`polars_graded.stats.compare.compare`; the baseline and the compared
        queries are chosen once, over the whole table (a system that lacks a segment's
        query scores 0 for it with ``missing="zero"``).
    alpha
        Level at which ``significant`` is set, on ``p_randomization_adjusted``.
    seed
        Every segment is tested with this seed, so a segment's numbers are those of
        :func:`~polars_graded.stats.compare.compare` on its queries alone.
    correction
        How the randomization p-values of each measure are corrected across the tested
        segments x the non-baseline systems (the family; measures apart):
        ``"bonferroni"``, ``"holm"`` (default), ``"holm-sidak"``, ``"bh"``
        (Benjamini–Hochberg) or ``"none"`` (:func:`~polars_graded.stats.corrections.adjust`).
    bootstrap_method
        ``"percentile"`` (default) or ``"bca"``: how each segment's intervals are read from
        its resamples, as in :func:`~polars_graded.stats.compare.compare`.
    test
        The paired test that decides ``significant``: ``"randomization"`` (default),
        ``"t"`` or ``"wilcoxon"``, as in :func:`~polars_graded.stats.compare.compare`; all
        three are computed and corrected whatever the choice.
    min_queries
        A segment with fewer compared queries is shown (means and intervals) but not
        tested: its p-values are null and ``note`` says so.
    weight, large_sample
        As in :func:`polars_graded.stats.compare.compare`: the traffic weight of each query
        (within each segment the means, intervals and tests are weighted, and
        ``overall_diff`` is the weighted difference over every query; a segment whose
        queries all weigh 0 is an error), and whether each segment resamples or takes the
        normal limits (decided on the segment's own size).

    Returns
    -------
    DataFrame
        A Polars DataFrame, whatever the input's kind.
        One row per (segment, measure, system): segments in sorted order (nulls last),
        measures in the given order, the baseline first, then the other systems sorted.
        Columns: the segment columns and the system column (the input's names and
        dtypes), then

        - ``measure``; ``n_queries``: the segment's compared queries; ``n_missing``: the
          segment's queries this system lacks;
        - ``mean``, ``ci_low``, ``ci_high``, ``baseline_mean``, ``diff``,
          ``diff_ci_low``, ``diff_ci_high``: as :func:`~polars_graded.stats.compare.compare`
          computes them on the segment's queries; ``d_z``, ``change_pct``: the effect sizes
          of :func:`~polars_graded.stats.compare.compare` within the segment;
        - ``overall_diff``: the system's ``diff`` over every compared query (the
          ``diff`` of :func:`~polars_graded.stats.compare.compare` on the whole table);
        - ``p_randomization``: the paired sign-flip test within the segment;
          ``p_randomization_adjusted``: corrected by ``correction``; both null on the
          baseline and in untested segments; ``p_ttest``, ``p_ttest_adjusted``,
          ``p_wilcoxon``, ``p_wilcoxon_adjusted``: the t-test and the Wilcoxon
          signed-rank test, likewise;
        - ``significant`` (Boolean): the adjusted p-value of ``test`` ``< alpha``
          (``p_randomization_adjusted`` by default);
        - ``tested`` (Boolean): ``n_queries >= min_queries``; ``note`` (String): why a
          segment is not tested, null when it is.

        Under ``missing="common"`` a segment without a common query has no row.

    Raises
    ------
    MissingColumnError
        A segment, key or measure column is absent.
    InvalidValueError
        A query in two segments (the message names the column and two rows), a segment
        column that is a key, a measure or a result column, a bad ``min_queries`` or
        ``correction``, or as :func:`~polars_graded.stats.compare.compare`.
    ColumnTypeError, DuplicateKeyError
        As :func:`~polars_graded.stats.compare.compare`.

    Examples
    --------
    System b is better than a in English, worse in German:

    >>> import polars as pl
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4,
    ...     "lang": ["en", "en", "de", "de"] * 2,
    ...     "query": [1, 2, 3, 4] * 2,
    ...     "ap": [0.25, 0.5, 0.5, 1.0, 0.5, 0.75, 0.25, 0.75],
    ... })
    >>> out = compare_segments(per_query, segment="lang", min_queries=2, trials=99, bootstrap=99)
    >>> out.select("lang", "system", "n_queries", "mean", "diff", "tested").rows()
    [('de', 'a', 2, 0.75, 0.0, True), ('de', 'b', 2, 0.5, -0.25, True), \
('en', 'a', 2, 0.375, 0.0, True), ('en', 'b', 2, 0.625, 0.25, True)]

    With the default ``min_queries=20`` neither segment is tested:

    >>> compare_segments(per_query, segment="lang", trials=99, bootstrap=99)["note"][0]
    'fewer than 20 queries: not tested'
    """
    frame = as_polars(per_query, "compare_segments")
    by = by_column(by)
    options = (missing, trials, bootstrap, confidence, alpha, seed, correction)
    statistics = Statistics(
        *options, test=test, bootstrap_method=bootstrap_method, large_sample=large_sample
    )
    return compare_segments_with(
        frame,
        measures,
        statistics,
        segment=segment,
        by=by,
        query=query,
        baseline=baseline,
        min_queries=min_queries,
        weight=weight,
    )


def compare_segments_with(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    statistics: Statistics,
    *,
    segment: str | Sequence[str],
    by: str = SYSTEM,
    query: str = "query",
    baseline: object | None = None,
    min_queries: int = MIN_QUERIES,
    weight: str | None = None,
) -> pl.DataFrame:
    """:func:`compare_segments` with its options checked already, as ``statistics``;
    ``by`` names one column.

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 2 + ["b"] * 2, "lang": ["en", "de"] * 2, "query": [1, 2] * 2,
    ...     "ap": [0.5, 1.0, 1.0, 0.5],
    ... })
    >>> out = compare_segments_with(
    ...     per_query, None, Statistics(trials=9, bootstrap=9), segment="lang", min_queries=1
    ... )
    >>> out.select("lang", "system", "diff").rows()
    [('de', 'a', 0.0), ('de', 'b', -0.5), ('en', 'a', 0.0), ('en', 'b', 0.5)]
    """
    check_count("min_queries", min_queries)
    check_weighted_test(weight, statistics.test)
    missing = statistics.missing
    frame = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    columns = _segment_columns(frame, segment, measures, by=by, query=query)
    # Before value_matrix: a query in two segments is often also a duplicated key.
    _check_one_segment_per_query(frame, columns, by=by, query=query)
    names, systems, values, _ = value_matrix(
        frame.drop(columns),
        measures,
        baseline=baseline,
        weight=weight,
        by=by,
        query=query,
        missing=missing,
    )
    weights = compared_weights(frame, weight, by=by, query=query, missing=missing)
    labels = frame.select(query, *columns).unique()
    grid = query_grid(frame.select(by, query, *names), systems, missing, by=by, query=query)
    if weight is not None:  # checked by compared_weights: one weight per query
        grid = grid.join(query_weights(frame, weight, [query]).collect(), on=query)
    # Each segment's grid is complete (missing queries are 0 already, or left out), so
    # compare() sees the choices made over the whole table.
    within = partial(
        compare_with,
        measures=names,
        statistics=replace(statistics, missing="zero"),
        by=by,
        query=query,
        baseline=systems[0],
        weight=weight,
    )
    parts = []
    for key, match, part in _segments(grid.join(labels, on=query), columns):
        compared = within(part.drop(columns)).select(by, *_FROM_COMPARE)
        counts = _missing_counts(frame.filter(match), systems, by=by, query=query)
        out = compared.join(counts, on=by, maintain_order="left")
        parts.append(key.join(out, how="cross", maintain_order="left_right"))
    out = pl.concat(parts).join(
        _overall_diff(values, systems, names, weights),
        on=[by, "measure"],
        maintain_order="left",
    )
    return _tests(out, min_queries=min_queries, statistics=statistics).select(
        *columns, by, *SEGMENT_COLUMNS
    )


def segment_reversals(segments: pl.DataFrame, *, by: str = "system") -> pl.DataFrame:
    """The systems whose order against the baseline reverses in a tested segment.

    A row of :func:`compare_segments`' result is a reversal when its segment is tested
    (at least ``min_queries`` queries) and its ``diff`` and ``overall_diff`` have opposite
    signs, each beyond :data:`~polars_graded.stats.resampling.TIE_TOLERANCE` (a difference of 0 is
    no order): the system is better than the baseline overall but worse in the segment,
    or the reverse (the trap of Simpson's paradox).

    Parameters
    ----------
    segments
        The result of :func:`compare_segments` (its segment columns are those before
        ``by``); filtering its rows first is fine, as each row holds its overall diff.
    by
        The name of its system column.

    Returns
    -------
    DataFrame
        The reversed rows, in the input's order: the segment columns, ``by``, then
        :data:`REVERSAL_COLUMNS` (``significant``: the segment's difference is significant
        after the correction).

    Raises
    ------
    MissingColumnError
        ``segments`` lacks ``by`` or a column of :data:`REVERSAL_COLUMNS`.

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 5 + ["b"] * 5,
    ...     "lang": ["en", "en", "en", "de", "de"] * 2,
    ...     "query": [1, 2, 3, 4, 5] * 2,
    ...     "ap": [0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0],
    ... })
    >>> out = compare_segments(per_query, segment="lang", min_queries=2, trials=99, bootstrap=99)
    >>> reversals = segment_reversals(out)
    >>> reversals.select("lang", "system", pl.col("overall_diff", "diff").round(4)).rows()
    [('en', 'b', -0.05, 0.25)]
    """
    needed = [by, "tested", *REVERSAL_COLUMNS]
    absent = [c for c in needed if c not in segments.columns]
    if absent:
        msg = (
            f"segment_reversals() takes the result of compare_segments(); "
            f"columns {absent} are missing from {segments.columns}"
        )
        raise MissingColumnError(msg)
    columns = segments.columns[: segments.columns.index(by)]
    opposite = _sign(pl.col("diff")) * _sign(pl.col("overall_diff")) == -1
    return segments.filter(pl.col("tested") & opposite).select(*columns, by, *REVERSAL_COLUMNS)


def _sign(value: pl.Expr) -> pl.Expr:
    """1, -1, or 0 within the tie tolerance."""
    return pl.when(value > TIE_TOLERANCE).then(1).when(value < -TIE_TOLERANCE).then(-1).otherwise(0)


def _segment_columns(
    frame: pl.DataFrame,
    segment: str | Sequence[str],
    measures: Sequence[object] | None,
    *,
    by: str,
    query: str,
) -> tuple[str, ...]:
    """The segment columns, checked: at least one, distinct, present, and none a key, a
    measure or a result column."""
    columns = as_by(segment)
    if not columns:
        msg = "segment= needs at least one column that puts each query in a segment"
        raise InvalidValueError(msg)
    if len(set(columns)) < len(columns):
        msg = f"segment columns must be distinct, got {list(columns)}"
        raise InvalidValueError(msg)
    wanted = [measures] if isinstance(measures, str) else [str(m) for m in measures or ()]
    for column in columns:
        if column in (by, query):
            msg = f"segment column {column!r} is a key column (by={by!r}, query={query!r})"
            raise InvalidValueError(msg)
        if column in wanted:
            msg = f"column {column!r} is given both as a segment and as a measure"
            raise InvalidValueError(msg)
        if column in SEGMENT_COLUMNS:
            msg = (
                f"segment column {column!r} has the name of a result column; rename it "
                f"first, e.g. frame.rename({{{column!r}: 'segment'}})"
            )
            raise InvalidValueError(msg)
        if column not in frame.columns:
            msg = (
                f"segment column {column!r} not found; the per-query table has "
                f"{frame.columns}. Keep it when evaluating: "
                f"pg.evaluate(table, measures, by=[{by!r}, {column!r}])"
            )
            raise MissingColumnError(msg)
    check_segment_types(frame, columns)
    return columns


def _check_one_segment_per_query(
    frame: pl.DataFrame, columns: Sequence[str], *, by: str, query: str
) -> None:
    """Every row of a query carries the same segment; else an error naming the column and
    two of the query's rows. Skipped when a key is absent (value_matrix says so)."""
    if by not in frame.columns or query not in frame.columns:
        return
    labels = frame.select(query, *columns).unique(maintain_order=True)
    clash = labels.filter(pl.col(query).is_duplicated())
    if clash.height:
        example = clash.get_column(query)[0]
        rows = frame.filter(pl.col(query).eq_missing(example))
        rows = rows.unique(subset=list(columns), maintain_order=True).head(2)
        column = next(c for c in columns if rows.get_column(c).n_unique() > 1)
        shown = [_row_text(r, [by, query, column]) for r in rows.iter_rows(named=True)]
        msg = (
            f"query {example!r} is in two segments of column {column!r}: {shown[0]} and "
            f"{shown[1]}; a segment is a property of the query, the same on every row of "
            f"the query for every system"
        )
        raise InvalidValueError(msg)


def _row_text(row: dict[str, object], names: Sequence[str]) -> str:
    return "(" + ", ".join(f"{n}={row[n]!r}" for n in names) + ")"


def _segments(
    grid: pl.DataFrame, columns: Sequence[str]
) -> Iterator[tuple[pl.DataFrame, pl.Expr, pl.DataFrame]]:
    """Each segment of ``grid`` in sorted order (nulls last): its key as a one-row frame,
    the expression that matches its rows, and its rows."""
    keys = grid.select(columns).unique().sort(columns, nulls_last=True)
    for key in keys.iter_slices(1):
        match = pl.all_horizontal(pl.col(c).eq_missing(key.item(0, c)) for c in columns)
        yield key, match, grid.filter(match)


def _missing_counts(rows: pl.DataFrame, systems: pl.Series, *, by: str, query: str) -> pl.DataFrame:
    """Per system: the queries of ``rows`` (one segment's) it has no row for."""
    union = rows.get_column(query).n_unique()
    present = rows.group_by(by).agg(pl.len().alias(_PRESENT))
    counts = systems.to_frame().join(present, on=by, how="left", maintain_order="left")
    return counts.select(by, n_missing=union - pl.col(_PRESENT).fill_null(0).cast(pl.Int64))


def _overall_diff(
    values: np.ndarray, systems: pl.Series, names: list[str], weights: np.ndarray | None
) -> pl.DataFrame:
    """Each system's (weighted) mean difference from the baseline over every compared
    query, per measure, as :func:`~polars_graded.stats.compare.compare` computes ``diff``."""
    mean = weighted_mean(values, weights)
    n_measures, n_systems = mean.shape
    return pl.DataFrame(
        {
            systems.name: systems.gather(np.tile(np.arange(n_systems), n_measures)),
            "measure": np.repeat(np.array(names, dtype=object), n_systems).tolist(),
            "overall_diff": (mean - mean[:, :1]).ravel(),
        },
        schema_overrides={"measure": pl.String},
    )


def _tests(out: pl.DataFrame, *, min_queries: int, statistics: Statistics) -> pl.DataFrame:
    """``tested``, ``note``, and the p-values corrected per measure across the tested
    segments x systems; untested segments' p-values null."""
    tested = pl.col("n_queries") >= min_queries
    tests = list(P_VALUES.values())
    out = out.with_columns(
        *(pl.when(tested).then(pl.col(name)).alias(name) for name in tests),
        tested=tested,
        note=pl.when(~tested).then(pl.lit(f"fewer than {min_queries} queries: not tested")),
    )
    measure = out.get_column("measure").to_numpy()
    for name in tests:
        p = out.get_column(name).to_numpy().astype(np.float64)
        adjusted = np.full_like(p, np.nan)
        for value in np.unique(measure):
            # A null p (the baseline, an untested segment, a t-test on one query) stays out.
            rows = (measure == value) & ~np.isnan(p)
            adjusted[rows] = adjust(p[rows], statistics.correction)
        out = out.with_columns(pl.Series(f"{name}_adjusted", adjusted).fill_nan(None))
    decides = pl.col(f"{P_VALUES[statistics.test]}_adjusted")
    return out.with_columns(significant=(decides < statistics.alpha).fill_null(False))

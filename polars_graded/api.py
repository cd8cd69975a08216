"""The typed API: every entry point (namespace, CLI, report, Parquet, Spark) calls these.

Each function takes a DataFrame or a LazyFrame and returns the same kind: a LazyFrame stays
a lazy plan, a DataFrame is evaluated at once; both run on Polars' in-memory engine. A pandas
DataFrame, a pyarrow Table or RecordBatch (any table of :data:`~polars_graded.frames.Table`)
is converted by :func:`~polars_graded.frames.as_polars` and gives a Polars DataFrame. Table
options are the keywords of :class:`~polars_graded.options.ColumnOptions`, checked once into a
:class:`~polars_graded.options.TableSpec`; a caller that holds a spec already (the report,
the command line, the judgment bounds) passes it whole to :func:`evaluate_spec`,
:func:`summary_spec` or :func:`per_threshold_spec`, which the public functions call too.
"""

from __future__ import annotations

from typing import TypeVar, Unpack, overload

import polars as pl

from polars_graded import plan
from polars_graded.defaults import ENGINE, MEAN
from polars_graded.frames import ForeignTable, Table, as_polars
from polars_graded.measures import MeasureSpec, MuAP, as_named_measures
from polars_graded.measures.kernels import mu_ap_thresholds
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.validate import check_schema
from polars_graded.weights import attach_weights, check_weights

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


@overload
def finish(frame: pl.DataFrame, lf: pl.LazyFrame) -> pl.DataFrame: ...
@overload
def finish(frame: pl.LazyFrame, lf: pl.LazyFrame) -> pl.LazyFrame: ...
def finish(frame: pl.DataFrame | pl.LazyFrame, lf: pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
    """``lf`` as the kind of ``frame``: collected for a DataFrame, lazy for a LazyFrame.

    Either way the plan runs on :data:`~polars_graded.defaults.ENGINE`: a LazyFrame gets a
    deferred plan that collects ``lf`` on that engine whichever engine collects the result.
    Polars' streaming engine (its default) runs these group-by-into-lists plans about 1.3x
    slower, with no less memory (every ranking is held whole either way), and the same
    engine everywhere keeps a LazyFrame's values bit-identical to a DataFrame's.

    Examples
    --------
    >>> lf = pl.LazyFrame({"x": [1]})
    >>> type(finish(pl.DataFrame(), lf)).__name__, type(finish(pl.LazyFrame(), lf)).__name__
    ('DataFrame', 'LazyFrame')
    >>> finish(pl.LazyFrame(), lf).collect(engine="streaming").rows()
    [(1,)]
    """
    if isinstance(frame, pl.DataFrame):
        return lf.collect(engine=ENGINE)
    return pl.defer(lambda: lf.collect(engine=ENGINE), schema=lf.collect_schema())


@overload
def evaluate(
    frame: FrameT,
    measures: MeasureSpec,
    *,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> FrameT: ...
@overload
def evaluate(
    frame: ForeignTable,
    measures: MeasureSpec,
    *,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame: ...
def evaluate(
    frame: Table,
    measures: MeasureSpec,
    *,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame | pl.LazyFrame:
    """Per-query values of many measures, in one lazy plan.

    Parameters
    ----------
    frame
        The long table: one row per (query, item), with a score and a relevance label
        (docs/conventions.md §1). A Polars DataFrame or LazyFrame, or a pandas DataFrame, a
        pyarrow Table or RecordBatch (converted by :func:`polars_graded.frames.as_polars`:
        named pandas index levels become columns, a pandas NaN becomes a null).
    measures
        Measure objects or names (``"mu_ap"``, ``"ndcg@10"``, ``"ap(rel=2)@10"``, ...),
        or a mapping output name -> measure or name (``{"rbp80": "rbp(p=0.8)@5"}``)
        to name the result columns yourself.
    weight
        A column of traffic weights, one per ranked list (constant over the rows of each
        ``by + [query]`` group, so a log's traffic may differ per day; numeric, finite, >= 0,
        not all 0; see :mod:`polars_graded.weights`; ``pg.compare`` also needs it equal
        across the systems of a query): it is checked
        and carried into the result, right after the keys, so that :func:`summary`,
        ``pg.compare`` or the gate can weight each query by it. Default: none.
    **columns
        ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=``, ``ranked=``, ``ties=``
        (see :class:`~polars_graded.options.ColumnOptions`).

    Returns
    -------
    DataFrame or LazyFrame
        The kind of ``frame`` (a Polars DataFrame for a pandas or Arrow table).
        One row per ``by + [query]`` (sorted), the weight (Float64) with ``weight=``, and
        one Float64 column per measure: named by
        its canonical string (defaults dropped: ``"rbp(p=0.8,rel=1)@5"`` gives
        ``rbp@5``, see :func:`polars_graded.measure_name`), or by the mapping, in its
        order.

    Raises
    ------
    GradedError
        Bad input (the message names the column, the rule and example rows), a bad
        measure or output name (one that is also a key column), a measure value
        that would be NaN or infinite, or a bad weight
        (:class:`~polars_graded.errors.InvalidWeightError`); a ``frame`` that is not a
        table (a list, a dict: pytrec_eval's dicts go through
        :func:`polars_graded.from_dicts`) is a ``ColumnTypeError``.

    Warns
    -----
    GradedWarning
        A measure's relevance threshold is above every label of the table.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
    ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
    ... })
    >>> pg.evaluate(df, ["mu_ap", "ndcg@2", "ap(rel=2)"])
    shape: (1, 4)
    ┌───────┬──────────┬──────────┬───────────┐
    │ query ┆ mu_ap    ┆ ndcg@2   ┆ ap(rel=2) │
    │ ---   ┆ ---      ┆ ---      ┆ ---       │
    │ i64   ┆ f64      ┆ f64      ┆ f64       │
    ╞═══════╪══════════╪══════════╪═══════════╡
    │ 1     ┆ 0.541667 ┆ 0.521296 ┆ 0.5       │
    └───────┴──────────┴──────────┴───────────┘
    >>> pg.evaluate(df, {"rbp80": "rbp(p=0.8)@2", "top2": pg.NDCG @ 2})
    shape: (1, 3)
    ┌───────┬───────┬──────────┐
    │ query ┆ rbp80 ┆ top2     │
    │ ---   ┆ ---   ┆ ---      │
    │ i64   ┆ f64   ┆ f64      │
    ╞═══════╪═══════╪══════════╡
    │ 1     ┆ 0.16  ┆ 0.521296 │
    └───────┴───────┴──────────┘
    """
    table = as_polars(frame, "evaluate")
    return evaluate_spec(table, measures, TableSpec.of(columns), weight=weight)


@overload
def evaluate_spec(
    frame: FrameT, measures: MeasureSpec, spec: TableSpec, *, weight: str | None = None
) -> FrameT: ...
@overload
def evaluate_spec(
    frame: ForeignTable, measures: MeasureSpec, spec: TableSpec, *, weight: str | None = None
) -> pl.DataFrame: ...
def evaluate_spec(
    frame: Table, measures: MeasureSpec, spec: TableSpec, *, weight: str | None = None
) -> pl.DataFrame | pl.LazyFrame:
    """:func:`evaluate` with the table options as one checked :class:`TableSpec`.

    Examples
    --------
    >>> spec = TableSpec.of({"by": "system"})
    >>> df = pl.DataFrame({"system": ["a"], "query": [1], "item": ["x"], "score": [1.0],
    ...                    "relevance": [1]})
    >>> evaluate_spec(df, ["rr"], spec).rows()
    [('a', 1, 1.0)]
    """
    table = as_polars(frame, "evaluate")
    values = plan.per_query(table.lazy(), measures, spec)
    return finish(table, _weighted(table, values, spec, weight))


def _weighted(
    table: pl.DataFrame | pl.LazyFrame, values: pl.LazyFrame, spec: TableSpec, weight: str | None
) -> pl.LazyFrame:
    """``values`` with the weight of each query after the keys, the weights checked: now for
    a DataFrame, when the result is collected for a LazyFrame (which stays lazy)."""
    if weight is None:
        return values
    weighted = attach_weights(values, table, weight, query=spec.query, keys=spec.keys)
    if isinstance(table, pl.DataFrame):
        check_weights(table, weight, spec.keys)
        return weighted

    def checked() -> pl.DataFrame:
        check_weights(table, weight, spec.keys)
        return weighted.collect(engine=ENGINE)

    return pl.defer(checked, schema=weighted.collect_schema())


@overload
def summary(
    frame: FrameT,
    measures: MeasureSpec,
    *,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> FrameT: ...
@overload
def summary(
    frame: ForeignTable,
    measures: MeasureSpec,
    *,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame: ...
def summary(
    frame: Table,
    measures: MeasureSpec,
    *,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame | pl.LazyFrame:
    """Per ``by`` group, the number of queries ``num_q`` and the mean of each measure.

    The mean of ``mu_ap`` is µMAP. Every query of the table counts, including those with
    no relevant row (they score 0), as trec_eval does with ``-c``. ``mean="geometric"``
    gives trec_eval's geometric mean instead (``gm_map`` for ``ap``: values below 1e-5
    count as 1e-5), in columns named ``gm_<measure>``. ``frame``, ``measures`` and
    ``columns`` as for :func:`evaluate`: a mapping output name -> measure names the
    columns; the result is the kind of ``frame`` (a Polars DataFrame for a pandas or Arrow
    table).

    ``weight="traffic"`` weights each query by that column (one value per query, see
    :func:`evaluate`): each mean is ``sum(w v) / sum(w)`` over the group's queries (the
    geometric mean ``exp(sum(w log v) / sum(w))``), and a column named as the weight, after
    ``num_q``, holds the sum of the group's weights. ``num_q`` still counts every query: a
    query of weight 0 is counted but adds nothing to the means; a group whose weights sum
    to 0 has null means.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
    ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
    ... })
    >>> pg.summary(df, ["mu_ap", "ndcg@2"])
    shape: (1, 3)
    ┌───────┬──────────┬──────────┐
    │ num_q ┆ mu_ap    ┆ ndcg@2   │
    │ ---   ┆ ---      ┆ ---      │
    │ u32   ┆ f64      ┆ f64      │
    ╞═══════╪══════════╪══════════╡
    │ 1     ┆ 0.541667 ┆ 0.521296 │
    └───────┴──────────┴──────────┘
    >>> two = pl.DataFrame({  # AP 0.5 on query 1 (traffic 3), 1.0 on query 2 (traffic 1)
    ...     "query": [1, 1, 2], "item": ["a", "b", "a"], "score": [2.0, 1.0, 1.0],
    ...     "relevance": [0, 1, 1], "traffic": [3, 3, 1],
    ... })
    >>> pg.summary(two, ["ap"], weight="traffic")  # (3 * 0.5 + 1 * 1.0) / 4
    shape: (1, 3)
    ┌───────┬─────────┬───────┐
    │ num_q ┆ traffic ┆ ap    │
    │ ---   ┆ ---     ┆ ---   │
    │ u32   ┆ f64     ┆ f64   │
    ╞═══════╪═════════╪═══════╡
    │ 2     ┆ 4.0     ┆ 0.625 │
    └───────┴─────────┴───────┘
    """
    table = as_polars(frame, "summary")
    return summary_spec(table, measures, TableSpec.of(columns), mean=mean, weight=weight)


@overload
def summary_spec(
    frame: FrameT,
    measures: MeasureSpec,
    spec: TableSpec,
    *,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
) -> FrameT: ...
@overload
def summary_spec(
    frame: ForeignTable,
    measures: MeasureSpec,
    spec: TableSpec,
    *,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
) -> pl.DataFrame: ...
def summary_spec(
    frame: Table,
    measures: MeasureSpec,
    spec: TableSpec,
    *,
    mean: plan.MeanKind = MEAN,
    weight: str | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """:func:`summary` with the table options as one checked :class:`TableSpec`.

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 2], "item": ["x", "x"], "score": [1.0, 1.0],
    ...                    "relevance": [1, 0]})
    >>> summary_spec(df, ["rr"], TableSpec()).rows()
    [(2, 0.5)]
    """
    table = as_polars(frame, "summary")
    wanted = as_named_measures(measures)
    values = _weighted(table, plan.per_query(table.lazy(), wanted, spec), spec, weight)
    return finish(table, plan.summary(values, list(wanted), spec.by, mean, weight=weight))


@overload
def per_threshold(frame: FrameT, **columns: Unpack[ColumnOptions]) -> FrameT: ...
@overload
def per_threshold(frame: ForeignTable, **columns: Unpack[ColumnOptions]) -> pl.DataFrame: ...
def per_threshold(frame: Table, **columns: Unpack[ColumnOptions]) -> pl.DataFrame | pl.LazyFrame:
    """MAP at each relevance threshold of the table, and its share of µMAP, per ``by`` group.

    The thresholds of a group are the distinct positive relevance labels of its rows
    ``t_1 < ... < t_m`` (judged rows, retrieved or not), and ``map_j`` is the mean over the
    group's queries of ``AP(rel=t_j)``. Two µMAPs add these up:

    * ``mu_map``: the mean of ``mu_ap`` (each query's own levels), exactly the µMAP of
      ``summary(["mu_ap"])``. ``contribution_j`` is threshold j's share of it, the mean
      over queries of ``(t_j - t_(j-1)) / top_q * AP_q(rel=t_j)`` for ``t_j <= top_q``
      (``t_0 = 0``, ``top_q`` the query's top label), so the contributions of a group sum
      to ``mu_map``.
    * ``mu_map_table_levels``: the mean of ``mu_ap(levels="table")``, where every query
      shares the table's levels and top label, so it is the weighted sum of the MAPs,
      ``sum_j weight_j * map_j`` with ``weight_j = (t_j - t_(j-1)) / t_m`` (the weights of
      a group sum to 1). It counts a query without the table's top label as 0 above its
      own top, so it is lower than ``mu_map`` when queries differ in their label sets.

    Parameters
    ----------
    frame
        The long table, one row per (query, item) (docs/conventions.md §1), of any kind
        :func:`evaluate` takes.
    **columns
        As for :func:`evaluate` (:class:`~polars_graded.options.ColumnOptions`); each ``by``
        group gets its own thresholds, as ``mu_ap(levels="table")`` does.

    Returns
    -------
    DataFrame or LazyFrame
        The same kind as the input (a Polars DataFrame for a pandas or Arrow table):
        columns ``[*by, "threshold", "weight", "map",
        "contribution", "mu_map_table_levels", "mu_map"]`` (``by`` in its own dtypes, the
        others Float64), one row per group and threshold, sorted by ``by`` then threshold;
        the two µMAPs repeat on every row of the group. A group without a positive label has
        no threshold and no row (its µMAP is 0). A LazyFrame stays lazy; at collect time
        the table is evaluated in one piece.

    Notes
    -----
    Bounded on continuous labels (a threshold per distinct label): AP at every level of
    each query comes from one O(rows log rows) pass over the pairs of relevant rows, and
    MAP at the table's thresholds from a difference array over them.

    Examples
    --------
    Query 2 has no label 2, so ``mu_ap(levels="table")`` gives it 0 between 1 and 2 while
    its own µAP is 1: the two µMAPs differ.

    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1, 2, 2],
    ...     "item": ["a", "b", "c", "a", "b"],
    ...     "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    ...     "relevance": [0, 2, 1, 1, 0],
    ... })
    >>> pg.per_threshold(df)
    shape: (2, 6)
    ┌───────────┬────────┬──────────┬──────────────┬─────────────────────┬──────────┐
    │ threshold ┆ weight ┆ map      ┆ contribution ┆ mu_map_table_levels ┆ mu_map   │
    │ ---       ┆ ---    ┆ ---      ┆ ---          ┆ ---                 ┆ ---      │
    │ f64       ┆ f64    ┆ f64      ┆ f64          ┆ f64                 ┆ f64      │
    ╞═══════════╪════════╪══════════╪══════════════╪═════════════════════╪══════════╡
    │ 1.0       ┆ 0.5    ┆ 0.791667 ┆ 0.645833     ┆ 0.520833            ┆ 0.770833 │
    │ 2.0       ┆ 0.5    ┆ 0.25     ┆ 0.125        ┆ 0.520833            ┆ 0.770833 │
    └───────────┴────────┴──────────┴──────────────┴─────────────────────┴──────────┘
    """
    table = as_polars(frame, "per_threshold")
    return per_threshold_spec(table, TableSpec.of(columns))


@overload
def per_threshold_spec(frame: FrameT, spec: TableSpec) -> FrameT: ...
@overload
def per_threshold_spec(frame: ForeignTable, spec: TableSpec) -> pl.DataFrame: ...
def per_threshold_spec(frame: Table, spec: TableSpec) -> pl.DataFrame | pl.LazyFrame:
    """:func:`per_threshold` with the table options as one checked :class:`TableSpec`.

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1], "item": ["x", "y"], "score": [2.0, 1.0],
    ...                    "relevance": [0, 1]})
    >>> per_threshold_spec(df, TableSpec()).select("threshold", "map").rows()
    [(1.0, 0.5)]
    """
    table = as_polars(frame, "per_threshold")
    mu_ap_thresholds.check_by(spec)
    if isinstance(table, pl.DataFrame):
        return _per_threshold_now(table.lazy(), spec)
    schema = table.collect_schema()
    check_schema(schema, spec)
    out_schema = mu_ap_thresholds.output_schema(schema, spec)
    return table.map_batches(
        lambda whole: _per_threshold_now(whole.lazy(), spec), schema=out_schema
    )


def _per_threshold_now(lf: pl.LazyFrame, spec: TableSpec) -> pl.DataFrame:
    """The breakdown of one table, evaluated now."""
    check_schema(lf.collect_schema(), spec)
    mu_ap = MuAP()
    # Collected first: it checks the table, and gives the µMAP and query count of each group.
    means = plan.summary(plan.per_query(lf, [mu_ap], spec), [str(mu_ap)], spec.by).collect()
    names = {plan.SUMMARY_COUNT: mu_ap_thresholds.QUERIES, str(mu_ap): mu_ap_thresholds.MU_MAP}
    return mu_ap_thresholds.breakdown(lf, spec, means.rename(names))
